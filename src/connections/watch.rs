//! Deadlines for progress on one connection, and a memory budget for unsent answers.
//!
//! Limits on size say nothing about a client that sends nothing at all, or reads nothing.
//! So, in the spirit of Envoy's edge advice, every connection must keep making progress:
//!
//! - its first request head must be complete within the header timeout *of accept* (a
//!   silent socket, a stalled TLS handshake or a slow HTTP/1-vs-HTTP/2 preface all count);
//! - between requests it may be idle for the same time at most;
//! - a response the client stops reading (an HTTP/1 reader that stops, HTTP/2 streams whose
//!   window is never opened) may make no progress for the write timeout.
//!
//! [`Watched`] wraps the byte stream to see reads and writes, [`Dispatch`] wraps the app to
//! see requests start and end, and [`watchdog`] sleeps until the next deadline and returns
//! when one has passed; the connection task then drops the connection.
//!
//! Answers are held in memory until the client takes them. [`Budget`] counts the bytes of
//! answers made for one request ([`PerRequest`]: a search's answer; the pre-rendered pages
//! and assets are shared by every request and cost nothing more to hold) that are not yet
//! handed to the connection, per connection and for the whole process, and a request that
//! would go beyond either gets 503 instead: a few clients that never read cannot hold
//! gigabytes.

use axum::Router;
use axum::body::Body;
use bytes::{Buf, Bytes};
use http_body::{Body as _, Frame, SizeHint};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode, header};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Larger frames of an answer are handed over in pieces of this size, so that HTTP/2 takes
/// the next piece only when the client has room for it, and what it has not taken stays
/// ours to count.
pub(crate) const PIECE: usize = 64 * 1024;

/// Marks a response whose body was made for this request alone (a response extension): its
/// bytes count against the [`Budget`] until the connection takes them.
#[derive(Debug, Clone, Copy)]
pub struct PerRequest;

/// What one connection may use of resources that all connections share, handed to the app
/// in each request's extensions.
#[derive(Debug, Clone)]
pub struct Share {
    /// CPU-heavy work (searches) of this connection at once: its requests queue behind
    /// each other instead of filling the process's queue, so that one HTTP/2 connection
    /// with dozens of streams cannot crowd the others out.
    pub heavy: Arc<tokio::sync::Semaphore>,
}

impl Share {
    /// Heavy tasks one connection may have admitted at once.
    pub const HEAVY: usize = 2;

    pub fn new() -> Share {
        Share {
            heavy: Arc::new(tokio::sync::Semaphore::new(Share::HEAVY)),
        }
    }
}

impl Default for Share {
    fn default() -> Share {
        Share::new()
    }
}

/// "Not set" for the millisecond stamps below.
const NEVER: u64 = u64::MAX;

/// The deadlines one connection is held to.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// From accept to the first complete request head; also the longest idle gap.
    pub header: Duration,
    /// Longest time a response may make no progress.
    pub write: Duration,
}

/// Why a connection was closed by its watchdog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expired {
    /// No complete request head within the header timeout of accept.
    FirstRequest,
    /// Idle between requests for longer than the header timeout.
    Idle,
    /// A response made no progress for the write timeout.
    Write,
}

impl Expired {
    pub fn label(self) -> &'static str {
        match self {
            Expired::FirstRequest => "first_request",
            Expired::Idle => "idle",
            Expired::Write => "write",
        }
    }
}

/// What a connection has done, and when (milliseconds since accept).
#[derive(Debug)]
pub struct Progress {
    accepted: Instant,
    requests: AtomicU64,
    in_flight: AtomicUsize,
    idle_since: AtomicU64,
    last_write: AtomicU64,
    write_blocked_since: AtomicU64,
    /// Bytes of answers made but not yet handed to the connection.
    unsent: AtomicUsize,
    /// Answers made whose body the connection has not finished with.
    bodies: AtomicUsize,
    /// When the connection last took a piece of an answer.
    last_piece: AtomicU64,
}

impl Progress {
    pub fn new(accepted: Instant) -> Progress {
        Progress {
            accepted,
            requests: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            last_write: AtomicU64::new(0),
            write_blocked_since: AtomicU64::new(NEVER),
            unsent: AtomicUsize::new(0),
            bodies: AtomicUsize::new(0),
            last_piece: AtomicU64::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.accepted.elapsed().as_millis() as u64
    }

    /// The next deadline, or which one has passed.
    fn check(&self, limits: Deadlines) -> Result<u64, Expired> {
        let now = self.now();
        let header = limits.header.as_millis() as u64;
        let write = limits.write.as_millis() as u64;
        let mut next = now.saturating_add(1000);
        let blocked = self.write_blocked_since.load(Ordering::Acquire);
        if blocked != NEVER {
            // Bytes are waiting for the client to take them: only the write deadline
            // applies (a slow link flushing an answer's tail is not idle).
            let at = blocked.saturating_add(write);
            if now >= at {
                return Err(Expired::Write);
            }
            return Ok(next.min(at));
        }
        if self.requests.load(Ordering::Acquire) == 0 {
            if now >= header {
                return Err(Expired::FirstRequest);
            }
            return Ok(next.min(header));
        }
        if self.in_flight.load(Ordering::Acquire) == 0 {
            // Idle counts from the later of the last answer and the last byte written: a
            // slow reader still taking the tail of an answer is not idle.
            let since = self
                .idle_since
                .load(Ordering::Acquire)
                .max(self.last_write.load(Ordering::Acquire));
            let at = since.saturating_add(header);
            if now >= at {
                return Err(Expired::Idle);
            }
            return Ok(next.min(at));
        }
        // An answer the connection has not finished with must keep being taken, piece by
        // piece. (Bytes written do not count: HTTP/2 PING acknowledgements are writes too,
        // and a client could send pings for ever while reading nothing.)
        if self.bodies.load(Ordering::Acquire) > 0 {
            let at = self
                .last_piece
                .load(Ordering::Acquire)
                .saturating_add(write);
            if now >= at {
                return Err(Expired::Write);
            }
            next = next.min(at);
        }
        Ok(next)
    }
}

/// Sleeps until a deadline of `progress` passes, and says which.
pub async fn watchdog(progress: Arc<Progress>, limits: Deadlines) -> Expired {
    loop {
        match progress.check(limits) {
            Err(expired) => return expired,
            Ok(at) => {
                let when = progress.accepted + Duration::from_millis(at);
                tokio::time::sleep_until(when.into()).await;
            }
        }
    }
}

/// A byte stream that reports its reads and writes to a [`Progress`].
pub struct Watched<I> {
    inner: I,
    progress: Arc<Progress>,
}

impl<I> Watched<I> {
    pub fn new(inner: I, progress: Arc<Progress>) -> Watched<I> {
        Watched { inner, progress }
    }

