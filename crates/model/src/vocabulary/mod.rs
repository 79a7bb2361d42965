//! The bar's words: one vocabulary of bottles and kinds, so that a shelf, a search and an
//! import can answer by bottle rather than by spelling.
//!
//! `data/vocabulary.json` has one entry per bottle or kind: its name, the kind it belongs
//! to (`is`: Bourbon is a Whiskey, Cointreau a Triple sec), the other ways recipes spell it
//! (`also`), what a house-made prep is made of (`made_of`: simple syrup from sugar and
//! water), whether it is a staple that never blocks a drink, and the source of each fact.
//!
//! The steps:
//! 1. [`Vocabulary::parse`] checks the file (ids unique, every kind and part known, no
//!    kind or prep that contains itself, no spelling given to two entries) and indexes
//!    every spelling by the shelf's folding ([`crate::ingredients::key`]).
//! 2. [`Vocabulary::read`] reads a recipe row's name: a spelling it knows, or "X or Y",
//!    or a name it does not know, kept as the row wrote it ([`read`]).
//! 3. [`Vocabulary::meets`] says whether a shelf meets that row, and how ([`meets`]).
//! 4. [`Vocabulary::coverage`] says how much of a collection it understands
//!    (`libations check`).
//! 5. [`Vocabulary::abv`] says how strong a bottle is (its own figure, else its kind's):
//!    what `strength` counts a row at.

mod meets;
mod read;
#[cfg(test)]
mod tests;

pub use meets::{How, Met, Row, Rule, Shelf};
pub use read::Reading;

use crate::ingredients::key;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The text of the built-in vocabulary.
pub const VOCABULARY_JSON: &str = include_str!("../../../../data/vocabulary.json");

/// A place in the vocabulary's list of entries.
pub type At = usize;

/// One bottle or kind.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    pub name: String,
    /// The kind it belongs to.
    pub parent: Option<At>,
    /// What a house-made prep is made of.
    pub made_of: Option<Prep>,
    /// Never blocks a drink: water, soda water, ice.
    pub staple: bool,
    /// How strong it is; `None`: as strong as its kind ([`Vocabulary::abv`]).
    pub abv: Option<Abv>,
    pub source: String,
}

/// How strong a bottle is, in % alcohol by volume: the figure a recipe's strength counts,
/// the range bottlings span, and where the figure comes from. Kept with the bottle (it was
/// a table of its own) so that one table names every bottle, its
/// spellings and its strength.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Abv {
    pub figure: f64,
    pub range: [f64; 2],
    pub source: String,
}

/// How a house-made prep is made, and from what.
#[derive(Debug, Clone)]
pub struct Prep {
    pub parts: Vec<At>,
    pub how: String,
    pub keeps: String,
    pub source: String,
}

/// The vocabulary, checked and indexed.
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    entries: Vec<Entry>,
    /// Every spelling, folded as the shelf folds names, and the entry it names.
    by_spelling: HashMap<String, At>,
    by_id: HashMap<String, At>,
}

/// Why a vocabulary file cannot be used; each names the entry at fault.
#[derive(Debug, thiserror::Error)]
pub enum VocabularyError {
    #[error("the vocabulary is not the expected JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("entry {0:?} appears twice")]
    DuplicateId(String),
    #[error("entry {id:?}: {field} names {named:?}, which is no entry")]
    Unknown {
        id: String,
        field: &'static str,
        named: String,
    },
    #[error("entry {0:?} is, through its kinds or its parts, made of itself")]
    Circle(String),
    #[error("the spelling {spelling:?} is given to both {first:?} and {second:?}")]
    Spelling {
        spelling: String,
        first: String,
        second: String,
    },
    #[error("entry {0:?} has no source")]
    NoSource(String),
    #[error("entry {0:?}: abv needs 0 ≤ range[0] ≤ figure ≤ range[1] ≤ 100 and a source")]
    Abv(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    about: String,
    entries: Vec<RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: String,
    name: String,
    #[serde(default)]
    is: Option<String>,
    #[serde(default)]
    also: Vec<String>,
    #[serde(default)]
    made_of: Option<RawPrep>,
    #[serde(default)]
    staple: bool,
    #[serde(default)]
    abv: Option<Abv>,
    source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrep {
    parts: Vec<String>,
    how: String,
    keeps: String,
    source: String,
}

impl Vocabulary {
    /// The vocabulary compiled into the binary. Its unit tests check it; were it ever
    /// unreadable, the vocabulary is empty and every row is read as its own name.
    pub fn built_in() -> &'static Vocabulary {
        static BUILT_IN: OnceLock<Vocabulary> = OnceLock::new();
        BUILT_IN.get_or_init(|| Vocabulary::parse(VOCABULARY_JSON).unwrap_or_default())
    }

    /// Reads and checks a vocabulary file (step 1).
    pub fn parse(text: &str) -> Result<Vocabulary, VocabularyError> {
        let file: File = serde_json::from_str(text)?;
        let mut by_id = HashMap::new();
        for (at, raw) in file.entries.iter().enumerate() {
            if by_id.insert(raw.id.clone(), at).is_some() {
                return Err(VocabularyError::DuplicateId(raw.id.clone()));
            }
        }
        let find = |id: &str, field: &'static str, named: &str| {
            by_id
                .get(named)
                .copied()
                .ok_or_else(|| VocabularyError::Unknown {
                    id: id.to_owned(),
                    field,
                    named: named.to_owned(),
                })
        };
        let mut entries = Vec::with_capacity(file.entries.len());
        for raw in &file.entries {
            entries.push(entry(raw, &find)?);
        }
        let mut vocabulary = Vocabulary {
            entries,
            by_spelling: HashMap::new(),
            by_id,
        };
        vocabulary.check_circles()?;
        for (at, raw) in file.entries.iter().enumerate() {
            for spelling in std::iter::once(&raw.name).chain(&raw.also) {
                vocabulary.add_spelling(spelling, at)?;
            }
        }
        Ok(vocabulary)
    }

