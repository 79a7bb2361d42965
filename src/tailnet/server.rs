//! Serving on the tailnet: join, then HTTPS on :443 and a redirect on :80.
//!
//! In the spirit of tailscale/golink: TLS only when the tailnet offers a certificate, and
//! :80 only ever redirects to the one HTTPS name. When the tailnet offers no certificate
//! (HTTPS or MagicDNS off in the admin console), :80 answers with a page that says what to
//! turn on, rather than leaving a dead port, and we keep asking every minute.

use super::forward::{self, Forwarded};
use super::redirect;
use super::{CertStore, Listener, Node, Result, TailnetError, TailnetListener};
use crate::connections::{Budget, Connections, Limits};
use crate::metrics::Metrics;
use crate::tasks;
use axum::Router;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long to wait between "still not connected" reports while joining.
const JOIN_REPORT_FIRST: Duration = Duration::from_secs(10);
const JOIN_REPORT_MAX: Duration = Duration::from_secs(300);
/// How often to ask again for a certificate the tailnet does not offer yet.
const CERT_RETRY: Duration = Duration::from_secs(60);

/// Everything the tailnet side needs from the caller.
pub(crate) struct TailnetServer {
    /// The node, started; [`TailnetServer::run`] joins with it and closes it at the end.
    pub node: Arc<Node>,
    /// What :443 serves: the app, knowing who sent each request, with HSTS (made in
    /// `app::routers`, like `--local`'s).
    pub app: Router,
    /// Serve-config forward (identity) or libtailscale's listeners (anonymous).
    pub listener: TailnetListener,
    pub limits: Limits,
    pub metrics: Arc<Metrics>,
    /// Unsent answer bytes, shared by both listeners.
    pub budget: Arc<Budget>,
    pub stopping: CancellationToken,
    pub drain: Duration,
}

impl TailnetServer {
    /// Joins the tailnet and serves until `stopping` is cancelled; then drains, closes the
    /// node (its state is already saved) and returns.
    pub(crate) async fn run(self) -> Result<()> {
        let node = self.node.clone();
        let joined = self.join(&node).await;
        let result = match joined {
            Ok(true) => self.serve(&node).await,
            Ok(false) => Ok(()), // asked to stop while joining
            Err(e) => Err(e),
        };
        self.metrics.tailnet_up.set(0);
        if let Err(e) = node.close().await {
            tracing::warn!(target: "libations::tailnet", "closing the tailnet node: {e}");
        }
        result
    }

    /// Waits for the node to be running, saying so at growing intervals while it is not
    /// (control server unreachable, login pending). `false` if shutdown came first.
    async fn join(&self, node: &Node) -> Result<bool> {
        let mut wait = JOIN_REPORT_FIRST;
        loop {
            tokio::select! {
                () = self.stopping.cancelled() => return Ok(false),
                joined = node.wait_running(wait) => match joined {
                    Ok(_) => {
                        self.metrics.tailnet_up.set(1);
                        return Ok(true);
                    }
                    Err(TailnetError::NotRunning { state, hint, .. }) => {
                        tracing::warn!(
                            target: "libations::tailnet",
                            "not on the tailnet yet (state {state}){hint}; still trying"
                        );
                        wait = (wait * 2).min(JOIN_REPORT_MAX);
                    }
                    Err(e) => return Err(e),
                },
            }
        }
    }

