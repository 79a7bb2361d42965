//! JSON read strictly: a [`serde_json::Value`] plus every key an object repeats, named
//! by its path.
//!
//! `serde_json::Value` keeps only the last of two equal keys, so `{"name": "first", "name":
//! "second"}` would be taken as "second" without a word, where the recipes file's loader
//! refuses the same recipe. Parsing through [`Node`] sees each key as it comes and names
//! every repeat by its path (`name`, `ingredients[0].unit`, `people[1]`), also when the two
//! differ only in case (the loader matches keys whatever their case, so it would read
//! both as one field). Every body a write takes (a recipe, a person's own change, the
//! shelf, a menu) and the household's backup are read through it.

use crate::recipes::FieldError;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;

/// `body` as JSON, and a problem for each key an object repeats (none when it repeats
/// none). Invalid JSON is serde_json's error, with its line and column.
pub fn parse(body: &[u8]) -> Result<(Value, Vec<FieldError>), serde_json::Error> {
    let repeats = RefCell::new(Vec::new());
    let mut json = serde_json::Deserializer::from_slice(body);
    let value = Node {
        path: String::new(),
        repeats: &repeats,
    }
    .deserialize(&mut json)?;
    json.end()?;
    Ok((value, repeats.into_inner()))
}

/// One value of the body, at `path`, noting repeated keys in `repeats`.
struct Node<'r> {
    path: String,
    repeats: &'r RefCell<Vec<FieldError>>,
}

impl Node<'_> {
    fn at(&self, path: String) -> Self {
        Node {
            path,
            repeats: self.repeats,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) =
            seq.next_element_seed(self.at(format!("{}[{}]", self.path, items.len())))?
        {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        // Each key as the loader compares keys (whatever their case), to the first spelling.
        let mut seen: HashMap<String, String> = HashMap::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = match self.path.as_str() {
                "" => key.clone(),
                parent => format!("{parent}.{key}"),
            };
            let value = map.next_value_seed(self.at(path.clone()))?;
            match seen.entry(key.to_lowercase()) {
                Entry::Occupied(first) => {
                    let problem = repeated(path, first.get(), &key);
                    self.repeats.borrow_mut().push(problem);
                }
                Entry::Vacant(slot) => {
                    slot.insert(key.clone());
                    object.insert(key, value);
                }
            }
        }
        Ok(Value::Object(object))
    }
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
    fn the_value_is_what_serde_json_reads() {
        let text = r#"{"a": [1, -2, 3.5, 18446744073709551616, "s", null, true], "b": {}}"#;
        let (value, _) = parse(text.as_bytes()).expect("JSON");
        assert_eq!(value, serde_json::from_str::<Value>(text).expect("JSON"));
        let e = parse(b"{\"name\": ").expect_err("not JSON");
        assert_eq!((e.line(), e.column()), (1, 9));
        assert!(parse(b"{} {}").is_err(), "trailing data");
    }
}
