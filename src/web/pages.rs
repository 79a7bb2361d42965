//! Handlers for the HTML pages: the list and its searches, a recipe, and the pages for
//! addresses and methods we do not serve. Errors answer as the site's error page.

use super::error::WebError;
use super::gate::SearchGate;
use super::identity::Visitor;
use super::params::{Amounts, RecipeId, Search, find_recipe};
use super::recent::Kind;
use super::router::AppState;
use super::site::Site;
use super::templates::EditControls;
use crate::connections::Share;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use std::sync::Arc;

/// `/`: the whole list, rendered at load; `/?q=…`: a search's, rendered per request.
pub(crate) async fn index(
    State(site): State<Arc<Site>>,
    State(searches): State<SearchGate>,
    share: Option<Extension<Share>>,
    search: Search,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    let Search::Matching { text, query } = search else {
        return Ok(site.list_page().respond(&headers));
    };
    if let Some(kept) = site.recent_answer(Kind::Page, &text, &headers) {
        return Ok(kept);
    }
    let cost = site.search_cost(&query);
    gated_page(
        &searches,
        cost,
        share,
        site,
        headers,
        move |site, headers| Ok(site.search_answer(&text, query, headers)?),
    )
    .await
}

/// `/recipes/{id}`. A recipe's page carries the whole list beside the recipe (for wide
/// screens without JavaScript): with thousands of recipes that is a megabyte to render and
/// compress per request, so it runs behind the same gate as searches.
pub(crate) async fn recipe(
    State(state): State<AppState>,
    share: Option<Extension<Share>>,
    visitor: Visitor,
    RecipeId(id): RecipeId,
    Amounts(display): Amounts,
    after: Result<Query<AfterSave>, QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    let (site, searches, editing) = (state.site.load_full(), state.searches, state.editing);
    let cost = site.recipes().len();
    let editor = editing.editor(&visitor).ok();
    let personal = editor.is_some();
    let saved = after.ok().and_then(|Query(a)| a.saved);
    let mut page = gated_page(
        &searches,
        cost,
        share,
        site,
        headers,
        move |site, headers| {
            let r = find_recipe(site, id)?;
            let controls = editor.map(|e| EditControls {
                csrf: e.token,
                version: crate::store::version(r),
                saved,
            });
            Ok(site.recipe_answer(r, display, controls, headers)?)
        },
    )
    .await?;
    if personal {
        // The page carries this person's form token: nobody else's cache may keep it.
        page.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("private, no-cache"),
        );
    }
    Ok(page)
}

/// `?saved=n` after a save: the page offers to undo change `n`.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct AfterSave {
    saved: Option<u64>,
}

/// An HTML page rendered per request through the gate ([`SearchGate::run`]), compressed for
/// the request.
async fn gated_page(
    searches: &SearchGate,
    cost: usize,
    share: Option<Extension<Share>>,
    site: Arc<Site>,
    headers: HeaderMap,
    render: impl FnOnce(&Site, &HeaderMap) -> Result<Response, WebError> + Send + 'static,
) -> Result<Response, WebError> {
    searches
        .run(cost, share.as_deref(), move || render(&site, &headers))
        .await?
}

/// Any address no route serves.
pub(crate) async fn not_found(uri: axum::http::Uri) -> WebError {
    if super::error::is_api(uri.path()) {
        WebError::NotFound("The API has nothing at this address.".into())
    } else {
        WebError::NotFound("There is no page at this address.".into())
    }
}

/// A route asked with a method it has no handler for; `Allow` is set by the router
/// ([`super::router::allowed`]), and the message says the same.
pub(crate) async fn method_not_allowed(
    method: axum::http::Method,
    route: Option<axum::extract::MatchedPath>,
    State(editing): State<Arc<super::editing::Editing>>,
) -> WebError {
    let route = route.as_ref().map_or("", |r| r.as_str());
    let takes = super::router::allowed(route, editing.writable().is_ok());
    WebError::MethodNotAllowed(if takes.is_empty() {
        "This address takes no method while the app is read-only: start it with \
         --allow-edits to add and edit recipes."
            .to_owned()
    } else {
        format!("This address takes {takes}, not {method}.")
    })
}
