//! What an address asks for beyond its route: the search text (`?q=`), how a recipe shows
//! its amounts (`?units=&serves=`) and which recipe a path names.

use super::error::WebError;
use super::site::Site;
use crate::recipes::Recipe;
use crate::units::{Display, MAX_SERVINGS, Unit};
use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct SearchParams {
    #[serde(default)]
    q: String,
}

pub fn query_text(params: Result<Query<SearchParams>, QueryRejection>) -> Result<String, WebError> {
    params
        .map(|Query(p)| p.q)
        .map_err(|_| WebError::BadRequest("The search could not be read from the address.".into()))
}

/// The recipe a path segment names; anything else (not a number, unknown id) is a 404.
pub fn find_recipe<'s>(site: &'s Site, id: &str) -> Result<&'s Recipe, WebError> {
    id.parse()
        .ok()
        .and_then(|n| site.recipes().get(n))
        .ok_or_else(|| WebError::NotFound(format!("There is no recipe with id {id}.")))
}

/// How a recipe page shows amounts: `?units=oz&serves=4` (both optional).
#[derive(Debug, Default, Deserialize)]
pub struct AmountParams {
    #[serde(default)]
    units: String,
    #[serde(default)]
    serves: String,
}

impl AmountParams {
    pub fn display(&self) -> Result<Display, WebError> {
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
        Ok(Display { unit, servings })
    }
}
