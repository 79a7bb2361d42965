//! Step 3: whether a shelf meets a recipe row, and how, as a bartender would answer:
//!
//! 1. a staple (water, soda water, ice) is always there;
//! 2. the bottle itself is on the shelf;
//! 3. something more specific is: a row naming a kind (Triple sec, Whiskey) is met by
//!    any bottle of that kind (Cointreau, Bourbon), never by a sibling (Rye for Bourbon);
//!    of several, the first in the vocabulary's order;
//! 4. it is a house-made prep whose parts the shelf meets (simple syrup from sugar and
//!    water, lime juice from limes);
//! 5. "X or Y" is met by the first of them that is;
//! 6. a name the vocabulary does not know is met only by the same name on the shelf.

use super::{At, Reading, Vocabulary};
use crate::ingredients::key;
use std::collections::HashSet;

/// What a household holds, read through the vocabulary.
#[derive(Debug, Clone, Default)]
pub struct Shelf {
    /// The entries ticked, each once.
    entries: Vec<At>,
    /// Names the vocabulary does not know, folded: ticked as themselves.
    names: HashSet<String>,
}

/// How a shelf meets a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    /// Always there.
    Staple(At),
    /// The bottle itself.
    Has(At),
    /// A bottle of the kind the row names: "Cointreau for Triple sec".
    StandsIn { have: At, wanted: At },
    /// A prep made from what the shelf meets: "make Simple syrup from Sugar and Water".
    Made { prep: At, from: Vec<How> },
    /// A name the vocabulary does not know, ticked as written.
    Own(String),
}

impl Shelf {
    /// A shelf of the names a household ticked (bottles, kinds, or names of their own).
    pub fn new<'n>(vocabulary: &Vocabulary, ticked: impl IntoIterator<Item = &'n str>) -> Shelf {
        let mut shelf = Shelf::default();
        for name in ticked {
            match vocabulary.read(name) {
                Reading::Entry(at) => shelf.add(at),
                Reading::Either(alternatives) => {
                    alternatives.into_iter().for_each(|at| shelf.add(at))
                }
                Reading::Unknown(folded) => {
                    shelf.names.insert(folded);
                }
            }
        }
        shelf
    }

    fn add(&mut self, at: At) {
        if !self.entries.contains(&at) {
            self.entries.push(at);
        }
    }

    pub fn holds(&self, at: At) -> bool {
        self.entries.contains(&at)
    }
}

impl Vocabulary {
    /// How `shelf` meets a row whose name reads as `reading`; `None` when it does not.
    pub fn meets(&self, shelf: &Shelf, reading: &Reading) -> Option<How> {
        match reading {
            Reading::Entry(at) => self.meets_entry(shelf, *at),
            Reading::Either(alternatives) => alternatives
                .iter()
                .find_map(|&at| self.meets_entry(shelf, at)),
            Reading::Unknown(folded) => shelf
                .names
                .contains(folded)
                .then(|| How::Own(folded.clone())),
        }
    }

    /// [`Vocabulary::meets`] for a row's name as written.
    pub fn meets_name(&self, shelf: &Shelf, name: &str) -> Option<How> {
        self.meets(shelf, &self.read_folded(&key(name)))
    }

    fn meets_entry(&self, shelf: &Shelf, wanted: At) -> Option<How> {
        let entry = self.entry(wanted);
        if entry.staple {
            return Some(How::Staple(wanted));
        }
        if shelf.holds(wanted) {
            return Some(How::Has(wanted));
        }
        // The first in the vocabulary's order, so that the answer does not depend on the
        // order a shelf was ticked (or stored) in.
        let more_specific = shelf
            .entries
            .iter()
            .filter(|&&have| self.is_a(have, wanted));
        if let Some(&have) = more_specific.min() {
            return Some(How::StandsIn { have, wanted });
        }
        let prep = entry.made_of.as_ref()?;
        let from: Option<Vec<How>> = prep
            .parts
            .iter()
            .map(|&part| self.meets_entry(shelf, part))
            .collect();
        from.map(|from| How::Made { prep: wanted, from })
    }

    /// A person's words for how a row is met: "Cointreau for Triple sec", "Sugar and Water
    /// for Simple syrup (sugar and water, 1:1 by volume, …)"; `None` when the bottle is
    /// simply there.
    pub fn explain(&self, how: &How) -> Option<String> {
        match how {
            How::Staple(_) | How::Has(_) | How::Own(_) => None,
            How::StandsIn { have, wanted } => Some(format!(
                "{} for {}",
                self.entry(*have).name,
                self.entry(*wanted).name
            )),
            How::Made { prep, from } => {
                let parts: Vec<&str> = from.iter().map(|h| self.source_name(h)).collect();
                let prep = self.entry(*prep);
                let how = prep.made_of.as_ref().map(|p| p.how.as_str()).unwrap_or("");
                Some(format!("{} for {} ({how})", parts.join(" and "), prep.name))
            }
        }
    }

    /// The name of what a shelf used: the bottle it has, whatever it stood in for.
    fn source_name<'v>(&'v self, how: &'v How) -> &'v str {
        match how {
            How::Staple(at) | How::Has(at) | How::StandsIn { have: at, .. } => {
                &self.entry(*at).name
            }
            How::Made { prep, .. } => &self.entry(*prep).name,
            How::Own(name) => name,
        }
    }
}

/// How one shelf meets every entry of the vocabulary, worked out once: reading thousands
/// of a collection's rows against the shelf is then a lookup each (`makes::analyse`).
#[derive(Debug, Clone)]
pub struct Met<'v> {
    vocabulary: &'v Vocabulary,
    shelf: Shelf,
    entries: Vec<Option<How>>,
}

impl<'v> Met<'v> {
    pub fn new(vocabulary: &'v Vocabulary, shelf: Shelf) -> Met<'v> {
        let entries = (0..vocabulary.entries().len())
            .map(|at| vocabulary.meets_entry(&shelf, at))
            .collect();
        Met {
            vocabulary,
            shelf,
            entries,
        }
    }

    /// [`Vocabulary::meets`], from the table.
    pub fn meets(&self, reading: &Reading) -> Option<How> {
        match reading {
            Reading::Entry(at) => self.entries[*at].clone(),
            Reading::Either(alternatives) => {
                alternatives.iter().find_map(|&at| self.entries[at].clone())
            }
            Reading::Unknown(_) => self.vocabulary.meets(&self.shelf, reading),
        }
    }
}
