use super::*;
use tempfile::TempDir;

fn open() -> (TempDir, Household) {
    let dir = tempfile::tempdir().unwrap();
    let h = Household::open_in(dir.path()).unwrap();
    (dir, h)
}

fn alice() -> Person {
    Person::new("Alice@Example.com", Some("Alice"))
}

fn bob() -> Person {
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
    let db = h.db();
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
    other
        .set_favourite(&alice(), 7, false, Some(3_000))
        .unwrap();
    let taken = other.import(&backup).unwrap();
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
    other.import(&backup).unwrap();
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
        refused(&good.replace("\"version\":1", "\"version\":3")),
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
    let ok = check_file(&path).unwrap();
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
    assert!(check_file(&junk).unwrap_err().contains("junk.sqlite"));
}

#[test]
fn a_database_from_a_newer_libations_is_refused_unchanged() {
    let (dir, h) = open();
    h.db().pragma_update(None, "user_version", 99).unwrap();
    drop(h);
    let e = Household::open_in(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("schema version 99") && e.contains(FILE_NAME),
        "{e}"
    );
}

#[test]
fn a_seal_appends_one_commit_frame_and_changes_nothing() {
    // What makes it seal off a failed commit's frames (tests/household_safety.rs proves
    // that with real failing syscalls): it writes a frame, where the next commit would.
    let (dir, h) = open();
    h.set_favourite(&alice(), 3, true, None).unwrap();
    let wal = dir.path().join(format!("{FILE_NAME}-wal"));
    let before = std::fs::metadata(&wal).unwrap().len();
    let mine = h.mine(&alice().login).unwrap();
    let mut db = h.db();
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

fn draft(title: &str, ids: &[u64]) -> MenuDraft {
    MenuDraft {
        title: title.into(),
        recipes: ids
            .iter()
            .map(|&id| MenuRecipe {
                id,
                description: None,
            })
            .collect(),
        can_make_now: false,
        show_ingredients: true,
    }
}

#[test]
fn menus_keep_their_order_and_descriptions_and_only_one_is_on() {
    let (_dir, h) = open();
    let mut friday = draft("  Friday ", &[5, 1, 3]);
    friday.recipes[1].description = Some(" bitter, strong ".into());
    friday.recipes[2].description = Some("   ".into());
    let a = h.add_menu(&alice(), &friday).unwrap();
    let b = h.add_menu(&bob(), &draft("Brunch", &[2])).unwrap();
    let menu = h.menu(a).unwrap().unwrap();
    assert_eq!(menu.title, "Friday");
    let ids: Vec<u64> = menu.recipes.iter().map(|r| r.id).collect();
    assert_eq!(ids, [5, 1, 3]);
    assert_eq!(
        menu.recipes[1].description.as_deref(),
        Some("bitter, strong")
    );
    assert_eq!(menu.recipes[2].description, None);
    assert!(!menu.on && menu.show_ingredients && !menu.can_make_now);
    assert_eq!(h.menu_on().unwrap(), None);

    assert!(h.switch_menu_on(a).unwrap());
    assert!(h.switch_menu_on(b).unwrap());
    let on: Vec<(i64, bool)> = h.menus().unwrap().iter().map(|m| (m.id, m.on)).collect();
    assert_eq!(on, [(a, false), (b, true)]);
    assert!(!h.switch_menu_on(999).unwrap());
    assert_eq!(h.menu_on().unwrap().unwrap().id, b);

    // Reordered and replaced whole; still on.
    let mut again = draft("Brunch", &[4, 2]);
    again.can_make_now = true;
    again.show_ingredients = false;
    assert!(h.put_menu(&alice(), b, &again).unwrap());
    let menu = h.menu_on().unwrap().unwrap();
    assert_eq!(
        menu.recipes.iter().map(|r| r.id).collect::<Vec<_>>(),
        [4, 2]
    );
    assert!(menu.on && menu.can_make_now && !menu.show_ingredients);
    assert!(!h.put_menu(&alice(), 999, &again).unwrap());
    // A menu's recipes count for the ids new recipes must not take.
    assert_eq!(h.highest_recipe().unwrap(), 5);

    h.switch_menus_off().unwrap();
    assert_eq!(h.menu_on().unwrap(), None);
    assert!(h.delete_menu(a).unwrap());
    assert!(!h.delete_menu(a).unwrap());
    assert_eq!(h.menus().unwrap().len(), 1);
}

#[test]
fn menus_are_refused_naming_the_field_and_nothing_is_kept() {
    let (_dir, h) = open();
    let refused = |d: &MenuDraft| match h.add_menu(&alice(), d) {
        Err(HouseholdError::Refused { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(refused(&draft(" ", &[])), "title");
    assert_eq!(refused(&draft(&"x".repeat(TITLE_CHARS + 1), &[])), "title");
    assert_eq!(refused(&draft("Line\nbreak", &[])), "title");
    assert_eq!(refused(&draft("Twice", &[1, 2, 1])), "recipes[2].id");
    let many: Vec<u64> = (1..=MENU_RECIPES as u64 + 1).collect();
    assert_eq!(refused(&draft("Many", &many)), "recipes");
    let mut long = draft("Long", &[1, 2]);
    long.recipes[1].description = Some("y".repeat(DESCRIPTION_CHARS + 1));
    assert_eq!(refused(&long), "recipes[1].description");
    let mut two_lines = draft("Two lines", &[1]);
    two_lines.recipes[0].description = Some("a\nb".into());
    assert_eq!(refused(&two_lines), "recipes[0].description");
    assert_eq!(refused(&draft("Huge id", &[u64::MAX])), "recipes[0].id");
    assert!(h.menus().unwrap().is_empty());
    // The exact caps are taken.
    let full: Vec<u64> = (1..=MENU_RECIPES as u64).collect();
    h.add_menu(&alice(), &draft(&"t".repeat(TITLE_CHARS), &full))
        .unwrap();
    for n in 1..MENUS {
        h.add_menu(&alice(), &draft(&format!("Menu {n}"), &[]))
            .unwrap();
    }
    assert_eq!(refused(&draft("One more", &[])), "title");
    assert_eq!(h.menus().unwrap().len(), MENUS);
}

#[test]
fn a_file_from_before_menus_is_migrated_keeping_everything() {
    let (dir, h) = open();
    h.set_favourite(&alice(), 3, true, None).unwrap();
    // As a version-1 file was: no menu tables.
    h.db()
        .execute_batch(
            "DROP TABLE strengths; DROP TABLE menu_recipes; DROP TABLE menus; PRAGMA user_version = 1;",
        )
        .unwrap();
    drop(h);
    let h = Household::open_in(dir.path()).unwrap();
    assert_eq!(h.mine(&alice().login).unwrap().favourites, [3]);
    let id = h.add_menu(&alice(), &draft("After", &[3])).unwrap();
    assert!(h.switch_menu_on(id).unwrap());
    let version: i64 = h
        .db()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3);
}

#[test]
fn the_household_s_strengths_are_kept_by_shelf_name_and_the_last_change_wins() {
    let (dir, h) = open();
    h.set_strength(
        &alice(),
        "Overproof Rum (Smith & Cross)",
        Some(57.0),
        Some(1_000),
    )
    .unwrap();
    h.set_strength(&alice(), "overproof rum", Some(63.0), Some(2_000))
        .unwrap();
    // An older change arriving later changes nothing.
    h.set_strength(&alice(), "Overproof Rum", Some(40.0), Some(1_500))
        .unwrap();
    let own = h.strengths().unwrap();
    assert_eq!(own.len(), 1);
    assert_eq!((own[0].name.as_str(), own[0].abv), ("overproof rum", 63.0));
    for bad in [-1.0, 100.5, f64::NAN] {
        let refused = h.set_strength(&alice(), "Gin", Some(bad), None);
        assert!(
            matches!(refused, Err(HouseholdError::Refused { ref field, .. }) if field == "abv"),
            "{bad}: {refused:?}"
        );
    }
    // Taken back: gone from the table, and it stays gone after reopening.
    h.set_strength(&alice(), "Overproof Rum", None, Some(3_000))
        .unwrap();
    drop(h);
    let h = Household::open_in(dir.path()).unwrap();
    assert!(h.strengths().unwrap().is_empty());
}

#[test]
fn a_backup_keeps_the_menus_and_merging_it_never_drops_one() {
    let (_dir, h) = open();
    let mut friday = draft("Friday", &[6, 1]);
    friday.recipes[0].description = Some("very cold".into());
    let friday_id = h.add_menu(&alice(), &friday).unwrap();
    h.add_menu(&alice(), &draft("Brunch", &[9])).unwrap();
    h.switch_menu_on(friday_id).unwrap();
    let backup = h.export().unwrap();
    assert_eq!(backup.version, 2);
    assert_eq!(backup.menus.len(), 2);
    assert!(backup.menus[0].on && !backup.menus[1].on);
    let text = serde_json::to_vec(&backup).unwrap();
    assert_eq!(Backup::from_slice(&text).unwrap(), backup);

    // Another household with a menu of its own, one of the same title but other drinks,
    // and another on: all kept, the file's added beside them, and what is on stays on.
    let (_dir2, other) = open();
    let theirs = other.add_menu(&bob(), &draft("Friday", &[2])).unwrap();
    other.switch_menu_on(theirs).unwrap();
    let taken = other.import(&backup).unwrap();
    assert_eq!(taken.menus, 2);
    let menus = other.menus().unwrap();
    let titles: Vec<&str> = menus.iter().map(|m| m.title.as_str()).collect();
    assert_eq!(titles, ["Friday", "Friday", "Brunch"]);
    assert_eq!(menus[0].recipes.len(), 1, "theirs, untouched");
    assert_eq!(
        menus[1].recipes[0].description.as_deref(),
        Some("very cold")
    );
    assert_eq!(other.menu_on().unwrap().unwrap().id, theirs);
    // Loading it again adds nothing: the same menus are there.
    other.import(&backup).unwrap();
    assert_eq!(other.menus().unwrap(), menus);

    // An empty household takes the file's "on" menu as on.
    let (_dir3, fresh) = open();
    fresh.import(&backup).unwrap();
    assert_eq!(fresh.menu_on().unwrap().unwrap().title, "Friday");

    // A menu the rules refuse is named by its path, and nothing is loaded.
    let mut bad = backup.clone();
    bad.menus[1].recipes[0].description = Some("two\nlines".into());
    let (_dir4, empty) = open();
    match empty.import(&bad) {
        Err(HouseholdError::Refused { field, .. }) => {
            assert_eq!(field, "menus[1].recipes[0].description")
        }
        other => panic!("{other:?}"),
    }
    assert!(empty.menus().unwrap().is_empty());
    // More menus than a household keeps: refused whole rather than any dropped.
    for i in 0..49 {
        empty
            .add_menu(&bob(), &draft(&format!("M{i}"), &[1]))
            .unwrap();
    }
    assert!(matches!(
        empty.import(&backup),
        Err(HouseholdError::Refused { .. })
    ));
    assert_eq!(empty.menus().unwrap().len(), 49);
}

#[test]
fn a_version_1_file_from_before_menus_still_loads() {
    let v1 = r#"{"format":"libations-household","version":1,"exported_at":0,
        "shelf":[{"name":"gin","have":true,"at":1,"by":"a@b"}],"people":[]}"#;
    let backup = Backup::from_slice(v1.as_bytes()).unwrap();
    assert!(backup.menus.is_empty());
    let (_dir, h) = open();
    h.add_menu(&alice(), &draft("Friday", &[1])).unwrap();
    let taken = h.import(&backup).unwrap();
    assert_eq!((taken.shelf, taken.menus), (1, 0));
    assert_eq!(h.menus().unwrap().len(), 1, "the menu stays");
}

#[test]
fn a_backup_keeps_the_households_strengths_and_the_change_made_last_wins() {
    let (_dir, h) = open();
    h.set_strength(&alice(), "Overproof Rum", Some(63.0), Some(2_000))
        .unwrap();
    h.set_strength(&alice(), "Gin", Some(47.0), Some(2_000))
        .unwrap();
    h.set_strength(&alice(), "Gin", None, Some(3_000)).unwrap();
    let backup = h.export().unwrap();
    // The taken-back one too, so that it still wins over an older value elsewhere.
    let names: Vec<(&str, Option<f64>)> = backup
        .strengths
        .iter()
        .map(|s| (s.name.as_str(), s.abv))
        .collect();
    assert_eq!(names, [("gin", None), ("overproof rum", Some(63.0))]);
    let text = serde_json::to_vec(&backup).unwrap();
    assert_eq!(Backup::from_slice(&text).unwrap(), backup);

    // Another household: its older gin is taken back by the file's later change; its
    // newer rum stays; its own vermouth is kept.
    let (_dir2, other) = open();
    other
        .set_strength(&bob(), "Gin", Some(40.0), Some(1_000))
        .unwrap();
    other
        .set_strength(&bob(), "Overproof Rum", Some(75.5), Some(9_000))
        .unwrap();
    other
        .set_strength(&bob(), "Sweet Vermouth", Some(16.0), Some(1_000))
        .unwrap();
    let taken = other.import(&backup).unwrap();
    assert_eq!(taken.strengths, 2);
    let kept: Vec<(String, f64)> = other
        .strengths()
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.abv))
        .collect();
    assert_eq!(
        kept,
        [
            ("overproof rum".to_owned(), 75.5),
            ("sweet vermouth".to_owned(), 16.0)
        ]
    );

    // A strength out of range is refused whole, naming the row.
    let mut bad = serde_json::to_value(&backup).unwrap();
    bad["strengths"][1]["abv"] = serde_json::json!(130.0);
    match Backup::from_slice(&serde_json::to_vec(&bad).unwrap()) {
        Err(HouseholdError::Refused { field, .. }) => assert_eq!(field, "strengths[1].abv"),
        other => panic!("not refused: {other:?}"),
    }
}
