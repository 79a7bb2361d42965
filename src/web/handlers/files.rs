//! Handlers for files: the embedded assets under `/static/`, the service worker and the web
//! app manifest.

use crate::web::error::WebError;
use crate::web::site::{Assets, Site};
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

/// The assets the guests' page uses, by their plain names: on the guests' own listener
/// (Funnel) nothing else under `/static/` answers. A module the page loads goes here too,
/// as `js/<name>.js`, with every module it imports.
pub(crate) const GUEST_ASSETS: &[&str] = &["app.css", "icon.svg", "glasses.svg"];

/// `/static/<file>` on the guests' listener: only [`GUEST_ASSETS`], by hashed or plain
/// name; anything else is the same bare 404 as every other address there.
pub(crate) async fn guest_asset(
    State(assets): State<Arc<Assets>>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let allowed = assets
        .name_of(&file)
        .is_some_and(|name| GUEST_ASSETS.contains(&name));
    match allowed.then(|| assets.respond(&file, &headers)).flatten() {
        Some(response) => response,
        None => guest_not_found().await,
    }
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
