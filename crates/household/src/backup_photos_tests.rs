//! The backup file's photo rows (versions 5 and 6): they round-trip, merge by hash
//! without doubling, the cover chosen last wins (a version 5 file's cover as chosen when
//! its photo was added), each recipe whose cover a file changed is named, bad rows are
//! refused naming their path, a version 4 file still loads, a row for a recipe never had
//! is a stray, and a database of schema 8 gets its covers' times.

use super::tests::{alice, bob, open};
use super::*;

const A: &str = "00000000000000000000000000000aaa";
const B: &str = "00000000000000000000000000000bbb";
const C: &str = "00000000000000000000000000000ccc";

/// A file of `version` holding `photos` (JSON rows) and nothing else.
fn file_of(version: u32, photos: &str) -> Vec<u8> {
    format!(
        r#"{{"format":"libations-household","version":{version},"exported_at":0,"shelf":[],"people":[],"photos":[{photos}]}}"#
    )
    .into_bytes()
}

/// A version 5 file (no cover has a time of its own).
fn file(photos: &str) -> Vec<u8> {
    file_of(5, photos)
}

fn row(recipe: u64, hash: &str, by: &str, at: i64, cover: bool) -> String {
    format!(
        r#"{{"recipe":{recipe},"hash":"{hash}","width":1600,"height":1200,"by":"{by}","at":{at},"cover":{cover}}}"#
    )
}

