//! Serving connections: "here is a byte stream, speak HTTP on it with this app".
//!
//! Where streams come from is not this module's business: `--local` feeds it TCP
//! connections, the tailnet feeds it TLS streams from the embedded node. Every connection is
//! tracked so that shutdown can stop accepting, let in-flight requests finish, and give up
//! after a deadline; every connection is held to deadlines for progress ([`deadlines`]),
//! and the answers it has not read yet to a memory budget ([`budget`]); each connection
//! gets its [`share`] of the CPU-heavy work.

use crate::metrics::Metrics;
use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

mod budget;
mod deadlines;
mod share;

use budget::Tracked;
pub use budget::{Budget, PerRequest};
pub use deadlines::{Deadlines, Expired};
use deadlines::{InFlight, Progress};
pub use share::Share;

/// Edge limits, in the spirit of Envoy's edge-proxy advice: bound everything a client can
/// make us hold (time, memory, connections, streams).
#[derive(Debug, Clone)]
pub struct Limits {
    /// From accept until the first request head is complete (TLS handshake included), and
    /// the longest a keep-alive connection may sit idle between requests.
    pub header_read_timeout: Duration,
    /// How long a response may make no progress before the connection is closed.
    pub write_timeout: Duration,
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
            write_timeout: Duration::from_secs(20),
            max_connections: 1024,
            max_header_bytes: 16 * 1024,
            h2_max_streams: 32,
            h2_stream_window: 64 * 1024,
            h2_connection_window: 1024 * 1024,
        }
    }
}

/// Which protocol to speak on a connection: known from TLS's ALPN, or read from the first
/// bytes (plain TCP, where a client may open with the HTTP/2 preface).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Sniff,
    Http1,
    Http2,
}

/// The tailnet address a connection comes from, as a trusted forwarder told us (see
/// `tailnet::forward`). Requests carry it as an extension; the web layer turns it into an
/// identity only when a handler asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub std::net::SocketAddr);

/// A connection ready to speak HTTP: the stream, the protocol, and who sent it if known.
pub struct Ready<I> {
    pub io: I,
    pub protocol: Protocol,
    pub peer: Option<Peer>,
}

