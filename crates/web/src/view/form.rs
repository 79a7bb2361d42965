//! The recipe form as it is posted, without JavaScript: its fields, the draft they make,
//! the row buttons, and what a posted form may hold at most. The page only ever sends what
//! it rendered, but anyone can post by hand: a field the page sends once that comes twice,
//! a row button naming no row, or thousands of rows are answered here, before anything
//! costs a render or reaches the store.

use crate::recipes::{Recipe, Submitted};
use crate::store::{FieldError, caps};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// A posted form, every field in the order sent (the ingredient rows repeat theirs).
pub(crate) type Fields = Vec<(String, String)>;

/// The most ingredient rows a form may send and the page shows: a recipe's cap, and the
/// blank row the page adds to type into. More is no form of ours: it is refused before
/// anything is rendered (rendered back, tens of thousands of rows made a page of megabytes).
pub(crate) const FORM_ROWS: usize = caps::INGREDIENT_ROWS + 1;

/// The fields the page sends once. A second value would be dropped without a word (only
/// the first is read), so a form with one twice is refused, naming it.
const SINGLE: [&str; 10] = [
    "name", "notes", "base", "glass", "method", "ice", "garnish", "version", "csrf", "op",
];

/// The list fields, each with the name of its further inputs: the form shows one input
/// per value (`glass`, then `glass-more` for a second glass), so that a single choice is a
/// single field. `glass` is still sent once; a value with several lines (a form made by
/// hand, or before this one) is one entry per line, as it always was.
pub(crate) const LISTS: [(&str, &str); 5] = [
    ("base", "base-more"),
    ("glass", "glass-more"),
    ("method", "method-more"),
    ("ice", "ice-more"),
    ("garnish", "garnish-more"),
];

/// The value of the first field called `name` ("" when there is none).
pub(crate) fn field<'f>(fields: &'f Fields, name: &str) -> &'f str {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// The first of the fields the page sends once that was sent more than once.
pub(crate) fn repeated(fields: &Fields) -> Option<&'static str> {
    SINGLE
        .into_iter()
        .find(|name| fields.iter().filter(|(k, _)| k == name).count() > 1)
}

/// How many ingredient rows the form sent: the most of any of a row's three inputs.
pub(crate) fn rows_sent(fields: &Fields) -> usize {
    ["ing-name", "ing-measure", "ing-unit"]
        .into_iter()
        .map(|input| fields.iter().filter(|(k, _)| k == input).count())
        .max()
        .unwrap_or(0)
}

/// Why a form with `rows` rows is not taken, when it has too many.
pub(crate) fn too_many_rows(rows: usize) -> Option<String> {
    (rows > FORM_ROWS).then(|| {
        format!(
            "The form sent {rows} ingredient rows; a recipe has at most {} ingredients (the \
             form {FORM_ROWS} rows, with the blank one to type into). Nothing was saved.",
            caps::INGREDIENT_ROWS
        )
    })
}

/// Why a form is not taken when it sent more inputs for one list than a recipe may hold
/// entries, with the blank one to type into: rendered back, thousands of them would make a
/// page of megabytes.
pub(crate) fn too_many_values(fields: &Fields) -> Option<String> {
    LISTS.into_iter().find_map(|(name, more)| {
        let sent = fields
            .iter()
            .filter(|(k, _)| k == name || k == more)
            .count();
        (sent > caps::LIST_ENTRIES + 1).then(|| {
            format!(
                "The form sent {sent} {name} fields; a recipe has at most {} {name} entries \
                 (the form {} fields, with the blank one to type into). Nothing was saved.",
                caps::LIST_ENTRIES,
                caps::LIST_ENTRIES + 1
            )
        })
    })
}

