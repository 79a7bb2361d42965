//! schema.org `Recipe` data in JSON-LD, from a page's source or as text.
//!
//! The page's `<script type="application/ld+json">` blocks are found by [`super::scan`]
//! (one linear pass, not a tree: a hostile page costs no more than its length), and each
//! is read as JSON. A `Recipe` is found at the top level, in an array, in
//! `@graph` (or nested in `mainEntity`), with `@type` a string or an array. Read:
//! `name`, `recipeIngredient` (lines, by [`super::line`]), `recipeInstructions` (text,
//! `HowToStep`s, `HowToSection`s with `itemListElement`), `description`,
//! `recipeCategory`, `keywords`, `cookingMethod`, and `supply` rows with an exact
//! `requiredQuantity` (as our export writes them: the rows are then taken from them, the
//! lines after them read as lines). HTML entities and tags in strings are
//! decoded to text. Keywords written by our export (`base: Gin`, `glass: Coupe`,
//! `method: Stir`, `ice: Cubed`) fill those fields again; everything else is guessed.

use super::incoming::Incoming;
use super::{ImportError, Stop, scan};
use serde_json::Value;

/// The recipes in every JSON-LD script of a page; `Err` as soon as `stop` says so.
pub(crate) fn from_html(html: &str, stop: &Stop) -> Result<Vec<Incoming>, ImportError> {
    let mut drafts = Vec::new();
    let mut scripts = 0;
    let mut bad = None;
    for text in scan::scripts(html, stop)? {
        stop.check()?;
        scripts += 1;
        match serde_json::from_str::<Value>(text.trim()) {
            Ok(value) => collect(&value, &mut drafts, 0),
            Err(e) => bad = Some(e.to_string()),
        }
    }
    if drafts.is_empty() {
        let why = match (scripts, bad) {
            (0, _) => {
                "the page has no schema.org JSON-LD (no <script type=\"application/ld+json\">)"
                    .to_owned()
            }
            (_, Some(e)) => {
                format!("the page's JSON-LD has no Recipe (one script is not JSON: {e})")
            }
            _ => format!("the page's JSON-LD ({scripts} script(s)) has no schema.org Recipe"),
        };
        return Err(ImportError::NoRecipe(why));
    }
    Ok(drafts)
}

/// The recipes in JSON-LD text.
pub(crate) fn from_text(text: &str) -> Result<Vec<Incoming>, ImportError> {
    let value: Value =
        serde_json::from_str(text.trim()).map_err(|e| ImportError::Json(e.to_string()))?;
    from_value(&value)
}

/// The recipes in parsed JSON-LD.
pub(crate) fn from_value(value: &Value) -> Result<Vec<Incoming>, ImportError> {
    let mut drafts = Vec::new();
    collect(value, &mut drafts, 0);
    if drafts.is_empty() {
        return Err(ImportError::NoRecipe(
            "the JSON-LD has no schema.org Recipe".to_owned(),
        ));
    }
    Ok(drafts)
}

/// Whether `value` looks like JSON-LD (for telling JSON files apart).
pub(crate) fn looks_like(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(looks_like),
        Value::Object(o) => {
            o.contains_key("@context") || o.contains_key("@type") || o.contains_key("@graph")
        }
        _ => false,
    }
}

const MAX_DEPTH: usize = 8;

