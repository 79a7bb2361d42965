//! Handlers for the JSON API: all recipes or a search's, and one recipe. Errors answer as
//! JSON ([`Api`]).

use super::params::{RecipeId, Search, find_recipe};
use crate::connections::Share;
use crate::error::{Api, WebError};
use crate::guard::gate::HeavyGate;
use crate::http::cache_control;
use crate::http::fixed::per_request_as;
use crate::http::recent::Kind;
use crate::site::Site;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::IntoResponse;
use axum::response::Response;
use std::sync::Arc;

/// `/api/recipes`: every recipe, encoded at load; `?q=…`: a search's, encoded per request
/// (personal terms answered for a person, as [`super::pages::index`] does).
pub(crate) async fn list(
    State(site): State<Arc<Site>>,
    State(heavy): State<HeavyGate>,
    State(home): State<Arc<HouseholdDoor>>,
    share: Option<Extension<Share>>,
    visitor: Visitor,
    Api(search): Api<Search>,
    headers: HeaderMap,
) -> Result<Response, Api<WebError>> {
    let Search::Matching { text, query } = search else {
        return Ok(site.all_json().respond(&headers));
    };
    if Site::is_kept(&query)
        && let Some(kept) = site.recent_answer(Kind::Json, &text, &headers)
    {
        return Ok(kept);
    }
    let asking = home.asking(&visitor, &query).await?;
    let cost = site.search_cost(&query);
    let response = heavy
        .run(cost, share.as_deref(), move || {
            let mine = asking.as_ref().map(crate::household::Asking::as_asker);
            site.search_json_answer(&text, &query, mine.as_ref(), &headers)
        })
        .await??;
    Ok(response)
}

/// `/api/recipes/{id}`: one recipe, and with a household its ratings.
///
/// The ETag is the recipe's version (what `If-Match` must send back to change it). With a
/// household, its ratings and its own strengths change the answer without changing the
/// recipe: the answer is then sent whole every time (`no-cache`, no 304), as it is small.
///
/// `?format=jsonld|markdown|bar-assistant` answers it in that format instead
/// ([`super::import`]).
pub(crate) async fn recipe(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    Api(RecipeId(id)): Api<RecipeId>,
    uri: axum::http::Uri,
    headers: HeaderMap,
) -> Result<Response, Api<WebError>> {
    let recipe = find_recipe(&site, id)?;
    if let Some(format) = super::import::format(uri.query())? {
        let selection = crate::import::Selection::One(recipe);
        return Ok(super::import::export_response(selection, format)?);
    }
    let version = crate::store::version(recipe);
    let mut body = serde_json::to_value(recipe)?;
    body["strength"] = serde_json::to_value(site.strengths().of_id(id))?;
    let Some(db) = home.db().cloned() else {
        // Without a household its strength changes only with the recipe (and the binary's
        // table): the answer may be kept and compressed, under the recipe's version.
        let body = serde_json::to_vec(&body)?;
        return Ok(per_request_as(
            body,
            "application/json",
            &headers,
            Some(version),
        ));
    };
    let (ratings, photos) =
        household_call(db, move |db| Ok((db.ratings_of(id)?, db.photos(id)?))).await?;
    body["ratings"] = serde_json::to_value(ratings)?;
    body["photos"] = photos.iter().map(super::photos::shown).collect();
    let mut response = axum::Json(body).into_response();
    let etag = HeaderValue::from_str(&format!("\"{version}\""))
        .map_err(|_| WebError::BadRequest("no ETag".into()))?;
    let h = response.headers_mut();
    h.insert(header::ETAG, etag);
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control::REVALIDATE),
    );
    Ok(response)
}
