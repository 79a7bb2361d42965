//! One ingredient line as recipe pages write it, read into measure, unit and name.
//!
//! `1 ½ oz London dry gin` → `1½` `oz` `London dry gin`. The measure is written the way
//! `units` reads it (`22.5`, `1/2`, `1 1/2`, `1½`, a range `1-2`, or a word such as
//! `few`), the unit in the one form the recipes files use (`ml`, `cl`, `oz`, `dash`,
//! `drop`, `tsp`, `tbsp`, `barspoon`, `top up`, and counts such as `slice`, `leaf`), so
//! that conversion and scaling work on an imported drink. The rules:
//!
//! - A leading amount: a whole number, a decimal (point or comma), a fraction (`1/2`,
//!   `½`), a whole number and a fraction (`1 1/2`, `1 ½`, `1½`), a range (`1-2`,
//!   `1 to 2`, `1 or 2`), or `a`/`an`/`one` (1), `few`, `half` (1/2). A fraction slash
//!   (`1⁄2`) is a slash.
//! - Then a unit, glued (`22.5ml`) or not, in any common spelling (`ounces`, `fl oz`,
//!   `dashes`, `bar spoon`), then an `of`. A second amount in parentheses right after
//!   it (`¾ oz (22 ml) lime juice`) or after a slash (`2 oz / 60 ml bourbon`) says the
//!   same again and is left out.
//! - `Top up with soda`, `top with soda`, `soda, to top` → unit `top up`, no measure.
//! - `Garnish: …`, `Garnish with …`, `…, for garnish`, `…, to garnish` → a garnish.
//! - Anything else keeps the whole line as the name, with a note; nothing is dropped.
//!
//! The cases are in `tests/import-line-cases.json`.

use serde::Serialize;

/// What one line says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Line {
    pub measure: String,
    pub unit: String,
    pub name: String,
    /// The line names a garnish (its text is `name`), not an ingredient.
    pub garnish: bool,
    /// Why the line was not read whole (`None`: read exactly).
    pub note: Option<String>,
}

/// Units in their one form, each with the spellings read as it (lower case; longest
/// spellings are tried first).
const UNITS: &[(&str, &[&str])] = &[
    (
        "ml",
        &[
            "ml",
            "mls",
            "millilitre",
            "millilitres",
            "milliliter",
            "milliliters",
        ],
    ),
    (
        "cl",
        &[
            "cl",
            "cls",
            "centilitre",
            "centilitres",
            "centiliter",
            "centiliters",
        ],
    ),
    (
        "oz",
        &[
            "oz",
            "ozs",
            "oz.",
            "fl oz",
            "fl. oz",
            "fl.oz",
            "fl oz.",
            "ounce",
            "ounces",
            "fluid ounce",
            "fluid ounces",
        ],
    ),
    ("dash", &["dash", "dashes", "ds"]),
    ("drop", &["drop", "drops"]),
    ("tsp", &["tsp", "tsp.", "tsps", "teaspoon", "teaspoons"]),
    (
        "tbsp",
        &["tbsp", "tbsp.", "tbsps", "tbs", "tablespoon", "tablespoons"],
    ),
    (
        "barspoon",
        &[
            "barspoon",
            "barspoons",
            "bar spoon",
            "bar spoons",
            "bsp",
            "bar-spoon",
            "bar-spoons",
        ],
    ),
    ("splash", &["splash", "splashes"]),
    ("pinch", &["pinch", "pinches"]),
    ("part", &["part", "parts"]),
    ("slice", &["slice", "slices"]),
    ("wedge", &["wedge", "wedges"]),
    ("leaf", &["leaf", "leaves"]),
    ("sprig", &["sprig", "sprigs"]),
    ("piece", &["piece", "pieces"]),
    ("cube", &["cube", "cubes"]),
    ("peel", &["peel", "peels"]),
    ("scoop", &["scoop", "scoops"]),
    ("shot", &["shot", "shots"]),
    ("cup", &["cup", "cups"]),
    ("bottle", &["bottle", "bottles"]),
    ("whole", &["whole"]),
    ("g", &["g", "gram", "grams"]),
    ("inch", &["inch", "inches"]),
    ("bean", &["bean", "beans"]),
    ("yolk", &["yolk", "yolks"]),
    ("capsule", &["capsule", "capsules"]),
    ("float", &["float"]),
    ("top up", &["top up"]),
];

