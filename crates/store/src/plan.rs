//! What a change will do to one recipe: which object goes in or out, whether the editor
//! started from the version on disk, and which fields differ. Nothing here touches a file.

use super::document::{Document, Object, key_like};
use super::journal::Journal;
use super::{Conflict, Edit, FieldError, StoreError, caps, version};
use crate::recipes::{INGREDIENT_FIELDS, RECIPE_FIELDS, Recipe, Recipes, Submitted, in_bulk};
use serde_json::Value;

/// What a change will do to one recipe.
pub(super) struct Planned {
    pub id: u64,
    pub(super) before: Option<Object>,
    pub(super) after: Option<Object>,
    /// `after` as the validated recipe, when the store checked it itself.
    pub(super) recipe: Option<Recipe>,
    pub undoes: Option<u64>,
}

/// What a change will do: one recipe, or several for [`Edit::CreateMany`] and the undo
/// of a change of several (never none).
pub(super) fn plan(
    edit: &Edit,
    recipes: &Recipes,
    doc: &Document,
    journal: &Journal,
    max_id: u64,
) -> Result<Vec<Planned>, StoreError> {
    let planned = |id, after: Option<(Object, Recipe)>, undoes| {
        let (after, recipe) = after.map_or((None, None), |(o, r)| (Some(o), Some(r)));
        Planned {
            id,
            before: doc.get(id).cloned(),
            after,
            recipe,
            undoes,
        }
    };
    match edit {
        Edit::Create(draft) => {
            let id = max_id.max(doc.max_id()).saturating_add(1);
            let after = caps::checked(draft, id, None).map_err(one)?;
            Ok(vec![planned(id, Some(after), None)])
        }
        Edit::CreateMany(drafts) => {
            if let Some(problem) = caps::bulk_count(drafts.len()) {
                return Err(one(problem));
            }
            let first = max_id.max(doc.max_id());
            let mut out = Vec::with_capacity(drafts.len());
            let mut problems = Vec::new();
            for (i, draft) in drafts.iter().enumerate() {
                let id = first.saturating_add(i as u64 + 1);
                match caps::checked(draft, id, None) {
                    Ok(after) => out.push(planned(id, Some(after), None)),
                    Err(problem) => problems.push(in_bulk(i, problem)),
                }
            }
            if problems.is_empty() {
                Ok(out)
            } else {
                Err(StoreError::Invalid(caps::at_most_shown(problems)))
            }
        }
        Edit::Update {
            id,
            expected,
            draft,
        } => {
            current_at(recipes, *id, expected, Some(draft))?;
            let after = caps::checked(draft, *id, doc.get(*id)).map_err(one)?;
            Ok(vec![planned(*id, Some(after), None)])
        }
        Edit::Delete { id, expected } => {
            current_at(recipes, *id, expected, None)?;
            Ok(vec![planned(*id, None, None)])
        }
        Edit::Undo(n) => {
            let entry = journal.get(*n).ok_or(StoreError::NoChange(*n))?;
            // Every recipe of the change must still be as it left it: an undo takes all of
            // it back or none.
            if let Some((id, before, _)) =
                entry.parts().find(|(id, _, after)| doc.get(*id) != *after)
            {
                let current = recipes.get(id).cloned();
                return Err(StoreError::Conflict(Box::new(Conflict {
                    id,
                    expected: String::new(),
                    current_version: current.as_ref().map(version),
                    current,
                    yours: before.and_then(|b| asked_back(id, b)),
                })));
            }
            Ok(entry
                .parts()
                .map(|(id, before, _)| {
                    let mut undo = planned(id, None, Some(*n));
                    undo.after = before.cloned();
                    undo
                })
                .collect())
        }
    }
}

/// Checks that recipe `id` exists and is still at version `expected`.
fn current_at(
    recipes: &Recipes,
    id: u64,
    expected: &str,
    yours: Option<&Submitted>,
) -> Result<(), StoreError> {
    let Some(current) = recipes.get(id) else {
        // Deleted while someone edited it: a conflict they can resolve (save theirs as a
        // new recipe), not a "not found" that loses what they typed.
        return Err(match yours {
            Some(yours) if !expected.is_empty() => StoreError::Conflict(Box::new(Conflict {
                id,
                expected: expected.to_owned(),
                current: None,
                current_version: None,
                yours: Some(yours.clone()),
            })),
            _ => StoreError::NoRecipe(id),
        });
    };
    let now = version(current);
    if now == expected.trim_matches('"') {
        return Ok(());
    }
    Err(StoreError::Conflict(Box::new(Conflict {
        id,
        expected: expected.to_owned(),
        current: Some(current.clone()),
        current_version: Some(now),
        yours: yours.cloned(),
    })))
}

/// A refusal for one problem.
fn one(problem: FieldError) -> StoreError {
    StoreError::Invalid(vec![problem])
}

/// What an undo asks recipe `id` to be again, as a submitted recipe: the file's object with
/// its schema fields under their schema names (a file may spell them in another case) and
/// without the keys we do not know. `None` when the file held what a change may not (a
/// hand edit past a cap): the conflict then shows only the recipe as it is now.
fn asked_back(id: u64, object: &Object) -> Option<Submitted> {
    let known = |o: &Object, schema: &[&str]| -> Object {
        schema
            .iter()
            .filter_map(|f| key_like(o, f).map(|(_, v)| ((*f).to_owned(), v.clone())))
            .collect()
    };
    let mut recipe = known(object, &RECIPE_FIELDS);
    if let Some(Value::Array(rows)) = recipe.get_mut("ingredients") {
        for row in rows {
            if let Value::Object(o) = row {
                *o = known(o, &INGREDIENT_FIELDS);
            }
        }
    }
    Submitted::check(&Value::Object(recipe), Some(id)).ok()
}

pub(super) fn name_of(object: Option<&Object>) -> String {
    object
        .and_then(|o| key_like(o, "name"))
        .and_then(|(_, v)| v.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The schema fields whose values differ between two versions of a recipe. A missing key,
/// `null`, `[]` and `""` are all "empty", as the loader reads them.
pub(super) fn changed_fields(before: Option<&Object>, after: Option<&Object>) -> Vec<String> {
    let value = |o: Option<&Object>, f: &str| match o.and_then(|o| key_like(o, f)).map(|(_, v)| v) {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if a.is_empty() => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(v) => Some(v.clone()),
    };
    crate::recipes::RECIPE_FIELDS
        .iter()
        .filter(|f| **f != "id" && value(before, f) != value(after, f))
        .map(|f| (*f).to_owned())
        .collect()
}
