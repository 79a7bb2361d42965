//! Bar Assistant's recipe files: its public data repository's `data.json`, and the files of
//! its export (a file per cocktail, in the "cocktail-02" schema or JSON-LD; `archive`
//! opens the zip or folder they come in).
//!
//! - `data.json`: `name`, `instructions`, `description`, `garnish` (text), `glass`,
//!   `method`, `source`, `tags`, and `ingredients` each with its `name`, `amount`,
//!   `amount_max`, `units`, `optional`, `note` and `substitutes`.
//! - cocktail-02: `{"recipe": {…, "ingredients": [{"_id", "amount", …}]}, "ingredients":
//!   [{"_id", "name", …}]}`: the same recipe, its rows naming ingredients by `_id`.
//!
//! A row's amount is written as our measure (`22.5`, a range `1-2`), its units in our one
//! form (`dashes` → `dash`, `topup` → `top up` with no measure); its note and "optional"
//! follow the name in parentheses, as in `../shared/data/bar-assistant.json`. An amount
//! of 0 with a note is a measure in words (`few`), as our export writes it. Tags written
//! by our export (`base: Gin`, `ice: Cubed`, `glass: …`, `method: …`) fill those fields;
//! otherwise base and ice are guessed from the ingredients and instructions. A row's
//! `substitutes` (ingredient objects, or their `_id`s) are kept by name.

use super::incoming::Incoming;
use super::line;
use crate::recipes::caps::SUBSTITUTES;
use serde_json::Value;

/// Whether `value` is a Bar Assistant recipe: `data.json` or cocktail-02.
pub(crate) fn looks_like(value: &Value) -> bool {
    let recipe = value.get("recipe").unwrap_or(value);
    recipe.get("name").is_some_and(Value::is_string)
        && (recipe.get("instructions").is_some()
            || recipe
                .get("ingredients")
                .and_then(Value::as_array)
                .is_some_and(|rows| rows.iter().any(|r| r.get("units").is_some())))
}

/// The recipe of a Bar Assistant file (either kind).
pub(crate) fn from_value(value: &Value) -> Incoming {
    let (recipe, names) = match value.get("recipe") {
        Some(recipe) => (recipe, value.get("ingredients").and_then(Value::as_array)),
        None => (value, None),
    };
    let text = |key: &str| {
        recipe
            .get(key)
            .and_then(Value::as_str)
            .map(super::jsonld::text)
            .unwrap_or_default()
    };
    let mut d = Incoming {
        name: text("name"),
        ..Incoming::default()
    };
    let tags: Vec<String> = recipe
        .get("tags")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut ours = tags.iter().any(|t| t == "libations");
    for tag in &tags {
        let Some((field, item)) = tag.split_once(": ") else {
            continue;
        };
        let list = match field {
            "base" => &mut d.base,
            "glass" => &mut d.glass,
            "method" => &mut d.method,
            "ice" => &mut d.ice,
            _ => continue,
        };
        list.push(item.trim().to_owned());
        ours = true;
    }
    if !ours {
        d.glass.extend(non_empty(text("glass")));
        d.method.extend(non_empty(text("method")));
    }
    let rows = recipe.get("ingredients").and_then(Value::as_array);
    for row in rows.into_iter().flatten() {
        add_row(&mut d, row, names, ours);
    }
    // Our export's rows without a unit (written `piece`, since Bar Assistant needs one).
    for tag in tags.iter().filter(|_| ours) {
        let row = tag
            .strip_prefix("no unit: ")
            .and_then(|n| n.parse::<usize>().ok());
        if let Some(row) = row.and_then(|n| d.ingredients.get_mut(n.wrapping_sub(1))) {
            row.unit.clear();
        }
    }
    d.garnish = garnish(&text("garnish"), ours);
    let instructions = text("instructions");
    d.add_notes(&text("description"));
    d.add_notes(&instructions);
    let source = text("source");
    if !source.is_empty() {
        d.add_source(&source);
    }
    d.hints = format!("{instructions}\n{}", tags.join(" "));
    if !ours {
        super::guess::fill(&mut d);
    }
    d
}

