//! How strong is it: a recipe's strength, volume and standard drinks, worked out once per
//! collection.
//!
//! The steps, for each ingredient row:
//! 1. Its strength: the row's own `"abv"` (0–100) if it has one; else the household's table
//!    (`household.sqlite`, `GET/PUT /api/bar/strengths`); else the built-in table
//!    (each bottle's `abv` in `data/vocabulary.json`, [`table`]), found by reading the
//!    row's name ([`crate::ingredients::key`]) as a bottle; else unknown: counted as 0% and listed.
//! 2. Its volume ([`crate::units::for_counting`]): ml, cl and oz as the units rules read
//!    them, a range at its middle; dash 0.9 ml, drop 0.05 ml, barspoon 5 ml, tsp 5 ml,
//!    tbsp 15 ml; an egg white 30 ml, a yolk 17 ml, a whole egg 50 ml; a count of
//!    something without alcohol (`2 slices`, `1 sprig`) has no volume. Anything else (`top
//!    up`, `splash`, `few`) is not counted: the figures are then a lower bound, and the row
//!    is named in `not_counted`. A row marked `(optional)` is left out.
//! 3. The mix before ice: the rows' volumes and alcohol added up (`undiluted_abv`).
//! 4. The water from the ice, by the recipe's method ([`dilution::Method`]): Dave Arnold's
//!    equations for shaken and stirred drinks, documented figures for the rest.
//! 5. What is in the glass: `abv`, `volume_ml`, and `standard_drinks` at 10 g of ethanol
//!    (0.789 g/ml); the phone shows them at the standard its owner chose (8 g, 10 g, 14 g).
//!
//! `static/js/model.js` reads the figures (it never works them out again); the search terms
//! `abv:` and `drinks:` are answered from them on both sides. `tests/strength-cases.json`
//! holds worked examples computed by hand.

pub mod dilution;
pub mod table;

use crate::ingredients::key;
use crate::recipes::{Recipe, Recipes};
use crate::text::fold;
use dilution::Method;
use serde::Serialize;
use std::collections::HashMap;
use table::Table;

/// Grams of ethanol in a millilitre.
pub const ETHANOL_DENSITY: f64 = 0.789;
/// Grams of ethanol in the standard drink the server counts in (WHO, Australia and others).
pub const STANDARD_DRINK_G: f64 = 10.0;

/// A household's own strengths: shelf name ([`key`]) → % ABV. Whoever works a collection
/// out passes the household's table in (`web::Site::new`); there is no table held here.
pub type Household = HashMap<String, f64>;

/// Where a row's strength came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum Source {
    /// The row's own `"abv"` in the recipes file.
    Recipe,
    /// The household's table.
    Household,
    /// The built-in table, under this name, with the entry's source.
    Table { name: String, source: String },
    /// Not known: counted as no alcohol.
    Unknown,
}

/// One row as counted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Line {
    pub name: String,
    /// Its volume in ml; `None` when it was not counted or has none.
    pub ml: Option<f64>,
    /// % ABV; `None` when not known.
    #[serde(serialize_with = "compact")]
    pub abv: Option<f64>,
    #[serde(flatten)]
    pub source: Source,
    /// Why it was not counted (`"top up"`, `"optional"`), if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_counted: Option<String>,
}

/// The figures of one recipe: what `GET /api/recipes/{id}` and the list carry as `strength`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Strength {
    /// % ABV in the glass, after dilution; `None` with `reason` when nothing could be counted.
    #[serde(serialize_with = "compact")]
    pub abv: Option<f64>,
    /// ml in the glass, after dilution.
    #[serde(serialize_with = "compact")]
    pub volume_ml: Option<f64>,
    /// Standard drinks of 10 g ethanol.
    #[serde(serialize_with = "compact")]
    pub standard_drinks: Option<f64>,
    /// % ABV of the mix before ice.
    #[serde(serialize_with = "compact")]
    pub undiluted_abv: Option<f64>,
    /// Water added, as a fraction of the mix before ice.
    pub dilution: f64,
    pub method: Method,
    /// Some row was not counted or its strength is not known: the figures are a bound.
    pub approximate: bool,
    /// The rows not counted, or counted without a known strength, by name.
    pub not_counted: Vec<String>,
    /// Each ingredient row, in order: `[ml, abv]` from the built-in table, else `[ml, abv,
    /// from]` (ml `null`: not counted; abv `null`: not known; from: `recipe`, `household` or
    /// `unknown`), for showing the working. Written compactly: the list JSON carries one
    /// per recipe (docs/bench: thousands of recipes).
    #[serde(serialize_with = "compact_rows")]
    pub rows: Vec<(Option<f64>, Option<f64>, &'static str)>,
    /// Why there are no figures, when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

/// A figure as JSON: a whole number without `.0` (most amounts and strengths are).
#[derive(Clone, Copy)]
struct Compact(Option<f64>);

impl Serialize for Compact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(v) if v.fract() == 0.0 && v.abs() < 1e15 => s.serialize_i64(v as i64),
            Some(v) => s.serialize_f64(v),
        }
    }
}

