//! Recipes: the data model, loading a recipes file, and validating it.
//!
//! Data flows one way: a file (or the embedded sample) is parsed and validated into
//! [`Recipes`], which never changes afterwards; everything the web layer shows is derived
//! from it. A recipe sent to be saved is checked once, where it arrives, into a
//! [`Submitted`] ([`caps`]: what it may hold beyond the loader's rules).

pub mod caps;
mod submitted;
mod validate;

use compact_str::CompactString;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use submitted::{Submitted, in_bulk};
pub(crate) use validate::Json;
pub use validate::{FieldError, Problem, RecipeRef, check_one};
pub use validate::{INGREDIENT_FIELDS, LIST_FIELDS, RECIPE_FIELDS, fold_eq, is_recipe_field};

/// The sample collection compiled into the binary, used when no recipes file is given.
pub const SAMPLE_JSON: &str = include_str!("../../../../recipes/sample.json");

/// One ingredient line: "20 ml Lemon Juice". `measure` and `unit` are free text.
///
/// Text is [`CompactString`]: up to 24 bytes (nearly every name, measure and unit) live
/// inside the value instead of in a heap block of their own. With a `String` each was a
/// separate allocation, some 25 per recipe, and together they were most of the memory the
/// loaded collection took (docs/bench/notes-recipes.md). It serializes as a plain JSON
/// string, as `String` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IngredientLine {
    pub name: CompactString,
    pub measure: CompactString,
    pub unit: CompactString,
    /// The row's own strength, % alcohol by volume (0–100), when the file gives one: it
    /// wins over the household's and the built-in table ([`crate::strength`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abv: Option<Abv>,
    /// Bottles that may stand in for this one, in the recipe's order (Bar Assistant's
    /// `substitutes`): "can make" counts the row met when the shelf meets one of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub substitutes: Vec<CompactString>,
    /// "This bottle only": no stand-in, prep or household rule meets the row, only the
    /// bottle itself (its own `substitutes` still do).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
}

/// A strength in % alcohol by volume, known to be a number from 0 to 100.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Abv(f64);

// A checked `Abv` is never NaN, so equality is total.
impl Eq for Abv {}

impl Abv {
    /// `value` if it is a strength: a number from 0 to 100.
    pub fn new(value: f64) -> Option<Abv> {
        (value.is_finite() && (0.0..=100.0).contains(&value)).then_some(Abv(value))
    }

    pub fn get(self) -> f64 {
        self.0
    }
}

/// A recipe in the file's schema. Missing or `null` lists and notes load as empty.
/// Text is [`CompactString`] for the reason given at [`IngredientLine`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recipe {
    pub id: u64,
    pub name: CompactString,
    pub base: Vec<CompactString>,
    pub glass: Vec<CompactString>,
    pub method: Vec<CompactString>,
    pub ice: Vec<CompactString>,
    pub ingredients: Vec<IngredientLine>,
    pub garnish: Vec<CompactString>,
    pub notes: CompactString,
}

/// Where a collection came from; shown in logs and in error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The sample compiled into the binary.
    Embedded,
    /// A recipes file on disk.
    File(PathBuf),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Embedded => f.write_str("embedded sample"),
            Origin::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The largest recipes file read by default (64 MiB): some 100,000 recipes.
pub(crate) const DEFAULT_MAX_BYTES: u64 = 64 << 20;

/// Why a recipes file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read recipes file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "recipes file {path} is {size} bytes, more than the {max} allowed (--max-recipes-bytes)"
    )]
    TooLarge { path: PathBuf, size: u64, max: u64 },
    #[error("{origin}:{line}:{column}: invalid JSON: {message}")]
    Syntax {
        origin: Origin,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{origin}: {} problem(s) found:\n{}{}", problems.len(), list(problems), also(warnings))]
    Invalid {
        origin: Origin,
        problems: Vec<Problem>,
        /// What would have loaded with a warning, listed too so that one pass fixes all.
        warnings: Vec<Problem>,
    },
}

fn list(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
    lines.join("\n")
}

fn also(warnings: &[Problem]) -> String {
    let lines: Vec<String> = warnings
        .iter()
        .map(|w| format!("\n  warning: {w}"))
        .collect();
    lines.concat()
}

/// What identifies a version of the file without reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl Stamp {
    /// Takes the stamp of `path` now. Take it *before* reading the file: a change that
    /// lands between the read and the stamp is then seen as a change, never missed.
    pub fn of(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|meta| Stamp::from(&meta))
    }
}

impl From<&std::fs::Metadata> for Stamp {
    fn from(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            modified: meta.modified().ok(),
            len: meta.len(),
            inode: std::os::unix::fs::MetadataExt::ino(meta),
        }
    }
}

