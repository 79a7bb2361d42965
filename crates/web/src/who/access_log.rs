//! `--access-log`: one line per request with the visitor's login.
//!
//! In `who` because the login is the point of it: the metrics already count requests, this
//! says whose they were.

use super::identity::Resolve;
use super::visitor::Visitor;
use axum::extract::{FromRequestParts, State};
use axum::response::Response;
use std::sync::Arc;
use std::time::Instant;

/// Middleware for `--access-log`: one line per request with its method, path, status,
/// time taken and login (never the query, which can hold what someone searched for).
pub(crate) async fn access_log(
    State(who): State<Arc<dyn Resolve>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let Ok(visitor) = Visitor::from_request_parts(&mut parts, &who).await;
    let (method, path) = (parts.method.clone(), parts.uri.path().to_owned());
    let started = Instant::now();
    let response = next
        .run(axum::extract::Request::from_parts(parts, body))
        .await;
    let login = visitor
        .0
        .as_ref()
        .map(|i| i.login.clone().unwrap_or_else(|| i.tags.join(",")));
    tracing::info!(
        target: "libations::access",
        %method,
        %path,
        status = response.status().as_u16(),
        micros = started.elapsed().as_micros() as u64,
        login = %login.as_deref().unwrap_or("-"),
        "request"
    );
    response
}