fn collect(value: &Value, out: &mut Vec<Incoming>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Array(items) => items.iter().for_each(|v| collect(v, out, depth + 1)),
        Value::Object(o) => {
            if is_type(value, "Recipe") {
                out.push(recipe(value));
                return;
            }
            for key in ["@graph", "mainEntity", "itemListElement", "item"] {
                if let Some(inner) = o.get(key) {
                    collect(inner, out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    let matches = |t: &Value| {
        t.as_str().is_some_and(|s| {
            let s = s.rsplit(['/', ':']).next().unwrap_or(s);
            s == name
        })
    };
    match value.get("@type") {
        Some(Value::Array(types)) => types.iter().any(matches),
        Some(t) => matches(t),
        None => false,
    }
}

/// Text with HTML entities decoded and tags taken out, white space collapsed per line:
/// in time linear in its length ([`scan::text`]), however the HTML in it is nested.
pub(crate) fn text(s: &str) -> String {
    let decoded = if s.contains('&') || s.contains('<') {
        scan::text(s)
    } else {
        s.to_owned()
    };
    decoded
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// The strings of a value that is a string, a list of strings, or objects with `name`.
fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![text(s)],
        Some(Value::Array(items)) => items.iter().flat_map(|v| strings(Some(v))).collect(),
        Some(Value::Object(o)) => strings(o.get("name").or_else(|| o.get("text"))),
        Some(Value::Number(n)) => vec![n.to_string()],
        _ => Vec::new(),
    }
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect()
}

/// The steps of `recipeInstructions`, one per entry.
fn steps(value: Option<&Value>, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Some(Value::String(s)) => out.push(text(s)),
        Some(Value::Array(items)) => items.iter().for_each(|v| steps(Some(v), out, depth + 1)),
        Some(v @ Value::Object(o)) => {
            if is_type(v, "HowToSection") || o.contains_key("itemListElement") {
                if let Some(name) = o.get("name").and_then(Value::as_str) {
                    out.push(format!("{}:", text(name)));
                }
                steps(o.get("itemListElement"), out, depth + 1);
            } else {
                steps(o.get("text").or_else(|| o.get("name")), out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Rows given exactly: `supply` items that all have a `requiredQuantity` with a
/// `value` and `unitText` (as our export writes them).
fn supplies(value: Option<&Value>) -> Option<Vec<(String, String, String)>> {
    let items = value?.as_array()?;
    items
        .iter()
        .map(|item| {
            let q = item.get("requiredQuantity")?;
            let field = |v: Option<&Value>| match v {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            };
            Some((
                field(item.get("name"))?,
                field(q.get("value"))?,
                field(q.get("unitText"))?,
            ))
        })
        .collect()
}

/// Our own fields, kept by our export as keywords: `glass: Coupe`.
const OURS: [&str; 4] = ["base", "glass", "method", "ice"];

fn recipe(value: &Value) -> Incoming {
    let mut d = Incoming {
        name: strings(value.get("name")).join(" "),
        ..Incoming::default()
    };
    let mut keywords = Vec::new();
    for k in strings(value.get("keywords")) {
        keywords.extend(k.split(',').map(|s| s.trim().to_owned()));
    }
    let mut ours_found = false;
    for k in keywords.iter().filter(|k| !k.is_empty()) {
        let Some((field, item)) = k.split_once(": ") else {
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
        ours_found = true;
    }
    let lines = strings(
        value
            .get("recipeIngredient")
            .or_else(|| value.get("ingredients")),
    );
    match supplies(value.get("supply")) {
        Some(rows) if !rows.is_empty() && rows.len() <= lines.len() => {
            for (name, measure, unit) in &rows {
                d.add_row(name, measure, unit);
            }
            // The lines that are not rows (our export's `Garnish: …`).
            for line in lines.iter().skip(rows.len()) {
                d.add_line(line);
            }
        }
        _ => lines.iter().for_each(|line| d.add_line(line)),
    }
    let description = strings(value.get("description")).join("\n");
    let mut instructions = Vec::new();
    steps(value.get("recipeInstructions"), &mut instructions, 0);
    let instructions = instructions.join("\n");
    d.add_notes(&description);
    d.add_notes(&instructions);
    let plain: Vec<&String> = keywords
        .iter()
        .filter(|k| !OURS.iter().any(|f| k.starts_with(&format!("{f}: "))))
        .collect();
    d.hints = format!(
        "{instructions}\n{description}\n{}\n{}",
        strings(value.get("cookingMethod")).join(" "),
        plain
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    if !ours_found {
        let category = strings(value.get("recipeCategory")).join(" ");
        d.hints.push('\n');
        d.hints.push_str(&category);
        super::guess::fill(&mut d);
    }
    d
}
