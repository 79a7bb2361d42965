//! What a recipe sent to be saved must be: the loader's rules, no unknown fields, and size
//! caps generous for any real drink and small enough that a form cannot grow the file
//! without bound.
//!
//! | field | at most |
//! | --- | --- |
//! | `name` | 120 characters |
//! | `base`, `glass`, `method`, `ice`, `garnish` | 12 entries of 300 characters |
//! | `ingredients` | 40 rows; name 120, measure 24, unit 24 characters |
//! | `notes` | 5,000 characters |
//! | a bulk save | 2,000 recipes, and the file within `--max-recipes-bytes` |
//!
//! Text is counted in characters (Unicode scalar values), not bytes. List entries and
//! ingredient names must not be blank. No text may hold a control, bidi or other invisible
//! character (line feeds and tabs are fine in notes): this is the one check both the API
//! and the forms pass through.

use super::document::{Object, key_like};
use super::{FieldError, StoreError};
use crate::recipes::{INGREDIENT_FIELDS, LIST_FIELDS, RECIPE_FIELDS, Recipe, is_recipe_field};
use crate::text::invisible;
use serde_json::Value;

pub const NAME_CHARS: usize = 120;
pub const LIST_ENTRIES: usize = 12;
pub const LIST_ENTRY_CHARS: usize = 300;
pub const INGREDIENT_ROWS: usize = 40;
pub const INGREDIENT_NAME_CHARS: usize = 120;
pub const MEASURE_CHARS: usize = 24;
pub const UNIT_CHARS: usize = 24;
pub const NOTES_CHARS: usize = 5_000;
/// The most recipes one bulk save (`POST /api/recipes/bulk`, `libations import`) adds.
pub const BULK_RECIPES: usize = 2_000;

/// The recipe object to store for `draft` as recipe `id`: validated and capped, with the
/// schema's fields from the draft and any unknown keys the file had for this recipe
/// (`before`) kept as they were.
pub fn checked(
    draft: &Value,
    id: u64,
    before: Option<&Object>,
) -> Result<(Object, Recipe), StoreError> {
    let fields = draft.as_object().ok_or_else(|| {
        invalid(vec![error(
            "",
            "expected a recipe: a JSON object with its fields",
        )])
    })?;
    let long = too_long(fields);
    if !long.is_empty() {
        return Err(invalid(long));
    }
    let mut problems = Vec::new();
    let mut candidate = Object::new();
    candidate.insert("id".into(), Value::from(id));
    for (key, value) in fields {
        if key == "id" {
            if value.as_u64() != Some(id) {
                problems.push(error(
                    "id",
                    &format!("must be {id}, the id of the recipe being saved"),
                ));
            }
        } else if is_recipe_field(key) {
            candidate.insert(key.clone(), value.clone());
        } else if READ_ONLY.contains(&key.as_str()) {
            // What `GET /api/recipes/{id}` adds, sent back with the recipe as it was read:
            // worked out by the server, never saved.
        } else {
            problems.push(error(
                key,
                &format!(
                    "unknown field; the fields are {}",
                    RECIPE_FIELDS[1..].join(", ")
                ),
            ));
        }
    }
    let recipe = match crate::recipes::check_one(&Value::Object(candidate)) {
        Ok(recipe) => Some(recipe),
        Err(found) => {
            problems.extend(found);
            None
        }
    };
    if let Some(recipe) = &recipe {
        problems.extend(over_caps(recipe));
    }
    match recipe {
        Some(mut recipe) if problems.is_empty() => {
            let object = stored(&recipe, before);
            kept_abv(&mut recipe, &object);
            Ok((object, recipe))
        }
        _ => Err(invalid(at_most_shown(problems))),
    }
}

/// The keys `GET /api/recipes/{id}` adds to a recipe: a change may send them back, and
/// they are left out.
const READ_ONLY: [&str; 2] = ["strength", "ratings"];

/// The most problems one answer lists. A recipe sent by hand can have one per key or entry
/// (thousands in a 256 KiB body), and each would be in the answer; the first hundred say
/// enough to start fixing.
pub const PROBLEMS_SHOWN: usize = 100;

