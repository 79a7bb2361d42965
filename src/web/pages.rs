//! Handlers for the HTML pages: the list and its searches, a recipe, and the pages for
//! addresses and methods we do not serve.

use super::cached::per_request;
use super::error::WebError;
use super::gate::SearchGate;
use super::params::{AmountParams, SearchParams, find_recipe, query_text};
use super::site::Site;
use crate::serve::Share;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use std::sync::Arc;

pub async fn index(
    State(site): State<Arc<Site>>,
    State(searches): State<SearchGate>,
    share: Option<Extension<Share>>,
    params: Result<Query<SearchParams>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let q = match query_text(params) {
        Ok(q) => q,
        Err(e) => return e.page(&site),
    };
    if q.trim().is_empty() {
        return site.list_page().respond(&headers);
    }
    let query = match crate::search::Query::parse_bounded(&q) {
        Ok(query) => query,
        Err(e) => return WebError::from(e).page(&site),
    };
    let cost = site.recipes().len() * query.terms.len().max(1);
    gated_page(&searches, cost, share, site, headers, move |site| {
        site.render_search(&q, query).map_err(WebError::from)
    })
    .await
}

/// An HTML page rendered per request through the gate ([`SearchGate::run`]), compressed for
/// the request; any error becomes the error page.
async fn gated_page(
    searches: &SearchGate,
    cost: usize,
    share: Option<Extension<Share>>,
    site: Arc<Site>,
    headers: HeaderMap,
    render: impl FnOnce(&Site) -> Result<String, WebError> + Send + 'static,
) -> Response {
    let rendering = site.clone();
    let answer = searches
        .run(cost, share.as_deref(), move || {
            let body = render(&rendering)?;
            Ok::<_, WebError>(per_request(body, "text/html; charset=utf-8", &headers))
        })
        .await;
    match answer.map_err(WebError::from).and_then(|answer| answer) {
        Ok(response) => response,
        Err(e) => e.page(&site),
    }
}

/// A recipe's page carries the whole list beside the recipe (for wide screens without
/// JavaScript): with thousands of recipes that is a megabyte to render and compress per
/// request, so it runs behind the same gate as searches.
pub async fn recipe(
    State(site): State<Arc<Site>>,
    State(searches): State<SearchGate>,
    share: Option<Extension<Share>>,
    Path(id): Path<String>,
    params: Result<Query<AmountParams>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let display = params
        .map_err(|rejection| {
            // serde names the problem: "duplicate field `units`", "invalid UTF-8".
            WebError::BadRequest(format!(
                "The address's units or servings could not be read: {}.",
                rejection.body_text()
            ))
        })
        .and_then(|Query(p)| p.display());
    let display = match display {
        Ok(display) => display,
        Err(e) => return e.page(&site),
    };
    let cost = site.recipes().len();
    gated_page(&searches, cost, share, site, headers, move |site| {
        let r = find_recipe(site, &id)?;
        Ok(site.render_recipe(r, display)?)
    })
    .await
}

pub async fn not_found(State(site): State<Arc<Site>>) -> Response {
    WebError::NotFound("There is no page at this address.".into()).page(&site)
}

pub async fn method_not_allowed(State(site): State<Arc<Site>>) -> Response {
    WebError::MethodNotAllowed.page(&site)
}
