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

use crate::ingredients::Needs;
use crate::recipes::{IngredientLine, Recipe, Recipes};
use crate::strength::Strengths;
use crate::text::{WordStart, fold};
use compact_str::CompactString;
use std::collections::{HashMap, HashSet};
use std::fmt;

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

/// Which figure a [`Figure`] term compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Measure {
    /// `abv:`: % alcohol by volume in the glass.
    Abv,
    /// `drinks:`: standard drinks of 10 g.
    Drinks,
}

/// `abv:<10`, `abv:>=25`, `abv:18`, `drinks:<=1` (a number, a decimal point allowed, `%`
/// allowed after an ABV): the recipe's figure compared with it. Without a comparison it is
/// the figure as shown: ABV to the whole per cent, drinks to one decimal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    pub measure: Measure,
    pub cmp: Cmp,
    pub value: f64,
}

// A parsed value is a finite number (digits and a point), never NaN: equality is total.
impl Eq for Figure {}

impl Figure {
    /// The figure term a folded word is, if it is one; anything else (`abv:abc`) is a
    /// plain term. Keep in step with model.js's `figureTerm`.
    pub fn parse(word: &str) -> Option<Figure> {
        let (measure, rest) = if let Some(rest) = word.strip_prefix("abv:") {
            (Measure::Abv, rest.strip_suffix('%').unwrap_or(rest))
        } else {
            (Measure::Drinks, word.strip_prefix("drinks:")?)
        };
        let (cmp, n) = Cmp::SYMBOLS
            .iter()
            .find_map(|&(symbol, cmp)| rest.strip_prefix(symbol).map(|n| (cmp, n)))?;
        let (whole, fraction) = n.split_once('.').unwrap_or((n, "0"));
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || !digits(fraction) {
            return None;
        }
        let value = n.parse().ok()?;
        Some(Figure {
            measure,
            cmp,
            value,
        })
    }

    /// Whether a recipe with these figures (`abv`, `drinks`) passes.
    fn passes(&self, figures: Option<(f64, f64)>) -> bool {
        let Some((abv, drinks)) = figures else {
            return false;
        };
        let (got, shown) = match self.measure {
            Measure::Abv => (abv, abv.round()),
            Measure::Drinks => (drinks, (drinks * 10.0).round() / 10.0),
        };
        let v = self.value;
        match self.cmp {
            Cmp::Eq => (shown - v).abs() < 1e-9,
            Cmp::Lt => got < v,
            Cmp::Le => got <= v,
            Cmp::Gt => got > v,
            Cmp::Ge => got >= v,
        }
    }
}

/// A term answered from who is asking rather than from the recipe's text. Its
/// [`Display`](fmt::Display) is its canonical spelling (what the page shows, and what a
/// cache key can hold); model.js's `personalTerm` gives the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Personal {
    /// `is:fav` (or `is:favourite`, `is:favorite`, `is:starred`): one of their favourites.
    Fav,
    /// `can:make`: nothing the recipe needs is missing from the shelf.
    CanMake,
    /// `missing:one` (or `missing:1`): exactly one thing is.
    MissingOne,
    /// `rating:N`, `rating:>=N`, `rating:>N`, `rating:<=N`, `rating:<N` (N from 1 to 5):
    /// their own rating compared with N. An unrated recipe never matches.
    Rating(Cmp, u8),
    /// `made:never`: no "made one" entry for the recipe.
    MadeNever,
    /// `made:recent`: the last "made one" entry is at most [`RECENT_MS`] before now.
    MadeRecent,
}

/// How `rating:` compares a recipe's stars with the number typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// Each with its symbol, longest first so that `>=` is not read as `>` and `=4`.
    const SYMBOLS: [(&'static str, Cmp); 5] = [
        (">=", Cmp::Ge),
        ("<=", Cmp::Le),
        (">", Cmp::Gt),
        ("<", Cmp::Lt),
        ("", Cmp::Eq),
    ];

    fn symbol(self) -> &'static str {
        Cmp::SYMBOLS
            .iter()
            .find(|(_, cmp)| *cmp == self)
            .map_or("", |(symbol, _)| symbol)
    }

    fn holds(self, stars: u8, n: u8) -> bool {
        match self {
            Cmp::Eq => stars == n,
            Cmp::Lt => stars < n,
            Cmp::Le => stars <= n,
            Cmp::Gt => stars > n,
            Cmp::Ge => stars >= n,
        }
    }
}