/// The entries of list `name` as posted: its field, then each further input, one entry
/// per non-blank line, in the order sent.
fn list_values(fields: &Fields, name: &str, more: &str) -> Vec<String> {
    fields
        .iter()
        .filter(|(k, _)| k == name || k == more)
        .flat_map(|(_, v)| v.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// What the form holds: typed text, before it is a recipe.
#[derive(Debug, Default)]
pub(crate) struct FormRecipe {
    pub(crate) name: String,
    /// base, glass, method, ice, garnish: one entry per input in the form.
    pub(crate) lists: std::collections::BTreeMap<&'static str, Vec<String>>,
    pub(crate) rows: Vec<FormRow>,
    pub(crate) notes: String,
}

/// One ingredient row of the form.
#[derive(Debug, Default)]
pub(crate) struct FormRow {
    pub(crate) name: String,
    pub(crate) measure: String,
    pub(crate) unit: String,
    pub(crate) error: Option<String>,
}

impl FormRow {
    pub(crate) fn is_blank(&self) -> bool {
        self.name.is_empty() && self.measure.is_empty() && self.unit.is_empty()
    }
}

/// The size caps, for the form's `maxlength`s.
pub(crate) struct Caps {
    pub(crate) name: usize,
    pub(crate) measure: usize,
    pub(crate) unit: usize,
    pub(crate) ingredient_name: usize,
    pub(crate) notes: usize,
    pub(crate) list_entry: usize,
    pub(crate) list_entries: usize,
}

pub(crate) const CAPS: Caps = Caps {
    name: caps::NAME_CHARS,
    measure: caps::MEASURE_CHARS,
    unit: caps::UNIT_CHARS,
    ingredient_name: caps::INGREDIENT_NAME_CHARS,
    notes: caps::NOTES_CHARS,
    list_entry: caps::LIST_ENTRY_CHARS,
    list_entries: caps::LIST_ENTRIES,
};

impl FormRecipe {
    pub(crate) fn of(r: &Recipe) -> FormRecipe {
        let mut lists = BTreeMap::new();
        for (f, v) in [
            ("base", &r.base),
            ("glass", &r.glass),
            ("method", &r.method),
            ("ice", &r.ice),
            ("garnish", &r.garnish),
        ] {
            lists.insert(f, v.iter().map(ToString::to_string).collect());
        }
        FormRecipe {
            name: r.name.to_string(),
            lists,
            rows: r
                .ingredients
                .iter()
                .map(|i| FormRow {
                    name: i.name.to_string(),
                    measure: i.measure.to_string(),
                    unit: i.unit.to_string(),
                    error: None,
                })
                .collect(),
            notes: r.notes.to_string(),
        }
    }

    /// A recipe object in the API's shape (an import's), whatever it lacks left blank.
    pub(crate) fn from_json(recipe: &Value) -> FormRecipe {
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        let mut lists = BTreeMap::new();
        for f in ["base", "glass", "method", "ice", "garnish"] {
            let values = match &recipe[f] {
                Value::Array(items) => items.iter().map(text).collect(),
                Value::String(s) if !s.is_empty() => vec![s.clone()],
                _ => Vec::new(),
            };
            lists.insert(f, values);
        }
        let rows = recipe["ingredients"]
            .as_array()
            .map(|rows| {
                rows.iter()
                    .map(|r| FormRow {
                        name: text(&r["name"]),
                        measure: text(&r["measure"]),
                        unit: text(&r["unit"]),
                        error: None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        FormRecipe {
            name: text(&recipe["name"]),
            lists,
            rows,
            notes: text(&recipe["notes"]),
        }
    }

    /// The form as posted: list fields one entry per input (and line), ingredient rows
    /// by position.
    pub(crate) fn posted(fields: &Fields) -> FormRecipe {
        fn all<'f>(fields: &'f Fields, name: &'static str) -> impl Iterator<Item = String> + 'f {
            fields
                .iter()
                .filter(move |(k, _)| k == name)
                .map(|(_, v)| v.trim().to_owned())
        }
        let mut lists = BTreeMap::new();
        for (f, more) in LISTS {
            lists.insert(f, list_values(fields, f, more));
        }
        // Every row has the three inputs; a hand-made form with fewer of one kind still
        // keeps every value it sent, in rows padded with blanks.
        let (names, measures, units): (Vec<_>, Vec<_>, Vec<_>) = (
            all(fields, "ing-name").collect(),
            all(fields, "ing-measure").collect(),
            all(fields, "ing-unit").collect(),
        );
        let count = names.len().max(measures.len()).max(units.len());
        let at = |v: &[String], i: usize| v.get(i).cloned().unwrap_or_default();
        let rows = (0..count)
            .map(|i| FormRow {
                name: at(&names, i),
                measure: at(&measures, i),
                unit: at(&units, i),
                error: None,
            })
            .collect();
        FormRecipe {
            name: field(fields, "name").trim().to_owned(),
            lists,
            rows,
            notes: field(fields, "notes").trim().replace("\r\n", "\n"),
        }
    }

    /// The recipe the store is asked to save: blank ingredient rows left out.
    /// The form as a recipe to save as recipe `id` (`None`: a new one), or every problem
    /// with it ([`Submitted::check`], the API's own check).
    pub(crate) fn submitted(&self, id: Option<u64>) -> Result<Submitted, Vec<FieldError>> {
        Submitted::check(&self.to_json(), id)
    }

    fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .filter(|r| !r.is_blank())
            .map(|r| json!({"name": r.name, "measure": r.measure, "unit": r.unit}))
            .collect();
        let mut recipe = json!({"name": self.name, "ingredients": rows, "notes": self.notes});
        for (f, v) in &self.lists {
            recipe[*f] = json!(v);
        }
        recipe
    }

    /// A row button without JavaScript: `add`, or `remove:i`, `up:i`, `down:i`. The page
    /// only sends indices of its rows, but a hand-made or stale form may send anything: an
    /// index that names no row (not a number, negative, past the end) changes nothing, and
    /// the form comes back as it was sent. Returns why a row was not added, at the cap.
    pub(crate) fn apply(&mut self, op: &str) -> Option<FieldError> {
        let (verb, at) = op.split_once(':').unwrap_or((op, ""));
        let row = at.parse::<usize>().ok().filter(|&i| i < self.rows.len());
        match (verb, row) {
            ("add", _) if self.rows.len() >= caps::INGREDIENT_ROWS => {
                return Some(FieldError {
                    field: "ingredients".into(),
                    message: format!(
                        "a recipe has at most {} ingredients, so no row was added",
                        caps::INGREDIENT_ROWS
                    ),
                });
            }
            ("add", _) => self.rows.push(FormRow::default()),
            ("remove", Some(i)) => {
                self.rows.remove(i);
            }
            ("up", Some(i)) if i > 0 => self.rows.swap(i, i - 1),
            // `i` is a row's index, so `i + 1` is at most the number of rows.
            ("down", Some(i)) if i + 1 < self.rows.len() => self.rows.swap(i, i + 1),
            _ => {}
        }
        None
    }

    /// Puts each ingredient's problem on its row. The store numbers the rows it was sent,
    /// which leave out blank ones.
    pub(crate) fn mark(&mut self, problems: &[FieldError]) {
        let filled: Vec<usize> = (0..self.rows.len())
            .filter(|&i| !self.rows[i].is_blank())
            .collect();
        for p in problems {
            let Some(rest) = p.field.strip_prefix("ingredients[") else {
                continue;
            };
            let Some((n, _)) = rest.split_once(']') else {
                continue;
            };
            if let Some(&row) = n.parse::<usize>().ok().and_then(|n| filled.get(n)) {
                self.rows[row].error = Some(p.message.clone());
            }
        }
    }

    /// The inputs list field `f` shows: one per entry, and a blank one to add another
    /// (without JavaScript, the way to a second glass) while the recipe may hold more;
    /// one blank input when it has none.
    pub(crate) fn inputs(&self, f: &str) -> Vec<String> {
        let mut values = self.lists.get(f).cloned().unwrap_or_default();
        if values.len() < caps::LIST_ENTRIES {
            values.push(String::new());
        }
        values
    }

    /// Where the page comes back to after row button `op` on row `i` (0-based), so that
    /// without JavaScript the browser scrolls to the row, not to the top of the page: the
    /// id of the row the button's row ends up as (`ing-1` is the first), or the
    /// ingredients' box when no row can be added. Askama hands `i` by reference.
    pub(crate) fn row_target(&self, op: &str, i: &usize) -> String {
        let i = *i;
        let rows = self.rows.len();
        let n = match op {
            "up" => i.max(1),
            "down" => (i + 2).min(rows),
            _ => (i + 1).min(rows.saturating_sub(1)).max(1),
        };
        format!("ing-{n}")
    }

    /// Where "Add ingredient" comes back to: the row it adds, or the ingredients' box
    /// (with the reason) when the recipe has as many as it may.
    pub(crate) fn add_target(&self) -> String {
        match self.rows.len() {
            rows if rows >= caps::INGREDIENT_ROWS => "ingredients".to_owned(),
            rows => format!("ing-{}", rows + 1),
        }
    }

    /// At least three rows, and one blank one to type into unless that would pass
    /// [`FORM_ROWS`] (a page of ours must be one its own form can post back).
    pub(crate) fn pad_rows(&mut self) {
        if !self.rows.last().is_some_and(FormRow::is_blank) && self.rows.len() < FORM_ROWS {
            self.rows.push(FormRow::default());
        }
        while self.rows.len() < 3 {
            self.rows.push(FormRow::default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Fields {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_list_is_its_field_then_each_further_input_in_the_order_sent() {
        let posted = FormRecipe::posted(&form(&[
            ("glass", "Coupe"),
            ("method", "Dry Shake\r\nShake"),
            ("glass-more", ""),
            ("glass-more", " Rocks "),
            ("method-more", "Strain"),
        ]));
        assert_eq!(posted.lists["glass"], ["Coupe", "Rocks"]);
        assert_eq!(posted.lists["method"], ["Dry Shake", "Shake", "Strain"]);
        assert!(posted.lists["ice"].is_empty());
        assert_eq!(posted.inputs("glass"), ["Coupe", "Rocks", ""]);
        assert_eq!(posted.inputs("ice"), [""]);
        let full: Vec<(&str, &str)> = (0..caps::LIST_ENTRIES)
            .map(|_| ("garnish-more", "Olive"))
            .collect();
        let full = FormRecipe::posted(&form(&full));
        assert_eq!(
            full.inputs("garnish").len(),
            caps::LIST_ENTRIES,
            "no blank past the cap"
        );
    }

    #[test]
    fn too_many_inputs_for_a_list_name_the_list_and_the_cap() {
        let mut fields = form(&[("name", "x"), ("ice", "Cubed")]);
        fields.extend((0..caps::LIST_ENTRIES).map(|_| ("ice-more".to_owned(), String::new())));
        assert_eq!(too_many_values(&fields), None, "the cap and the blank one");
        fields.push(("ice".to_owned(), String::new()));
        let why = too_many_values(&fields).unwrap_or_default();
        assert!(
            why.contains("14 ice fields") && why.contains("at most 12"),
            "{why}"
        );
    }

    #[test]
    fn a_row_button_comes_back_to_the_row_it_moved_or_left() {
        let mut draft = FormRecipe::default();
        draft.pad_rows();
        draft.rows.push(FormRow::default());
        assert_eq!(draft.rows.len(), 4);
        assert_eq!(draft.add_target(), "ing-5");
        assert_eq!(draft.row_target("up", &0), "ing-1");
        assert_eq!(draft.row_target("up", &2), "ing-2");
        assert_eq!(draft.row_target("down", &1), "ing-3");
        assert_eq!(draft.row_target("down", &3), "ing-4");
        assert_eq!(draft.row_target("remove", &1), "ing-2");
        assert_eq!(draft.row_target("remove", &3), "ing-3");
        draft
            .rows
            .resize_with(caps::INGREDIENT_ROWS, FormRow::default);
        assert_eq!(draft.add_target(), "ingredients");
    }
}