    async fn serve(&self, node: &Node) -> Result<()> {
        // The certificate's name, once known; the :80 side reads it for every redirect.
        let domain: Arc<OnceLock<String>> = Arc::new(OnceLock::new());
        let api = node.local_api().clone();
        let mut intakes = Intakes::new(self.listener, api, self.metrics.clone()).await;
        let http = intakes.open(80, || node.listen(80)).await?;
        let redirects = Connections::new(
            redirect::redirect_app(domain.clone()),
            self.limits.clone(),
            self.metrics.clone(),
            self.stopping.clone(),
            self.budget.clone(),
        );
        let http_loop = tokio::spawn(http.serve(redirects.clone(), None, self.metrics.clone()));

        let Some(certs) = self.certificate(node).await else {
            tasks::join("the tailnet :80 accept loop", http_loop).await;
            redirects.drain(self.drain).await;
            return Ok(());
        };
        let _ = domain.set(certs.domain().to_owned());
        let refresher =
            certs.spawn_refresh(super::cert::DEFAULT_REFRESH_INTERVAL, self.metrics.clone());
        let acceptor = tokio_rustls::TlsAcceptor::from(certs.server_config()?);
        let https = intakes.open(443, || node.listen(443)).await?;
        self.metrics
            .tailnet_identity
            .set(i64::from(matches!(https, Intake::Forwarded(_))));
        let pages = Connections::new(
            self.app.clone(),
            self.limits.clone(),
            self.metrics.clone(),
            self.stopping.clone(),
            self.budget.clone(),
        );
        let https_loop =
            tokio::spawn(https.serve(pages.clone(), Some(acceptor), self.metrics.clone()));
        self.metrics.set_ready(true);
        tracing::info!(target: "libations::tailnet", "serving on https://{}/ (and http:// redirecting to it)", certs.domain());

        self.stopping.cancelled().await;
        self.metrics.set_ready(false);
        refresher.abort();
        tokio::join!(
            tasks::join("the tailnet :443 accept loop", https_loop),
            tasks::join("the tailnet :80 accept loop", http_loop)
        );
        let (left_https, left_http) =
            tokio::join!(pages.drain(self.drain), redirects.drain(self.drain));
        if left_https + left_http > 0 {
            tracing::warn!(
                connections = left_https + left_http,
                "closed connections still open at the drain deadline"
            );
        }
        Ok(())
    }

    /// Fetches the tailnet certificate, retrying every minute while the tailnet offers
    /// none. `None` if shutdown came first.
    async fn certificate(&self, node: &Node) -> Option<CertStore> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut reported = false;
        loop {
            match CertStore::fetch(node.local_api().clone(), provider.clone()).await {
                Ok(certs) => return Some(certs),
                Err(e) => {
                    if !reported {
                        tracing::error!(
                            target: "libations::tailnet",
                            "no HTTPS certificate, so only http:// answers (with this explanation): {e}; retrying every minute"
                        );
                        reported = true;
                    } else {
                        tracing::debug!(target: "libations::tailnet", "still no certificate: {e}");
                    }
                }
            }
            tokio::select! {
                () = self.stopping.cancelled() => return None,
                () = tokio::time::sleep(CERT_RETRY) => {}
            }
        }
    }
}

/// Where one tailnet port's connections arrive.
enum Intake {
    /// Through the serve config: who sent each connection is known.
    Forwarded(Forwarded),
    /// libtailscale's own listener: nobody is known.
    Direct(Listener),
}

impl Intake {
    /// Accepts and serves until shutdown starts or the listener closes.
    async fn serve(
        self,
        connections: Connections,
        tls: Option<tokio_rustls::TlsAcceptor>,
        metrics: Arc<Metrics>,
    ) {
        match self {
            Intake::Forwarded(forwarded) => {
                forward::accept_loop(forwarded, connections, tls, metrics).await
            }
            Intake::Direct(listener) => accept_loop(listener, connections, tls).await,
        }
    }
}

/// Opens the tailnet ports one at a time (:80 at once, :443 once there is a certificate),
/// through the serve config while that works, on libtailscale's listeners after it fails.
struct Intakes {
    api: super::LocalApi,
    metrics: Arc<Metrics>,
    /// Ports forwarded so far, with their loopback addresses; `None` once forwarding is off.
    forwarded: Option<Vec<(u16, std::net::SocketAddr)>>,
}

impl Intakes {
    async fn new(mode: TailnetListener, api: super::LocalApi, metrics: Arc<Metrics>) -> Intakes {
        if mode == TailnetListener::Socketpair {
            // A forward left by an earlier run would take the ports from our listeners.
            if let Err(e) = forward::apply(&api, &forward::config(&[])).await {
                tracing::error!(target: "libations::tailnet", "cannot clear the node's serve config, so tailnet connections may not reach us: {e}");
            }
        }
        let forwarded = (mode == TailnetListener::Forward).then(Vec::new);
        Intakes {
            api,
            metrics,
            forwarded,
        }
    }

