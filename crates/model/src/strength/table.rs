//! The built-in strengths: each bottle's `abv` in the vocabulary (`data/vocabulary.json`,
//! [`crate::vocabulary`]), and how a row's name finds the bottle it counts at.
//!
//! Why through the vocabulary: one table names every bottle, its spellings and its
//! strength, so a spelling the shelf understands is one the strength understands too, and
//! a bottle without a figure of its own (Lagavulin) counts at its kind's (Islay Scotch).

use crate::vocabulary::{Abv, Vocabulary};

/// The strengths the vocabulary gives its bottles.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    vocabulary: &'static Vocabulary,
}

impl Table {
    /// The table compiled into the binary (the built-in vocabulary's figures).
    pub fn built_in() -> &'static Table {
        static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| Table {
            vocabulary: Vocabulary::built_in(),
        })
    }

    /// Every figure, with the name of the bottle it is given to.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Abv)> {
        let entries = self.vocabulary.entries().iter();
        entries.filter_map(|e| e.abv.as_ref().map(|abv| (e.name.as_str(), abv)))
    }

    /// The strength for a shelf name ([`crate::ingredients::key`]) and the bottle whose
    /// figure it is. The name is read as the vocabulary spells bottles: whole; by its first
    /// alternative (`rye whiskey or bourbon`); by its longest ending of whole words (`islay
    /// scotch whiskey` → `scotch whiskey`); by its longest beginning (`tequila 100% agave` →
    /// `tequila`). The bottle found counts at its own figure, else its nearest kind's.
    pub fn find<'t>(&'t self, key: &str) -> Option<(&'t str, &'t Abv)> {
        let key = key.split(" or ").next().unwrap_or(key).trim();
        let words: Vec<&str> = key.split(' ').filter(|w| !w.is_empty()).collect();
        let endings = (0..words.len()).map(|from| words[from..].join(" "));
        let beginnings = (1..words.len()).rev().map(|to| words[..to].join(" "));
        endings.chain(beginnings).find_map(|candidate| {
            let at = self.vocabulary.spelled(&candidate)?;
            let (giver, abv) = self.vocabulary.abv(at)?;
            Some((self.vocabulary.entry(giver).name.as_str(), abv))
        })
    }
}
