//! Deleted photos: restored under their own id by whoever could delete them, the cover
//! rule, the caps (a refusal changes nothing), ids never given twice, the files' rights,
//! and the purge past 30 days.

use super::tests::{alice, bob, open};
use super::*;

const A: &str = "00000000000000000000000000000aaa";
const B: &str = "00000000000000000000000000000bbb";
const C: &str = "00000000000000000000000000000ccc";

fn ids(h: &Household, recipe: u64) -> Vec<(i64, bool)> {
    h.photos(recipe)
        .unwrap()
        .iter()
        .map(|p| (p.id, p.cover))
        .collect()
}

fn gone_ids(h: &Household, who: &Person, any: bool, recipe: u64) -> Vec<i64> {
    h.gone_photos(who, any, recipe)
        .unwrap()
        .iter()
        .map(|g| g.photo.id)
        .collect()
}

#[test]
fn a_deleted_photo_comes_back_as_itself() {
    let (_dir, h) = open();
    let first = h.add_photo(&alice(), 7, A, (1600, 1200)).unwrap();
    let second = h.add_photo(&alice(), 7, B, (1200, 1600)).unwrap();
    h.delete_photo(&alice(), false, 7, first.id).unwrap();
    assert_eq!(ids(&h, 7), [(second.id, true)], "the cover moved on");
    let gone = h.gone_photos(&alice(), false, 7).unwrap();
    assert_eq!(gone.len(), 1);
    assert_eq!(
        (
            gone[0].photo.id,
            gone[0].photo.cover,
            gone[0].gone_by.as_str()
        ),
        (first.id, true, "alice@example.com")
    );
    let back = h.restore_photo(&alice(), false, 7, first.id).unwrap();
    assert_eq!(
        (back.id, back.hash.as_str(), back.width, back.at),
        (first.id, A, 1600, first.at)
    );
    assert!(!back.cover, "the recipe has a cover: it keeps it");
    assert_eq!(ids(&h, 7), [(second.id, true), (first.id, false)]);
    assert!(h.gone_photos(&alice(), false, 7).unwrap().is_empty());
    assert!(
        matches!(
            h.restore_photo(&alice(), false, 7, first.id),
            Err(HouseholdError::Nothing(_))
        ),
        "restored once"
    );
}

#[test]
fn a_restored_photo_is_the_cover_of_a_recipe_without_one() {
    let (_dir, h) = open();
    let only = h.add_photo(&alice(), 3, A, (10, 10)).unwrap();
    h.delete_photo(&alice(), false, 3, only.id).unwrap();
    assert!(h.covers().unwrap().is_empty());
    assert!(h.restore_photo(&alice(), false, 3, only.id).unwrap().cover);
    assert_eq!(h.covers().unwrap().len(), 1);
}

#[test]
fn only_who_added_it_or_an_editor_restores_it() {
    let (_dir, h) = open();
    let photo = h.add_photo(&alice(), 3, A, (10, 10)).unwrap();
    h.delete_photo(&bob(), true, 3, photo.id).unwrap();
    assert!(
        gone_ids(&h, &bob(), false, 3).is_empty(),
        "not bob's: not listed"
    );
    assert_eq!(
        gone_ids(&h, &bob(), true, 3),
        [photo.id],
        "an editor sees it"
    );
    assert_eq!(
        gone_ids(&h, &alice(), false, 3),
        [photo.id],
        "nor its adder's"
    );
    match h.restore_photo(&bob(), false, 3, photo.id) {
        Err(HouseholdError::NotYours(why)) => assert!(why.contains("restore"), "{why}"),
        other => panic!("not refused: {other:?}"),
    }
    assert!(
        matches!(
            h.restore_photo(&alice(), false, 4, photo.id),
            Err(HouseholdError::Nothing(_))
        ),
        "another recipe's"
    );
    assert!(h.photos(3).unwrap().is_empty(), "nothing came back");
    h.restore_photo(&bob(), true, 3, photo.id).unwrap();
    assert_eq!(ids(&h, 3), [(photo.id, true)]);
}

