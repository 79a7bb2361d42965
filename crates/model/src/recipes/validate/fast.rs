//! The fast path for a valid, exact file: typed serde straight into the model.
//!
//! Why: nearly every load is of a valid file, and building a duplicate-keeping value of
//! it first (as the reporting validator must, to say where a problem is) costs time and
//! memory for nothing. This path decides nothing of its own: its serde types refuse
//! unknown and duplicate keys and wrong JSON types, and every other rule (ids, names,
//! unique ids, characters) is asked of [`rules`]. `None` means "not accepted here"; the
//! reporting validator ([`super::report`]) then decides and explains. Text with a character
//! the loader warns about ([`rules::odd_character`]) is not accepted here either, so that
//! the warning is given.

use super::super::{IngredientLine, Recipe};
use super::rules::{self, UniqueIds};
use compact_str::CompactString;
use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

/// Text is read straight into [`CompactString`]: short text never takes a heap block.
/// Lists are read by [`exact_list`]: missing or `null` is empty.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastRecipe {
    id: u64,
    name: CompactString,
    #[serde(default, deserialize_with = "exact_list")]
    base: Vec<CompactString>,
    #[serde(default, deserialize_with = "exact_list")]
    glass: Vec<CompactString>,
    #[serde(default, deserialize_with = "exact_list")]
    method: Vec<CompactString>,
    #[serde(default, deserialize_with = "exact_list")]
    ice: Vec<CompactString>,
    ingredients: Option<Vec<FastIngredient>>,
    #[serde(default, deserialize_with = "exact_list")]
    garnish: Vec<CompactString>,
    notes: Option<CompactString>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastIngredient {
    name: CompactString,
    measure: Option<CompactString>,
    unit: Option<CompactString>,
    abv: Option<f64>,
    #[serde(default, deserialize_with = "exact_list")]
    substitutes: Vec<CompactString>,
    exact: Option<bool>,
}

/// The recipes of `text`, if it is valid and exact. With `characters`, text the validator
/// would warn about is not accepted (the store checks characters itself and leaves them off).
pub(crate) fn parse(text: &str, characters: bool) -> Option<Vec<Recipe>> {
    let items: Vec<FastRecipe> = serde_json::from_str(text).ok()?;
    let mut ids: UniqueIds<()> = UniqueIds::with_capacity(items.len());
    let mut out = Vec::with_capacity(items.len());
    for r in items {
        if !rules::named(&r.name) || rules::id(r.id).is_err() || ids.claim(r.id, || ()).is_err() {
            return None;
        }
        let lines = r.ingredients.unwrap_or_default();
        // At its length: grown by pushing, the lists keep spare room (docs/bench/notes-recipes.md).
        let mut ingredients = Vec::with_capacity(lines.len());
        for i in lines {
            if !rules::named(&i.name) || !i.substitutes.iter().all(|s| rules::named(s)) {
                return None;
            }
            ingredients.push(IngredientLine {
                name: i.name,
                measure: i.measure.unwrap_or_default(),
                unit: i.unit.unwrap_or_default(),
                abv: match i.abv {
                    None => None,
                    Some(v) => Some(crate::recipes::Abv::new(v)?),
                },
                substitutes: i.substitutes,
                exact: i.exact.unwrap_or(false),
            });
        }
        let recipe = Recipe {
            id: r.id,
            name: r.name,
            base: r.base,
            glass: r.glass,
            method: r.method,
            ice: r.ice,
            ingredients,
            garnish: r.garnish,
            notes: r.notes.unwrap_or_default(),
        };
        if characters && rules::has_odd_character(&recipe) {
            return None;
        }
        out.push(recipe);
    }
    Some(out)
}

/// A list of strings (`null` is empty) in a `Vec` of exactly its length. Serde's own
/// gets no length from JSON and grows to 4 entries at the first, while most lists hold
/// one; shrinking afterwards costs a reallocation per list. So the entries are gathered
/// on the stack and the list allocated once (measurements: docs/bench/notes-recipes.md).
fn exact_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<CompactString>, D::Error> {
    struct Exact;
    impl<'de> Visitor<'de> for Exact {
        type Value = Vec<CompactString>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of strings or null")
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut head: [CompactString; 8] = Default::default();
            let mut n = 0;
            while n < head.len() {
                match seq.next_element()? {
                    Some(s) => head[n] = s,
                    None => break,
                }
                n += 1;
            }
            let mut list: Vec<_> = head[..n].iter_mut().map(std::mem::take).collect();
            while let Some(s) = seq.next_element()? {
                list.push(s);
            }
            Ok(list)
        }
    }
    d.deserialize_option(Exact)
}