/// How long ago a "made one" entry may be for `made:recent`: 30 days, the bound included.
pub const RECENT_MS: u64 = 30 * 24 * 60 * 60 * 1000;

/// Personal terms spelt one way, as typed (folded) → the term. Keep in step with model.js.
const PERSONAL_WORDS: [(&str, Personal); 9] = [
    ("can:make", Personal::CanMake),
    ("missing:one", Personal::MissingOne),
    ("missing:1", Personal::MissingOne),
    ("is:fav", Personal::Fav),
    ("is:favourite", Personal::Fav),
    ("is:favorite", Personal::Fav),
    ("is:starred", Personal::Fav),
    ("made:never", Personal::MadeNever),
    ("made:recent", Personal::MadeRecent),
];

impl Personal {
    /// The personal term a folded word is, if it is one; anything else (`rating:9`,
    /// `rating:abc`, `made:often`) is a plain term, as odd input always is.
    pub fn parse(word: &str) -> Option<Personal> {
        if let Some(&(_, term)) = PERSONAL_WORDS.iter().find(|(typed, _)| *typed == word) {
            return Some(term);
        }
        let rest = word.strip_prefix("rating:")?;
        let (cmp, n) = Cmp::SYMBOLS
            .iter()
            .find_map(|&(symbol, cmp)| rest.strip_prefix(symbol).map(|n| (cmp, n)))?;
        match n.as_bytes() {
            &[digit @ b'1'..=b'5'] => Some(Personal::Rating(cmp, digit - b'0')),
            _ => None,
        }
    }

    /// Whether the recipe `id` passes for `mine`; `gaps`: how many of its needs the shelf
    /// lacks, `None` without a shelf, when the shelf's terms pass (they are left out).
    fn passes(self, id: u64, gaps: Option<usize>, mine: &Asker) -> bool {
        match self {
            Personal::Fav => mine.favourites.contains(&id),
            Personal::CanMake => gaps.is_none_or(|n| n == 0),
            Personal::MissingOne => gaps.is_none_or(|n| n == 1),
            Personal::Rating(cmp, n) => mine.ratings.get(&id).is_some_and(|&s| cmp.holds(s, n)),
            Personal::MadeNever => !mine.last_made.contains_key(&id),
            // An entry after `now` (another device's clock) was made now.
            Personal::MadeRecent => mine
                .last_made
                .get(&id)
                .is_some_and(|&at| mine.now_ms.saturating_sub(at) <= RECENT_MS),
        }
    }

    fn needs_shelf(self) -> bool {
        matches!(self, Personal::CanMake | Personal::MissingOne)
    }
}

impl fmt::Display for Personal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Personal::Fav => f.write_str("is:fav"),
            Personal::CanMake => f.write_str("can:make"),
            Personal::MissingOne => f.write_str("missing:one"),
            Personal::Rating(cmp, n) => write!(f, "rating:{}{n}", cmp.symbol()),
            Personal::MadeNever => f.write_str("made:never"),
            Personal::MadeRecent => f.write_str("made:recent"),
        }
    }
}

/// What personal terms need to know about who is asking, lent for one search. Recipe ids
/// are never reused (docs/HOUSEHOLD.md), so an id kept for a deleted recipe matches nothing.
#[derive(Debug, Clone, Copy)]
pub struct Asker<'a> {
    pub favourites: &'a HashSet<u64>,
    /// Recipe id → their stars, 1 to 5.
    pub ratings: &'a HashMap<u64, u8>,
    /// Recipe id → their latest "made one" entry, in ms since the Unix epoch.
    pub last_made: &'a HashMap<u64, u64>,
    /// Now, in ms since the Unix epoch (`made:recent` counts back from it).
    pub now_ms: u64,
    /// The bar's shelf (a set of `ingredients::key`s); `None` leaves `can:make` and
    /// `missing:one` out rather than have them match nothing.
    pub shelf: Option<&'a HashSet<String>>,
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
        }
    }

    /// Whether there is nothing to match against recipes (personal terms aside).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.figures.is_empty() && self.sort.is_none()
    }

    /// Parses `input` and refuses a query too large to run (see [`MAX_TERMS`]).
    pub fn parse_bounded(input: &str) -> Result<SearchQuery, QueryError> {
        let query = SearchQuery::parse(input);
        if query.terms.len() > MAX_TERMS {
            return Err(QueryError::TooManyTerms(query.terms.len()));
        }
        match query.terms.iter().map(|t| t.text.chars().count()).max() {
            Some(longest) if longest > MAX_TERM_CHARS => Err(QueryError::TermTooLong(longest)),
            _ => Ok(query),
        }
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
    /// Where each field ends in `text` (it starts one byte after the previous one ends),
    /// at the field's [`Field::position`].
    ends: [usize; Field::ALL.len()],
}

