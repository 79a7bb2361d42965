//! Serving connections: "here is a byte stream, speak HTTP on it with this app".
//!
//! Where streams come from is not this module's business: `--local` feeds it TCP
//! connections, the tailnet feeds it TLS streams from the embedded node. Every connection is
//! tracked so that shutdown can stop accepting, let in-flight requests finish, and give up
//! after a deadline.

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long a client may take to send its request headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves HTTP/1.1 and HTTP/2 on any stream handed to it, and drains them on shutdown.
#[derive(Clone)]
pub struct Connections {
    app: Router,
    builder: Arc<auto::Builder<TokioExecutor>>,
    tracker: TaskTracker,
    stopping: CancellationToken,
}

impl Connections {
    pub fn new(app: Router) -> Connections {
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_READ_TIMEOUT);
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_concurrent_streams(100);
        Connections {
            app,
            builder: Arc::new(builder),
            tracker: TaskTracker::new(),
            stopping: CancellationToken::new(),
        }
    }

    /// A token that is cancelled when shutdown starts; accept loops stop on it.
    pub fn stopping(&self) -> CancellationToken {
        self.stopping.clone()
    }

    /// Serves one connection in its own task until it closes or shutdown ends it.
    pub fn serve<I>(&self, io: I)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let service = TowerToHyperService::new(self.app.clone());
        let builder = self.builder.clone();
        let stopping = self.stopping.clone();
        self.tracker.spawn(async move {
            let conn = builder.serve_connection_with_upgrades(TokioIo::new(io), service);
            tokio::pin!(conn);
            tokio::select! {
                result = conn.as_mut() => {
                    if let Err(e) = result {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                () = stopping.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    if let Err(e) = conn.await {
                        tracing::debug!(error = %e, "connection ended with an error while draining");
                    }
                }
            }
        });
    }

    /// Starts shutdown (if not yet started) and waits for open connections to finish their
    /// requests, at most `deadline`. Returns how many were still open when it gave up.
    pub async fn drain(&self, deadline: Duration) -> usize {
        self.stopping.cancel();
        self.tracker.close();
        match tokio::time::timeout(deadline, self.tracker.wait()).await {
            Ok(()) => 0,
            Err(_) => self.tracker.len(),
        }
    }
}

/// Accepts TCP connections until shutdown starts.
pub async fn accept_tcp(listener: TcpListener, connections: Connections) {
    let stopping = connections.stopping();
    loop {
        tokio::select! {
            () = stopping.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    let _ = stream.set_nodelay(true);
                    connections.serve(stream);
                }
                Err(e) => {
                    // Usually EMFILE: back off briefly rather than spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only Ctrl-C stops the server");
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
