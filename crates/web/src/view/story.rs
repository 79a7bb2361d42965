//! What a change did, in words, for the history (`/changes`): "Lime Juice: 15 ml → 25 ml",
//! "Added Agave Syrup 10 ml", "Glass: Coupe → Rocks". Read from the two versions the
//! journal keeps of each recipe it changed, never from the recipes file as it is now.

use serde_json::{Map, Value};
use std::time::SystemTime;

/// A recipe object as the journal keeps it.
type Object = Map<String, Value>;

/// The list fields, in the form's order, with the words the history uses for them.
const LISTS: [(&str, &str); 5] = [
    ("base", "Base"),
    ("glass", "Glass"),
    ("method", "Method"),
    ("ice", "Ice"),
    ("garnish", "Garnish"),
];

/// One line per thing that differs between `before` and `after` of one recipe; none for
/// an add or a delete (the verb says it all).
pub(crate) fn story(before: Option<&Object>, after: Option<&Object>) -> Vec<String> {
    let (Some(before), Some(after)) = (before, after) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    let (old_name, new_name) = (text(before, "name"), text(after, "name"));
    if old_name != new_name {
        lines.push(format!("Name: {old_name} → {new_name}"));
    }
    for (field, label) in LISTS {
        let (old, new) = (list(before, field), list(after, field));
        if old != new {
            lines.push(format!("{label}: {} → {}", shown(&old), shown(&new)));
        }
    }
    lines.extend(ingredients(&rows(before), &rows(after)));
    if text(before, "notes") != text(after, "notes") {
        lines.push("Notes changed".to_owned());
    }
    lines
}

/// A field's value, its key matched as the loader matches keys (`recipes::fold_eq`: the
/// file's own spelling of a key is kept, as the Go original read it).
fn field<'o>(object: &'o Object, name: &str) -> Option<&'o Value> {
    object.get(name).or_else(|| {
        object
            .iter()
            .find(|(k, _)| crate::recipes::fold_eq(k, name))
            .map(|(_, v)| v)
    })
}

