//! The request guard: refuses what no page of ours can answer before any handler sees it,
//! with the reason in plain text (under `/api/`, in the API's JSON): over-long targets
//! (414), bodies on a GET or HEAD and bodies over the route's limit (413, naming the limit
//! in bytes), bodies not sent in time (408), paths that try to smuggle a separator or NUL
//! past routing (400), and bodies the process has no memory budget left for (503).
//!
//! Each route's body limit is set where the route is (`web::router`): 1 KiB, 256 KiB for a
//! change ([`small_body`] reads those whole before the handler), and [`LARGE_BODY_BYTES`]
//! for a household backup, a bulk save or an import. Those large bodies are not read here:
//! [`large_body`] only refuses one announced too large (a page's form goes on, marked, for
//! its handler to say so on its own page: [`Oversize`]), and the handler reads it
//! ([`read`]) after it has checked who is asking, so that a visitor without the grant is
//! refused without a byte of it held. Every body read counts against one budget for the
//! whole process ([`BodyBudget`]): a body beyond it gets 503 with `Retry-After`, at once.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body::Body as _;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The largest body of a household backup, a bulk save or an import: the backup's own cap,
/// so that every backup the app lets in can be loaded back.
pub(crate) const LARGE_BODY_BYTES: usize = crate::household::BACKUP_BYTES;

/// A photo's body: as large as a photo may be (`libations_photos::MAX_BYTES`).
pub(crate) const PHOTO_BODY_BYTES: usize = libations_photos::MAX_BYTES;

/// Bytes of request bodies held at once, all connections together, unless
/// `--max-buffered-body-bytes` says otherwise: eight of the largest bodies.
pub const BUFFERED_BODY_BYTES: usize = 8 * LARGE_BODY_BYTES;

/// Bounds on a single request that the router enforces (the connection layer enforces
/// header size and timing), and the memory budget all request bodies share.
#[derive(Debug, Clone)]
pub struct RequestLimits {
    pub max_uri_bytes: usize,
    pub max_body_bytes: usize,
    /// The largest body of a change (POST, PUT, DELETE): a recipe at every cap, form-encoded
    /// (5,000 characters of notes in another script are some 45 KB on their own).
    pub max_write_bytes: usize,
    /// How long a client may take to send a request body it announced.
    pub body_timeout: std::time::Duration,
    /// What every body read takes its bytes from.
    pub buffered: BodyBudget,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits {
            max_uri_bytes: 8192,
            max_body_bytes: 1024,
            max_write_bytes: 256 * 1024,
            body_timeout: std::time::Duration::from_secs(10),
            buffered: BodyBudget::new(BUFFERED_BODY_BYTES),
        }
    }
}

impl RequestLimits {
    /// The same limits with a budget of `bytes` for the bodies held at once.
    pub fn with_body_budget(self, bytes: usize) -> RequestLimits {
        RequestLimits {
            buffered: BodyBudget::new(bytes),
            ..self
        }
    }
}

/// Bytes of request bodies the process may hold at once; one per process, shared by every
/// clone. A body takes its announced length (or, announcing none, its route's limit) before
/// a byte of it is read, and gives it back when the request is answered.
#[derive(Debug, Clone)]
pub struct BodyBudget {
    bytes: Arc<Semaphore>,
    total: usize,
}

impl BodyBudget {
    fn new(total: usize) -> BodyBudget {
        let total = total.clamp(1, Semaphore::MAX_PERMITS);
        BodyBudget {
            bytes: Arc::new(Semaphore::new(total)),
            total,
        }
    }

    /// `bytes` taken from the budget, or none left: never waits.
    fn take(&self, bytes: usize) -> Result<Option<OwnedSemaphorePermit>, BodyError> {
        if bytes == 0 {
            return Ok(None);
        }
        let n = u32::try_from(bytes.min(self.total)).map_err(|_| BodyError::Spent)?;
        self.bytes
            .clone()
            .try_acquire_many_owned(n)
            .map(Some)
            .map_err(|_| BodyError::Spent)
    }
}

