//! The fast path for valid files: typed serde with the validator's rules (unknown keys,
//! duplicate keys, whole-number ids, non-empty names, unique ids, `null` lists as empty).
//! `None` means "not accepted here"; the full validator (`validate`) then decides and
//! explains. Text with a character the validator warns about (control, bidi, invisible:
//! [`invisible`]) is not accepted here either, so that the warning is given.

use super::validate::MAX_ID;
use super::{IngredientLine, Recipe};
use crate::text::invisible;
use compact_str::CompactString;
use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};
use std::collections::HashSet;

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
}

/// The recipes of `text`, if it is valid and exact. With `characters`, text the validator
/// would warn about is not accepted (the store checks characters itself and leaves them off).
pub(crate) fn parse(text: &str, characters: bool) -> Option<Vec<Recipe>> {
    let items: Vec<FastRecipe> = serde_json::from_str(text).ok()?;
    let mut ids = HashSet::with_capacity(items.len());
    let mut out = Vec::with_capacity(items.len());
    for r in items {
        if r.name.trim().is_empty() || r.id > MAX_ID || !ids.insert(r.id) {
            return None;
        }
        let lines = r.ingredients.unwrap_or_default();
        // At its length: grown by pushing, the lists kept 500 KiB spare at 5,000 recipes.
        let mut ingredients = Vec::with_capacity(lines.len());
        for i in lines {
            if i.name.trim().is_empty() {
                return None;
            }
            ingredients.push(IngredientLine {
                name: i.name,
                measure: i.measure.unwrap_or_default(),
                unit: i.unit.unwrap_or_default(),
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
        if characters && has_invisible(&recipe) {
            return None;
        }
        out.push(recipe);
    }
    Some(out)
}

/// A list of strings (`null` is empty) in a `Vec` of exactly its length. Serde's own
/// gets no length from JSON and grows to 4 entries at the first; most lists hold one,
/// and the spare room took 1,370 KiB at 5,000 recipes. Shrinking afterwards costs a
/// reallocation per list (loading took a quarter longer), so the entries are gathered
/// on the stack and the list allocated once.
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

/// Whether any text of `r` has a character [`invisible`] finds (newlines and tabs are
/// text in notes).
fn has_invisible(r: &Recipe) -> bool {
    let lists = [&r.base, &r.glass, &r.method, &r.ice, &r.garnish];
    let rows = r.ingredients.iter();
    std::iter::once(&r.name)
        .chain(lists.into_iter().flatten())
        .chain(rows.flat_map(|i| [&i.name, &i.measure, &i.unit]))
        .any(|t| invisible(t, false).is_some())
        || invisible(&r.notes, true).is_some()
}
