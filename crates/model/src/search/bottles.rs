//! Words read as bottles: a term the vocabulary knows matches any spelling of that bottle
//! or of anything more specific, as whole words ("gin" finds Old Tom Gin, not Ginger
//! beer; "whisky" and "whiskey" find the same); `has:bourbon` finds the recipes with a row
//! a bourbon would meet. Every spelling comes from `data/vocabulary.json`; the plural rule
//! is the one written here ([`singular`]) and in `static/js/vocabulary.js`, pinned by the
//! `bottles` cases of `tests/search-cases.json`.

use crate::ingredients::key;
use crate::text::is_word_char;
use crate::vocabulary::{At, Met, Reading, Shelf, Vocabulary};
use memchr::memmem;

/// The singular of a folded word (its last word, for a phrase), by one rule: "cherries" →
/// "cherry", "peaches" → "peach" (after ch, sh, s, x, z), "limes" → "lime"; not "glass"
/// ("ss"), not a word of three letters or fewer. `None` when the rule does not apply.
pub fn singular(text: &str) -> Option<String> {
    let last = text.rsplit(' ').next().unwrap_or(text);
    if last.chars().count() < 4 || !last.ends_with('s') || last.ends_with("ss") {
        return None;
    }
    let stem = &text[..text.len() - 1];
    if let Some(y) = stem.strip_suffix("ie") {
        return Some(format!("{y}y"));
    }
    let sibilant = |e: &str| {
        ["ch", "sh", "s", "x", "z"]
            .iter()
            .any(|end| e.ends_with(end))
    };
    if let Some(e) = stem.strip_suffix('e').filter(|e| sibilant(e)) {
        return Some(e.to_owned());
    }
    Some(stem.to_owned())
}

/// The entry a folded term names, itself or by its singular.
pub fn named(vocabulary: &Vocabulary, text: &str) -> Option<At> {
    vocabulary
        .spelled(&key(text))
        .or_else(|| singular(text).and_then(|one| vocabulary.spelled(&key(&one))))
}

/// A spelling to find as whole words: where a word starts, and ending where a word ends,
/// or with a plural "s" or "es" then (so "lime" is found in "2 limes").
pub(crate) struct WholeWord {
    finder: memmem::Finder<'static>,
    len: usize,
}

impl WholeWord {
    fn new(spelling: &str) -> WholeWord {
        WholeWord {
            finder: memmem::Finder::new(spelling.as_bytes()).into_owned(),
            len: spelling.len(),
        }
    }

    pub(crate) fn in_text(&self, hay: &str) -> bool {
        let mut from = 0;
        while let Some(found) = self.finder.find(&hay.as_bytes()[from..]) {
            let at = from + found;
            let starts = hay[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !is_word_char(c));
            if starts && ends_a_word(&hay[at + self.len..]) {
                return true;
            }
            from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
        }
        false
    }
}

/// Whether `rest` (what follows a match) ends the word: nothing, a character outside a
/// word, or a plural "s" or "es" and then either.
fn ends_a_word(rest: &str) -> bool {
    let ends = |r: &str| r.chars().next().is_none_or(|c| !is_word_char(c));
    ends(rest)
        || rest.strip_prefix('s').is_some_and(ends)
        || rest.strip_prefix("es").is_some_and(ends)
}

/// Every spelling of `at` and of anything more specific, as whole words, without those
/// another one already finds ("bourbon whiskey" once "whiskey" is there): shortest first,
/// then in byte order, so both sides keep the same ones.
pub(crate) fn spellings(vocabulary: &Vocabulary, at: At) -> Vec<WholeWord> {
    let mut all: Vec<&str> = vocabulary
        .spellings()
        .filter(|&(_, of)| vocabulary.is_a(of, at))
        .map(|(spelling, _)| spelling)
        .collect();
    all.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    let mut kept: Vec<(&str, WholeWord)> = Vec::new();
    for spelling in all {
        if !kept.iter().any(|(_, w)| w.in_text(spelling)) {
            kept.push((spelling, WholeWord::new(spelling)));
        }
    }
    kept.into_iter().map(|(_, w)| w).collect()
}

/// What `has:<bottle>` asks of a row: that a shelf of that bottle alone meets it and an
/// empty shelf does not (water and ice are met by every shelf, and say nothing).
pub struct Has<'v> {
    with: Met<'v>,
    without: Met<'v>,
}

impl<'v> Has<'v> {
    pub fn new(vocabulary: &'v Vocabulary, at: At) -> Has<'v> {
        let name = vocabulary.entry(at).name.as_str();
        Has {
            with: Met::new(vocabulary, Shelf::new(vocabulary, [name])),
            without: Met::new(vocabulary, Shelf::default()),
        }
    }

    pub fn meets(&self, reading: &Reading) -> bool {
        self.with.meets(reading).is_some() && self.without.meets(reading).is_none()
    }
}
