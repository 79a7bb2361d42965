//! Who may change recipes, and the checks every change passes before it reaches the
//! [`Store`]: the switch (`--allow-edits`), the visitor's grant, where the request came
//! from, a per-visitor rate limit, and publishing the new collection afterwards.
//!
//! A visitor may edit when editing is on (a writable `--recipes-file` and `--allow-edits`),
//! the tailnet (or `--local`) says who they are, they are a person (tagged devices never
//! edit), and a grant gives them `{"edit": true}` or `--editor` lists their login.
//!
//! Cross-site requests: a page on another site that a phone visits can make the browser
//! POST to our name, with the phone's tailnet identity. Every write must therefore come
//! from our own origin (`Sec-Fetch-Site: same-origin`, or an `Origin` naming our host);
//! the JSON API takes only `application/json` (which a cross-site form cannot send without
//! a preflight we never answer), and the plain-HTML forms carry a token bound to the
//! visitor ([`Editing::token`]).

use super::identity::Identity;
use super::visitor::Visitor;
use crate::error::WebError;
use crate::recipes::{Recipes, Stamp};
use crate::store::{Saved, Store};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Makes a saved collection the one served (the reloader does it: it owns the swap).
pub trait Publish: Send + Sync + 'static {
    /// Serves `recipes`, the collection after change number `change`, which wrote the file
    /// with stamp `written`. Publishes may arrive out of order: one for an older change
    /// than the last published must change nothing.
    fn publish(
        &self,
        recipes: Recipes,
        written: Option<Stamp>,
        change: u64,
    ) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + '_>>;
}

/// A visitor who may edit, as the journal names them.
#[derive(Debug, Clone)]
pub(crate) struct Editor {
    pub(crate) login: String,
    /// What the plain-HTML forms must send back ([`Editing::token`]).
    pub(crate) token: String,
}

/// Editing's settings and state; one per process.
pub struct Editing {
    store: Option<Arc<Store>>,
    /// Not switched on (`--allow-edits`): the app is read-only, and its write routes answer
    /// as if they did not exist (405), as they did before editing was added.
    read_only: bool,
    /// Why editing is off for everyone (shown to visitors who would otherwise edit).
    off: Option<String>,
    editors: Vec<String>,
    publish: Option<Arc<dyn Publish>>,
    limiter: Limiter,
    /// Fetches the pages "Add from a link" imports ([`crate::fetch`]).
    fetcher: crate::fetch::Fetcher,
    /// The secret behind form tokens: random per start, so a restart invalidates open
    /// forms (the form then asks to reload, losing nothing: the draft is in the page).
    key: [u8; 32],
}

impl Editing {
    /// The app is read-only: editing was not switched on.
    pub fn read_only() -> Editing {
        Editing {
            read_only: true,
            ..Editing::off(
                "Editing is off: start the app with --allow-edits (NixOS: services.libations.editing.enable = true).",
            )
        }
    }

    /// Editing switched on but not possible (the file cannot be written), saying why.
    pub fn off(why: impl Into<String>) -> Editing {
        Editing {
            store: None,
            read_only: false,
            off: Some(why.into()),
            editors: Vec::new(),
            publish: None,
            limiter: Limiter::new(1),
            fetcher: crate::fetch::Fetcher::new(Vec::new()),
            key: [0; 32],
        }
    }

    /// Editing on, for the file `store` edits.
    pub fn on(
        store: Store,
        editors: Vec<String>,
        per_minute: u32,
        publish: Arc<dyn Publish>,
    ) -> std::io::Result<Editing> {
        Ok(Editing {
            store: Some(Arc::new(store)),
            read_only: false,
            off: None,
            editors,
            publish: Some(publish),
            limiter: Limiter::new(per_minute),
            fetcher: crate::fetch::Fetcher::new(Vec::new()),
            key: random_key()?,
        })
    }

    /// Lets "Add from a link" fetch from these hosts too (`--import-allow-host`).
    pub fn with_import_hosts(mut self, hosts: Vec<String>) -> Editing {
        self.fetcher = crate::fetch::Fetcher::new(hosts);
        self
    }

    pub(crate) fn fetcher(&self) -> &crate::fetch::Fetcher {
        &self.fetcher
    }

    pub(crate) fn store(&self) -> Option<&Arc<Store>> {
        self.store.as_ref()
    }

    /// Refuses a write when the app is read-only: 405, as before editing existed, with
    /// the flag that turns it on.
    pub(crate) fn writable(&self) -> Result<(), WebError> {
        if self.read_only {
            return Err(WebError::ReadOnly(
                "Method not allowed: this app is read-only. Start it with --allow-edits to add and edit recipes.".into(),
            ));
        }
        Ok(())
    }

    /// The editor behind this request, or why they may not edit.
    pub(crate) fn editor(&self, visitor: &Visitor) -> Result<Editor, WebError> {
        let (identity, login) = self.granted(visitor)?;
        if let Some(why) = &self.off {
            return Err(forbidden(why));
        }
        Ok(Editor {
            login: login.to_owned(),
            token: self.token(identity),
        })
    }

