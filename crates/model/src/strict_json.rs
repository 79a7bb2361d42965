//! JSON read strictly: a [`serde_json::Value`] plus every key an object repeats, named
//! by its path.
//!
//! `serde_json::Value` keeps only the last of two equal keys, so `{"name": "first", "name":
//! "second"}` would be taken as "second" without a word, where the recipes file's loader
//! refuses the same recipe. The text is read by the loader's own reader, [`Json`] (which
//! keeps every key, in order), so the file and every write refuse repeated keys through
//! the same code; this room only turns that value into a `Value` (the first of two keys
//! kept) and names every repeat by its path (`name`, `ingredients[0].unit`, `people[1]`),
//! also when the two differ only in case (the loader matches keys whatever their case, so
//! it would read both as one field). Every body a write takes (a recipe, a person's own
//! change, the shelf, a menu) and the household's backup are read through it.

use crate::recipes::{FieldError, Json};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// `body` as JSON, and a problem for each key an object repeats (none when it repeats
/// none). Invalid JSON is serde_json's error, with its line and column.
pub fn parse(body: &[u8]) -> Result<(Value, Vec<FieldError>), serde_json::Error> {
    let json: Json = serde_json::from_slice(body)?;
    let mut repeats = Vec::new();
    let value = value(json, "", &mut repeats);
    Ok((value, repeats))
}

/// `json` (found at `path`) as a `Value`, noting each repeated key (inner ones first, as
/// the text reads) in `repeats`.
fn value(json: Json, path: &str, repeats: &mut Vec<FieldError>) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(b),
        Json::Number(n) => Value::Number(n),
        Json::String(s) => Value::String(s),
        Json::Array(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| value(item, &format!("{path}[{i}]"), repeats))
                .collect(),
        ),
        Json::Object(entries) => Value::Object(object(entries, path, repeats)),
    }
}

/// An object's entries, the first of each key (compared whatever its case) kept.
fn object(
    entries: Vec<(String, Json)>,
    path: &str,
    repeats: &mut Vec<FieldError>,
) -> Map<String, Value> {
    let mut object = Map::new();
    // Each key as the loader compares keys (whatever their case), to the first spelling.
    let mut seen: HashMap<String, String> = HashMap::new();
    for (key, json) in entries {
        let at = match path {
            "" => key.clone(),
            parent => format!("{parent}.{key}"),
        };
        let item = value(json, &at, repeats);
        match seen.entry(key.to_lowercase()) {
            Entry::Occupied(first) => repeats.push(repeated(at, first.get(), &key)),
            Entry::Vacant(slot) => {
                slot.insert(key.clone());
                object.insert(key, item);
            }
        }
    }
    object
}

fn repeated(path: String, first: &str, again: &str) -> FieldError {
    let spelled = if first == again {
        String::new()
    } else {
        format!(" (as \"{first}\" and \"{again}\"; keys match whatever their case)")
    };
    FieldError {
        field: path,
        message: format!(
            "appears more than once{spelled}; write it once (only one would be kept, so it \
             is refused rather than guessed)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeats(text: &str) -> Vec<String> {
        let (_, repeats) = parse(text.as_bytes()).expect("JSON");
        repeats.into_iter().map(|p| p.field).collect()
    }

    #[test]
    fn every_repeated_key_is_named_by_its_path() {
        assert!(repeats(r#"{"name": "a", "ingredients": [{"name": "g"}]}"#).is_empty());
        assert_eq!(repeats(r#"{"name": "first", "name": "second"}"#), ["name"]);
        assert_eq!(
            repeats(
                r#"{"name": "x", "ingredients": [{"name": "g"}, {"unit": "ml", "unit": "cl"}]}"#
            ),
            ["ingredients[1].unit"]
        );
        assert_eq!(repeats(r#"{"notes": "a", "Notes": "b"}"#), ["Notes"]);
        assert_eq!(repeats(r#"[{"a": 1, "A": 2, "a": 3}]"#), ["[0].A", "[0].a"]);
    }

    #[test]
    fn the_first_key_is_kept_and_inner_repeats_come_first() {
        let text = r#"{"a": {"x": 1, "X": 2}, "b": 1, "a": 3, "B": 4}"#;
        let (value, found) = parse(text.as_bytes()).expect("JSON");
        assert_eq!(value, serde_json::json!({"a": {"x": 1}, "b": 1}));
        let fields: Vec<&str> = found.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["a.X", "a", "B"]);
        assert!(found[2].message.contains(r#"(as "b" and "B"; keys match"#));
    }

    #[test]
    fn a_write_and_the_file_refuse_the_same_repeated_fields() {
        let text = r#"[{"id": 1, "name": "A", "notes": "x", "Notes": "y",
            "ingredients": [{"name": "g", "unit": "ml", "unit": "cl"}]}]"#;
        let loaded = crate::recipes::Recipes::parse(
            text,
            crate::recipes::Origin::Embedded,
            std::time::SystemTime::UNIX_EPOCH,
        );
        let Err(crate::recipes::LoadError::Invalid { problems, .. }) = loaded else {
            panic!("the loader took repeated keys: {loaded:?}");
        };
        let by_file: Vec<String> = problems
            .iter()
            .filter(|p| p.message.contains("more than once"))
            .filter_map(|p| p.field.clone())
            .collect();
        let by_write: Vec<String> = repeats(text)
            .into_iter()
            .map(|f| f.trim_start_matches("[0].").to_owned())
            .collect();
        assert_eq!(by_file, ["Notes", "ingredients[0].unit"]);
        assert_eq!(by_write, by_file);
    }

    #[test]
    fn the_value_is_what_serde_json_reads() {
        let text = r#"{"a": [1, -2, 3.5, 18446744073709551616, "s", null, true], "b": {}}"#;
        let (value, _) = parse(text.as_bytes()).expect("JSON");
        assert_eq!(value, serde_json::from_str::<Value>(text).expect("JSON"));
        let e = parse(b"{\"name\": ").expect_err("not JSON");
        assert_eq!((e.line(), e.column()), (1, 9));
        assert!(parse(b"{} {}").is_err(), "trailing data");
    }
}
