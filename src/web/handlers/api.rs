//! Handlers for the JSON API: all recipes or a search's, and one recipe. Errors answer as
//! JSON ([`Api`]).

use super::params::{RecipeId, Search, find_recipe};
use crate::connections::Share;
use crate::web::error::{Api, WebError};
use crate::web::guard::gate::HeavyGate;
use crate::web::http::fixed::per_request;
use crate::web::http::recent::Kind;
use crate::web::site::Site;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use std::sync::Arc;

const JSON: &str = "application/json";

/// `/api/recipes`: every recipe, encoded at load; `?q=…`: a search's, encoded per request.
pub(crate) async fn list(
    State(site): State<Arc<Site>>,
    State(heavy): State<HeavyGate>,
    share: Option<Extension<Share>>,
    Api(search): Api<Search>,
    headers: HeaderMap,
) -> Result<Response, Api<WebError>> {
    let Search::Matching { text, query } = search else {
        return Ok(site.all_json().respond(&headers));
    };
    if let Some(kept) = site.recent_answer(Kind::Json, &text, &headers) {
        return Ok(kept);
    }
    let cost = site.search_cost(&query);
    let response = heavy
        .run(cost, share.as_deref(), move || {
            site.search_json_answer(&text, &query, &headers)
        })
        .await??;
    Ok(response)
}

/// `/api/recipes/{id}`: one recipe.
pub(crate) async fn recipe(
    State(site): State<Arc<Site>>,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
) -> Result<Response, Api<WebError>> {
    let body = serde_json::to_vec(find_recipe(&site, id)?)?;
    Ok(per_request(body, JSON, &headers))
}
