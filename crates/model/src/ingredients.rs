//! Ingredients as a shelf sees them: one name per bottle, and which ones never block a drink.
//!
//! "What can I make" compares the ingredients a phone's owner has ticked with what each
//! recipe needs. Both sides of that comparison use [`key`]: the server to list every
//! distinct ingredient of a collection (`/shelf`, `/api/ingredients`), `static/js/model.js` to
//! read a recipe's needs. `tests/ingredient-cases.json` is the table both are tested against.
//!
//! [`Needs`] reads every recipe's needs once per collection; [`analyse`] tells a shelf what
//! it can make, what it is one bottle short of and which bottles to buy next (`GET
//! /api/bar`), as `analyse` in model.js does on the phone (`tests/shelf-cases.json`,
//! `analysis`, holds both to the same answers).
//!
//! The rules, in order:
//! 1. Fold as search does: case, accents, typographic quotes and spaces do not matter.
//! 2. A part in parentheses is a note and is dropped (`Sherry (preferably Lustau)` →
//!    `sherry`), unless it is a single colour word, which names a different bottle
//!    (`Crème de Cacao (White)` → `creme de cacao (white)`).
//! 3. A leading "fresh", "freshly squeezed" or "fresh squeezed" is dropped: fresh lime juice
//!    is lime juice to a shelf.
//!
//! An ingredient marked `(optional)` never blocks a recipe, and neither do the staples every
//! bar has on tap: water (still, hot, soda, sparkling), club soda, seltzer and ice. Garnishes
//! are a recipe field of their own, so they never block either. Sugar, salt and syrups do
//! count: they are things one can run out of.

use crate::recipes::{Recipe, Recipes};
use crate::text::fold;
use compact_str::CompactString;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Colour words kept from parentheses: white and dark crème de cacao are different bottles.
const COLOURS: [&str; 9] = [
    "white", "dark", "brown", "green", "red", "gold", "blanc", "clear", "black",
];

/// Keys that never block a recipe: what comes from a tap, a soda siphon or the freezer.
pub(crate) const STAPLES: [&str; 22] = [
    "water",
    "plain water",
    "still water",
    "tap water",
    "cold water",
    "chilled water",
    "warm water",
    "hot water",
    "boiling water",
    "soda",
    "soda water",
    "club soda",
    "sparkling water",
    "carbonated water",
    "mineral water",
    "sparkling mineral water",
    "seltzer",
    "seltzer water",
    "ice",
    "crushed ice",
    "cracked ice",
    "ice cubes",
];

const FRESH: [&str; 4] = ["freshly squeezed ", "fresh squeezed ", "freshly ", "fresh "];

/// The shelf's name for an ingredient: `"Fresh Lime Juice (Persiano)"` → `"lime juice"`.
pub fn key(name: &str) -> String {
    key_of_folded(&fold(name))
}

/// [`key`] and [`is_optional`] of one name, folding it once (start-up reads every line of
/// thousands of recipes).
fn read(name: &str) -> (String, bool) {
    let folded = fold(name);
    (key_of_folded(&folded), optional_in_folded(&folded))
}

fn key_of_folded(folded: &str) -> String {
    let mut kept = String::with_capacity(folded.len());
    let mut rest = folded;
    while let Some(open) = rest.find('(') {
        kept.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let (inner, next) = match after.find(')') {
            Some(close) => (&after[..close], &after[close + 1..]),
            None => (after, ""),
        };
        let inner = inner.trim();
        if COLOURS.contains(&inner) {
            kept.push_str(" (");
            kept.push_str(inner);
            kept.push(')');
        }
        kept.push(' ');
        rest = next;
    }
    kept.push_str(rest);
    let mut key = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    // Until nothing changes, so that a key is its own key ("fresh fresh mint" → "mint").
    loop {
        let mut next = key
            .trim_end_matches(|c: char| matches!(c, ',' | '.' | ';' | ':') || c.is_whitespace())
            .trim_start()
            .to_owned();
        if let Some(prefix) = FRESH
            .iter()
            .find(|p| next.starts_with(*p) && next.len() > p.len())
        {
            next.drain(..prefix.len());
        }
        if next == key {
            return key;
        }
        key = next;
    }
}

