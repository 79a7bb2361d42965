//! The one place the app's routers are made: the same app for `--local` and for the
//! tailnet, each with only what its listener needs around it, so the two cannot drift
//! apart and the tailnet side never builds app state of its own.

use crate::web::{self, AppState};
use axum::Router;
use axum::http::{HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// One year: browsers remember to use HTTPS for this name.
const HSTS: &str = "max-age=31536000";

/// Which listener a router is for.
pub(super) enum Facing {
    /// `--local`: answers only the allowed host names, so that a web page cannot reach it
    /// by pointing its own name at this machine (DNS rebinding).
    Local(web::AllowedHosts),
    /// The tailnet's HTTPS on :443: browsers are told to keep to HTTPS (HSTS).
    #[cfg_attr(not(feature = "tailnet"), allow(dead_code))] // only the tailnet serves it
    Tailnet,
    /// The guests' listener on :8443 (Funnel): only the guests' menu (`web::guest_port`), HSTS
    /// as on :443 (the same name).
    #[cfg_attr(not(feature = "tailnet"), allow(dead_code))] // only the tailnet serves it
    Guests,
}

/// The app for `facing`, given the state it serves (for the tailnet: with who sent each
/// request known through the node's WhoIs).
pub(super) fn router(state: AppState, facing: Facing) -> Router {
    match facing {
        Facing::Local(hosts) => web::for_hosts(web::app(state), hosts),
        Facing::Tailnet => hsts(web::app(state)),
        Facing::Guests => hsts(web::guest_port(state)),
    }
}

/// Browsers keep to HTTPS for this name.
fn hsts(router: Router) -> Router {
    router.layer(SetResponseHeaderLayer::overriding(
        header::STRICT_TRANSPORT_SECURITY,
        HeaderValue::from_static(HSTS),
    ))
}
