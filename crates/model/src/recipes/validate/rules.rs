//! The one rule set: what makes a recipe valid.
//!
//! A recipe has a whole-number id no larger than [`MAX_ID`], unique in its file, and a name
//! that is more than white space; each ingredient has such a name too. Its keys are those
//! of [`RECIPE_FIELDS`] (an ingredient's, of [`INGREDIENT_FIELDS`]); lists, notes, measures
//! and units may be missing or `null` (empty). Text holding a control, bidi or other
//! invisible character ([`odd_character`]) is valid, but warned about.
//!
//! Why one room: three checkers apply these rules (the typed fast path, the reporting
//! validator and the check of a submitted recipe), and any two that disagreed would load
//! a file one way and save it another. Each asks here instead of keeping its own copy; the
//! JSON *types* (a string, a list of strings) are the only rule the fast path leaves to
//! its serde types.

use super::super::Recipe;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// The largest id: 2^53 − 1. JavaScript reads JSON numbers as doubles, so a larger id would
/// reach the page (and a phone's favourites) as a different number.
pub(crate) const MAX_ID: u64 = (1 << 53) - 1;

/// The keys a recipe may have, in the order the schema lists them.
pub const RECIPE_FIELDS: [&str; 9] = [
    "id",
    "name",
    "base",
    "glass",
    "method",
    "ice",
    "ingredients",
    "garnish",
    "notes",
];
/// The keys an ingredient may have.
pub const INGREDIENT_FIELDS: [&str; 6] = ["name", "measure", "unit", "abv", "substitutes", "exact"];

/// Why an ingredient's `abv` is refused.
pub(super) const ABV_RANGE: &str = "must be a number from 0 to 100 (% alcohol by volume)";

/// The fields that are lists of strings.
pub const LIST_FIELDS: [&str; 5] = ["base", "glass", "method", "ice", "garnish"];

/// Whether `key` is a recipe field exactly as the schema spells it. A submitted recipe
/// must spell its keys so: what a file may only load with a warning (another case, an
/// unknown key) is refused in an edit.
pub fn is_recipe_field(key: &str) -> bool {
    RECIPE_FIELDS.contains(&key)
}

/// `id` if it is small enough to reach a browser exactly; otherwise why not.
pub(super) fn id(id: u64) -> Result<u64, String> {
    if id <= MAX_ID {
        Ok(id)
    } else {
        Err(format!(
            "{id} is too large: ids must be at most {MAX_ID}, the largest whole \
             number a browser reads exactly"
        ))
    }
}

/// Whether a recipe's or an ingredient's name names anything: more than white space.
pub(super) fn named(name: &str) -> bool {
    !name.trim().is_empty()
}

/// Why a recipe's name given as a string is refused when it is not [`named`].
pub(super) const EMPTY_NAME: &str = "must not be empty";
/// Why an ingredient without a [`named`] name is refused.
pub(super) const NAMELESS_INGREDIENT: &str = "every ingredient needs a name";

/// The ids seen so far in one file, each with what the caller keeps about its holder
/// (nothing on the fast path; the index and name that a problem names, when reporting).
pub(super) struct UniqueIds<T>(HashMap<u64, T>);

impl<T> UniqueIds<T> {
    pub(super) fn with_capacity(n: usize) -> Self {
        UniqueIds(HashMap::with_capacity(n))
    }

    /// Takes `id` for a recipe; when an earlier one has it, returns what was kept about it.
    pub(super) fn claim(&mut self, id: u64, holder: impl FnOnce() -> T) -> Result<(), &T> {
        match self.0.entry(id) {
            Entry::Occupied(first) => Err(first.into_mut()),
            Entry::Vacant(free) => {
                free.insert(holder());
                Ok(())
            }
        }
    }
}

/// Why a recipe's id is refused when recipe `other` (named `other_name`) has it already.
pub(super) fn duplicate_id(id: u64, other: usize, other_name: &str) -> String {
    format!("id {id} is already used by recipe index {other} ({other_name:?}); ids must be unique")
}

/// The first control, bidi or other invisible character of `value`, which loads with a
/// warning; line feeds and tabs are text where `multiline` (notes only).
pub(super) fn odd_character(value: &str, multiline: bool) -> Option<crate::text::Invisible> {
    crate::text::invisible(value, multiline)
}

/// Whether any text of `r` has an [`odd_character`] (newlines and tabs are text in notes).
pub(super) fn has_odd_character(r: &Recipe) -> bool {
    let lists = [&r.base, &r.glass, &r.method, &r.ice, &r.garnish];
    let rows = r.ingredients.iter();
    std::iter::once(&r.name)
        .chain(lists.into_iter().flatten())
        .chain(rows.flat_map(|i| [&i.name, &i.measure, &i.unit]))
        .any(|t| odd_character(t, false).is_some())
        || odd_character(&r.notes, true).is_some()
}
