//! `libations import FILE --into bar.json`: recipes from another app's file (or a folder
//! of them) added to a recipes file through the store, as one change in its history (one
//! undo), skipping those already in the collection (same name after folding).
//!
//! The file's format is [`crate::import`]'s to read; a file that is not JSON is named with
//! its line and column before any format is tried.

use crate::import::{self, Source};
use crate::recipes::{Recipes, Submitted};
use crate::store::{Edit, Store, StoreError};
use serde_json::Value;
use std::path::Path;
use std::process::ExitCode;

/// Who the journal says made the change.
const WHO: &str = "libations import (command line)";

pub(super) fn import_file(file: &Path, into: &Path, max_bytes: u64) -> ExitCode {
    match run(file, into, max_bytes) {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("libations: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(file: &Path, into: &Path, max_bytes: u64) -> Result<String, String> {
    let name = file.display();
    let preview = read(file)?;
    let store = Store::open(into, max_bytes).map_err(|e| e.to_string())?;
    let current = Recipes::from_file_at_most(store.path(), max_bytes).map_err(|e| e.to_string())?;
    let duplicates = import::duplicates(&preview, &current);
    let mut lines = Vec::new();
    for p in &preview.problems {
        let recipe = preview
            .recipes
            .get(p.recipe)
            .map(|r| draft_name(&draft(r)))
            .unwrap_or_default();
        lines.push(format!("  {recipe}: {}: {}", p.field, p.message));
    }
    let skipped: Vec<usize> = duplicates.iter().map(|d| d.recipe).collect();
    let drafts: Vec<Value> = preview
        .recipes
        .iter()
        .enumerate()
        .filter(|(i, _)| !skipped.contains(i))
        .map(|(_, r)| draft(r))
        .collect();
    let skipped_names: Vec<String> = duplicates
        .iter()
        .filter_map(|d| preview.recipes.get(d.recipe))
        .map(|r| draft_name(&draft(r)))
        .collect();
    let mut said = if drafts.is_empty() {
        format!("{name}: added 0 recipes (nothing new)")
    } else {
        let saved = Submitted::check_many(&drafts)
            .map_err(StoreError::Invalid)
            .and_then(|checked| store.apply(Edit::CreateMany(checked), WHO))
            .map_err(|e| refused(e, &drafts, file))?;
        let n = saved.entry.map(|e| e.n).unwrap_or_default();
        format!(
            "{name}: added {} recipes to {} as change {n} (one undo in Recent changes takes them all back)",
            drafts.len(),
            into.display()
        )
    };
    if !skipped_names.is_empty() {
        said.push_str(&format!(
            "\n{name}: skipped {} already in the collection: {}",
            skipped_names.len(),
            skipped_names.join(", ")
        ));
    }
    if !lines.is_empty() {
        said.push_str(&format!(
            "\n{name}: {} problem(s), kept as read:\n",
            lines.len()
        ));
        said.push_str(&lines.join("\n"));
    }
    Ok(said)
}

/// The file (or folder) read in the format its name and content say.
fn read(file: &Path) -> Result<import::Preview, String> {
    let name = file.display();
    if file.is_dir() {
        return import::read(Source::Folder(file)).map_err(|e| format!("{name}: {e}"));
    }
    let bytes = std::fs::read(file).map_err(|e| format!("{name}: cannot read it: {e}"))?;
    let ext = file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let read = match ext.as_str() {
        "zip" => import::read(Source::Zip(&bytes)),
        "html" | "htm" => import::read(Source::Html(&String::from_utf8_lossy(&bytes))),
        "md" | "markdown" => import::read(Source::Markdown(&String::from_utf8_lossy(&bytes))),
        _ => {
            if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
                return Err(format!(
                    "{name}:{}:{}: not JSON (line {}, column {}): {}",
                    e.line(),
                    e.column(),
                    e.line(),
                    e.column(),
                    e.to_string().split(" at line ").next().unwrap_or_default()
                ));
            }
            match ext.as_str() {
                "jsonld" => import::read(Source::JsonLd(&String::from_utf8_lossy(&bytes))),
                _ => import::read(Source::Json(&bytes)),
            }
        }
    };
    read.map_err(|e| format!("{name}: {e}"))
}

/// An imported recipe as `POST /api/recipes` takes it.
fn draft(imported: &import::Imported) -> Value {
    imported.recipe.clone()
}

fn draft_name(draft: &Value) -> String {
    draft["name"].as_str().unwrap_or("(no name)").to_owned()
}

/// A refusal, with `recipes[i]` named by the recipe's name.
fn refused(e: StoreError, drafts: &[Value], file: &Path) -> String {
    let StoreError::Invalid(problems) = e else {
        return e.to_string();
    };
    let lines: Vec<String> = problems
        .iter()
        .map(|p| {
            let named = p
                .field
                .strip_prefix("recipes[")
                .and_then(|rest| rest.split_once(']'))
                .and_then(|(i, field)| {
                    let i: usize = i.parse().ok()?;
                    Some(format!("{}{field}", draft_name(drafts.get(i)?)))
                })
                .unwrap_or_else(|| p.field.clone());
            format!("  {named}: {}", p.message)
        })
        .collect();
    format!(
        "{}: nothing was added; {} problem(s):\n{}",
        file.display(),
        problems.len(),
        lines.join("\n")
    )
}
