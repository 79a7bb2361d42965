//! Text as people type it: folding for comparison, where words start, and the characters
//! that have no place in a recipe.
//!
//! Sorting recipes, searching them, naming a shelf's ingredients and picking a glass icon
//! all compare text the same way, so that "Crème de Cassis", "creme de cassis" and
//! "CRÈME  DE CASSIS" are one thing everywhere. `static/js/model.js` folds the same way;
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
pub(crate) struct WordStart {
    finder: memmem::Finder<'static>,
}

impl WordStart {
    pub(crate) fn new(needle: &str) -> WordStart {
        WordStart {
            finder: memmem::Finder::new(needle.as_bytes()).into_owned(),
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

/// A character no recipe text should hold, and where: a control character (C0, DEL, C1),
/// one that changes the direction text shows in (bidi embeddings, overrides, isolates and
/// marks: "abc" saved with U+202E shows as "cba" in every list), a byte-order mark, or a tag
/// character. None of them shows as itself; a NUL or an ESC in a name ends up in every page
/// and every JSON answer that lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invisible {
    /// The character's position, counted in characters from 1.
    pub at: usize,
    pub c: char,
}

/// The first character of `text` that [`Invisible`] describes. With `multiline` (notes),
/// line feeds and tabs are text.
pub fn invisible(text: &str, multiline: bool) -> Option<Invisible> {
    first(text, |c| {
        is_invisible(c) && !(multiline && matches!(c, '\n' | '\t'))
    })
}

/// As [`invisible`], for a one-line name (an ingredient on the shelf or in a strength, a
/// menu's title, a login, a person's name): also the zero-width characters that make two
/// names that look alike differ (U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER). Prose keeps
/// them: Thai and Khmer text puts U+200B between words.
pub fn invisible_in_name(text: &str) -> Option<Invisible> {
    first(text, |c| {
        is_invisible(c) || matches!(c, '\u{200b}' | '\u{2060}')
    })
}

/// The first character of `text` that `bad` is true of, and where.
fn first(text: &str, bad: impl Fn(char) -> bool) -> Option<Invisible> {
    // Printable ASCII, nearly all recipe text, holds none: one pass over the bytes.
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return None;
    }
    text.chars()
        .zip(1..)
        .find(|&(c, _)| bad(c))
        .map(|(c, at)| Invisible { at, c })
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// "U+202E RIGHT-TO-LEFT OVERRIDE at character 4": enough to find it in an editor.
impl std::fmt::Display for Invisible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "U+{:04X}", u32::from(self.c))?;
        if let Some(name) = char_name(self.c) {
            write!(f, " {name}")?;
        }
        write!(f, " at character {}", self.at)
    }
}

/// The Unicode name (or the usual alias, for controls) of the characters people meet.
fn char_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{0}' => "NULL",
        '\u{7}' => "BELL",
        '\u{8}' => "BACKSPACE",
        '\t' => "CHARACTER TABULATION",
        '\n' => "LINE FEED",
        '\u{b}' => "LINE TABULATION",
        '\u{c}' => "FORM FEED",
        '\r' => "CARRIAGE RETURN",
        '\u{1b}' => "ESCAPE",
        '\u{7f}' => "DELETE",
        '\u{85}' => "NEXT LINE",
        '\u{61c}' => "ARABIC LETTER MARK",
        '\u{200b}' => "ZERO WIDTH SPACE",
        '\u{200e}' => "LEFT-TO-RIGHT MARK",
        '\u{200f}' => "RIGHT-TO-LEFT MARK",
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{feff}' => "ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK)",
        '\u{e0001}' => "LANGUAGE TAG",
        '\u{e007f}' => "CANCEL TAG",
        '\u{e0020}'..='\u{e007e}' => "TAG CHARACTER",
        '\u{0}'..='\u{1f}' | '\u{80}'..='\u{9f}' => "(a control character)",
        _ => return None,
    })
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
    fn controls_bidi_and_invisible_characters_are_found_and_named() {
        let found = |text: &str, multiline| invisible(text, multiline).map(|i| i.to_string());
        for ok in [
            "Old Tom Gin",
            "Crème de Cassis",
            "",
            "👨\u{200d}🍳 zero-width joiner",
            "a\u{a0}b",
        ] {
            assert_eq!(found(ok, false), None, "{ok:?}");
        }
        assert_eq!(found("a\nb\tc", true), None, "notes keep lines and tabs");
        let cases = [
            ("a\u{0}", "U+0000 NULL at character 2"),
            ("\u{1b}[31m", "U+001B ESCAPE at character 1"),
            ("\u{7}", "U+0007 BELL at character 1"),
            ("x\u{1}", "U+0001 (a control character) at character 2"),
            ("\u{7f}", "U+007F DELETE at character 1"),
            ("\u{9b}", "U+009B (a control character) at character 1"),
            (
                "abc\u{202e}def",
                "U+202E RIGHT-TO-LEFT OVERRIDE at character 4",
            ),
            ("\u{202a}", "U+202A LEFT-TO-RIGHT EMBEDDING at character 1"),
            ("\u{2066}", "U+2066 LEFT-TO-RIGHT ISOLATE at character 1"),
            ("\u{2069}", "U+2069 POP DIRECTIONAL ISOLATE at character 1"),
            ("\u{200e}", "U+200E LEFT-TO-RIGHT MARK at character 1"),
            ("\u{200f}", "U+200F RIGHT-TO-LEFT MARK at character 1"),
            ("\u{61c}", "U+061C ARABIC LETTER MARK at character 1"),
            (
                "\u{feff}Gin",
                "U+FEFF ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK) at character 1",
            ),
            ("é\u{e0041}", "U+E0041 TAG CHARACTER at character 2"),
            ("\u{e0000}", "U+E0000 at character 1"),
            ("\u{e007f}", "U+E007F CANCEL TAG at character 1"),
            ("a\r\nb", "U+000D CARRIAGE RETURN at character 2"),
        ];
        for (text, want) in cases {
            assert_eq!(found(text, false).as_deref(), Some(want), "{text:?}");
            assert_eq!(
                found(text, true).as_deref(),
                Some(want),
                "{text:?} in notes"
            );
        }
        assert_eq!(
            found("a\tb", false).as_deref(),
            Some("U+0009 CHARACTER TABULATION at character 2")
        );
        assert_eq!(
            found("a\nb", false).as_deref(),
            Some("U+000A LINE FEED at character 2")
        );
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
