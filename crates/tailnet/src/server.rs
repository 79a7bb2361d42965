//! Serving on the tailnet: join, get the certificate, then HTTPS on :443 and a redirect on
//! :80 (and, with `--guest-menu-funnel`, the guests' menu on :8443 through Funnel, see
//! [`super::funnel`]), until shutdown drains them.
//!
//! In the spirit of tailscale/golink: TLS only when the tailnet offers a certificate, and
//! :80 only ever redirects to the one HTTPS name ([`super::redirect`]). When the tailnet
//! offers no certificate, :80 says what to turn on and we keep asking every minute. Where
//! each port's connections come from (the serve config's forward, or libtailscale's own
//! listeners) is [`super::intake`]'s business.

use super::forward::Forwarded;
use super::intake::{Intake, Intakes};
use super::{CertStore, Node, Result, TailnetError, TailnetListener};
use super::{funnel, redirect};
use crate::connections::{Budget, Connections, Limits};
use crate::metrics::Metrics;
use crate::tasks;
use axum::Router;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long to wait between "still not connected" reports while joining.
pub(crate) const JOIN_REPORT_FIRST: Duration = Duration::from_secs(10);
pub(crate) const JOIN_REPORT_MAX: Duration = Duration::from_secs(300);
/// How often to ask again for a certificate the tailnet does not offer yet.
pub(crate) const CERT_RETRY: Duration = Duration::from_secs(60);

/// What the tailnet serves, made once the node's name is known (the guests' public
/// address names it).
pub struct Routers {
    /// What :443 serves: the app, knowing who sent each request, with HSTS (made in
    /// `app::routers`, like `--local`'s).
    pub app: Router,
    /// What :8443 serves to the internet through Funnel (`web::guest_port`), when that is on.
    pub guests: Option<Router>,
}

/// Makes [`Routers`] for the node's certificate name (`<host>.<tailnet>.ts.net`).
pub(crate) type MakeRouters = Box<dyn Fn(&str) -> Routers + Send + Sync>;

/// Everything the tailnet side needs from the caller.
pub struct TailnetServer {
    /// The node, started; [`TailnetServer::run`] joins with it and closes it at the end.
    pub node: Arc<Node>,
    /// The routers to serve, once the certificate says the node's name.
    pub routers: MakeRouters,
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
    pub async fn run(self) -> Result<()> {
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
        let redirects = self.connections(redirect::redirect_app(domain.clone()));
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
        let routers = (self.routers)(certs.domain());
        let pages = self.connections(routers.app);
        let https_loop =
            tokio::spawn(https.serve(pages.clone(), Some(acceptor.clone()), self.metrics.clone()));
        let guests = match routers.guests {
            Some(guests) => {
                let target = funnel::target(certs.domain());
                let forwarded = intakes.open_funnel(funnel::PORT, &target).await?;
                forwarded.map(|forwarded| self.serve_guests(forwarded, guests, acceptor))
            }
            None => None,
        };
        self.metrics.set_ready(true);
        tracing::info!(target: "libations::tailnet", "serving on https://{}/ (and http:// redirecting to it)", certs.domain());
        if guests.is_some() {
            funnel::announce(node.local_api(), certs.domain()).await;
        }

        self.stopping.cancelled().await;
        self.metrics.set_ready(false);
        refresher.abort();
        tokio::join!(
            tasks::join("the tailnet :443 accept loop", https_loop),
            tasks::join("the tailnet :80 accept loop", http_loop)
        );
        let guests_drained = async {
            let Some((guests, guests_loop)) = guests else {
                return 0;
            };
            tasks::join("the guests' :8443 accept loop", guests_loop).await;
            guests.drain(self.drain).await
        };
        let (left_guests, left_https, left_http) = tokio::join!(
            guests_drained,
            pages.drain(self.drain),
            redirects.drain(self.drain)
        );
        let left = left_guests + left_https + left_http;
        if left > 0 {
            tracing::warn!(
                connections = left,
                "closed connections still open at the drain deadline"
            );
        }
        Ok(())
    }

    /// Connections serving `router`, under the same limits, budget and stop as every other
    /// tailnet listener.
    pub(crate) fn connections(&self, router: Router) -> Connections {
        Connections::new(
            router,
            self.limits.clone(),
            self.metrics.clone(),
            self.stopping.clone(),
            self.budget.clone(),
        )
    }

    /// Serves the guests' router on the Funnel port's forwarded listener: the same trust
    /// check and PROXY header as :443, TLS with the node's certificate.
    pub(crate) fn serve_guests(
        &self,
        forwarded: Forwarded,
        guests: Router,
        acceptor: tokio_rustls::TlsAcceptor,
    ) -> (Connections, tokio::task::JoinHandle<()>) {
        let connections = self.connections(guests);
        let serving = Intake::Forwarded(forwarded).serve(
            connections.clone(),
            Some(acceptor),
            self.metrics.clone(),
        );
        (connections, tokio::spawn(serving))
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
