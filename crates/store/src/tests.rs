use super::*;
use serde_json::{Value, json};

const FILE: &str = r#"[
  {"id": 1, "name": "Negroni", "base": ["Gin"], "ingredients": [{"name": "Gin", "measure": "25", "unit": "ml", "brand": "kept too"}], "ZZ": "kept"},
  {"id": 5, "name": "Daiquiri", "base": ["Rum"]}
]"#;

pub(super) fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipes.json");
    std::fs::write(&path, FILE).unwrap();
    let store = Store::open(&path, 1 << 20).unwrap();
    (dir, store)
}

pub(super) fn on_disk(store: &Store) -> Recipes {
    Recipes::from_file(store.path()).expect("the file on disk always loads")
}

pub(super) fn drink(name: &str) -> Value {
    json!({"name": name, "base": ["Gin"], "ingredients": [
        {"name": "Gin", "measure": "50", "unit": "ml"},
        {"name": "Lime Juice", "measure": "25", "unit": "ml"},
        {"name": "Sugar Syrup", "measure": "15", "unit": "ml"}]})
}

/// Recipe `draft` (JSON) added as the web layer adds it: checked where it arrives
/// ([`Submitted::check`]; a refusal is [`StoreError::Invalid`], as the API answers it), then
/// applied.
pub(super) fn create(store: &Store, draft: Value, who: &str) -> Result<Saved, StoreError> {
    let draft = Submitted::check(&draft, None).map_err(StoreError::Invalid)?;
    store.apply(Edit::Create(draft), who)
}

/// Recipe `id` replaced by `draft` (JSON), likewise.
pub(super) fn update(
    store: &Store,
    id: u64,
    expected: String,
    draft: Value,
    who: &str,
) -> Result<Saved, StoreError> {
    let draft = Submitted::check(&draft, Some(id)).map_err(StoreError::Invalid)?;
    store.apply(
        Edit::Update {
            id,
            expected,
            draft,
        },
        who,
    )
}

/// Recipes `drafts` (JSON) added as one change, likewise.
pub(super) fn many(store: &Store, drafts: Vec<Value>, who: &str) -> Result<Saved, StoreError> {
    let drafts = Submitted::check_many(&drafts).map_err(StoreError::Invalid)?;
    store.apply(Edit::CreateMany(drafts), who)
}

pub(super) fn version_of(store: &Store, id: u64) -> String {
    version(on_disk(store).get(id).unwrap())
}

#[test]
fn create_gives_the_next_id_and_writes_a_pretty_loadable_file() {
    let (_dir, store) = store();
    let saved = create(&store, drink("Gimlet"), "alice@example.com").unwrap();
    let entry = saved.entry.unwrap();
    assert_eq!((entry.n, entry.id, entry.action), (1, 6, Action::Created));
    assert_eq!(entry.who, "alice@example.com");
    let text = std::fs::read_to_string(store.path()).unwrap();
    assert!(
        text.starts_with("[\n  {\n    \"id\": 1,\n    \"name\": \"Negroni\""),
        "{text}"
    );
    assert!(
        text.contains("\"ZZ\": \"kept\""),
        "unknown keys of other recipes stay"
    );
    let disk = on_disk(&store);
    assert_eq!(disk.get(6).unwrap().ingredients.len(), 3);
    assert_eq!(saved.recipes.len(), disk.len());
    assert_eq!(
        saved.recipes.all(),
        disk.all(),
        "the collection served is the file's"
    );
}

#[test]
fn the_collection_after_each_kind_of_change_is_the_file_s() {
    let (_dir, store) = store();
    let created = create(&store, drink("Aviation"), "a").unwrap();
    assert_eq!(created.recipes.all(), on_disk(&store).all());
    let v = version_of(&store, 1);
    let changed = update(&store, 1, v, drink("Zombie"), "a").unwrap();
    assert_eq!(
        changed.recipes.all(),
        on_disk(&store).all(),
        "re-sorted by the new name"
    );
    let v = version_of(&store, 5);
    let deleted = store
        .apply(Edit::Delete { id: 5, expected: v }, "a")
        .unwrap();
    assert_eq!(deleted.recipes.all(), on_disk(&store).all());
    let undone = store
        .apply(Edit::Undo(deleted.entry.unwrap().n), "a")
        .unwrap();
    assert_eq!(undone.recipes.all(), on_disk(&store).all());
}

