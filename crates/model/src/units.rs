//! Amounts: showing an ingredient's measure in ml, cl or oz, and for more servings.
//!
//! The recipes file keeps measures as free text (`"22.5"`, `"1/2"`, `"2-3"`, `"few"`) with a
//! free-text unit (`"ml"`, `"dash"`, `"top up"`). This module reads the numbers it can and
//! rounds converted or scaled amounts the way a bartender reads a jigger:
//!
//! - 30 ml = 1 oz (the bar convention, not the 29.57 ml of a US fluid ounce); 1 cl = 10 ml.
//! - oz to the nearest 1/4 (1/8 below a quarter ounce), written with fraction glyphs: `1½ oz`.
//! - ml to the nearest 5 above 20 ml, 2.5 from 2.5 to 20 ml, 0.5 below.
//! - cl to the nearest 0.5 (0.1 below half a centilitre).
//! - Rounding never turns an amount into nothing: a tiny amount shows as the smallest step.
//! - Counts (`2 dash`, `1 egg`) are multiplied when scaled and shown exactly.
//! - Anything that is not a number (`few drop`, `top up`, a blank measure) is shown exactly as
//!   written, and so is everything at ×1 in its own unit: the file is never "corrected".
//!
//! `static/js/model.js` does the same on the phone; `tests/units-cases.json` is the table both
//! are tested against, so the no-JS page and the app never disagree.

use std::fmt::Write;

/// A unit the reader can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    Ml,
    Cl,
    Oz,
}

impl Unit {
    pub const ALL: [Unit; 3] = [Unit::Ml, Unit::Oz, Unit::Cl];

    /// Its name as written in the UI and in addresses: `ml`, `cl`, `oz`.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ml => "ml",
            Unit::Cl => "cl",
            Unit::Oz => "oz",
        }
    }

    /// The unit named in an address (`?units=oz`).
    pub fn from_name(name: &str) -> Option<Unit> {
        Unit::ALL.into_iter().find(|u| u.name() == name)
    }

    fn ml(self) -> f64 {
        match self {
            Unit::Ml => 1.0,
            Unit::Cl => 10.0,
            Unit::Oz => 30.0,
        }
    }

    /// The step an amount of this size is rounded to.
    fn step(self, value: f64) -> f64 {
        match self {
            Unit::Ml if value > 20.0 => 5.0,
            Unit::Ml if value >= 2.5 => 2.5,
            Unit::Ml => 0.5,
            Unit::Cl if value >= 0.5 => 0.5,
            Unit::Cl => 0.1,
            Unit::Oz if value >= 0.25 => 0.25,
            Unit::Oz => 0.125,
        }
    }

    fn round(self, value: f64) -> f64 {
        let step = self.step(value);
        let rounded = round_half_up(value / step) * step;
        if rounded == 0.0 && value > 0.0 {
            step
        } else {
            rounded
        }
    }

    fn format(self, value: f64) -> String {
        match self {
            Unit::Oz => fraction(value).unwrap_or_else(|| decimal(value, 2)),
            Unit::Ml | Unit::Cl => decimal(value, 1),
        }
    }
}

/// The largest number of servings a recipe can be scaled to.
pub const MAX_SERVINGS: u32 = 100;

/// How an amount is shown: in which unit (`None`: the file's own) and for how many servings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AmountView {
    pub unit: Option<Unit>,
    pub servings: u32,
}

impl Default for AmountView {
    fn default() -> Self {
        AmountView {
            unit: None,
            servings: 1,
        }
    }
}

/// The text of an ingredient's amount: `measure` and `unit` as the file has them, shown
/// the way `view` asks.
pub fn amount(measure: &str, unit: &str, view: AmountView) -> String {
    let (number_text, unit_text) = split_unit(measure.trim(), unit.trim());
    let Some(quantity) = parse_quantity(number_text) else {
        return as_written(measure, unit);
    };
    let servings = f64::from(view.servings.max(1));
    match (volume_unit(unit_text), view.unit) {
        (Some(from), Some(to)) if !(from == to && view.servings == 1) => {
            let convert = |v: f64| to.round(v * from.ml() / to.ml() * servings);
            quantity.map(convert).format(|v| to.format(v)) + " " + to.name()
        }
        _ if view.servings == 1 => as_written(measure, unit),
        (Some(from), _) => {
            let scale = |v: f64| from.round(v * servings);
            quantity.map(scale).format(|v| from.format(v)) + " " + unit_text
        }
        (None, _) => {
            let text = quantity.map(|v| v * servings).format(count);
            as_written(&text, unit_text)
        }
    }
}

