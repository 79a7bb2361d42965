//! What every handler can reach: [`AppState`], and the parts of it a handler takes alone
//! (`State<Arc<Site>>`, `State<HeavyGate>`, …) through `FromRef`.
//!
//! Apart from the router so that the handlers and extractors can name the parts they need
//! without importing the router that names them.

use super::guard::gate::HeavyGate;
use super::guard::limits::RequestLimits;
use super::site::{Assets, Publisher, Site};
use super::who::editing::Editing;
use super::who::household_door::HouseholdDoor;
use super::who::identity::Resolve;
use crate::metrics::Metrics;
use arc_swap::ArcSwap;
use axum::extract::FromRef;
use std::sync::Arc;

/// What every handler can reach. Cheap to clone.
///
/// The site sits behind an [`ArcSwap`] so that a reload can replace it atomically: each
/// request takes the current `Arc<Site>` once and finishes on it, even if a reload lands
/// meanwhile.
#[derive(Clone)]
pub struct AppState {
    pub site: Arc<ArcSwap<Site>>,
    pub assets: Arc<Assets>,
    /// The one way a new site is served (a reload, a save, the household's strengths):
    /// it swaps `site`.
    pub publisher: Publisher,
    pub metrics: Arc<Metrics>,
    pub limits: RequestLimits,
    pub heavy: HeavyGate,
    /// Who sent a request ([`crate::identity`]): WhoIs on the tailnet, a fixed identity with
    /// `--local`, nobody when unknown.
    pub who: Arc<dyn Resolve>,
    /// Log one line per request with the visitor's login (`--access-log`).
    pub access_log: bool,
    /// Who may change recipes, and the store changes go to.
    pub editing: Arc<Editing>,
    /// The household's shelf and each person's own, or why there is none.
    pub home: Arc<HouseholdDoor>,
    /// The address guests are sent to (the printed menu's QR code) when it is not this
    /// app's own: the Funnel's public `https://<fqdn>:8443/menu`. None: the address the
    /// host reached the app at.
    pub guest_url: Option<String>,
    /// Whether this app is served over HTTPS (the tailnet) or plain HTTP (`--local`): the
    /// scheme of a guest address made from the request's `Host`.
    pub https: bool,
}

/// Where guests find the menu: [`AppState::guest_url`], else this app at the `Host` a
/// request came to, with the scheme the app serves.
#[derive(Debug, Clone)]
pub struct GuestAddress {
    pub url: Option<String>,
    pub https: bool,
}

impl FromRef<AppState> for GuestAddress {
    fn from_ref(state: &AppState) -> GuestAddress {
        GuestAddress {
            url: state.guest_url.clone(),
            https: state.https,
        }
    }
}

impl FromRef<AppState> for Arc<HouseholdDoor> {
    fn from_ref(state: &AppState) -> Arc<HouseholdDoor> {
        state.home.clone()
    }
}

impl FromRef<AppState> for Arc<Site> {
    fn from_ref(state: &AppState) -> Arc<Site> {
        state.site.load_full()
    }
}

impl FromRef<AppState> for Publisher {
    fn from_ref(state: &AppState) -> Publisher {
        state.publisher.clone()
    }
}

impl FromRef<AppState> for Arc<Metrics> {
    fn from_ref(state: &AppState) -> Arc<Metrics> {
        state.metrics.clone()
    }
}

impl FromRef<AppState> for HeavyGate {
    fn from_ref(state: &AppState) -> HeavyGate {
        state.heavy.clone()
    }
}

impl FromRef<AppState> for Arc<Editing> {
    fn from_ref(state: &AppState) -> Arc<Editing> {
        state.editing.clone()
    }
}

impl FromRef<AppState> for Arc<Assets> {
    fn from_ref(state: &AppState) -> Arc<Assets> {
        state.assets.clone()
    }
}

impl FromRef<AppState> for Arc<dyn Resolve> {
    fn from_ref(state: &AppState) -> Arc<dyn Resolve> {
        state.who.clone()
    }
}

impl FromRef<AppState> for RequestLimits {
    fn from_ref(state: &AppState) -> RequestLimits {
        state.limits.clone()
    }
}
