//! The request guard: refuses what no page of ours can answer before any handler sees it,
//! with the reason in plain text (under `/api/`, in the API's JSON): over-long targets
//! (414), bodies on a GET or HEAD and bodies over the limit (413: 1 KiB, 256 KiB for a
//! change, 8 MiB for a household backup, a bulk save or an import), bodies not sent in time (408), and paths that try to smuggle a separator or NUL
//! past routing (400).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

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

/// Middleware: refuses a request [`refusal`] finds fault with; reads any other body whole,
/// up to the limit and within the body timeout, before the handler runs.
pub(crate) async fn guard(
    State(limits): State<RequestLimits>,
    request: Request,
    next: Next,
) -> Response {
    let api = is_api(request.uri().path());
    if let Some((status, reason)) = refusal(&request, &limits) {
        return refuse(api, status, &reason);
    }
    let limit = body_limit(&request, &limits);
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limit);
    let bytes = match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return refuse(api, StatusCode::PAYLOAD_TOO_LARGE, &too_large(limit)),
        Err(_) => {
            let reason = "The request body was not sent in time.";
            return refuse(api, StatusCode::REQUEST_TIMEOUT, reason);
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Why a request is refused before its body is read, if it is: its target, its path or the
/// body it announces.
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
    if announces_too_much(request, limits) {
        let reason = if matches!(*request.method(), Method::GET | Method::HEAD) {
            "A GET or HEAD request carries no body.".to_owned()
        } else {
            too_large(body_limit(request, limits))
        };
        return Some((StatusCode::PAYLOAD_TOO_LARGE, reason));
    }
    None
}

fn too_large(limit: usize) -> String {
    format!("The request body is larger than the {limit} bytes allowed here.")
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

/// The household's backup may be up to 8 MiB (`household::BACKUP_BYTES`).
const UPLOAD_PATH: &str = "/api/household/upload";

/// Many recipes at once (`POST /api/recipes/bulk`, `/recipes/import/save`) and what is
/// imported (`POST /api/import`, `/recipes/import`: a collection, a zip of one, a page)
/// may be up to 8 MiB too.
const IMPORT_PATHS: [&str; 4] = [
    "/api/recipes/bulk",
    "/api/import",
    "/recipes/import",
    "/recipes/import/save",
];

/// A change (POST, PUT, DELETE) may carry a recipe; a household backup, a bulk save or an
/// import more; anything else gets the small limit.
fn body_limit(request: &Request, limits: &RequestLimits) -> usize {
    let path = request.uri().path();
    if request.method() == Method::POST && (path == UPLOAD_PATH || IMPORT_PATHS.contains(&path)) {
        return limits.max_write_bytes.max(8 << 20);
    }
    match *request.method() {
        Method::POST | Method::PUT | Method::DELETE => limits.max_write_bytes,
        _ => limits.max_body_bytes,
    }
}

/// A body on a GET or HEAD, or one declared larger than the limit. GET and HEAD carry no
/// body: refusing one at once beats waiting for it (a client that announces five bytes and
/// never sends them would otherwise hold the request).
fn announces_too_much(request: &Request, limits: &RequestLimits) -> bool {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let chunked = request.headers().contains_key(header::TRANSFER_ENCODING);
    let bodiless = matches!(*request.method(), Method::GET | Method::HEAD);
    (bodiless && (chunked || declared.is_some_and(|n| n > 0)))
        || declared.is_some_and(|n| n > body_limit(request, limits) as u64)
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
