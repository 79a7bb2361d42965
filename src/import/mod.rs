//! PLACEHOLDER until the `import-read` branch (the format code) is merged: the interface
//! the web and CLI sides are written against, with no format read yet. Replaced whole by
//! that branch's module.

use crate::recipes::{Recipe, Recipes};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;

/// Where recipes come from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Html(&'a str),
    JsonLd(&'a str),
    Json(&'a [u8]),
    Zip(&'a [u8]),
    Folder(&'a Path),
}

/// A recipe read from elsewhere: our schema without an id, and what was guessed.
#[derive(Debug, Clone, Serialize)]
pub struct Imported {
    pub recipe: Map<String, Value>,
    pub guesses: Vec<Guess>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Guess {
    pub field: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub recipe: usize,
    pub field: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Preview {
    pub recipes: Vec<Imported>,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Duplicate {
    pub recipe: usize,
    pub existing_id: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    JsonLd,
    Markdown,
    BarAssistant,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("no recipe found: {0}")]
    NoRecipe(String),
}

pub fn read(_source: Source<'_>) -> Result<Preview, ImportError> {
    Err(ImportError::NoRecipe(
        "reading formats is not built yet".into(),
    ))
}

pub fn duplicates(_preview: &Preview, _recipes: &Recipes) -> Vec<Duplicate> {
    Vec::new()
}

pub fn export(recipes: &[&Recipe], _format: Format) -> Vec<u8> {
    serde_json::to_vec_pretty(recipes).unwrap_or_default()
}
