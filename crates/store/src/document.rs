//! The recipes file as a person wrote it: recipe objects in file order, every key kept.
//!
//! Edits work on this, not on the validated [`Recipes`](crate::recipes::Recipes), so that an
//! edit changes only the recipe it is about: the others keep their place in the file and
//! any key we do not know (the Go original ignored unknown keys, and so do we, with a
//! warning). The file is written pretty-printed, two spaces, with the schema's keys in the
//! schema's order followed by any others, so that it stays pleasant to edit by hand and a
//! diff between two versions shows only what changed.

use crate::recipes::{INGREDIENT_FIELDS, RECIPE_FIELDS, Recipe, fold_eq};
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value};

/// One recipe object from the file.
pub(crate) type Object = Map<String, Value>;

/// The file's recipe objects, in order.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    items: Vec<Object>,
}

impl Document {
    /// Reads the objects of a file that has already passed the validator (so it is an
    /// array of objects, each with a valid id).
    pub(crate) fn parse(text: &str) -> Result<Document, serde_json::Error> {
        Ok(Document {
            items: serde_json::from_str(text)?,
        })
    }

    /// The object of the recipe with this id, if there is one.
    pub(crate) fn get(&self, id: u64) -> Option<&Object> {
        self.position(id).map(|i| &self.items[i])
    }

    /// The highest id in the file (0 for an empty file).
    pub(crate) fn max_id(&self) -> u64 {
        self.items.iter().filter_map(id_of).max().unwrap_or(0)
    }

    /// Replaces the recipe with `object`'s id, or appends it at the end when there is none.
    pub(crate) fn put(&mut self, object: Object) {
        match id_of(&object).and_then(|id| self.position(id)) {
            Some(i) => self.items[i] = object,
            None => self.items.push(object),
        }
    }

    /// Removes the recipe with this id; returns its object.
    pub(crate) fn remove(&mut self, id: u64) -> Option<Object> {
        self.position(id).map(|i| self.items.remove(i))
    }

    /// The whole file, pretty-printed in the stable key order, ending in a newline.
    pub(crate) fn to_pretty(&self) -> Vec<u8> {
        let ordered: Vec<Ordered<'_>> = self.items.iter().map(Ordered).collect();
        let mut out = Vec::with_capacity(self.items.len() * 512);
        // Serialising JSON values into a Vec cannot fail: there is no I/O and every map
        // key is a string.
        let mut ser = serde_json::Serializer::pretty(&mut out);
        if serde::Serialize::serialize(&ordered, &mut ser).is_err() {
            out.clear();
        }
        out.push(b'\n');
        out
    }

    fn position(&self, id: u64) -> Option<usize> {
        self.items.iter().position(|o| id_of(o) == Some(id))
    }
}

/// The value of a recipe's `id` key, matched case-insensitively as the loader does.
pub(crate) fn id_of(object: &Object) -> Option<u64> {
    key_like(object, "id").and_then(|(_, v)| v.as_u64())
}

/// The key of `object` that stands for the schema field `field`, exactly or in another
/// case (files written for the Go original may say `Name`), folded exactly as the loader
/// folds it: if the two disagreed, an edit could add a second object for one id and write
/// a file that no longer loads.
pub(crate) fn key_like<'o>(object: &'o Object, field: &str) -> Option<(&'o String, &'o Value)> {
    object.get_key_value(field).or_else(|| {
        object
            .iter()
            .find(|(k, _)| crate::recipes::fold_eq(k, field))
    })
}

/// A recipe's version: the first 16 hex digits of the SHA-256 of its validated content.
/// It changes when anything shown changes, whoever made the change (the app or a hand
/// edit), which is what a conflict check needs.
pub fn version(recipe: &Recipe) -> String {
    let json = serde_json::to_vec(recipe).unwrap_or_default();
    crate::digest::short_hash(&json)
}

/// A recipe object that serialises with the schema's keys first, in schema order.
struct Ordered<'a>(&'a Object);

impl serde::Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ordered_map(self.0, &RECIPE_FIELDS, serializer)
    }
}

/// An ingredient object, likewise.
struct OrderedIngredient<'a>(&'a Object);

impl serde::Serialize for OrderedIngredient<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ordered_map(self.0, &INGREDIENT_FIELDS, serializer)
    }
}

/// Writes `object`'s keys: those of `schema` in its order, then the rest in the order
/// serde_json keeps them (sorted).
fn ordered_map<S: Serializer>(
    object: &Object,
    schema: &[&str],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(object.len()))?;
    // Known as the loader knows a field (`fold_eq`, Unicode folding): with ASCII-only case a
    // key such as "baſe" was written once as `base` and once as itself, and the file then
    // no longer loaded.
    let known = |k: &str| schema.iter().any(|f| fold_eq(f, k));
    for field in schema {
        if let Some((key, value)) = key_like(object, field) {
            entry(&mut map, key, value)?;
        }
    }
    for (key, value) in object.iter().filter(|(k, _)| !known(k)) {
        map.serialize_entry(key, value)?;
    }
    map.end()
}

fn entry<M: SerializeMap>(map: &mut M, key: &str, value: &Value) -> Result<(), M::Error> {
    match value {
        Value::Array(items) if fold_eq(key, "ingredients") => {
            let rows: Vec<Row<'_>> = items.iter().map(Row).collect();
            map.serialize_entry(key, &rows)
        }
        _ => map.serialize_entry(key, value),
    }
}

/// An element of `ingredients`: an object in ingredient order, anything else as it is.
struct Row<'a>(&'a Value);

impl serde::Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(o) => OrderedIngredient(o).serialize(serializer),
            other => other.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_schema_order_then_unknown_keys_and_keeps_file_order() {
        let text = r#"[
            {"notes": "n", "name": "B", "zz": 1, "id": 2,
             "ingredients": [{"unit": "ml", "name": "Gin", "measure": "50"}]},
            {"id": 1, "Name": "A"}
        ]"#;
        let doc = Document::parse(text).unwrap();
        let out = String::from_utf8(doc.to_pretty()).unwrap();
        let expected = r#"[
  {
    "id": 2,
    "name": "B",
    "ingredients": [
      {
        "name": "Gin",
        "measure": "50",
        "unit": "ml"
      }
    ],
    "notes": "n",
    "zz": 1
  },
  {
    "id": 1,
    "Name": "A"
  }
]
"#;
        assert_eq!(out, expected);
        assert_eq!(doc.max_id(), 2);
        assert_eq!(
            doc.get(1)
                .and_then(|o| key_like(o, "name"))
                .map(|(k, _)| k.as_str()),
            Some("Name")
        );
    }

    #[test]
    fn put_replaces_in_place_or_appends_and_remove_takes_out() {
        let mut doc =
            Document::parse(r#"[{"id": 1, "name": "A"}, {"id": 2, "name": "B"}]"#).unwrap();
        let object = |v: Value| v.as_object().cloned().unwrap();
        doc.put(object(serde_json::json!({"id": 1, "name": "A2"})));
        doc.put(object(serde_json::json!({"id": 7, "name": "C"})));
        let ids: Vec<u64> = doc.items.iter().filter_map(id_of).collect();
        assert_eq!(ids, [1, 2, 7]);
        assert_eq!(doc.get(1).unwrap()["name"], "A2");
        assert!(doc.remove(2).is_some());
        assert!(doc.remove(2).is_none());
        assert_eq!(doc.max_id(), 7);
    }
}
