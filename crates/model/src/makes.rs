//! What a shelf makes of a collection, answered by bottle: which recipes it can make (and
//! how, when a stand-in or a house-made prep does it), which it is one bottle short of, and
//! which bottle to buy next (`GET /api/bar`, `can:make` and `missing:one` in search).
//!
//! Its own room because it joins two others: [`crate::ingredients`] says what each recipe
//! needs (optional rows and staples left out), [`crate::vocabulary`] says whether a shelf
//! meets a need, and how. `static/js/model.js` (`analyseNeeds`, over
//! `static/js/vocabulary.js`) answers the same, field for field, for a page offline or a
//! visitor the server does not know; `tests/shelf-cases.json` (`analysis`) holds both to
//! the same answers.
//!
//! The steps:
//! 1. [`Needs::new`] reads every recipe's needs once per collection, each need through the
//!    vocabulary ([`Reading`]), and names the bottle each one is: the entry's name
//!    ("Bourbon" for "Bourbon Whiskey", the first of "Bourbon or Rye Whiskey"), or the
//!    name as the collection first writes it when the vocabulary does not know it.
//! 2. [`Needs::stocked`] reads a shelf (the names it holds) against those needs, once per
//!    request: every distinct need is a lookup in the shelf's [`Met`] table.
//! 3. [`analyse`] walks the recipes once.

use crate::ingredients::{key, needs};
use crate::recipes::Recipes;
use crate::recipes::{IngredientLine, Recipe};
use crate::vocabulary::{Met, Reading, Row, Rule, Shelf, Vocabulary};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// What every recipe of a collection needs from a shelf, read once per collection: "can
/// make" over 5,000 recipes is then a lookup per need, not a reading of every ingredient
/// name for every request. Each distinct need (by its [`crate::ingredients::key`]) is
/// stored once and recipes refer to it by place.
#[derive(Debug, Clone, Default)]
pub struct Needs {
    /// Every distinct need: how the vocabulary reads it (with the row's `exact` and
    /// `substitutes`), and the bottle it is.
    needs: Vec<(Row, u32)>,
    /// The bottles needs name: what a shelf stores once it is bought, and its name.
    bottles: Vec<Bottle>,
    /// In `Recipes::all()` order: each recipe's id and the places of its needs.
    recipes: Vec<(u64, Box<[u32]>)>,
}

#[derive(Debug, Clone)]
struct Bottle {
    key: String,
    name: String,
}

/// The place of `value` in `table`, adding it when it is not there yet. A collection has
/// far fewer than 2³² distinct names (`recipes::caps`), so a place fits a u32.
fn place<T>(
    table: &mut Vec<T>,
    places: &mut HashMap<String, u32>,
    at: &str,
    value: impl FnOnce() -> T,
) -> u32 {
    if let Some(&place) = places.get(at) {
        return place;
    }
    let place = table.len() as u32;
    table.push(value());
    places.insert(at.to_owned(), place);
    place
}

impl Needs {
    /// The needs of `recipes`, read through the built-in vocabulary.
    pub fn new(recipes: &Recipes) -> Needs {
        Needs::read(recipes, Vocabulary::built_in())
    }

    fn read(recipes: &Recipes, vocabulary: &Vocabulary) -> Needs {
        let mut out = Needs::default();
        let (mut by_key, mut by_bottle) = (HashMap::new(), HashMap::new());
        for recipe in recipes.all() {
            let mut list: Vec<u32> = Vec::new();
            for (k, name) in needs(recipe) {
                let line = line_of(recipe, name);
                // Read once per distinct need, not once per line.
                let need = place(&mut out.needs, &mut by_key, &need_key(&k, line), || {
                    let reading = vocabulary.read_folded(&k);
                    let bottle = bottle(vocabulary, &reading, name);
                    let at = place(
                        &mut out.bottles,
                        &mut by_bottle,
                        &bottle.key.clone(),
                        || bottle,
                    );
                    let row = match line {
                        Some(l) => vocabulary.row_of(reading, l.exact, &l.substitutes),
                        None => vocabulary.row_of(reading, false, &[] as &[&str]),
                    };
                    (row, at)
                });
                // "Bourbon" and "Bourbon Whiskey" in one recipe are one need.
                let same = |&n: &u32| out.needs[n as usize].0 == out.needs[need as usize].0;
                if !list.iter().any(same) {
                    list.push(need);
                }
            }
            out.recipes.push((recipe.id, list.into_boxed_slice()));
        }
        out
    }

