//! Who a tailnet address belongs to: the node's WhoIs, cached briefly and bounded in time.
//!
//! A lookup is one LocalAPI request on loopback (the node answers from its netmap, so it
//! works while control is away). Lookups are kept per IP address for [`TTL`], so a page
//! and its dozen assets cost one lookup, and a new grant in the policy file is seen within
//! seconds without a restart. A lookup that fails or takes longer than [`TIMEOUT`] makes
//! the request anonymous (and is logged and counted); it never holds the request longer.
//! Requests for an address whose lookup is under way wait for that one lookup.

use super::localapi::{LocalApi, WhoIs};
use crate::connections::Peer;
use crate::metrics::Metrics;
use crate::web::identity::{Capabilities, Identity, Resolve, Resolving};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

/// How long a lookup's result is used before asking again.
pub(crate) const TTL: Duration = Duration::from_secs(5);
/// How long a failed lookup is remembered, so a broken LocalAPI is not asked per request.
pub(crate) const FAILED_TTL: Duration = Duration::from_secs(1);
/// The longest a request waits for a lookup.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(2);
/// Addresses remembered at most; beyond that the cache starts over.
pub(crate) const MAX_ENTRIES: usize = 4096;

/// [`Resolve`] through the node's WhoIs.
pub struct WhoIsCache {
    api: LocalApi,
    capability: String,
    metrics: Arc<Metrics>,
    entries: Mutex<HashMap<IpAddr, Slot>>,
}

/// One address's [`Lookup`], or the lookup in progress that every request for it waits on
/// (a page's requests arriving together cost one lookup, not one each).
pub(crate) type Slot = Arc<OnceCell<Lookup>>;

/// What one lookup found: who, and until when that is used.
pub(crate) struct Lookup {
    who: Option<Arc<Identity>>,
    until: Instant,
}