#[test]
fn a_restore_past_the_cap_is_refused_and_changes_nothing() {
    let (_dir, h) = open();
    let photo = h.add_photo(&alice(), 5, A, (10, 10)).unwrap();
    h.delete_photo(&alice(), false, 5, photo.id).unwrap();
    for _ in 0..PHOTOS_PER_RECIPE {
        h.add_photo(&alice(), 5, B, (10, 10)).unwrap();
    }
    let before = ids(&h, 5);
    match h.restore_photo(&alice(), false, 5, photo.id) {
        Err(HouseholdError::Refused { field, message }) => {
            assert_eq!(field, "photo");
            assert!(
                message.contains(&PHOTOS_PER_RECIPE.to_string()),
                "{message}"
            );
        }
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(ids(&h, 5), before);
    assert_eq!(
        gone_ids(&h, &alice(), false, 5),
        [photo.id],
        "still restorable"
    );
}

#[test]
fn the_same_picture_twice_on_a_recipe_is_refused() {
    let (_dir, h) = open();
    let photo = h.add_photo(&alice(), 5, A, (10, 10)).unwrap();
    h.delete_photo(&alice(), false, 5, photo.id).unwrap();
    h.add_photo(&alice(), 5, A, (10, 10)).unwrap();
    assert!(matches!(
        h.restore_photo(&alice(), false, 5, photo.id),
        Err(HouseholdError::Refused { .. })
    ));
}

#[test]
fn a_deleted_photos_id_is_never_given_again() {
    let (_dir, h) = open();
    h.add_photo(&alice(), 1, A, (10, 10)).unwrap();
    let last = h.add_photo(&alice(), 1, B, (10, 10)).unwrap();
    h.delete_photo(&alice(), false, 1, last.id).unwrap();
    let next = h.add_photo(&alice(), 1, C, (10, 10)).unwrap();
    assert!(next.id > last.id, "{} after {}", next.id, last.id);
    assert_eq!(
        h.restore_photo(&alice(), false, 1, last.id).unwrap().id,
        last.id
    );
}

#[test]
fn a_deleted_photos_files_are_shown_only_to_who_may_restore_it() {
    let (_dir, h) = open();
    let photo = h.add_photo(&alice(), 1, A, (10, 10)).unwrap();
    assert!(h.may_see_photo_file(A, None, false).unwrap(), "on a recipe");
    h.delete_photo(&alice(), false, 1, photo.id).unwrap();
    assert!(!h.may_see_photo_file(A, None, false).unwrap());
    assert!(
        !h.may_see_photo_file(A, Some("bob@example.com"), false)
            .unwrap()
    );
    assert!(
        h.may_see_photo_file(A, Some("bob@example.com"), true)
            .unwrap()
    );
    assert!(
        h.may_see_photo_file(A, Some("alice@example.com"), false)
            .unwrap()
    );
    assert!(
        !h.may_see_photo_file(B, Some("alice@example.com"), true)
            .unwrap()
    );
}

#[test]
fn a_photo_deleted_over_30_days_ago_is_purged() {
    let (_dir, h) = open();
    let old = h.add_photo(&alice(), 1, A, (10, 10)).unwrap();
    let new = h.add_photo(&alice(), 1, B, (10, 10)).unwrap();
    h.delete_photo(&alice(), false, 1, old.id).unwrap();
    h.delete_photo(&alice(), false, 1, new.id).unwrap();
    let long_ago = now_ms() - GONE_KEPT_MS - 1;
    h.writer()
        .execute(
            "UPDATE photos_gone SET gone_at = ?1 WHERE id = ?2",
            rusqlite::params![long_ago, old.id],
        )
        .unwrap();
    assert_eq!(
        gone_ids(&h, &alice(), false, 1),
        [new.id],
        "past it: not listed"
    );
    assert!(
        !h.may_see_photo_file(A, Some("alice@example.com"), true)
            .unwrap()
    );
    assert_eq!(h.purge_gone_photos().unwrap(), 1);
    assert_eq!(
        h.photo_hashes().unwrap(),
        [B.to_owned()].into(),
        "A's files may go"
    );
    assert!(matches!(
        h.restore_photo(&alice(), false, 1, old.id),
        Err(HouseholdError::Nothing(_))
    ));
    assert_eq!(h.purge_gone_photos().unwrap(), 0);
}

#[test]
fn a_deleted_photo_of_a_recipe_never_had_is_a_stray() {
    let (_dir, h) = open();
    let photo = h.add_photo(&alice(), 60, A, (10, 10)).unwrap();
    h.delete_photo(&alice(), false, 60, photo.id).unwrap();
    let dropped = h.drop_strays(50).unwrap();
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].table, "photos_gone");
    assert!(h.photo_hashes().unwrap().is_empty());
}
