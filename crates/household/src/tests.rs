use super::*;
use tempfile::TempDir;

pub(super) fn open() -> (TempDir, Household) {
    let dir = tempfile::tempdir().unwrap();
    let h = Household::open_in(dir.path()).unwrap();
    (dir, h)
}

pub(super) fn alice() -> Person {
    Person::new("Alice@Example.com", Some("Alice"))
}

pub(super) fn bob() -> Person {
    Person::new("bob@example.com", None)
}

#[test]
fn a_person_is_their_login_in_lower_case_with_a_name() {
    assert_eq!(alice().login, "alice@example.com");
    assert_eq!(bob().name, "bob");
}

#[test]
fn the_file_is_private_wal_and_full_sync_at_the_latest_schema() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, h) = open();
    let mode = std::fs::metadata(dir.path().join(FILE_NAME))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let db = h.writer();
    let journal: String = db
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    let sync: i64 = db
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .unwrap();
    let version: i64 = db
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        (journal.as_str(), sync, version),
        ("wal", 2, schema::VERSION)
    );
}

#[test]
fn favourites_are_per_person_and_the_change_made_last_wins() {
    let (_dir, h) = open();
    assert!(
        h.set_favourite(&alice(), 7, true, Some(1_000))
            .unwrap()
            .applied
    );
    h.set_favourite(&alice(), 3, true, Some(1_000)).unwrap();
    // Made earlier (an offline phone) than the star: changes nothing, says what is stored.
    let late = h.set_favourite(&alice(), 7, false, Some(500)).unwrap();
    assert_eq!(
        late,
        Toggle {
            on: true,
            at: 1_000,
            applied: false
        }
    );
    assert_eq!(h.mine("alice@example.com").unwrap().favourites, [3, 7]);
    assert!(h.mine("bob@example.com").unwrap().favourites.is_empty());
    h.set_favourite(&alice(), 7, false, Some(2_000)).unwrap();
    assert_eq!(h.mine("alice@example.com").unwrap().favourites, [3]);
    // The taking away is remembered: an older star arriving later does not bring it back.
    assert!(
        !h.set_favourite(&alice(), 7, true, Some(1_500))
            .unwrap()
            .applied
    );
    assert_eq!(h.mine("alice@example.com").unwrap().favourites, [3]);
}

#[test]
fn a_time_from_the_future_counts_as_now() {
    let (_dir, h) = open();
    let far = now_ms() + 365 * 86_400_000;
    let t = h.set_favourite(&alice(), 1, true, Some(far)).unwrap();
    assert!(t.at <= now_ms());
    // So a real later change still wins.
    assert!(h.set_favourite(&alice(), 1, false, None).unwrap().applied);
    assert!(matches!(
        h.set_favourite(&alice(), 1, true, Some(-1)),
        Err(HouseholdError::Refused { field, .. }) if field == "at"
    ));
}

#[test]
fn ratings_show_to_the_household_as_an_average_with_who_rated() {
    let (_dir, h) = open();
    h.set_rating(&alice(), 5, Some(4), None).unwrap();
    h.set_rating(&bob(), 5, Some(5), None).unwrap();
    h.set_rating(&bob(), 6, Some(2), None).unwrap();
    let r = h.ratings_of(5).unwrap();
    assert_eq!((r.average, r.count), (Some(4.5), 2));
    let names: Vec<_> = r.by.iter().map(|b| (b.name.as_str(), b.stars)).collect();
    assert_eq!(names, [("Alice", 4), ("bob", 5)]);
    h.set_rating(&alice(), 5, None, None).unwrap();
    assert_eq!(h.ratings_of(5).unwrap().count, 1);
    assert_eq!(h.ratings_of(99).unwrap().average, None);
    for bad in [0, 6] {
        assert!(
            matches!(h.set_rating(&alice(), 5, Some(bad), None), Err(HouseholdError::Refused { field, .. }) if field == "stars")
        );
    }
}

