use super::*;
use crate::ingredients::missing;
use crate::recipes::Origin;
use serde::Deserialize;
use std::time::SystemTime;

/// `analysis` in `tests/shelf-cases.json`, shared with `tests/js/bar.test.mjs`.
#[derive(Deserialize)]
struct AnalysisTable {
    recipes: serde_json::Value,
    cases: Vec<AnalysisCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisCase {
    #[allow(dead_code)]
    about: String,
    shelf: Vec<String>,
    can_make: Vec<u64>,
    how: Vec<Made>,
    missing_one: Vec<MissingOne>,
    next_bottles: Vec<NextBottle>,
    /// The household's rules (the `household` section).
    #[serde(default)]
    rules: Vec<crate::vocabulary::Rule>,
}

/// A section of `tests/shelf-cases.json`: `analysis`, or `household` (rules, substitutes).
fn table(section: &str) -> (Recipes, Vec<AnalysisCase>) {
    let file: serde_json::Value =
        serde_json::from_str(include_str!("../../../../tests/shelf-cases.json"))
            .expect("tests/shelf-cases.json parses");
    let table: AnalysisTable =
        serde_json::from_value(file[section].clone()).expect("the section is a table");
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
    (recipes, table.cases)
}

#[test]
fn the_shared_analysis_table() {
    let (recipes, cases) = table("analysis");
    assert!(cases.len() >= 5);
    run(&recipes, cases);
}

#[test]
fn the_shared_table_of_rules_and_substitutes() {
    let (recipes, cases) = table("household");
    assert!(cases.len() >= 3);
    run(&recipes, cases);
}

fn run(recipes: &Recipes, cases: Vec<AnalysisCase>) {
    let needs = Needs::new(recipes);
    for case in cases {
        let shelf: HashSet<String> = case.shelf.iter().cloned().collect();
        let want = Analysis {
            can_make: case.can_make,
            how: case.how,
            missing_one: case.missing_one,
            next_bottles: case.next_bottles,
        };
        let got = analyse(&needs, &shelf, &case.rules);
        assert_eq!(got, want, "{}", case.about);
    }
}

#[test]
fn the_vocabulary_meets_more_than_spelling() {
    // The vocabulary meets every row spelling did, and more: limes squeeze into lime
    // juice, sugar makes simple syrup.
    let recipes = Recipes::sample().expect("sample");
    let needs = Needs::new(&recipes);
    let shelf: HashSet<String> = ["gin", "limes", "sugar", "campari"]
        .map(String::from)
        .into();
    let stocked = needs.stocked(&shelf, &[]);
    let mut fewer = 0;
    for (position, r) in recipes.all().iter().enumerate() {
        let by_spelling = missing(&crate::ingredients::needs(r), &shelf).len();
        assert!(stocked.gaps(position) <= by_spelling, "{}", r.name);
        fewer += usize::from(stocked.gaps(position) < by_spelling);
    }
    assert!(fewer > 0, "the vocabulary meets some rows spelling did not");
    assert_eq!(stocked.gaps(recipes.len()), 0, "past the end: nothing");
}
