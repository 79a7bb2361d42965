//! Serving connections: "here is a byte stream, speak HTTP on it with this app".
//!
//! Where streams come from is not this module's business: `--local` feeds it TCP
//! connections, the tailnet feeds it TLS streams from the embedded node. Every connection is
//! tracked so that shutdown can stop accepting, let in-flight requests finish, and give up
//! after a deadline.

use crate::metrics::Metrics;
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

/// Edge limits, in the spirit of Envoy's edge-proxy advice: bound everything a client can
/// make us hold (time, memory, connections, streams).
#[derive(Debug, Clone)]
pub struct Limits {
    /// How long a client may take to send its request headers (slowloris guard).
    pub header_read_timeout: Duration,
    /// Open connections beyond this are closed as soon as they are accepted.
    pub max_connections: usize,
    /// Largest request head (request line + headers); beyond it: 431.
    pub max_header_bytes: usize,
    /// HTTP/2 streams one connection may have open at once.
    pub h2_max_streams: u32,
    /// HTTP/2 flow-control windows: per stream and per connection.
    pub h2_stream_window: u32,
    pub h2_connection_window: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 1024,
            max_header_bytes: 16 * 1024,
            h2_max_streams: 100,
            h2_stream_window: 64 * 1024,
            h2_connection_window: 1024 * 1024,
        }
    }
}

/// Serves HTTP/1.1 and HTTP/2 on any stream handed to it, and drains them on shutdown.
#[derive(Clone)]
pub struct Connections {
    app: Router,
    builder: Arc<auto::Builder<TokioExecutor>>,
    tracker: TaskTracker,
    stopping: CancellationToken,
    limits: Limits,
    metrics: Arc<Metrics>,
}

impl Connections {
    /// `stopping` starts shutdown for every listener sharing it when cancelled.
    pub fn new(
        app: Router,
        limits: Limits,
        metrics: Arc<Metrics>,
        stopping: CancellationToken,
    ) -> Connections {
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .max_buf_size(limits.max_header_bytes.max(8192));
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_concurrent_streams(limits.h2_max_streams)
            .initial_stream_window_size(limits.h2_stream_window)
            .initial_connection_window_size(limits.h2_connection_window)
            .max_header_list_size(limits.max_header_bytes as u32)
            .keep_alive_interval(Some(Duration::from_secs(30)))
            .keep_alive_timeout(Duration::from_secs(20));
        Connections {
            app,
            builder: Arc::new(builder),
            tracker: TaskTracker::new(),
            stopping,
            limits,
            metrics,
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
        self.spawn(async move { Some(io) });
    }

    /// Like [`Connections::serve`], after a TLS handshake that must finish within the
    /// header timeout (a stalled handshake is a slowloris too).
    #[cfg(feature = "tailnet")]
    pub fn serve_tls<I>(&self, io: I, acceptor: tokio_rustls::TlsAcceptor)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let timeout = self.limits.header_read_timeout;
        self.spawn(async move {
            match tokio::time::timeout(timeout, acceptor.accept(io)).await {
                Ok(Ok(tls)) => Some(tls),
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "TLS handshake failed");
                    None
                }
                Err(_) => {
                    tracing::debug!("TLS handshake timed out");
                    None
                }
            }
        });
    }

    /// Admits a connection (or sheds it at the limit) and serves what `ready` yields.
    fn spawn<I, F>(&self, ready: F)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        F: std::future::Future<Output = Option<I>> + Send + 'static,
    {
        self.metrics.connections_accepted.inc();
        // Shedding is a close without reading a byte: the cheapest answer there is.
        if self.metrics.connections_open.get() >= self.limits.max_connections as i64 {
            self.metrics.connections_shed.inc();
            return;
        }
        let service = TowerToHyperService::new(self.app.clone());
        let builder = self.builder.clone();
        let stopping = self.stopping.clone();
        let open = OpenGuard::new(self.metrics.clone());
        self.tracker.spawn(async move {
            let _open = open;
            let Some(io) = ready.await else { return };
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

/// Counts a connection as open for as long as it lives.
struct OpenGuard(Arc<Metrics>);

impl OpenGuard {
    fn new(metrics: Arc<Metrics>) -> OpenGuard {
        metrics.connections_open.inc();
        OpenGuard(metrics)
    }
}

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.connections_open.dec();
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