fn non_empty(s: String) -> Option<String> {
    (!s.trim().is_empty()).then_some(s)
}

/// The free-text garnish as items: "Garnish with a", a trailing period dropped; a short
/// list split at commas (our own export's items are always split).
fn garnish(text: &str, ours: bool) -> Vec<String> {
    if ours {
        return text
            .split(" | ")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
    }
    let lower = text.to_lowercase();
    let mut rest = text.trim();
    for prefix in ["garnish with an ", "garnish with a ", "garnish with "] {
        if lower.starts_with(prefix) {
            rest = &text[prefix.len()..];
            break;
        }
    }
    let rest = rest.trim().trim_end_matches('.').trim();
    if rest.is_empty() {
        return Vec::new();
    }
    if rest.len() > 60 || rest.contains(". ") {
        return vec![rest.to_owned()];
    }
    rest.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn add_row(d: &mut Incoming, row: &Value, names: Option<&Vec<Value>>, ours: bool) {
    let id = row.get("_id").and_then(Value::as_str).unwrap_or_default();
    let named = row.get("name").and_then(Value::as_str).map(str::to_owned);
    let name = named
        .or_else(|| {
            names?
                .iter()
                .find(|i| i.get("_id").and_then(Value::as_str) == Some(id))?
                .get("name")?
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| id.replace('-', " "));
    let units = row.get("units").and_then(Value::as_str).unwrap_or_default();
    // Our own export's units are ours already: only its `topup` is read back.
    let unit = match line::unit_name(units) {
        Some("top up") => "top up".to_owned(),
        _ if ours => units.to_owned(),
        Some(unit) => unit.to_owned(),
        None => units.trim().to_lowercase(),
    };
    let amount = row.get("amount").and_then(Value::as_f64);
    let most = row.get("amount_max").and_then(Value::as_f64);
    let note = row
        .get("note")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty());
    let mut measure = match (amount, most) {
        (Some(a), Some(b)) if b > a => format!("{}-{}", number(a), number(b)),
        (Some(a), _) => number(a),
        (None, _) => String::new(),
    };
    let mut name = super::jsonld::text(&name);
    match note {
        Some(note) if amount == Some(0.0) => measure = note.to_owned(),
        Some(note) => name = format!("{name} ({note})"),
        None => {}
    }
    if unit == "top up" && amount.is_none_or(|a| a <= 1.0) {
        measure.clear();
    }
    if amount == Some(0.0) && note.is_none() {
        measure.clear();
    }
    if row.get("optional").and_then(Value::as_bool) == Some(true) {
        name.push_str(" (optional)");
    }
    d.add_row(&name, &measure, &unit);
    if let Some(last) = d.ingredients.last_mut() {
        last.substitutes = substitutes(row, names);
    }
}

/// A row's `substitutes`, by name: each an ingredient object (its `name`, or its `_id`
/// looked up in the file's `ingredients`) or a name; at most [`SUBSTITUTES`] are kept.
fn substitutes(row: &Value, names: Option<&Vec<Value>>) -> Vec<String> {
    let listed = row.get("substitutes").and_then(Value::as_array);
    let name_of = |s: &Value| -> Option<String> {
        if let Some(text) = s.as_str() {
            return Some(text.to_owned());
        }
        let named = s.get("name").and_then(Value::as_str);
        let id = s.get("_id").and_then(Value::as_str);
        let found = || {
            let all = names?;
            let it = all
                .iter()
                .find(|i| i.get("_id").and_then(Value::as_str) == id)?;
            it.get("name")?.as_str()
        };
        named.or_else(found).map(str::to_owned)
    };
    let mut out: Vec<String> = Vec::new();
    for s in listed.into_iter().flatten().filter_map(name_of) {
        let s = super::jsonld::text(&s).trim().to_owned();
        if !s.is_empty() && !out.contains(&s) && out.len() < SUBSTITUTES {
            out.push(s);
        }
    }
    out
}

/// An amount as a measure: `60`, `22.5`, `0.75`.
pub(crate) fn number(v: f64) -> String {
    let mut s = format!("{v:.3}");
    if s.contains('.') {
        let keep = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(keep);
    }
    s
}