    /// Who this visitor is, when the tailnet (or `--editor`) lets them edit, whether or not
    /// editing is on; else why not.
    fn granted<'v>(&self, visitor: &'v Visitor) -> Result<(&'v Identity, &'v str), WebError> {
        let Some(identity) = &visitor.0 else {
            return Err(forbidden(
                "Editing needs to know who you are, and this connection does not say (is the app reached through the tailnet?).",
            ));
        };
        let login = identity
            .login
            .as_deref()
            .filter(|_| identity.tags.is_empty());
        let Some(login) = login else {
            return Err(forbidden("Tagged devices cannot edit recipes."));
        };
        if !(identity.capabilities.edit || self.listed(login)) {
            return Err(forbidden(
                "Only the people who may edit recipes can do that, and you are not one of them yet. Whoever runs your tailnet can let you (docs/DEPLOYING.md, \u{201c}Who is at the bar\u{201d}).",
            ));
        }
        Ok((identity, login))
    }

    /// Why this visitor, who would be an editor, cannot edit now: editing was switched on
    /// but the recipes file cannot be written. Said on the pages, not only in the log.
    pub(crate) fn off_for(&self, visitor: &Visitor) -> Option<String> {
        let why = self.off.as_ref()?;
        self.granted(visitor).ok().map(|_| why.clone())
    }

    /// Whether `login` is listed with `--editor` (a grant without the policy file).
    pub(crate) fn listed(&self, login: &str) -> bool {
        self.editors.iter().any(|e| e.eq_ignore_ascii_case(login))
    }

    /// Whether this visitor would see edit controls.
    pub(crate) fn may_edit(&self, visitor: &Visitor) -> bool {
        self.editor(visitor).is_ok()
    }

    /// The form token for an identity ([`form_token`] under this start's key).
    fn token(&self, identity: &Identity) -> String {
        form_token(&self.key, identity)
    }

    /// Takes one write from `editor`'s allowance, or says when to come back.
    pub(crate) fn take_recipe_write(&self, editor: &Editor) -> Result<(), WebError> {
        self.limiter
            .take(&editor.login)
            .map_err(|wait| WebError::TooManyWrites(wait.as_secs().max(1)))
    }

    /// Serves `saved`'s collection from now on (list, search, API, pages).
    pub(crate) async fn publish(&self, saved: &Saved) -> Result<(), WebError> {
        let (Some(publish), Some(entry)) = (&self.publish, &saved.entry) else {
            return Ok(());
        };
        publish
            .publish(saved.recipes.clone(), saved.stamp.clone(), entry.n)
            .await
            .map_err(WebError::Publish)
    }
}

fn forbidden(why: &str) -> WebError {
    WebError::Forbidden(why.to_owned())
}

/// Where a request says it comes from, and where it was sent: what the cross-site check
/// needs. The host is the `Host` header, or the URI's authority (HTTP/2 sends no `Host`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Provenance {
    host: Option<String>,
    origin: Option<String>,
    fetch_site: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for Provenance {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Provenance, Self::Rejection> {
        let text = |name: &str| {
            parts
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let host = text("host").or_else(|| parts.uri.authority().map(|a| a.as_str().to_owned()));
        Ok(Provenance {
            host,
            origin: text("origin"),
            fetch_site: text("sec-fetch-site"),
        })
    }
}

impl Provenance {
    /// Refuses a write that did not come from a page of ours (see the module docs).
    /// Requests that carry neither header are not from a browser, and a browser is the
    /// only client a cross-site page can use.
    pub(crate) fn check(&self) -> Result<(), WebError> {
        if let Some(site) = &self.fetch_site {
            return match site.as_str() {
                "same-origin" => Ok(()),
                other => Err(forbidden(&format!(
                    "A change must come from this app's own pages (this request came from a {other} page)."
                ))),
            };
        }
        let Some(origin) = &self.origin else {
            return Ok(());
        };
        let host = self.host.as_deref().unwrap_or_default();
        let origin_host = origin.split_once("://").map_or("", |(_, rest)| rest);
        if !host.is_empty() && origin_host.eq_ignore_ascii_case(host) {
            Ok(())
        } else {
            Err(forbidden(
                "A change must come from this app's own pages (the request's Origin is another site).",
            ))
        }
    }
}

/// The JSON API takes JSON only: a cross-site form can send text/plain or form data
/// without asking, but not application/json. `what` is what the body is ("the recipe",
/// "the change", "the backup"), for the refusal.
pub(crate) fn json_body(headers: &HeaderMap, what: &str) -> Result<(), WebError> {
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let essence = kind.split(';').next().unwrap_or_default().trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(WebError::UnsupportedMediaType(format!(
            "Send {what} as JSON (Content-Type: application/json)."
        )))
    }
}

