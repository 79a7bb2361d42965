//! The guests' menu on the internet through Tailscale Funnel (`--guest-menu-funnel`): one
//! port, [`PORT`], and its public address; and whether the tailnet policy lets this node
//! use Funnel at all.
//!
//! Funnel connections reach a node from Tailscale's ingress relays through its PeerAPI
//! (`/v0/ingress`), and the node takes one only for a `<name>:<port>` its serve config's
//! `AllowFunnel` lists; then it runs that port's handler, here our `TCPForward` with a
//! PROXY header naming the public address the relay saw ([`super::forward`]). We list
//! exactly one target, `<name>:8443`, and never :443 or :80, so Tailscale itself refuses
//! Funnel traffic to the full app. What the node does not check is the policy: a tailnet
//! without the `funnel` node attribute for this node publishes no public DNS name for it,
//! so we read the node's capabilities and warn.

use super::LocalApi;
use super::localapi::SelfStatus;

/// The one port open to Funnel (Funnel allows 443, 8443 and 10000; 443 is the app's).
pub(crate) const PORT: u16 = 8443;

/// The node attribute a tailnet policy gives a node to let it use Funnel.
pub(crate) const FUNNEL: &str = "funnel";
/// HTTPS certificates, which Funnel needs too.
pub(crate) const HTTPS: &str = "https";
/// The node attribute that says which ports Funnel may use: `<this>?ports=443,8443,…`.
pub(crate) const FUNNEL_PORTS: &str = "https://tailscale.com/cap/funnel-ports";

/// `<name>:8443`: what the serve config's `AllowFunnel` lists.
pub(crate) fn target(domain: &str) -> String {
    format!("{domain}:{PORT}")
}

/// The guests' public address, for the QR code and the log.
pub fn guest_url(domain: &str) -> String {
    format!("https://{domain}:{PORT}/menu")
}

/// Why the tailnet policy does not let this node serve [`PORT`] through Funnel, as its
/// capabilities say; `None` when it does. Mirrors Tailscale's own check
/// (`ipn.CheckFunnelAccess`): HTTPS, the `funnel` attribute, and the port among the
/// `funnel-ports` attribute's. The names are read from `CapMap` and from the older
/// `Capabilities` list alike.
pub(crate) fn refusal(node: &SelfStatus) -> Option<String> {
    let names = || {
        node.cap_map
            .keys()
            .chain(&node.capabilities)
            .map(String::as_str)
    };
    let has = |cap: &str| names().any(|name| name == cap);
    if !has(HTTPS) {
        return Some("HTTPS certificates are not enabled for the tailnet".to_owned());
    }
    if !has(FUNNEL) {
        return Some(
            "the tailnet policy gives this node no \"funnel\" node attribute (nodeAttrs)"
                .to_owned(),
        );
    }
    let ports = names().find_map(|cap| cap.strip_prefix(FUNNEL_PORTS)?.strip_prefix("?ports="));
    match ports {
        None => Some("the node's capabilities name no ports Funnel may use".to_owned()),
        Some(ports) if !port_listed(ports, PORT) => Some(format!(
            "Funnel may use only the ports {ports} on this node, not {PORT}"
        )),
        Some(_) => None,
    }
}

/// Whether `port` is in a list such as `443,8443,10000-10010`.
pub(crate) fn port_listed(list: &str, port: u16) -> bool {
    list.split(',').any(|item| match item.split_once('-') {
        None => item.trim().parse() == Ok(port),
        Some((first, last)) => match (first.trim().parse(), last.trim().parse()) {
            (Ok(first), Ok(last)) => (first..=last).contains(&port),
            _ => false,
        },
    })
}

/// Logs a warning when the node's capabilities say the tailnet will not let guests reach
/// it, then the public address.
pub(crate) async fn announce(api: &LocalApi, domain: &str) {
    let url = guest_url(domain);
    match api.status().await {
        Ok(status) => {
            let node = status.self_status.unwrap_or_default();
            if let Some(why) = refusal(&node) {
                tracing::warn!(target: "libations::tailnet", "Funnel is on for the guests' menu, but {why}, so guests outside the tailnet cannot reach {url}; see README.md, \"Guests\", for the policy");
            }
        }
        Err(e) => {
            tracing::warn!(target: "libations::tailnet", "cannot read the node's capabilities to check that the tailnet allows Funnel: {e}");
        }
    }
    tracing::info!(target: "libations::tailnet", url = %url, "the guests' menu is on the internet through Funnel at {url} (only the menu and its files; turn it off with --guest-menu-funnel=false, or switch the menu off)");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(caps: &[&str]) -> SelfStatus {
        SelfStatus {
            dns_name: "libations.example.ts.net.".into(),
            cap_map: caps
                .iter()
                .map(|c| ((*c).to_owned(), json!(null)))
                .collect(),
            capabilities: Vec::new(),
        }
    }

    #[test]
    fn funnel_needs_https_the_attribute_and_the_port() {
        let ports = "https://tailscale.com/cap/funnel-ports?ports=443,8443,10000";
        assert_eq!(refusal(&node(&["https", "funnel", ports])), None);
        assert!(
            refusal(&node(&["funnel", ports]))
                .unwrap()
                .contains("HTTPS")
        );
        assert!(
            refusal(&node(&["https", ports]))
                .unwrap()
                .contains("\"funnel\"")
        );
        assert!(
            refusal(&node(&["https", "funnel"]))
                .unwrap()
                .contains("no ports")
        );
        let other = "https://tailscale.com/cap/funnel-ports?ports=443,8080";
        let why = refusal(&node(&["https", "funnel", other])).unwrap();
        assert!(why.contains("443,8080") && why.contains("8443"), "{why}");
        let range = "https://tailscale.com/cap/funnel-ports?ports=8000-9000";
        assert_eq!(refusal(&node(&["https", "funnel", range])), None);
    }

    #[test]
    fn status_capabilities_parse_from_go_json() {
        let j = br#"{"BackendState":"Running","Self":{"DNSName":"libations.example.ts.net.",
            "CapMap":{"funnel":null,"https":null,"https://tailscale.com/cap/funnel-ports?ports=443,8443,10000":null}}}"#;
        let status: super::super::localapi::Status = serde_json::from_slice(j).expect("parse");
        assert_eq!(refusal(&status.self_status.unwrap()), None);
        let j = br#"{"Self":{"DNSName":"x.","CapMap":null,"Capabilities":null}}"#;
        let status: super::super::localapi::Status = serde_json::from_slice(j).expect("parse");
        assert!(refusal(&status.self_status.unwrap()).is_some());
        // Only the older list form: read as well.
        let j = br#"{"Self":{"DNSName":"x.","Capabilities":["https","funnel",
            "https://tailscale.com/cap/funnel-ports?ports=443,8443,10000"]}}"#;
        let status: super::super::localapi::Status = serde_json::from_slice(j).expect("parse");
        assert_eq!(refusal(&status.self_status.unwrap()), None);
    }

    #[test]
    fn the_public_address_names_the_one_port() {
        assert_eq!(target("a.b.ts.net"), "a.b.ts.net:8443");
        assert_eq!(guest_url("a.b.ts.net"), "https://a.b.ts.net:8443/menu");
    }
}
