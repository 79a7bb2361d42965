//! The household's rules: by the vocabulary's names, the change made last wins per rule,
//! unknown names refused naming the field with nothing written, the cap, and the backup's
//! round trip.

use super::tests::{alice, bob, open};
use super::*;
use crate::vocabulary::Rule;

fn change(have: &str, wanted: &str, on: bool, at: i64) -> RuleChange {
    RuleChange {
        have: have.into(),
        wanted: wanted.into(),
        on,
        at: Some(at),
    }
}

fn rule(have: &str, wanted: &str) -> Rule {
    Rule {
        have: have.into(),
        wanted: wanted.into(),
    }
}

fn refused_field<T: std::fmt::Debug>(r: Result<T>) -> String {
    match r {
        Err(HouseholdError::Refused { field, message }) => format!("{field}: {message}"),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn rules_are_read_by_any_spelling_and_listed_by_the_vocabularys_names() {
    let (_dir, h) = open();
    h.change_rule(
        &alice(),
        &change("pierre ferrand dry curacao", "TRIPLE-SEC", true, 1_000),
    )
    .unwrap();
    h.change_rule(&bob(), &change("Rye", "Bourbon Whiskey", true, 2_000))
        .unwrap();
    assert_eq!(
        h.rules().unwrap(),
        [
            rule("Dry curaçao", "Triple sec"),
            rule("Rye whiskey", "Bourbon")
        ]
    );
}

#[test]
fn the_change_made_last_wins_and_a_rule_taken_back_stays_back() {
    let (_dir, h) = open();
    h.change_rule(&alice(), &change("Dry curaçao", "Triple sec", true, 1_000))
        .unwrap();
    h.change_rule(&bob(), &change("Dry curaçao", "Triple sec", false, 3_000))
        .unwrap();
    assert_eq!(h.rules().unwrap(), []);
    // An older add from a phone that was offline does not bring it back.
    h.change_rule(&alice(), &change("Dry curaçao", "Triple sec", true, 2_000))
        .unwrap();
    assert_eq!(h.rules().unwrap(), []);
    h.change_rule(&alice(), &change("Dry curaçao", "Triple sec", true, 4_000))
        .unwrap();
    assert_eq!(h.rules().unwrap(), [rule("Dry curaçao", "Triple sec")]);
}

#[test]
fn unknown_names_are_refused_naming_the_field_and_nothing_is_written() {
    let (_dir, h) = open();
    let before = h.export().unwrap();
    let why = refused_field(h.change_rule(&alice(), &change("House hooch", "Gin", true, 1)));
    assert!(
        why.starts_with("have: \"House hooch\" is no bottle"),
        "{why}"
    );
    let why = refused_field(h.change_rule(&alice(), &change("Gin", "Moonshine X", true, 1)));
    assert!(why.starts_with("wanted: \"Moonshine X\""), "{why}");
    let why = refused_field(h.change_rule(&alice(), &change("Gin", "Bourbon or Rye", true, 1)));
    assert!(why.contains("names several bottles"), "{why}");
    let why = refused_field(h.change_rule(&alice(), &change("Gin", "dry gin", true, 1)));
    assert!(
        why.starts_with("wanted: a bottle cannot stand in for itself"),
        "{why}"
    );
    let after = h.export().unwrap();
    assert_eq!((after.rules, after.people), (before.rules, before.people));
}

#[test]
fn the_household_holds_at_most_rules_at_once() {
    let (_dir, h) = open();
    let vocabulary = crate::vocabulary::Vocabulary::built_in();
    let names: Vec<&str> = vocabulary
        .entries()
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    for (i, have) in names.iter().skip(1).take(RULES).enumerate() {
        h.change_rule(&alice(), &change(have, names[0], true, i as i64))
            .unwrap();
    }
    let extra = change(names[RULES + 1], names[0], true, 5_000);
    let why = refused_field(h.change_rule(&alice(), &extra));
    assert!(why.contains(&format!("at most {RULES} rules")), "{why}");
    assert_eq!(h.rules().unwrap().len(), RULES);
    // Taking one back makes room.
    h.change_rule(&alice(), &change(names[1], names[0], false, 6_000))
        .unwrap();
    h.change_rule(&alice(), &extra).unwrap();
}

#[test]
fn the_backup_holds_the_rules_and_merges_back_by_the_change_made_last() {
    let (_dir, h) = open();
    h.change_rule(&alice(), &change("Dry curaçao", "Triple sec", true, 1_000))
        .unwrap();
    h.change_rule(&alice(), &change("Rye whiskey", "Bourbon", true, 1_000))
        .unwrap();
    h.change_rule(&bob(), &change("Rye whiskey", "Bourbon", false, 2_000))
        .unwrap();
    let backup = h.export().unwrap();
    assert_eq!(backup.rules.len(), 2, "taken-back rows are kept");
    let bytes = serde_json::to_vec(&backup).unwrap();
    let read = Backup::from_slice(&bytes).unwrap();
    assert_eq!(read, backup);
    let (_other_dir, other) = open();
    // The other household took Dry curaçao for Triple sec back after the backup's add.
    other
        .change_rule(&bob(), &change("Dry curaçao", "Triple sec", false, 1_500))
        .unwrap();
    other
        .change_rule(&bob(), &change("Rye whiskey", "Bourbon", true, 1_500))
        .unwrap();
    let taken = other.import(&read, 10).unwrap();
    assert_eq!(taken.rules, 2);
    assert_eq!(other.rules().unwrap(), []);
    let mut bad = serde_json::to_value(&backup).unwrap();
    bad["rules"][1]["wanted"] = serde_json::json!("no-such-bottle");
    let why = refused_field(Backup::from_slice(&serde_json::to_vec(&bad).unwrap()));
    assert!(why.starts_with("rules[1].wanted: "), "{why}");
}
