//! The bottles' vocabulary over the real collections: a modest home bar's sixteen bottles,
//! ticked in the words people use, make what a bartender would pour from them, and
//! `libations check` says how much of each collection the vocabulary understands.

use crate::common;

use libations::ingredients::key;
use libations::recipes::Recipes;
use libations::vocabulary::{Shelf, Vocabulary};
use std::process::Command;

/// The shelf from issue #42: sixteen bottles in a household's own words.
const SIXTEEN: [&str; 16] = [
    "Gin",
    "Bourbon",
    "Rye whiskey",
    "Sweet vermouth",
    "Dry vermouth",
    "Campari",
    "Cointreau",
    "Angostura bitters",
    "Limes",
    "Lemons",
    "Sugar",
    "White rum",
    "Tequila blanco",
    "Cognac",
    "Soda water",
    "Honey",
];

/// What a bartender pours from those sixteen (IBA calls the Martini "Dry Martini").
const POURS: [&str; 13] = [
    "Negroni",
    "Manhattan",
    "Old Fashioned",
    "Whiskey Sour",
    "Margarita",
    "Daiquiri",
    "Sidecar",
    "White Lady",
    "Boulevardier",
    "Americano",
    "Martini",
    "Dry Martini",
    "Between the Sheets",
];

/// The recipe's rows that block it on `shelf`: none optional, none met.
fn unmet(
    vocabulary: &Vocabulary,
    shelf: &Shelf,
    recipe: &libations::recipes::Recipe,
) -> Vec<String> {
    recipe
        .ingredients
        .iter()
        .filter(|line| !fold_optional(&line.name))
        .filter(|line| vocabulary.meets_name(shelf, &line.name).is_none())
        .map(|line| line.name.to_string())
        .collect()
}

fn fold_optional(name: &str) -> bool {
    name.to_lowercase().contains("(optional)")
}

#[test]
fn sixteen_bottles_make_what_a_bartender_would_pour() {
    let vocabulary = Vocabulary::built_in();
    let shelf = Shelf::new(vocabulary, SIXTEEN);
    for file in ["iba.json", "bar-assistant.json"] {
        let Some(path) = common::shared_data(file) else {
            return;
        };
        let recipes = Recipes::from_file(&path).expect("shared data loads");
        let mut found = 0;
        for recipe in recipes.all() {
            if !POURS.iter().any(|p| key(p) == key(&recipe.name)) {
                continue;
            }
            found += 1;
            let unmet = unmet(vocabulary, &shelf, recipe);
            assert!(unmet.is_empty(), "{file}: {} needs {unmet:?}", recipe.name);
        }
        assert_eq!(found, 12, "{file}: the twelve drinks are in the collection");
        // And the shelf is not a key to everything: drinks that need what it lacks stay
        // out (a Mojito needs mint, a Paloma grapefruit soda, an Aviation maraschino).
        for lacking in ["Mojito", "Aviation", "Paloma", "Espresso Martini"] {
            if let Some(recipe) = recipes.all().iter().find(|r| key(&r.name) == key(lacking)) {
                assert!(
                    !unmet(vocabulary, &shelf, recipe).is_empty(),
                    "{file}: {lacking} is not makeable"
                );
            }
        }
    }
}

#[test]
fn check_says_how_much_of_each_collection_it_understands() {
    for file in ["iba.json", "bar-assistant.json", "scale-5000.json"] {
        let Some(path) = common::shared_data(file) else {
            return;
        };
        let out = Command::new(common::BIN)
            .arg("check")
            .arg(&path)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find(|l| l.starts_with("vocabulary: "))
            .unwrap_or_else(|| panic!("{file}: no vocabulary line in {stdout}"));
        let percent: f64 = line["vocabulary: ".len()..]
            .split('%')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("{file}: {line}"));
        assert!(percent >= 98.0, "{file}: {line}");
    }
}

#[test]
fn check_names_the_lines_it_does_not_know() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("house.json");
    let recipes = r#"[{"id": 1, "name": "House Sour", "glass": ["Coupe"], "ingredients": [
        {"name": "Gin", "measure": "50", "unit": "ml"},
        {"name": "Grandma's Shrub", "measure": "20", "unit": "ml"}]}]"#;
    std::fs::write(&path, recipes).expect("writes");
    let out = Command::new(common::BIN)
        .arg("check")
        .arg(&path)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("vocabulary: 50.0% of 2 ingredient lines name a bottle it knows; not known: Grandma's Shrub (1)"),
        "{stdout}"
    );
}
