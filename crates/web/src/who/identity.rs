//! Who is at the bar: the tailnet identity behind a request, and what the tailnet policy
//! lets them do.
//!
//! The connection layer puts the tailnet address a request came from into the request's
//! extensions ([`crate::connections::Peer`]); nothing more happens until a handler asks for a
//! `Visitor`. Then a [`Resolve`] turns the address into an [`Identity`]: on the tailnet
//! that is a WhoIs on the node (cached, bounded in time), with `--local` a fixed identity
//! from `--local-identity`, in tests whatever the test needs. Static files and cached pages
//! never pay for a lookup.
//!
//! Capabilities come from the tailnet policy's app grants, under one capability name
//! (`DEFAULT_CAPABILITY` unless configured). Deny by default; each grant that applies
//! adds a value, and a capability is on when any value turns it on (as golink and tsidp
//! merge theirs).

use crate::connections::Peer;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The app capability Libations reads grants from unless told otherwise.
pub const DEFAULT_CAPABILITY: &str = "libations.app/cap/libations";

/// A person (or a tagged device) on the tailnet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identity {
    /// The user's login (`alice@example.com`); `None` for a tagged device, which has tags
    /// instead of a user.
    pub login: Option<String>,
    /// The user's display name ("Alice"); `None` for a tagged device.
    pub display_name: Option<String>,
    /// The device's name on the tailnet ("iphone").
    pub node: String,
    /// The device's ACL tags (`tag:kiosk`), empty for a user's device.
    pub tags: Vec<String>,
    /// What the policy grants under our capability name.
    pub capabilities: Capabilities,
}

impl Identity {
    /// What the page shows: "Alice · iphone", or the tags for a tagged device.
    pub fn label(&self) -> String {
        let who = match (&self.display_name, &self.login) {
            (Some(name), _) if !name.is_empty() => name.clone(),
            (_, Some(login)) => login.clone(),
            _ => self.tags.join(", "),
        };
        if self.node.is_empty() {
            who
        } else {
            format!("{who} \u{b7} {}", self.node)
        }
    }
}

/// What a visitor may do. Every field is off unless a grant turns it on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// May change recipes (`{"edit": true}`), and with them the household's shelf.
    pub edit: bool,
    /// May change the household's shelf (`{"shelf": true}`).
    pub shelf: bool,
    /// May compose the guests' menus and switch one on (`{"menu": true}`).
    pub menu: bool,
}

impl Capabilities {
    /// Merges the values granted under our capability name: deny by default, OR over the
    /// grants. A value that is not a JSON object, or a known field that is not a boolean,
    /// grants nothing and is reported (it is a mistake in the tailnet policy file).
    // Only the tailnet's WhoIs has grants to merge.
    pub fn merge<'v>(
        capability: &str,
        values: impl IntoIterator<Item = &'v serde_json::Value>,
    ) -> Capabilities {
        let mut merged = Capabilities::default();
        for value in values {
            let Some(fields) = value.as_object() else {
                tracing::warn!(capability, %value, "a grant of this app capability is not a JSON object; it grants nothing");
                continue;
            };
            for (field, on) in [
                ("edit", &mut merged.edit),
                ("shelf", &mut merged.shelf),
                ("menu", &mut merged.menu),
            ] {
                match fields.get(field) {
                    None => {}
                    Some(serde_json::Value::Bool(granted)) => *on |= granted,
                    Some(other) => {
                        tracing::warn!(capability, field, %other, "a grant's field is not true or false; it grants nothing")
                    }
                }
            }
        }
        merged
    }
}

/// Checks an app capability name: Tailscale wants `<domain>/cap/<name>`, and the
/// `tailscale.com` domain is Tailscale's own.
pub fn check_capability_name(name: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "app capability {name:?}: {why}; expected <domain>/cap/<name>, e.g. {DEFAULT_CAPABILITY}"
        ))
    };
    let Some((domain, rest)) = name.split_once("/cap/") else {
        return bad("no /cap/ in it");
    };
    let label_ok =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !domain.contains('.') || !domain.split('.').all(label_ok) {
        return bad("the part before /cap/ is not a domain name");
    }
    if domain.eq_ignore_ascii_case("tailscale.com")
        || domain.to_ascii_lowercase().ends_with(".tailscale.com")
    {
        return bad("the tailscale.com domain is reserved for Tailscale's own capabilities");
    }
    if rest.is_empty()
        || !rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b))
    {
        return bad(
            "the name after /cap/ is empty or has characters other than letters, digits, - _ . /",
        );
    }
    Ok(())
}

