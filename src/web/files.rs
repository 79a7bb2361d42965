//! Handlers for files: the embedded assets under `/static/`, the service worker and the web
//! app manifest.

use super::assets::Assets;
use super::error::WebError;
use super::site::Site;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use std::sync::Arc;

/// `/static/<file>`, by hashed or plain name (see [`Assets`]).
pub async fn asset(
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

pub async fn service_worker(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.service_worker().respond(&headers)
}

pub async fn manifest(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.manifest().respond(&headers)
}