/// The one form of a unit written `text` (`"Dashes"` → `dash`), if this is a unit.
pub fn unit_name(text: &str) -> Option<&'static str> {
    let folded = text.trim().to_lowercase();
    if folded == "topup" || folded == "top" || folded == "top up" {
        return Some("top up");
    }
    UNITS
        .iter()
        .find(|(_, forms)| forms.contains(&folded.as_str()))
        .map(|(unit, _)| *unit)
}

/// Reads one ingredient line.
pub fn parse(text: &str) -> Line {
    let text = clean(text);
    if let Some(garnish) = garnish(&text) {
        return Line {
            name: garnish,
            garnish: true,
            ..Line::default()
        };
    }
    if let Some(name) = top_up(&text) {
        return Line {
            unit: "top up".to_owned(),
            name,
            ..Line::default()
        };
    }
    let Some((measure, rest)) = amount(&text) else {
        return unit_first(&text).unwrap_or_else(|| kept(&text, "no amount found"));
    };
    let (unit, rest) = unit_at(rest).unwrap_or(("", rest));
    let name = name_after(rest);
    if name.is_empty() {
        return Line {
            measure,
            unit: unit.to_owned(),
            name: String::new(),
            note: Some("no ingredient named after the amount".to_owned()),
            ..Line::default()
        };
    }
    Line {
        measure,
        unit: unit.to_owned(),
        name,
        ..Line::default()
    }
}

/// The whole line as the name, with why.
fn kept(text: &str, why: &str) -> Line {
    Line {
        name: text.to_owned(),
        note: Some(format!("{why}: the whole line is the name")),
        ..Line::default()
    }
}

