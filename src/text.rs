//! Text as people type it: folding for comparison, and where words start.
//!
//! Sorting recipes, searching them, naming a shelf's ingredients and picking a glass icon
//! all compare text the same way, so that "Crème de Cassis", "creme de cassis" and
//! "CRÈME  DE CASSIS" are one thing everywhere. `static/js/rules.js` folds the same way;
//! the `fold` table in `tests/search-cases.json` holds both to it.

use memchr::memmem;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Folds text for matching: "Crème  de Cassis" → "creme de cassis".
///
/// Lower case, compatibility decomposition, marks removed, typographic quotes and dashes
/// made plain, white space collapsed to one space and trimmed.
pub fn fold(text: &str) -> String {
    // ASCII (most recipe text) neither decomposes nor lower-cases to anything else: skip
    // the Unicode steps, which dominate start-up for thousands of recipes.
    if text.is_ascii() {
        return fold_chars(text.len(), text.chars().map(|c| c.to_ascii_lowercase()));
    }
    // Decompose before and after lower-casing: "№" only becomes "No" once decomposed, and
    // lower-casing can itself produce marks ("İ" → "i̇"). app.js does the same steps.
    let lowered = text.nfkd().collect::<String>().to_lowercase();
    fold_chars(text.len(), lowered.nfkd())
}

/// The steps of [`fold`] after decomposition and lower-casing.
fn fold_chars(len: usize, chars: impl Iterator<Item = char>) -> String {
    let mut out = String::with_capacity(len);
    let mut pending_space = false;
    for c in chars {
        if is_combining_mark(c) {
            continue;
        }
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '`' | '\u{B4}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            other => other,
        });
    }
    out
}

/// Whether `c` belongs to a word: a letter or a digit. Anything else (space, punctuation,
/// a newline between two values) ends one.
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphabetic() || c.is_numeric()
}

/// A piece of text to look for where a word starts, with its substring searcher built
/// once, for scanning thousands of documents: "lim" is found in "lime juice" and "ice" in
/// "crushed ice", but "ice" not in "juice".
pub(crate) struct WordStart<'q> {
    finder: memmem::Finder<'q>,
}

impl<'q> WordStart<'q> {
    pub(crate) fn new(needle: &'q str) -> WordStart<'q> {
        WordStart {
            finder: memmem::Finder::new(needle.as_bytes()),
        }
    }

    /// Whether the needle occurs in `hay` at the start of a word (or of `hay`).
    pub(crate) fn in_text(&self, hay: &str) -> bool {
        let bytes = hay.as_bytes();
        let mut from = 0;
        // Overlapping matches count ("aaa" in "aaaa" at 1), as in app.js. A match of UTF-8
        // text in UTF-8 text always starts on a character boundary, so slicing is safe.
        while let Some(found) = self.finder.find(&bytes[from..]) {
            let at = from + found;
            if hay[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !is_word_char(c))
            {
                return true;
            }
            from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_fast_path_matches_the_unicode_steps() {
        let slow = |text: &str| {
            let lowered = text.nfkd().collect::<String>().to_lowercase();
            fold_chars(text.len(), lowered.nfkd())
        };
        let all_ascii: String = (0u8..128).map(char::from).collect();
        for text in [
            all_ascii.as_str(),
            "  Old  Tom\tGin\n",
            "`Nick & Nora`\x0b\x0cCoupe\r",
            "",
        ] {
            assert_eq!(fold(text), slow(text), "{text:?}");
        }
    }

    #[test]
    fn a_match_counts_only_where_a_word_starts() {
        let cases = [
            ("lime juice", "lim", true),
            ("crushed ice", "ice", true),
            ("juice", "ice", false),
            ("juice\nice", "ice", true),
            ("x-ice", "ice", true),
            ("baaaa", "aaa", false),
            ("a aaaa", "aaa", true),
            ("crème", "me", false),
            ("1½ oz", "oz", true),
            ("", "", true),
        ];
        for (hay, needle, want) in cases {
            assert_eq!(
                WordStart::new(needle).in_text(hay),
                want,
                "{needle:?} in {hay:?}"
            );
        }
    }
}
