//! Deadlines for progress on one connection: why a silent or stalled client is closed.
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
//! [`Watched`] wraps the byte stream to see reads and writes, [`InFlight`] marks each
//! request from start to end (the dispatch in [`super`] makes one per request), and
//! [`watchdog`] sleeps until the next deadline and returns when one has passed; the
//! connection task then drops the connection.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

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
    pub(super) unsent: AtomicUsize,
    /// Answers made whose body the connection has not finished with.
    pub(super) bodies: AtomicUsize,
    /// When the connection last took a piece of an answer.
    pub(super) last_piece: AtomicU64,
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

    pub(super) fn now(&self) -> u64 {
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

/// One request in flight, until its answer is handed over whole or dropped.
pub(super) struct InFlight(pub(super) Arc<Progress>);

impl InFlight {
    pub(super) fn start(progress: Arc<Progress>) -> InFlight {
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Short deadlines for tests (the budget's tests use them too).
    pub(in crate::connections) fn limits() -> Deadlines {
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
        // A write timeout far beyond the idle one, so that a slow machine oversleeping the
        // 250 ms below does not reach it: past the idle timeout, the connection stays.
        let limits = Deadlines {
            write: Duration::from_secs(3),
            ..limits()
        };
        let progress = Arc::new(Progress::new(Instant::now()));
        drop(InFlight::start(progress.clone()));
        // The answer is handed over, but the socket takes no more: not idle.
        progress
            .write_blocked_since
            .store(progress.now(), Ordering::Release);
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert!(progress.check(limits).is_ok(), "cut at the header timeout");
        let blocked = Instant::now();
        assert_eq!(watchdog(progress, limits).await, Expired::Write);
        assert!(blocked.elapsed() >= Duration::from_millis(2500));
    }
}