/// Whether the name marks the ingredient as optional: `"Egg White (optional)"`. The
/// server reads it with the key ([`read`]); the shared table checks it name by name.
#[cfg(test)]
fn is_optional(name: &str) -> bool {
    optional_in_folded(&fold(name))
}

fn optional_in_folded(folded: &str) -> bool {
    let mut rest = folded;
    while let Some(open) = rest.find('(') {
        rest = &rest[open + 1..];
        if rest.trim_start().starts_with("optional") {
            return true;
        }
    }
    false
}

/// Whether a key is a staple that never blocks a recipe.
pub(crate) fn is_staple(key: &str) -> bool {
    STAPLES.contains(&key)
}

/// What a recipe needs from a shelf: each key once, with the recipe's own spelling; optional
/// ingredients and staples left out.
pub fn needs(recipe: &Recipe) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = Vec::new();
    for ingredient in &recipe.ingredients {
        let (k, optional) = read(&ingredient.name);
        if k.is_empty() || optional || is_staple(&k) {
            continue;
        }
        if !out.iter().any(|(seen, _)| *seen == k) {
            out.push((k, ingredient.name.as_str()));
        }
    }
    out
}

/// The names of what a recipe needs that is not on the shelf (a set of keys).
pub fn missing<'r>(needs: &[(String, &'r str)], shelf: &HashSet<String>) -> Vec<&'r str> {
    needs
        .iter()
        .filter(|(k, _)| !shelf.contains(k))
        .map(|&(_, name)| name)
        .collect()
}

/// What every recipe of a collection needs from a shelf ([`needs`]), read once per
/// collection: "can make" over 5,000 recipes is then a lookup per need, not a fold of every
/// ingredient name for every request. Keys and spellings are stored once each and needs
/// refer to them by place, so the whole is a few hundred KiB at 5,000 recipes.
#[derive(Debug, Clone, Default)]
pub struct Needs {
    /// Every key some recipe needs.
    keys: Vec<String>,
    /// For each key (same place), the spelling in the first recipe that needs it.
    first_spelling: Vec<u32>,
    /// Every distinct spelling of a need, as written.
    spellings: Vec<CompactString>,
    /// In `Recipes::all()` order: each recipe's id and its needs.
    recipes: Vec<(u64, Box<[Need]>)>,
}

/// One thing a recipe needs: its places in [`Needs`]' `keys` and `spellings`.
#[derive(Debug, Clone, Copy)]
struct Need {
    key: u32,
    spelling: u32,
}

/// A place in one of [`Needs`]' tables, adding `value` when it is not there yet. A
/// collection has far fewer than 2³² distinct names (`recipes::caps`), so a place fits a u32.
fn place<T: Clone + Eq + std::hash::Hash>(
    table: &mut Vec<T>,
    places: &mut HashMap<T, u32>,
    value: T,
) -> (u32, bool) {
    if let Some(&at) = places.get(&value) {
        return (at, false);
    }
    let at = table.len() as u32;
    table.push(value.clone());
    places.insert(value, at);
    (at, true)
}

impl Needs {
    pub fn new(recipes: &Recipes) -> Needs {
        let mut out = Needs::default();
        let mut keys = HashMap::new();
        let mut spellings = HashMap::new();
        for recipe in recipes.all() {
            let mut list = Vec::new();
            for (k, name) in needs(recipe) {
                let (spelling, _) = place(&mut out.spellings, &mut spellings, name.into());
                let (key, new) = place(&mut out.keys, &mut keys, k);
                if new {
                    out.first_spelling.push(spelling);
                }
                list.push(Need { key, spelling });
            }
            out.recipes.push((recipe.id, list.into_boxed_slice()));
        }
        out
    }

    /// Reads `shelf` (a set of [`key`]s) against these needs.
    pub fn stocked<'n>(&'n self, shelf: &HashSet<String>) -> Stocked<'n> {
        Stocked {
            needs: self,
            have: self.keys.iter().map(|k| shelf.contains(k)).collect(),
        }
    }
}

