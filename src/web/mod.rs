//! The web layer: router, handlers and the state they share.
//!
//! [`app`] builds the one `Router` that `--local`, the tailnet and the tests all serve. It
//! knows nothing about where a connection came from.

mod assets;
mod cached;
mod gate;
mod glass;
pub mod host;
pub mod identity;
mod links;
mod pages;
mod site;

pub use assets::Assets;
pub use cached::{Cached, Effort, content_hash};
pub use gate::{GateError, SearchGate};
pub use host::AllowedHosts;
pub use identity::{Capabilities, Identity, Resolve, Visitor};
pub use site::{Site, SiteError};

use crate::connections::Share;
use crate::metrics::Metrics;
use crate::units::{AmountView as Display, MAX_SERVINGS, Unit};
use arc_swap::ArcSwap;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, FromRef, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
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
}

/// Bounds on a single request that the router enforces (the connection layer enforces
/// header size and timing).
#[derive(Debug, Clone, Copy)]
pub struct RequestLimits {
    pub max_uri_bytes: usize,
    pub max_body_bytes: usize,
    /// How long a client may take to send a request body it announced.
    pub body_timeout: std::time::Duration,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits {
            max_uri_bytes: 8192,
            max_body_bytes: 1024,
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
pub fn for_hosts(router: Router, allowed: AllowedHosts) -> Router {
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
        .route("/", get(index))
        .route("/recipes/{id}", get(recipe_page))
        .route("/api/recipes", get(api_list))
        .route("/api/recipes/{id}", get(api_recipe))
        .route("/shelf", get(shelf))
        .route("/api/ingredients", get(api_ingredients))
        .route("/api/whoami", get(identity::whoami))
        .route("/static/{*file}", get(static_file))
        .route("/sw.js", get(service_worker))
        .route("/manifest.webmanifest", get(manifest))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.limits, guard))
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

/// What went wrong with a request, mapped to a status code and a page.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("The server is busy with other searches. Try again in a moment.")]
    Busy,
    #[error(transparent)]
    Internal(#[from] SiteError),
    #[error(transparent)]
    Task(tokio::task::JoinError),
}

impl From<GateError> for WebError {
    fn from(e: GateError) -> WebError {
        match e {
            GateError::Busy => WebError::Busy,
            GateError::Task(e) => WebError::Task(e),
        }
    }
}

impl From<crate::search::QueryError> for WebError {
    fn from(e: crate::search::QueryError) -> WebError {
        WebError::BadRequest(e.to_string())
    }
}

impl WebError {
    fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            WebError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Internal(_) | WebError::Task(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the visitor is told; internal details stay in the log.
    fn public_message(&self) -> String {
        match self {
            WebError::Internal(_) | WebError::Task(_) => {
                "Something went wrong on our side. Try again.".into()
            }
            WebError::MethodNotAllowed => "This address only answers GET and HEAD.".into(),
            other => other.to_string(),
        }
    }

    fn title(&self) -> &'static str {
        match self {
            WebError::NotFound(_) => "Not found",
            WebError::BadRequest(_) => "Bad request",
            WebError::MethodNotAllowed => "Method not allowed",
            WebError::Busy => "Busy",
            WebError::Internal(_) | WebError::Task(_) => "Server error",
        }
    }

    /// An HTML error page built with the site's header and footer.
    pub fn page(self, site: &Site) -> Response {
        self.log();
        let status = self.status();
        let body = site
            .render_error(self.title(), &self.public_message())
            .unwrap_or_else(|_| format!("{} {}", status.as_u16(), self.title()));
        self.with_headers((status, html(body)).into_response())
    }

    /// A JSON error for the API: `{"error": "…"}`.
    pub fn json(self) -> Response {
        self.log();
        let body = serde_json::json!({ "error": self.public_message() });
        self.with_headers((self.status(), axum::Json(body)).into_response())
    }

    fn log(&self) {
        if matches!(self, WebError::Internal(_) | WebError::Task(_)) {
            tracing::error!(error = %self, "request failed");
        }
    }