/// Why a body was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BodyError {
    #[error("The request body is larger than the {0} bytes allowed here.")]
    TooLarge(usize),
    #[error("The request body was not sent in time.")]
    Late,
    #[error(
        "The server is holding as many request bodies as it has memory for. Try again in a moment."
    )]
    Spent,
}

impl BodyError {
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            BodyError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            BodyError::Late => StatusCode::REQUEST_TIMEOUT,
            BodyError::Spent => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The refusal as the guard sends it (a 503 says when to try again).
    fn refusal(&self, api: bool) -> Response {
        let mut response = refuse(api, self.status(), &self.to_string());
        if matches!(self, BodyError::Spent) {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// A body read whole, with the part of the budget it holds until it is dropped: keep it
/// for as long as the bytes (or what is parsed from them) are in memory.
#[derive(Debug)]
pub(crate) struct Read {
    pub bytes: Bytes,
    _held: Option<OwnedSemaphorePermit>,
}

/// The largest body a route takes, as its route layer set it ([`large_body`]).
#[derive(Debug, Clone, Copy)]
struct BodyLimit(usize);

/// A page's form (not the API) announced a body over its route's limit: [`read`] refuses
/// it without reading a byte, and the handler says so on its own page, with the way back
/// (a photo too large goes back to its recipe), rather than the guard's one line of text.
#[derive(Debug, Clone, Copy)]
struct Oversize(usize);

/// Middleware around every route: refuses a request [`refusal`] finds fault with, before
/// any body is read.
pub(crate) async fn guard(
    State(limits): State<RequestLimits>,
    request: Request,
    next: Next,
) -> Response {
    if let Some((status, reason)) = refusal(&request, &limits) {
        return refuse(is_api(request.uri().path()), status, &reason);
    }
    next.run(request).await
}

/// Route layer for the routes with small bodies: reads the body whole, up to the limit
/// (1 KiB; 256 KiB for a change), within the body timeout and the budget, before the
/// handler runs.
pub(crate) async fn small_body(
    State(limits): State<RequestLimits>,
    request: Request,
    next: Next,
) -> Response {
    let api = is_api(request.uri().path());
    let limit = small_limit(request.method(), &limits);
    let (parts, body) = request.into_parts();
    let read = match read_limited(&limits, body, limit).await {
        Ok(read) => read,
        Err(e) => return e.refusal(api),
    };
    let response = next
        .run(Request::from_parts(parts, Body::from(read.bytes.clone())))
        .await;
    drop(read);
    response
}

/// Route layer for the routes that take a large body (`limit` bytes): refuses one announced
/// larger at once under `/api/` (a page's form: see [`Oversize`]), and leaves the body for
/// the handler to [`read`] once it knows who asks.
pub(crate) async fn large_body(
    State(limit): State<usize>,
    mut request: Request,
    next: Next,
) -> Response {
    if declared(&request).is_some_and(|n| n > limit as u64) {
        if is_api(request.uri().path()) {
            return BodyError::TooLarge(limit).refusal(true);
        }
        request.extensions_mut().insert(Oversize(limit));
    }
    request.extensions_mut().insert(BodyLimit(limit));
    next.run(request).await
}

/// Reads a large route's body, up to its limit, within the body timeout and the budget:
/// what its handler calls once the visitor may send it.
pub(crate) async fn read(limits: &RequestLimits, request: Request) -> Result<Read, BodyError> {
    if let Some(Oversize(limit)) = request.extensions().get::<Oversize>() {
        return Err(BodyError::TooLarge(*limit));
    }
    let limit = request
        .extensions()
        .get::<BodyLimit>()
        .map_or(limits.max_write_bytes, |l| l.0);
    read_limited(limits, request.into_body(), limit).await
}

/// The body, at most `limit` bytes, within the timeout, holding its share of the budget.
async fn read_limited(limits: &RequestLimits, body: Body, limit: usize) -> Result<Read, BodyError> {
    let hint = body.size_hint();
    let expected = hint.exact().map_or(limit as u64, |n| n.min(limit as u64));
    let held = limits
        .buffered
        .take(usize::try_from(expected).unwrap_or(limit))?;
    let reading = axum::body::to_bytes(body, limit);
    match tokio::time::timeout(limits.body_timeout, reading).await {
        Ok(Ok(bytes)) => Ok(Read { bytes, _held: held }),
        Ok(Err(_)) => Err(BodyError::TooLarge(limit)),
        Err(_) => Err(BodyError::Late),
    }
}

/// Why a request is refused before its body is read, if it is: its target, its path, or a
/// body on a GET or HEAD, or one announced over even the largest limit.
fn refusal(request: &Request, limits: &RequestLimits) -> Option<(StatusCode, String)> {
    let target_len = request
        .uri()
        .path_and_query()
        .map_or(0, |pq| pq.as_str().len());
    if target_len > limits.max_uri_bytes {
        let reason = format!(
            "The request target (path and query) is longer than the {} bytes allowed.",
            limits.max_uri_bytes
        );
        return Some((StatusCode::URI_TOO_LONG, reason));
    }
    if smuggles(request.uri().path()) {
        let reason = "The path has an encoded slash, backslash or NUL, a backslash, or a \
                      \"..\" segment, which no address here has.";
        return Some((StatusCode::BAD_REQUEST, reason.to_owned()));
    }
    let declared = declared(request);
    let chunked = request.headers().contains_key(header::TRANSFER_ENCODING);
    let bodiless = matches!(*request.method(), Method::GET | Method::HEAD);
    if bodiless && (chunked || declared.is_some_and(|n| n > 0)) {
        let reason = "A GET or HEAD request carries no body.".to_owned();
        return Some((StatusCode::PAYLOAD_TOO_LARGE, reason));
    }
    // Over every route's limit. A page's POST goes on: its route's layer refuses it, or
    // lets its handler say why on a page ([`Oversize`]); no body is read past that limit.
    let most = PHOTO_BODY_BYTES
        .max(LARGE_BODY_BYTES)
        .max(limits.max_write_bytes);
    let page_form = request.method() == Method::POST && !is_api(request.uri().path());
    if !page_form && declared.is_some_and(|n| n > most as u64) {
        return Some((StatusCode::PAYLOAD_TOO_LARGE, too_large(most)));
    }
    None
}

fn too_large(limit: usize) -> String {
    BodyError::TooLarge(limit).to_string()
}

/// A path with an encoded NUL, slash or backslash, a backslash, or a parent-directory
/// segment (plain or encoded).
fn smuggles(path: &str) -> bool {
    let path = path.to_ascii_lowercase();
    path.contains("%00")
        || path.contains("%2f")
        || path.contains("%5c")
        || path.contains('\\')
        || path.split('/').any(|segment| {
            segment == ".." || segment == "%2e%2e" || segment == ".%2e" || segment == "%2e."
        })
}

/// A small route's limit: a change (POST, PUT, DELETE) may carry a recipe; anything else
/// gets the small limit.
fn small_limit(method: &Method, limits: &RequestLimits) -> usize {
    match *method {
        Method::POST | Method::PUT | Method::DELETE => limits.max_write_bytes,
        _ => limits.max_body_bytes,
    }
}

/// The length the request announces (`Content-Length`), if it does.
pub(crate) fn declared(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// The refusal: the API's JSON under `/api/`, plain text (one line) elsewhere.
pub(crate) fn refuse(api: bool, status: StatusCode, reason: &str) -> Response {
    if api {
        return json_error(status, reason);
    }
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{reason}\n"),
    )
        .into_response()
}

/// Whether `path` is the API's, whose refusals are all JSON (`super::super::error` too).
pub(crate) fn is_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

/// The API's refusal, `{"error": message}`, for what refuses a request before a handler
/// sees it (the request guard).
pub(crate) fn json_error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}