/// A shelf read against a collection's [`Needs`]: which of their keys it has.
#[derive(Debug, Clone)]
pub struct Stocked<'n> {
    needs: &'n Needs,
    have: Vec<bool>,
}

impl Stocked<'_> {
    /// What the recipe at `position` (in `Recipes::all()` order) needs and the shelf
    /// lacks; nothing for a position out of range.
    fn lacking(&self, position: usize) -> impl Iterator<Item = Need> + '_ {
        let list = self.needs.recipes.get(position).map_or(&[][..], |(_, l)| l);
        list.iter()
            .copied()
            .filter(|need| !self.have[need.key as usize])
    }

    /// How many things the recipe at `position` needs that the shelf lacks.
    pub fn gaps(&self, position: usize) -> usize {
        self.lacking(position).count()
    }
}

/// What a shelf makes of a collection: the answer of `GET /api/bar` (docs/HOUSEHOLD.md)
/// without the shelf itself. `static/js/model.js` (`analyse`) gives the same, field for
/// field, for a page offline or a visitor the server does not know.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// Ids of the recipes nothing is missing for, in the collection's order.
    pub can_make: Vec<u64>,
    /// The recipes one thing short, in the collection's order.
    pub missing_one: Vec<MissingOne>,
    /// What to buy next, most recipes unlocked first (see [`analyse`]).
    pub next_bottles: Vec<NextBottle>,
}

/// A recipe one ingredient short of the shelf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissingOne {
    pub id: u64,
    /// The ingredient as this recipe writes it.
    pub missing: String,
}

/// An ingredient not on the shelf, and the recipes it alone stands between.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NextBottle {
    /// Its [`key`]: what a shelf stores once it is bought.
    pub key: String,
    /// As written in the first recipe (in the collection's order) that needs it.
    pub name: String,
    /// The recipes missing only this, in the collection's order.
    pub unlocks: Vec<u64>,
}

/// Which recipes `shelf` (a set of [`key`]s) can make, which it is one ingredient short of,
/// and which bottles would each make the most more recipes possible. Only an ingredient
/// that is some recipe's one missing thing is a next bottle: one that unlocks nothing on
/// its own is no advice. Ties go by key, the shelf's name for the bottle, so the order does
/// not depend on how a recipe capitalises it.
pub fn analyse(needs: &Needs, shelf: &HashSet<String>) -> Analysis {
    let stocked = needs.stocked(shelf);
    let mut out = Analysis::default();
    // key place → the recipes missing only it, in order of first appearance.
    let mut unlocks: HashMap<u32, Vec<u64>> = HashMap::new();
    for (position, &(id, _)) in needs.recipes.iter().enumerate() {
        let mut lacking = stocked.lacking(position);
        match (lacking.next(), lacking.next()) {
            (None, _) => out.can_make.push(id),
            (Some(need), None) => {
                let missing = needs.spellings[need.spelling as usize].to_string();
                out.missing_one.push(MissingOne { id, missing });
                unlocks.entry(need.key).or_default().push(id);
            }
            _ => {}
        }
    }
    out.next_bottles = unlocks
        .into_iter()
        .map(|(key, ids)| NextBottle {
            key: needs.keys[key as usize].clone(),
            name: needs.spellings[needs.first_spelling[key as usize] as usize].to_string(),
            unlocks: ids,
        })
        .collect();
    out.next_bottles.sort_by(|a, b| {
        let most = b.unlocks.len().cmp(&a.unlocks.len());
        most.then_with(|| a.key.cmp(&b.key))
    });
    out
}

/// One distinct ingredient of a collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShelfIngredient {
    /// What a shelf stores: [`key`] of the name.
    pub key: String,
    /// How the collection spells it most often (preferring a spelling that is just the key).
    pub name: String,
    /// How many recipes need it ([`needs`]: not counting optional uses). A staple counts
    /// every recipe it appears in.
    pub recipes: usize,
    /// Never blocks a recipe (see the module documentation).
    pub staple: bool,
}