fn compact_rows<S: serde::Serializer>(
    rows: &[(Option<f64>, Option<f64>, &'static str)],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(rows.len()))?;
    for &(ml, abv, from) in rows {
        if from == "table" {
            seq.serialize_element(&(Compact(ml), Compact(abv)))?;
        } else {
            seq.serialize_element(&(Compact(ml), Compact(abv), from))?;
        }
    }
    seq.end()
}

fn compact<S: serde::Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    Compact(*v).serialize(s)
}

/// The working behind a [`Strength`]: each row and the dilution's source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Working {
    pub lines: Vec<Line>,
    pub dilution_source: &'static str,
}

const COUNT_UNITS: [&str; 30] = [
    "", "whole", "piece", "pieces", "slice", "slices", "leaf", "leaves", "sprig", "sprigs",
    "wedge", "wedges", "peel", "peels", "cube", "cubes", "pinch", "pinches", "bean", "beans",
    "inch", "inches", "g", "gram", "grams", "twist", "wheel", "wheels", "zest", "capsule",
];

/// The size in ml of a unit that is not ml, cl or oz, where one is documented.
fn spoon_ml(unit: &str) -> Option<f64> {
    Some(match unit.trim_end_matches('.') {
        "dash" | "dashes" => 0.9,
        "drop" | "drops" => 0.05,
        "barspoon" | "barspoons" | "bar spoon" | "bar spoons" => 5.0,
        "tsp" | "teaspoon" | "teaspoons" => 5.0,
        "tbsp" | "tablespoon" | "tablespoons" => 15.0,
        _ => return None,
    })
}

/// An egg's parts by the ml: USDA FoodData Central, large egg white 33 g, yolk 17 g, whole
/// egg 50 g (at about 1 g/ml).
fn egg_ml(key: &str, unit: &str) -> Option<f64> {
    if unit == "yolk" || key.ends_with("egg yolk") {
        return Some(17.0);
    }
    if key.ends_with("egg white") {
        return Some(30.0);
    }
    (key == "egg" || key == "whole egg").then_some(50.0)
}

fn round(v: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (v * f).round() / f
}