#[test]
fn a_note_written_over_another_devices_change_keeps_both() {
    let (_dir, h) = open();
    let write = |text: &str, was: Option<&str>| {
        let change = NoteChange {
            text: Some(text.into()),
            was: Some(was.map(str::to_owned)),
            ..NoteChange::default()
        };
        h.set_note(&alice(), 7, change).unwrap()
    };
    assert!(write("less sugar", None).conflicts.is_empty());
    // The laptop changed it from "less sugar"...
    assert!(
        write("less sugar, more lime", Some("less sugar"))
            .conflicts
            .is_empty()
    );
    // ...while the phone, offline, also wrote over "less sugar".
    let state = write("use demerara", Some("less sugar"));
    assert_eq!(state.text.as_deref(), Some("use demerara"));
    assert_eq!(state.conflicts, ["less sugar, more lime"]);
    let mine = h.mine("alice@example.com").unwrap();
    assert_eq!(mine.note_conflicts[&7], ["less sugar, more lime"]);
    // Settling it: the person saw both and kept a combination.
    let settle = NoteChange {
        text: Some("demerara, more lime".into()),
        was: Some(Some("use demerara".into())),
        settles: vec!["less sugar, more lime".into()],
        at: None,
    };
    assert!(
        h.set_note(&alice(), 7, settle)
            .unwrap()
            .conflicts
            .is_empty()
    );
    assert!(
        h.mine("alice@example.com")
            .unwrap()
            .note_conflicts
            .is_empty()
    );
    // Every text a note lost is still in the database.
    let kept: i64 = h
        .db()
        .query_row("SELECT count(*) FROM replaced_notes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, 3);
}

#[test]
fn notes_are_capped_and_refuse_invisible_characters() {
    let (_dir, h) = open();
    let long = NoteChange {
        text: Some("x".repeat(2_001)),
        ..NoteChange::default()
    };
    assert!(
        matches!(h.set_note(&alice(), 1, long), Err(HouseholdError::Refused { field, .. }) if field == "text")
    );
    let bidi = NoteChange {
        text: Some("abc\u{202e}".into()),
        ..NoteChange::default()
    };
    assert!(h.set_note(&alice(), 1, bidi).is_err());
    let lines = NoteChange {
        text: Some("line one\nline two".into()),
        ..NoteChange::default()
    };
    assert!(h.set_note(&alice(), 1, lines).is_ok());
}

#[test]
fn the_made_log_keeps_each_time_once_newest_first() {
    let (_dir, h) = open();
    h.add_made(&alice(), 7, Some(1_000)).unwrap();
    h.add_made(&alice(), 7, Some(1_000)).unwrap();
    h.add_made(&alice(), 3, Some(2_000)).unwrap();
    assert_eq!(
        h.mine("alice@example.com").unwrap().made,
        [(3, 2_000), (7, 1_000)]
    );
    assert!(h.remove_made(&alice(), 7, 1_000).unwrap());
    assert!(!h.remove_made(&alice(), 7, 1_000).unwrap());
    assert_eq!(h.mine("alice@example.com").unwrap().made, [(3, 2_000)]);
}

#[test]
fn the_shelf_is_the_households_folded_and_checked_whole() {
    let (_dir, h) = open();
    h.change_shelf(
        &alice(),
        &["Gin".into(), "Fresh Lime Juice".into()],
        &[],
        None,
    )
    .unwrap();
    h.change_shelf(&bob(), &["Campari".into()], &["gin".into()], None)
        .unwrap();
    let shelf: Vec<_> = h.shelf().unwrap().into_iter().collect();
    assert_eq!(shelf, ["campari", "lime juice"]);
    let both = h.change_shelf(&alice(), &["Rum".into()], &["rum".into()], None);
    assert!(matches!(both, Err(HouseholdError::Refused { field, .. }) if field == "out[0]"));
    let empty = h.change_shelf(&alice(), &["Vodka".into(), "  ".into()], &[], None);
    assert!(matches!(empty, Err(HouseholdError::Refused { field, .. }) if field == "have[1]"));
    // Refused whole: vodka was not ticked either.
    assert!(!h.shelf().unwrap().contains("vodka"));
}

#[test]
fn a_backup_round_trips_and_merging_it_loses_nothing() {
    let (_dir, h) = open();
    h.set_favourite(&alice(), 7, true, Some(1_000)).unwrap();
    h.set_rating(&alice(), 7, Some(4), Some(1_000)).unwrap();
    let note = NoteChange {
        text: Some("ours".into()),
        at: Some(5_000),
        ..NoteChange::default()
    };
    h.set_note(&alice(), 7, note).unwrap();
    h.add_made(&alice(), 7, Some(1_000)).unwrap();
    h.change_shelf(&bob(), &["Gin".into()], &[], Some(1_000))
        .unwrap();
    let backup = h.export().unwrap();
    let text = serde_json::to_vec(&backup).unwrap();
    assert_eq!(Backup::from_slice(&text).unwrap(), backup);

    let (_dir2, other) = open();
    let note = NoteChange {
        text: Some("theirs".into()),
        at: Some(2_000),
        ..NoteChange::default()
    };
    other.set_note(&alice(), 7, note).unwrap();
    other.set_favourite(&alice(), 7, true, Some(2_500)).unwrap();
    other
        .set_favourite(&alice(), 7, false, Some(3_000))
        .unwrap();
    let taken = other.import(&backup, 1_000).unwrap();
    assert_eq!((taken.people, taken.favourites, taken.notes), (2, 1, 1));
    let mine = other.mine("alice@example.com").unwrap();
    // The later un-star stays; the later note is on top, the other kept beside it.
    assert!(mine.favourites.is_empty());
    assert_eq!(mine.notes[&7], "ours");
    assert_eq!(mine.note_conflicts[&7], ["theirs"]);
    assert_eq!(mine.ratings[&7], 4);
    assert_eq!(mine.made, [(7, 1_000)]);
    assert!(other.shelf().unwrap().contains("gin"));
    // Loading it again changes nothing more.
    other.import(&backup, 1_000).unwrap();
    assert_eq!(other.mine("alice@example.com").unwrap(), mine);
}

#[test]
fn a_file_that_is_not_a_backup_is_refused_naming_the_field() {
    let good = r#"{"format":"libations-household","version":1,"exported_at":0,"shelf":[],
        "people":[{"login":"a@b","name":"A","ratings":[{"id":1,"stars":4,"at":0},{"id":2,"stars":9,"at":0}]}]}"#;
    let refused = |text: &str| match Backup::from_slice(text.as_bytes()) {
        Err(HouseholdError::Refused { field, .. }) => field,
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(refused(good), "people[0].ratings[1].stars");
    assert_eq!(
        refused(&good.replace("\"version\":1", "\"version\":7")),
        "version"
    );
    assert_eq!(
        refused(&good.replace("libations-household", "other")),
        "format"
    );
    assert_eq!(
        refused(&good.replace("\"stars\":4", "\"stars\":\"4\"")),
        "people[0].ratings[0].stars"
    );
    assert_eq!(
        refused(&good.replace("\"name\":\"A\"", "\"name\":\"A\",\"extra\":1")),
        "people[0].extra"
    );
    assert_eq!(refused("[1,2]"), "(file)");
}

#[test]
fn check_reads_the_schema_version_and_the_integrity_check() {
    let (dir, h) = open();
    h.change_shelf(&alice(), &["Gin".into()], &[], None)
        .unwrap();
    let path = dir.path().join(FILE_NAME);
    let ok = check_file(&path, None).unwrap();
    assert!(
        ok.contains(&format!("OK, schema version {}", schema::VERSION))
            && ok.contains("1 people, 1 ingredients"),
        "{ok}"
    );
    drop(h);
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(
        &junk,
        b"not a database at all, just text that is long enough",
    )
    .unwrap();
    assert!(check_file(&junk, None).unwrap_err().contains("junk.sqlite"));
}

#[test]
fn a_database_from_a_newer_libations_is_refused_unchanged() {
    let (dir, h) = open();
    h.writer().pragma_update(None, "user_version", 99).unwrap();
    drop(h);
    let e = Household::open_in(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("schema version 99") && e.contains(FILE_NAME),
        "{e}"
    );
}

#[test]
fn a_seal_appends_one_commit_frame_and_changes_nothing() {
    // What makes it seal off a failed commit's frames (tests/suite/household_safety.rs proves
    // that with real failing syscalls): it writes a frame, where the next commit would.
    let (dir, h) = open();
    h.set_favourite(&alice(), 3, true, None).unwrap();
    let wal = dir.path().join(format!("{FILE_NAME}-wal"));
    let before = std::fs::metadata(&wal).unwrap().len();
    let mine = h.mine(&alice().login).unwrap();
    let mut db = h.writer();
    let page: u32 = db.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    schema::seal(&mut db).unwrap();
    let version: i64 = db
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    drop(db);
    let after = std::fs::metadata(&wal).unwrap().len();
    assert_eq!(
        after,
        before + 24 + u64::from(page),
        "one frame: its header and one page"
    );
    assert_eq!(version, schema::VERSION);
    assert_eq!(h.mine(&alice().login).unwrap(), mine);
}

#[test]
fn a_note_keeps_twenty_conflicts_then_refuses_until_settled() {
    let (_dir, h) = open();
    let stale = |text: String| NoteChange {
        text: Some(text),
        // Every device wrote over a text that is gone: each change is stale.
        was: Some(Some("the first text".into())),
        ..NoteChange::default()
    };
    h.set_note(
        &alice(),
        7,
        NoteChange {
            text: Some("top 0".into()),
            ..NoteChange::default()
        },
    )
    .unwrap();
    for i in 1..=limits::NOTE_CONFLICTS {
        let state = h.set_note(&alice(), 7, stale(format!("top {i}"))).unwrap();
        assert_eq!(state.conflicts.len(), i);
    }
    let replaced = |h: &Household| -> i64 {
        h.db()
            .query_row("SELECT count(*) FROM replaced_notes", [], |r| r.get(0))
            .unwrap()
    };
    let kept_before = replaced(&h);
    let refused = h.set_note(&alice(), 7, stale("one too many".into()));
    let Err(HouseholdError::Refused { field, message }) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(field, "was");
    assert!(message.contains("20"), "{message}");
    // Nothing written: the text on top, its conflicts and the history are as they were.
    let mine = h.mine("alice@example.com").unwrap();
    assert_eq!(mine.notes[&7], format!("top {}", limits::NOTE_CONFLICTS));
    assert_eq!(mine.note_conflicts[&7].len(), limits::NOTE_CONFLICTS);
    assert_eq!(replaced(&h), kept_before);
    // Settling some makes room again.
    let settle = NoteChange {
        text: Some("settled".into()),
        was: Some(Some(format!("top {}", limits::NOTE_CONFLICTS))),
        settles: mine.note_conflicts[&7][..5].to_vec(),
        at: None,
    };
    assert_eq!(h.set_note(&alice(), 7, settle).unwrap().conflicts.len(), 15);
}

#[test]
fn a_notes_history_keeps_the_newest_fifty() {
    let (_dir, h) = open();
    for i in 0..60 {
        let change = NoteChange {
            text: Some(format!("version {i}")),
            ..NoteChange::default()
        };
        h.set_note(&alice(), 7, change).unwrap();
    }
    let kept = h.replaced_notes("alice@example.com", 7).unwrap();
    assert_eq!(kept.len(), limits::REPLACED_KEPT);
    assert_eq!(kept[0].text, "version 58");
    assert_eq!(kept[limits::REPLACED_KEPT - 1].text, "version 9");
    let rows: i64 = h
        .db()
        .query_row("SELECT count(*) FROM replaced_notes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, limits::REPLACED_KEPT as i64);
}