impl<I> Ready<I> {
    fn anonymous(io: I, protocol: Protocol) -> Ready<I> {
        Ready {
            io,
            protocol,
            peer: None,
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
    /// Connections admitted and not yet closed, on this listener. Shedding reads this, not
    /// the metrics gauge, which every listener shares.
    admitted: Arc<AtomicUsize>,
    budget: Arc<Budget>,
}

impl Connections {
    /// `stopping` starts shutdown for every listener sharing it when cancelled; `budget` is
    /// shared by every listener of the process.
    pub fn new(
        app: Router,
        limits: Limits,
        metrics: Arc<Metrics>,
        stopping: CancellationToken,
        budget: Arc<Budget>,
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
            // What h2 buffers per stream beyond what the client has room for is not counted
            // in the budget: keep it to one piece.
            .max_send_buf_size(budget::PIECE)
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
            admitted: Arc::new(AtomicUsize::new(0)),
            budget,
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
        self.spawn(async move { Some(Ready::anonymous(io, Protocol::Sniff)) });
    }

    /// Like [`Connections::serve`], after a TLS handshake; the protocol is the one ALPN
    /// chose (HTTP/1.1 without ALPN). The handshake counts against the header timeout.
    pub fn serve_tls<I>(&self, io: I, acceptor: tokio_rustls::TlsAcceptor)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        self.spawn(async move {
            let (tls, protocol) = tls_handshake(io, acceptor).await?;
            Some(Ready::anonymous(tls, protocol))
        });
    }

    /// Serves what `ready` yields: the caller's own preparation of a connection (reading a
    /// PROXY header, a TLS handshake), which runs inside the connection's first deadline
    /// (from accept to the first request head), so a client that stalls there is closed.
    pub fn serve_with<I, F>(&self, ready: F)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        F: Future<Output = Option<Ready<I>>> + Send + 'static,
    {
        self.spawn(ready);
    }

    /// Admits a connection (or sheds it at the limit) and serves what `ready` yields, until
    /// it closes, a progress deadline passes, or shutdown ends it.
    fn spawn<I, F>(&self, ready: F)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        F: Future<Output = Option<Ready<I>>> + Send + 'static,
    {
        self.metrics.connections_accepted.inc();
        let Some(admitted) = Admitted::new(&self.admitted, self.limits.max_connections) else {
            // Shedding is a close without reading a byte: the cheapest answer there is.
            self.metrics.connections_shed.inc();
            return;
        };
        let open = OpenGuard::new(self.metrics.clone());
        let progress = Arc::new(Progress::new(Instant::now()));
        let this = self.clone();
        self.tracker.spawn(async move {
            let _held = (admitted, open);
            this.serve_one(ready, progress).await;
        });
    }

    /// One admitted connection's life: waits for `ready` within the first deadline, then
    /// speaks HTTP until the connection closes, a progress deadline passes, or shutdown
    /// ends it.
    async fn serve_one<I, F>(self, ready: F, progress: Arc<Progress>)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        F: Future<Output = Option<Ready<I>>> + Send + 'static,
    {
        let deadlines = Deadlines {
            header: self.limits.header_read_timeout,
            write: self.limits.write_timeout,
        };
        let metrics = &self.metrics;
        let watchdog = deadlines::watchdog(progress.clone(), deadlines);
        tokio::pin!(watchdog);
        let Ready { io, protocol, peer } = tokio::select! {
            ready = ready => match ready {
                Some(ready) => ready,
                None => return,
            },
            expired = &mut watchdog => {
                metrics.connection_expired(expired.label());
                return;
            }
        };
        let dispatch = Dispatch {
            app: self.app.clone(),
            progress: progress.clone(),
            budget: self.budget.clone(),
            share: Share::new(),
            peer,
        };
        let io = TokioIo::new(deadlines::Watched::new(io, progress));
        let builder = self.builder_for(protocol);
        let conn = builder.serve_connection(io, dispatch);
        tokio::pin!(conn);
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
            }
            expired = &mut watchdog => {
                tracing::debug!(reason = expired.label(), "closing a connection that made no progress");
                if expired == Expired::Idle {
                    // Idle is not misbehaviour: close politely (HTTP/2 GOAWAY, TLS
                    // close_notify), so that a request racing the close is known to be
                    // unprocessed, for as long as a write may take at most.
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(self.limits.write_timeout, conn.as_mut()).await;
                }
                // Otherwise the connection is dropped (closed, HTTP/2 streams with it)
                // as this task ends.
                metrics.connection_expired(expired.label());
            }
            () = self.stopping.cancelled() => {
                conn.as_mut().graceful_shutdown();
                tokio::select! {
                    result = conn.as_mut() => if let Err(e) = result {
                        tracing::debug!(error = %e, "connection ended with an error while draining");
                    },
                    expired = &mut watchdog => metrics.connection_expired(expired.label()),
                }
            }
        }
    }

    /// The HTTP server settings for a connection that speaks `protocol`.
    fn builder_for(&self, protocol: Protocol) -> auto::Builder<TokioExecutor> {
        match protocol {
            Protocol::Sniff => (*self.builder).clone(),
            Protocol::Http1 => (*self.builder).clone().http1_only(),
            Protocol::Http2 => (*self.builder).clone().http2_only(),
        }
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

/// A TLS handshake, and the protocol ALPN chose (HTTP/1.1 without ALPN). `None` when it
/// fails; the caller's deadline bounds how long it may take.
pub async fn tls_handshake<I>(
    io: I,
    acceptor: tokio_rustls::TlsAcceptor,
) -> Option<(tokio_rustls::server::TlsStream<I>, Protocol)>
where
    I: AsyncRead + AsyncWrite + Unpin,
{
    match acceptor.accept(io).await {
        Ok(mut tls) => {
            hold_a_piece(tls.get_mut().1);
            let protocol = match tls.get_ref().1.alpn_protocol() {
                Some(b"h2") => Protocol::Http2,
                _ => Protocol::Http1,
            };
            Some((tls, protocol))
        }
        Err(e) => {
            tracing::debug!(error = %e, "TLS handshake failed");
            None
        }
    }
}

/// What rustls may hold of the TLS records not yet written to the socket: one piece of an
/// answer ([`budget::PIECE`]) and its head, so that each piece goes out in one write.
/// rustls's own default (64 KiB) took a 64 KiB piece and its head in two, and on the
/// tailnet every write is one more wake-up of the node's reader across the loopback
/// socket (`docs/bench/issue-30.md`, "What was changed"). It stays a bound: a client that
/// reads nothing holds at most this much of ours here.
const TLS_UNSENT: usize = budget::PIECE + 16 * 1024;

fn hold_a_piece(tls: &mut rustls::ServerConnection) {
    tls.set_buffer_limit(Some(TLS_UNSENT));
}

/// The app as hyper calls it on one connection: counts requests in flight, and wraps each
/// answer in a [`Tracked`] body.
#[derive(Clone)]
struct Dispatch {
    app: Router,
    progress: Arc<Progress>,
    budget: Arc<Budget>,
    share: Share,
    /// Who is at the other end, when the listener knows (tailnet connections); every
    /// request of the connection carries it as an extension.
    peer: Option<Peer>,
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

/// One admitted connection on a listener, counted until it closes.
struct Admitted(Arc<AtomicUsize>);

impl Admitted {
    /// Counts one more connection, or `None` when `limit` are already open.
    fn new(count: &Arc<AtomicUsize>, limit: usize) -> Option<Admitted> {
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .ok()
            .map(|_| Admitted(count.clone()))
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Counts a connection as open (for the metrics) for as long as it lives.
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

#[cfg(test)]
mod tests {
    use super::{budget, tls_handshake};
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    use rustls::{ClientConfig, RootCertStore, ServerConfig};
    use std::io::Write;
    use std::sync::Arc;
    use tokio_rustls::{TlsAcceptor, TlsConnector};

    /// An acceptor and a connector that trust each other, with a fresh self-signed pair.
    fn pair() -> (TlsAcceptor, TlsConnector) {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = rcgen::CertificateParams::new(vec!["libations.test".to_owned()])
            .expect("params")
            .self_signed(&key)
            .expect("cert");
        let der = CertificateDer::from(cert.der().to_vec());
        let server = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![der.clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .expect("server config");
        let mut roots = RootCertStore::empty();
        roots.add(der).expect("root");
        let client = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        (
            TlsAcceptor::from(Arc::new(server)),
            TlsConnector::from(Arc::new(client)),
        )
    }

    /// How much of `answer` the server's TLS takes in one write, on a connection made by
    /// [`tls_handshake`] (`ours`) or by a plain accept.
    async fn taken_in_one_write(answer: &[u8], ours: bool) -> usize {
        let (acceptor, connector) = pair();
        let (near, far) = tokio::io::duplex(1 << 20);
        let name = "libations.test".try_into().expect("name");
        let (server, client) = tokio::join!(
            async {
                if ours {
                    tls_handshake(near, acceptor).await.map(|(tls, _)| tls)
                } else {
                    acceptor.accept(near).await.ok()
                }
            },
            connector.connect(name, far)
        );
        let _client = client.expect("client handshake");
        let mut server = server.expect("server handshake");
        server.get_mut().1.writer().write(answer).expect("write")
    }

    #[tokio::test]
    async fn a_whole_piece_and_its_head_are_taken_in_one_write() {
        let answer = vec![b'a'; budget::PIECE + 600];
        assert_eq!(taken_in_one_write(&answer, true).await, answer.len());
        // ...where rustls's default takes only part of it, so the rest would go out in a
        // write of its own.
        assert!(taken_in_one_write(&answer, false).await < answer.len());
    }
}
