//! Step 2: what a recipe row names, read through the vocabulary; and how much of a
//! collection that understands.

use super::{At, Vocabulary};
use crate::ingredients::key;
use crate::recipes::Recipes;
use std::collections::HashMap;

/// What a row's name names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// One bottle or kind.
    Entry(At),
    /// "Bourbon or Rye Whiskey": any one of them.
    Either(Vec<At>),
    /// A name the vocabulary does not know, folded as the shelf folds it: still a bottle a
    /// household can tick as itself.
    Unknown(String),
}

/// How much of a collection the vocabulary understands: every ingredient row counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub rows: usize,
    pub understood: usize,
    /// The names it does not know, as first written, with how many rows use each; most
    /// used first.
    pub unknown: Vec<(String, usize)>,
}

impl Coverage {
    /// The share of rows understood, in percent (100 for a collection without rows).
    pub fn percent(&self) -> f64 {
        if self.rows == 0 {
            return 100.0;
        }
        100.0 * self.understood as f64 / self.rows as f64
    }
}

/// The separators of alternatives in a name: "Cognac or Brandy", "Rye / Bourbon".
const EITHER: [&str; 2] = [" or ", " / "];

impl Vocabulary {
    /// Reads a row's name (step 2): a whole spelling first, then alternatives each of
    /// which it knows; anything else is [`Reading::Unknown`].
    pub fn read(&self, name: &str) -> Reading {
        self.read_folded(&key(name))
    }

    /// [`Vocabulary::read`] of a name already folded by [`key`].
    pub fn read_folded(&self, folded: &str) -> Reading {
        if let Some(at) = self.spelled(folded) {
            return Reading::Entry(at);
        }
        for separator in EITHER {
            if !folded.contains(separator) {
                continue;
            }
            let parts: Option<Vec<At>> = folded
                .split(separator)
                .map(|part| self.spelled(part.trim()))
                .collect();
            if let Some(parts) = parts {
                return Reading::Either(parts);
            }
        }
        Reading::Unknown(folded.to_owned())
    }

    /// How many of a collection's ingredient rows name something it knows (step 4).
    pub fn coverage(&self, recipes: &Recipes) -> Coverage {
        let mut rows = 0;
        let mut understood = 0;
        let mut unknown: HashMap<String, (String, usize)> = HashMap::new();
        for line in recipes.all().iter().flat_map(|r| &r.ingredients) {
            rows += 1;
            match self.read(&line.name) {
                Reading::Unknown(folded) => {
                    let seen = unknown
                        .entry(folded)
                        .or_insert_with(|| (line.name.to_string(), 0));
                    seen.1 += 1;
                }
                _ => understood += 1,
            }
        }
        let mut unknown: Vec<(String, usize)> = unknown.into_values().collect();
        unknown.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Coverage {
            rows,
            understood,
            unknown,
        }
    }
}
