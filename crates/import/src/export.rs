//! Our recipes in the formats others read: schema.org `Recipe` JSON-LD, Markdown, and
//! Bar Assistant's recipe format (cocktail-02; a collection is a zip with
//! `cocktails/<slug>/data.json` per recipe). Reading any of them back with
//! [`super::read`] gives the same recipes.
//!
//! JSON-LD uses only the vocabulary's own properties: `name`, `recipeIngredient` (one
//! line per row, `measure unit name`; a garnish as `Garnish: …`), `recipeInstructions`
//! (the notes), `cookingMethod`, `recipeCategory` ("Cocktail"), `tool` (the glass), and
//! `keywords`, which also carry our fields exactly (`base: Gin`, `glass: Coupe`,
//! `method: Stir`, `ice: Cubed`) so that reading back needs no guess; each row is also a
//! `supply` (`HowToSupply` with a `requiredQuantity` `QuantitativeValue`: `value` the
//! measure, `unitText` the unit), so that rows come back exactly as they were. Bar Assistant's
//! file carries them the same way in `tags`.

use super::ImportError;
use crate::recipes::{IngredientLine, Recipe};
use serde_json::{Value, json};
use std::io::Write;

/// A format to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    JsonLd,
    Markdown,
    BarAssistant,
}

impl Format {
    /// The format named in `?format=`: `jsonld`, `markdown`, `bar-assistant`.
    pub fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "jsonld" => Format::JsonLd,
            "markdown" => Format::Markdown,
            "bar-assistant" => Format::BarAssistant,
            _ => return None,
        })
    }
}

/// One recipe, or a whole collection.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'a> {
    One(&'a Recipe),
    All(&'a [Recipe]),
}

/// The content type and bytes of `selection` written as `format`.
pub fn export(
    selection: Selection,
    format: Format,
) -> Result<(&'static str, Vec<u8>), ImportError> {
    let pretty =
        |v: &Value| serde_json::to_vec_pretty(v).map_err(|e| ImportError::Write(e.to_string()));
    match (format, selection) {
        (Format::JsonLd, Selection::One(r)) => {
            let mut v = jsonld(r);
            if let Some(o) = v.as_object_mut() {
                o.insert("@context".to_owned(), json!("https://schema.org"));
            }
            Ok(("application/ld+json", pretty(&v)?))
        }
        (Format::JsonLd, Selection::All(all)) => {
            let graph: Vec<Value> = all.iter().map(jsonld).collect();
            let v = json!({"@context": "https://schema.org", "@graph": graph});
            Ok(("application/ld+json", pretty(&v)?))
        }
        (Format::Markdown, selection) => {
            let mut out = String::new();
            let list = match selection {
                Selection::One(r) => std::slice::from_ref(r),
                Selection::All(all) => all,
            };
            for r in list {
                super::markdown::write(r, &mut out);
            }
            Ok(("text/markdown; charset=utf-8", out.into_bytes()))
        }
        (Format::BarAssistant, Selection::One(r)) => {
            Ok(("application/json", pretty(&bar_assistant(r))?))
        }
        (Format::BarAssistant, Selection::All(all)) => Ok(("application/zip", zip(all)?)),
    }
}

/// `measure unit name`, as recipe pages write an ingredient.
pub fn ingredient_line(row: &IngredientLine) -> String {
    let amount = crate::units::as_written(&row.measure, &row.unit);
    if amount.is_empty() {
        row.name.to_string()
    } else {
        format!("{amount} {}", row.name)
    }
}

fn ours_as_keywords(r: &Recipe) -> Vec<String> {
    let fields = [
        ("base", &r.base),
        ("glass", &r.glass),
        ("method", &r.method),
        ("ice", &r.ice),
    ];
    fields
        .iter()
        .flat_map(|(field, list)| list.iter().map(move |item| format!("{field}: {item}")))
        .collect()
}

fn jsonld(r: &Recipe) -> Value {
    let mut lines: Vec<String> = r.ingredients.iter().map(ingredient_line).collect();
    lines.extend(r.garnish.iter().map(|g| format!("Garnish: {g}")));
    let mut v = json!({
        "@type": "Recipe",
        "name": r.name,
        "recipeCategory": "Cocktail",
        "recipeYield": "1 drink",
        "keywords": ours_as_keywords(r).join(", "),
        "recipeIngredient": lines,
    });
    let Some(o) = v.as_object_mut() else {
        return v;
    };
    if !r.notes.trim().is_empty() {
        o.insert("recipeInstructions".to_owned(), json!(r.notes));
    }
    if !r.method.is_empty() {
        let methods: Vec<&str> = r.method.iter().map(|m| m.as_str()).collect();
        o.insert("cookingMethod".to_owned(), json!(methods.join(", ")));
    }
    if !r.ingredients.is_empty() {
        o.insert("supply".to_owned(), json!(supplies(r)));
    }
    if !r.glass.is_empty() {
        let tools: Vec<Value> = r
            .glass
            .iter()
            .map(|g| json!({"@type": "HowToTool", "name": g}))
            .collect();
        o.insert("tool".to_owned(), json!(tools));
    }
    v
}

/// Each row exactly, as schema.org `HowToSupply` with its `requiredQuantity`.
fn supplies(r: &Recipe) -> Vec<Value> {
    r.ingredients
        .iter()
        .map(|row| {
            json!({
                "@type": "HowToSupply",
                "name": row.name,
                "requiredQuantity": {
                    "@type": "QuantitativeValue",
                    "value": row.measure,
                    "unitText": row.unit,
                },
            })
        })
        .collect()
}

/// A slug as Bar Assistant makes them: lower case letters and digits, dashes between.
fn slug(text: &str) -> String {
    let folded = crate::text::fold(text);
    let mut out = String::new();
    for c in folded.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "recipe".to_owned()
    } else {
        out
    }
}

