//! The request guard: refuses what no page of ours can answer before any handler sees it,
//! with a plain-text reason: over-long targets (414), bodies on a GET or HEAD and bodies
//! over the limit (413: 1 KiB, or 256 KiB for a change), and
//! paths that try to smuggle a separator or NUL past routing (400).

use super::router::RequestLimits;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

const TOO_LARGE: &str = "Request body too large.\n";

/// Middleware: refuses a request [`refusal`] finds fault with; reads any other body whole,
/// up to the limit and within the body timeout, before the handler runs.
pub(crate) async fn guard(
    State(limits): State<RequestLimits>,
    request: Request,
    next: Next,
) -> Response {
    if let Some((status, reason)) = refusal(&request, &limits) {
        return plain(status, reason);
    }
    let limit = body_limit(&request, &limits);
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limit);
    let bytes = match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return plain(StatusCode::PAYLOAD_TOO_LARGE, TOO_LARGE),
        Err(_) => {
            return plain(
                StatusCode::REQUEST_TIMEOUT,
                "Request body not sent in time.\n",
            );
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Why a request is refused before its body is read, if it is: its target, its path or the
/// body it announces.
fn refusal(request: &Request, limits: &RequestLimits) -> Option<(StatusCode, &'static str)> {
    let target_len = request
        .uri()
        .path_and_query()
        .map_or(0, |pq| pq.as_str().len());
    if target_len > limits.max_uri_bytes {
        return Some((StatusCode::URI_TOO_LONG, "Request target too long.\n"));
    }
    if smuggles(request.uri().path()) {
        return Some((StatusCode::BAD_REQUEST, "Malformed path.\n"));
    }
    if announces_too_much(request, limits) {
        return Some((StatusCode::PAYLOAD_TOO_LARGE, TOO_LARGE));
    }
    None
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

/// A change (POST, PUT, DELETE) may carry a recipe; anything else gets the small limit.
fn body_limit(request: &Request, limits: &RequestLimits) -> usize {
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

fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}
