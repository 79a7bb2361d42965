use super::super::{IngredientLine, LoadError, Origin, Recipe};
use super::lines::element_lines;
use super::report::parse_reporting;
use super::rules::MAX_ID;
use super::*;
use std::path::PathBuf;

fn origin() -> Origin {
    Origin::File(PathBuf::from("bar.json"))
}

fn problems(text: &str) -> Vec<String> {
    match parse(text, &origin()) {
        Ok(r) => panic!("expected problems, parsed {} recipes", r.recipes.len()),
        Err(LoadError::Invalid { problems, .. }) => {
            problems.iter().map(ToString::to_string).collect()
        }
        Err(other) => vec![other.to_string()],
    }
}

fn one(text: &str) -> String {
    let p = problems(text);
    assert_eq!(p.len(), 1, "expected one problem, got {p:#?}");
    p.into_iter().next().unwrap_or_default()
}

#[test]
fn fast_path_agrees_with_the_full_validator() {
    let valid = [
        super::super::SAMPLE_JSON,
        r#"[{"id": 0, "name": "A", "base": null, "ingredients": [{"name": "x", "measure": null}], "notes": null}]"#,
        r#"[{"name": "B", "id": 7, "glass": [], "ingredients": null}]"#,
        "[]",
    ];
    for text in valid {
        let fast = fast::parse(text, true).expect("the fast path accepts a valid file");
        let full = parse_reporting(text, &origin(), true).expect("valid");
        assert_eq!(fast, full.recipes, "{text}");
        assert!(full.warnings.is_empty(), "{text}: {:?}", full.warnings);
    }
    let invalid = [
        r#"{"id": 1, "name": "x"}"#,
        r#"[{"id": 1, "name": "x", "name": "y"}]"#,
        r#"[{"id": 1, "name": "x", "notes": "a", "notes": "b"}]"#,
        r#"[{"id": 1, "name": "x", "ingredients": [{"name": "g", "name": "h"}]}]"#,
        r#"[{"id": 1.0, "name": "x"}]"#,
        r#"[{"id": -1, "name": "x"}]"#,
        r#"[{"id": 1, "name": "  "}]"#,
        r#"[{"id": 1}]"#,
        r#"[{"name": "x"}]"#,
        r#"[{"id": 1, "name": "x"}, {"id": 1, "name": "y"}]"#,
        r#"[{"id": 1, "name": "x", "notes": 5}]"#,
        r#"[{"id": 1, "name": "x", "base": "Gin"}]"#,
        r#"[{"id": 1, "name": "x", "base": [1]}]"#,
        r#"[{"id": 1, "name": "x", "ingredients": [{"measure": "1"}]}]"#,
        r#"[{"id": 1, "name": "x", "ingredients": [{"name": null}]}]"#,
        r#"[{"id": 1, "name": "x", "ingredients": [{"name": " "}]}]"#,
        r#"[{"id": 1, "name": "x", "ingredients": ["gin"]}]"#,
        r#"[1]"#,
    ];
    for text in invalid {
        assert!(
            fast::parse(text, true).is_none(),
            "fast path accepted {text}"
        );
        assert!(parse(text, &origin()).is_err(), "{text}");
    }
    // What only the Go original's decoding accepts goes the long way, to be warned about.
    let go_only = [
        r#"[{"id": 1, "name": "x", "garnsh": []}]"#,
        r#"[{"id": 1, "Name": "x"}]"#,
        r#"[{"id": 1, "name": "x", "ingredients": [{"Name": "g"}]}]"#,
    ];
    for text in go_only {
        assert!(
            fast::parse(text, true).is_none(),
            "fast path accepted {text}"
        );
        let parsed = parse(text, &origin()).expect(text);
        assert_eq!(parsed.warnings.len(), 1, "{text}");
    }
}

#[test]
fn lists_load_in_order_without_spare_room() {
    let many: Vec<String> = (0..11).map(|i| format!("\"g{i}\"")).collect();
    let text = format!(
        r#"[{{"id": 1, "name": "A", "base": ["Gin"], "method": null, "garnish": [{}],
            "ingredients": [{{"name": "x"}}, {{"name": "y"}}, {{"name": "z"}}]}}]"#,
        many.join(", ")
    );
    let fast = fast::parse(&text, true).expect("valid");
    let full = parse_reporting(&text, &origin(), true)
        .expect("valid")
        .recipes;
    for r in [&fast[0], &full[0]] {
        let want: Vec<String> = (0..11).map(|i| format!("g{i}")).collect();
        assert_eq!(r.garnish, want);
        assert_eq!((r.base.len(), r.base.capacity()), (1, 1));
        assert_eq!(r.method.capacity(), 0);
        assert_eq!(r.ingredients.capacity(), 3);
    }
}

