//! The bottles' vocabulary over the real collections: a modest home bar's sixteen bottles,
//! ticked in the words people use, make what a bartender would pour from them, and
//! `libations check` says how much of each collection the vocabulary understands; and over
//! HTTP, `/api/bar` answers a shelf by bottle: what it makes and how, what to buy next.

use crate::common;

use common::household::{person, shelf_over, write};
use libations::ingredients::key;
use libations::recipes::Recipes;
use libations::vocabulary::{Reading, Shelf, Vocabulary};
use reqwest::StatusCode;
use serde_json::{Value, json};
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

/// `/api/bar` on the real binary over `file`, after the household ticks `shelf` in its
/// own words; and the collection, to name recipes.
async fn bar_over_http(file: &str, shelf: &[&str]) -> Option<(Value, Recipes)> {
    let (server, bar, recipes, _state) = shelf_over(file, "--local-edit", shelf).await?;
    server.stop();
    Some((bar, recipes))
}

fn id_of(recipes: &Recipes, name: &str) -> u64 {
    let found = recipes.all().iter().find(|r| key(&r.name) == key(name));
    found
        .unwrap_or_else(|| panic!("{name} is in the collection"))
        .id
}

/// The words `/api/bar` gives for how the shelf makes recipe `id` (none: simply there).
fn how(bar: &Value, id: u64) -> Vec<String> {
    let made = bar["how"].as_array().expect("how is a list");
    let entry = made.iter().find(|m| m["id"] == json!(id));
    entry.map_or_else(Vec::new, |m| {
        serde_json::from_value(m["how"].clone()).expect("how: a list of words")
    })
}

/// Every bottle `/api/bar` says to buy is named as a bottle ("Bourbon", never "Bourbon or
/// Rye Whiskey" or "Bourbon Whiskey") and is nothing the shelf already meets.
fn names_bottles_the_shelf_lacks(bar: &Value, shelf: &[&str], file: &str) {
    let vocabulary = Vocabulary::built_in();
    let held = Shelf::new(vocabulary, shelf.iter().copied());
    let bottles = bar["next_bottles"].as_array().expect("a list");
    let missing = bar["missing_one"].as_array().expect("a list");
    let names = bottles
        .iter()
        .map(|b| &b["name"])
        .chain(missing.iter().map(|m| &m["missing"]));
    for name in names {
        let name = name.as_str().expect("a name");
        assert!(
            !name.contains(" or "),
            "{file}: {name} is a spelling, not a bottle"
        );
        if let Reading::Entry(at) = vocabulary.read(name) {
            assert_eq!(
                vocabulary.entry(at).name,
                name,
                "{file}: the bottle's own name"
            );
        }
        let met = vocabulary.meets_name(&held, name);
        assert!(met.is_none(), "{file}: {name} is on the shelf as {met:?}");
    }
}

#[tokio::test]
async fn the_bar_answers_the_households_words_by_bottle_over_http() {
    for file in ["iba.json", "bar-assistant.json"] {
        let Some((bar, recipes)) = bar_over_http(file, &SIXTEEN).await else {
            return;
        };
        let can_make = bar["can_make"].as_array().expect("a list");
        for pour in POURS {
            if let Some(r) = recipes.all().iter().find(|r| key(&r.name) == key(pour)) {
                assert!(can_make.contains(&json!(r.id)), "{file}: {pour}: {bar}");
            }
        }
        let sidecar = how(&bar, id_of(&recipes, "Sidecar"));
        let lemons = "Lemons for Lemon juice (squeezed from lemons: about 35 ml a lemon; keeps best the day it is squeezed)";
        assert_eq!(sidecar, ["Cointreau for Triple sec", lemons], "{file}");
        assert!(
            how(&bar, id_of(&recipes, "Negroni")).is_empty(),
            "{file}: all there"
        );
        names_bottles_the_shelf_lacks(&bar, &SIXTEEN, file);
    }
}