/// What an amount comes to for counting (`crate::strength`): its number (the middle of a
/// range) and the unit it is in, with the unit's size in ml when it is a volume unit
/// (ml, cl, oz). `None` when the measure is not a number (`few`, blank, `top up`).
pub(crate) fn for_counting<'a>(
    measure: &'a str,
    unit: &'a str,
) -> Option<(f64, &'a str, Option<f64>)> {
    let (number_text, unit_text) = split_unit(measure.trim(), unit.trim());
    let middle = match parse_quantity(number_text)? {
        Quantity::One(v) => v,
        Quantity::Range(a, b) => (a + b) / 2.0,
    };
    Some((middle, unit_text, volume_unit(unit_text).map(Unit::ml)))
}

/// `measure unit` as the file has them, with one space only when both are there.
pub fn as_written(measure: &str, unit: &str) -> String {
    let (measure, unit) = (measure.trim(), unit.trim());
    match (measure.is_empty(), unit.is_empty()) {
        (false, false) => format!("{measure} {unit}"),
        (false, true) => measure.to_owned(),
        _ => unit.to_owned(),
    }
}

/// A measure that carries its own unit (`"30ml"`, `"1 oz"`) when the unit field is blank.
fn split_unit<'a>(measure: &'a str, unit: &'a str) -> (&'a str, &'a str) {
    if !unit.is_empty() {
        return (measure, unit);
    }
    match measure.find(|c: char| c.is_alphabetic()) {
        Some(at) if at > 0 => (measure[..at].trim_end(), measure[at..].trim()),
        _ => (measure, unit),
    }
}

/// The volume unit a unit text names (`"ml"`, `"fl oz"`, `"ounces"`).
fn volume_unit(text: &str) -> Option<Unit> {
    let folded = text.trim().trim_end_matches('.').to_lowercase();
    Some(match folded.as_str() {
        "ml" | "mls" | "millilitre" | "millilitres" | "milliliter" | "milliliters" => Unit::Ml,
        "cl" | "cls" | "centilitre" | "centilitres" | "centiliter" | "centiliters" => Unit::Cl,
        "oz" | "ozs" | "fl oz" | "fl. oz" | "fl.oz" | "ounce" | "ounces" | "fluid ounce"
        | "fluid ounces" => Unit::Oz,
        _ => return None,
    })
}

/// One number or a range of two.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Quantity {
    One(f64),
    Range(f64, f64),
}

impl Quantity {
    fn map(self, f: impl Fn(f64) -> f64) -> Quantity {
        match self {
            Quantity::One(v) => Quantity::One(f(v)),
            Quantity::Range(a, b) => Quantity::Range(f(a), f(b)),
        }
    }

    /// A range whose ends round to the same amount is shown as that amount.
    fn format(self, f: impl Fn(f64) -> String) -> String {
        match self {
            Quantity::One(v) => f(v),
            Quantity::Range(a, b) => {
                let (a, b) = (f(a), f(b));
                if a == b { a } else { format!("{a}–{b}") }
            }
        }
    }
}

/// Words a measure may be instead of a number: amounts a bartender judges by eye.
const VAGUE_AMOUNTS: [&str; 12] = [
    "few", "a few", "some", "several", "a little", "a dash", "a splash", "a pinch", "to taste",
    "top up", "a", "an",
];

/// Whether a measure can be read as an amount: empty, a number, a fraction or a range
/// ([`parse_quantity`]), or one of the words bartenders use for "by eye" ("few", "to
/// taste"). A save refuses anything else ("sixty" would be counted as nothing).
pub fn is_amount(measure: &str) -> bool {
    let measure = measure.trim();
    measure.is_empty()
        || parse_quantity(measure).is_some()
        || VAGUE_AMOUNTS
            .iter()
            .any(|word| word.eq_ignore_ascii_case(measure))
}

/// `"2"`, `"22.5"`, `"1/2"`, `"1 1/2"`, `"1½"`, `"2-3"`, `"2 to 3"`; `None` for anything else.
fn parse_quantity(text: &str) -> Option<Quantity> {
    if let Some(v) = parse_number(text) {
        return Some(Quantity::One(v));
    }
    let (a, b) = text
        .split_once(" to ")
        .or_else(|| text.split_once(['-', '–', '—']))?;
    let (a, b) = (parse_number(a)?, parse_number(b)?);
    (a <= b).then_some(Quantity::Range(a, b))
}

/// Anything larger is not an amount (a typo, an id): it is shown as written.
const MAX_AMOUNT: f64 = 1e6;

/// A non-negative number: whole, decimal (point or comma), fraction, or whole plus fraction.
fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    read_number(text).filter(|v| v.is_finite() && *v <= MAX_AMOUNT)
}

fn read_number(text: &str) -> Option<f64> {
    // "1½": a whole number followed by a fraction glyph.
    if let Some(last) = text.chars().next_back()
        && let Some(part) = glyph_value(last)
    {
        let whole = text[..text.len() - last.len_utf8()].trim();
        return Some(if whole.is_empty() {
            part
        } else {
            whole_number(whole)? + part
        });
    }
    if let Some((whole, fraction)) = text.split_once(' ') {
        return Some(whole_number(whole)? + simple_fraction(fraction.trim())?);
    }
    if text.contains('/') {
        return simple_fraction(text);
    }
    decimal_number(text)
}

