use super::*;
use crate::recipes::Recipes;
use serde::Deserialize;

#[test]
fn the_built_in_vocabulary_is_whole() {
    let vocabulary = Vocabulary::parse(VOCABULARY_JSON).unwrap();
    assert!(vocabulary.entries().len() > 200);
    // Every entry is reached from a root kind or is one (no stray kinds), and every one
    // has a source (parse refuses an empty one).
    let roots: Vec<&str> = vocabulary
        .entries()
        .iter()
        .filter(|e| e.parent.is_none())
        .map(|e| e.id.as_str())
        .collect();
    for root in [
        "spirits", "liqueurs", "wines", "bitters", "syrups", "juices", "fresh", "pantry", "mixers",
    ] {
        assert!(roots.contains(&root), "{root} is a root kind: {roots:?}");
    }
}

#[derive(Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    shelf: Vec<String>,
    row: String,
    met: bool,
    #[serde(default)]
    how: Option<String>,
    /// The household's rules: [have, wanted].
    #[serde(default)]
    rules: Vec<[String; 2]>,
    #[serde(default)]
    exact: bool,
    #[serde(default)]
    substitutes: Vec<String>,
}

#[test]
fn every_shared_case_is_met_as_the_table_says() {
    let file: Cases =
        serde_json::from_str(include_str!("../../../../tests/vocabulary-cases.json")).unwrap();
    let vocabulary = Vocabulary::built_in();
    assert!(file.cases.len() > 40);
    for case in &file.cases {
        let rules: Vec<Rule> = case
            .rules
            .iter()
            .map(|[have, wanted]| Rule {
                have: have.clone(),
                wanted: wanted.clone(),
            })
            .collect();
        let shelf = Shelf::new(vocabulary, case.shelf.iter().map(String::as_str))
            .with_rules(vocabulary, &rules);
        let row = vocabulary.row(&case.row, case.exact, &case.substitutes);
        let how = vocabulary.meets_row(&shelf, &row);
        let met = Met::new(vocabulary, shelf.clone());
        assert_eq!(met.meets_row(&row), how, "the table agrees: {:?}", case.row);
        assert_eq!(
            how.is_some(),
            case.met,
            "{:?} × {:?}: {how:?}",
            case.shelf,
            case.row
        );
        if let Some(how) = how {
            assert_eq!(
                vocabulary.explain(&how),
                case.how,
                "{:?} × {:?}",
                case.shelf,
                case.row
            );
        }
    }
}

fn refused(text: &str) -> String {
    Vocabulary::parse(text).unwrap_err().to_string()
}

#[test]
fn a_broken_vocabulary_is_refused_naming_the_entry() {
    let wrap = |entries: &str| format!(r#"{{"about": "", "entries": [{entries}]}}"#);
    let a = r#"{"id": "a", "name": "A", "source": "s"}"#;
    assert!(refused(&wrap(&format!("{a}, {a}"))).contains("\"a\" appears twice"));
    let b = r#"{"id": "b", "name": "B", "is": "nothing", "source": "s"}"#;
    assert!(refused(&wrap(b)).contains("entry \"b\": is names \"nothing\""));
    let loop_ = r#"{"id": "x", "name": "X", "is": "y", "source": "s"}, {"id": "y", "name": "Y", "is": "x", "source": "s"}"#;
    assert!(refused(&wrap(loop_)).contains("made of itself"));
    let prep = r#"{"id": "p", "name": "P", "made_of": {"parts": ["q"], "how": "", "keeps": "", "source": "s"}, "source": "s"}, {"id": "q", "name": "Q", "made_of": {"parts": ["p"], "how": "", "keeps": "", "source": "s"}, "source": "s"}"#;
    assert!(refused(&wrap(prep)).contains("made of itself"));
    let twice = r#"{"id": "c", "name": "Gin", "source": "s"}, {"id": "d", "name": "D", "also": ["GIN"], "source": "s"}"#;
    assert!(refused(&wrap(twice)).contains("\"gin\" is given to both \"c\" and \"d\""));
    for abv in [
        r#"{"figure": 50, "range": [37.5, 47], "source": "s"}"#,
        r#"{"figure": 40, "range": [37.5, 101], "source": "s"}"#,
        r#"{"figure": 40, "range": [37.5, 47], "source": ""}"#,
    ] {
        let strong = format!(r#"{{"id": "g", "name": "G", "abv": {abv}, "source": "s"}}"#);
        assert!(
            refused(&wrap(&strong)).contains("entry \"g\": abv needs"),
            "{abv}"
        );
    }
    let unsourced = r#"{"id": "e", "name": "E", "source": " "}"#;
    assert!(refused(&wrap(unsourced)).contains("\"e\" has no source"));
    assert!(
        refused(&wrap(
            r#"{"id": "f", "name": "F", "source": "s", "colour": 1}"#
        ))
        .contains("colour")
    );
}

#[test]
fn coverage_counts_rows_and_names_what_it_does_not_know() {
    let recipes = Recipes::parse(
        r#"[{"id": 1, "name": "A", "glass": ["x"], "ingredients": [
            {"name": "Gin", "measure": "50", "unit": "ml"},
            {"name": "House Falernum", "measure": "10", "unit": "ml"}]},
            {"id": 2, "name": "B", "glass": ["x"], "ingredients": [
            {"name": "house falernum", "measure": "10", "unit": "ml"},
            {"name": "Fresh Lime Juice (Persiano)", "measure": "20", "unit": "ml"}]}]"#,
        crate::recipes::Origin::Embedded,
        std::time::SystemTime::UNIX_EPOCH,
    )
    .unwrap();
    let coverage = Vocabulary::built_in().coverage(&recipes);
    assert_eq!((coverage.rows, coverage.understood), (4, 2));
    assert_eq!(coverage.unknown, vec![("House Falernum".to_owned(), 2)]);
    assert!((coverage.percent() - 50.0).abs() < 1e-9);
}

#[test]
fn the_sample_is_understood_whole() {
    let coverage = Vocabulary::built_in().coverage(&Recipes::sample().unwrap());
    assert_eq!(coverage.unknown, vec![], "{coverage:?}");
}
