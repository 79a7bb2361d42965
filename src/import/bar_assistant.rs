//! Bar Assistant's recipe files: its public data repository's `data.json`, and its export
//! (a zip or a folder with a file per cocktail, in the "cocktail-02" schema or JSON-LD).
//!
//! - `data.json`: `name`, `instructions`, `description`, `garnish` (text), `glass`,
//!   `method`, `source`, `tags`, and `ingredients` each with its `name`, `amount`,
//!   `amount_max`, `units`, `optional` and `note`.
//! - cocktail-02: `{"recipe": {…, "ingredients": [{"_id", "amount", …}]}, "ingredients":
//!   [{"_id", "name", …}]}`: the same recipe, its rows naming ingredients by `_id`.
//!
//! A row's amount is written as our measure (`22.5`, a range `1-2`), its units in our one
//! form (`dashes` → `dash`, `topup` → `top up` with no measure); its note and "optional"
//! follow the name in parentheses, as in `../shared/data/bar-assistant.json`. An amount
//! of 0 with a note is a measure in words (`few`), as our export writes it. Tags written
//! by our export (`base: Gin`, `ice: Cubed`, `glass: …`, `method: …`) fill those fields;
//! otherwise base and ice are guessed from the ingredients and instructions.

use super::ImportError;
use super::draft::Draft;
use super::line;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// Largest file read from a zip or folder (a recipe is a few KiB).
const MAX_FILE: u64 = 4 << 20;
/// Largest sum of files read from a zip or folder.
const MAX_TOTAL: u64 = 64 << 20;
/// Most files looked at in a zip or folder.
const MAX_FILES: usize = 20_000;

/// Whether `value` is a Bar Assistant recipe: `data.json` or cocktail-02.
pub fn looks_like(value: &Value) -> bool {
    let recipe = value.get("recipe").unwrap_or(value);
    recipe.get("name").is_some_and(Value::is_string)
        && (recipe.get("instructions").is_some()
            || recipe
                .get("ingredients")
                .and_then(Value::as_array)
                .is_some_and(|rows| rows.iter().any(|r| r.get("units").is_some())))
}

/// The recipe of a Bar Assistant file (either kind).
pub fn from_value(value: &Value) -> Draft {
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
    let mut d = Draft {
        name: text("name"),
        ..Draft::default()
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
        d.guess_missing();
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

fn add_row(d: &mut Draft, row: &Value, names: Option<&Vec<Value>>, ours: bool) {
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
}

/// An amount as a measure: `60`, `22.5`, `0.75`.
pub fn number(v: f64) -> String {
    let mut s = format!("{v:.3}");
    if s.contains('.') {
        let keep = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(keep);
    }
    s
}

/// The recipes of a zip: every `.json` file that holds one (others are skipped).
pub fn from_zip(bytes: &[u8]) -> Result<Vec<Draft>, ImportError> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| ImportError::Zip(e.to_string()))?;
    if zip.len() > MAX_FILES {
        return Err(ImportError::TooLarge(format!(
            "{} files in the zip, more than {MAX_FILES}",
            zip.len()
        )));
    }
    let mut files = Vec::new();
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut file = zip
            .by_index(i)
            .map_err(|e| ImportError::Zip(e.to_string()))?;
        let name = file.name().map(|n| n.to_string()).unwrap_or_default();
        if !file.is_file() || !wanted(&name) {
            continue;
        }
        let mut data = Vec::new();
        (&mut file)
            .take(MAX_FILE + 1)
            .read_to_end(&mut data)
            .map_err(|e| ImportError::Zip(format!("{name}: {e}")))?;
        total += data.len() as u64;
        if data.len() as u64 > MAX_FILE || total > MAX_TOTAL {
            return Err(ImportError::TooLarge(format!("{name} in the zip")));
        }
        files.push((name, data));
    }
    from_files(files)
}

/// The recipes of a folder (and its folders): every `.json` file that holds one.
pub fn from_folder(path: &Path) -> Result<Vec<Draft>, ImportError> {
    let mut paths = Vec::new();
    walk(path, &mut paths, 0)?;
    // Folders are judged inside the export only: an `ingredients` folder above it is not.
    paths.retain(|p| wanted(&p.strip_prefix(path).unwrap_or(p).to_string_lossy()));
    let mut files = Vec::new();
    let mut total = 0u64;
    for p in paths {
        let read_error = |e: std::io::Error| ImportError::Read {
            path: p.display().to_string(),
            message: e.to_string(),
        };
        let size = std::fs::metadata(&p).map_err(read_error)?.len();
        total += size;
        if size > MAX_FILE || total > MAX_TOTAL {
            return Err(ImportError::TooLarge(p.display().to_string()));
        }
        let data = std::fs::read(&p).map_err(read_error)?;
        files.push((p.display().to_string(), data));
    }
    from_files(files)
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>, depth: usize) -> Result<(), ImportError> {
    let read_error = |e: std::io::Error| ImportError::Read {
        path: dir.display().to_string(),
        message: e.to_string(),
    };
    if depth > 6 {
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(read_error)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if out.len() > MAX_FILES {
            return Err(ImportError::TooLarge(format!(
                "more than {MAX_FILES} files in {}",
                dir.display()
            )));
        }
        let meta = std::fs::symlink_metadata(&p).map_err(read_error)?;
        if meta.is_dir() {
            walk(&p, out, depth + 1)?;
        } else if meta.is_file() {
            out.push(p);
        }
    }
    Ok(())
}

/// A file that may hold a recipe: `.json` or `.jsonld`, not in an `ingredients` folder.
fn wanted(name: &str) -> bool {
    let lower = name.to_lowercase();
    let recipe_file = lower.ends_with(".json") || lower.ends_with(".jsonld");
    let ingredient = lower.split(['/', '\\']).any(|part| part == "ingredients");
    recipe_file && !ingredient
}

fn from_files(files: Vec<(String, Vec<u8>)>) -> Result<Vec<Draft>, ImportError> {
    let mut drafts = Vec::new();
    for (_, data) in files {
        let Ok(value) = serde_json::from_slice::<Value>(&data) else {
            continue;
        };
        if let Ok(found) = super::json::from_value(&value) {
            drafts.extend(found);
        }
    }
    if drafts.is_empty() {
        return Err(ImportError::NoRecipe(
            "no recipe file (Bar Assistant, JSON-LD or libations) found".to_owned(),
        ));
    }
    Ok(drafts)
}
