//! A recipe's strength as its page shows it: one quiet line (`≈ 16% ABV · 150 ml · 1.9 std
//! drinks (10 g)`) and, behind it, how it was worked out. `static/js/view.js` (`strengthPart`)
//! writes the same markup from the list JSON's `strength`, and `recipe.js` paints the line
//! again for the servings and the standard drink the phone's owner chose; the numbers are
//! rounded the same way on both sides (`tests/js/markup.test.mjs` compares them).

use crate::recipes::Recipe;
use crate::strength::Strength;
use crate::strength::dilution::Method;

/// What the template shows of a recipe's strength.
pub(crate) struct StrengthView {
    /// The line, for `servings` and 10 g standard drinks (the page's own; the phone may
    /// paint it again for another standard).
    pub(crate) summary: String,
    /// Per serving, for the page's script: ABV, ml, standard drinks of 10 g; `None` when
    /// there are no figures.
    pub(crate) figures: Option<(f64, f64, f64)>,
    pub(crate) approximate: bool,
    /// Each row: `White Rum: 60 ml at 40% (built-in)`.
    pub(crate) rows: Vec<String>,
    /// `Before ice: 98 ml at 25%.` and the dilution, or why there are no figures.
    pub(crate) method: String,
    /// `Not counted, so at least this much: Soda Water (top up).`, if anything was not.
    pub(crate) not_counted: Option<String>,
}

/// `x` to the nearest whole number, halves up (as `Math.floor(x + 0.5)`).
fn whole(x: f64) -> i64 {
    (x + 0.5).floor() as i64
}

/// A per cent: `16`, `<1` for a little above nothing.
pub(crate) fn percent(x: f64) -> String {
    match whole(x) {
        0 if x > 0.0 => "<1".to_owned(),
        n => n.to_string(),
    }
}

/// One decimal: `1.9`.
pub(crate) fn one_decimal(x: f64) -> String {
    let t = (x * 10.0 + 0.5).floor() as i64;
    format!("{}.{}", t / 10, t % 10)
}

/// Up to two decimals, trailing zeros dropped: `60`, `0.9`, `0.05`.
pub(crate) fn up_to_two(x: f64) -> String {
    let t = (x * 100.0 + 0.5).floor() as i64;
    match t % 100 {
        0 => (t / 100).to_string(),
        f if f % 10 == 0 => format!("{}.{}", t / 100, f / 10),
        f => format!("{}.{:02}", t / 100, f),
    }
}

/// The line for `servings` and a standard drink of `grams`, named in it (as
/// `static/js/view.js` `strengthLine` writes it).
pub(crate) fn summary(s: &Strength, servings: u32, grams: f64) -> String {
    let (Some(abv), Some(ml), Some(drinks)) = (s.abv, s.volume_ml, s.standard_drinks) else {
        return "Strength not worked out".to_owned();
    };
    let n = f64::from(servings);
    let more = if s.approximate { "+" } else { "" };
    let count = drinks * n * 10.0 / grams;
    let unit = if one_decimal(count) == "1.0" {
        "std drink"
    } else {
        "std drinks"
    };
    format!(
        "≈ {}% ABV · {}{more} ml · {}{more} {unit} ({} g)",
        percent(abv),
        whole(ml * n),
        one_decimal(count),
        whole(grams)
    )
}

fn method_text(s: &Strength, before: f64) -> String {
    let water = percent(s.dilution * 100.0);
    let how = match s.method {
        Method::Shaken => {
            format!("Shaken: the ice adds {water}% water (Dave Arnold's measurements).")
        }
        Method::Stirred => {
            format!("Stirred: the ice adds {water}% water (Dave Arnold's measurements).")
        }
        Method::Built => format!("Built on ice: the ice adds {water}% water."),
        Method::Blended => format!("Blended: taken as shaken, the ice adds {water}% water."),
        Method::Swizzled => format!("Swizzled: taken as shaken, the ice adds {water}% water."),
        Method::Thrown => format!("Thrown: taken as stirred, the ice adds {water}% water."),
        Method::Neat => "No ice: no water added.".to_owned(),
        Method::Unknown => "Method not known: counted undiluted.".to_owned(),
    };
    match s.undiluted_abv {
        Some(abv) => format!(
            "Before ice: {} ml at {}%. {how}",
            up_to_two(before),
            percent(abv)
        ),
        None => format!("{}.", s.reason.unwrap_or("Nothing could be counted")),
    }
}

impl StrengthView {
    pub(crate) fn new(r: &Recipe, s: &Strength, servings: u32) -> StrengthView {
        let mut before = 0.0;
        let rows = r
            .ingredients
            .iter()
            .zip(&s.rows)
            .map(|(line, &(ml, abv, from))| {
                let name = line.name.as_str();
                let Some(ml) = ml else {
                    return format!("{name}: not counted");
                };
                before += ml;
                match abv {
                    None => format!(
                        "{name}: {} ml, strength not known (counted as 0%)",
                        up_to_two(ml)
                    ),
                    Some(abv) => {
                        let whose = match from {
                            "recipe" => "this recipe's",
                            "household" => "our bar's",
                            _ => "built-in",
                        };
                        format!(
                            "{name}: {} ml at {}% ({whose})",
                            up_to_two(ml),
                            up_to_two(abv)
                        )
                    }
                }
            })
            .collect();
        let not_counted = (!s.not_counted.is_empty()).then(|| {
            format!(
                "Not counted, so at least this much: {}.",
                s.not_counted.join(", ")
            )
        });
        StrengthView {
            summary: summary(s, servings, crate::strength::STANDARD_DRINK_G),
            figures: match (s.abv, s.volume_ml, s.standard_drinks) {
                (Some(a), Some(m), Some(d)) => Some((a, m, d)),
                _ => None,
            },
            approximate: s.approximate,
            rows,
            method: method_text(s, before),
            not_counted,
        }
    }
}
