//! The backup file's photo rows (version 5): they round-trip, merge by hash without
//! doubling, the cover follows the photo added last, bad rows are refused naming their
//! path, a version 4 file still loads, and a row for a recipe never had is a stray.

use super::tests::{alice, bob, open};
use super::*;

const A: &str = "00000000000000000000000000000aaa";
const B: &str = "00000000000000000000000000000bbb";

/// A version 5 file holding `photos` (JSON rows) and nothing else.
fn file(photos: &str) -> Vec<u8> {
    format!(
        r#"{{"format":"libations-household","version":5,"exported_at":0,"shelf":[],"people":[],"photos":[{photos}]}}"#
    )
    .into_bytes()
}

fn row(recipe: u64, hash: &str, by: &str, at: i64, cover: bool) -> String {
    format!(
        r#"{{"recipe":{recipe},"hash":"{hash}","width":1600,"height":1200,"by":"{by}","at":{at},"cover":{cover}}}"#
    )
}

/// (hash, by, cover) of recipe's photos, cover first.
fn shown(h: &Household, recipe: u64) -> Vec<(String, String, bool)> {
    h.photos(recipe)
        .unwrap()
        .into_iter()
        .map(|p| (p.hash, p.by, p.cover))
        .collect()
}

#[test]
fn photo_rows_round_trip_and_merging_twice_doubles_nothing() {
    let (_dir, h) = open();
    h.add_photo(&alice(), 7, A, (1600, 1200)).unwrap();
    let second = h.add_photo(&bob(), 7, B, (1200, 1600)).unwrap();
    h.set_cover(&alice(), 7, second.id).unwrap();
    let backup = h.export().unwrap();
    let text = serde_json::to_vec(&backup).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
    assert_eq!(json["version"], 5);
    assert_eq!(json["photos"].as_array().unwrap().len(), 2);
    assert_eq!(json["photos"][1]["hash"], B);
    assert_eq!(json["photos"][1]["by"], "bob@example.com");
    assert_eq!(json["photos"][1]["cover"], true);
    assert_eq!(json["photos"][1]["width"], 1200);
    assert_eq!(Backup::from_slice(&text).unwrap(), backup);

    let (_dir2, other) = open();
    let taken = other.import(&backup, 10).unwrap();
    assert_eq!(taken.photos, 2);
    let expected = vec![
        (B.to_owned(), "bob@example.com".to_owned(), true),
        (A.to_owned(), "alice@example.com".to_owned(), false),
    ];
    assert_eq!(shown(&other, 7), expected);
    other.import(&backup, 10).unwrap();
    assert_eq!(shown(&other, 7), expected, "loaded twice, nothing doubled");
    assert_eq!(other.export().unwrap().photos, backup.photos);
}

#[test]
fn the_cover_follows_the_photo_added_last() {
    let (_dir, h) = open();
    let older = file(&row(7, A, "alice@example.com", 1_000, true));
    h.import(&Backup::from_slice(&older).unwrap(), 10).unwrap();
    // A file whose cover was added later: its cover wins, the stored photo stays.
    let newer = file(
        &[
            row(7, A, "alice@example.com", 1_000, false),
            row(7, B, "bob@example.com", 2_000, true),
        ]
        .join(","),
    );
    h.import(&Backup::from_slice(&newer).unwrap(), 10).unwrap();
    assert_eq!(shown(&h, 7)[0], (B.into(), "bob@example.com".into(), true));
    assert_eq!(shown(&h, 7).len(), 2);
    // The older file again: its cover was added before the stored one; it stays.
    h.import(&Backup::from_slice(&older).unwrap(), 10).unwrap();
    assert_eq!(shown(&h, 7)[0].0, B);
    // Rows with no cover (a file touched by hand): the recipe still gets one.
    let bare = file(&row(8, A, "alice@example.com", 1_000, false));
    h.import(&Backup::from_slice(&bare).unwrap(), 10).unwrap();
    assert_eq!(shown(&h, 8), [(A.into(), "alice@example.com".into(), true)]);
}