/// Reads a recipes file's text and modification time, refusing one larger than `max`
/// bytes before reading it (and one that grows past `max` while it is read).
pub fn read_at_most(path: &Path, max: u64) -> Result<(String, SystemTime), LoadError> {
    use std::io::Read;
    let read_err = |source| LoadError::Read {
        path: path.to_owned(),
        source,
    };
    let too_large = |size| LoadError::TooLarge {
        path: path.to_owned(),
        size,
        max,
    };
    let file = std::fs::File::open(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    let updated = meta.modified().map_err(read_err)?;
    let mut text = String::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(read_err)?;
    if text.len() as u64 > max {
        return Err(too_large(text.len() as u64));
    }
    Ok((text, updated))
}

/// A validated, immutable collection, sorted by name (case- and accent-insensitive).
#[derive(Debug, Clone)]
pub struct Recipes {
    list: Vec<Recipe>,
    by_id: HashMap<u64, usize>,
    origin: Origin,
    updated: SystemTime,
    warnings: Vec<Problem>,
}

impl Recipes {
    /// Loads and validates a recipes file of at most [`DEFAULT_MAX_BYTES`].
    pub fn from_file(path: &Path) -> Result<Self, LoadError> {
        Self::from_file_at_most(path, DEFAULT_MAX_BYTES)
    }

    /// Loads and validates a recipes file, refusing one larger than `max` bytes before
    /// reading it (and one that grows past `max` while it is read).
    pub fn from_file_at_most(path: &Path, max: u64) -> Result<Self, LoadError> {
        let (text, updated) = read_at_most(path, max)?;
        Self::parse(&text, Origin::File(path.to_owned()), updated)
    }

    /// The sample compiled into the binary; "updated" is the time it was built in.
    pub fn sample() -> Result<Self, LoadError> {
        let built = SystemTime::UNIX_EPOCH
            + std::time::Duration::from_secs(env!("LIBATIONS_SAMPLE_BUILT").parse().unwrap_or(0));
        Self::parse(SAMPLE_JSON, Origin::Embedded, built)
    }

    /// Parses and validates recipes text; reports every problem, not just the first.
    pub fn parse(text: &str, origin: Origin, updated: SystemTime) -> Result<Self, LoadError> {
        let validate::Parsed {
            recipes: mut list,
            warnings,
        } = validate::parse(text, &origin)?;
        list.sort_by_cached_key(|r| (crate::text::fold(&r.name), r.id));
        let by_id = list.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        Ok(Recipes {
            list,
            by_id,
            origin,
            updated,
            warnings,
        })
    }

    /// This collection with one recipe taken out (`remove`) and/or one put in (`insert`,
    /// replacing any with its id): what a saved change leaves, without reading and
    /// validating the whole file again. `insert` must already be valid (a [`Submitted`]
    /// recipe given its id); ids stay unique because one replaces another.
    pub fn changed(
        &self,
        remove: Option<u64>,
        insert: Option<Recipe>,
        updated: SystemTime,
    ) -> Recipes {
        let mut list: Vec<Recipe> = self
            .list
            .iter()
            .filter(|r| Some(r.id) != remove && Some(r.id) != insert.as_ref().map(|i| i.id))
            .cloned()
            .collect();
        list.extend(insert);
        list.sort_by_cached_key(|r| (crate::text::fold(&r.name), r.id));
        let by_id = list.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        Recipes {
            list,
            by_id,
            origin: self.origin.clone(),
            updated,
            warnings: self.warnings.clone(),
        }
    }

    /// All recipes, sorted by name.
    pub fn all(&self) -> &[Recipe] {
        &self.list
    }

    pub fn get(&self, id: u64) -> Option<&Recipe> {
        self.by_id.get(&id).map(|&i| &self.list[i])
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// What loaded only because the Go original's decoding allowed it (keys in another
    /// case, unknown keys): to be shown to whoever maintains the file, never dropped quietly.
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    /// Logs each warning at WARN, with the file, recipe and field it is about.
    pub fn log_warnings(&self) {
        for w in &self.warnings {
            tracing::warn!("{w}");
        }
    }

    /// The file's modification time (or the build time of the embedded sample).
    pub fn updated(&self) -> SystemTime {
        self.updated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_is_valid_and_sorted_accent_insensitively() {
        let recipes = Recipes::sample().expect("embedded sample must be valid");
        assert!(
            (20..=30).contains(&recipes.len()),
            "sample has {}",
            recipes.len()
        );
        let keys: Vec<String> = recipes
            .all()
            .iter()
            .map(|r| crate::text::fold(&r.name))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert!(recipes.all().iter().any(|r| r.base == ["Non-Alcoholic"]));
    }

    #[test]
    fn sorts_by_folded_name_and_finds_by_id() {
        let text = r#"[{"id": 3, "name": "zombie"}, {"id": 1, "name": "Éclair"}, {"id": 2, "name": "Daiquiri"}]"#;
        let r = Recipes::parse(text, Origin::Embedded, SystemTime::UNIX_EPOCH).unwrap();
        let names: Vec<&str> = r.all().iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["Daiquiri", "Éclair", "zombie"]);
        assert_eq!(r.get(3).map(|r| r.name.as_str()), Some("zombie"));
        assert!(r.get(4).is_none());
    }
}
