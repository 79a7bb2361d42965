//! The store over a journal that a crash, a full disk, an older version or a hand left
//! in a bad state, and files changed under it while it runs.

use super::tests::{create, drink, on_disk, store, update, version_of};
use super::*;

fn numbers(store: &Store) -> Vec<(u64, String)> {
    let mut all: Vec<(u64, String)> = store.changes().into_iter().map(|e| (e.n, e.name)).collect();
    all.reverse();
    all
}

fn journal_of(store: &Store) -> PathBuf {
    Journal::path_for(store.path())
}

#[test]
fn a_journal_left_by_a_failed_save_of_an_older_version_is_repaired_on_open() {
    // What versions before this one left after a save whose file write failed while its
    // journal line could not be taken back: the phantom line, then the next save under
    // the same number, from the same file.
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let before_real = file_hash(&std::fs::read(store.path()).unwrap());
    let real = create(&store, drink("Real"), "a").unwrap();
    let real = real.entry.unwrap();
    let journal = journal_of(&store);
    let path = store.path().to_owned();
    drop(store);
    let mut phantom = real.clone();
    phantom.name = "Phantom".into();
    phantom.file_before = Some(before_real);
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.insert(1, serde_json::to_string(&phantom).unwrap());
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();

    let again = Store::open(&path, 1 << 20).unwrap();
    assert_eq!(
        numbers(&again),
        [(1, "Gimlet".into()), (2, "Real".into())],
        "the phantom is gone, the real change kept"
    );
    let undone = again.apply(Edit::Undo(2), "a").unwrap();
    assert_eq!(undone.entry.unwrap().n, 3);
    assert!(
        on_disk(&again).get(real.id).is_none(),
        "undo of the real change works"
    );
}

#[test]
fn a_change_appended_onto_a_torn_line_is_kept_and_editing_stays_on() {
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let journal = journal_of(&store);
    let path = store.path().to_owned();
    let good = std::fs::read_to_string(&journal).unwrap();
    drop(store);
    // A full disk tore the append of change 2; versions before this one then appended the
    // next save right after the torn half.
    std::fs::write(&journal, format!("{good}{{\"n\":2,\"at\":17")).unwrap();
    let store = Store::open(&path, 1 << 20).unwrap();
    let southside = create(&store, drink("Southside"), "a").unwrap();
    assert_eq!(southside.entry.unwrap().n, 2);
    let text = std::fs::read_to_string(&journal).unwrap();
    let spliced = text.replacen("\n{\"n\":2", "\n{\"n\":2,\"at\":17{\"n\":2", 1);
    drop(store);
    std::fs::write(&journal, spliced).unwrap();
    let again = Store::open(&path, 1 << 20).unwrap();
    assert_eq!(
        numbers(&again),
        [(1, "Gimlet".into()), (2, "Southside".into())]
    );
    assert!(
        again.history_restarted().is_none(),
        "nothing had to be set aside"
    );
    create(&again, drink("Bramble"), "a").unwrap();
}

#[test]
fn an_unreadable_journal_is_set_aside_and_ids_stay_taken() {
    let (dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let made = create(&store, drink("Southside"), "a").unwrap();
    let id = made.entry.unwrap().id;
    let v = version_of(&store, id);
    store.apply(Edit::Delete { id, expected: v }, "a").unwrap();
    let journal = journal_of(&store);
    let path = store.path().to_owned();
    drop(store);
    // The lines that name the highest id and number no longer read; their numbers are
    // still taken from their text.
    let text = std::fs::read_to_string(&journal).unwrap();
    let text = text.replacen("{\"n\":2,", "{\"n\":2,,", 1);
    std::fs::write(&journal, text.replacen("{\"n\":3,", "{\"n\":3,,", 1)).unwrap();
    let again = Store::open(&path, 1 << 20).unwrap();
    let mark = again
        .history_restarted()
        .expect("the history page can say so");
    let aside = dir.path().join(mark.set_aside.clone().unwrap());
    assert!(aside.exists(), "the old journal is kept: {mark:?}");
    let next = create(&again, drink("Bramble"), "a").unwrap();
    let next = next.entry.unwrap();
    assert!(
        next.id > id,
        "id {id} of the deleted recipe is not given again"
    );
    assert_eq!(next.n, 4, "nor is a change number");
}

#[test]
fn a_journal_deleted_while_running_is_written_again_with_all_its_history() {
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    create(&store, drink("Southside"), "a").unwrap();
    std::fs::remove_file(journal_of(&store)).unwrap();
    let third = create(&store, drink("Bramble"), "a").unwrap();
    assert_eq!(third.entry.unwrap().n, 3);
    let path = store.path().to_owned();
    drop(store);
    let again = Store::open(&path, 1 << 20).unwrap();
    assert_eq!(
        numbers(&again),
        [
            (1, "Gimlet".into()),
            (2, "Southside".into()),
            (3, "Bramble".into())
        ]
    );
    let mark = again
        .history_restarted()
        .expect("says it was written again");
    let said = mark.restarted.unwrap_or_default();
    assert!(said.contains("deleted"), "{said}");
}

#[test]
fn a_journal_replaced_by_an_older_copy_while_running_keeps_counting() {
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let older = std::fs::read(journal_of(&store)).unwrap();
    let second = create(&store, drink("Southside"), "a").unwrap();
    let second = second.entry.unwrap();
    let v = version_of(&store, second.id);
    store
        .apply(
            Edit::Delete {
                id: second.id,
                expected: v,
            },
            "a",
        )
        .unwrap();
    let copy = journal_of(&store).with_extension("old");
    std::fs::write(&copy, older).unwrap();
    std::fs::rename(&copy, journal_of(&store)).unwrap();
    let next = create(&store, drink("Bramble"), "a").unwrap();
    let next = next.entry.unwrap();
    assert!(next.n > 3, "change numbers are not given twice: {}", next.n);
    assert!(next.id > second.id, "ids are not given twice");
}

#[test]
fn a_file_made_read_only_while_running_is_refused_naming_the_real_flag() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, store) = store();
    create(&store, drink("Gimlet"), "a").unwrap();
    let before = std::fs::read(store.path()).unwrap();
    std::fs::set_permissions(store.path(), std::fs::Permissions::from_mode(0o444)).unwrap();
    let err = create(&store, drink("Southside"), "a").unwrap_err();
    assert!(matches!(err, StoreError::NotWritable { .. }), "{err}");
    assert!(err.to_string().contains("--recipes-file"), "{err}");
    assert_eq!(std::fs::read(store.path()).unwrap(), before, "not replaced");
    assert_eq!(store.changes().len(), 1, "no history of it");
}

#[test]
fn a_key_the_loader_folds_is_the_same_key_to_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipes.json");
    // U+0131 (dotless i) upper-cases to I: the loader reads this key as `id`.
    std::fs::write(&path, "[{\"\u{131}d\": 1, \"name\": \"Negroni\"}]").unwrap();
    let store = Store::open(&path, 1 << 20).unwrap();
    let v = version_of(&store, 1);
    update(&store, 1, v, drink("Boulevardier"), "a").unwrap();
    let disk = on_disk(&store);
    assert_eq!(disk.len(), 1, "replaced in place, not added beside it");
    assert_eq!(disk.get(1).unwrap().name, "Boulevardier");
}