/// White space collapsed, list bullets taken off.
fn clean(text: &str) -> String {
    let text = text.trim_start_matches(['-', '•', '*', '·', '–']);
    // The fraction slash (`1⁄2`) some pages write is a plain slash here.
    let text = text.replace('\u{2044}', "/");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An amount written with digits or a fraction glyph, then maybe a unit (`22 ml`, `2`):
/// the same amount said again; its length in `text`.
fn repeated_amount(text: &str) -> Option<&str> {
    let first = text.chars().next()?;
    if !(first.is_ascii_digit() || is_glyph(first)) {
        return None;
    }
    let (_, rest) = amount(text)?;
    Some(unit_at(rest).map_or(rest, |(_, after)| after))
}

/// `Garnish: x`, `Garnish with x`, `x, for garnish`, `x (to garnish)` → `x`.
fn garnish(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    for prefix in ["garnish with ", "garnish:", "garnish -", "for garnish:"] {
        if lower.starts_with(prefix) {
            let rest = text[prefix.len()..].trim();
            let rest = if prefix == "garnish with " {
                strip_article(rest.trim_end_matches('.'))
            } else {
                rest
            };
            return (!rest.is_empty()).then(|| rest.to_owned());
        }
    }
    let suffixes = [
        ", for garnish",
        ", to garnish",
        " (for garnish)",
        " (to garnish)",
        " (garnish)",
        ", garnish",
        " for garnish",
        " to garnish",
        ", as garnish",
        " as garnish",
    ];
    let body = lower.trim_end_matches('.');
    for suffix in suffixes {
        if body.ends_with(suffix) && body.len() > suffix.len() {
            return Some(text[..body.len() - suffix.len()].trim().to_owned());
        }
    }
    None
}

fn strip_article(text: &str) -> &str {
    for article in ["a ", "an ", "A ", "An "] {
        if let Some(rest) = text.strip_prefix(article) {
            return rest;
        }
    }
    text
}

/// `Top up with soda`, `top with soda`, `fill with soda`, `soda, to top` → `soda`.
fn top_up(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let prefixes = [
        "top up with ",
        "top it up with ",
        "topped up with ",
        "top with ",
        "topped with ",
        "fill up with ",
        "fill with ",
        "top up ",
    ];
    for prefix in prefixes {
        if lower.starts_with(prefix) && lower.len() > prefix.len() {
            return Some(text[prefix.len()..].trim().trim_end_matches('.').to_owned());
        }
    }
    for suffix in [
        ", to top up",
        ", to top",
        " to top up",
        " to top",
        " (top up)",
    ] {
        if lower.ends_with(suffix) && lower.len() > suffix.len() {
            return Some(text[..text.len() - suffix.len()].trim().to_owned());
        }
    }
    None
}

/// `dash of Angostura`, `splash soda`: a unit without a number.
fn unit_first(text: &str) -> Option<Line> {
    let (unit, rest) = unit_at(text)?;
    let name = name_after(rest);
    (!name.is_empty() && unit != "whole").then(|| Line {
        unit: unit.to_owned(),
        name,
        ..Line::default()
    })
}

/// The name after an amount and unit: an `of` and a repeated amount in parentheses left
/// out.
fn name_after(rest: &str) -> String {
    let mut rest = rest.trim_start();
    if let Some(inner) = rest.strip_prefix('(')
        && let Some((inside, after)) = inner.split_once(')')
        && repeated_amount(inside.trim()).is_some_and(|left| left.trim().is_empty())
    {
        rest = after.trim_start();
    } else if let Some(inner) = rest.strip_prefix(['/', '|'])
        && let Some(after) = repeated_amount(inner.trim_start())
    {
        // `2 oz / 60 ml bourbon`.
        rest = after.trim_start();
    }
    let lower = rest.to_lowercase();
    if lower.starts_with("of ") {
        rest = &rest[3..];
    }
    rest.trim().to_owned()
}

/// The amount at the start of `text`, written the way `units` reads it, and the rest.
fn amount(text: &str) -> Option<(String, &str)> {
    let lower = text.to_lowercase();
    for (word, measure) in [
        ("a ", "1"),
        ("an ", "1"),
        ("one ", "1"),
        ("few ", "few"),
        ("a few ", "few"),
        ("half ", "1/2"),
        ("half a ", "1/2"),
        ("half an ", "1/2"),
    ]
    .iter()
    .rev()
    {
        if lower.starts_with(word) {
            return Some(((*measure).to_owned(), &text[word.len()..]));
        }
    }
    let (first, rest) = number(text)?;
    // A range: `1-2`, `1 - 2`, `1–2`, `1 to 2`.
    let trimmed = rest.trim_start();
    for sep in ["-", "–", "—", "to ", "or "] {
        if let Some(after) = trimmed.strip_prefix(sep)
            && let Some((second, rest)) = number(after.trim_start())
        {
            return Some((format!("{first}-{second}"), rest));
        }
    }
    Some((first, rest))
}

const GLYPHS: [(char, &str); 11] = [
    ('¼', "1/4"),
    ('½', "1/2"),
    ('¾', "3/4"),
    ('⅓', "1/3"),
    ('⅔', "2/3"),
    ('⅛', "1/8"),
    ('⅜', "3/8"),
    ('⅝', "5/8"),
    ('⅞', "7/8"),
    ('⅕', "1/5"),
    ('⅙', "1/6"),
];

fn is_glyph(c: char) -> bool {
    GLYPHS.iter().any(|(g, _)| *g == c)
}

/// One number at the start of `text`: `22.5`, `22,5`, `1/2`, `1 1/2`, `1 ½`, `1½`, `½`.
fn number(text: &str) -> Option<(String, &str)> {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        let glyph = text.chars().next().filter(|&c| is_glyph(c))?;
        return Some((glyph.to_string(), &text[glyph.len_utf8()..]));
    }
    let whole = &text[..digits];
    let rest = &text[digits..];
    // A decimal: a point or comma followed by digits.
    if let Some(sep) = rest.chars().next().filter(|c| *c == '.' || *c == ',') {
        let after = &rest[1..];
        let more = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if more > 0 {
            let _ = sep;
            return Some((format!("{whole}.{}", &after[..more]), &after[more..]));
        }
    }
    // A fraction: `1/2`.
    if let Some(after) = rest.strip_prefix('/') {
        let bottom = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if bottom > 0 {
            return Some((format!("{whole}/{}", &after[..bottom]), &after[bottom..]));
        }
        return None;
    }
    // A glyph glued or after a space: `1½`, `1 ½`.
    let spaced = rest.strip_prefix(' ').unwrap_or(rest);
    if let Some(glyph) = spaced.chars().next().filter(|&c| is_glyph(c)) {
        return Some((format!("{whole}{glyph}"), &spaced[glyph.len_utf8()..]));
    }
    // A whole number and a fraction: `1 1/2`.
    if let Some(after) = rest.strip_prefix(' ') {
        let top = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if top > 0
            && let Some(below) = after[top..].strip_prefix('/')
        {
            let bottom = below.len() - below.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if bottom > 0 {
                let fraction = format!("{}/{}", &after[..top], &below[..bottom]);
                return Some((format!("{whole} {fraction}"), &below[bottom..]));
            }
        }
    }
    Some((whole.to_owned(), rest))
}