    /// Headers the status calls for: what is allowed after a 405, when to retry a 503.
    fn with_headers(&self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        match self {
            WebError::MethodNotAllowed => {
                headers.insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            }
            WebError::Busy => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            _ => {}
        }
        response
    }
}

fn html(body: String) -> ([(header::HeaderName, &'static str); 2], String) {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, site::HTML_CACHE),
        ],
        body,
    )
}

/// A per-request body, compressed cheaply and with an ETag of its own.
/// Marked [`crate::connections::PerRequest`]: its bytes are this request's own, counted against
/// the budget for unsent answers while a slow client holds them.
fn dynamic(body: impl Into<bytes::Bytes>, content_type: &str, request: &HeaderMap) -> Response {
    let cached = Cached::new(body, content_type, site::HTML_CACHE);
    cached.compress_for(request, Effort::Fast);
    let mut response = cached.respond(request);
    response
        .extensions_mut()
        .insert(crate::connections::PerRequest);
    response
}

#[derive(Debug, Deserialize)]
struct SearchParams {
    #[serde(default)]
    q: String,
}

fn query_text(params: Result<Query<SearchParams>, QueryRejection>) -> Result<String, WebError> {
    params
        .map(|Query(p)| p.q)
        .map_err(|_| WebError::BadRequest("The search could not be read from the address.".into()))
}

async fn index(
    State(site): State<Arc<Site>>,
    State(searches): State<SearchGate>,
    share: Option<Extension<Share>>,
    params: Result<Query<SearchParams>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let q = match query_text(params) {
        Ok(q) => q,
        Err(e) => return e.page(&site),
    };
    if q.trim().is_empty() {
        return site.list_page().respond(&headers);
    }
    let query = match crate::search::SearchQuery::parse_bounded(&q) {
        Ok(query) => query,
        Err(e) => return WebError::from(e).page(&site),
    };
    let cost = site.recipes().len() * query.terms.len().max(1);
    gated_page(&searches, cost, share, site, headers, move |site| {
        site.render_search(&q, query).map_err(WebError::from)
    })
    .await
}

/// An HTML page rendered per request through the gate ([`SearchGate::run`]), compressed for
/// the request; any error becomes the error page.
async fn gated_page(
    searches: &SearchGate,
    cost: usize,
    share: Option<Extension<Share>>,
    site: Arc<Site>,
    headers: HeaderMap,
    render: impl FnOnce(&Site) -> Result<String, WebError> + Send + 'static,
) -> Response {
    let rendering = site.clone();
    let answer = searches
        .run(cost, share.as_deref(), move || {
            let body = render(&rendering)?;
            Ok::<_, WebError>(dynamic(body, "text/html; charset=utf-8", &headers))
        })
        .await;
    match answer.map_err(WebError::from).and_then(|answer| answer) {
        Ok(response) => response,
        Err(e) => e.page(&site),
    }
}

/// The recipe a path segment names; anything else (not a number, unknown id) is a 404.
fn find_recipe<'s>(site: &'s Site, id: &str) -> Result<&'s crate::recipes::Recipe, WebError> {
    id.parse()
        .ok()
        .and_then(|n| site.recipes().get(n))
        .ok_or_else(|| WebError::NotFound(format!("There is no recipe with id {id}.")))
}

/// How a recipe page shows amounts: `?units=oz&serves=4` (both optional).
#[derive(Debug, Default, Deserialize)]
struct AmountParams {
    #[serde(default)]
    units: String,
    #[serde(default)]
    serves: String,
}

impl AmountParams {
    fn display(&self) -> Result<Display, WebError> {
        let unit = match self.units.trim() {
            "" => None,
            name => Some(Unit::from_name(name).ok_or_else(|| {
                WebError::BadRequest(format!(
                    "units must be ml, oz or cl, not \u{201c}{name}\u{201d}."
                ))
            })?),
        };
        let servings = match self.serves.trim() {
            "" => 1,
            text => text
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_SERVINGS).contains(n))
                .ok_or_else(|| {
                    WebError::BadRequest(format!(
                        "serves must be a whole number from 1 to {MAX_SERVINGS}, not \u{201c}{text}\u{201d}."
                    ))
                })?,
        };
        Ok(Display { unit, servings })
    }
}

/// A recipe's page carries the whole list beside the recipe (for wide screens without
/// JavaScript): with thousands of recipes that is a megabyte to render and compress per
/// request, so it runs behind the same gate as searches.
async fn recipe_page(
    State(site): State<Arc<Site>>,
    State(searches): State<SearchGate>,
    share: Option<Extension<Share>>,
    Path(id): Path<String>,
    params: Result<Query<AmountParams>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let display = params
        .map_err(|rejection| {
            // serde names the problem: "duplicate field `units`", "invalid UTF-8".
            WebError::BadRequest(format!(
                "The address's units or servings could not be read: {}.",
                rejection.body_text()
            ))
        })
        .and_then(|Query(p)| p.display());
    let display = match display {
        Ok(display) => display,
        Err(e) => return e.page(&site),
    };
    let cost = site.recipes().len();
    gated_page(&searches, cost, share, site, headers, move |site| {
        let r = find_recipe(site, &id)?;
        Ok(site.render_recipe(r, display)?)
    })
    .await
}

