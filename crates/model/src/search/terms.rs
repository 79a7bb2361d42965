//! The terms that are not words: a figure compared (`abv:>20`, `drinks:<1.5`) and the
//! personal terms answered from who is asking (`is:fav`, `can:make`, …), with what a
//! person lends one search ([`Asker`]).

use std::collections::{HashMap, HashSet};
use std::fmt;

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
    pub(super) fn passes(&self, figures: Option<(f64, f64)>) -> bool {
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
pub(super) const PERSONAL_WORDS: [(&str, Personal); 9] = [
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
    pub(super) fn passes(self, id: u64, gaps: Option<usize>, mine: &Asker) -> bool {
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

    pub(super) fn needs_shelf(self) -> bool {
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
    /// The household's rules, read with the shelf.
    pub rules: &'a [crate::vocabulary::Rule],
}