/// A unit at the start of `text` (after white space), in its one form, and the rest.
fn unit_at(text: &str) -> Option<(&'static str, &str)> {
    let text = text.trim_start();
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        // Lower-casing changed byte lengths: compare only an ASCII start.
        let ascii = text.len() - text.trim_start_matches(|c: char| c.is_ascii()).len();
        return unit_at_ascii(&text[..ascii]).map(|(u, n)| (u, &text[n..]));
    }
    unit_at_ascii(&lower).map(|(u, n)| (u, &text[n..]))
}

/// The longest unit spelling `lower` starts with, ending at a word's end; its length.
fn unit_at_ascii(text: &str) -> Option<(&'static str, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut best: Option<(&'static str, usize)> = None;
    let all = UNITS
        .iter()
        .flat_map(|(unit, forms)| forms.iter().map(move |f| (*unit, *f)));
    for (unit, form) in all {
        if lower.starts_with(form)
            && lower[form.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
            && best.is_none_or(|(_, n)| form.len() > n)
        {
            best = Some((unit, form.len()));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Case {
        line: String,
        measure: String,
        unit: String,
        name: String,
        #[serde(default)]
        garnish: bool,
        #[serde(default)]
        kept: bool,
    }

    #[derive(Deserialize)]
    struct Cases {
        cases: Vec<Case>,
    }

    #[test]
    fn the_shared_table() {
        let text = include_str!("../../../tests/import-line-cases.json");
        let table: Cases = serde_json::from_str(text).expect("tests/import-line-cases.json");
        assert!(table.cases.len() >= 30);
        let mut failures = Vec::new();
        for c in &table.cases {
            let got = parse(&c.line);
            let want = (
                c.measure.as_str(),
                c.unit.as_str(),
                c.name.as_str(),
                c.garnish,
                c.kept,
            );
            let have = (
                got.measure.as_str(),
                got.unit.as_str(),
                got.name.as_str(),
                got.garnish,
                got.note.is_some(),
            );
            if want != have {
                failures.push(format!("{:?}: got {have:?}, want {want:?}", c.line));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn measures_read_as_units_reads_them() {
        for line in [
            "1 ½ oz gin",
            "¾ oz lime",
            "22,5 ml x",
            "1 1/2 oz x",
            "1-2 oz x",
            "3cl x",
        ] {
            let got = parse(line);
            let shown = crate::units::amount(
                &got.measure,
                &got.unit,
                crate::units::AmountView {
                    unit: Some(crate::units::Unit::Ml),
                    servings: 1,
                },
            );
            assert!(shown.ends_with(" ml"), "{line}: {shown}");
        }
    }

    #[test]
    fn unit_names() {
        assert_eq!(unit_name("Dashes"), Some("dash"));
        assert_eq!(unit_name("topup"), Some("top up"));
        assert_eq!(unit_name("teaspoons"), Some("tsp"));
        assert_eq!(unit_name("smidgen"), None);
    }
}