async fn api_list(
    State(site): State<Arc<Site>>,
    State(searches): State<SearchGate>,
    share: Option<Extension<Share>>,
    params: Result<Query<SearchParams>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let q = match query_text(params) {
        Ok(q) => q,
        Err(e) => return e.json(),
    };
    if q.trim().is_empty() {
        return site.all_json().respond(&headers);
    }
    let query = match crate::search::SearchQuery::parse_bounded(&q) {
        Ok(query) => query,
        Err(e) => return WebError::from(e).json(),
    };
    let cost = site.recipes().len() * query.terms.len().max(1);
    let answer = searches
        .run(cost, share.as_deref(), move || {
            dynamic(site.search_json(&query), "application/json", &headers)
        })
        .await;
    answer.unwrap_or_else(|e| WebError::from(e).json())
}

async fn api_recipe(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let found = find_recipe(&site, &id);
    match found.and_then(|r| serde_json::to_vec(r).map_err(|e| WebError::Internal(e.into()))) {
        Ok(body) => dynamic(body, "application/json", &headers),
        Err(e) => e.json(),
    }
}

async fn shelf(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.shelf_page().respond(&headers)
}

async fn api_ingredients(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.ingredients_json().respond(&headers)
}

async fn static_file(
    State(assets): State<Arc<Assets>>,
    State(site): State<Arc<Site>>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    match assets.respond(&file, &headers) {
        Some(response) => response,
        None => WebError::NotFound("There is no such file.".into()).page(&site),
    }
}

async fn service_worker(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.service_worker().respond(&headers)
}

async fn manifest(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.manifest().respond(&headers)
}

async fn not_found(State(site): State<Arc<Site>>) -> Response {
    WebError::NotFound("There is no page at this address.".into()).page(&site)
}

async fn method_not_allowed(State(site): State<Arc<Site>>) -> Response {
    WebError::MethodNotAllowed.page(&site)
}

/// Rejects what no page of ours can answer before any handler sees it: over-long targets
/// (414), bodies on a GET-only app (413), and paths that try to smuggle a separator or NUL
/// past routing (400).
async fn guard(
    State(limits): State<RequestLimits>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let plain = |status: StatusCode, text: &'static str| {
        (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response()
    };
    let target_len = request
        .uri()
        .path_and_query()
        .map_or(0, |pq| pq.as_str().len());
    if target_len > limits.max_uri_bytes {
        return plain(StatusCode::URI_TOO_LONG, "Request target too long.\n");
    }
    let path = request.uri().path().to_ascii_lowercase();
    if path.contains("%00") || path.contains("%2f") || path.contains("%5c") || path.contains('\\') {
        return plain(StatusCode::BAD_REQUEST, "Malformed path.\n");
    }
    if path.split('/').any(|segment| {
        segment == ".." || segment == "%2e%2e" || segment == ".%2e" || segment == "%2e."
    }) {
        return plain(StatusCode::BAD_REQUEST, "Malformed path.\n");
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let chunked = request.headers().contains_key(header::TRANSFER_ENCODING);
    // GET and HEAD carry no body: refuse one at once instead of waiting for it (a client
    // that announces five bytes and never sends them would otherwise hold the request).
    let bodiless = matches!(*request.method(), Method::GET | Method::HEAD);
    if (bodiless && (chunked || declared.is_some_and(|n| n > 0)))
        || declared.is_some_and(|n| n > limits.max_body_bytes as u64)
    {
        return plain(StatusCode::PAYLOAD_TOO_LARGE, "Request body too large.\n");
    }
    // Any other body is read whole, up to the limit and within the body timeout.
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limits.max_body_bytes);
    let bytes = match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return plain(StatusCode::PAYLOAD_TOO_LARGE, "Request body too large.\n"),
        Err(_) => {
            return plain(
                StatusCode::REQUEST_TIMEOUT,
                "Request body not sent in time.\n",
            );
        }
    };
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shed_search_says_when_to_retry() {
        let json = WebError::from(GateError::Busy).json();
        assert_eq!(json.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(json.headers()[header::RETRY_AFTER], "1");
        let not_allowed = WebError::MethodNotAllowed.json();
        assert_eq!(not_allowed.headers()[header::ALLOW], "GET, HEAD");
        assert!(!not_allowed.headers().contains_key(header::RETRY_AFTER));
    }

    #[test]
    fn a_refused_search_is_a_bad_request_with_the_reason() {
        let error = match crate::search::SearchQuery::parse_bounded(&"x".repeat(101)) {
            Err(e) => WebError::from(e),
            Ok(q) => panic!("a 101-character term was accepted: {q:?}"),
        };
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(error.public_message().contains("at most 100 characters"));
    }
}
