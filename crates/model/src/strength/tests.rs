use super::*;
use crate::recipes::Origin;
use serde::Deserialize;
use std::time::SystemTime;

#[derive(Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    about: String,
    recipe: serde_json::Value,
    #[serde(default)]
    household: Household,
}

#[derive(Deserialize)]
struct Want {
    abv: Option<f64>,
    volume_ml: Option<f64>,
    standard_drinks: Option<f64>,
    undiluted_abv: Option<f64>,
    dilution: f64,
    approximate: bool,
    not_counted: Vec<String>,
}

fn near(got: Option<f64>, want: Option<f64>, within: f64) -> bool {
    match (got, want) {
        (Some(g), Some(w)) => (g - w).abs() <= within,
        (None, None) => true,
        _ => false,
    }
}

pub(crate) fn cases() -> Vec<(String, Recipe, Household, serde_json::Value)> {
    let table: serde_json::Value =
        serde_json::from_str(include_str!("../../../../tests/strength-cases.json"))
            .expect("tests/strength-cases.json parses");
    let cases: Cases = serde_json::from_value(table.clone()).expect("cases");
    cases
        .cases
        .into_iter()
        .zip(table["cases"].as_array().expect("a list"))
        .map(|(c, raw)| {
            let text = serde_json::Value::Array(vec![c.recipe]).to_string();
            let recipes = Recipes::parse(&text, Origin::Embedded, SystemTime::UNIX_EPOCH)
                .unwrap_or_else(|e| panic!("{}: {e}", c.about));
            (
                c.about,
                recipes.all()[0].clone(),
                c.household,
                raw["want"].clone(),
            )
        })
        .collect()
}

#[test]
fn the_worked_examples() {
    let all = cases();
    assert!(all.len() >= 9);
    let mut failures = Vec::new();
    for (about, recipe, household, want) in all {
        let want: Want = serde_json::from_value(want).expect("want");
        let (got, _) = of(&recipe, Table::built_in(), &household);
        let ok = near(got.abv, want.abv, 0.05)
            && near(got.volume_ml, want.volume_ml, 0.05)
            && near(got.standard_drinks, want.standard_drinks, 0.005)
            && near(got.undiluted_abv, want.undiluted_abv, 0.05)
            && (got.dilution - want.dilution).abs() <= 0.0005
            && got.approximate == want.approximate
            && got.not_counted == want.not_counted;
        if !ok {
            failures.push(format!("{about}: got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_figure_is_sourced_and_in_its_range() {
    let table = Table::built_in();
    assert!(
        table.entries().count() > 200,
        "the vocabulary carries the strengths"
    );
    for (name, e) in table.entries() {
        assert!(!e.source.trim().is_empty(), "{name} has a source");
        assert!((0.0..=100.0).contains(&e.figure), "{name}");
        assert!(
            e.range[0] <= e.figure && e.figure <= e.range[1],
            "{name}: in its range"
        );
    }
}

#[test]
fn a_bottle_without_a_figure_counts_at_its_kinds() {
    let t = Table::built_in();
    // Sloe gin has no figure of its own: it counts at Liqueurs'; a figure of its own wins.
    assert_eq!(
        t.find("sloe gin").map(|(n, e)| (n, e.figure)),
        Some(("Liqueurs", 25.0))
    );
    assert_eq!(
        t.find("tia maria").map(|(n, e)| (n, e.figure)),
        Some(("Tia Maria", 20.0))
    );
    // A spelling whose bottle and kinds have no figure reads on: "demerara sugar" as sugar.
    assert_eq!(t.find("demerara sugar").map(|(_, e)| e.figure), Some(0.0));
}

#[test]
fn names_fold_as_the_shelf_does() {
    let t = Table::built_in();
    let abv = |name: &str| t.find(&key(name)).map(|(_, e)| e.figure);
    assert_eq!(abv("Sherry (preferably Lustau)"), Some(17.0));
    assert_eq!(abv("CRÈME DE CASSIS"), Some(16.0));
    assert_eq!(abv("Rye Whiskey or Bourbon"), Some(45.0));
    assert_eq!(abv("Islay Scotch Whiskey"), Some(43.0));
    assert_eq!(abv("Tequila 100% Agave"), Some(40.0));
    assert_eq!(abv("Fresh Lime Juice (Persiano)"), Some(0.0));
    assert_eq!(abv("Zubrowka Nonesuch"), None);
}

#[test]
fn methods_pick_the_dilution() {
    let m = |list: &[&str]| Method::pick(&list.iter().map(|s| (*s).into()).collect::<Vec<_>>());
    assert_eq!(m(&["Dry Shake", "Shake"]), Method::Shaken);
    assert_eq!(m(&["SHAKE"]), Method::Shaken);
    assert_eq!(m(&["Build", "Stir"]), Method::Built);
    assert_eq!(m(&["Stir", "Float"]), Method::Stirred);
    assert_eq!(m(&["Swizzle"]), Method::Swizzled);
    assert_eq!(m(&["Blend"]), Method::Blended);
    assert_eq!(m(&["Layer"]), Method::Neat);
    assert_eq!(m(&["Muddle"]), Method::Unknown);
    assert_eq!(m(&[]), Method::Unknown);
    assert_eq!(Method::Unknown.dilution(30.0), 0.0);
    // Arnold's equations at 0% and 25%.
    assert!((Method::Shaken.dilution(0.0) - 0.203).abs() < 1e-9);
    assert!(
        (Method::Stirred.dilution(25.0) - (-1.21 * 0.0625 + 1.246 * 0.25 + 0.145)).abs() < 1e-9
    );
}