/// The token a plain-HTML form carries for an identity: a keyed hash of who they are, so
/// a token taken from one person's page is worthless for another, and a cross-site page
/// (which cannot read ours) cannot send it. `key` is random per start.
pub(crate) fn form_token(key: &[u8; 32], identity: &Identity) -> String {
    let mut hash = Sha256::new();
    hash.update(key);
    hash.update(identity.login.as_deref().unwrap_or_default());
    hash.update([0]);
    hash.update(&identity.node);
    hash.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Compares a form's token with the editor's, in time independent of where they differ.
pub(crate) fn check_token(editor: &Editor, sent: &str) -> Result<(), WebError> {
    same_token(&editor.token, sent)
}

/// Compares a form's token with the one expected, in time independent of where they
/// differ; refused as an out-of-date form.
pub(crate) fn same_token(expected: &str, sent: &str) -> Result<(), WebError> {
    let (a, b) = (expected.as_bytes(), sent.as_bytes());
    let same = a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0;
    if same {
        Ok(())
    } else {
        Err(forbidden(
            "This form is out of date (the app restarted, or it was made for someone else). Reload the page and try again.",
        ))
    }
}

/// 32 random bytes, a key for form tokens.
pub(crate) fn random_key() -> std::io::Result<[u8; 32]> {
    use std::io::Read;
    let mut key = [0; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    Ok(key)
}

/// A token bucket per login: up to `per_minute` writes at once, refilled at `per_minute`
/// a minute. Only people reach it (editors, or the household's people), so the map stays
/// as small as the household.
pub(crate) struct Limiter {
    per_minute: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl Limiter {
    pub(crate) fn new(per_minute: u32) -> Limiter {
        Limiter {
            per_minute: f64::from(per_minute.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token, or returns how long until one is there.
    pub(crate) fn take(&self, who: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let rate = self.per_minute / 60.0;
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let (tokens, at) = buckets
            .entry(who.to_owned())
            .or_insert((self.per_minute, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * rate).min(self.per_minute);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / rate).max(Duration::from_secs(1)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use std::future::Future;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    fn from(uri: &str, pairs: &[(&'static str, &'static str)]) -> Provenance {
        let mut request = axum::http::Request::builder().uri(uri);
        for (k, v) in pairs {
            request = request.header(*k, *v);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        let extracting = Provenance::from_request_parts(&mut parts, &());
        // The extractor never waits: one poll answers.
        let mut extracting = std::pin::pin!(extracting);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match extracting.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(Ok(p)) => p,
            _ => panic!("the extractor waited"),
        }
    }

    #[test]
    fn only_our_own_origin_may_write() {
        assert!(
            from("/", &[("sec-fetch-site", "same-origin")])
                .check()
                .is_ok()
        );
        assert!(
            from("/", &[("sec-fetch-site", "same-site")])
                .check()
                .is_err()
        );
        assert!(
            from("/", &[("sec-fetch-site", "cross-site")])
                .check()
                .is_err()
        );
        let ours = [
            ("host", "bar.example.ts.net"),
            ("origin", "https://bar.example.ts.net"),
        ];
        assert!(from("/", &ours).check().is_ok());
        let theirs = [
            ("host", "bar.example.ts.net"),
            ("origin", "https://evil.example"),
        ];
        assert!(from("/", &theirs).check().is_err());
        assert!(
            from("/", &[("host", "x"), ("origin", "null")])
                .check()
                .is_err()
        );
        assert!(
            from("/", &[]).check().is_ok(),
            "no browser, no cross-site page"
        );
        // HTTP/2: no Host header, the authority is in the URI.
        let url = "https://bar.example.ts.net/api/recipes";
        assert!(
            from(url, &[("origin", "https://bar.example.ts.net")])
                .check()
                .is_ok()
        );
        assert!(
            from(url, &[("origin", "https://evil.example")])
                .check()
                .is_err()
        );
    }

    #[test]
    fn the_api_takes_json_only() {
        assert!(
            json_body(
                &headers(&[("content-type", "application/json; charset=utf-8")]),
                "the recipe"
            )
            .is_ok()
        );
        let refused = json_body(&headers(&[("content-type", "text/plain")]), "the change");
        assert_eq!(
            refused.map_err(|e| e.to_string()),
            Err("Send the change as JSON (Content-Type: application/json).".to_owned())
        );
        assert!(json_body(&headers(&[]), "the recipe").is_err());
    }

    #[test]
    fn the_limiter_allows_a_burst_then_says_when() {
        let limiter = Limiter::new(2);
        assert!(limiter.take("a").is_ok());
        assert!(limiter.take("a").is_ok());
        let wait = limiter.take("a").unwrap_err();
        assert!(
            wait >= Duration::from_secs(1) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert!(
            limiter.take("b").is_ok(),
            "each visitor has their own allowance"
        );
    }
}
