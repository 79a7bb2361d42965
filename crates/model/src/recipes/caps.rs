//! What a recipe sent to be saved may hold beyond the loader's rules: size caps generous
//! for any real drink and small enough that a form cannot grow the file without bound,
//! and clean text.
//!
//! | field | at most |
//! | --- | --- |
//! | `name` | 120 characters |
//! | `base`, `glass`, `method`, `ice`, `garnish` | 12 entries of 300 characters |
//! | `ingredients` | 40 rows; name 120, measure 24, unit 24 characters; a measure an amount ([`crate::units::is_amount`]) |
//! | an ingredient's `substitutes` | 8 names of 120 characters |
//! | `notes` | 5,000 characters |
//! | a bulk save | 2,000 recipes (and the file within `--max-recipes-bytes`, the store's) |
//!
//! Text is counted in characters (Unicode scalar values), not bytes. List entries and
//! ingredient names must not be blank. No text may hold a control, bidi or other invisible
//! character (line feeds and tabs are fine in notes). Why a room of the model: none of
//! this depends on the collection, so a [`Submitted`](super::Submitted) recipe is checked
//! against it once, where it is made, by the API, the forms and an import alike.

use super::{FieldError, LIST_FIELDS, Recipe, fold_eq};
use crate::text::invisible;
use serde_json::{Map, Value};

pub const NAME_CHARS: usize = 120;
pub const LIST_ENTRIES: usize = 12;
pub const LIST_ENTRY_CHARS: usize = 300;
pub const INGREDIENT_ROWS: usize = 40;
pub const INGREDIENT_NAME_CHARS: usize = 120;
pub const MEASURE_CHARS: usize = 24;
pub const UNIT_CHARS: usize = 24;
pub const NOTES_CHARS: usize = 5_000;
/// A row's `substitutes`: at most this many, each a name of [`INGREDIENT_NAME_CHARS`].
pub const SUBSTITUTES: usize = 8;
/// The most recipes one bulk save (`POST /api/recipes/bulk`, `libations import`) adds.
pub const BULK_RECIPES: usize = 2_000;

/// The most problems one answer lists. A recipe sent by hand can have one per key or entry
/// (thousands in a 256 KiB body), and each would be in the answer; the first hundred say
/// enough to start fixing.
pub const PROBLEMS_SHOWN: usize = 100;

/// `problems`, the first [`PROBLEMS_SHOWN`] of them, the last saying how many more there were.
pub fn at_most_shown(mut problems: Vec<FieldError>) -> Vec<FieldError> {
    if problems.len() > PROBLEMS_SHOWN {
        let more = problems.len() - (PROBLEMS_SHOWN - 1);
        problems.truncate(PROBLEMS_SHOWN - 1);
        problems.push(error("", &format!("and {more} more problems, not listed")));
    }
    problems
}

/// The problem of a bulk save of `count` recipes, if it is not 1 to [`BULK_RECIPES`].
pub fn bulk_count(count: usize) -> Option<FieldError> {
    (count == 0 || count > BULK_RECIPES).then(|| {
        error(
            "recipes",
            &format!("between 1 and {BULK_RECIPES} recipes, found {count}"),
        )
    })
}

/// The lists (and ingredients) longer than their cap, found before any entry is checked:
/// a form or body with thousands of rows is refused with one problem each, not one per row.
pub(super) fn too_long(fields: &Map<String, Value>) -> Vec<FieldError> {
    let lists = LIST_FIELDS.map(|f| (f, LIST_ENTRIES, "entries"));
    lists
        .into_iter()
        .chain([("ingredients", INGREDIENT_ROWS, "ingredients")])
        .filter_map(|(field, max, what)| {
            let (key, value) = fields
                .get_key_value(field)
                .or_else(|| fields.iter().find(|(k, _)| fold_eq(k, field)))?;
            let found = value.as_array()?.len();
            (found > max).then(|| error(key, &format!("at most {max} {what}, found {found}")))
        })
        .collect()
}