#[test]
fn a_bad_photo_row_is_refused_naming_its_path_and_nothing_is_merged() {
    let refused = |photos: &str| match Backup::from_slice(&file(photos)) {
        Err(HouseholdError::Refused { field, .. }) => field,
        other => panic!("{photos}: {other:?}"),
    };
    let good = row(7, A, "alice@example.com", 1_000, true);
    assert_eq!(
        refused(&format!("{good},{}", row(7, "../x", "a@b", 0, false))),
        "photos[1].hash"
    );
    assert_eq!(
        refused(&format!("{good},{}", row(7, B, "a@b", 0, true))),
        "photos[1].cover"
    );
    assert_eq!(
        refused(&good.replace("\"width\":1600", "\"width\":0")),
        "photos[0].width"
    );
    assert_eq!(
        refused(&good.replace("\"at\":1000", "\"at\":-1")),
        "photos[0].at"
    );
    assert_eq!(
        refused(&good.replace(A, &A.to_uppercase())),
        "photos[0].hash"
    );
    assert_eq!(
        refused(&good.replace("\"cover\"", "\"extra\":1,\"cover\"")),
        "photos[0].extra"
    );

    let (_dir, h) = open();
    let past = file(&format!(
        "{good},{}",
        row(99, B, "bob@example.com", 1_000, true)
    ));
    match h.import(&Backup::from_slice(&past).unwrap(), 50) {
        Err(HouseholdError::Refused { field, .. }) => assert_eq!(field, "photos[1].recipe"),
        other => panic!("{other:?}"),
    }
    assert!(
        h.photos(7).unwrap().is_empty(),
        "a refused file merges nothing"
    );
}

#[test]
fn a_version_4_file_still_loads_and_a_version_6_one_does_not() {
    let v4 = br#"{"format":"libations-household","version":4,"exported_at":0,"shelf":[],"people":[],"rules":[]}"#;
    let backup = Backup::from_slice(v4).unwrap();
    assert!(backup.photos.is_empty());
    let (_dir, h) = open();
    h.add_photo(&alice(), 7, A, (1600, 1200)).unwrap();
    assert_eq!(h.import(&backup, 10).unwrap().photos, 0);
    assert_eq!(
        h.photos(7).unwrap().len(),
        1,
        "a file without photos takes none away"
    );
    let v6 = String::from_utf8(file(""))
        .unwrap()
        .replace("\"version\":5", "\"version\":6");
    assert!(matches!(
        Backup::from_slice(v6.as_bytes()),
        Err(HouseholdError::Refused { field, .. }) if field == "version"
    ));
}

#[test]
fn rows_whose_files_are_not_kept_are_left_out_of_a_json_load() {
    let text = file(
        &[
            row(7, A, "alice@example.com", 1_000, true),
            row(7, B, "bob@example.com", 2_000, false),
        ]
        .join(","),
    );
    let mut backup = Backup::from_slice(&text).unwrap();
    assert_eq!(backup.keep_photos_with_files(|hash| hash == B), 1);
    let (_dir, h) = open();
    h.import(&backup, 10).unwrap();
    assert_eq!(
        shown(&h, 7),
        [(B.into(), "bob@example.com".into(), true)],
        "the one left is the cover"
    );
}

#[test]
fn a_photo_of_a_recipe_never_had_is_a_stray_and_repair_drops_it() {
    let (_dir, h) = open();
    h.add_photo(&alice(), 7, A, (1600, 1200)).unwrap();
    h.add_photo(&bob(), 99, B, (1600, 1200)).unwrap();
    let strays = strays::find(&h.db(), 50).unwrap();
    let named: Vec<String> = strays.iter().map(ToString::to_string).collect();
    assert_eq!(named, ["photos: recipe 99 (bob@example.com)"]);
    assert_eq!(h.drop_strays(50).unwrap().len(), 1);
    assert!(h.photos(99).unwrap().is_empty());
    assert_eq!(h.photos(7).unwrap().len(), 1);
    assert_eq!(
        h.photo_hashes().unwrap().into_iter().collect::<Vec<_>>(),
        [A]
    );
}
