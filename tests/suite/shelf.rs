//! "What can I make" on a real collection: `tests/shelf-cases.json` holds a fixed shelf and
//! the recipes of ../shared/data/iba.json one can make with it, or is one bottle short of,
//! worked out by hand through data/vocabulary.json. `tests/js/bar.test.mjs` checks
//! static/js/model.js against the same file.

use crate::common;

use libations::makes::{Needs, analyse};
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
    let case: Case = serde_json::from_str(include_str!("../shelf-cases.json")).expect("parses");
    let Some(path) = common::shared_data(&case.file) else {
        return;
    };
    let recipes = Recipes::from_file(&path).expect("shared data loads");
    let shelf: HashSet<String> = case.shelf.iter().cloned().collect();
    let name = |id: u64| {
        let r = recipes.all().iter().find(|r| r.id == id).unwrap();
        r.name.to_string()
    };
    let analysis = analyse(&Needs::new(&recipes), &shelf, &[]);
    let mut names: Vec<String> = analysis.can_make.iter().map(|&id| name(id)).collect();
    names.sort();
    let mut want = case.can_make;
    want.sort();
    assert_eq!(names, want);
    let short: BTreeMap<String, String> = analysis
        .missing_one
        .iter()
        .map(|m| (name(m.id), m.missing.clone()))
        .collect();
    assert_eq!(short, case.missing_one);
    let unlocked: usize = analysis.next_bottles.iter().map(|b| b.unlocks.len()).sum();
    assert_eq!(
        unlocked,
        short.len(),
        "each recipe one short is one bottle's"
    );
}