/// A smoky, eggy shelf of our own: Lagavulin is an Islay Scotch and a Scotch, eggs give egg
/// white, honey makes honey syrup; and the bottle to buy next is named as a bottle.
#[tokio::test]
async fn lagavulin_eggs_and_honey_meet_their_rows_over_http() {
    const SHELF: [&str; 7] = [
        "Lagavulin",
        "Lemons",
        "Honey",
        "Ginger",
        "Pisco",
        "Eggs",
        "Sugar",
    ];
    let Some((bar, recipes)) = bar_over_http("bar-assistant.json", &SHELF).await else {
        return;
    };
    let penicillin = id_of(&recipes, "Penicillin");
    let can_make = bar["can_make"].as_array().expect("a list");
    assert!(can_make.contains(&json!(penicillin)), "{bar}");
    let words = how(&bar, penicillin);
    for want in [
        "Lagavulin for Scotch whisky",
        "Lagavulin for Islay Scotch",
        "Honey and Water for Honey syrup",
    ] {
        assert!(
            words.iter().any(|w| w.starts_with(want)),
            "{want}: {words:?}"
        );
    }
    names_bottles_the_shelf_lacks(&bar, &SHELF, "bar-assistant.json");
    let bourbon = bar["next_bottles"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|b| b["name"] == "Bourbon");
    let bourbon = bourbon.unwrap_or_else(|| panic!("Bourbon is a next bottle: {bar}"));
    let sour = json!(id_of(&recipes, "Whiskey Sour"));
    assert!(
        bourbon["unlocks"]
            .as_array()
            .expect("a list")
            .contains(&sour),
        "{bourbon}"
    );

    let Some((bar, recipes)) = bar_over_http("iba.json", &SHELF).await else {
        return;
    };
    let pisco = id_of(&recipes, "Pisco Sour");
    assert!(
        bar["can_make"]
            .as_array()
            .expect("a list")
            .contains(&json!(pisco)),
        "{bar}"
    );
    let eggs = "Eggs for Egg white (the white of an egg, about 30 ml; keeps a day in the fridge)";
    assert!(
        how(&bar, pisco).contains(&eggs.to_owned()),
        "{:?}",
        how(&bar, pisco)
    );
    names_bottles_the_shelf_lacks(&bar, &SHELF, "iba.json");
}

/// Without JavaScript, `/?q=can:make` is the server's page: under each recipe the shelf
/// makes with a stand-in or a prep, the words for it; under one it simply has, no words.
#[tokio::test]
async fn can_make_says_how_on_the_page_without_javascript() {
    let Some(path) = common::shared_data("iba.json") else {
        return;
    };
    let state = tempfile::tempdir().expect("temp dir");
    let extra = ["--recipes-file", path.to_str().unwrap(), "--local-edit"];
    let server = person(state.path(), "alice@example.com", &extra);
    let (status, _) = write(
        &server,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": SIXTEEN})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let page = common::client()
        .get(server.url("/?q=can:make"))
        .send()
        .await
        .expect("answers");
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.expect("a page");
    // The list for everyone (no personal term) says nothing about a shelf.
    let all = common::client()
        .get(server.url("/"))
        .send()
        .await
        .expect("answers");
    assert!(!all.text().await.expect("a page").contains("class=\"have\""));
    server.stop();
    let row = |name: &str| {
        let at = html.find(&format!("<span class=\"name\">{name}</span>"));
        let rest = &html[at.unwrap_or_else(|| panic!("{name} is listed: {html}"))..];
        rest[..rest.find("</li>").expect("the row ends")].to_owned()
    };
    let sidecar = row("Sidecar");
    assert!(
        sidecar.contains("can make now: Cointreau for Triple sec; Lemons for Lemon juice (squeezed from lemons: about 35 ml a lemon; keeps best the day it is squeezed)"),
        "{sidecar}"
    );
    let negroni = row("Negroni");
    assert!(
        negroni.contains("<span class=\"have\">can make now</span>"),
        "{negroni}"
    );
}