impl WhoIsCache {
    pub fn new(api: LocalApi, capability: String, metrics: Arc<Metrics>) -> WhoIsCache {
        WhoIsCache {
            api,
            capability,
            metrics,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The slot for `ip`: its lookup while fresh, else a new one to fill.
    pub(crate) fn slot(&self, ip: IpAddr, now: Instant) -> Slot {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = entries.get(&ip)
            && slot.get().is_none_or(|lookup| lookup.until > now)
        {
            return slot.clone();
        }
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        let slot = Slot::default();
        entries.insert(ip, slot.clone());
        slot
    }

    async fn lookup(&self, ip: IpAddr) -> Option<Arc<Identity>> {
        let slot = self.slot(ip, Instant::now());
        // If the request that started the lookup goes away, the next one waiting takes over.
        let lookup = slot.get_or_init(|| self.ask(ip)).await;
        lookup.who.clone()
    }

    /// One WhoIs, bounded by [`TIMEOUT`]; what cannot be known is anonymous.
    async fn ask(&self, ip: IpAddr) -> Lookup {
        let (who, ttl) = match self.api.whois(ip, TIMEOUT).await {
            Ok(Some(whois)) => {
                self.metrics.whois("found");
                (Some(Arc::new(identity(whois, &self.capability))), TTL)
            }
            Ok(None) => {
                self.metrics.whois("unknown");
                tracing::warn!(target: "libations::tailnet", %ip, "WhoIs does not know this tailnet address; the request is anonymous");
                (None, TTL)
            }
            Err(e) => {
                self.metrics.whois("error");
                tracing::warn!(target: "libations::tailnet", %ip, "WhoIs failed, so the request is anonymous: {e}");
                (None, FAILED_TTL)
            }
        };
        Lookup {
            who,
            until: Instant::now() + ttl,
        }
    }
}

impl Resolve for WhoIsCache {
    fn resolve(&self, peer: Option<Peer>) -> Resolving<'_> {
        Box::pin(async move {
            let Peer(addr) = peer?;
            self.lookup(addr.ip()).await
        })
    }
}

/// What the page and the handlers need from a WhoIs reply.
pub(crate) fn identity(whois: WhoIs, capability: &str) -> Identity {
    let node = whois.node.unwrap_or_default();
    let user = whois.user_profile.unwrap_or_default();
    let name = if node.computed_name.is_empty() {
        node.name.split('.').next().unwrap_or_default().to_owned()
    } else {
        node.computed_name
    };
    let tagged = !node.tags.is_empty();
    let nonempty = |s: String| (!s.is_empty() && !tagged).then_some(s);
    let granted = whois
        .cap_map
        .get(capability)
        .and_then(|values| values.as_deref())
        .unwrap_or_default();
    Identity {
        login: nonempty(user.login_name),
        display_name: nonempty(user.display_name),
        node: name,
        tags: node.tags,
        capabilities: Capabilities::merge(capability, granted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeNode;
    use std::sync::atomic::Ordering;

    fn peer() -> Option<Peer> {
        Some(Peer("100.64.0.1:51000".parse().unwrap()))
    }

    async fn cache(node: &Arc<FakeNode>) -> (WhoIsCache, Arc<Metrics>) {
        let metrics = Arc::new(Metrics::new());
        let cache = WhoIsCache::new(node.start().await, CAP.to_owned(), metrics.clone());
        (cache, metrics)
    }

    #[tokio::test]
    async fn answers_are_cached_per_address() {
        let node = Arc::new(FakeNode::default());
        *node.whois.lock().unwrap() = Some(serde_json::json!({
            "Node": {"Name": "phone.x.ts.net.", "ComputedName": "phone"},
            "UserProfile": {"LoginName": "alice@x", "DisplayName": "Alice"},
        }));
        let (cache, metrics) = cache(&node).await;
        let who = cache.resolve(peer()).await.expect("known");
        assert_eq!(who.login.as_deref(), Some("alice@x"));
        // Another connection from the same device: no second lookup.
        let other = Some(Peer("100.64.0.1:52000".parse().unwrap()));
        assert_eq!(cache.resolve(other).await, Some(who));
        assert_eq!(node.whois_calls.load(Ordering::SeqCst), 1);
        assert!(
            metrics
                .encode()
                .unwrap()
                .contains(r#"libations_tailnet_whois_total{result="found"} 1"#)
        );
        // No peer (a connection from libtailscale's own listener): nobody, no lookup.
        assert_eq!(cache.resolve(None).await, None);
        assert_eq!(node.whois_calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn unknown_and_failing_lookups_are_anonymous() {
        let node = Arc::new(FakeNode::default());
        let (cache, metrics) = cache(&node).await;
        assert_eq!(cache.resolve(peer()).await, None);
        node.whois_fails.store(true, Ordering::SeqCst);
        let other = Some(Peer("100.64.0.7:1".parse().unwrap()));
        assert_eq!(cache.resolve(other).await, None);
        let text = metrics.encode().unwrap();
        assert!(
            text.contains(r#"libations_tailnet_whois_total{result="unknown"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(r#"libations_tailnet_whois_total{result="error"} 1"#),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_slow_lookup_never_holds_the_request() {
        let node = Arc::new(FakeNode::default());
        *node.whois_delay.lock().unwrap() = Duration::from_secs(30);
        *node.whois.lock().unwrap() = Some(serde_json::json!({"Node": {"Name": "p.x."}}));
        let cache = Arc::new(cache(&node).await.0);
        let started = Instant::now();
        // Ten requests at once from one device: one lookup, all anonymous in time.
        let mut requests = tokio::task::JoinSet::new();
        for _ in 0..10 {
            let cache = cache.clone();
            requests.spawn(async move { cache.resolve(peer()).await });
        }
        while let Some(who) = requests.join_next().await {
            assert_eq!(who.expect("task"), None);
        }
        let took = started.elapsed();
        assert!(took < TIMEOUT + Duration::from_secs(1), "took {took:?}");
        assert_eq!(node.whois_calls.load(Ordering::SeqCst), 1);
    }

    const CAP: &str = crate::web::identity::DEFAULT_CAPABILITY;

    fn parse(json: &str) -> Identity {
        identity(serde_json::from_str(json).expect("WhoIs JSON"), CAP)
    }

    #[test]
    fn a_users_device() {
        let who = parse(
            r#"{"Node":{"ID":1,"Name":"phone.example.ts.net.","ComputedName":"phone","Tags":null},
                "UserProfile":{"ID":7,"LoginName":"alice@example.com","DisplayName":"Alice"},
                "CapMap":{"libations.app/cap/libations":[{"edit":false},{"edit":true}],
                          "example.com/cap/other":[{"edit":true}]}}"#,
        );
        assert_eq!(who.login.as_deref(), Some("alice@example.com"));
        assert_eq!(who.display_name.as_deref(), Some("Alice"));
        assert_eq!(who.node, "phone");
        assert!(who.tags.is_empty());
        assert!(who.capabilities.edit);
        assert_eq!(who.label(), "Alice \u{b7} phone");
    }

    #[test]
    fn a_tagged_device_has_tags_and_no_user() {
        let who = parse(
            r#"{"Node":{"Name":"kiosk.example.ts.net.","Tags":["tag:kiosk"]},
                "UserProfile":{"LoginName":"tagged-devices","DisplayName":"Tagged Devices"},
                "CapMap":null}"#,
        );
        assert_eq!(who.login, None);
        assert_eq!(who.display_name, None);
        assert_eq!(who.node, "kiosk");
        assert_eq!(who.tags, ["tag:kiosk"]);
        assert!(!who.capabilities.edit);
    }

    #[test]
    fn other_capabilities_and_null_grants_grant_nothing() {
        let who = parse(
            r#"{"Node":{"Name":"p.x.ts.net."},"UserProfile":{"LoginName":"bob@x"},
                "CapMap":{"libations.app/cap/libations":null,"example.com/cap/x":[{"edit":true}]}}"#,
        );
        assert!(!who.capabilities.edit);
    }
}
