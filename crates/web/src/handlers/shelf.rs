//! Handlers for the shelf: its page and the ingredients it offers, both rendered at load.

use crate::site::Site;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use std::sync::Arc;

/// `/shelf`: units, the ingredients to tick, export and import.
pub(crate) async fn page(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.shelf_page().respond(&headers)
}

/// `/api/ingredients`: every distinct ingredient, for the shelf's JavaScript.
pub(crate) async fn ingredients(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.ingredients_json().respond(&headers)
}