/// A boxed future, so that [`Resolve`] stays object-safe without extra crates.
pub type Resolving<'a> = Pin<Box<dyn Future<Output = Option<Arc<Identity>>> + Send + 'a>>;

/// Turns where a request came from into who sent it. Never fails and never hangs: what
/// cannot be found out in time is anonymous.
pub trait Resolve: Send + Sync + 'static {
    fn resolve(&self, peer: Option<Peer>) -> Resolving<'_>;
}

/// Everyone is the same identity (`--local-identity`), or nobody is known.
#[derive(Debug, Clone, Default)]
pub struct Fixed(pub Option<Arc<Identity>>);

impl Fixed {
    /// A local user for UI work: `login` with its part before `@` as the display name, on
    /// this machine, with `capabilities`.
    pub fn local(login: &str, capabilities: Capabilities) -> Fixed {
        let name = login.split('@').next().unwrap_or(login);
        Fixed(Some(Arc::new(Identity {
            login: Some(login.to_owned()),
            display_name: Some(name.to_owned()),
            node: "local".to_owned(),
            tags: Vec::new(),
            capabilities,
        })))
    }
}

impl Resolve for Fixed {
    fn resolve(&self, _peer: Option<Peer>) -> Resolving<'_> {
        let who = self.0.clone();
        Box::pin(async move { who })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CAP: &str = DEFAULT_CAPABILITY;

    #[test]
    fn capabilities_are_denied_by_default_and_ored_over_grants() {
        assert_eq!(Capabilities::merge(CAP, &[]), Capabilities::default());
        let grants = [json!({}), json!({"edit": false}), json!({"other": 1})];
        assert!(!Capabilities::merge(CAP, &grants).edit);
        let grants = [json!({"edit": false}), json!({"edit": true})];
        assert!(Capabilities::merge(CAP, &grants).edit);
        // The menu is its own grant too.
        let menu = Capabilities::merge(CAP, &[json!({"menu": true})]);
        assert!(menu.menu && !menu.edit && !menu.shelf);
        // The shelf is its own grant: it does not let anyone edit recipes.
        let shelf = Capabilities::merge(CAP, &[json!({"shelf": true}), json!({"edit": false})]);
        assert_eq!(
            shelf,
            Capabilities {
                edit: false,
                shelf: true,
                menu: false,
            }
        );
    }

    #[test]
    fn malformed_grants_grant_nothing() {
        for bad in [
            json!("edit"),
            json!(true),
            json!(["edit"]),
            json!({"edit": "true"}),
            json!({"edit": 1}),
        ] {
            assert!(!Capabilities::merge(CAP, [&bad]).edit, "{bad}");
        }
        for bad in [json!({"shelf": "yes"}), json!({"shelf": 1})] {
            assert!(!Capabilities::merge(CAP, [&bad]).shelf, "{bad}");
        }
    }

    #[test]
    fn capability_names_follow_tailscales_form() {
        assert!(check_capability_name(CAP).is_ok());
        assert!(check_capability_name("example.com/cap/bar-tab").is_ok());
        for bad in [
            "libations",
            "libations/cap/x",
            "example.com/cap/",
            "example.com/x",
            "tailscale.com/cap/libations",
            "sub.tailscale.com/cap/libations",
            "exa mple.com/cap/x",
            "example.com/cap/a b",
        ] {
            let err = check_capability_name(bad).expect_err(bad);
            assert!(err.contains(bad), "{err}");
        }
    }

    #[test]
    fn labels_say_who_and_which_device() {
        let mut who = Identity {
            login: Some("alice@example.com".into()),
            display_name: Some("Alice".into()),
            node: "iphone".into(),
            tags: vec![],
            capabilities: Capabilities::default(),
        };
        assert_eq!(who.label(), "Alice \u{b7} iphone");
        who.display_name = None;
        assert_eq!(who.label(), "alice@example.com \u{b7} iphone");
        who.login = None;
        who.tags = vec!["tag:kiosk".into()];
        assert_eq!(who.label(), "tag:kiosk \u{b7} iphone");
    }

    #[tokio::test]
    async fn local_identity_is_everyones() {
        let fixed = Fixed::local(
            "bartender@local",
            Capabilities {
                edit: true,
                shelf: false,
                menu: false,
            },
        );
        let who = fixed.resolve(None).await.expect("known");
        assert_eq!(who.login.as_deref(), Some("bartender@local"));
        assert_eq!(who.display_name.as_deref(), Some("bartender"));
        assert!(who.capabilities.edit);
        assert!(Fixed::default().resolve(None).await.is_none());
    }
}
