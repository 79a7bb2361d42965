//! Search: one definition of matching, shared in spirit with `static/js/rules.js`.
//!
//! Both sides fold text the same way (lower case, compatibility decomposition, marks
//! removed, typographic quotes and dashes made plain, white space collapsed), split the
//! query into terms that must all match, honour `field:value` and `"quoted phrases"`, match
//! a term only where a word starts (so "ice" finds "Crushed Ice" but not "Lime Juice"), and
//! put recipes whose name matches more terms first. `tests/search-cases.json` holds the
//! table that both implementations are tested against.

use crate::recipes::{Recipe, Recipes};
use memchr::memmem;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// The fields a term can be narrowed to with `field:value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Name,
    Base,
    Glass,
    Method,
    Ice,
    Ingredient,
    Garnish,
    Notes,
}

impl Field {
    pub const ALL: [Field; 8] = [
        Field::Name,
        Field::Base,
        Field::Glass,
        Field::Method,
        Field::Ice,
        Field::Ingredient,
        Field::Garnish,
        Field::Notes,
    ];

    /// The prefix as typed (already folded); plurals are accepted too.
    fn from_prefix(prefix: &str) -> Option<Field> {
        Some(match prefix {
            "name" => Field::Name,
            "base" => Field::Base,
            "glass" => Field::Glass,
            "method" => Field::Method,
            "ice" => Field::Ice,
            "ingredient" | "ingredients" => Field::Ingredient,
            "garnish" => Field::Garnish,
            "note" | "notes" => Field::Notes,
            _ => return None,
        })
    }
}

/// Folds text for matching: "Crème  de Cassis" → "creme de cassis".
pub fn fold(text: &str) -> String {
    // ASCII (most recipe text) neither decomposes nor lower-cases to anything else: skip
    // the Unicode steps, which dominate start-up for thousands of recipes.
    if text.is_ascii() {
        return fold_chars(text.len(), text.chars().map(|c| c.to_ascii_lowercase()));
    }
    // Decompose before and after lower-casing: "№" only becomes "No" once decomposed, and
    // lower-casing can itself produce marks ("İ" → "i̇"). rules.js does the same steps.
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

/// One query term: folded text, optionally narrowed to a field.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Term {
    pub field: Option<Field>,
    pub text: String,
}

/// A parsed query: every term must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    pub terms: Vec<Term>,
    /// Terms only the phone can answer (`can:make`, `missing:one`, `is:fav`: its shelf and
    /// favourites never leave it), in their canonical spelling. The server matches as if
    /// they were not there; `static/js/list.js` filters by them.
    pub device: Vec<&'static str>,
}

/// The most distinct terms a query may have. Every term is a scan of every recipe, so a
/// query of thousands of terms would hold a core for seconds; nobody at a bar types more
/// than a handful. Keep in step with rules.js (`tests/search-cases.json` holds the numbers).
pub const MAX_TERMS: usize = 16;
/// The longest term (or quoted phrase), in characters after folding.
pub const MAX_TERM_CHARS: usize = 100;

/// Why a query is refused rather than run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("A search can have at most {MAX_TERMS} different words; this one has {0}.")]
    TooManyTerms(usize),
    #[error("A search word can be at most {MAX_TERM_CHARS} characters long; one has {0}.")]
    TermTooLong(usize),
}

/// Device terms as typed (folded) → their canonical spelling. Keep in step with rules.js.
const DEVICE_TERMS: [(&str, &str); 7] = [
    ("can:make", "can:make"),
    ("missing:one", "missing:one"),
    ("missing:1", "missing:one"),
    ("is:fav", "is:fav"),
    ("is:favourite", "is:fav"),
    ("is:favorite", "is:fav"),
    ("is:starred", "is:fav"),
];

