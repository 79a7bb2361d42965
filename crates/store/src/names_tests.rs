use super::tests::{drink, on_disk, store};
use super::*;

fn unique(store: &Store, edit: Edit) -> Result<Saved, StoreError> {
    store.apply_as(edit, "amy", Names::Unique)
}

fn submitted(draft: serde_json::Value, id: Option<u64>) -> Submitted {
    Submitted::check(&draft, id).unwrap()
}

#[test]
fn a_second_recipe_of_one_name_is_refused_naming_the_first_and_leaves_no_trace() {
    let (_dir, store) = store();
    let journal_path = store.path().with_extension("json.journal");
    let journal = std::fs::read(&journal_path).unwrap_or_default();
    let file = std::fs::read(store.path()).unwrap();
    match unique(&store, Edit::Create(submitted(drink("  NEGRONI "), None))) {
        Err(StoreError::Duplicate(found)) => assert_eq!(
            found,
            vec![Duplicate {
                field: "name".into(),
                name: "NEGRONI".into(),
                existing_id: 1
            }]
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read(store.path()).unwrap(), file);
    assert_eq!(std::fs::read(&journal_path).unwrap_or_default(), journal);
    assert!(store.changes().is_empty());
    // Said on purpose, it is saved.
    let saved = store
        .apply_as(
            Edit::Create(submitted(drink("Negroni"), None)),
            "amy",
            Names::MayRepeat,
        )
        .unwrap();
    assert_eq!(
        saved
            .recipes
            .all()
            .iter()
            .filter(|r| r.name == "Negroni")
            .count(),
        2
    );
}

#[test]
fn a_rename_onto_another_name_is_refused_but_keeping_ones_own_is_not() {
    let (_dir, store) = store();
    let version = |id| version(on_disk(&store).get(id).unwrap());
    let rename = |name: &str, id: u64| Edit::Update {
        id,
        expected: version(id),
        draft: submitted(drink(name), Some(id)),
    };
    assert!(matches!(
        unique(&store, rename("negroni", 5)),
        Err(StoreError::Duplicate(found)) if found[0].existing_id == 1
    ));
    unique(&store, rename("Negroni", 1)).unwrap();
    unique(&store, rename("Daiquiri No. 2", 5)).unwrap();
}

#[test]
fn in_a_change_of_several_each_duplicate_is_named_by_its_place() {
    let (_dir, store) = store();
    let drafts = ["Gimlet", "Daiquiri", "Southside", "Negroni"]
        .map(drink)
        .to_vec();
    let drafts = Submitted::check_many(&drafts).unwrap();
    match unique(&store, Edit::CreateMany(drafts)) {
        Err(StoreError::Duplicate(found)) => {
            let named: Vec<(&str, u64)> = found
                .iter()
                .map(|d| (d.field.as_str(), d.existing_id))
                .collect();
            assert_eq!(named, [("recipes[1].name", 5), ("recipes[3].name", 1)]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(on_disk(&store).len(), 2);
}