#[test]
fn a_hand_edit_after_a_save_is_seen_by_the_next_save() {
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let before_hand_edit = version_of(&store, 6);
    let text = std::fs::read_to_string(store.path()).unwrap();
    std::fs::write(
        store.path(),
        text.replace("\"Gimlet\"", "\"Gimlet (hand)\""),
    )
    .unwrap();
    let err = update(&store, 6, before_hand_edit, drink("Gimlet (app)"), "a").unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err}");
    assert_eq!(on_disk(&store).get(6).unwrap().name, "Gimlet (hand)");
}

#[test]
fn ids_are_never_reused_after_a_delete() {
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let v = version_of(&store, 6);
    store
        .apply(Edit::Delete { id: 6, expected: v }, "a")
        .unwrap();
    let v = version_of(&store, 5);
    store
        .apply(Edit::Delete { id: 5, expected: v }, "a")
        .unwrap();
    let saved = create(&store, drink("Southside"), "a").unwrap();
    assert_eq!(saved.entry.unwrap().id, 7);
    // Also after the store is opened again, from the journal's high-water mark.
    let path = store.path().to_owned();
    drop(store);
    let again = Store::open(&path, 1 << 20).unwrap();
    let saved = create(&again, drink("Gin Rickey"), "a").unwrap();
    assert_eq!(saved.entry.unwrap().id, 8);
}

#[test]
fn a_stale_version_is_a_conflict_with_both_versions_and_nothing_written() {
    let (_dir, store) = store();
    let old = version_of(&store, 1);
    let mut first = drink("Negroni");
    first["notes"] = json!("stirred, not shaken");
    update(&store, 1, old.clone(), first, "a").unwrap();
    let before = std::fs::read(store.path()).unwrap();
    let err = update(&store, 1, old.clone(), drink("Negroni Sbagliato"), "b").unwrap_err();
    let StoreError::Conflict(c) = err else {
        panic!("{err}")
    };
    assert_eq!(c.current.unwrap().notes, "stirred, not shaken");
    assert_eq!(c.yours.unwrap().name(), "Negroni Sbagliato");
    assert_ne!(c.current_version.unwrap(), old);
    assert_eq!(std::fs::read(store.path()).unwrap(), before);
    assert!(matches!(
        store.apply(
            Edit::Delete {
                id: 1,
                expected: old
            },
            "b"
        ),
        Err(StoreError::Conflict(_))
    ));
}

#[test]
fn a_hand_edit_made_meanwhile_is_a_conflict_not_overwritten() {
    let (_dir, store) = store();
    let old = version_of(&store, 5);
    let hand = FILE.replace("\"Daiquiri\"", "\"Daiquiri No. 1\"");
    std::fs::write(store.path(), hand).unwrap();
    let err = update(&store, 5, old, drink("Daiquiri"), "a").unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err}");
    assert_eq!(on_disk(&store).get(5).unwrap().name, "Daiquiri No. 1");
}

#[test]
fn an_edit_keeps_unknown_keys_and_names_the_changed_fields() {
    let (_dir, store) = store();
    let v = version_of(&store, 1);
    let mut draft = drink("Negroni");
    draft["ingredients"] = json!([{"name": "Gin", "measure": "30", "unit": "ml"}]);
    let entry = update(&store, 1, v, draft, "a").unwrap().entry.unwrap();
    assert_eq!(entry.fields, ["ingredients"]);
    assert_eq!(entry.before.unwrap()["ZZ"], "kept");
    let text = std::fs::read_to_string(store.path()).unwrap();
    assert!(
        text.contains("\"brand\": \"kept too\""),
        "an ingredient's unknown key stays"
    );
    assert!(
        std::fs::read_to_string(store.path())
            .unwrap()
            .contains("\"ZZ\": \"kept\"")
    );
}

#[test]
fn saving_the_same_content_writes_nothing() {
    let (_dir, store) = store();
    let v = version_of(&store, 5);
    let saved = update(
        &store,
        5,
        v,
        json!({"name": "Daiquiri", "base": ["Rum"]}),
        "a",
    )
    .unwrap();
    assert!(saved.entry.is_none());
    assert!(store.changes().is_empty());
}