impl Doc {
    fn new(r: &Recipe) -> Doc {
        let mut doc = Doc {
            text: String::new(),
            ends: [0; Field::ALL.len()],
        };
        for field in Field::ALL {
            if field.position() > 0 {
                doc.text.push('\n');
            }
            for (n, value) in field.values(r).enumerate() {
                if n > 0 {
                    doc.text.push('\n');
                }
                doc.text.push_str(&fold(value));
            }
            doc.ends[field.position()] = doc.text.len();
        }
        // Growth by doubling leaves up to half of the text unused for as long as the
        // collection is loaded: 330 KiB of the index's 2 MiB at 5,000 recipes. (The folded
        // values pushed here are dropped at once; nothing else in a Doc has spare room.)
        doc.text.shrink_to_fit();
        doc
    }

    fn field(&self, field: Field) -> &str {
        let i = field.position();
        let start = if i == 0 { 0 } else { self.ends[i - 1] + 1 };
        &self.text[start..self.ends[i]]
    }

    fn matches(&self, term: &Term, needle: &WordStart) -> bool {
        match term.field {
            Some(f) => needle.in_text(self.field(f)),
            None => needle.in_text(&self.text),
        }
    }
}

/// A search index over a collection, built once when recipes load.
#[derive(Debug, Clone)]
pub struct Index {
    docs: Vec<Doc>,
    /// Each recipe's id, in `Recipes::all()` order: what personal terms look up.
    ids: Vec<u64>,
    /// What each recipe needs from a shelf, for `can:make` and `missing:one` (and for
    /// `ingredients::analyse`, through [`Index::needs`]).
    needs: Needs,
    /// Each recipe's ABV and standard drinks, for `abv:` and `drinks:`; `None`: no figures.
    figures: Vec<Option<(f64, f64)>>,
}

impl Index {
    /// The index, with each recipe's strength worked out against the built-in table.
    pub fn new(recipes: &Recipes) -> Index {
        let strengths = Strengths::new(recipes, &Default::default());
        Index::with_strengths(recipes, &strengths)
    }

    /// The index, with the strengths already worked out for the collection.
    pub fn with_strengths(recipes: &Recipes, strengths: &Strengths) -> Index {
        let figures = (0..recipes.len())
            .map(|i| {
                let s = strengths.at(i)?;
                Some((s.abv?, s.standard_drinks?))
            })
            .collect();
        Index {
            docs: recipes.all().iter().map(Doc::new).collect(),
            ids: recipes.all().iter().map(|r| r.id).collect(),
            needs: Needs::new(recipes),
            figures,
        }
    }

    /// The collection's needs, read once with the index.
    pub fn needs(&self) -> &Needs {
        &self.needs
    }

    /// [`Index::search`], keeping only the recipes that pass every personal term for
    /// `mine`. Without `mine` personal terms are left out, as [`Index::search`] leaves them.
    pub fn search_for(&self, query: &SearchQuery, mine: Option<&Asker>) -> Vec<usize> {
        let hits = self.search(query);
        let Some(mine) = mine.filter(|_| !query.personal.is_empty()) else {
            return hits;
        };
        let stocked = match mine.shelf {
            Some(shelf) if query.personal.iter().any(|p| p.needs_shelf()) => {
                Some(self.needs.stocked(shelf))
            }
            _ => None,
        };
        hits.into_iter()
            .filter(|&i| {
                let gaps = stocked.as_ref().map(|s| s.gaps(i));
                let passes = |&id: &u64| query.personal.iter().all(|p| p.passes(id, gaps, mine));
                self.ids.get(i).is_some_and(passes)
            })
            .collect()
    }

