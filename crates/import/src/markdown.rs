//! Recipes as Markdown, for reading and pasting anywhere, and read back.
//!
//! ```text
//! # Negroni
//!
//! - Base: Gin
//! - Glass: 12oz Lowball
//! - Method: Stir
//! - Ice: Large Cube
//! - Garnish: Orange Twist
//!
//! ## Ingredients
//!
//! | Measure | Unit | Ingredient |
//! | --- | --- | --- |
//! | 25 | ml | Gin |
//!
//! ## Notes
//!
//! Stir briefly over the big cube.
//! ```
//!
//! A list's items are joined with `; `. Recipes of a collection follow one another, each
//! from its `# ` heading. A `|` in a cell is written `\|`. Reading takes this shape, and
//! ingredient lines written as a list (`- 1 oz gin`) go through [`super::line`].

use super::ImportError;
use super::incoming::Incoming;
use crate::recipes::Recipe;
use std::fmt::Write;

const FIELDS: [&str; 5] = ["Base", "Glass", "Method", "Ice", "Garnish"];

/// One recipe as Markdown.
pub(crate) fn write(r: &Recipe, out: &mut String) {
    let _ = writeln!(out, "# {}\n", r.name);
    let lists = [&r.base, &r.glass, &r.method, &r.ice, &r.garnish];
    let mut any = false;
    for (label, list) in FIELDS.iter().zip(lists) {
        if !list.is_empty() {
            let items: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            let _ = writeln!(out, "- {label}: {}", items.join("; "));
            any = true;
        }
    }
    if any {
        out.push('\n');
    }
    if !r.ingredients.is_empty() {
        out.push_str("## Ingredients\n\n| Measure | Unit | Ingredient |\n| --- | --- | --- |\n");
        let cell = |s: &str| s.replace('|', "\\|");
        for row in &r.ingredients {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                cell(&row.measure),
                cell(&row.unit),
                cell(&row.name)
            );
        }
        out.push('\n');
    }
    if !r.notes.trim().is_empty() {
        let _ = writeln!(out, "## Notes\n\n{}\n", r.notes.trim());
    }
}

/// The recipes of Markdown as [`write`] writes it.
pub(crate) fn read(text: &str) -> Result<Vec<Incoming>, ImportError> {
    let mut drafts: Vec<Incoming> = Vec::new();
    let mut section = "";
    let mut notes = String::new();
    let finish = |drafts: &mut Vec<Incoming>, notes: &mut String| {
        if let Some(d) = drafts.last_mut() {
            d.notes = notes.trim().to_owned();
        }
        notes.clear();
    };
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("# ") {
            finish(&mut drafts, &mut notes);
            drafts.push(Incoming {
                name: name.trim().to_owned(),
                ..Incoming::default()
            });
            section = "";
            continue;
        }
        let Some(d) = drafts.last_mut() else {
            continue;
        };
        if let Some(heading) = line.strip_prefix("## ") {
            section = match heading.trim() {
                "Ingredients" => "ingredients",
                "Notes" => "notes",
                _ => section,
            };
            if section != "notes" || heading.trim() == "Notes" {
                continue;
            }
        }
        match section {
            "notes" => {
                notes.push_str(line);
                notes.push('\n');
            }
            "ingredients" => {
                if let Some(item) = line.strip_prefix("- ") {
                    d.add_line(item);
                } else if let Some([measure, unit, name]) = cells(line)
                    && !(measure == "Measure" && unit == "Unit")
                    && !measure.starts_with("---")
                {
                    d.add_row(&name, &measure, &unit);
                }
            }
            _ => {
                let Some((label, items)) = line.strip_prefix("- ").and_then(|l| l.split_once(": "))
                else {
                    continue;
                };
                let list = match label {
                    "Base" => &mut d.base,
                    "Glass" => &mut d.glass,
                    "Method" => &mut d.method,
                    "Ice" => &mut d.ice,
                    "Garnish" => &mut d.garnish,
                    _ => continue,
                };
                list.extend(items.split("; ").map(|s| s.trim().to_owned()));
            }
        }
    }
    finish(&mut drafts, &mut notes);
    if drafts.is_empty() {
        return Err(ImportError::NoRecipe(
            "the Markdown has no recipe (a line starting with \"# \")".to_owned(),
        ));
    }
    Ok(drafts)
}

/// The three cells of a table row `| a | b | c |`, `\\|` read as `|`.
fn cells(line: &str) -> Option<[String; 3]> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    out.push(cell);
    let out: Vec<String> = out.into_iter().map(|c| c.trim().to_owned()).collect();
    out.try_into().ok()
}
