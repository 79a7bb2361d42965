//! Tailnet connections that say who sent them: the node's serve config forwards :443 and
//! :80 to loopback listeners of ours, each connection preceded by a PROXY v2 header with
//! the tailnet address it came from.
//!
//! Why not libtailscale's listeners: the peer address they offer
//! (`tailscale_getremoteaddr`) is looked up by a descriptor number that is already closed,
//! so it is often missing and sometimes another peer's (see [`super::accept`]). The serve
//! config runs before tsnet's own listeners in the node, and its `TCPForward` with
//! `ProxyProtocol: 2` dials our listener from inside this process and writes the header
//! first; the bytes after it are the client's own (our TLS, untouched).
//!
//! The listeners are on loopback, where any local process could connect and send a forged
//! header. Each connection is checked to come from this very process ([`super::trust`])
//! before its header is believed; others are closed and counted.
//!
//! The serve config lives in the node's state and outlives us: one from an earlier run
//! points at a port that is gone, and may let Funnel in. It is always replaced with ours
//! once the node runs (a Funnel entry only when `--guest-menu-funnel` asks for one, see
//! [`super::funnel`]), and cleared when forwarding is turned off. (tsnet's `Up` clears the serve config the first
//! time it runs; we start the node with `tailscale_start` and wait for `Running`
//! ourselves, so nothing clears ours after it is set.)

use super::{LocalApi, Result, TailnetError, proxy, trust};
use crate::connections::{Connections, Peer, Protocol, Ready};
use crate::metrics::Metrics;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};

/// Attempts at replacing the serve config when someone else changes it meanwhile (412).
pub(crate) const ATTEMPTS: usize = 5;

/// A loopback listener the node forwards one tailnet port to.
pub(crate) struct Forwarded {
    pub listener: TcpListener,
    pub(crate) local: SocketAddr,
    pub(crate) port: u16,
}

impl Forwarded {
    /// Listens on a free loopback port for tailnet port `port`.
    pub(crate) async fn bind(port: u16) -> Result<Forwarded> {
        let failed = |source| TailnetError::Listen { port, source };
        let listener = TcpListener::bind("127.0.0.1:0").await.map_err(failed)?;
        let local = listener.local_addr().map_err(failed)?;
        Ok(Forwarded {
            listener,
            local,
            port,
        })
    }
}

/// The serve config that forwards each `(tailnet port, loopback address)` with a PROXY v2
/// header, lets Funnel in to `funnel` (`<name>:<port>`) when given, and nothing else: a
/// Funnel entry that is not asked for is never there, so the node refuses Funnel
/// connections to every other port (:443 and :80 above all).
pub(crate) fn config(ports: &[(u16, SocketAddr)], funnel: Option<&str>) -> Value {
    let tcp: serde_json::Map<String, Value> = ports
        .iter()
        .map(|(port, to)| {
            let handler = json!({ "TCPForward": to.to_string(), "ProxyProtocol": 2 });
            (port.to_string(), handler)
        })
        .collect();
    match funnel {
        Some(target) => json!({ "TCP": tcp, "AllowFunnel": { target: true } }),
        None => json!({ "TCP": tcp }),
    }
}

/// Whether `config` lets Funnel in anywhere.
pub(crate) fn has_funnel(config: &Value) -> bool {
    config
        .get("AllowFunnel")
        .and_then(Value::as_object)
        .is_some_and(|targets| targets.values().any(|on| on == &Value::Bool(true)))
}

/// What of a serve config we set and check: the TCP handlers and the Funnel entries.
pub(crate) fn checked_part(config: &Value) -> (Option<&Value>, Option<&Value>) {
    let funnel = config.get("AllowFunnel").filter(|_| has_funnel(config));
    (config.get("TCP"), funnel)
}