/// A version 6 cover row of recipe 7, added at `at`, chosen as cover at `chosen`.
fn cover_row(hash: &str, at: i64, chosen: i64) -> String {
    row(7, hash, "bob@example.com", at, true).replace('}', &format!(r#","cover_at":{chosen}}}"#))
}

fn load(h: &Household, bytes: &[u8]) -> Taken {
    h.import(&Backup::from_slice(bytes).unwrap(), 10).unwrap()
}

/// The hash of recipe 7's cover.
fn cover_of(h: &Household) -> String {
    h.photos(7)
        .unwrap()
        .into_iter()
        .find(|p| p.cover)
        .unwrap()
        .hash
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
    assert_eq!(json["version"], 6);
    assert_eq!(json["photos"].as_array().unwrap().len(), 2);
    assert!(json["photos"][0].get("cover_at").is_none(), "not the cover");
    assert!(json["photos"][1]["cover_at"].as_i64().unwrap() >= second.at);
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
fn a_version_5_file_still_merges_its_cover_as_chosen_when_added() {
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
    let refused6 = |photos: &str| match Backup::from_slice(&file_of(6, photos)) {
        Err(HouseholdError::Refused { field, .. }) => field,
        other => panic!("{photos}: {other:?}"),
    };
    let chosen = cover_row(A, 1_000, 2_000);
    assert_eq!(refused(&chosen), "photos[0].cover_at", "not in version 5");
    assert_eq!(
        refused6(&chosen.replace("\"cover\":true", "\"cover\":false")),
        "photos[0].cover_at"
    );
    assert_eq!(
        refused6(&chosen.replace("2000", "-1")),
        "photos[0].cover_at"
    );
    assert!(Backup::from_slice(&file_of(6, &chosen)).is_ok());

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
fn a_version_4_file_still_loads_and_a_version_7_one_does_not() {
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
    assert!(matches!(
        Backup::from_slice(&file_of(7, "")),
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

#[test]
fn a_cover_chosen_later_survives_a_newer_photo_that_was_cover_by_default() {
    let (_dir, h) = open();
    // A photo of long ago, then a newer one that became the cover, the first its own
    // photo; then the old one chosen as cover, now.
    let rows = [
        row(7, A, "alice@example.com", 1_000, false),
        cover_row(B, 2_000, 2_000),
    ];
    load(&h, &file_of(6, &rows.join(",")));
    let old = h
        .photos(7)
        .unwrap()
        .into_iter()
        .find(|p| p.hash == A)
        .unwrap();
    h.set_cover(&alice(), 7, old.id).unwrap();
    // A file whose cover photo is newer than both, cover only by default (chosen when
    // added): the cover chosen since stays, in either version.
    for bytes in [
        file(&row(7, C, "bob@example.com", 3_000, true)),
        file_of(6, &cover_row(C, 3_000, 3_000)),
    ] {
        let taken = load(&h, &bytes);
        assert_eq!(cover_of(&h), A, "the cover chosen last stays");
        assert!(taken.covers_changed.is_empty(), "{taken:?}");
    }
    assert_eq!(h.photos(7).unwrap().len(), 3, "the file's photo is added");
}

#[test]
fn a_cover_chosen_later_in_the_file_wins_and_is_named() {
    let (_dir, h) = open();
    load(&h, &file_of(6, &cover_row(A, 1_000, 5_000)));
    // Chosen later, though its photo is older: it wins, and the recipe is named.
    let taken = load(&h, &file_of(6, &cover_row(B, 500, 6_000)));
    assert_eq!(cover_of(&h), B);
    assert_eq!(taken.covers_changed, [7]);
    // Chosen at the same time: the stored one stays, and nothing is named.
    let taken = load(&h, &file_of(6, &cover_row(C, 7_000, 6_000)));
    assert_eq!(cover_of(&h), B, "a tie keeps the stored cover");
    assert!(taken.covers_changed.is_empty());
    // The file's cover is the stored one, chosen later there: the later time is kept.
    load(&h, &file_of(6, &cover_row(B, 500, 8_000)));
    let exported = h.export().unwrap().photos;
    let b = exported.iter().find(|r| r.hash == B).unwrap();
    assert_eq!((b.cover, b.cover_at), (true, Some(8_000)));
    assert!(
        exported
            .iter()
            .filter(|r| r.hash != B)
            .all(|r| r.cover_at.is_none())
    );
    // The same file loaded into a fresh household: a first cover, not a change.
    let (_dir2, fresh) = open();
    let taken = load(&fresh, &file_of(6, &cover_row(B, 500, 6_000)));
    assert!(taken.covers_changed.is_empty());
}

#[test]
fn every_way_a_cover_is_made_says_when_it_was_chosen() {
    let (_dir, h) = open();
    let chosen = |h: &Household| -> Vec<(String, Option<i64>)> {
        let db = h.db();
        let mut stmt = db
            .prepare("SELECT hash, cover_at FROM photos WHERE recipe = 7 ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let before = limits::now_ms();
    let first = h.add_photo(&alice(), 7, A, (1600, 1200)).unwrap();
    let second = h.add_photo(&bob(), 7, B, (1600, 1200)).unwrap();
    assert_eq!(chosen(&h), [(A.into(), Some(first.at)), (B.into(), None)]);
    h.set_cover(&alice(), 7, second.id).unwrap();
    let set = chosen(&h);
    assert!(
        set[0].1.is_none() && set[1].1.is_some_and(|t| t >= before),
        "{set:?}"
    );
    // The cover deleted: the one left becomes the cover, now.
    h.delete_photo(&alice(), true, 7, second.id).unwrap();
    assert!(chosen(&h)[0].1.is_some_and(|t| t >= before));
    // Both gone, one restored: the cover again, now.
    h.delete_photo(&alice(), true, 7, first.id).unwrap();
    h.restore_photo(&alice(), true, 7, second.id).unwrap();
    assert!(
        chosen(&h)[0].1.is_some_and(|t| t >= before),
        "{:?}",
        chosen(&h)
    );
    // A file with no cover for a recipe: its oldest photo, chosen when it was added.
    let bare = file(&row(8, C, "alice@example.com", 1_500, false));
    load(&h, &bare);
    let db = h.db();
    let c: (bool, Option<i64>) = db
        .query_row(
            "SELECT cover, cover_at FROM photos WHERE recipe = 8",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(c, (true, Some(1_500)));
}

#[test]
fn a_schema_8_database_gets_its_covers_chosen_when_their_photos_were_added() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("household.sqlite");
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        for sql in &schema::MIGRATIONS[..8] {
            db.execute_batch(sql).unwrap();
        }
        db.execute_batch(
            "PRAGMA user_version = 8;
             INSERT INTO photos (id, recipe, hash, width, height, by, at, cover) VALUES
               (1, 7, '00000000000000000000000000000aaa', 10, 10, 'a@b', 1000, 0),
               (2, 7, '00000000000000000000000000000bbb', 10, 10, 'a@b', 2000, 1);",
        )
        .unwrap();
    }
    let h = Household::open_in(dir.path()).unwrap();
    let covers: Vec<(String, Option<i64>)> = h
        .export()
        .unwrap()
        .photos
        .into_iter()
        .map(|r| (r.hash, r.cover_at))
        .collect();
    assert_eq!(covers, [(A.into(), None), (B.into(), Some(2_000))]);
}
