//! A checked recipe as the file will hold it: the caps themselves live with the model
//! ([`recipes::caps`](crate::recipes::caps), re-exported here), which checks a recipe once
//! where it arrives ([`Submitted`]); what is left is what only the store can do under its
//! lock, knowing the file: give the recipe its id and keep the keys the file had for it
//! that we do not know.

use super::FieldError;
use super::document::{Object, key_like};
use crate::recipes::{INGREDIENT_FIELDS, RECIPE_FIELDS, Recipe, Submitted};
use serde_json::Value;

pub use crate::recipes::caps::*;

/// The recipe object to store for `draft` as recipe `id`, with any unknown keys the file
/// had for this recipe (`before`) kept as they were, and the recipe as the collection will
/// hold it. Refused when the draft named another id.
pub(crate) fn checked(
    draft: &Submitted,
    id: u64,
    before: Option<&Object>,
) -> Result<(Object, Recipe), FieldError> {
    let mut recipe = draft.recipe_as(id)?;
    let object = stored(&recipe, before);
    kept_abv(&mut recipe, &object);
    Ok((object, recipe))
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
                // A row's `abv`, `substitutes` and `exact` are kept too when the change
                // does not give them: the form has no field for them, and a form edit must
                // not drop them.
                keep_unknown(row, old, &INGREDIENT_FIELDS[..3]);
            }
        }
    }
    object
}

/// A row's `abv`, `substitutes` and `exact` that [`stored`] kept from the row it was, in
/// the recipe too, so that the collection after the change is the file's.
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
        if line.substitutes.is_empty() {
            let names = row.get("substitutes").and_then(Value::as_array);
            let names = names.into_iter().flatten().filter_map(Value::as_str);
            line.substitutes = names.map(Into::into).collect();
        }
        line.exact |= row.get("exact").and_then(Value::as_bool) == Some(true);
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