    /// For each distinct need, whether `meets` holds of its reading (`has:`, read once per
    /// need rather than per line; see [`Needs::any`]).
    pub fn which(&self, meets: impl Fn(&Reading) -> bool) -> Vec<bool> {
        self.needs
            .iter()
            .map(|(row, _)| meets(&row.reading))
            .collect()
    }

    /// Whether the recipe at `position` has a need that [`Needs::which`] marked.
    pub fn any(&self, position: usize, which: &[bool]) -> bool {
        self.recipes
            .get(position)
            .is_some_and(|(_, list)| list.iter().any(|&n| which[n as usize]))
    }

    /// Reads a shelf (the names it holds: bottles, kinds, or names of its own, as ticked
    /// or as stored keys) and the household's rules against these needs.
    pub fn stocked(&self, shelf: &HashSet<String>, rules: &[Rule]) -> Stocked<'_> {
        let vocabulary = Vocabulary::built_in();
        let shelf = Shelf::new(vocabulary, shelf.iter().map(String::as_str));
        let met = Met::new(vocabulary, shelf.with_rules(vocabulary, rules));
        let mut have = Vec::with_capacity(self.needs.len());
        let mut how = Vec::with_capacity(self.needs.len());
        for (row, _) in &self.needs {
            let meets = met.meets_row(row);
            how.push(meets.as_ref().and_then(|h| vocabulary.explain(h)));
            have.push(meets.is_some());
        }
        Stocked {
            needs: self,
            have,
            how,
        }
    }
}

/// The row a need was first written on (its `exact` and `substitutes`).
fn line_of<'r>(recipe: &'r Recipe, name: &str) -> Option<&'r IngredientLine> {
    recipe.ingredients.iter().find(|l| l.name == name)
}

/// A need's place key: its name's key, and what else the row says of it, so that an exact
/// "Triple Sec" or one with substitutes is another need than a plain one.
fn need_key(k: &str, line: Option<&IngredientLine>) -> String {
    match line {
        Some(l) if l.exact || !l.substitutes.is_empty() => {
            let subs: Vec<String> = l.substitutes.iter().map(|s| key(s)).collect();
            format!("{k}\u{1}{}\u{1}{}", l.exact, subs.join("\u{1}"))
        }
        _ => k.to_owned(),
    }
}

/// The bottle a need names: the entry (the first of "X or Y"), or the name as written.
fn bottle(vocabulary: &Vocabulary, reading: &Reading, written: &str) -> Bottle {
    let entry = match reading {
        Reading::Entry(at) => Some(*at),
        Reading::Either(alternatives) => alternatives.first().copied(),
        Reading::Unknown(_) => None,
    };
    match entry {
        Some(at) => {
            let name = vocabulary.entry(at).name.clone();
            Bottle {
                key: key(&name),
                name,
            }
        }
        None => Bottle {
            key: key(written),
            name: written.to_owned(),
        },
    }
}

/// A shelf read against a collection's [`Needs`]: which needs it meets, and the words for
/// those it meets with a stand-in or a prep.
#[derive(Debug, Clone)]
pub struct Stocked<'n> {
    needs: &'n Needs,
    have: Vec<bool>,
    /// For each need (same place), the words when a stand-in or a prep meets it.
    how: Vec<Option<String>>,
}

