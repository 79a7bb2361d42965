//! A memory budget for unsent answers: why a few clients that never read cannot hold
//! gigabytes.
//!
//! Answers are held in memory until the client takes them. [`Budget`] counts the bytes of
//! answers made for one request ([`PerRequest`]: a search's answer; the pre-rendered pages
//! and assets are shared by every request and cost nothing more to hold) that are not yet
//! handed to the connection, per connection and for the whole process, and a request that
//! would go beyond either gets 503 instead. [`Tracked`] is the answer's body that gives the
//! bytes back as the connection takes them, piece by piece, and tells the write deadline
//! ([`super::deadlines`]) when the client reads.

use super::deadlines::{InFlight, Progress};
use axum::body::Body;
use bytes::{Buf, Bytes};
use http_body::{Body as _, Frame, SizeHint};
use hyper::{Response, StatusCode, header};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

/// Larger frames of an answer are handed over in pieces of this size, so that HTTP/2 takes
/// the next piece only when the client has room for it, and what it has not taken stays
/// ours to count.
pub(crate) const PIECE: usize = 64 * 1024;

/// Marks a response whose body was made for this request alone (a response extension): its
/// bytes count against the [`Budget`] until the connection takes them.
#[derive(Debug, Clone, Copy)]
pub struct PerRequest;

/// Unsent answer bytes for the whole process, and the limits on them.
#[derive(Debug)]
pub struct Budget {
    unsent: AtomicUsize,
    per_connection: usize,
    total: usize,
}

impl Budget {
    pub fn new(per_connection: usize, total: usize) -> Budget {
        Budget {
            unsent: AtomicUsize::new(0),
            per_connection,
            total,
        }
    }

    /// Bytes of answers made and not yet handed to a connection, all connections together
    /// (what the tests read to see every byte given back).
    #[cfg(test)]
    fn unsent(&self) -> usize {
        self.unsent.load(Ordering::Acquire)
    }

    /// Takes `bytes` from both budgets, or from neither when either would go over. An
    /// answer is always let through when nothing else is waiting: a limit smaller than one
    /// answer must not make that answer impossible.
    fn take(&self, progress: &Progress, bytes: usize) -> bool {
        let conn_before = progress.unsent.fetch_add(bytes, Ordering::AcqRel);
        let total_before = self.unsent.fetch_add(bytes, Ordering::AcqRel);
        let over = (conn_before > 0 && conn_before + bytes > self.per_connection)
            || (total_before > 0 && total_before + bytes > self.total);
        if over {
            self.give_back(progress, bytes);
        }
        !over
    }

    /// Counts `bytes` whatever the limits say.
    fn force(&self, progress: &Progress, bytes: usize) {
        progress.unsent.fetch_add(bytes, Ordering::AcqRel);
        self.unsent.fetch_add(bytes, Ordering::AcqRel);
    }

