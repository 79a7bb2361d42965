//! Handlers for the JSON API: all recipes or a search's, and one recipe.

use super::cached::per_request;
use super::error::WebError;
use super::gate::SearchGate;
use super::params::{SearchParams, find_recipe, query_text};
use super::site::Site;
use crate::serve::Share;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use std::sync::Arc;

pub async fn list(
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
    let query = match crate::search::Query::parse_bounded(&q) {
        Ok(query) => query,
        Err(e) => return WebError::from(e).json(),
    };
    let cost = site.recipes().len() * query.terms.len().max(1);
    let answer = searches
        .run(cost, share.as_deref(), move || {
            per_request(site.search_json(&query), "application/json", &headers)
        })
        .await;
    answer.unwrap_or_else(|e| WebError::from(e).json())
}

pub async fn recipe(
    State(site): State<Arc<Site>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let found = find_recipe(&site, &id);
    match found.and_then(|r| serde_json::to_vec(r).map_err(|e| WebError::Internal(e.into()))) {
        Ok(body) => per_request(body, "application/json", &headers),
        Err(e) => e.json(),
    }
}