pub(crate) fn text(object: &Object, name: &str) -> String {
    field(object, name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_owned()
}

fn list(object: &Object, name: &str) -> Vec<String> {
    field(object, name)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn shown(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_owned()
    } else {
        items.join(", ")
    }
}

/// An ingredient row: its name, and its amount as written ("25 ml").
#[derive(PartialEq)]
struct Row {
    name: String,
    amount: String,
}

fn rows(object: &Object) -> Vec<Row> {
    let Some(items) = field(object, "ingredients").and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(Value::as_object)
        .map(|row| Row {
            name: text(row, "name"),
            amount: format!("{} {}", text(row, "measure"), text(row, "unit"))
                .trim()
                .to_owned(),
        })
        .collect()
}

/// Rows matched by name (folded): an amount changed, a row added or taken out, or only
/// their order changed.
fn ingredients(before: &[Row], after: &[Row]) -> Vec<String> {
    let same = |a: &Row, b: &Row| crate::text::fold(&a.name) == crate::text::fold(&b.name);
    let mut lines = Vec::new();
    for new in after {
        match before.iter().find(|old| same(old, new)) {
            Some(old) if old.amount != new.amount => {
                lines.push(format!(
                    "{}: {} → {}",
                    new.name,
                    or_none(&old.amount),
                    or_none(&new.amount)
                ));
            }
            Some(_) => {}
            None => lines.push(format!("Added {}", with_amount(new))),
        }
    }
    for old in before {
        if !after.iter().any(|new| same(old, new)) {
            lines.push(format!("Took out {}", with_amount(old)));
        }
    }
    if lines.is_empty() && before != after {
        lines.push("Ingredients put in another order".to_owned());
    }
    lines
}

fn or_none(amount: &str) -> &str {
    if amount.is_empty() {
        "no amount"
    } else {
        amount
    }
}

fn with_amount(row: &Row) -> String {
    if row.amount.is_empty() {
        row.name.clone()
    } else {
        format!("{} {}", row.name, row.amount)
    }
}

/// One change as the history shows it.
pub(crate) struct ChangeView {
    pub(crate) n: u64,
    pub(crate) verb: &'static str,
    pub(crate) id: u64,
    pub(crate) name: String,
    /// Whether the recipe is still there to link to.
    pub(crate) live: bool,
    pub(crate) fields: Vec<String>,
    pub(crate) who: String,
    pub(crate) at_iso: String,
    pub(crate) at_human: String,
    pub(crate) undoes: Option<u64>,
    /// What changed, field by field ([`crate::view::story`]), for a change of one recipe.
    pub(crate) story: Vec<String>,
    /// The other recipes of a change of several: the first few shown, the rest folded.
    pub(crate) others: Vec<String>,
    pub(crate) folded: Vec<String>,
    /// Why Undo is not offered: undone already, or a recipe of it changed since.
    pub(crate) no_undo: Option<String>,
}

/// How many of a change's other recipes the history names before folding the rest.
const NAMED: usize = 5;

impl ChangeView {
    pub(crate) fn new(e: &crate::store::Entry, live: bool, verb: &'static str) -> ChangeView {
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(e.at);
        let (at_iso, day) = crate::view::dates::format_time(at);
        let at_human = format!("{day}, {} UTC", at_iso.get(11..16).unwrap_or_default());
        ChangeView {
            n: e.n,
            verb,
            id: e.id,
            name: e.name.clone(),
            live,
            fields: e.fields.clone(),
            who: e.who.clone(),
            at_iso,
            at_human,
            undoes: e.undoes,
            story: Vec::new(),
            others: Vec::new(),
            folded: Vec::new(),
            no_undo: None,
        }
        .told(e)
    }

    /// The story of a change of one recipe, or the names of a change of several.
    fn told(mut self, e: &crate::store::Entry) -> ChangeView {
        let parts: Vec<_> = e.parts().collect();
        if let [(_, before, after)] = parts[..] {
            self.story = crate::view::story::story(before, after);
            return self;
        }
        let mut names = parts.iter().map(|(_, before, after)| {
            after
                .or(*before)
                .map(|o| text(o, "name"))
                .unwrap_or_default()
        });
        // The journal names a change of several "First and N more"; the history names each.
        self.name = names.next().unwrap_or_default();
        self.others = names.by_ref().take(NAMED - 1).collect();
        self.folded = names.collect();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Object {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn each_difference_is_one_line_in_words() {
        let before = object(
            json!({"name": "Margarita", "glass": ["Coupe"], "ingredients": [
            {"name": "Tequila", "measure": "50", "unit": "ml"},
            {"name": "Lime Juice", "measure": "15", "unit": "ml"},
            {"name": "Triple Sec", "measure": "20", "unit": "ml"}], "notes": "Salt rim."}),
        );
        let after = object(
            json!({"Name": "Tommy's Margarita", "glass": ["Rocks"], "ingredients": [
            {"name": "Tequila", "measure": "50", "unit": "ml"},
            {"name": "lime juice", "measure": "25", "unit": "ml"},
            {"name": "Agave Syrup", "measure": "10", "unit": "ml"}], "notes": "No salt."}),
        );
        assert_eq!(
            story(Some(&before), Some(&after)),
            [
                "Name: Margarita → Tommy's Margarita",
                "Glass: Coupe → Rocks",
                "lime juice: 15 ml → 25 ml",
                "Added Agave Syrup 10 ml",
                "Took out Triple Sec 20 ml",
                "Notes changed",
            ]
        );
    }

    #[test]
    fn an_add_a_delete_and_a_reorder() {
        let a = object(json!({"name": "A", "ingredients": [
            {"name": "Gin", "measure": "50", "unit": "ml"}, {"name": "Soda", "measure": "", "unit": ""}]}));
        let b = object(json!({"name": "A", "ingredients": [
            {"name": "Soda", "measure": "", "unit": ""}, {"name": "Gin", "measure": "50", "unit": "ml"}]}));
        assert!(story(None, Some(&a)).is_empty());
        assert!(story(Some(&a), None).is_empty());
        assert_eq!(
            story(Some(&a), Some(&b)),
            ["Ingredients put in another order"]
        );
        assert!(story(Some(&a), Some(&a)).is_empty());
    }
}