    fn give_back(&self, progress: &Progress, bytes: usize) {
        progress.unsent.fetch_sub(bytes, Ordering::AcqRel);
        self.unsent.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// An answer's body that counts what has not been handed over yet, and hands large frames
/// over in pieces.
pub struct Tracked {
    inner: Body,
    rest: Bytes,
    /// Pieces handed over so far.
    pieces: u64,
    unsent: usize,
    budget: Arc<Budget>,
    in_flight: InFlight,
}

impl Tracked {
    /// Wraps `response`, or answers 503 instead when its bytes do not fit the budget.
    pub(super) fn wrap(
        response: Response<Body>,
        in_flight: InFlight,
        budget: Arc<Budget>,
    ) -> Response<Tracked> {
        let size = match response.extensions().get::<PerRequest>() {
            Some(PerRequest) => response.body().size_hint().exact().unwrap_or(0) as usize,
            None => 0,
        };
        if size > 0 && !budget.take(&in_flight.0, size) {
            return Tracked::over_budget(in_flight, budget);
        }
        Tracked::counted(response, size, in_flight, budget)
    }

    /// `response`, whose `size` bytes are already counted as unsent, now one of the
    /// connection's answers in progress.
    fn counted(
        response: Response<Body>,
        size: usize,
        in_flight: InFlight,
        budget: Arc<Budget>,
    ) -> Response<Tracked> {
        let p = &in_flight.0;
        // The write deadline runs from the first answer waiting; more answers made meanwhile
        // are not progress.
        if p.bodies.fetch_add(1, Ordering::AcqRel) == 0 {
            p.last_piece.store(p.now(), Ordering::Release);
        }
        response.map(|inner| Tracked {
            inner,
            rest: Bytes::new(),
            pieces: 0,
            unsent: size,
            budget,
            in_flight,
        })
    }

    /// 503 instead of an answer that does not fit. Its few bytes are counted whatever the
    /// budget says: unsent, they hold the write deadline like any other answer, so that a
    /// client that reads nothing at all is still closed in time.
    fn over_budget(in_flight: InFlight, budget: Arc<Budget>) -> Response<Tracked> {
        const TEXT: &str = "Too many answers are waiting to be read; try again.\n";
        budget.force(&in_flight.0, TEXT.len());
        let refusal = Response::new(Body::from(TEXT));
        let mut response = Tracked::counted(refusal, TEXT.len(), in_flight, budget);
        *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        headers.insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        response
    }

    /// The next piece of `rest`, counted as handed over.
    fn piece(&mut self) -> Bytes {
        let n = self.rest.len().min(PIECE);
        let piece = self.rest.split_to(n);
        let counted = n.min(self.unsent);
        if counted > 0 {
            self.unsent -= counted;
            self.budget.give_back(&self.in_flight.0, counted);
        }
        // hyper takes each body's first piece at once, before the client has room for it;
        // only the pieces after it show that the client reads.
        self.pieces += 1;
        if self.pieces > 1 {
            let p = &self.in_flight.0;
            p.last_piece.store(p.now(), Ordering::Release);
        }
        piece
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let p = &self.in_flight.0;
        // Handed over whole: the connection finished with it, so the client read it (a
        // body of one piece shows progress only here).
        if !self.rest.has_remaining() && http_body::Body::is_end_stream(&self.inner) {
            p.last_piece.store(p.now(), Ordering::Release);
        }
        p.bodies.fetch_sub(1, Ordering::AcqRel);
        if self.unsent > 0 {
            self.budget.give_back(&self.in_flight.0, self.unsent);
        }
    }
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if self.rest.has_remaining() {
            return Poll::Ready(Some(Ok(Frame::data(self.piece()))));
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) => {
                    self.rest = data;
                    Poll::Ready(Some(Ok(Frame::data(self.piece()))))
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        !self.rest.has_remaining() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower() + rest);
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connections::deadlines::tests::limits;
    use crate::connections::deadlines::{Expired, watchdog};
    use std::time::Instant;

    #[tokio::test]
    async fn unsent_answers_expire_at_the_write_timeout_and_are_counted() {
        let progress = Arc::new(Progress::new(Instant::now()));
        let budget = Arc::new(Budget::new(1000, 1500));
        let answer = |n: usize| {
            let mut response = Response::new(Body::from(vec![b'x'; n]));
            response.extensions_mut().insert(PerRequest);
            response
        };
        let first = Tracked::wrap(
            answer(800),
            InFlight::start(progress.clone()),
            budget.clone(),
        );
        assert_eq!(first.status(), StatusCode::OK);
        // Over this connection's budget: refused, and nothing more counted.
        let second = Tracked::wrap(
            answer(800),
            InFlight::start(progress.clone()),
            budget.clone(),
        );
        assert_eq!(second.status(), StatusCode::SERVICE_UNAVAILABLE);
        let refusal = second.body().size_hint().exact().unwrap_or(0) as usize;
        assert_eq!(budget.unsent(), 800 + refusal);
        drop(second);
        assert_eq!(watchdog(progress.clone(), limits()).await, Expired::Write);
        drop(first);
        assert_eq!(budget.unsent(), 0);
        assert_eq!(progress.unsent.load(Ordering::Acquire), 0);
    }
}