/// Every distinct ingredient of a collection, in key order.
pub fn distinct(recipes: &Recipes) -> Vec<ShelfIngredient> {
    // key → (recipes using it, spelling → times seen)
    let mut seen: HashMap<String, (usize, HashMap<&str, usize>)> = HashMap::new();
    for recipe in recipes.all() {
        let lines: Vec<(String, bool)> = recipe.ingredients.iter().map(|i| read(&i.name)).collect();
        let mut counted: Vec<String> = Vec::new();
        for (ingredient, (k, optional)) in recipe.ingredients.iter().zip(lines.iter()) {
            let name = ingredient.name.trim();
            if k.is_empty() {
                continue;
            }
            // Needed when some line of the recipe names `k` without "(optional)".
            let needed = !optional || lines.iter().any(|(other, opt)| other == k && !opt);
            let counts = is_staple(k) || needed;
            let entry = seen.entry(k.clone()).or_default();
            *entry.1.entry(name).or_default() += 1;
            if counts && !counted.contains(k) {
                entry.0 += 1;
                counted.push(k.clone());
            }
        }
    }
    let mut list: Vec<ShelfIngredient> = seen
        .into_iter()
        .map(|(k, (count, spellings))| {
            let name = spellings
                .into_iter()
                .max_by(|a, b| {
                    let plain = |s: &str| fold(s) == k;
                    (plain(a.0), a.1, std::cmp::Reverse(a.0)).cmp(&(
                        plain(b.0),
                        b.1,
                        std::cmp::Reverse(b.0),
                    ))
                })
                .map(|(name, _)| name.to_owned())
                .unwrap_or_else(|| k.clone());
            ShelfIngredient {
                staple: is_staple(&k),
                key: k,
                name,
                recipes: count,
            }
        })
        .collect();
    list.sort_by(|a, b| a.key.cmp(&b.key));
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipes::Origin;
    use serde::Deserialize;
    use std::time::SystemTime;

    #[derive(Deserialize)]
    struct Cases {
        keys: Vec<(String, String)>,
        staples: Vec<(String, bool)>,
        optional: Vec<(String, bool)>,
    }

    fn table() -> Cases {
        serde_json::from_str(include_str!("../../../tests/ingredient-cases.json"))
            .expect("tests/ingredient-cases.json parses")
    }

    #[test]
    fn the_shared_table() {
        let t = table();
        for (name, want) in &t.keys {
            assert_eq!(&key(name), want, "key({name:?})");
        }
        for (name, want) in &t.staples {
            assert_eq!(is_staple(&key(name)), *want, "is_staple(key({name:?}))");
        }
        for (name, want) in &t.optional {
            assert_eq!(is_optional(name), *want, "is_optional({name:?})");
        }
    }

    #[test]
    fn a_key_is_its_own_key() {
        let t = table();
        let sample = Recipes::sample().expect("sample");
        let names = t.keys.iter().map(|(name, _)| name.clone()).chain(
            sample
                .all()
                .iter()
                .flat_map(|r| r.ingredients.iter().map(|i| i.name.to_string())),
        );
        for name in names.chain(
            [
                "Fresh fresh mint",
                "Sugar syrup, .",
                "Freshly Squeezed Fresh Lime",
            ]
            .map(String::from),
        ) {
            let once = key(&name);
            assert_eq!(key(&once), once, "key(key({name:?}))");
        }
    }

    /// `analysis` in `tests/shelf-cases.json`, shared with `tests/js/bar.test.mjs`.
    #[derive(Deserialize)]
    struct AnalysisTable {
        recipes: serde_json::Value,
        cases: Vec<AnalysisCase>,
    }
    #[derive(Deserialize)]
    struct AnalysisCase {
        about: String,
        shelf: Vec<String>,
        can_make: Vec<u64>,
        missing_one: Vec<Missing>,
        next_bottles: Vec<Bottle>,
    }
    #[derive(Deserialize)]
    struct Missing {
        id: u64,
        missing: String,
    }
    #[derive(Deserialize)]
    struct Bottle {
        key: String,
        name: String,
        unlocks: Vec<u64>,
    }

    #[test]
    fn the_shared_analysis_table() {
        #[derive(Deserialize)]
        struct File {
            analysis: AnalysisTable,
        }
        let file: File = serde_json::from_str(include_str!("../../../tests/shelf-cases.json"))
            .expect("tests/shelf-cases.json parses");
        let table = file.analysis;
        let text = table.recipes.to_string();
        let recipes = Recipes::parse(&text, Origin::Embedded, SystemTime::UNIX_EPOCH)
            .expect("the analysis recipes are valid");
        let listed: Vec<u64> = table
            .recipes
            .as_array()
            .expect("a list")
            .iter()
            .map(|r| r["id"].as_u64().expect("an id"))
            .collect();
        let order: Vec<u64> = recipes.all().iter().map(|r| r.id).collect();
        assert_eq!(
            order, listed,
            "the table lists recipes in the collection's order"
        );
        let needs = Needs::new(&recipes);
        assert!(table.cases.len() >= 3);
        for case in table.cases {
            let shelf: HashSet<String> = case.shelf.iter().map(|s| key(s)).collect();
            let want = Analysis {
                can_make: case.can_make,
                missing_one: case
                    .missing_one
                    .into_iter()
                    .map(|m| MissingOne {
                        id: m.id,
                        missing: m.missing,
                    })
                    .collect(),
                next_bottles: case
                    .next_bottles
                    .into_iter()
                    .map(|b| NextBottle {
                        key: b.key,
                        name: b.name,
                        unlocks: b.unlocks,
                    })
                    .collect(),
            };
            assert_eq!(analyse(&needs, &shelf), want, "{}", case.about);
        }
    }

    #[test]
    fn gaps_agree_with_missing() {
        let recipes = Recipes::sample().expect("sample");
        let needs = Needs::new(&recipes);
        let shelf: HashSet<String> = ["gin", "lime juice", "sugar syrup", "campari"]
            .map(String::from)
            .into();
        let stocked = needs.stocked(&shelf);
        for (position, r) in recipes.all().iter().enumerate() {
            let want = missing(&super::needs(r), &shelf).len();
            assert_eq!(stocked.gaps(position), want, "{}", r.name);
        }
        assert_eq!(stocked.gaps(recipes.len()), 0, "past the end: nothing");
    }

    #[test]
    fn distinct_folds_spellings_together_and_counts_recipes() {
        let recipes = Recipes::parse(
            r#"[{"id": 1, "name": "A", "ingredients": [
                   {"name": "Lime juice", "measure": "20", "unit": "ml"},
                   {"name": "Fresh Lime Juice", "measure": "5", "unit": "ml"},
                   {"name": "Soda Water", "measure": "", "unit": "top up"}]},
                {"id": 2, "name": "B", "ingredients": [
                   {"name": "lime juice", "measure": "20", "unit": "ml"},
                   {"name": "Crème de Cacao (White)", "measure": "20", "unit": "ml"}]},
                {"id": 3, "name": "C", "ingredients": [
                   {"name": "Lime Juice", "measure": "20", "unit": "ml"},
                   {"name": "Lime Juice", "measure": "20", "unit": "ml"}]}]"#,
            Origin::Embedded,
            SystemTime::UNIX_EPOCH,
        )
        .expect("valid");
        let list = distinct(&recipes);
        let keys: Vec<&str> = list.iter().map(|i| i.key.as_str()).collect();
        assert_eq!(keys, ["creme de cacao (white)", "lime juice", "soda water"]);
        let lime = &list[1];
        assert_eq!(lime.recipes, 3, "each recipe counts once");
        assert_eq!(
            lime.name, "Lime Juice",
            "a plain spelling, most frequent first"
        );
        assert!(!lime.staple);
        assert!(list[2].staple);
        assert_eq!(list[0].name, "Crème de Cacao (White)");
    }
}