    fn wrote(&self, result: &Poll<io::Result<usize>>) {
        match result {
            Poll::Ready(Ok(n)) if *n > 0 => {
                let p = &self.progress;
                p.last_write.store(p.now(), Ordering::Release);
                p.write_blocked_since.store(NEVER, Ordering::Release);
            }
            Poll::Pending => {
                let p = &self.progress;
                let now = p.now();
                let _ = p.write_blocked_since.compare_exchange(
                    NEVER,
                    now,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
            }
            _ => {}
        }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Watched<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Watched<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.wrote(&result);
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.wrote(&result);
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.inner).poll_flush(cx);
        if result.is_pending() {
            self.wrote(&Poll::Pending);
        }
        result
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

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

/// The app as hyper calls it on one connection: counts requests in flight, and wraps each
/// answer in a [`Tracked`] body.
#[derive(Clone)]
pub struct Dispatch {
    pub app: Router,
    pub progress: Arc<Progress>,
    pub budget: Arc<Budget>,
    pub share: Share,
    /// Who is at the other end, when the listener knows (tailnet connections); every
    /// request of the connection carries it as an extension.
    pub peer: Option<super::Peer>,
}

/// One request in flight, until its answer is handed over whole or dropped.
struct InFlight(Arc<Progress>);

impl InFlight {
    fn start(progress: Arc<Progress>) -> InFlight {
        progress.requests.fetch_add(1, Ordering::AcqRel);
        progress.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(progress)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let p = &self.0;
        p.idle_since.store(p.now(), Ordering::Release);
        p.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl hyper::service::Service<Request<Incoming>> for Dispatch {
    type Response = Response<Tracked>;
    type Error = std::convert::Infallible;
    type Future =
        Pin<Box<dyn Future<Output = Result<Response<Tracked>, std::convert::Infallible>> + Send>>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        use tower::ServiceExt;
        request.extensions_mut().insert(self.share.clone());
        let in_flight = InFlight::start(self.progress.clone());
        let mut request = request.map(Body::new);
        if let Some(peer) = self.peer {
            request.extensions_mut().insert(peer);
        }
        let answer = self.app.clone().oneshot(request);
        let budget = self.budget.clone();
        Box::pin(async move {
            let response = match answer.await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok(Tracked::wrap(response, in_flight, budget))
        })
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
    fn wrap(
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

    fn limits() -> Deadlines {
        Deadlines {
            header: Duration::from_millis(200),
            write: Duration::from_millis(300),
        }
    }

    #[tokio::test]
    async fn a_connection_that_sends_nothing_expires_at_the_header_timeout_of_accept() {
        let progress = Arc::new(Progress::new(Instant::now()));
        let started = Instant::now();
        assert_eq!(watchdog(progress, limits()).await, Expired::FirstRequest);
        assert!(started.elapsed() >= Duration::from_millis(200));
    }

    #[tokio::test]
    async fn idle_counts_from_the_last_answer() {
        let progress = Arc::new(Progress::new(Instant::now()));
        let request = InFlight::start(progress.clone());
        tokio::time::sleep(Duration::from_millis(250)).await;
        // Busy past the header timeout: not expired while the request is in flight.
        assert!(progress.check(limits()).is_ok());
        drop(request);
        let ended = Instant::now();
        assert_eq!(watchdog(progress, limits()).await, Expired::Idle);
        assert!(ended.elapsed() >= Duration::from_millis(190));
    }

    #[tokio::test]
    async fn a_blocked_write_is_held_to_the_write_timeout_not_the_idle_one() {
        let progress = Arc::new(Progress::new(Instant::now()));
        drop(InFlight::start(progress.clone()));
        // The answer is handed over, but the socket takes no more: not idle.
        progress
            .write_blocked_since
            .store(progress.now(), Ordering::Release);
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert!(
            progress.check(limits()).is_ok(),
            "cut at the header timeout"
        );
        assert_eq!(watchdog(progress, limits()).await, Expired::Write);
    }

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
