//! Reading recipes from elsewhere, and writing ours in the formats others read.
//!
//! Pure: no network, no store. What comes in is read into recipes in our schema (the
//! objects `POST /api/recipes` takes, without `id`), each with the guesses made for it;
//! nothing is saved here. The steps of [`read`]:
//!
//! 1. Tell the format: a page's HTML (`jsonld` takes every `<script type=
//!    "application/ld+json">`), JSON-LD itself, a JSON file (`json` tells a libations
//!    file, a Bar Assistant `data.json`, a Bar Assistant export recipe or JSON-LD apart),
//!    a zip or a folder of Bar Assistant export files (`archive`), or Markdown
//!    (`markdown`, what [`export`] writes).
//! 2. Each format gives [`Incoming`]s: name, lists, ingredient rows, notes.
//! 3. Ingredient lines given as text (`1 ½ oz London dry gin`) are split by [`line`] into
//!    measure, unit and name; a line it cannot read is kept whole as the name, with a note.
//! 4. What the source does not say is guessed where it can be (`guess`: base from the
//!    ingredients, method and glass from the instructions) and every guess is marked.
//! 5. Each recipe is checked as saving it would be (`recipes::Submitted::check`: the
//!    loader's rules, the caps, the characters); what fails is a [`Problem`], never a
//!    dropped recipe.
//!
//! [`duplicates`] flags recipes whose name (folded, [`crate::text::fold`]) is already in a
//! collection. [`export`] writes schema.org `Recipe` JSON-LD, Markdown or Bar Assistant's
//! recipe format; reading any of them back gives the same recipes.
//!
//! Crate `libations-import`: it may use libations-model (the `use`s below name the rooms).

// The rooms of other crates this one uses, under the names the code knows them by.
use libations_model::{recipes, text, units};

pub mod fetch;

mod archive;
mod bar_assistant;
pub mod export;
mod guess;
mod incoming;
mod json;
mod jsonld;
pub mod line;
mod markdown;
mod scan;

use crate::recipes::Recipes;
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use export::{Format, Selection, export};
pub use incoming::Incoming;

/// Where recipes come from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A web page's source: its JSON-LD scripts are read.
    Html(&'a str),
    /// JSON-LD text (an object, an array, or a `@graph`).
    JsonLd(&'a str),
    /// A JSON file: a libations file, a Bar Assistant `data.json` or export recipe, or
    /// JSON-LD.
    Json(&'a [u8]),
    /// A Bar Assistant export as a zip.
    Zip(&'a [u8]),
    /// A Bar Assistant export folder (or a folder of recipe files), read from disk.
    Folder(&'a Path),
    /// Markdown as [`export`] writes it.
    Markdown(&'a str),
}

/// One recipe read from a source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Imported {
    /// A recipe object in our schema, without `id`: `name`, `base`, `glass`, `method`,
    /// `ice`, `ingredients` (`name`, `measure`, `unit`), `garnish`, `notes`.
    pub recipe: serde_json::Value,
    /// What was guessed or kept as it was, by field (also in [`Preview::problems`]).
    pub guesses: Vec<Guess>,
}

/// A guess made for one field of a recipe ("glass not given", "base guessed from the
/// ingredients"), or a line kept whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Guess {
    pub field: String,
    pub message: String,
}

/// Something to look at before saving: a guess, a line kept as a name, or what the
/// validator refuses. `recipe` is the index in [`Preview::recipes`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub recipe: usize,
    pub field: String,
    pub message: String,
}

/// What a source holds, read but not saved.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Preview {
    pub recipes: Vec<Imported>,
    pub problems: Vec<Problem>,
}

/// A recipe of the preview whose name is already in the collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Duplicate {
    pub recipe: usize,
    pub existing_id: u64,
}

/// Why nothing could be read.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("no recipe found: {0}")]
    NoRecipe(String),
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("not a zip file this app can read: {0}")]
    Zip(String),
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error("too large: {0}")]
    TooLarge(String),
    #[error("cannot write {0}")]
    Write(String),
    #[error("stopped: {0}")]
    Stopped(String),
}

/// When reading must stop: the one who asked is gone ([`Stop::cancel`], or a
/// [`Hangup`] dropped with their request), or it took longer than its limit. A page is
/// read off the async runtime, where dropping the request's future cannot end the work:
/// the reading looks at this instead.
#[derive(Debug, Clone)]
pub struct Stop {
    gone: Arc<AtomicBool>,
    /// The deadline, and the limit it was set from (for the refusal).
    deadline: Option<(Instant, Duration)>,
}