#[test]
fn every_problem_is_named_by_field_and_nothing_is_saved() {
    let (_dir, store) = store();
    let draft = json!({
        "name": "",
        "colour": "red",
        "glass": ["Coupe", ""],
        "ingredients": [{"measure": "1"}, {"name": "Gin", "unit": "x".repeat(30)}],
        "notes": "n".repeat(NOTES + 1),
    });
    let err = create(&store, draft, "a").unwrap_err();
    let StoreError::Invalid(problems) = err else {
        panic!("{err}")
    };
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    for field in ["name", "colour", "ingredients[0].name"] {
        assert!(fields.contains(&field), "{field} not named in {problems:?}");
    }
    assert!(store.changes().is_empty());
    assert_eq!(std::fs::read_to_string(store.path()).unwrap(), FILE);
    // Caps are checked on a draft that passes the loader's rules.
    let draft = json!({"name": "Long", "glass": ["Coupe", " "], "ingredients": [{"name": "Gin", "unit": "x".repeat(30)}], "notes": "n".repeat(NOTES + 1)});
    let StoreError::Invalid(problems) = create(&store, draft, "a").unwrap_err() else {
        panic!()
    };
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["glass[1]", "ingredients[0].unit", "notes"]);
}

const NOTES: usize = caps::NOTES_CHARS;

#[test]
fn undo_reverses_create_change_and_delete_and_is_itself_undoable() {
    let (_dir, store) = store();
    let created = create(&store, drink("Gimlet"), "a").unwrap().entry.unwrap();
    let v = version_of(&store, 5);
    let deleted = store
        .apply(Edit::Delete { id: 5, expected: v }, "a")
        .unwrap()
        .entry
        .unwrap();
    assert!(on_disk(&store).get(5).is_none());
    let undo = store
        .apply(Edit::Undo(deleted.n), "b")
        .unwrap()
        .entry
        .unwrap();
    assert_eq!(
        (undo.action, undo.undoes),
        (Action::Created, Some(deleted.n))
    );
    assert_eq!(on_disk(&store).get(5).unwrap().name, "Daiquiri");
    store.apply(Edit::Undo(created.n), "b").unwrap();
    assert!(on_disk(&store).get(6).is_none());
    store.apply(Edit::Undo(undo.n), "b").unwrap();
    assert!(on_disk(&store).get(5).is_none());
    assert_eq!(store.changes().len(), 5);
    assert_eq!(store.changes()[0].n, 5, "newest first");
}

#[test]
fn undo_of_a_recipe_changed_since_is_a_conflict() {
    let (_dir, store) = store();
    let created = create(&store, drink("Gimlet"), "a").unwrap().entry.unwrap();
    let v = version_of(&store, 6);
    update(&store, 6, v, drink("Gimlet No. 2"), "b").unwrap();
    let err = store.apply(Edit::Undo(created.n), "a").unwrap_err();
    let StoreError::Conflict(c) = err else {
        panic!("{err}")
    };
    assert_eq!(c.current.unwrap().name, "Gimlet No. 2");
    assert!(matches!(
        store.apply(Edit::Undo(99), "a"),
        Err(StoreError::NoChange(99))
    ));
}

#[test]
fn opening_drops_a_journaled_change_the_file_never_got() {
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let file = std::fs::read(store.path()).unwrap();
    create(&store, drink("Southside"), "a").unwrap();
    // As if the process died after the journal line and before the rename.
    let path = store.path().to_owned();
    drop(store);
    std::fs::write(&path, file).unwrap();
    let again = Store::open(&path, 1 << 20).unwrap();
    let names: Vec<String> = again.changes().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["Gimlet"]);
    let saved = create(&again, drink("Bramble"), "a").unwrap();
    let saved = saved.entry.unwrap();
    // The dropped change's number and id stay given out: it may have been seen.
    assert_eq!((saved.n, saved.id), (3, 8));
    drop(again);
    let again = Store::open(&path, 1 << 20).unwrap();
    let last = again.changes().into_iter().next().unwrap();
    assert_eq!(
        last.name, "Bramble",
        "a mark keeps the numbers, not a change"
    );
}

#[test]
fn a_read_only_file_cannot_be_opened_for_editing() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, store) = store();
    std::fs::set_permissions(store.path(), std::fs::Permissions::from_mode(0o444)).unwrap();
    let err = Store::open(store.path(), 1 << 20).unwrap_err();
    assert!(matches!(err, StoreError::NotWritable { .. }), "{err}");
    assert!(err.to_string().contains("recipes.json"), "{err}");
}

#[test]
fn a_second_store_on_the_same_file_is_refused_until_the_first_closes() {
    let (_dir, store) = store();
    let path = store.path().to_owned();
    let err = Store::open(&path, 1 << 20).unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    drop(store);
    assert!(Store::open(&path, 1 << 20).is_ok());
}