/// Makes `wanted` the node's serve config, replacing whatever is there (a stale one from
/// an earlier run included, with any Funnel entry it had), and checks that it took.
pub(crate) async fn apply(api: &LocalApi, wanted: &Value) -> Result<()> {
    for _ in 0..ATTEMPTS {
        let (current, etag) = api.serve_config().await?;
        if current
            .get("TCP")
            .is_some_and(|tcp| !tcp.as_object().is_some_and(|o| o.is_empty()))
            && current.get("TCP") != wanted.get("TCP")
        {
            tracing::info!(target: "libations::tailnet", old = %current, "replacing the node's serve config from an earlier run");
        }
        if has_funnel(&current) && current.get("AllowFunnel") != wanted.get("AllowFunnel") {
            tracing::info!(target: "libations::tailnet", old = %current["AllowFunnel"], "removing a Funnel entry left in the node's serve config by an earlier run");
        }
        if !api.set_serve_config(wanted, &etag).await? {
            continue; // changed meanwhile: read it again
        }
        let (now, _) = api.serve_config().await?;
        if checked_part(&now) == checked_part(wanted) {
            return Ok(());
        }
        return Err(TailnetError::ServeConfig(format!(
            "the node accepted the serve config but reports {now}"
        )));
    }
    Err(TailnetError::ServeConfig(format!(
        "it kept changing while we set it ({ATTEMPTS} attempts)"
    )))
}

