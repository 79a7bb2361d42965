//! Search: one definition of matching, shared in spirit with `static/js/model.js`.
//!
//! Both sides fold text the same way (lower case, compatibility decomposition, marks
//! removed, typographic quotes and dashes made plain, white space collapsed), split the
//! query into terms that must all match, honour `field:value` and `"quoted phrases"`, match
//! a term only where a word starts (so "ice" finds "Crushed Ice" but not "Lime Juice"), and
//! put recipes whose name matches more terms first. `tests/search-cases.json` holds the
//! table that both implementations are tested against.
//!
//! Some terms depend on who is asking ([`Personal`]: `is:fav`, `can:make`, `rating:>=4`,
//! `made:never` …). They are never matched against recipe text and never count towards
//! [`MAX_TERMS`]: [`Index::search_for`] answers them from a person's [`Asker`], and without
//! one (an unknown visitor, a page made for everyone) they are left out and every other
//! term still applies.
//!
//! A term the vocabulary knows is read as a bottle (any spelling of it or of anything more
//! specific, as whole words: `bottles`), plurals fold by one rule ([`singular`]),
//! `has:bourbon` finds what a bourbon can make, and a query that finds nothing gets the
//! recipes its words may have meant ([`Index::guesses`], `guess`).
//!
//! Its rooms: `mod` (a query: its terms, fields, sort, parsing and limits), `terms` (the
//! terms that compare a figure or ask about the person, and what a person lends a search,
//! [`Asker`]), `bottles` (words read through the vocabulary), `guess` (the edit distance and
//! the words a typo is compared with), `index` (the folded text of every recipe, the search
//! itself and the guesses).

mod bottles;
mod guess;
mod index;
mod terms;
#[cfg(test)]
mod tests;

pub use bottles::singular;
pub use guess::{MAX_GUESSES, allowed, distance, misread};
pub use index::Index;
pub use terms::{Asker, Cmp, Figure, Measure, Personal, RECENT_MS};

use crate::recipes::{IngredientLine, Recipe};
use crate::text::fold;
use compact_str::CompactString;

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
    pub(crate) const ALL: [Field; 8] = [
        Field::Name,
        Field::Base,
        Field::Glass,
        Field::Method,
        Field::Ice,
        Field::Ingredient,
        Field::Garnish,
        Field::Notes,
    ];

    /// Where the field is in [`Field::ALL`] (its declaration order).
    fn position(self) -> usize {
        self as usize
    }

    /// The recipe's values of this field, as written.
    fn values(self, r: &Recipe) -> impl Iterator<Item = &str> {
        let (texts, lines): (&[CompactString], &[IngredientLine]) = match self {
            Field::Name => (std::slice::from_ref(&r.name), &[]),
            Field::Base => (&r.base, &[]),
            Field::Glass => (&r.glass, &[]),
            Field::Method => (&r.method, &[]),
            Field::Ice => (&r.ice, &[]),
            Field::Ingredient => (&[], &r.ingredients),
            Field::Garnish => (&r.garnish, &[]),
            Field::Notes => (std::slice::from_ref(&r.notes), &[]),
        };
        let names = lines.iter().map(|line| line.name.as_str());
        texts.iter().map(CompactString::as_str).chain(names)
    }

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

/// One query term: folded text, optionally narrowed to a field.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Term {
    pub field: Option<Field>,
    pub text: String,
}

/// A parsed query: every term must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchQuery {
    pub terms: Vec<Term>,
    /// The terms that depend on who is asking, each once, in the order typed. Only
    /// [`Index::search_for`] with a [`Asker`] matches them; `static/js/list.js` does on the
    /// phone, from what it knows.
    pub personal: Vec<Personal>,
    /// `abv:<10`, `drinks:<=1` …: compared with each recipe's strength
    /// ([`crate::strength`]); a recipe with no figures never matches one.
    pub figures: Vec<Figure>,
    /// `sort:abv` (lightest first) or `sort:-abv` (strongest first): the hits in order of
    /// strength instead of name, recipes with no figures last.
    pub sort: Option<Sort>,
    /// `has:bourbon`: the words after `has:`, folded, each once. A bottle or kind the
    /// vocabulary knows finds the recipes with a row that bottle would meet; any other word
    /// is an ingredient word (`ingredient:word`). Each counts as a word towards the limits.
    pub has: Vec<String>,
}

/// The order `sort:` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sort {
    Lightest,
    Strongest,
}

impl Sort {
    /// `sort:abv`, `sort:-abv` (folded); anything else after `sort:` is a plain term.
    fn parse(word: &str) -> Option<Sort> {
        match word {
            "sort:abv" => Some(Sort::Lightest),
            "sort:-abv" => Some(Sort::Strongest),
            _ => None,
        }
    }
}

/// The most distinct terms a query may have. Every term is a scan of every recipe, so a
/// query of thousands of terms would hold a core for seconds; nobody at a bar types more
/// than a handful. Keep in step with model.js (`tests/search-cases.json` holds the numbers).
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

impl SearchQuery {
    /// Parses what the user typed. Never fails: odd input becomes plain terms.
    pub fn parse(input: &str) -> SearchQuery {
        let folded = fold(input);
        let chars: Vec<char> = folded.chars().collect();
        let mut terms = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut personal = Vec::new();
        let mut figures = Vec::new();
        let mut sort = None;
        let mut has = Vec::new();
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
            if let Some(order) = Sort::parse(&word) {
                sort = Some(order);
                continue;
            }
            if let Some(figure) = Figure::parse(&word) {
                if !figures.contains(&figure) {
                    figures.push(figure);
                }
                continue;
            }
            if let Some(bottle) = word.strip_prefix("has:").filter(|b| !b.is_empty()) {
                if !has.iter().any(|h| h == bottle) {
                    has.push(bottle.to_owned());
                }
                continue;
            }
            if let Some(term) = Personal::parse(&word) {
                if !personal.contains(&term) {
                    personal.push(term);
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
        SearchQuery {
            terms,
            personal,
            figures,
            sort,
            has,
        }
    }

    /// Whether there is nothing to match against recipes (personal terms aside).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
            && self.figures.is_empty()
            && self.sort.is_none()
            && self.has.is_empty()
    }

    /// Parses `input` and refuses a query too large to run (see [`MAX_TERMS`]).
    pub fn parse_bounded(input: &str) -> Result<SearchQuery, QueryError> {
        let query = SearchQuery::parse(input);
        let words = query.terms.len() + query.has.len();
        if words > MAX_TERMS {
            return Err(QueryError::TooManyTerms(words));
        }
        let texts = query.terms.iter().map(|t| t.text.as_str());
        let has = query.has.iter().map(|h| h.as_str());
        match texts.chain(has).map(|t| t.chars().count()).max() {
            Some(longest) if longest > MAX_TERM_CHARS => Err(QueryError::TermTooLong(longest)),
            _ => Ok(query),
        }
    }
}
