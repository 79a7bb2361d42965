//! The guests' menus: kept, refused, migrated, backed up and merged back.

use super::tests::{alice, bob, open};
use super::*;

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
        show_photos: false,
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
    assert!(!menu.on && menu.show_ingredients && !menu.can_make_now && !menu.show_photos);
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
    again.show_photos = true;
    assert!(h.put_menu(&alice(), b, &again).unwrap());
    let menu = h.menu_on().unwrap().unwrap();
    assert_eq!(
        menu.recipes.iter().map(|r| r.id).collect::<Vec<_>>(),
        [4, 2]
    );
    assert!(menu.on && menu.can_make_now && !menu.show_ingredients && menu.show_photos);
    assert!(!h.put_menu(&alice(), 999, &again).unwrap());

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
    h.writer()
        .execute_batch(
            "DROP TABLE photos_gone; DROP TABLE photos; DROP TABLE rules; DROP TABLE shopping; DROP TABLE strengths; DROP TABLE menu_recipes; DROP TABLE menus; PRAGMA user_version = 1;",
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
    assert_eq!(version, crate::schema::VERSION);
}

#[test]
fn a_backup_keeps_the_menus_and_merging_it_never_drops_one() {
    let (_dir, h) = open();
    let mut friday = draft("Friday", &[6, 1]);
    friday.recipes[0].description = Some("very cold".into());
    friday.show_photos = true;
    let friday_id = h.add_menu(&alice(), &friday).unwrap();
    h.add_menu(&alice(), &draft("Brunch", &[9])).unwrap();
    h.switch_menu_on(friday_id).unwrap();
    let backup = h.export().unwrap();
    assert_eq!(backup.version, 6);
    assert_eq!(backup.menus.len(), 2);
    assert!(backup.menus[0].on && !backup.menus[1].on);
    let text = serde_json::to_vec(&backup).unwrap();
    assert_eq!(Backup::from_slice(&text).unwrap(), backup);

    // Another household with a menu of its own, one of the same title but other drinks,
    // and another on: all kept, the file's added beside them, and what is on stays on.
    let (_dir2, other) = open();
    let theirs = other.add_menu(&bob(), &draft("Friday", &[2])).unwrap();
    other.switch_menu_on(theirs).unwrap();
    let taken = other.import(&backup, 1_000).unwrap();
    assert_eq!(taken.menus, 2);
    let menus = other.menus().unwrap();
    let titles: Vec<&str> = menus.iter().map(|m| m.title.as_str()).collect();
    assert_eq!(titles, ["Friday", "Friday", "Brunch"]);
    assert_eq!(menus[0].recipes.len(), 1, "theirs, untouched");
    assert_eq!(
        menus[1].recipes[0].description.as_deref(),
        Some("very cold")
    );
    assert!(menus[1].show_photos && !menus[2].show_photos);
    assert_eq!(other.menu_on().unwrap().unwrap().id, theirs);
    // Loading it again adds nothing: the same menus are there.
    other.import(&backup, 1_000).unwrap();
    assert_eq!(other.menus().unwrap(), menus);

    // An empty household takes the file's "on" menu as on.
    let (_dir3, fresh) = open();
    fresh.import(&backup, 1_000).unwrap();
    assert_eq!(fresh.menu_on().unwrap().unwrap().title, "Friday");

    // A menu the rules refuse is named by its path, and nothing is loaded.
    let mut bad = backup.clone();
    bad.menus[1].recipes[0].description = Some("two\nlines".into());
    let (_dir4, empty) = open();
    match empty.import(&bad, 1_000) {
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
        empty.import(&backup, 1_000),
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
    let taken = h.import(&backup, 1_000).unwrap();
    assert_eq!((taken.shelf, taken.menus), (1, 0));
    assert_eq!(h.menus().unwrap().len(), 1, "the menu stays");
}
