//! A JSON file, told apart by its shape: a libations file (an array of recipes in our
//! schema, or one such object), a Bar Assistant recipe (`data.json` or cocktail-02), or
//! JSON-LD. A libations recipe is taken as it is (its `id` left out): nothing is guessed.

use super::ImportError;
use super::incoming::Incoming;
use serde_json::Value;

pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Vec<Incoming>, ImportError> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| ImportError::Json(e.to_string()))?;
    from_value(&value)
}

pub(crate) fn from_value(value: &Value) -> Result<Vec<Incoming>, ImportError> {
    if super::jsonld::looks_like(value) {
        return super::jsonld::from_value(value);
    }
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut drafts = Vec::new();
    for item in items {
        if super::bar_assistant::looks_like(item) {
            drafts.push(super::bar_assistant::from_value(item));
        } else if is_ours(item) {
            drafts.push(ours(item));
        }
    }
    if drafts.is_empty() {
        return Err(ImportError::NoRecipe(
            "the JSON is not a libations file, a Bar Assistant recipe or schema.org JSON-LD"
                .to_owned(),
        ));
    }
    Ok(drafts)
}

/// An object with a `name` and only our schema's keys (any case).
fn is_ours(item: &Value) -> bool {
    let Some(o) = item.as_object() else {
        return false;
    };
    let known = |k: &String| {
        crate::recipes::RECIPE_FIELDS
            .iter()
            .any(|f| f.eq_ignore_ascii_case(k))
    };
    o.keys().any(|k| k.eq_ignore_ascii_case("name")) && o.keys().all(known)
}

fn field<'v>(item: &'v Value, name: &str) -> Option<&'v Value> {
    let o = item.as_object()?;
    o.get(name).or_else(|| {
        o.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

fn text(item: &Value, name: &str) -> String {
    field(item, name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn list(item: &Value, name: &str) -> Vec<String> {
    match field(item, name) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

fn ours(item: &Value) -> Incoming {
    let mut d = Incoming {
        name: text(item, "name"),
        base: list(item, "base"),
        glass: list(item, "glass"),
        method: list(item, "method"),
        ice: list(item, "ice"),
        garnish: list(item, "garnish"),
        notes: text(item, "notes"),
        ..Incoming::default()
    };
    let rows = field(item, "ingredients").and_then(Value::as_array);
    for row in rows.into_iter().flatten() {
        d.add_row(
            &text(row, "name"),
            &text(row, "measure"),
            &text(row, "unit"),
        );
    }
    d
}