    fn add_spelling(&mut self, spelling: &str, at: At) -> Result<(), VocabularyError> {
        let folded = key(spelling);
        match self.by_spelling.insert(folded.clone(), at) {
            Some(first) if first != at => Err(VocabularyError::Spelling {
                spelling: folded,
                first: self.entries[first].id.clone(),
                second: self.entries[at].id.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// No entry is its own kind, or made (through its kinds' parts too) of itself: the
    /// walks in [`meets`] then always end.
    fn check_circles(&self) -> Result<(), VocabularyError> {
        for start in 0..self.entries.len() {
            let mut seen = vec![false; self.entries.len()];
            let mut stack = self.next_of(start);
            while let Some(at) = stack.pop() {
                if at == start {
                    return Err(VocabularyError::Circle(self.entries[start].id.clone()));
                }
                if !std::mem::replace(&mut seen[at], true) {
                    stack.extend(self.next_of(at));
                }
            }
        }
        Ok(())
    }

    fn next_of(&self, at: At) -> Vec<At> {
        let entry = &self.entries[at];
        let parts = entry.made_of.iter().flat_map(|p| p.parts.iter().copied());
        entry.parent.into_iter().chain(parts).collect()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn entry(&self, at: At) -> &Entry {
        &self.entries[at]
    }

    /// The entry with this id.
    pub fn by_id(&self, id: &str) -> Option<At> {
        self.by_id.get(id).copied()
    }

    /// The entry a folded name spells, if any.
    pub(crate) fn spelled(&self, folded: &str) -> Option<At> {
        self.by_spelling.get(folded).copied()
    }

    /// Every spelling, folded as the shelf folds names, and the entry it names (in no
    /// particular order).
    pub fn spellings(&self) -> impl Iterator<Item = (&str, At)> + '_ {
        self.by_spelling.iter().map(|(s, &at)| (s.as_str(), at))
    }

    /// Whether `at` is `kind` or belongs to it, at any depth.
    pub fn is_a(&self, mut at: At, kind: At) -> bool {
        loop {
            if at == kind {
                return true;
            }
            match self.entries[at].parent {
                Some(parent) => at = parent,
                None => return false,
            }
        }
    }

    /// How strong an entry is: its own figure, else its nearest kind's (Lagavulin has
    /// none of its own: Islay Scotch's), with the entry that gave it.
    pub fn abv(&self, at: At) -> Option<(At, &Abv)> {
        std::iter::once(at)
            .chain(self.kinds(at))
            .find_map(|k| self.entries[k].abv.as_ref().map(|abv| (k, abv)))
    }

    /// The kinds above an entry, nearest first: Bourbon → Whiskey → Spirits.
    pub fn kinds(&self, at: At) -> impl Iterator<Item = At> + '_ {
        std::iter::successors(self.entries[at].parent, |&k| self.entries[k].parent)
    }
}

fn entry(
    raw: &RawEntry,
    find: &impl Fn(&str, &'static str, &str) -> Result<At, VocabularyError>,
) -> Result<Entry, VocabularyError> {
    if raw.source.trim().is_empty() {
        return Err(VocabularyError::NoSource(raw.id.clone()));
    }
    if let Some(abv) = &raw.abv {
        let [low, high] = abv.range;
        let ordered = 0.0 <= low && low <= abv.figure && abv.figure <= high && high <= 100.0;
        if !ordered || abv.source.trim().is_empty() {
            return Err(VocabularyError::Abv(raw.id.clone()));
        }
    }
    let parent = raw
        .is
        .as_deref()
        .map(|k| find(&raw.id, "is", k))
        .transpose()?;
    let made_of = match &raw.made_of {
        None => None,
        Some(prep) => Some(Prep {
            parts: prep
                .parts
                .iter()
                .map(|p| find(&raw.id, "made_of.parts", p))
                .collect::<Result<_, _>>()?,
            how: prep.how.clone(),
            keeps: prep.keeps.clone(),
            source: prep.source.clone(),
        }),
    };
    Ok(Entry {
        id: raw.id.clone(),
        name: raw.name.clone(),
        parent,
        made_of,
        staple: raw.staple,
        abv: raw.abv.clone(),
        source: raw.source.clone(),
    })
}
