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
//! 6. a name the vocabulary does not know is met only by the same name on the shelf;
//! 7. the household's own rules ("Dry curaçao for Triple sec"), when nothing above meets
//!    the bottle a rule is for: the rule's bottle, met by steps 1–4 (never by another rule);
//! 8. a row's own `substitutes`, each met as a row is, when the row itself is not.
//!
//! A row marked `exact` is met only by the bottle itself (or a staple): no stand-in, prep,
//! rule; its own substitutes still count, as the recipe names them.

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
    /// The household's rules, read: (the bottle it has, the bottle it stands in for).
    rules: Vec<(At, At)>,
}

/// One of the household's rules: `have` (a bottle or kind) may stand in for `wanted` when
/// the shelf does not meet `wanted` otherwise. Both are names the vocabulary knows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rule {
    pub have: String,
    pub wanted: String,
}

/// A recipe row as "can make" reads it: its name, whether it is `exact` ("this bottle
/// only"), and the `substitutes` it lists, each read through the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub reading: Reading,
    pub exact: bool,
    pub substitutes: Vec<Reading>,
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
    /// The household's rule: "Dry curaçao for Triple sec (the household's rule)".
    Rule { have: At, wanted: At },
    /// One of the row's own substitutes, met as `used` says; `row` is the row's bottle.
    Substitute { used: Box<How>, row: String },
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

    /// This shelf with the household's rules; a rule naming something the vocabulary does
    /// not know is left out (the household refuses such a rule when it is written).
    pub fn with_rules<'r>(
        mut self,
        vocabulary: &Vocabulary,
        rules: impl IntoIterator<Item = &'r Rule>,
    ) -> Shelf {
        for rule in rules {
            let read = |name: &str| match vocabulary.read(name) {
                Reading::Entry(at) => Some(at),
                _ => None,
            };
            if let (Some(have), Some(wanted)) = (read(&rule.have), read(&rule.wanted))
                && !self.rules.contains(&(have, wanted))
            {
                self.rules.push((have, wanted));
            }
        }
        self
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
            Reading::Either(alternatives) => {
                either(alternatives.iter().map(|&at| self.meets_entry(shelf, at)))
            }
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
        self.meets_bottle(shelf, wanted)
            .or_else(|| self.meets_by_rule(shelf, wanted))
    }

    /// Steps 1–4: the bottle, something more specific, or a prep from its parts.
    fn meets_bottle(&self, shelf: &Shelf, wanted: At) -> Option<How> {
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

    /// Step 7: a household rule for `wanted` whose bottle the shelf meets (steps 1–4, so
    /// rules never chain); of several, the bottle first in the vocabulary's order.
    fn meets_by_rule(&self, shelf: &Shelf, wanted: At) -> Option<How> {
        shelf
            .rules
            .iter()
            .filter(|&&(have, for_)| for_ == wanted && self.meets_bottle(shelf, have).is_some())
            .map(|&(have, _)| have)
            .min()
            .map(|have| How::Rule { have, wanted })
    }

    /// How `shelf` meets a whole row: exact or not, then its substitutes (step 8).
    pub fn meets_row(&self, shelf: &Shelf, row: &Row) -> Option<How> {
        let itself = match row.exact {
            true => self.meets_exact(shelf, &row.reading),
            false => self.meets(shelf, &row.reading),
        };
        itself.or_else(|| self.meets_substitute(row, |r| self.meets(shelf, r)))
    }

    /// The first of a row's substitutes `meets` meets, in the row's order.
    fn meets_substitute(&self, row: &Row, meets: impl Fn(&Reading) -> Option<How>) -> Option<How> {
        let used = row.substitutes.iter().find_map(meets)?;
        Some(How::Substitute {
            used: Box::new(used),
            row: self.reading_name(&row.reading),
        })
    }

    /// An exact row: only the bottle itself, or a staple.
    fn meets_exact(&self, shelf: &Shelf, reading: &Reading) -> Option<How> {
        let itself = |&at: &At| {
            if self.entry(at).staple {
                Some(How::Staple(at))
            } else {
                shelf.holds(at).then_some(How::Has(at))
            }
        };
        match reading {
            Reading::Entry(at) => itself(at),
            Reading::Either(alternatives) => alternatives.iter().find_map(itself),
            Reading::Unknown(_) => self.meets(shelf, reading),
        }
    }

    /// The name a reading's bottle goes by: the entry's (the first of "X or Y"), or the
    /// name as folded.
    fn reading_name(&self, reading: &Reading) -> String {
        match reading {
            Reading::Entry(at) => self.entry(*at).name.clone(),
            Reading::Either(alternatives) => alternatives
                .first()
                .map_or_else(String::new, |&at| self.entry(at).name.clone()),
            Reading::Unknown(folded) => folded.clone(),
        }
    }

    /// [`Vocabulary::meets_row`] for a row as written: its name and substitutes' names.
    pub fn row(&self, name: &str, exact: bool, substitutes: &[impl AsRef<str>]) -> Row {
        self.row_of(self.read(name), exact, substitutes)
    }

    /// [`Vocabulary::row`] of a name already read.
    pub fn row_of(&self, reading: Reading, exact: bool, substitutes: &[impl AsRef<str>]) -> Row {
        Row {
            reading,
            exact,
            substitutes: substitutes.iter().map(|s| self.read(s.as_ref())).collect(),
        }
    }

    /// A person's words for how a row is met: "Cointreau for Triple sec", "Sugar and Water
    /// for Simple syrup (sugar and water, 1:1 by volume, …; keeps about a month in the fridge)"; `None` when the bottle is
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
                let (how, keeps) = match &prep.made_of {
                    Some(p) => (p.how.as_str(), p.keeps.as_str()),
                    None => ("", ""),
                };
                let name = &prep.name;
                Some(format!(
                    "{} for {name} ({how}; keeps {keeps})",
                    parts.join(" and ")
                ))
            }
            How::Rule { have, wanted } => Some(format!(
                "{} for {} (the household's rule)",
                self.entry(*have).name,
                self.entry(*wanted).name
            )),
            How::Substitute { used, row } => Some(format!(
                "{} for {row} (the recipe's substitute)",
                self.source_name(used)
            )),
        }
    }

    /// The name of what a shelf used: the bottle it has, whatever it stood in for.
    fn source_name<'v>(&'v self, how: &'v How) -> &'v str {
        match how {
            How::Staple(at)
            | How::Has(at)
            | How::StandsIn { have: at, .. }
            | How::Rule { have: at, .. } => &self.entry(*at).name,
            How::Made { prep, .. } => &self.entry(*prep).name,
            How::Own(name) => name,
            How::Substitute { used, .. } => self.source_name(used),
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
                either(alternatives.iter().map(|&at| self.entries[at].clone()))
            }
            Reading::Unknown(_) => self.vocabulary.meets(&self.shelf, reading),
        }
    }

    /// [`Vocabulary::meets_row`], from the table.
    pub fn meets_row(&self, row: &Row) -> Option<How> {
        let itself = match row.exact {
            true => self.vocabulary.meets_exact(&self.shelf, &row.reading),
            false => self.meets(&row.reading),
        };
        itself.or_else(|| self.vocabulary.meets_substitute(row, |r| self.meets(r)))
    }
}

/// "X or Y": the first alternative the shelf meets without a household rule, else the
/// first a rule meets (a rule is used only when the shelf lacks every one of them).
fn either(hows: impl Iterator<Item = Option<How>>) -> Option<How> {
    let mut by_rule = None;
    for how in hows.flatten() {
        match how {
            How::Rule { .. } => {
                by_rule.get_or_insert(how);
            }
            _ => return Some(how),
        }
    }
    by_rule
}
