//! Handlers for files: the embedded assets under `/static/`, the service worker and the web
//! app manifest.

use crate::error::WebError;
use crate::site::{Assets, Site};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// `/static/<file>`, by hashed or plain name (see [`Assets`]).
pub(crate) async fn asset(
    State(assets): State<Arc<Assets>>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    assets
        .respond(&file, &headers)
        .ok_or_else(|| WebError::NotFound("There is no such file.".into()))
}

/// Any other address on the guests' own listener (Funnel): a bare 404, with nothing of
/// the app's pages in it (no search box, no links, no name of the collection).
pub(crate) async fn guest_not_found() -> Response {
    (axum::http::StatusCode::NOT_FOUND, "Not found.\n").into_response()
}

/// `/sw.js`: the service worker, versioned by this build and this collection.
pub(crate) async fn service_worker(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.service_worker().respond(&headers)
}

/// `/manifest.webmanifest`: what an installed app is called and looks like.
pub(crate) async fn manifest(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.manifest().respond(&headers)
}