/// Every cap the recipe goes past, and every blank entry.
pub fn over_caps(r: &Recipe) -> Vec<FieldError> {
    let mut out = Vec::new();
    text(&mut out, "name", &r.name, NAME_CHARS);
    for (field, list) in [
        ("base", &r.base),
        ("glass", &r.glass),
        ("method", &r.method),
        ("ice", &r.ice),
        ("garnish", &r.garnish),
    ] {
        if list.len() > LIST_ENTRIES {
            out.push(error(
                field,
                &format!("at most {LIST_ENTRIES} entries, found {}", list.len()),
            ));
        }
        for (i, entry) in list.iter().enumerate() {
            let path = format!("{field}[{i}]");
            text(&mut out, &path, entry, LIST_ENTRY_CHARS);
            blank(&mut out, &path, entry);
        }
    }
    if r.ingredients.len() > INGREDIENT_ROWS {
        out.push(error(
            "ingredients",
            &format!(
                "at most {INGREDIENT_ROWS} ingredients, found {}",
                r.ingredients.len()
            ),
        ));
    }
    for (i, row) in r.ingredients.iter().enumerate() {
        let at = |part: &str| format!("ingredients[{i}].{part}");
        text(&mut out, &at("name"), &row.name, INGREDIENT_NAME_CHARS);
        blank(&mut out, &at("name"), &row.name);
        let before = out.len();
        text(&mut out, &at("measure"), &row.measure, MEASURE_CHARS);
        // One problem per field: a measure too long or with an invisible character says so.
        if out.len() == before && !crate::units::is_amount(&row.measure) {
            out.push(error(
                &at("measure"),
                &format!(
                    "\u{201c}{}\u{201d} is not an amount: write a number (60), a fraction (1/2, 1 1/2) or a range (2-3), or leave it empty",
                    row.measure.trim()
                ),
            ));
        }
        text(&mut out, &at("unit"), &row.unit, UNIT_CHARS);
        substitutes(&mut out, i, &row.substitutes);
    }
    text(&mut out, "notes", &r.notes, NOTES_CHARS);
    out
}

/// A row's substitutes: at most [`SUBSTITUTES`], each a name that is not blank.
fn substitutes(out: &mut Vec<FieldError>, row: usize, names: &[compact_str::CompactString]) {
    let field = format!("ingredients[{row}].substitutes");
    if names.len() > SUBSTITUTES {
        let found = names.len();
        out.push(error(
            &field,
            &format!("at most {SUBSTITUTES} names, found {found}"),
        ));
    }
    for (i, name) in names.iter().enumerate() {
        let path = format!("{field}[{i}]");
        text(out, &path, name, INGREDIENT_NAME_CHARS);
        blank(out, &path, name);
    }
}

/// The cap on `value`'s length, and the characters it may hold: no control, bidi or other
/// invisible character ([`invisible`]), except line feeds and tabs in notes. The loader only
/// warns about them (files that have one keep loading); what is saved from now on is clean.
fn text(out: &mut Vec<FieldError>, field: &str, value: &str, max: usize) {
    let chars = value.chars().count();
    if chars > max {
        out.push(error(
            field,
            &format!("at most {max} characters, found {chars}"),
        ));
    }
    let notes = field == "notes";
    if let Some(found) = invisible(value, notes) {
        let lines = if notes {
            ""
        } else {
            " (line breaks and tabs belong in notes only)"
        };
        out.push(error(
            field,
            &format!("contains {found}, a control or invisible character{lines}; remove it"),
        ));
    }
}

fn blank(out: &mut Vec<FieldError>, field: &str, value: &str) {
    if value.trim().is_empty() {
        out.push(error(field, "is blank; fill it in or remove it"));
    }
}

pub(super) fn error(field: &str, message: &str) -> FieldError {
    FieldError {
        field: field.to_owned(),
        message: message.to_owned(),
    }
}
