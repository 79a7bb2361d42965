//! Changes of several recipes at once ([`Edit::CreateMany`]): one journal line, one undo,
//! and all-or-nothing through a refusal, a crash before the file write and a reopen.

use super::tests::{create, drink, many, on_disk, store, update};
use super::*;
use serde_json::{Value, json};

fn drinks(n: usize) -> Vec<Value> {
    (0..n).map(|i| drink(&format!("Bulk {i}"))).collect()
}

fn journal_lines(store: &Store) -> usize {
    std::fs::read_to_string(Journal::path_for(store.path()))
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn many_recipes_are_one_change_and_one_undo_takes_them_all_back() {
    let (_dir, store) = store();
    let before = on_disk(&store);
    let saved = many(&store, drinks(300), "a").unwrap();
    let entry = saved.entry.unwrap();
    assert_eq!((entry.n, entry.id, entry.count()), (1, 6, 300));
    assert_eq!(entry.name, "Bulk 0 and 299 more");
    assert_eq!(entry.max_id, 305);
    assert_eq!(journal_lines(&store), 1, "one line in the journal");
    let disk = on_disk(&store);
    assert_eq!(disk.len(), 302);
    assert_eq!(disk.get(305).unwrap().name.to_string(), "Bulk 299");
    assert_eq!(saved.recipes.all(), disk.all());

    let undone = store.apply(Edit::Undo(1), "a").unwrap();
    let undo = undone.entry.unwrap();
    assert_eq!(
        (undo.count(), undo.action, undo.undoes),
        (300, Action::Deleted, Some(1))
    );
    assert_eq!(on_disk(&store).all(), before.all(), "all gone again");
    assert_eq!(undone.recipes.len(), 2);
    // Undoing the undo brings all of them back, under the same ids.
    store.apply(Edit::Undo(2), "a").unwrap();
    assert_eq!(on_disk(&store).len(), 302);
    // A new recipe never takes an id the bulk change gave.
    let next = create(&store, drink("After"), "a").unwrap();
    assert_eq!(next.entry.unwrap().id, 306);

    // The journal reads back whole.
    let path = store.path().to_owned();
    drop(store);
    let again = Store::open(&path, 1 << 20).unwrap();
    let changes = again.changes();
    assert_eq!(changes.len(), 4);
    assert_eq!(changes[3].count(), 300);
}

#[test]
fn one_bad_recipe_refuses_them_all_naming_it() {
    let (_dir, store) = store();
    let before = std::fs::read(store.path()).unwrap();
    let mut list = drinks(3);
    list[1]["name"] = json!("");
    list[2]["colour"] = json!("red");
    let Err(StoreError::Invalid(problems)) = many(&store, list, "a") else {
        panic!("refused");
    };
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert!(fields.contains(&"recipes[1].name"), "{problems:?}");
    assert!(fields.contains(&"recipes[2].colour"), "{problems:?}");
    assert_eq!(std::fs::read(store.path()).unwrap(), before);
    assert_eq!(journal_lines(&store), 0);
    assert!(matches!(
        store.apply(Edit::CreateMany(vec![]), "a"),
        Err(StoreError::Invalid(_))
    ));
}

#[test]
fn a_bulk_change_that_would_pass_the_file_cap_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipes.json");
    std::fs::write(&path, "[]").unwrap();
    let store = Store::open(&path, 20_000).unwrap();
    let Err(StoreError::Invalid(problems)) = many(&store, drinks(100), "a") else {
        panic!("refused");
    };
    assert!(
        problems[0].message.contains("--max-recipes-bytes"),
        "{problems:?}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "[]");
}

#[test]
fn an_undo_of_a_bulk_change_after_one_of_its_recipes_changed_is_a_conflict() {
    let (_dir, store) = store();
    many(&store, drinks(3), "a").unwrap();
    let v = version(on_disk(&store).get(7).unwrap());
    update(&store, 7, v, drink("Edited"), "a").unwrap();
    let err = store.apply(Edit::Undo(1), "a").unwrap_err();
    assert!(
        matches!(&err, StoreError::Conflict(c) if c.id == 7),
        "{err:?}"
    );
    assert_eq!(on_disk(&store).len(), 5, "nothing taken back");
}

#[test]
fn a_crash_between_the_journal_line_and_the_file_leaves_none_of_them() {
    // The line is synced before the file is replaced: a kill -9 in between leaves a line
    // whose change the file never got. Reopening drops it whole, and the ids it gave
    // stay given.
    let (_dir, store) = store();
    let before = std::fs::read(store.path()).unwrap();
    many(&store, drinks(5), "a").unwrap();
    let path = store.path().to_owned();
    drop(store);
    std::fs::write(&path, &before).unwrap();
    let again = Store::open(&path, 1 << 20).unwrap();
    assert!(again.changes().is_empty(), "the change never happened");
    assert_eq!(on_disk(&again).len(), 2);
    let next = create(&again, drink("Next"), "a").unwrap();
    assert_eq!(next.entry.unwrap().id, 11, "ids 6-10 stay given out");
}

#[test]
fn a_refused_bulk_change_still_in_the_file_is_put_back_whole() {
    let (_dir, store) = store();
    let before = std::fs::read(store.path()).unwrap();
    let saved = many(&store, drinks(4), "a").unwrap();
    let entry = saved.entry.unwrap();
    let path = store.path().to_owned();
    let journal = Journal::path_for(&path);
    drop(store);
    // What a failed directory sync whose put-back also failed writes down.
    let mark = Mark {
        at: entry.at,
        restarted: None,
        set_aside: None,
        max_id: entry.max_id,
        last_n: entry.n,
        refused: Some(entry.n),
    };
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.push_str(&serde_json::to_string(&mark).unwrap());
    text.push('\n');
    std::fs::write(&journal, text).unwrap();
    let again = Store::open(&path, 1 << 20).unwrap();
    assert!(again.changes().is_empty());
    let disk = on_disk(&again);
    assert_eq!(disk.len(), 2, "every recipe of it is taken out");
    assert_eq!(
        Recipes::parse(
            &String::from_utf8(before).unwrap(),
            Origin::File(path.clone()),
            SystemTime::now()
        )
        .unwrap()
        .all(),
        disk.all()
    );
}
