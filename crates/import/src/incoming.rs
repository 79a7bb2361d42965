//! A recipe being read: what each format fills in, then made into our schema and checked.

use super::Guess;
use super::line::{self, Line};
use serde_json::{Value, json};

/// One ingredient row in our schema.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Row {
    pub name: String,
    pub measure: String,
    pub unit: String,
    /// Bottles that may stand in (Bar Assistant's `substitutes`), by name.
    pub substitutes: Vec<String>,
}

/// A recipe read from a source, before it is checked.
#[derive(Debug, Clone, Default)]
pub struct Incoming {
    pub name: String,
    pub(crate) base: Vec<String>,
    pub(crate) glass: Vec<String>,
    pub(crate) method: Vec<String>,
    pub(crate) ice: Vec<String>,
    pub(crate) ingredients: Vec<Row>,
    pub garnish: Vec<String>,
    pub(crate) notes: String,
    /// Text the guesses read (instructions, description, keywords); not written anywhere.
    pub(crate) hints: String,
    pub(crate) guesses: Vec<Guess>,
    /// Rows read exactly and rows kept whole as names, for the import's totals.
    pub(crate) exact_rows: usize,
    pub(crate) kept_rows: usize,
}

impl Incoming {
    /// Adds an ingredient line given as text: a row, or a garnish.
    pub(crate) fn add_line(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let Line {
            measure,
            unit,
            name,
            garnish,
            note,
        } = line::parse(text);
        if garnish {
            self.garnish.push(name);
            self.exact_rows += 1;
            return;
        }
        let field = format!("ingredients[{}]", self.ingredients.len());
        match note {
            Some(note) => {
                self.kept_rows += 1;
                self.mark(&field, &format!("{text:?}: {note}"));
            }
            None => self.exact_rows += 1,
        }
        self.ingredients.push(Row {
            name,
            measure,
            unit,
            substitutes: Vec::new(),
        });
    }

    /// Adds a row given as parts (a structured source).
    pub(crate) fn add_row(&mut self, name: &str, measure: &str, unit: &str) {
        self.exact_rows += 1;
        self.ingredients.push(Row {
            name: name.trim().to_owned(),
            measure: measure.trim().to_owned(),
            unit: unit.trim().to_owned(),
            substitutes: Vec::new(),
        });
    }

    /// Marks a field as guessed or kept as it was.
    pub(crate) fn mark(&mut self, field: &str, message: &str) {
        self.guesses.push(Guess {
            field: field.to_owned(),
            message: message.to_owned(),
        });
    }

    /// Adds a paragraph to the notes.
    pub(crate) fn add_notes(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if !self.notes.is_empty() {
            self.notes.push_str("\n\n");
        }
        self.notes.push_str(text);
    }

    /// Ends the notes with `Source: <url>` (once).
    pub(crate) fn add_source(&mut self, url: &str) {
        let line = format!("Source: {}", url.trim());
        if !self.notes.contains(&line) {
            self.add_notes(&line);
        }
    }

    /// The recipe object (no `id`), its guesses, and what the validator says of it.
    pub(crate) fn finish(self) -> (Value, Vec<Guess>, Vec<Guess>) {
        let rows: Vec<Value> = self
            .ingredients
            .iter()
            .map(|r| {
                let mut row = json!({"name": r.name, "measure": r.measure, "unit": r.unit});
                if !r.substitutes.is_empty() {
                    row["substitutes"] = json!(r.substitutes);
                }
                row
            })
            .collect();
        let recipe = json!({
            "name": self.name.trim(),
            "base": self.base,
            "glass": self.glass,
            "method": self.method,
            "ice": self.ice,
            "ingredients": rows,
            "garnish": self.garnish,
            "notes": self.notes,
        });
        let problems = check(&recipe);
        (recipe, self.guesses, problems)
    }
}

/// What saving `recipe` would refuse: the one check of a submitted recipe
/// ([`Submitted::check`](crate::recipes::Submitted::check): the loader's rules, the caps,
/// the characters), so that a preview without problems saves as it is.
pub(crate) fn check(recipe: &Value) -> Vec<Guess> {
    match crate::recipes::Submitted::check(recipe, None) {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .into_iter()
            .map(|e| Guess {
                field: e.field,
                message: e.message,
            })
            .collect(),
    }
}
