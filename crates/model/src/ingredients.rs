//! Ingredients as a shelf sees them: one name per bottle, and which ones never block a drink.
//!
//! "What can I make" compares the ingredients a phone's owner has ticked with what each
//! recipe needs. Both sides of that comparison use [`key`]: the server to list every
//! distinct ingredient of a collection (`/shelf`, `/api/ingredients`), `static/js/model.js` to
//! read a recipe's needs. `tests/ingredient-cases.json` is the table both are tested against.
//!
//! What a shelf makes of those needs, read through the vocabulary, is [`crate::makes`].
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
