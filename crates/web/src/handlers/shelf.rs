//! Handlers for the shelf: its page and the ingredients it offers, both rendered at load,
//! and a known person's page with the household's shelf ticked, rendered per request.

use crate::error::WebError;
use crate::http::cache_control::private_no_store;
use crate::site::Site;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{Html, IntoResponse, Response};
use std::sync::Arc;

/// `/shelf`: the bottles to tick, units, and moving a phone's choices. A person the
/// household knows gets the household's shelf ticked in the page itself, so that My bar
/// shows it before (and without) JavaScript; everyone else gets the page rendered at load,
/// whose boxes the browser ticks from the device's own shelf.
pub(crate) async fn page(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    visitor: Visitor,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    let Ok((db, _)) = home.person(&visitor) else {
        return Ok(site.shelf_page().respond(&headers));
    };
    let names = household_call(db, |db| db.shelf()).await?;
    let mut response = Html(site.shelf_page_ticked(&names)?).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, private_no_store());
    Ok(response)
}

/// `/api/ingredients`: every distinct ingredient, for the shelf's JavaScript.
pub(crate) async fn ingredients(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    site.ingredients_json().respond(&headers)
}
