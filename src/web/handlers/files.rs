//! Handlers for files: the embedded assets under `/static/`, the service worker and the web
//! app manifest.

use crate::web::error::WebError;
use crate::web::site::{Assets, Site};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
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
/// name; anything else is 404, as if it did not exist.
pub(crate) async fn guest_asset(
    State(assets): State<Arc<Assets>>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    let allowed = assets
        .name_of(&file)
        .is_some_and(|name| GUEST_ASSETS.contains(&name));
    if !allowed {
        return Err(WebError::NotFound("There is no such file.".into()));
    }
    assets
        .respond(&file, &headers)
        .ok_or_else(|| WebError::NotFound("There is no such file.".into()))
}

/// `/sw.js`: the service worker, versioned by this build and this collection.
pub(crate) async fn service_worker(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.service_worker().respond(&headers)
}

/// `/manifest.webmanifest`: what an installed app is called and looks like.
pub(crate) async fn manifest(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.manifest().respond(&headers)
}
