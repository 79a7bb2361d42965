//! Where a tailnet port's connections arrive: through the node's serve config (forwarded
//! to a loopback listener of ours, who sent each connection known) while that works, on
//! libtailscale's own listeners (socketpair, everyone anonymous) once it does not, or
//! always with `--tailnet-listener socketpair`. Once one port cannot be forwarded, the
//! ports opened after it do not try again (see [`Intakes::open`]). Falling back keeps the
//! port answering, anonymously, rather than leaving it dead.
//!
//! The guests' Funnel port ([`Intakes::open_funnel`]) has no fallback: Funnel reaches a
//! node only through its serve config, so without forwarding it is not served at all.

use super::forward::{self, Forwarded};
use super::{Listener, Result, TailnetListener};
use crate::connections::Connections;
use crate::metrics::Metrics;
use std::sync::Arc;
use std::time::Duration;

/// Where one tailnet port's connections arrive.
pub(crate) enum Intake {
    /// Through the serve config: who sent each connection is known.
    Forwarded(Forwarded),
    /// libtailscale's own listener: nobody is known.
    Direct(Listener),
}

impl Intake {
    /// Accepts and serves until shutdown starts or the listener closes.
    pub(crate) async fn serve(
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
pub(crate) struct Intakes {
    api: super::LocalApi,
    metrics: Arc<Metrics>,
    /// Ports forwarded so far, with their loopback addresses; `None` once forwarding is off.
    forwarded: Option<Vec<(u16, std::net::SocketAddr)>>,
    /// The one `<name>:<port>` Funnel may reach, once [`Intakes::open_funnel`] opened it.
    funnel: Option<String>,
}

impl Intakes {
    pub async fn new(
        mode: TailnetListener,
        api: super::LocalApi,
        metrics: Arc<Metrics>,
    ) -> Intakes {
        if mode == TailnetListener::Socketpair {
            // A forward left by an earlier run would take the ports from our listeners.
            if let Err(e) = forward::apply(&api, &forward::config(&[], None)).await {
                tracing::error!(target: "libations::tailnet", "cannot clear the node's serve config, so tailnet connections may not reach us: {e}");
            }
        }
        let forwarded = (mode == TailnetListener::Forward).then(Vec::new);
        Intakes {
            api,
            metrics,
            forwarded,
            funnel: None,
        }
    }

    /// Starts taking connections for tailnet `port`: forwarded, or from `direct()` (the
    /// node's own listener) when forwarding is off or the serve config cannot be set.
    pub(crate) async fn open<F>(&mut self, port: u16, direct: impl FnOnce() -> F) -> Result<Intake>
    where
        F: std::future::Future<Output = Result<Listener>>,
    {
        if self.forwarded.is_some() {
            match self.forward(port, None).await? {
                Ok(forwarded) => {
                    tracing::info!(target: "libations::tailnet", port, to = %forwarded.local, "tailnet port forwarded through the serve config, with who sent each connection");
                    return Ok(Intake::Forwarded(forwarded));
                }
                Err(e) => {
                    tracing::error!(target: "libations::tailnet", port, "{e}; serving tailnet port {port} on libtailscale's listener instead, where nobody is known (every request anonymous)");
                    self.metrics.tailnet_identity.set(0);
                    self.forwarded = None;
                }
            }
        }
        Ok(Intake::Direct(direct().await?))
    }
}

impl Intakes {
    /// Opens tailnet `port` to Funnel for `<name>:<port>` (`target`): forwarded like the
    /// others, and the serve config's one `AllowFunnel` entry. `Ok(None)` when forwarding is
    /// off (`--tailnet-listener socketpair`, or an earlier port fell back) or the node
    /// refuses the config; then the port is not served and nothing lets Funnel in.
    pub(crate) async fn open_funnel(
        &mut self,
        port: u16,
        target: &str,
    ) -> Result<Option<Forwarded>> {
        if self.forwarded.is_none() {
            tracing::error!(target: "libations::tailnet", port, "the guests' menu is not served through Funnel: Funnel reaches the app only through the node's serve config, and tailnet connections are not forwarded (--tailnet-listener socketpair, or the serve config could not be set)");
            return Ok(None);
        }
        match self.forward(port, Some(target.to_owned())).await? {
            Ok(forwarded) => {
                tracing::info!(target: "libations::tailnet", port, to = %forwarded.local, funnel = target, "tailnet port forwarded through the serve config, and open to Funnel");
                Ok(Some(forwarded))
            }
            Err(e) => {
                tracing::error!(target: "libations::tailnet", port, "{e}; the guests' menu is not served through Funnel");
                Ok(None)
            }
        }
    }

    /// Binds a loopback listener for `port` and sets the serve config to forward it too
    /// (with `funnel` as the Funnel target when given, else the one set before). The outer
    /// error is ours (no listener); the inner one the node's (the serve config was not
    /// taken).
    async fn forward(
        &mut self,
        port: u16,
        funnel: Option<String>,
    ) -> Result<std::result::Result<Forwarded, super::TailnetError>> {
        let forwarded = Forwarded::bind(port).await?;
        let mut ports = self.forwarded.clone().unwrap_or_default();
        ports.push((port, forwarded.local));
        let target = funnel.clone().or_else(|| self.funnel.clone());
        match forward::apply(&self.api, &forward::config(&ports, target.as_deref())).await {
            Ok(()) => {
                self.forwarded = Some(ports);
                if funnel.is_some() {
                    self.funnel = funnel;
                }
                Ok(Ok(forwarded))
            }
            Err(e) => Ok(Err(e)),
        }
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
        use crate::fake::FakeNode;
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
        use crate::fake::FakeNode;
        let node = Arc::new(FakeNode::default());
        let stale = forward::config(&[(443, "127.0.0.1:1".parse().unwrap())], None);
        *node.config.lock().unwrap() = (stale, 1);
        let metrics = Arc::new(Metrics::new());
        let mut intakes =
            Intakes::new(TailnetListener::Socketpair, node.start().await, metrics).await;
        assert_eq!(node.config.lock().unwrap().0, forward::config(&[], None));
        let (l443, _keep) = direct(443);
        let intake = intakes
            .open(443, || async { Ok(l443) })
            .await
            .expect("open");
        assert!(matches!(intake, Intake::Direct(_)));
    }
}