/// Hands each forwarded connection to `connections`: checked, its PROXY header read, then
/// through TLS when given an acceptor. All of it inside the connection's first deadline.
pub(crate) async fn accept_loop(
    forwarded: Forwarded,
    connections: Connections,
    tls: Option<tokio_rustls::TlsAcceptor>,
    metrics: Arc<Metrics>,
) {
    let stopping = connections.stopping();
    let Forwarded {
        listener,
        local,
        port,
    } = forwarded;
    loop {
        let accepted = tokio::select! {
            () = stopping.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, from) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!(target: "libations::tailnet", port, "accepting a forwarded connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let metrics = metrics.clone();
        match &tls {
            Some(acceptor) => {
                let acceptor = acceptor.clone();
                connections.serve_with(async move {
                    let (stream, peer) = admit(stream, from, local, &metrics).await?;
                    let (tls, protocol) =
                        crate::connections::tls_handshake(stream, acceptor).await?;
                    Some(Ready {
                        io: tls,
                        protocol,
                        peer: Some(peer),
                    })
                });
            }
            None => connections.serve_with(async move {
                let (stream, peer) = admit(stream, from, local, &metrics).await?;
                Some(Ready {
                    io: stream,
                    protocol: Protocol::Sniff,
                    peer: Some(peer),
                })
            }),
        }
    }
}

/// The connection and the tailnet peer its PROXY header names, if it comes from this
/// process and the header is good; otherwise `None` (closed, counted, logged).
async fn admit(
    mut stream: TcpStream,
    from: SocketAddr,
    local: SocketAddr,
    metrics: &Metrics,
) -> Option<(TcpStream, Peer)> {
    match trust::check(from, local) {
        Ok(trust::Verdict::Ours) => {}
        Ok(verdict) => {
            metrics.forward_refused("not_ours");
            tracing::warn!(target: "libations::tailnet", %from, ?verdict, "closed a connection to the forwarded listener that does not come from the tailnet node");
            return None;
        }
        Err(e) => {
            metrics.forward_refused("check_failed");
            tracing::error!(target: "libations::tailnet", %from, "cannot check who holds a forwarded connection, so it is closed: {e}");
            return None;
        }
    }
    match proxy::read_header(&mut stream).await {
        Ok(source) => Some((stream, Peer(source))),
        Err(e) => {
            metrics.forward_refused("proxy_header");
            tracing::warn!(target: "libations::tailnet", %from, "closed a forwarded connection: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeNode;
    use std::sync::atomic::Ordering;

    fn ours() -> Value {
        config(&[(443, "127.0.0.1:4431".parse().unwrap())], None)
    }

    #[tokio::test]
    async fn a_stale_config_is_replaced_under_its_etag() {
        let node = Arc::new(FakeNode::default());
        let stale = config(&[(443, "127.0.0.1:1".parse().unwrap())], None);
        *node.config.lock().unwrap() = (stale, 7);
        let api = node.start().await;
        apply(&api, &ours()).await.expect("applied");
        assert_eq!(node.config.lock().unwrap().0, ours());
        assert_eq!(*node.posted_etags.lock().unwrap(), ["\"etag-7\""]);
    }

    #[tokio::test]
    async fn a_config_changed_meanwhile_is_read_again() {
        let node = Arc::new(FakeNode::default());
        node.conflicts.store(2, Ordering::SeqCst);
        let api = node.start().await;
        apply(&api, &ours()).await.expect("applied");
        assert_eq!(node.config.lock().unwrap().0, ours());
        assert_eq!(node.posted_etags.lock().unwrap().len(), 3);
        // Someone who never stops changing it: we give up with a clear error.
        node.conflicts.store(usize::MAX, Ordering::SeqCst);
        let err = apply(&api, &config(&[], None)).await.expect_err("gave up");
        assert!(err.to_string().contains("kept changing"), "{err}");
    }

    #[tokio::test]
    async fn refused_or_ignored_configs_are_errors() {
        let node = Arc::new(FakeNode::default());
        node.refuse.store(true, Ordering::SeqCst);
        let api = node.start().await;
        let err = apply(&api, &ours()).await.expect_err("refused");
        assert!(
            matches!(err, TailnetError::LocalApiStatus { status: 500, .. }),
            "{err}"
        );
        assert!(
            err.to_string().contains("/localapi/v0/serve-config"),
            "{err}"
        );
        node.refuse.store(false, Ordering::SeqCst);
        node.ignore.store(true, Ordering::SeqCst);
        let err = apply(&api, &ours()).await.expect_err("ignored");
        assert!(matches!(err, TailnetError::ServeConfig(_)), "{err}");
    }

    #[test]
    fn config_forwards_each_port_with_a_proxy_header() {
        let c = config(
            &[
                (443, "127.0.0.1:4431".parse().unwrap()),
                (80, "127.0.0.1:8081".parse().unwrap()),
            ],
            None,
        );
        assert_eq!(
            c,
            json!({"TCP": {
                "443": {"TCPForward": "127.0.0.1:4431", "ProxyProtocol": 2},
                "80": {"TCPForward": "127.0.0.1:8081", "ProxyProtocol": 2},
            }})
        );
    }

    #[test]
    fn funnel_is_allowed_for_the_one_target_asked_for() {
        let c = config(
            &[
                (443, "127.0.0.1:4431".parse().unwrap()),
                (8443, "127.0.0.1:8444".parse().unwrap()),
            ],
            Some("libations.example.ts.net:8443"),
        );
        assert_eq!(
            c["AllowFunnel"],
            json!({"libations.example.ts.net:8443": true})
        );
        assert!(has_funnel(&c));
        assert!(!has_funnel(&config(&[], None)));
        assert!(!has_funnel(&json!({"AllowFunnel": {"x:8443": false}})));
    }

    #[tokio::test]
    async fn a_funnel_entry_left_from_an_earlier_run_is_removed() {
        let node = Arc::new(FakeNode::default());
        let stale = config(
            &[(8443, "127.0.0.1:1".parse().unwrap())],
            Some("libations.example.ts.net:8443"),
        );
        *node.config.lock().unwrap() = (stale, 3);
        let api = node.start().await;
        apply(&api, &ours()).await.expect("applied");
        let now = node.config.lock().unwrap().0.clone();
        assert_eq!(now, ours());
        assert!(now.get("AllowFunnel").is_none(), "{now}");
    }

    #[tokio::test]
    async fn a_node_that_drops_the_funnel_entry_is_an_error() {
        let node = Arc::new(FakeNode::default());
        node.ignore.store(true, Ordering::SeqCst);
        let api = node.start().await;
        let wanted = config(
            &[(8443, "127.0.0.1:8444".parse().unwrap())],
            Some("libations.example.ts.net:8443"),
        );
        let err = apply(&api, &wanted).await.expect_err("not taken");
        assert!(matches!(err, TailnetError::ServeConfig(_)), "{err}");
    }
}