impl Query {
    /// Parses what the user typed. Never fails: odd input becomes plain terms.
    pub fn parse(input: &str) -> Query {
        let folded = fold(input);
        let chars: Vec<char> = folded.chars().collect();
        let mut terms = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut device = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == ' ' {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && chars[i] != ' ' && chars[i] != '"' {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if let Some(&(_, canonical)) = DEVICE_TERMS.iter().find(|(typed, _)| *typed == word) {
                if !device.contains(&canonical) {
                    device.push(canonical);
                }
                continue;
            }
            let (field, rest) = match word.split_once(':') {
                Some((prefix, rest)) => match Field::from_prefix(prefix) {
                    Some(field) => (Some(field), rest.to_owned()),
                    None => (None, word.clone()),
                },
                None => (None, word.clone()),
            };
            let text = if i < chars.len() && chars[i] == '"' && rest.is_empty() {
                // A phrase: `"old tom"` or `glass:"nick and nora"`; an unclosed one runs to the end.
                let open = i + 1;
                i = open;
                while i < chars.len() && chars[i] != '"' {
                    i += 1;
                }
                let phrase: String = chars[open..i].iter().collect();
                i += 1;
                phrase.trim().to_owned()
            } else {
                rest
            };
            let term = Term { field, text };
            // The same term twice asks nothing more: it counts once.
            if term.text.is_empty() || !seen.insert(term.clone()) {
                continue;
            }
            terms.push(term);
        }
        Query { terms, device }
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Parses `input` and refuses a query too large to run (see [`MAX_TERMS`]).
    pub fn parse_bounded(input: &str) -> Result<Query, QueryError> {
        let query = Query::parse(input);
        if query.terms.len() > MAX_TERMS {
            return Err(QueryError::TooManyTerms(query.terms.len()));
        }
        match query.terms.iter().map(|t| t.text.chars().count()).max() {
            Some(longest) if longest > MAX_TERM_CHARS => Err(QueryError::TermTooLong(longest)),
            _ => Ok(query),
        }
    }
}

/// Whether `needle` occurs in `hay` where a word starts: "lim" finds "Lime Juice" and
/// "ice" finds "Crushed Ice", but "ice" does not find "juice".
pub fn starts_a_word(hay: &str, needle: &str) -> bool {
    Needle::new(needle).starts_a_word(hay)
}

/// A query term's text with its substring searcher built once, for scanning thousands of
/// documents.
struct Needle<'q> {
    finder: memmem::Finder<'q>,
}

impl<'q> Needle<'q> {
    fn new(text: &'q str) -> Needle<'q> {
        Needle {
            finder: memmem::Finder::new(text.as_bytes()),
        }
    }

    /// [`starts_a_word`] with this needle.
    fn starts_a_word(&self, hay: &str) -> bool {
        let is_word = |c: char| c.is_alphabetic() || c.is_numeric();
        let bytes = hay.as_bytes();
        let mut from = 0;
        // Overlapping matches count ("aaa" in "aaaa" at 1), as in rules.js. A match of UTF-8
        // text in UTF-8 text always starts on a character boundary, so slicing is safe.
        while let Some(found) = self.finder.find(&bytes[from..]) {
            let at = from + found;
            if hay[..at].chars().next_back().is_none_or(|c| !is_word(c)) {
                return true;
            }
            from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
        }
        false
    }
}

/// The folded text of one recipe's fields, in [`Field::ALL`] order, one after the other
/// with a newline between two fields and between the values of a list field. Folded text
/// has no newlines (white space becomes one space) and neither has a query term, so a term
/// never matches across two values or two fields, and a newline, like the start of the
/// text, starts a word. Searching every field is then one scan of `text`.
#[derive(Debug, Clone)]
struct Doc {
    text: String,
    /// Where each field ends in `text` (it starts one byte after the previous one ends).
    ends: [usize; 8],
}

impl Doc {
    fn new(r: &Recipe) -> Doc {
        let mut text = String::new();
        let mut ends = [0; 8];
        let mut field = |i: usize, values: &mut dyn Iterator<Item = &str>| {
            if i > 0 {
                text.push('\n');
            }
            for (n, value) in values.enumerate() {
                if n > 0 {
                    text.push('\n');
                }
                text.push_str(&fold(value));
            }
            ends[i] = text.len();
        };
        field(0, &mut std::iter::once(r.name.as_str()));
        field(1, &mut r.base.iter().map(String::as_str));
        field(2, &mut r.glass.iter().map(String::as_str));
        field(3, &mut r.method.iter().map(String::as_str));
        field(4, &mut r.ice.iter().map(String::as_str));
        field(5, &mut r.ingredients.iter().map(|i| i.name.as_str()));
        field(6, &mut r.garnish.iter().map(String::as_str));
        field(7, &mut std::iter::once(r.notes.as_str()));
        Doc { text, ends }
    }

