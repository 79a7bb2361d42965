//! The bytes a change writes, pinned: the recipes file and the journal's lines after one
//! change of each kind, compared with goldens written by the store as it was when recipes
//! still travelled as `serde_json::Value` (`golden/`). Whatever type carries a recipe from
//! the request to the store, the same change must write the same bytes, and a journal
//! written before must still read.

use super::tests::{create, drink, many, store, update, version_of};
use super::*;
use serde_json::json;

/// Every kind of change, in turn: a create (a row with an `abv`), an update of the recipe
/// with unknown keys (kept, with its row's `brand`), a bulk create, a delete and its undo.
fn every_kind(store: &Store) {
    let mut gimlet = drink("Gimlet");
    gimlet["ingredients"][0]["abv"] = json!(41.2);
    gimlet["notes"] = json!("Shake hard.\n\tServe up: é, ü, “quotes”.");
    create(store, gimlet, "alice@example.com").unwrap();
    let negroni = json!({"id": 1, "name": "Negroni", "base": ["Gin"], "glass": ["Rocks"],
        "ingredients": [{"name": "Gin", "measure": "30", "unit": "ml"},
                        {"name": "Campari", "measure": "30", "unit": "ml"}],
        "strength": {"abv": 24}});
    let expected = version_of(store, 1);
    update(store, 1, expected, negroni, "bob@example.com").unwrap();
    let many_drinks = vec![drink("Aviation"), drink("Bee's Knees")];
    many(store, many_drinks, "alice@example.com").unwrap();
    let expected = version_of(store, 5);
    store
        .apply(Edit::Delete { id: 5, expected }, "bob@example.com")
        .unwrap();
    store.apply(Edit::Undo(4), "alice@example.com").unwrap();
}

/// The journal with each line's time (`"at":…`) made 0, the one thing that differs by run.
fn timeless(journal: &str) -> String {
    journal
        .lines()
        .map(|line| {
            let Some(start) = line.find("\"at\":") else {
                return format!("{line}\n");
            };
            let digits = &line[start + 5..];
            let end = digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
            format!("{}\"at\":0{}\n", &line[..start], &digits[end..])
        })
        .collect()
}

#[test]
fn every_kind_of_change_writes_the_bytes_it_always_wrote() {
    let (_dir, store) = store();
    every_kind(&store);
    let file = std::fs::read_to_string(store.path()).unwrap();
    let journal = std::fs::read_to_string(Journal::path_for(store.path())).unwrap();
    if std::env::var_os("LIBATIONS_WRITE_GOLDEN").is_some() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/golden");
        std::fs::write(dir.join("recipes.json"), &file).unwrap();
        std::fs::write(dir.join("journal.jsonl"), timeless(&journal)).unwrap();
    }
    assert_eq!(
        file,
        include_str!("golden/recipes.json"),
        "the recipes file"
    );
    assert_eq!(
        timeless(&journal),
        include_str!("golden/journal.jsonl"),
        "the journal"
    );
}

#[test]
fn a_journal_written_before_still_reads_and_undoes() {
    let (dir, store) = store();
    drop(store);
    let path = dir.path().join("recipes.json");
    std::fs::write(&path, include_str!("golden/recipes.json")).unwrap();
    std::fs::write(
        Journal::path_for(&path),
        include_str!("golden/journal.jsonl"),
    )
    .unwrap();
    let store = Store::open(&path, 1 << 20).unwrap();
    let undone = store.apply(Edit::Undo(3), "carol@example.com").unwrap();
    let entry = undone.entry.unwrap();
    assert_eq!((entry.n, entry.undoes), (6, Some(3)));
    let ids: Vec<u64> = undone.recipes.all().iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert!(
        ids.contains(&1) && ids.contains(&5) && ids.contains(&6),
        "{ids:?}"
    );
    let negroni = undone.recipes.get(1).unwrap();
    assert_eq!(negroni.ingredients[1].name, "Campari", "change 2 stays");
}
