//! The household's own ingredient strengths: kept, taken back, backed up and merged back.

use super::tests::{alice, bob, open};
use super::*;

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
    let taken = other.import(&backup, 1_000).unwrap();
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
