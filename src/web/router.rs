//! The one router that `--local`, the tailnet and the tests all serve, and the state its
//! handlers share.
//!
//! [`app`] knows nothing about where a connection came from: the connection layer
//! ([`crate::connections`]) and the host check ([`for_hosts`]) sit around it.

use super::assets::Assets;
use super::editing::Editing;
use super::gate::SearchGate;
use super::host::{self, AllowedHosts};
use super::identity::{self, Resolve};
use super::site::Site;
use super::{api, edit_api, edit_pages, error, files, guard, pages, shelf};
use crate::metrics::Metrics;
use arc_swap::ArcSwap;
use axum::Router;
use axum::extract::{FromRef, MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{get, post};
use std::sync::Arc;
use tower_http::set_header::SetResponseHeaderLayer;

/// What every handler can reach. Cheap to clone.
///
/// The site sits behind an [`ArcSwap`] so that a reload can replace it atomically: each
/// request takes the current `Arc<Site>` once and finishes on it, even if a reload lands
/// meanwhile.
#[derive(Clone)]
pub struct AppState {
    pub site: Arc<ArcSwap<Site>>,
    pub assets: Arc<Assets>,
    pub metrics: Arc<Metrics>,
    pub limits: RequestLimits,
    pub searches: SearchGate,
    /// Who sent a request ([`identity`]): WhoIs on the tailnet, a fixed identity with
    /// `--local`, nobody when unknown.
    pub who: Arc<dyn Resolve>,
    /// Log one line per request with the visitor's login (`--access-log`).
    pub access_log: bool,
    /// Who may change recipes, and the store changes go to.
    pub editing: Arc<Editing>,
}

/// Bounds on a single request that the router enforces (the connection layer enforces
/// header size and timing).
#[derive(Debug, Clone, Copy)]
pub struct RequestLimits {
    pub(crate) max_uri_bytes: usize,
    pub(crate) max_body_bytes: usize,
    /// The largest body of a change (POST, PUT, DELETE): a recipe at every cap, form-encoded
    /// (5,000 characters of notes in another script are some 45 KB on their own).
    pub(crate) max_write_bytes: usize,
    /// How long a client may take to send a request body it announced.
    pub(crate) body_timeout: std::time::Duration,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits {
            max_uri_bytes: 8192,
            max_body_bytes: 1024,
            max_write_bytes: 256 * 1024,
            body_timeout: std::time::Duration::from_secs(10),
        }
    }
}

impl FromRef<AppState> for Arc<Site> {
    fn from_ref(state: &AppState) -> Arc<Site> {
        state.site.load_full()
    }
}

impl FromRef<AppState> for Arc<Metrics> {
    fn from_ref(state: &AppState) -> Arc<Metrics> {
        state.metrics.clone()
    }
}

impl FromRef<AppState> for SearchGate {
    fn from_ref(state: &AppState) -> SearchGate {
        state.searches.clone()
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

/// The strict policy the UI is written for: no inline script or style, nothing external.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; \
    frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/// `router` answering only requests for `allowed` hosts (see [`host`]).
pub(crate) fn for_hosts(router: Router, allowed: AllowedHosts) -> Router {
    router.layer(axum::middleware::from_fn_with_state(
        Arc::new(allowed),
        host::check,
    ))
}

/// The application router, shared by every way of serving it.
pub fn app(state: AppState) -> Router {
    let header =
        |name, value| SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value));
    let access_log = state
        .access_log
        .then(|| axum::middleware::from_fn_with_state(state.clone(), identity::access_log));
    let router = Router::new()
        .route("/", get(pages::index))
        .route("/recipes/{id}", get(pages::recipe))
        .route(
            "/recipes/new",
            get(edit_pages::new_form).post(edit_pages::create),
        )
        .route(
            "/recipes/{id}/edit",
            get(edit_pages::edit_form).post(edit_pages::update),
        )
        .route("/recipes/{id}/delete", post(edit_pages::delete))
        .route("/changes", get(edit_pages::changes))
        .route("/changes/{n}/undo", post(edit_pages::undo))
        .route("/api/recipes", get(api::list).post(edit_api::create))
        .route("/api/recipes/download", get(edit_api::download))
        .route(
            "/api/recipes/{id}",
            get(api::recipe)
                .put(edit_api::update)
                .delete(edit_api::delete),
        )
        .route("/api/changes", get(edit_api::changes))
        .route("/api/changes/{n}/undo", post(edit_api::undo))
        .route("/shelf", get(shelf::page))
        .route("/api/ingredients", get(shelf::ingredients))
        .route("/api/whoami", get(identity::whoami))
        .route("/static/{*file}", get(files::asset))
        .route("/sw.js", get(files::service_worker))
        .route("/manifest.webmanifest", get(files::manifest))
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::method_not_allowed)
        // After the fallback above, so that it wraps it too: every 405 of a route.
        .route_layer(axum::middleware::from_fn_with_state(
            state.editing.clone(),
            allow,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.site.clone(),
            error::render_page,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.limits,
            guard::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            crate::metrics::track,
        ))
        .layer(header(header::CONTENT_SECURITY_POLICY, CSP))
        .layer(header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header(header::REFERRER_POLICY, "no-referrer"))
        .layer(header(
            header::HeaderName::from_static("permissions-policy"),
            "camera=(), microphone=(), geolocation=(), payment=(), usb=(), screen-wake-lock=(self)",
        ));
    let router = match access_log {
        Some(layer) => router.layer(layer),
        None => router,
    };
    router.with_state(state)
}

/// The methods `route` (a pattern of [`app`]) takes, as `Allow` lists them. With editing
/// off, the write methods are not listed: they answer 405 too, with the flag that turns
/// them on, and a route that only writes takes nothing (an empty `Allow`, as RFC 9110
/// has it for a resource switched off by configuration).
pub(crate) fn allowed(route: &str, writable: bool) -> &'static str {
    match (route, writable) {
        ("/api/recipes/{id}", true) => "GET, HEAD, PUT, DELETE",
        ("/api/recipes" | "/recipes/new" | "/recipes/{id}/edit", true) => "GET, HEAD, POST",
        ("/recipes/{id}/delete" | "/changes/{n}/undo" | "/api/changes/{n}/undo", true) => "POST",
        ("/recipes/{id}/delete" | "/changes/{n}/undo" | "/api/changes/{n}/undo", false) => "",
        _ => "GET, HEAD",
    }
}

/// Route middleware: a 405 says in `Allow` what the route does take ([`allowed`]), whether
/// the router answered it (a method the route has no handler for) or a write handler did
/// (editing is off). axum's own `Allow` would list the write methods with editing off.
async fn allow(State(editing): State<Arc<Editing>>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && let Some(route) = route
    {
        let methods = allowed(route.as_str(), editing.writable().is_ok());
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(methods));
    }
    response
}