impl Stop {
    /// Never stops on its own (the command line, tests).
    pub fn never() -> Stop {
        Stop {
            gone: Arc::default(),
            deadline: None,
        }
    }

    /// Stops `limit` from now.
    pub fn after(limit: Duration) -> Stop {
        Stop {
            gone: Arc::default(),
            deadline: Instant::now().checked_add(limit).map(|at| (at, limit)),
        }
    }

    /// The one who asked is gone: whatever reads stops at its next look.
    pub fn cancel(&self) {
        self.gone.store(true, Ordering::Relaxed);
    }

    /// Cancels when dropped: held by the request's future, it cancels when the client
    /// hangs up (and harmlessly once the answer is made).
    pub fn hangup(&self) -> Hangup {
        Hangup(self.clone())
    }

    /// `Err` when reading must stop, saying why.
    pub fn check(&self) -> Result<(), ImportError> {
        if self.gone.load(Ordering::Relaxed) {
            return Err(ImportError::Stopped(
                "the request was given up before it was read".into(),
            ));
        }
        match self.deadline {
            Some((at, limit)) if Instant::now() >= at => Err(ImportError::Stopped(format!(
                "reading took longer than {} s, the most one import may take",
                limit.as_secs()
            ))),
            _ => Ok(()),
        }
    }
}

/// Cancels its [`Stop`] when dropped.
#[derive(Debug)]
pub struct Hangup(Stop);

impl Drop for Hangup {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Most recipes one source may give (a Bar Assistant collection has some 300).
pub const MAX_RECIPES: usize = 5_000;

/// Reads every recipe `source` holds. `Err` only when nothing can be read at all.
pub fn read(source: Source) -> Result<Preview, ImportError> {
    read_from(source, None)
}

/// As [`read`], for a page fetched from `url`: `Source: <url>` ends each recipe's notes.
pub fn read_from(source: Source, url: Option<&str>) -> Result<Preview, ImportError> {
    read_until(source, url, &Stop::never())
}

/// As [`read_from`], giving up when `stop` says so (a page is looked at as it is read).
pub fn read_until(source: Source, url: Option<&str>, stop: &Stop) -> Result<Preview, ImportError> {
    let drafts = match source {
        Source::Html(html) => jsonld::from_html(html, stop)?,
        Source::JsonLd(text) => jsonld::from_text(text)?,
        Source::Json(bytes) => json::from_bytes(bytes)?,
        Source::Zip(bytes) => archive::from_zip(bytes)?,
        Source::Folder(path) => archive::from_folder(path)?,
        Source::Markdown(text) => markdown::read(text)?,
    };
    if drafts.is_empty() {
        return Err(ImportError::NoRecipe(
            "the source holds no recipe this app can read".to_owned(),
        ));
    }
    if drafts.len() > MAX_RECIPES {
        return Err(ImportError::TooLarge(format!(
            "{} recipes, more than the {MAX_RECIPES} one import may hold",
            drafts.len()
        )));
    }
    let mut preview = Preview::default();
    for (index, mut draft) in drafts.into_iter().enumerate() {
        if let Some(url) = url {
            draft.add_source(url);
        }
        let (recipe, guesses, problems) = draft.finish();
        preview
            .problems
            .extend(guesses.iter().chain(&problems).map(|g| Problem {
                recipe: index,
                field: g.field.clone(),
                message: g.message.clone(),
            }));
        preview.recipes.push(Imported { recipe, guesses });
    }
    Ok(preview)
}

/// The recipes of `preview` whose name, folded, is the name of a recipe in `existing`.
pub fn duplicates(preview: &Preview, existing: &Recipes) -> Vec<Duplicate> {
    let names: std::collections::HashMap<String, u64> = existing
        .all()
        .iter()
        .map(|r| (crate::text::fold(&r.name), r.id))
        .collect();
    preview
        .recipes
        .iter()
        .enumerate()
        .filter_map(|(recipe, imported)| {
            let name = imported.recipe.get("name")?.as_str()?;
            let existing_id = *names.get(&crate::text::fold(name))?;
            Some(Duplicate {
                recipe,
                existing_id,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
