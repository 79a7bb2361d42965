//! "What can I make" on a real collection: `tests/shelf-cases.json` holds a fixed shelf and
//! the recipes of ../shared/data/iba.json one can make with it, or is one ingredient short
//! of, worked out by hand. `tests/js/bar.test.mjs` checks static/js/rules.js against the same file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use libations::ingredients::{key, missing, needs};
use libations::recipes::Recipes;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};

#[derive(Deserialize)]
struct Case {
    file: String,
    shelf: Vec<String>,
    can_make: Vec<String>,
    missing_one: BTreeMap<String, String>,
}

#[test]
fn makeable_and_missing_one_on_iba() {
    let case: Case = serde_json::from_str(include_str!("shelf-cases.json")).expect("parses");
    let Some(path) = common::shared_data(&case.file) else {
        return;
    };
    let recipes = Recipes::from_file(&path).expect("shared data loads");
    let shelf: HashSet<String> = case.shelf.iter().map(|s| key(s)).collect();
    let mut can_make = Vec::new();
    let mut missing_one = BTreeMap::new();
    for r in recipes.all() {
        let need = needs(r);
        match missing(&need, &shelf)[..] {
            [] => can_make.push(r.name.to_string()),
            [one] => {
                missing_one.insert(r.name.to_string(), one.to_owned());
            }
            _ => {}
        }
    }
    can_make.sort();
    let mut want = case.can_make;
    want.sort();
    assert_eq!(can_make, want);
    assert_eq!(missing_one, case.missing_one);
}
