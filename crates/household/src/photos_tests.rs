//! Photos' rows: the first is the cover, the cover moves on when it goes, only who added a
//! photo (or an editor) takes it away, the caps, and which files are still named.

use super::tests::{alice, bob, open};
use super::*;

const A: &str = "00000000000000000000000000000aaa";
const B: &str = "00000000000000000000000000000bbb";

#[test]
fn the_first_photo_is_the_cover_and_the_cover_moves_on() {
    let (_dir, h) = open();
    let first = h.add_photo(&alice(), 7, A, (1600, 1200)).unwrap();
    let second = h.add_photo(&bob(), 7, B, (1200, 1600)).unwrap();
    assert!(first.cover && !second.cover);
    assert_eq!(
        (second.by.as_str(), second.width, second.height),
        ("bob@example.com", 1200, 1600)
    );
    let ids = |h: &Household| {
        h.photos(7)
            .unwrap()
            .iter()
            .map(|p| (p.id, p.cover))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&h), [(first.id, true), (second.id, false)]);
    h.set_cover(&alice(), 7, second.id).unwrap();
    assert_eq!(
        ids(&h),
        [(second.id, true), (first.id, false)],
        "the cover first"
    );
    assert_eq!(h.covers().unwrap().len(), 1);
    let gone = h.delete_photo(&bob(), false, 7, second.id).unwrap();
    assert!(gone.cover);
    assert_eq!(ids(&h), [(first.id, true)], "the photo left is the cover");
    assert!(h.photos(8).unwrap().is_empty());
}

#[test]
fn only_who_added_a_photo_or_an_editor_takes_it_away() {
    let (_dir, h) = open();
    let photo = h.add_photo(&alice(), 3, A, (10, 10)).unwrap();
    match h.delete_photo(&bob(), false, 3, photo.id) {
        Err(HouseholdError::NotYours(why)) => assert!(why.contains("who added"), "{why}"),
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(h.photos(3).unwrap().len(), 1, "nothing was taken away");
    assert!(
        matches!(
            h.delete_photo(&bob(), false, 4, photo.id),
            Err(HouseholdError::Nothing(_))
        ),
        "another recipe's photo id"
    );
    h.delete_photo(&bob(), true, 3, photo.id).unwrap();
    assert!(h.photos(3).unwrap().is_empty());
}

#[test]
fn files_stay_named_while_a_row_or_a_deleted_one_names_them() {
    let (_dir, h) = open();
    let one = h.add_photo(&alice(), 1, A, (10, 10)).unwrap();
    let two = h.add_photo(&alice(), 2, A, (10, 10)).unwrap();
    assert_eq!(h.photo_hashes().unwrap(), [A.to_owned()].into());
    h.delete_photo(&alice(), false, 1, one.id).unwrap();
    h.delete_photo(&alice(), false, 2, two.id).unwrap();
    assert_eq!(
        h.photo_hashes().unwrap(),
        [A.to_owned()].into(),
        "deleted, but restorable: the sweep keeps its files"
    );
}

#[test]
fn a_recipe_keeps_at_most_its_cap() {
    let (_dir, h) = open();
    for _ in 0..PHOTOS_PER_RECIPE {
        h.add_photo(&alice(), 5, A, (10, 10)).unwrap();
    }
    match h.add_photo(&alice(), 5, B, (10, 10)) {
        Err(HouseholdError::Refused { field, message }) => {
            assert_eq!(field, "photo");
            assert!(
                message.contains(&PHOTOS_PER_RECIPE.to_string()),
                "{message}"
            );
        }
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(h.photos(5).unwrap().len(), PHOTOS_PER_RECIPE);
}