pub(crate) fn at_most_shown(mut problems: Vec<FieldError>) -> Vec<FieldError> {
    if problems.len() > PROBLEMS_SHOWN {
        let more = problems.len() - (PROBLEMS_SHOWN - 1);
        problems.truncate(PROBLEMS_SHOWN - 1);
        problems.push(error("", &format!("and {more} more problems, not listed")));
    }
    problems
}

/// The lists (and ingredients) longer than their cap, found before any entry is checked:
/// a form or body with thousands of rows is refused with one problem each, not one per row.
fn too_long(fields: &Object) -> Vec<FieldError> {
    let lists = LIST_FIELDS.map(|f| (f, LIST_ENTRIES, "entries"));
    lists
        .into_iter()
        .chain([("ingredients", INGREDIENT_ROWS, "ingredients")])
        .filter_map(|(field, max, what)| {
            let (key, value) = key_like(fields, field)?;
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
        text(
            &mut out,
            &format!("ingredients[{i}].name"),
            &row.name,
            INGREDIENT_NAME_CHARS,
        );
        blank(&mut out, &format!("ingredients[{i}].name"), &row.name);
        text(
            &mut out,
            &format!("ingredients[{i}].measure"),
            &row.measure,
            MEASURE_CHARS,
        );
        text(
            &mut out,
            &format!("ingredients[{i}].unit"),
            &row.unit,
            UNIT_CHARS,
        );
    }
    text(&mut out, "notes", &r.notes, NOTES_CHARS);
    out
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

/// The validated recipe as a file object, followed by the keys of `before` that are not
/// schema fields (in any case), which the Go original ignored and we keep.
fn stored(recipe: &Recipe, before: Option<&Object>) -> Object {
    let mut object = match serde_json::to_value(recipe) {
        Ok(Value::Object(o)) => o,
        _ => Object::new(),
    };
    let Some(before) = before else {
        return object;
    };
    keep_unknown(&mut object, before, &RECIPE_FIELDS);
    let old_rows: Vec<&Object> = key_like(before, "ingredients")
        .and_then(|(_, v)| v.as_array())
        .map(|rows| rows.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default();
    if let Some(Value::Array(rows)) = object.get_mut("ingredients") {
        for (i, row) in rows.iter_mut().enumerate() {
            let Value::Object(row) = row else { continue };
            // The row it was: the one with the same name, else the one in its place.
            let name = row.get("name").and_then(Value::as_str).unwrap_or_default();
            let same_name = old_rows.iter().find(|old| {
                key_like(old, "name")
                    .and_then(|(_, v)| v.as_str())
                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
            });
            if let Some(old) = same_name.or(old_rows.get(i)) {
                // A row's `abv` is kept too when the change does not give one: the form
                // has no field for it, and a form edit must not drop it.
                keep_unknown(row, old, &INGREDIENT_FIELDS[..3]);
            }
        }
    }
    object
}

/// A row's `abv` that [`stored`] kept from the row it was, in the recipe too, so that the
/// collection after the change is the file's.
fn kept_abv(recipe: &mut Recipe, object: &Object) {
    let Some(Value::Array(rows)) = object.get("ingredients") else {
        return;
    };
    for (line, row) in recipe.ingredients.iter_mut().zip(rows) {
        if line.abv.is_none() {
            line.abv = row
                .get("abv")
                .and_then(Value::as_f64)
                .and_then(crate::recipes::Abv::new);
        }
    }
}

/// Copies the keys of `old` that are not schema fields (in any case) into `new`: the Go
/// original ignored unknown keys, and an edit must not drop what someone put there.
fn keep_unknown(new: &mut Object, old: &Object, schema: &[&str]) {
    for (key, value) in old {
        let known = schema.iter().any(|f| crate::recipes::fold_eq(f, key));
        if !known && key_like(new, key).is_none() {
            new.insert(key.clone(), value.clone());
        }
    }
}

fn error(field: &str, message: &str) -> FieldError {
    FieldError {
        field: field.to_owned(),
        message: message.to_owned(),
    }
}

fn invalid(problems: Vec<FieldError>) -> StoreError {
    StoreError::Invalid(problems)
}