impl Stocked<'_> {
    /// The places of what the recipe at `position` (in `Recipes::all()` order) needs and
    /// the shelf lacks; nothing for a position out of range.
    fn lacking(&self, position: usize) -> impl Iterator<Item = u32> + '_ {
        self.list(position)
            .iter()
            .copied()
            .filter(|&need| !self.have[need as usize])
    }

    fn list(&self, position: usize) -> &[u32] {
        self.needs.recipes.get(position).map_or(&[][..], |(_, l)| l)
    }

    /// How many things the recipe at `position` needs that the shelf lacks.
    pub fn gaps(&self, position: usize) -> usize {
        self.lacking(position).count()
    }

    /// The words for how the shelf meets the recipe at `position` where it takes a
    /// stand-in or a prep ("Cointreau for Triple sec"), each once, in the recipe's order.
    pub fn how(&self, position: usize) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for need in self.list(position) {
            match &self.how[*need as usize] {
                Some(words) if !out.contains(words) => out.push(words.clone()),
                _ => {}
            }
        }
        out
    }
}

/// What a shelf makes of a collection: the answer of `GET /api/bar` (docs/HOUSEHOLD.md)
/// without the shelf itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// Ids of the recipes nothing is missing for, in the collection's order.
    pub can_make: Vec<u64>,
    /// Of those, the ones made with a stand-in or a prep, and how, in the same order.
    pub how: Vec<Made>,
    /// The recipes one bottle short, in the collection's order.
    pub missing_one: Vec<MissingOne>,
    /// What to buy next, most recipes unlocked first (see [`analyse`]).
    pub next_bottles: Vec<NextBottle>,
}

/// A recipe the shelf makes with a stand-in or a prep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Made {
    pub id: u64,
    /// "Cointreau for Triple sec", "Limes for Lime juice (squeezed from limes: …)".
    pub how: Vec<String>,
}

/// A recipe one bottle short of the shelf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingOne {
    pub id: u64,
    /// The bottle: the vocabulary's name for it, or the recipe's own words for a name it
    /// does not know.
    pub missing: String,
}

/// A bottle not on the shelf, and the recipes it alone stands between.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NextBottle {
    /// What a shelf stores once it is bought (the bottle's name, folded).
    pub key: String,
    /// The bottle's name, as [`MissingOne::missing`] gives it.
    pub name: String,
    /// The recipes missing only this, in the collection's order.
    pub unlocks: Vec<u64>,
}

/// Which recipes `shelf` (the names it holds) and the household's `rules` can make, and how; which it is one bottle
/// short of; and which bottles would each make the most more recipes possible. Only a
/// bottle that is some recipe's one missing thing is a next bottle: one that unlocks
/// nothing on its own is no advice. Ties go by key, so the order does not depend on how a
/// recipe capitalises it.
pub fn analyse(needs: &Needs, shelf: &HashSet<String>, rules: &[Rule]) -> Analysis {
    let stocked = needs.stocked(shelf, rules);
    let mut out = Analysis::default();
    // bottle place → the recipes missing only it, in order of first appearance.
    let mut unlocks: HashMap<u32, Vec<u64>> = HashMap::new();
    for (position, &(id, _)) in needs.recipes.iter().enumerate() {
        let mut lacking = stocked.lacking(position);
        match (lacking.next(), lacking.next()) {
            (None, _) => {
                out.can_make.push(id);
                let how = stocked.how(position);
                if !how.is_empty() {
                    out.how.push(Made { id, how });
                }
            }
            (Some(need), None) => {
                let bottle = needs.needs[need as usize].1;
                let missing = needs.bottles[bottle as usize].name.clone();
                out.missing_one.push(MissingOne { id, missing });
                unlocks.entry(bottle).or_default().push(id);
            }
            _ => {}
        }
    }
    out.next_bottles = unlocks
        .into_iter()
        .map(|(bottle, ids)| {
            let Bottle { key, name } = needs.bottles[bottle as usize].clone();
            NextBottle {
                key,
                name,
                unlocks: ids,
            }
        })
        .collect();
    out.next_bottles.sort_by(|a, b| {
        let most = b.unlocks.len().cmp(&a.unlocks.len());
        most.then_with(|| a.key.cmp(&b.key))
    });
    out
}

#[cfg(test)]
mod tests;