    /// Positions (in `Recipes::all()` order) of the recipes matching every term, those
    /// whose name matches more terms first, otherwise in name order. Personal terms are
    /// left out ([`Index::search_for`] answers them).
    pub fn search(&self, query: &SearchQuery) -> Vec<usize> {
        let terms: Vec<(&Term, WordStart)> = query
            .terms
            .iter()
            .map(|t| (t, WordStart::new(&t.text)))
            .collect();
        let mut hits: Vec<(usize, usize)> = self
            .docs
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let figures = self.figures.get(*i).copied().flatten();
                query.figures.iter().all(|f| f.passes(figures))
            })
            .filter(|(_, doc)| terms.iter().all(|(t, needle)| doc.matches(t, needle)))
            .map(|(i, doc)| {
                let in_name = terms
                    .iter()
                    .filter(|(t, _)| matches!(t.field, None | Some(Field::Name)))
                    .filter(|(_, needle)| needle.in_text(doc.field(Field::Name)))
                    .count();
                (i, in_name)
            })
            .collect();
        // Stable: equal scores keep name order.
        match query.sort {
            None => hits.sort_by_key(|hit| std::cmp::Reverse(hit.1)),
            Some(order) => {
                let abv = |i: usize| self.figures.get(i).copied().flatten().map(|f| f.0);
                hits.sort_by(|a, b| match (abv(a.0), abv(b.0)) {
                    (Some(x), Some(y)) if order == Sort::Lightest => x.total_cmp(&y),
                    (Some(x), Some(y)) => y.total_cmp(&x),
                    (x, y) => y.is_some().cmp(&x.is_some()),
                });
            }
        }
        hits.into_iter().map(|(i, _)| i).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingredients::key;
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
        personal: PersonalCases,
    }
    #[derive(Deserialize)]
    struct PersonalCases {
        mines: HashMap<String, MineCase>,
        cases: Vec<PersonalCase>,
    }
    /// A [`Asker`] as the table writes it (ids as JSON object keys, a shelf of names).
    #[derive(Deserialize)]
    struct MineCase {
        favourites: HashSet<u64>,
        ratings: HashMap<u64, u8>,
        last_made: HashMap<u64, u64>,
        now: u64,
        shelf: Option<Vec<String>>,
    }
    #[derive(Deserialize)]
    struct PersonalCase {
        query: String,
        mine: Option<String>,
        expect: Vec<String>,
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
        let text = include_str!("../../../tests/search-cases.json");
        serde_json::from_str(text).expect("tests/search-cases.json parses")
    }

    #[test]
    fn field_positions_follow_all() {
        for (i, field) in Field::ALL.into_iter().enumerate() {
            assert_eq!(field.position(), i, "{field:?}");
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
            match (SearchQuery::parse_bounded(&query), case.terms, case.error) {
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
                .search(&SearchQuery::parse(&case.query))
                .into_iter()
                .map(|i| recipes.all()[i].name.as_str())
                .collect();
            assert_eq!(got, case.expect, "query {:?}", case.query);
        }
    }

    #[test]
    fn personal_table() {
        let table = cases();
        let text = table.recipes.to_string();
        let recipes = Recipes::parse(&text, Origin::Embedded, SystemTime::UNIX_EPOCH)
            .expect("fixture recipes are valid");
        let index = Index::new(&recipes);
        let shelves: HashMap<&str, Option<HashSet<String>>> = table
            .personal
            .mines
            .iter()
            .map(|(name, m)| {
                let shelf = m.shelf.as_ref().map(|s| s.iter().map(|n| key(n)).collect());
                (name.as_str(), shelf)
            })
            .collect();
        assert!(table.personal.cases.len() >= 30);
        for case in &table.personal.cases {
            let mine = case.mine.as_deref().map(|name| {
                let m = &table.personal.mines[name];
                Asker {
                    favourites: &m.favourites,
                    ratings: &m.ratings,
                    last_made: &m.last_made,
                    now_ms: m.now,
                    shelf: shelves[name].as_ref(),
                }
            });
            let got: Vec<&str> = index
                .search_for(&SearchQuery::parse(&case.query), mine.as_ref())
                .into_iter()
                .map(|i| recipes.all()[i].name.as_str())
                .collect();
            assert_eq!(
                got, case.expect,
                "query {:?}, mine {:?}",
                case.query, case.mine
            );
        }
    }

    #[test]
    fn personal_terms_parse_and_spell_themselves() {
        let spelt = |q: &str| -> Vec<String> {
            SearchQuery::parse(q)
                .personal
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            spelt("RATING:>=4 rating:>4 rating:4 rating:<=4 rating:<4 made:never made:recent"),
            [
                "rating:>=4",
                "rating:>4",
                "rating:4",
                "rating:<=4",
                "rating:<4",
                "made:never",
                "made:recent"
            ]
        );
        assert_eq!(
            spelt("is:starred missing:1 can:make is:fav"),
            ["is:fav", "missing:one", "can:make"]
        );
        for plain in [
            "rating:0",
            "rating:6",
            "rating:abc",
            "rating:=4",
            "rating:>=",
            "rating:",
            "rating:45",
            "rating:+4",
            "made:often",
        ] {
            let q = SearchQuery::parse(plain);
            assert!(q.personal.is_empty(), "{plain:?} is a plain term");
            assert_eq!(q.terms.len(), 1, "{plain:?}");
        }
        // Each canonical spelling reads back as itself.
        for (word, term) in PERSONAL_WORDS {
            assert_eq!(Personal::parse(&term.to_string()), Some(term), "{word}");
        }
    }

    /// The definition the index implements, field by field without any precomputation.
    fn reference_search(recipes: &Recipes, query: &SearchQuery) -> Vec<usize> {
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
        let join = |values: &[CompactString]| {
            values
                .iter()
                .map(|v| fold(v))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for (i, r) in recipes.all().iter().enumerate() {
            let ingredients: Vec<CompactString> =
                r.ingredients.iter().map(|i| i.name.clone()).collect();
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
            let query = SearchQuery::parse(&q);
            assert_eq!(
                index.search(&query),
                reference_search(&recipes, &query),
                "query {q:?}"
            );
        }
    }

    #[test]
    fn parses_fields_and_phrases() {
        let q = SearchQuery::parse(
            r#"base:Gin  "Old Tom" glass:"Nick & Nora" foo:bar ingredient: “lime”"#,
        );
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
        assert!(q.personal.is_empty());
        let q = SearchQuery::parse("gin Can:Make is:favourite IS:FAV can:fly");
        assert_eq!(q.terms, [t(None, "gin"), t(None, "can:fly")]);
        assert_eq!(q.personal, [Personal::CanMake, Personal::Fav]);
        assert!(SearchQuery::parse("  ").is_empty());
        assert!(SearchQuery::parse("\"\"").is_empty());
    }

    /// `figures` in `tests/search-cases.json`: `abv:` and `drinks:` over the recipes of
    /// `tests/strength-cases.json` (shared with `tests/js/search.test.mjs`).
    #[test]
    fn the_shared_figures_table() {
        #[derive(Deserialize)]
        struct File {
            figures: Figures,
        }
        #[derive(Deserialize)]
        struct Figures {
            cases: Vec<FigureCase>,
        }
        #[derive(Deserialize)]
        struct FigureCase {
            query: String,
            expect: Vec<u64>,
        }
        let file: File = serde_json::from_str(include_str!("../../../tests/search-cases.json"))
            .expect("tests/search-cases.json parses");
        let cases = crate::strength::tests::cases();
        let mut household = crate::strength::Household::new();
        let mut list = Vec::new();
        for (_, recipe, own, _) in cases {
            household.extend(own);
            list.push(serde_json::to_value(&recipe).expect("serialises"));
        }
        let recipes = Recipes::parse(
            &serde_json::Value::Array(list).to_string(),
            Origin::Embedded,
            SystemTime::UNIX_EPOCH,
        )
        .expect("valid");
        let strengths = Strengths::new(&recipes, &household);
        let index = Index::with_strengths(&recipes, &strengths);
        assert!(file.figures.cases.len() >= 8);
        for c in file.figures.cases {
            let got: Vec<u64> = index
                .search(&SearchQuery::parse(&c.query))
                .into_iter()
                .map(|i| recipes.all()[i].id)
                .collect();
            assert_eq!(got, c.expect, "query {:?}", c.query);
        }
        let plain = SearchQuery::parse("abv:abc abv:< drinks:-1 abv:1e3 abv:10.");
        assert!(plain.figures.is_empty(), "{plain:?}");
        assert_eq!(plain.terms.len(), 5);
    }
}
