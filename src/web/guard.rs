//! The request guard: refuses what no page of ours can answer before routing sees it.

use super::router::RequestLimits;
use axum::extract::State;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Rejects what no page of ours can answer before any handler sees it: over-long targets
/// (414), bodies on a GET-only app (413), and paths that try to smuggle a separator or NUL
/// past routing (400).
pub(crate) async fn guard(
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
