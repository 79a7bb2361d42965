//! The household's shopping list: shared, the change made last wins per item, buying puts
//! the bottle on the shelf, the caps, and the backup's round trip.

use super::tests::{alice, bob, open};
use super::*;

fn change(at: i64) -> ShoppingChange {
    ShoppingChange {
        at: Some(at),
        ..ShoppingChange::default()
    }
}

fn names(h: &Household) -> Vec<(String, bool)> {
    let items = h.shopping().unwrap();
    items.into_iter().map(|i| (i.name, i.got)).collect()
}

fn refused_field<T: std::fmt::Debug>(r: Result<T>) -> String {
    match r {
        Err(HouseholdError::Refused { field, message }) => format!("{field}: {message}"),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn one_item_per_folded_name_shared_with_who_added_it() {
    let (_dir, h) = open();
    let add = |who: &Person, name: &str, at| {
        let c = ShoppingChange {
            add: vec![name.into()],
            ..change(at)
        };
        h.change_shopping(who, &c).unwrap();
    };
    add(&alice(), "  Campari ", 1_000);
    add(&bob(), "CAMPARI", 2_000);
    add(&bob(), "Crème  de Cassis", 3_000);
    let items = h.shopping().unwrap();
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0].name, "Campari");
    assert_eq!(items[0].added_by, "Alice");
    assert_eq!(items[0].added_at, 1_000);
    assert_eq!(items[1].name, "Crème de Cassis");
    assert_eq!(items[1].added_by, "bob");
}

#[test]
fn bought_marks_it_got_and_puts_the_bottle_on_the_shelf() {
    let (_dir, h) = open();
    let add = ShoppingChange {
        add: vec!["Maraschino Liqueur".into(), "Limes".into()],
        ..change(1_000)
    };
    h.change_shopping(&alice(), &add).unwrap();
    assert!(!h.shelf().unwrap().contains("maraschino liqueur"));
    let bought = ShoppingChange {
        bought: vec!["maraschino liqueur".into()],
        ..change(2_000)
    };
    h.change_shopping(&bob(), &bought).unwrap();
    // In the order they were added (one change: by name).
    assert_eq!(
        names(&h),
        [("Limes".into(), false), ("Maraschino Liqueur".into(), true)]
    );
    assert!(h.shelf().unwrap().contains("maraschino liqueur"));
    // Cleared once bought: off the list, still on the shelf.
    let clear = ShoppingChange {
        remove: vec!["Maraschino Liqueur".into()],
        ..change(3_000)
    };
    h.change_shopping(&bob(), &clear).unwrap();
    assert_eq!(names(&h), [("Limes".into(), false)]);
    assert!(h.shelf().unwrap().contains("maraschino liqueur"));
    // Buying what is not on the list is refused, naming it; nothing is ticked.
    let stray = ShoppingChange {
        bought: vec!["Absinthe".into()],
        ..change(4_000)
    };
    let why = refused_field(h.change_shopping(&bob(), &stray));
    assert!(why.starts_with("bought[0]: "), "{why}");
    assert!(!h.shelf().unwrap().contains("absinthe"));
}

#[test]
fn the_change_made_last_wins_and_an_older_one_cannot_bring_an_item_back() {
    let (_dir, h) = open();
    let add = ShoppingChange {
        add: vec!["Orgeat".into()],
        ..change(1_000)
    };
    h.change_shopping(&alice(), &add).unwrap();
    let remove = ShoppingChange {
        remove: vec!["orgeat".into()],
        ..change(3_000)
    };
    h.change_shopping(&bob(), &remove).unwrap();
    // A phone that was offline sends its add of 2,000 now: the removal (3,000) stays.
    let late_add = ShoppingChange {
        add: vec!["Orgeat".into()],
        ..change(2_000)
    };
    h.change_shopping(&alice(), &late_add).unwrap();
    assert!(names(&h).is_empty(), "{:?}", names(&h));
    // An older "got" does not bring it back either.
    let late_got = ShoppingChange {
        got: vec!["Orgeat".into()],
        ..change(2_500)
    };
    h.change_shopping(&alice(), &late_got).unwrap();
    assert!(names(&h).is_empty());
    // A later add does.
    let again = ShoppingChange {
        add: vec!["Orgeat".into()],
        ..change(4_000)
    };
    h.change_shopping(&alice(), &again).unwrap();
    assert_eq!(names(&h), [("Orgeat".into(), false)]);
    // A removal of something never listed is kept too: an older add cannot bring it.
    let gone = ShoppingChange {
        remove: vec!["Falernum".into()],
        ..change(5_000)
    };
    h.change_shopping(&bob(), &gone).unwrap();
    let older = ShoppingChange {
        add: vec!["Falernum".into()],
        ..change(4_500)
    };
    h.change_shopping(&alice(), &older).unwrap();
    assert_eq!(names(&h), [("Orgeat".into(), false)]);
}