    fn field(&self, field: Field) -> &str {
        let i = field as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] + 1 };
        &self.text[start..self.ends[i]]
    }

    fn matches(&self, term: &Term, needle: &Needle) -> bool {
        match term.field {
            Some(f) => needle.starts_a_word(self.field(f)),
            None => needle.starts_a_word(&self.text),
        }
    }
}

/// A search index over a collection, built once when recipes load.
#[derive(Debug, Clone)]
pub struct Index {
    docs: Vec<Doc>,
}

impl Index {
    pub fn new(recipes: &Recipes) -> Index {
        Index {
            docs: recipes.all().iter().map(Doc::new).collect(),
        }
    }

    /// Positions (in `Recipes::all()` order) of the recipes matching every term, those
    /// whose name matches more terms first, otherwise in name order.
    pub fn search(&self, query: &Query) -> Vec<usize> {
        let terms: Vec<(&Term, Needle)> = query
            .terms
            .iter()
            .map(|t| (t, Needle::new(&t.text)))
            .collect();
        let mut hits: Vec<(usize, usize)> = self
            .docs
            .iter()
            .enumerate()
            .filter(|(_, doc)| terms.iter().all(|(t, needle)| doc.matches(t, needle)))
            .map(|(i, doc)| {
                let in_name = terms
                    .iter()
                    .filter(|(t, _)| matches!(t.field, None | Some(Field::Name)))
                    .filter(|(_, needle)| needle.starts_a_word(doc.field(Field::Name)))
                    .count();
                (i, in_name)
            })
            .collect();
        // Stable: equal scores keep name order.
        hits.sort_by_key(|hit| std::cmp::Reverse(hit.1));
        hits.into_iter().map(|(i, _)| i).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipes::Origin;
    use serde::Deserialize;
    use std::time::SystemTime;

    /// The table shared with the JavaScript side (`tests/search-cases.json`).
    #[derive(Deserialize)]
    struct Cases {
        recipes: serde_json::Value,
        cases: Vec<Case>,
        fold: Vec<(String, String)>,
        limits: Limits,
    }
    #[derive(Deserialize)]
    struct Limits {
        max_terms: usize,
        max_term_chars: usize,
        cases: Vec<LimitCase>,
    }
    #[derive(Deserialize)]
    struct LimitCase {
        #[serde(default)]
        query: String,
        repeat: Option<(String, usize)>,
        terms: Option<usize>,
        error: Option<String>,
    }
    #[derive(Deserialize)]
    struct Case {
        query: String,
        expect: Vec<String>,
    }

    fn cases() -> Cases {
        let text = include_str!("../tests/search-cases.json");
        serde_json::from_str(text).expect("tests/search-cases.json parses")
    }

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
    fn limits_table() {
        let limits = cases().limits;
        assert_eq!(
            (limits.max_terms, limits.max_term_chars),
            (MAX_TERMS, MAX_TERM_CHARS)
        );
        for case in limits.cases {
            let query = match &case.repeat {
                Some((text, n)) => text.repeat(*n),
                None => case.query.clone(),
            };
            let shown = &query[..query.len().min(40)];
            match (Query::parse_bounded(&query), case.terms, case.error) {
                (Ok(q), Some(n), None) => assert_eq!(q.terms.len(), n, "{shown:?}"),
                (Err(e), None, Some(want)) => assert_eq!(e.to_string(), want, "{shown:?}"),
                (got, terms, error) => panic!("{shown:?}: got {got:?}, want {terms:?} {error:?}"),
            }
        }
    }

    #[test]
    fn fold_table() {
        for (input, want) in cases().fold {
            assert_eq!(fold(&input), want, "fold({input:?})");
        }
    }

    #[test]
    fn search_table() {
        let table = cases();
        let text = table.recipes.to_string();
        let recipes = Recipes::parse(&text, Origin::Embedded, SystemTime::UNIX_EPOCH)
            .expect("fixture recipes are valid");
        let index = Index::new(&recipes);
        assert!(table.cases.len() >= 20);
        for case in table.cases {
            let got: Vec<&str> = index
                .search(&Query::parse(&case.query))
                .into_iter()
                .map(|i| recipes.all()[i].name.as_str())
                .collect();
            assert_eq!(got, case.expect, "query {:?}", case.query);
        }
    }

    /// The definition the index implements, field by field without any precomputation.
    fn reference_search(recipes: &Recipes, query: &Query) -> Vec<usize> {
        let naive = |hay: &str, needle: &str| {
            let is_word = |c: char| c.is_alphabetic() || c.is_numeric();
            let mut from = 0;
            while let Some(found) = hay[from..].find(needle) {
                let at = from + found;
                if hay[..at].chars().next_back().is_none_or(|c| !is_word(c)) {
                    return true;
                }
                from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
            }
            false
        };
        let join = |values: &[String]| {
            values
                .iter()
                .map(|v| fold(v))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for (i, r) in recipes.all().iter().enumerate() {
            let ingredients: Vec<String> = r.ingredients.iter().map(|i| i.name.clone()).collect();
            let fields = [
                fold(&r.name),
                join(&r.base),
                join(&r.glass),
                join(&r.method),
                join(&r.ice),
                join(&ingredients),
                join(&r.garnish),
                fold(&r.notes),
            ];
            let all = query.terms.iter().all(|t| match t.field {
                Some(f) => naive(&fields[f as usize], &t.text),
                None => fields.iter().any(|f| naive(f, &t.text)),
            });
            if all {
                let in_name = query
                    .terms
                    .iter()
                    .filter(|t| {
                        matches!(t.field, None | Some(Field::Name)) && naive(&fields[0], &t.text)
                    })
                    .count();
                hits.push((i, in_name));
            }
        }
        hits.sort_by_key(|hit| std::cmp::Reverse(hit.1));
        hits.into_iter().map(|(i, _)| i).collect()
    }

    #[test]
    fn index_agrees_with_the_field_by_field_definition() {
        let recipes = Recipes::sample().expect("the sample is valid");
        let index = Index::new(&recipes);
        let mut queries: Vec<String> = [
            "",
            "a",
            "e",
            "gin",
            "lime juice",
            "ice",
            "juice",
            "sugar syrup",
            "base:gin",
            "glass:coupe",
            "method:shake",
            "ice:cubed",
            "ingredient:lime",
            "garnish:lemon",
            "notes:a",
            "name:the",
            "\"old fashioned\"",
            "\"in\"",
            "ro",
            "n",
            "1",
            "ml",
            "gin\nlime",
            "zzz",
        ]
        .map(String::from)
        .to_vec();
        // Every word of every recipe name, and its first two letters, as a query.
        for r in recipes.all() {
            for word in fold(&r.name).split(' ') {
                queries.push(word.chars().take(2).collect());
                queries.push(word.to_owned());
            }
        }
        for q in queries {
            let query = Query::parse(&q);
            assert_eq!(
                index.search(&query),
                reference_search(&recipes, &query),
                "query {q:?}"
            );
        }
    }

    #[test]
    fn parses_fields_and_phrases() {
        let q =
            Query::parse(r#"base:Gin  "Old Tom" glass:"Nick & Nora" foo:bar ingredient: “lime”"#);
        let t = |field, text: &str| Term {
            field,
            text: text.into(),
        };
        assert_eq!(
            q.terms,
            [
                t(Some(Field::Base), "gin"),
                t(None, "old tom"),
                t(Some(Field::Glass), "nick & nora"),
                t(None, "foo:bar"),
                t(None, "lime"),
            ]
        );
        assert!(q.device.is_empty());
        let q = Query::parse("gin Can:Make is:favourite IS:FAV can:fly");
        assert_eq!(q.terms, [t(None, "gin"), t(None, "can:fly")]);
        assert_eq!(q.device, ["can:make", "is:fav"]);
        assert!(Query::parse("  ").is_empty());
        assert!(Query::parse("\"\"").is_empty());
    }
}