/// Works out one recipe's strength against the built-in table and a household's own.
pub fn of(recipe: &Recipe, table: &Table, household: &Household) -> (Strength, Working) {
    let mut lines = Vec::with_capacity(recipe.ingredients.len());
    let (mut volume, mut ethanol, mut approximate) = (0.0f64, 0.0f64, false);
    let mut not_counted = Vec::new();
    let mut strongest = 0.0f64;
    for row in &recipe.ingredients {
        let folded = fold(&row.name);
        let k = key(&row.name);
        let (abv, source) = if let Some(abv) = row.abv {
            (Some(abv.get()), Source::Recipe)
        } else if let Some(&abv) = household.get(&k) {
            (Some(abv), Source::Household)
        } else if let Some((name, entry)) = table.find(&k) {
            let source = Source::Table {
                name: name.to_owned(),
                source: entry.source.clone(),
            };
            (Some(entry.figure), source)
        } else {
            (None, Source::Unknown)
        };
        let mut line = Line {
            name: row.name.to_string(),
            ml: None,
            abv,
            source,
            not_counted: None,
        };
        if folded.contains("(optional") {
            line.not_counted = Some("optional".into());
            lines.push(line);
            continue;
        }
        let unit_folded = fold(&row.unit);
        let ml = match crate::units::for_counting(&row.measure, &row.unit) {
            Some((n, _, Some(per))) => Some(n * per),
            Some((n, unit, None)) => {
                let unit = fold(unit);
                spoon_ml(&unit)
                    .or_else(|| egg_ml(&k, &unit))
                    .map(|per| n * per)
                    .or_else(|| {
                        (abv == Some(0.0) && COUNT_UNITS.contains(&unit.as_str())).then_some(0.0)
                    })
            }
            // No amount at all of something without alcohol (`Pepper`): nothing to count.
            None if abv == Some(0.0) && row.measure.trim().is_empty() && unit_folded.is_empty() => {
                Some(0.0)
            }
            None => None,
        };
        match ml {
            Some(ml) => {
                volume += ml;
                ethanol += ml * abv.unwrap_or(0.0) / 100.0;
                if ml > 0.0 {
                    strongest = strongest.max(abv.unwrap_or(0.0));
                }
                if abv.is_none() {
                    approximate = true;
                    not_counted.push(format!("{} (strength not known)", row.name));
                }
                line.ml = Some(round(ml, 2));
            }
            None => {
                approximate = true;
                let written = crate::units::as_written(&row.measure, &row.unit);
                let why = if written.is_empty() {
                    "no amount".to_owned()
                } else {
                    written
                };
                not_counted.push(format!("{} ({why})", row.name));
                line.not_counted = Some(why);
            }
        }
        lines.push(line);
    }
    let rows = lines
        .iter()
        .map(|l| {
            let from = match l.source {
                Source::Recipe => "recipe",
                Source::Household => "household",
                Source::Table { .. } => "table",
                Source::Unknown => "unknown",
            };
            (l.ml, l.abv, from)
        })
        .collect();
    let method = Method::pick(&recipe.method);
    let working = |lines| Working {
        lines,
        dilution_source: method.source(),
    };
    if volume <= 0.0 {
        let strength = Strength {
            abv: None,
            volume_ml: None,
            standard_drinks: None,
            undiluted_abv: None,
            dilution: 0.0,
            method,
            approximate,
            not_counted,
            rows,
            reason: Some("no amount that can be counted"),
        };
        return (strength, working(lines));
    }
    let undiluted = ethanol / volume * 100.0;
    let dilution = method.dilution(undiluted);
    let total = volume * (1.0 + dilution);
    // Never above the strongest row counted (rounding aside).
    let abv = (ethanol / total * 100.0).min(strongest);
    let strength = Strength {
        abv: Some(round(abv, 1)),
        volume_ml: Some(round(total, 1)),
        standard_drinks: Some(round(ethanol * ETHANOL_DENSITY / STANDARD_DRINK_G, 2)),
        undiluted_abv: Some(round(undiluted, 1)),
        dilution: round(dilution, 3),
        method,
        approximate,
        not_counted,
        rows,
        reason: None,
    };
    (strength, working(lines))
}

/// One recipe's strength against the built-in table alone.
pub fn of_recipe(recipe: &Recipe) -> Strength {
    of(recipe, Table::built_in(), &Household::new()).0
}

/// Every recipe's strength, in `Recipes::all()` order, worked out once per collection.
#[derive(Debug, Clone, Default)]
pub struct Strengths {
    list: Vec<Strength>,
    by_id: HashMap<u64, usize>,
}

impl Strengths {
    pub fn new(recipes: &Recipes, household: &Household) -> Strengths {
        let table = Table::built_in();
        let list: Vec<Strength> = recipes
            .all()
            .iter()
            .map(|r| of(r, table, household).0)
            .collect();
        let by_id = recipes
            .all()
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id, i))
            .collect();
        Strengths { list, by_id }
    }

    /// The strength of the recipe at `position` in `Recipes::all()` order.
    pub fn at(&self, position: usize) -> Option<&Strength> {
        self.list.get(position)
    }

    pub fn of_id(&self, id: u64) -> Option<&Strength> {
        self.by_id.get(&id).and_then(|&i| self.list.get(i))
    }
}

#[cfg(test)]
pub(crate) mod tests;
