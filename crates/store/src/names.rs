//! No silent duplicates: whether a change would give the collection a second recipe of a
//! name it already has (folded as search folds it: "negroni" is "Negroni").
//!
//! The check runs under the store's lock, after the change is planned, so two editors
//! saving the same new name at once cannot both pass it. A person who means a second one
//! says so ([`Names::MayRepeat`]); the web layer asks them first.

use super::plan::Planned;
use crate::recipes::Recipes;
use crate::text::fold;
use serde::Serialize;
use std::collections::HashMap;

/// Whether a change may give a recipe a name another one has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// Refused, naming the recipe that has it ([`Duplicate`]).
    Unique,
    /// Allowed: the person said they want another of that name.
    MayRepeat,
}

/// A recipe of the change whose name the collection already has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Duplicate {
    /// The field at fault: `name`, or `recipes[i].name` in a change of several.
    pub field: String,
    /// The name, as the change gives it.
    pub name: String,
    /// The recipe that already has it.
    pub existing_id: u64,
}

/// The recipes `planned` would give a name another recipe of `recipes` has. A recipe
/// keeping its own name is not a duplicate of itself.
pub(super) fn duplicates(planned: &[Planned], recipes: &Recipes, several: bool) -> Vec<Duplicate> {
    let mut names: HashMap<String, u64> = HashMap::with_capacity(recipes.len());
    for recipe in recipes.all() {
        names.entry(fold(&recipe.name)).or_insert(recipe.id);
    }
    planned
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let recipe = p.recipe.as_ref()?;
            let existing_id = *names.get(&fold(&recipe.name))?;
            (existing_id != p.id).then(|| Duplicate {
                field: if several {
                    format!("recipes[{i}].name")
                } else {
                    "name".to_owned()
                },
                name: recipe.name.trim().to_owned(),
                existing_id,
            })
        })
        .collect()
}
