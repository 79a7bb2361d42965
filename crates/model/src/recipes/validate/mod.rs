//! Validating recipes: the entry points that turn recipes text into recipes
//! ([`Recipe`](super::Recipe)), with every problem and warning in its place, and check a
//! submitted recipe.
//!
//! Why a folder: what a valid recipe is ([`rules`]) is asked by three checkers, and each
//! has a reason to exist. The rooms, with arrows one way (none points back up):
//!
//! - [`fast`]: a valid, exact file (the usual case) read straight into the model → `rules`;
//! - [`report`]: everything else, every problem and warning with file, recipe and field
//!   → `rules`, `keys`, `json`, `lines`;
//! - [`submitted`]: one recipe sent to be saved, as the store's field errors → `report`,
//!   `json`;
//! - [`rules`]: the one rule set; [`keys`]: keys as the Go original matched them, and
//!   hints; [`json`]: a JSON value that keeps repeated keys (the one duplicate-key-keeping
//!   reader: `strict_json` builds the write bodies' `Value` on it too); [`lines`]: where each recipe
//!   starts in the text.

mod fast;
mod json;
mod keys;
mod lines;
mod report;
mod rules;
mod submitted;
#[cfg(test)]
mod tests;

use super::{LoadError, Origin};

pub(crate) use json::Json;
pub use keys::fold_eq;
pub(crate) use report::Parsed;
pub use report::{Problem, RecipeRef};
pub use rules::{INGREDIENT_FIELDS, LIST_FIELDS, RECIPE_FIELDS, is_recipe_field};
pub use submitted::{FieldError, check_one};

/// `id` if it is small enough to be a recipe's id; otherwise why not (the rule the loader
/// applies, for an id the store gives).
pub(crate) fn id_rule(id: u64) -> Result<u64, String> {
    rules::id(id)
}

/// Parses and validates; returns every recipe (with warnings) or every problem.
///
/// A valid file (the usual case) takes the fast path: serde straight into the model, with
/// the same rules. Anything it does not accept goes through the full validator, which
/// reports every problem with its place.
pub(crate) fn parse(text: &str, origin: &Origin) -> Result<Parsed, LoadError> {
    parse_with(text, origin, true)
}

/// [`parse`], warning about invisible characters only with `characters` (a submitted
/// recipe's characters are [`caps`](super::caps)' to check, as a problem).
pub(crate) fn parse_with(
    text: &str,
    origin: &Origin,
    characters: bool,
) -> Result<Parsed, LoadError> {
    if let Some(recipes) = fast::parse(text, characters) {
        return Ok(Parsed {
            recipes,
            warnings: Vec::new(),
        });
    }
    report::parse_reporting(text, origin, characters)
}
