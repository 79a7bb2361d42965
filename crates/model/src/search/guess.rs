//! Forgiving a typo: when a query finds nothing, the words it may have meant. A word of a
//! term that finds nothing is compared with every word of the recipes' names and of the
//! vocabulary's spellings (the [`Dictionary`], made once with the index); those within a
//! small edit distance ([`allowed`]) stand in for it, closest first. `static/js/guess.js`
//! does the same; the `guesses` cases of `tests/search-cases.json` hold both to it.

use crate::text::is_word_char;
use crate::vocabulary::Vocabulary;
use std::collections::BTreeSet;

/// The most guesses shown: the closest, the rest would be noise.
pub const MAX_GUESSES: usize = 10;

/// How far a word of `chars` characters may be from what was meant: none below 3, one
/// edit below 6 ("negorni" is one swap from "negroni"), two from 6 ("margerita").
pub fn allowed(chars: usize) -> usize {
    match chars {
        0..3 => 0,
        3..6 => 1,
        _ => 2,
    }
}

/// What a plain term (no field) that reads as a number's field but holds no number
/// (`abv:abc`, `rating:9`) needed, in words: said when the query finds nothing, where "No recipe
/// matches" alone would leave a person guessing. `guess.js`'s `misread` says the same;
/// the `misread` cases of `tests/search-cases.json` hold both to it.
pub fn misread(query: &super::SearchQuery) -> Option<String> {
    let plain = query.terms.iter().filter(|t| t.field.is_none());
    plain.map(|t| t.text.as_str()).find_map(|text| {
        let (field, rest) = text.split_once(':')?;
        let needs = match field {
            "abv" => "a number, as in abv:<=10, abv:>20 or abv:15",
            "drinks" => "a number, as in drinks:<=1 or drinks:>2",
            "rating" => "a number from 1 to 5, as in rating:>=4 or rating:5",
            _ => return None,
        };
        Some(match rest {
            "" => format!("{field}: takes {needs}."),
            _ => format!("{field}: takes {needs}; “{rest}” is not one."),
        })
    })
}

/// The words a typo is compared with: every word (letters and digits, 3 characters or
/// more) of the recipes' names and of the vocabulary's spellings, folded, each once.
#[derive(Debug, Clone, Default)]
pub struct Dictionary {
    /// Each word and its length in characters, sorted (so guesses of equal distance are
    /// in order).
    words: Vec<(Box<str>, usize)>,
}

impl Dictionary {
    /// From the folded names and the vocabulary's spellings.
    pub fn new<'a>(names: impl Iterator<Item = &'a str>, vocabulary: &'a Vocabulary) -> Dictionary {
        let mut words = BTreeSet::new();
        let spellings = vocabulary.spellings().map(|(s, _)| s);
        for text in names.chain(spellings) {
            for word in text.split(|c: char| !is_word_char(c)) {
                if word.chars().count() >= 3 {
                    words.insert(word);
                }
            }
        }
        let words = words.into_iter().map(|w| (w.into(), w.chars().count()));
        Dictionary {
            words: words.collect(),
        }
    }

    /// The words within [`allowed`] of `typed` (itself excluded), with their distance,
    /// closest first, then in order.
    pub fn near(&self, typed: &str) -> Vec<(String, usize)> {
        let chars: Vec<char> = typed.chars().collect();
        let most = allowed(chars.len());
        if most == 0 {
            return Vec::new();
        }
        let mut found: Vec<(String, usize)> = self
            .words
            .iter()
            .filter(|(w, len)| len.abs_diff(chars.len()) <= most && &**w != typed)
            .filter_map(|(w, _)| {
                let d = distance(&chars, &w.chars().collect::<Vec<_>>(), most)?;
                Some((w.to_string(), d))
            })
            .collect();
        found.sort_by_key(|(_, d)| *d);
        found
    }
}

/// The optimal-string-alignment distance (Damerau-Levenshtein: an insertion, a deletion,
/// a substitution or a swap of two neighbours is one edit) between `a` and `b`, if it is at
/// most `most`.
pub fn distance(a: &[char], b: &[char], most: usize) -> Option<usize> {
    let width = b.len() + 1;
    let mut rows = vec![vec![0usize; width]; a.len() + 1];
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    let mut before = 0;
    for i in 1..=a.len() {
        rows[i][0] = i;
        let mut best = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
            best = best.min(d);
        }
        // Later rows start from this one or (by a swap) the one before: past `most` in both,
        // nothing later comes back under it.
        if best > most && before > most {
            return None;
        }
        before = best;
    }
    Some(rows[a.len()][b.len()]).filter(|&d| d <= most)
}