#[test]
fn accepts_the_documented_format_with_nulls_and_missing_fields() {
    let text = r#"[{"id": 10, "name": "New York Sour", "base": ["Bourbon"], "glass": ["12oz Lowball"],
  "method": ["Dry Shake", "Shake"], "ice": ["Cubed"],
  "ingredients": [{"name": "Lemon Juice", "measure": "20", "unit": "ml"}, {"name": "Soda", "measure": null}],
  "garnish": ["Lemon Sail"], "notes": "Use claret or malbec"},
  {"id": 11, "name": "Plain", "base": null, "notes": null}]"#;
    let recipes = parse(text, &origin()).expect("valid").recipes;
    assert_eq!(recipes.len(), 2);
    assert_eq!(recipes[0].method, ["Dry Shake", "Shake"]);
    assert_eq!(recipes[0].ingredients[1].measure, "");
    assert_eq!(recipes[1].base, Vec::<String>::new());
    assert_eq!(recipes[1].notes, "");
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let err = parse("[\n {\"id\": 1,\n  \"name\": \"A\",,\n}]", &origin()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("bar.json:3:"), "{msg}");
    assert!(msg.contains("invalid JSON"), "{msg}");
    assert!(!msg.contains(" at line "), "position printed twice: {msg}");
}

#[test]
fn top_level_must_be_an_array() {
    let p = one(r#"{"id": 1, "name": "A"}"#);
    assert!(p.contains("must be a JSON array"), "{p}");
    assert!(p.contains("found an object"), "{p}");
}

/// Loads a file that must load, and returns its recipes and warnings (as text).
fn loads(text: &str) -> (Vec<Recipe>, Vec<String>) {
    let parsed = parse(text, &origin()).unwrap_or_else(|e| panic!("{text}: {e}"));
    let warnings = parsed.warnings.iter().map(ToString::to_string).collect();
    (parsed.recipes, warnings)
}

#[test]
fn unknown_field_is_ignored_as_go_did_with_a_warning_naming_it() {
    let (recipes, w) = loads("[\n{\"id\": 7, \"name\": \"Negroni\", \"garnsh\": [\"Orange\"]}]");
    assert_eq!(recipes.len(), 1);
    assert!(recipes[0].garnish.is_empty());
    assert_eq!(w.len(), 1, "{w:#?}");
    let w = &w[0];
    assert!(
        w.starts_with("bar.json:2: recipe index 0 (id 7, \"Negroni\"), field \"garnsh\": "),
        "{w}"
    );
    assert!(w.contains("ignored as the Go version ignored it"), "{w}");
    assert!(w.contains("rename it to \"garnish\""), "{w}");
    assert!(
        w.contains("move it into \"notes\", otherwise delete it"),
        "{w}"
    );
    assert!(
        w.contains("id, name, base, glass, method, ice, ingredients, garnish, notes"),
        "{w}"
    );
    let (_, w) =
        loads(r#"[{"id": 1, "name": "A", "ingredients": [{"name": "Gin", "amount": "20"}]}]"#);
    assert!(w[0].contains("field \"ingredients[0].amount\""), "{w:?}");
    assert!(
        w[0].contains("the fields of an ingredient are: name, measure, unit"),
        "{w:?}"
    );
}

#[test]
fn keys_differing_in_case_load_as_go_matched_them_with_a_warning() {
    let text = "[{\"ID\": 3, \"Name\": \"Daiquiri\", \"BASE\": [\"Rum\"],\n \
                \"Ingredients\": [{\"NAME\": \"Lime\", \"Measure\": \"25\", \"unIt\": \"ml\"}], \
                \"notes\": \"x\"}]";
    let (recipes, w) = loads(text);
    assert_eq!(recipes[0].id, 3);
    assert_eq!(recipes[0].name, "Daiquiri");
    assert_eq!(recipes[0].base, ["Rum"]);
    assert_eq!(
        recipes[0].ingredients,
        [IngredientLine {
            name: "Lime".into(),
            measure: "25".into(),
            unit: "ml".into(),
            abv: None,
            substitutes: Vec::new(),
            exact: false,
        }]
    );
    assert_eq!(w.len(), 7, "{w:#?}");
    assert!(
        w[0].starts_with(
            "bar.json:1: recipe index 0 (id 3, \"Daiquiri\"), field \"ID\": loaded as \"id\""
        ),
        "{w:?}"
    );
    assert!(
        w[0].ends_with("rename it to \"id\" to make the file exact"),
        "{w:?}"
    );
    assert!(
        w[5].contains("field \"ingredients[0].Measure\": loaded as \"measure\""),
        "{w:?}"
    );
    // Go's folding is Unicode's: the long s is an s, the Kelvin sign a k.
    let (recipes, w) = loads("[{\"id\": 1, \"name\": \"A\", \"baſe\": [\"Gin\"]}]");
    assert_eq!((recipes[0].base.len(), w.len()), (1, 1));
    assert!(!super::keys::fold_eq("nameé", "names") && !super::keys::fold_eq("nam", "name"));
}

#[test]
fn invisible_characters_load_with_a_warning_naming_the_place_and_character() {
    let text = "[{\"id\": 1, \"name\": \"Gin\", \"notes\": \"Shake.\\n\\tHard.\"},\n\
                {\"id\": 2, \"name\": \"abc\\u202edef\", \"glass\": [\"Coupe\", \"Flute\\u0000\"],\n\
                \"ingredients\": [{\"name\": \"Lime\", \"measure\": \"\\u001b[31m\", \"unit\": \"ml\\t\"}],\n\
                \"notes\": \"\\ufeffx\"}]";
    assert!(
        fast::parse(text, true).is_none(),
        "the fast path skipped the warnings"
    );
    let (recipes, w) = loads(text);
    assert_eq!(recipes.len(), 2, "a file with them still loads");
    assert_eq!(recipes[1].name, "abc\u{202e}def", "loaded as it is");
    assert_eq!(w.len(), 5, "{w:#?}");
    // The recipe is named as Debug shows it: the override escaped, not applied.
    let place = "bar.json:2: recipe index 1 (id 2, \"abc\\u{202e}def\")";
    let want = [
        ("name", "U+202E RIGHT-TO-LEFT OVERRIDE at character 4"),
        ("glass[1]", "U+0000 NULL at character 6"),
        ("ingredients[0].measure", "U+001B ESCAPE at character 1"),
        (
            "ingredients[0].unit",
            "U+0009 CHARACTER TABULATION at character 3",
        ),
        (
            "notes",
            "U+FEFF ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK) at character 1",
        ),
    ];
    for (w, (field, found)) in w.iter().zip(want) {
        assert!(
            w.starts_with(&format!("{place}, field \"{field}\": contains {found}, ")),
            "{w}"
        );
        assert!(w.contains("an edit of this recipe is refused"), "{w}");
    }
    assert!(
        w[3].contains("line breaks and tabs belong in notes only"),
        "{}",
        w[3]
    );
    // A newline and a tab in notes are text; the store's own check leaves them all off.
    assert!(
        parse_with(text, &origin(), false)
            .expect("loads")
            .warnings
            .is_empty()
    );
}

#[test]
fn a_refused_file_lists_its_warnings_too() {
    let err = parse(
        "[{\"id\": 1, \"Name\": \"A\", \"garnsh\": []},\n {\"id\": 1, \"name\": \"B\"}]",
        &origin(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("bar.json: 1 problem(s) found:\n  bar.json:2: recipe index 1"),
        "{err}"
    );
    assert!(
        err.contains("\n  warning: bar.json:1: recipe index 0 (id 1, \"A\"), field \"Name\""),
        "{err}"
    );
    assert!(
        err.contains("\n  warning: bar.json:1: recipe index 0 (id 1, \"A\"), field \"garnsh\""),
        "{err}"
    );
}

#[test]
fn the_same_key_in_two_cases_is_refused_naming_both() {
    let p = one(r#"[{"id": 1, "name": "A", "Name": "B"}]"#);
    assert!(
        p.contains("field \"Name\": appears more than once (as \"name\" and \"Name\""),
        "{p}"
    );
    assert!(p.contains("the Go version kept the last one"), "{p}");
}

#[test]
fn null_id_or_name_says_what_go_made_of_it() {
    let p = one(r#"[{"id": null, "name": "A"}]"#);
    assert!(
        p.contains("field \"id\": is null (the Go version read it as 0)"),
        "{p}"
    );
    let p = one(r#"[{"id": 1, "name": null}]"#);
    assert!(p.contains("field \"name\": is null"), "{p}");
    assert!(p.contains("give it a name"), "{p}");
}

#[test]
fn missing_and_empty_name() {
    assert!(one(r#"[{"id": 1}]"#).contains("field \"name\": missing"));
    let p = one(r#"[{"id": 1, "name": "  "}]"#);
    assert!(
        p.contains("recipe index 0 (id 1), field \"name\": must not be empty"),
        "{p}"
    );
}

#[test]
fn ids_a_browser_cannot_read_exactly_are_refused() {
    let ok = format!(r#"[{{"id": {MAX_ID}, "name": "A"}}]"#);
    assert!(parse(&ok, &origin()).is_ok(), "2^53 - 1 is fine");
    assert!(fast::parse(&ok, true).is_some());
    let big = format!(r#"[{{"id": {}, "name": "A"}}]"#, MAX_ID + 1);
    assert!(
        fast::parse(&big, true).is_none(),
        "the fast path leaves it to the validator"
    );
    assert!(
        one(&big).contains("ids must be at most 9007199254740991"),
        "{}",
        one(&big)
    );
}

#[test]
fn missing_negative_and_duplicate_ids() {
    let p = one(r#"[{"name": "A"}]"#);
    assert!(p.contains("(\"A\"), field \"id\": missing"), "{p}");
    assert!(one(r#"[{"id": -1, "name": "A"}]"#).contains("whole number of 0 or more, found -1"));
    assert!(
        one(r#"[{"id": "1", "name": "A"}]"#).contains("expected a whole number, found a string")
    );
    let p = one("[{\"id\": 1, \"name\": \"A\"},\n{\"id\": 1, \"name\": \"B\"}]");
    assert!(
        p.starts_with("bar.json:2: recipe index 1 (id 1, \"B\"), field \"id\""),
        "{p}"
    );
    assert!(p.contains("already used by recipe index 0 (\"A\")"), "{p}");
}

#[test]
fn wrong_types_are_named_by_field_path() {
    let p = one(r#"[{"id": 1, "name": "A", "garnish": ["Lime", 3]}]"#);
    assert!(
        p.contains("field \"garnish[1]\": expected a string, found a number"),
        "{p}"
    );
    let p = one(r#"[{"id": 1, "name": "A", "glass": "Coupe"}]"#);
    assert!(
        p.contains("field \"glass\": expected a list of strings"),
        "{p}"
    );
    let p = one(r#"[{"id": 1, "name": "A", "ingredients": [{"name": "Gin", "measure": 20}]}]"#);
    assert!(p.contains("field \"ingredients[0].measure\""), "{p}");
    assert!(p.contains("write it in quotes: \"20\""), "{p}");
    assert!(
        one(r#"[{"id": 1, "name": "A", "notes": ["x"]}]"#)
            .contains("field \"notes\": expected a string, found an array")
    );
    assert!(one(r#"[1]"#).contains("each recipe must be an object, found a number"));
}

#[test]
fn ingredient_without_a_name() {
    let p = one(r#"[{"id": 1, "name": "A", "ingredients": [{"measure": "20", "unit": "ml"}]}]"#);
    assert!(
        p.contains("field \"ingredients[0].name\": every ingredient needs a name"),
        "{p}"
    );
}

#[test]
fn duplicate_keys_are_rejected_not_silently_dropped() {
    let p = one(r#"[{"id": 1, "name": "A", "notes": "first", "notes": "second"}]"#);
    assert!(p.contains("field \"notes\": appears more than once"), "{p}");
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let text = "[\n{\"id\": 1, \"name\": \"A\", \"garnish\": \"x\"},\n{\"id\": 2},\n{\"id\": 1, \"name\": \"C\"},\n{\"id\": 4, \"name\": \"D\", \"ingredients\": [{}]}\n]";
    let p = problems(text);
    assert_eq!(p.len(), 4, "{p:#?}");
    assert!(p[0].starts_with("bar.json:2: recipe index 0"));
    assert!(p[1].starts_with("bar.json:3: recipe index 1 (id 2)"));
    assert!(p[2].starts_with("bar.json:4: recipe index 2 (id 1, \"C\")"));
    assert!(p[3].starts_with("bar.json:5: recipe index 3 (id 4, \"D\")"));
}

#[test]
fn element_lines_ignore_brackets_inside_strings() {
    let text = "[\n {\"name\": \"a [b], {c}\"},\n\n {\"name\": \"\\\"]\"}, 3\n]";
    assert_eq!(element_lines(text), [2, 4, 4]);
}

/// What [`check_one`] answered when it wrote the object out as a file and parsed it again.
fn by_text(object: &serde_json::Value) -> Result<Recipe, Vec<FieldError>> {
    let text = serde_json::to_string(&[object]).unwrap();
    let as_error = |p: &Problem| FieldError {
        field: p.field.clone().unwrap_or_default(),
        message: p.message.clone(),
    };
    match parse_with(&text, &Origin::Embedded, false) {
        Ok(parsed) if parsed.warnings.is_empty() => Ok(parsed.recipes.into_iter().next().unwrap()),
        Ok(parsed) => Err(parsed.warnings.iter().map(as_error).collect()),
        Err(LoadError::Invalid {
            problems, warnings, ..
        }) => Err(problems.iter().chain(&warnings).map(as_error).collect()),
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn a_submitted_recipe_is_checked_as_its_text_would_be() {
    use serde_json::json;
    let objects = [
        json!({"id": 1, "name": "A"}),
        json!({"id": 1, "name": "A", "base": null, "notes": "x\n\ty\u{202e}",
               "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml\u{0}"}]}),
        json!({"id": 1.0, "name": " ", "Glass": ["x", 3], "garnsh": [], "notes": 5}),
        json!({"id": -1, "name": null, "ingredients": [{"Name": "g"}, "x", {"measure": 2.5}]}),
        json!({"id": 9_007_199_254_740_992_u64, "ingredients": {}, "method": "Shake"}),
        json!({"id": 1e20, "name": ["A"], "ice": [null]}),
        json!({"name": "no id", "base": ["Gin"], "zz": {"a": 1}}),
        json!([1]),
        json!("text"),
    ];
    for object in &objects {
        assert_eq!(check_one(object), by_text(object), "{object}");
    }
    assert!(check_one(&objects[0]).is_ok());
    assert!(
        check_one(&objects[1]).is_ok(),
        "characters are the store's to check"
    );
}

#[test]
fn an_ingredient_may_give_its_strength_from_0_to_100() {
    let text = r#"[{"id": 4, "name": "Strong", "ingredients": [
        {"name": "Rum", "measure": "60", "unit": "ml", "abv": 63},
        {"name": "Lime", "measure": "20", "unit": "ml", "abv": 0}]}]"#;
    let fast = fast::parse(text, true).expect("the fast path takes it");
    let full = parse_reporting(text, &origin(), true).expect("valid");
    assert_eq!(fast, full.recipes);
    assert_eq!(
        fast[0].ingredients[0].abv.map(crate::recipes::Abv::get),
        Some(63.0)
    );
    for bad in ["101", "-1", "\"40\"", "true"] {
        let text = format!(
            r#"[{{"id": 4, "name": "Strong", "ingredients": [{{"name": "Rum", "abv": {bad}}}]}}]"#
        );
        assert!(fast::parse(&text, true).is_none(), "{bad}");
        let problem = one(&text);
        for part in ["bar.json", "Strong", "ingredients[0].abv", "0 to 100"] {
            assert!(problem.contains(part), "{bad}: {problem}");
        }
    }
}

#[test]
fn an_ingredient_may_list_substitutes_and_be_exact() {
    let text = r#"[{"id": 4, "name": "Margarita", "ingredients": [
        {"name": "Triple Sec", "measure": "20", "unit": "ml", "substitutes": ["Dry Curaçao", "Grand Marnier"]},
        {"name": "Tequila", "measure": "50", "unit": "ml", "exact": true},
        {"name": "Lime", "measure": "20", "unit": "ml", "substitutes": null, "exact": false}]}]"#;
    let fast = fast::parse(text, true).expect("the fast path takes it");
    let full = parse_reporting(text, &origin(), true).expect("valid");
    assert_eq!(fast, full.recipes);
    let rows = &fast[0].ingredients;
    assert_eq!(rows[0].substitutes, ["Dry Curaçao", "Grand Marnier"]);
    assert!(!rows[0].exact && rows[1].exact && !rows[2].exact);
    // Written back only where the row has them: a file without them keeps its bytes.
    let written = serde_json::to_value(rows).unwrap();
    assert_eq!(written[0]["substitutes"][1], "Grand Marnier");
    assert_eq!(written[1]["exact"], true);
    assert_eq!(
        written[2],
        serde_json::json!({"name": "Lime", "measure": "20", "unit": "ml"})
    );
    for (bad, field) in [
        (r#""substitutes": "Gin""#, "ingredients[0].substitutes"),
        (
            r#""substitutes": ["Gin", " "]"#,
            "ingredients[0].substitutes[1]",
        ),
        (r#""substitutes": [3]"#, "ingredients[0].substitutes[0]"),
        (r#""exact": "yes""#, "ingredients[0].exact"),
    ] {
        let text =
            format!(r#"[{{"id": 4, "name": "M", "ingredients": [{{"name": "Rum", {bad}}}]}}]"#);
        assert!(fast::parse(&text, true).is_none(), "{bad}");
        let problem = one(&text);
        assert!(problem.contains(field), "{bad}: {problem}");
    }
}