/// A measure as an amount and a largest amount, when it is a number or a range.
fn amounts(measure: &str) -> Option<(f64, Option<f64>)> {
    let one = |t: &str| measure_value(&t.trim().replacen(',', ".", 1));
    if let Some(v) = one(measure) {
        return Some((v, None));
    }
    let (a, b) = measure.split_once('-')?;
    Some((one(a)?, Some(one(b)?)))
}

fn measure_value(m: &str) -> Option<f64> {
    let glyphs = [
        ('¼', 0.25),
        ('½', 0.5),
        ('¾', 0.75),
        ('⅛', 0.125),
        ('⅓', 1.0 / 3.0),
        ('⅔', 2.0 / 3.0),
    ];
    let fraction = |t: &str| -> Option<f64> {
        let (a, b) = t.split_once('/')?;
        let (a, b): (f64, f64) = (a.parse().ok()?, b.parse().ok()?);
        (b > 0.0).then(|| a / b)
    };
    if let Some(last) = m.chars().next_back()
        && let Some((_, part)) = glyphs.iter().find(|(g, _)| *g == last)
    {
        let whole = &m[..m.len() - last.len_utf8()];
        return Some(
            if whole.is_empty() {
                0.0
            } else {
                whole.parse().ok()?
            } + part,
        );
    }
    if let Some((whole, part)) = m.split_once(' ') {
        return Some(whole.parse::<f64>().ok()? + fraction(part)?);
    }
    fraction(m).or_else(|| m.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0))
}

fn bar_assistant(r: &Recipe) -> Value {
    let mut ingredients: Vec<Value> = Vec::new();
    let mut rows = Vec::new();
    let mut tags = vec!["libations".to_owned()];
    tags.extend(ours_as_keywords(r));
    for (i, row) in r.ingredients.iter().enumerate() {
        let id = ingredient_id(&mut ingredients, &row.name);
        // Bar Assistant's units are never blank: a row without one says `piece`, and a
        // tag says which rows those are, so that it reads back blank.
        let units = if row.unit.is_empty() {
            tags.push(format!("no unit: {}", i + 1));
            "piece"
        } else {
            row.unit.as_str()
        };
        let mut v = json!({"_id": id, "units": units, "optional": false, "sort": i + 1});
        match (row.measure.trim(), amounts(&row.measure)) {
            (_, Some((a, most))) => {
                v["amount"] = json!(a);
                v["amount_max"] = json!(most);
            }
            ("", None) => {
                v["amount"] = json!(if units == "top up" { 1 } else { 0 });
                v["amount_max"] = Value::Null;
            }
            (words, None) => {
                v["amount"] = json!(0);
                v["amount_max"] = Value::Null;
                v["note"] = json!(words);
            }
        }
        if units == "top up" {
            v["units"] = json!("topup");
        }
        rows.push(v);
    }
    json!({
        "recipe": {
            "_id": slug(&r.name),
            "name": r.name,
            "instructions": r.notes,
            "garnish": r.garnish.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(" | "),
            "glass": r.glass.first(),
            "method": r.method.first(),
            "tags": tags,
            "utensils": [],
            "images": [],
            "ingredients": rows,
        },
        "ingredients": ingredients,
    })
}

/// The `_id` of the ingredient named `name`, added to `ingredients` if it is new; two
/// names with one slug get two ids.
fn ingredient_id(ingredients: &mut Vec<Value>, name: &str) -> String {
    let base = slug(name);
    let mut id = base.clone();
    let mut n = 2;
    loop {
        match ingredients.iter().find(|v| v["_id"] == id.as_str()) {
            None => {
                ingredients.push(json!({"_id": id, "name": name}));
                return id;
            }
            Some(v) if v["name"] == name => return id,
            Some(_) => {
                id = format!("{base}-{n}");
                n += 1;
            }
        }
    }
}

fn zip(all: &[Recipe]) -> Result<Vec<u8>, ImportError> {
    let write_error = |e: zip::result::ZipError| ImportError::Write(e.to_string());
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut used = std::collections::HashSet::new();
    for r in all {
        let base = slug(&r.name);
        let mut name = base.clone();
        let mut n = 2;
        while !used.insert(name.clone()) {
            name = format!("{base}-{n}");
            n += 1;
        }
        let body = serde_json::to_vec_pretty(&bar_assistant(r))
            .map_err(|e| ImportError::Write(e.to_string()))?;
        zip.start_file(format!("cocktails/{name}/data.json"), options)
            .map_err(write_error)?;
        zip.write_all(&body)
            .map_err(|e| ImportError::Write(e.to_string()))?;
    }
    let cursor = zip.finish().map_err(write_error)?;
    Ok(cursor.into_inner())
}