    /// Starts taking connections for tailnet `port`: forwarded, or from `direct()` (the
    /// node's own listener) when forwarding is off or the serve config cannot be set.
    async fn open<F>(&mut self, port: u16, direct: impl FnOnce() -> F) -> Result<Intake>
    where
        F: std::future::Future<Output = Result<Listener>>,
    {
        if let Some(ports) = &mut self.forwarded {
            let forwarded = Forwarded::bind(port).await?;
            ports.push((port, forwarded.local));
            match forward::apply(&self.api, &forward::config(ports)).await {
                Ok(()) => {
                    tracing::info!(target: "libations::tailnet", port, to = %forwarded.local, "tailnet port forwarded through the serve config, with who sent each connection");
                    return Ok(Intake::Forwarded(forwarded));
                }
                Err(e) => {
                    ports.pop();
                    tracing::error!(target: "libations::tailnet", port, "{e}; serving tailnet port {port} on libtailscale's listener instead, where nobody is known (every request anonymous)");
                    self.metrics.tailnet_identity.set(0);
                    self.forwarded = None;
                }
            }
        }
        Ok(Intake::Direct(direct().await?))
    }
}

/// Hands each tailnet connection to `connections` (through TLS when given an acceptor)
/// until shutdown starts or the listener closes.
async fn accept_loop(
    listener: Listener,
    connections: Connections,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    let stopping = connections.stopping();
    let port = listener.port();
    loop {
        let accepted = tokio::select! {
            () = stopping.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok(Some(stream)) => match &tls {
                Some(acceptor) => connections.serve_tls(stream, acceptor.clone()),
                None => connections.serve(stream),
            },
            Ok(None) => {
                tracing::info!(target: "libations::tailnet", port, "tailnet listener closed");
                return;
            }
            Err(e) => {
                tracing::warn!(target: "libations::tailnet", port, "accepting a tailnet connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A libtailscale-style listener on one end of a socketpair (nothing ever arrives).
    fn direct(port: u16) -> (Listener, std::os::fd::OwnedFd) {
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().expect("socketpair");
        let (_tx, rx) = tokio::sync::watch::channel(false);
        let listener = Listener::from_fd(ours.into(), port, rx).expect("listener");
        (listener, theirs.into())
    }

    #[tokio::test]
    async fn without_a_serve_config_the_node_listeners_serve_and_nobody_is_known() {
        use crate::tailnet::fake::FakeNode;
        use std::sync::atomic::Ordering;
        let node = Arc::new(FakeNode::default());
        let metrics = Arc::new(Metrics::new());
        metrics.tailnet_identity.set(1);
        let mut intakes = Intakes::new(
            TailnetListener::Forward,
            node.start().await,
            metrics.clone(),
        )
        .await;
        let (l80, _keep80) = direct(80);
        let intake = intakes
            .open(80, || async { Ok(l80) })
            .await
            .expect("open 80");
        assert!(matches!(intake, Intake::Forwarded(_)));
        // The node refuses the next change: :443 falls back, and says so in the metrics.
        node.refuse.store(true, Ordering::SeqCst);
        let (l443, _keep443) = direct(443);
        let intake = intakes
            .open(443, || async { Ok(l443) })
            .await
            .expect("open 443");
        assert!(matches!(intake, Intake::Direct(ref l) if l.port() == 443));
        assert_eq!(metrics.tailnet_identity.get(), 0);
        // From then on, forwarding is off: no more attempts.
        let posts = node.posted_etags.lock().unwrap().len();
        let (l8080, _keep) = direct(8080);
        let intake = intakes
            .open(8080, || async { Ok(l8080) })
            .await
            .expect("open");
        assert!(matches!(intake, Intake::Direct(_)));
        assert_eq!(node.posted_etags.lock().unwrap().len(), posts);
    }

    #[tokio::test]
    async fn socketpair_mode_clears_a_forward_left_behind() {
        use crate::tailnet::fake::FakeNode;
        let node = Arc::new(FakeNode::default());
        let stale = forward::config(&[(443, "127.0.0.1:1".parse().unwrap())]);
        *node.config.lock().unwrap() = (stale, 1);
        let metrics = Arc::new(Metrics::new());
        let mut intakes =
            Intakes::new(TailnetListener::Socketpair, node.start().await, metrics).await;
        assert_eq!(node.config.lock().unwrap().0, forward::config(&[]));
        let (l443, _keep) = direct(443);
        let intake = intakes
            .open(443, || async { Ok(l443) })
            .await
            .expect("open");
        assert!(matches!(intake, Intake::Direct(_)));
    }
}
