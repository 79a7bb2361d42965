//! The guests' own listener, open to the internet through Tailscale Funnel (`:8443`,
//! `--guest-menu-funnel`): [`super::guests`] and nothing else.
//!
//! Around it: nobody is known (the state's `who` is nobody, so no handler can find out
//! who asks even if it tried), the source address the connection's PROXY header names (a
//! public address that Tailscale's relay saw) is counted per address and logged
//! ([`super::guard::rate`]), then taken out of the request, and every address that is not
//! the guests' is a bare 404, with nothing of the app's pages in it.

use super::guard::rate::{self, PerSource, Rates};
use super::handlers::files;
use super::router::guests;
use super::state::AppState;
use super::who::identity::Fixed;
use axum::Router;
use axum::http::{HeaderValue, header};
use std::sync::Arc;
use tower_http::set_header::SetResponseHeaderLayer;

/// What a bare 404 may load: nothing.
const CSP_NOTHING: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/// The router of the Funnel's listener.
pub fn guest_port(state: AppState) -> Router {
    // The access log's lines come from the rate limit, with the source for a login.
    let access_log = state.access_log;
    let state = AppState {
        who: Arc::new(Fixed::default()),
        access_log: false,
        ..state
    };
    let header =
        |name, value| SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value));
    guests(state)
        .fallback(files::guest_not_found)
        .layer(axum::middleware::from_fn_with_state(
            PerSource::new(Rates::GUESTS, access_log),
            rate::limit,
        ))
        .layer(header(header::CONTENT_SECURITY_POLICY, CSP_NOTHING))
        .layer(header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header(header::REFERRER_POLICY, "no-referrer"))
}