#[test]
fn limits_are_refused_naming_the_field_and_leave_no_trace() {
    let (_dir, h) = open();
    let long = ShoppingChange {
        add: vec!["Gin".into(), "x".repeat(201)],
        ..change(1_000)
    };
    let why = refused_field(h.change_shopping(&alice(), &long));
    assert!(why.starts_with("add[1]: ") && why.contains("200"), "{why}");
    assert!(names(&h).is_empty(), "a refused change leaves no trace");
    for bad in ["   ", "Gin\u{200b}"] {
        let c = ShoppingChange {
            add: vec![bad.into()],
            ..change(1_000)
        };
        assert!(refused_field(h.change_shopping(&alice(), &c)).starts_with("add[0]"));
    }
    let both = ShoppingChange {
        add: vec!["Gin".into()],
        remove: vec!["gin".into()],
        ..change(1_000)
    };
    assert!(refused_field(h.change_shopping(&alice(), &both)).starts_with("remove[0]"));
    let full = ShoppingChange {
        add: (0..SHOPPING_ITEMS).map(|i| format!("Bottle {i}")).collect(),
        ..change(1_000)
    };
    h.change_shopping(&alice(), &full).unwrap();
    let one_more = ShoppingChange {
        add: vec!["Gin".into(), "One more".into()],
        ..change(2_000)
    };
    let why = refused_field(h.change_shopping(&alice(), &one_more));
    assert!(
        why.starts_with("add[0]: ") && why.contains("200 items"),
        "{why}"
    );
    assert_eq!(h.shopping().unwrap().len(), SHOPPING_ITEMS);
    let too_many = ShoppingChange {
        remove: (0..=SHOPPING_CHANGE).map(|i| format!("B {i}")).collect(),
        ..change(2_000)
    };
    assert!(refused_field(h.change_shopping(&alice(), &too_many)).contains("500"));
}

#[test]
fn the_backup_holds_the_list_and_merges_back_by_the_change_made_last() {
    let (_dir, h) = open();
    let c = ShoppingChange {
        add: vec!["Campari".into(), "Orgeat".into(), "Limes".into()],
        ..change(1_000)
    };
    h.change_shopping(&alice(), &c).unwrap();
    let c = ShoppingChange {
        got: vec!["Limes".into()],
        remove: vec!["Orgeat".into()],
        ..change(2_000)
    };
    h.change_shopping(&bob(), &c).unwrap();
    let backup = h.export().unwrap();
    assert_eq!(backup.shopping.len(), 3, "taken-off rows are kept");
    let bytes = serde_json::to_vec(&backup).unwrap();
    let read = Backup::from_slice(&bytes).unwrap();
    assert_eq!(read, backup);
    let (_other_dir, other) = open();
    // The other household took Campari off later than the backup's add.
    let c = ShoppingChange {
        remove: vec!["campari".into()],
        ..change(1_500)
    };
    other.change_shopping(&bob(), &c).unwrap();
    let taken = other.import(&read, 10).unwrap();
    assert_eq!(taken.shopping, 3);
    assert_eq!(names(&other), [("Limes".into(), true)]);
    // Merged into itself, nothing changes.
    h.import(&read, 10).unwrap();
    assert_eq!(h.export().unwrap().shopping, backup.shopping);
    let mut bad = serde_json::to_value(&backup).unwrap();
    bad["shopping"][1]["name"] = serde_json::json!("y".repeat(201));
    let bytes = serde_json::to_vec(&bad).unwrap();
    let why = refused_field(Backup::from_slice(&bytes));
    assert!(why.starts_with("shopping[1].name: "), "{why}");
}
