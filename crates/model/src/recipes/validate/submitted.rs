//! A recipe submitted to be saved (a form or the API), checked as an object.
//!
//! Why its own room: the store needs the loader's verdict on one recipe, in the store's
//! terms (a [`FieldError`] per field path), and nothing a file may load with only a
//! warning (another case, an unknown key) is let into an edit. The object is checked
//! directly, by the reporting validator's rules and words ([`report::check_items`]), as if
//! it were the only recipe of a file: no text is written and parsed again. Invisible
//! characters are left to the caller (`recipes::caps` names them in its own words).

use super::super::{LoadError, Origin, Problem, Recipe};
use super::json::Json;
use super::report;
use serde::Serialize;

/// One problem with a submitted recipe, named by its field path (`name`,
/// `ingredients[2].unit`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

/// Validates one recipe object (as a form or the API sends it) with the loader's rules.
/// Returns the recipe, or every problem, then every warning, as a [`FieldError`]: what a
/// file would load with a warning (an unknown key, a key in another case) is a problem
/// here.
pub fn check_one(object: &serde_json::Value) -> Result<Recipe, Vec<FieldError>> {
    let item = Json::from(object);
    let as_error = |p: &Problem| FieldError {
        field: p.field.clone().unwrap_or_default(),
        message: p.message.clone(),
    };
    match report::check_items(std::slice::from_ref(&item), &[1], &Origin::Embedded, false) {
        Ok(parsed) if parsed.warnings.is_empty() => {
            parsed.recipes.into_iter().next().ok_or_else(|| {
                vec![FieldError {
                    field: String::new(),
                    message: "expected one recipe".to_owned(),
                }]
            })
        }
        Ok(parsed) => Err(parsed.warnings.iter().map(as_error).collect()),
        Err(LoadError::Invalid {
            problems, warnings, ..
        }) => Err(problems.iter().chain(&warnings).map(as_error).collect()),
        Err(other) => Err(vec![FieldError {
            field: String::new(),
            message: other.to_string(),
        }]),
    }
}