#[test]
fn a_recipe_created_then_removed_by_hand_keeps_its_id_taken() {
    let (_dir, store) = store();
    let created = create(&store, drink("Gimlet"), "a").unwrap().entry.unwrap();
    assert_eq!(created.id, 6);
    let path = store.path().to_owned();
    drop(store);
    // By hand, the file goes back to a content without recipe 6 (not byte-equal to the
    // file the change started from): the change did happen, so its id stays taken.
    std::fs::write(&path, FILE.replace("Daiquiri", "Daiquiri No. 2")).unwrap();
    let again = Store::open(&path, 1 << 20).unwrap();
    assert_eq!(again.changes().len(), 1, "the change is still history");
    let next = create(&again, drink("Southside"), "a")
        .unwrap()
        .entry
        .unwrap();
    assert_eq!(next.id, 7, "id 6 is never given out again");
}

#[test]
fn a_symlinked_file_is_edited_through_its_link() {
    let (dir, store) = store();
    let real = store.path().to_owned();
    drop(store);
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let store = Store::open(&link, 1 << 20).unwrap();
    create(&store, drink("Gimlet"), "a").unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    assert!(
        std::fs::read_to_string(&real).unwrap().contains("Gimlet"),
        "the file it names changed"
    );
}

#[test]
fn a_field_spelled_with_a_folding_letter_is_written_once_and_still_loads() {
    // The loader reads "baſe" (long s) as `base`, as Go's encoding/json does; a save that
    // knew only ASCII case wrote it twice (once as `base`), and the file no longer loaded.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipes.json");
    std::fs::write(
        &path,
        "[{\"id\": 1, \"name\": \"Negroni\", \"ba\u{17f}e\": [\"Gin\"]}, {\"id\": 2, \"name\": \"Daiquiri\"}]",
    )
    .unwrap();
    let store = Store::open(&path, 1 << 20).unwrap();
    let v = version_of(&store, 2);
    update(&store, 2, v, drink("Daiquiri"), "a").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.matches("\"base\"").count() + text.matches("ba\u{17f}e").count(),
        2,
        "{text}"
    );
    assert_eq!(on_disk(&store).get(1).unwrap().base, ["Gin"]);
}

#[test]
fn a_row_s_substitutes_and_exact_are_kept_by_an_edit_that_does_not_give_them() {
    let (_dir, store) = store();
    let mut draft = drink("Negroni");
    draft["ingredients"] = json!([{"name": "Gin", "measure": "30", "unit": "ml",
        "substitutes": ["Genever"], "exact": true}]);
    update(&store, 1, version_of(&store, 1), draft, "a").unwrap();
    // As the form sends it: neither. The row keeps both, in the file and in what is served.
    let mut draft = drink("Negroni");
    draft["ingredients"] = json!([{"name": "Gin", "measure": "40", "unit": "ml"}]);
    let saved = update(&store, 1, version_of(&store, 1), draft, "a").unwrap();
    for recipes in [on_disk(&store), saved.recipes] {
        let row = &recipes.get(1).unwrap().ingredients[0];
        assert_eq!(
            (row.substitutes.clone(), row.exact, row.measure.as_str()),
            (vec!["Genever".into()], true, "40")
        );
    }
}

#[test]
fn a_row_s_abv_is_saved_and_kept_by_an_edit_that_does_not_give_one() {
    let (_dir, store) = store();
    let v = version_of(&store, 1);
    let mut draft = drink("Negroni");
    draft["ingredients"] = json!([{"name": "Gin", "measure": "30", "unit": "ml", "abv": 47.3}]);
    let edit = |expected, draft| update(&store, 1, expected, draft, "a");
    edit(v, draft).unwrap();
    let row = |s: &Store| {
        on_disk(s).get(1).unwrap().ingredients[0]
            .abv
            .map(|a| a.get())
    };
    assert_eq!(row(&store), Some(47.3), "saved");
    assert!(
        std::fs::read_to_string(store.path())
            .unwrap()
            .contains("\"abv\": 47.3")
    );
    // As the form sends it: no abv. The row keeps its own.
    let mut draft = drink("Negroni");
    draft["ingredients"] = json!([{"name": "Gin", "measure": "40", "unit": "ml"}]);
    edit(version_of(&store, 1), draft).unwrap();
    assert_eq!(row(&store), Some(47.3), "kept by an edit without one");
    let mut draft = drink("Negroni");
    draft["ingredients"] = json!([{"name": "Gin", "measure": "40", "unit": "ml", "abv": 140}]);
    let refused = edit(version_of(&store, 1), draft);
    assert!(
        matches!(refused, Err(StoreError::Invalid(ref p)) if p[0].field == "ingredients[0].abv"),
        "{refused:?}"
    );
}
