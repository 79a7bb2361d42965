//! What an address asks for beyond its route, read once for every handler that needs it:
//! the search (`?q=`), how a recipe shows its amounts (`?units=&serves=`) and which recipe
//! a path names. A request that asks for something unreadable is a 400 (or 404) that says
//! what was wrong.

use crate::error::WebError;
use crate::recipes::Recipe;
use crate::site::Site;
use crate::units::{AmountView, MAX_SERVINGS, Unit};
use axum::extract::{FromRequestParts, Path, Query};
use axum::http::request::Parts;
use serde::Deserialize;

/// `?q=`: every recipe, or those a query matches. Wrap it in [`crate::error::Api`] for a
/// JSON refusal.
pub(crate) enum Search {
    All,
    Matching {
        /// The search as typed, shown back in the search box.
        text: String,
        query: crate::search::SearchQuery,
    },
}

#[derive(Debug, Deserialize)]
struct SearchParams {
    #[serde(default)]
    q: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Search {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Search, WebError> {
        let Query(SearchParams { q }) =
            Query::from_request_parts(parts, state).await.map_err(|_| {
                WebError::BadRequest("The search could not be read from the address.".into())
            })?;
        if q.trim().is_empty() {
            return Ok(Search::All);
        }
        let query = crate::search::SearchQuery::parse_bounded(&q)?;
        Ok(Search::Matching { text: q, query })
    }
}

/// `?units=oz&serves=4` (both optional): how a recipe page shows its amounts.
pub(crate) struct Amounts(pub(crate) AmountView);

#[derive(Debug, Default, Deserialize)]
struct AmountParams {
    #[serde(default)]
    units: String,
    #[serde(default)]
    serves: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Amounts {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Amounts, WebError> {
        let Query(params) = Query::<AmountParams>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| {
                // serde names the problem: "duplicate field `units`", "invalid UTF-8".
                WebError::BadRequest(format!(
                    "The address's units or servings could not be read: {}.",
                    rejection.body_text()
                ))
            })?;
        params.display().map(Amounts)
    }
}

impl AmountParams {
    fn display(&self) -> Result<AmountView, WebError> {
        let unit = match self.units.trim() {
            "" => None,
            name => Some(Unit::from_name(name).ok_or_else(|| {
                WebError::BadRequest(format!(
                    "units must be ml, oz or cl, not \u{201c}{name}\u{201d}."
                ))
            })?),
        };
        let servings = match self.serves.trim() {
            "" => 1,
            text => text
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_SERVINGS).contains(n))
                .ok_or_else(|| {
                    WebError::BadRequest(format!(
                        "serves must be a whole number from 1 to {MAX_SERVINGS}, not \u{201c}{text}\u{201d}."
                    ))
                })?,
        };
        Ok(AmountView { unit, servings })
    }
}

/// The recipe with id `id`, or a 404 that says there is none.
pub(crate) fn find_recipe(site: &Site, id: u64) -> Result<&Recipe, WebError> {
    site.recipes()
        .get(id)
        .ok_or_else(|| WebError::NotFound(format!("There is no recipe with id {id}.")))
}

/// The recipe id a path names (`/recipes/{id}`, `/api/recipes/{id}/…`). Anything but a
/// whole number is a 404 that says so in words, where axum's own refusal is a 400 naming
/// Rust's types (`Cannot parse "abc" to a "u64"`). Wrap it in [`crate::error::Api`] for the
/// API's JSON.
pub(crate) struct RecipeId(pub(crate) u64);

/// A photo of a recipe (`/api/recipes/{id}/photos/{photo}`): both whole numbers, or a 404
/// saying which is not.
pub(crate) struct PhotoPath(pub(crate) u64, pub(crate) i64);

impl<S: Send + Sync> FromRequestParts<S> for PhotoPath {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<PhotoPath, WebError> {
        let not = |what: &str| {
            WebError::NotFound(format!("This address has no {what} where one belongs."))
        };
        let Path((recipe, photo)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|_| not("recipe id or photo id"))?;
        let recipe = recipe.parse().map_err(|_| not("recipe id"))?;
        let photo = photo.parse().map_err(|_| not("photo id"))?;
        Ok(PhotoPath(recipe, photo))
    }
}

/// The number of a change in the history (`/changes/{n}/undo`), read as [`RecipeId`] is.
pub(crate) struct ChangeNumber(pub(crate) u64);

impl<S: Send + Sync> FromRequestParts<S> for RecipeId {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<RecipeId, WebError> {
        whole_number(parts, state, "recipe id").await.map(RecipeId)
    }
}

/// The id of a guest menu (`/api/menus/{id}`), read as [`RecipeId`] is.
pub(crate) struct MenuId(pub(crate) u64);

impl<S: Send + Sync> FromRequestParts<S> for MenuId {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<MenuId, WebError> {
        whole_number(parts, state, "menu id").await.map(MenuId)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ChangeNumber {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<ChangeNumber, WebError> {
        whole_number(parts, state, "change number")
            .await
            .map(ChangeNumber)
    }
}

/// The route's one path parameter as a whole number, or why it is not `what`.
async fn whole_number<S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    what: &str,
) -> Result<u64, WebError> {
    // Percent-decoding fails on what is no UTF-8 (`%ff`).
    let Path(segment) = Path::<String>::from_request_parts(parts, state)
        .await
        .map_err(|_| {
            WebError::NotFound(format!(
                "This address has no {what} where one belongs (what is there is not UTF-8 text)."
            ))
        })?;
    segment.parse().map_err(|_| {
        WebError::NotFound(format!(
            "{} is not a {what} (a whole number).",
            shown(&segment)
        ))
    })
}

/// A path segment as a message quotes it: in quotes, and cut at 40 characters.
fn shown(segment: &str) -> String {
    let mut chars = segment.chars();
    let head: String = chars.by_ref().take(40).collect();
    let more = if chars.next().is_some() { "…" } else { "" };
    format!("\"{head}{more}\"")
}