fn whole_number(text: &str) -> Option<f64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn simple_fraction(text: &str) -> Option<f64> {
    let (top, bottom) = text.split_once('/')?;
    let (top, bottom) = (whole_number(top.trim())?, whole_number(bottom.trim())?);
    (bottom > 0.0).then(|| top / bottom)
}

fn decimal_number(text: &str) -> Option<f64> {
    let text = text.replacen(',', ".", 1);
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    let points = text.bytes().filter(|&b| b == b'.').count();
    if digits == 0 || digits + points != text.len() || points > 1 {
        return None;
    }
    text.parse().ok()
}

const GLYPHS: [(char, f64); 11] = [
    ('¼', 0.25),
    ('½', 0.5),
    ('¾', 0.75),
    ('⅓', 1.0 / 3.0),
    ('⅔', 2.0 / 3.0),
    ('⅛', 0.125),
    ('⅜', 0.375),
    ('⅝', 0.625),
    ('⅞', 0.875),
    ('⅕', 0.2),
    ('⅙', 1.0 / 6.0),
];

fn glyph_value(c: char) -> Option<f64> {
    GLYPHS.iter().find(|(g, _)| *g == c).map(|&(_, v)| v)
}

/// Halves go up (2.5 → 3), with a little slack for binary fractions (0.1 × 3).
fn round_half_up(v: f64) -> f64 {
    (v + 0.5 + 1e-9).floor()
}

/// A multiple of 1/8 as a whole number and a glyph: 1.5 → `1½`, 0.75 → `¾`.
fn fraction(v: f64) -> Option<String> {
    let eighths = v * 8.0;
    if (eighths - eighths.round()).abs() > 1e-9 || eighths < 0.0 {
        return None;
    }
    let eighths = eighths.round() as u64;
    let (whole, part) = (eighths / 8, eighths % 8);
    let glyph = ["", "⅛", "¼", "⅜", "½", "⅝", "¾", "⅞"][part as usize];
    Some(match (whole, part) {
        (0, 0) => "0".to_owned(),
        (0, _) => glyph.to_owned(),
        _ => format!("{whole}{glyph}"),
    })
}

/// At most `places` decimals, trailing zeros dropped: 7.50 → `7.5`, 45.0 → `45`.
fn decimal(v: f64, places: usize) -> String {
    let mut text = String::new();
    let _ = write!(text, "{v:.places$}");
    if text.contains('.') {
        let trimmed = text.trim_end_matches('0').trim_end_matches('.').len();
        text.truncate(trimmed);
    }
    text
}

/// A scaled count: exact eighths as glyphs (`1½`), anything else to two decimals.
fn count(v: f64) -> String {
    fraction(v).unwrap_or_else(|| decimal(v, 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Case {
        measure: String,
        unit: String,
        to: Option<String>,
        servings: u32,
        want: String,
    }

    #[derive(Deserialize)]
    struct Cases {
        cases: Vec<Case>,
    }

    #[test]
    fn the_shared_table() {
        let text = include_str!("../../../tests/units-cases.json");
        let table: Cases = serde_json::from_str(text).expect("tests/units-cases.json parses");
        assert!(table.cases.len() >= 25);
        let mut failures = Vec::new();
        for c in &table.cases {
            let unit =
                c.to.as_deref()
                    .map(|name| Unit::from_name(name).expect(name));
            let got = amount(
                &c.measure,
                &c.unit,
                AmountView {
                    unit,
                    servings: c.servings,
                },
            );
            if got != c.want {
                failures.push(format!(
                    "{:?} {:?} to {:?} ×{}: got {got:?}, want {:?}",
                    c.measure, c.unit, c.to, c.servings, c.want
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number("1 1/2"), Some(1.5));
        assert_eq!(parse_number("1½"), Some(1.5));
        assert_eq!(parse_number("22,5"), Some(22.5));
        assert_eq!(parse_number("1/0"), None);
        assert_eq!(parse_number("1.2.3"), None);
        assert_eq!(parse_number("-1"), None);
        assert_eq!(parse_quantity("3-2"), None, "a backwards range is text");
        assert_eq!(parse_quantity("2 to 3"), Some(Quantity::Range(2.0, 3.0)));
    }

    #[test]
    fn an_amount_is_a_number_a_fraction_a_range_or_a_word_for_by_eye() {
        for yes in [
            "", " 60 ", "1/2", "1 1/2", "1½", "2-3", "2 to 3", "22,5", "few", "A few", "to taste",
        ] {
            assert!(is_amount(yes), "{yes:?}");
        }
        for no in ["sixty", "1 oz", "2x", "1/0", "half", "-"] {
            assert!(!is_amount(no), "{no:?}");
        }
    }
}
