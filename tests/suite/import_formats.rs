//! Importing and exporting recipes (`libations::import`): the real files in
//! `../shared/data/import/`, round trips through every export format, and a generated
//! 300-recipe Bar Assistant folder.

use crate::common;

use libations::import::{Format, Preview, Selection, Source, duplicates, export, read};
use libations::recipes::{Recipe, Recipes};
use serde_json::Value;
use std::path::PathBuf;

/// `../shared/data/import/`, or `None` (skipped; a failure under
/// LIBATIONS_REQUIRE_SHARED_DATA=1).
fn import_dir() -> Option<PathBuf> {
    common::shared_data("import/README.md").map(|p| p.with_file_name(""))
}

/// A measure as a number where it is one (`1/2` and `0.5` are the same amount).
fn value(measure: &str) -> Option<f64> {
    let m = measure.trim().replace(',', ".");
    let glyph = |c: char| match c {
        '¼' => Some(0.25),
        '½' => Some(0.5),
        '¾' => Some(0.75),
        _ => None,
    };
    if let Some(last) = m.chars().next_back()
        && let Some(part) = glyph(last)
    {
        let whole = m[..m.len() - last.len_utf8()].trim();
        return Some(
            if whole.is_empty() {
                0.0
            } else {
                whole.parse().ok()?
            } + part,
        );
    }
    let fraction = |t: &str| -> Option<f64> {
        let (a, b) = t.split_once('/')?;
        Some(a.trim().parse::<f64>().ok()? / b.trim().parse::<f64>().ok()?)
    };
    if let Some((w, f)) = m.split_once(' ') {
        return Some(w.parse::<f64>().ok()? + fraction(f)?);
    }
    fraction(&m).or_else(|| m.parse().ok())
}

fn same_measure(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let parts = |m: &str| -> Vec<Option<f64>> { m.split('-').map(value).collect() };
    let (pa, pb) = (parts(a), parts(b));
    pa.len() == pb.len()
        && pa
            .iter()
            .zip(&pb)
            .all(|(x, y)| matches!((x, y), (Some(x), Some(y)) if (x - y).abs() < 1e-6))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// What differs between `want` (as the collection has it) and `got` (imported back).
fn differences(want: &Recipe, got: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let name = want.name.as_str();
    if got["name"] != name {
        out.push(format!("{name}: name {}", got["name"]));
    }
    for (field, list) in [
        ("base", &want.base),
        ("glass", &want.glass),
        ("method", &want.method),
        ("ice", &want.ice),
        ("garnish", &want.garnish),
    ] {
        let want: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        if strings(&got[field]) != want {
            out.push(format!("{name}: {field} {want:?} became {}", got[field]));
        }
    }
    if got["notes"].as_str().map(str::trim) != Some(want.notes.trim()) {
        out.push(format!(
            "{name}: notes {:?} became {}",
            want.notes, got["notes"]
        ));
    }
    let rows = got["ingredients"].as_array().cloned().unwrap_or_default();
    if rows.len() != want.ingredients.len() {
        out.push(format!(
            "{name}: {} rows became {}",
            want.ingredients.len(),
            rows.len()
        ));
        return out;
    }
    for (w, g) in want.ingredients.iter().zip(&rows) {
        let ok = g["name"] == w.name.as_str()
            && g["unit"] == w.unit.as_str()
            && same_measure(g["measure"].as_str().unwrap_or(""), &w.measure);
        if !ok {
            out.push(format!(
                "{name}: row {:?} {:?} {:?} became {g}",
                w.measure, w.unit, w.name
            ));
        }
    }
    out
}

fn round_trip(recipes: &[Recipe], format: Format) {
    let (content_type, bytes) = export(Selection::All(recipes), format).expect("export");
    let text = String::from_utf8_lossy(&bytes);
    let preview = match format {
        Format::JsonLd => {
            assert_eq!(content_type, "application/ld+json");
            read(Source::JsonLd(&text))
        }
        Format::Markdown => {
            assert!(content_type.starts_with("text/markdown"));
            read(Source::Markdown(&text))
        }
        Format::BarAssistant => {
            assert_eq!(content_type, "application/zip");
            read(Source::Zip(&bytes))
        }
    }
    .expect("read back");
    assert_eq!(preview.recipes.len(), recipes.len(), "{format:?}");
    let mut failures = Vec::new();
    for (want, got) in recipes.iter().zip(&preview.recipes) {
        failures.extend(differences(want, &got.recipe));
    }
    assert!(
        failures.is_empty(),
        "{format:?}: {} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Each recipe alone, too.
    for r in recipes.iter().take(3) {
        let (_, bytes) = export(Selection::One(r), format).expect("export one");
        let text = String::from_utf8_lossy(&bytes);
        let one = match format {
            Format::JsonLd => read(Source::JsonLd(&text)),
            Format::Markdown => read(Source::Markdown(&text)),
            Format::BarAssistant => read(Source::Json(&bytes)),
        }
        .expect("read one back");
        assert_eq!(one.recipes.len(), 1);
        assert_eq!(differences(r, &one.recipes[0].recipe), Vec::<String>::new());
    }
}

/// Sorted by name as a collection is, the order an export writes.
fn all_formats(recipes: &Recipes) {
    for format in [Format::JsonLd, Format::Markdown, Format::BarAssistant] {
        round_trip(recipes.all(), format);
    }
}

#[test]
fn the_sample_round_trips_through_every_format() {
    all_formats(&common::import::sample());
}

#[test]
fn the_iba_collection_round_trips_through_every_format() {
    let Some(path) = common::shared_data("iba.json") else {
        return;
    };
    all_formats(&Recipes::from_file(&path).expect("iba.json"));
}

#[test]
fn the_bar_assistant_collection_round_trips_through_every_format() {
    let Some(path) = common::shared_data("bar-assistant.json") else {
        return;
    };
    all_formats(&Recipes::from_file(&path).expect("bar-assistant.json"));
}

#[test]
fn a_libations_file_reads_as_it_is() {
    let sample = common::import::sample();
    let preview = read(Source::Json(libations::recipes::SAMPLE_JSON.as_bytes())).unwrap();
    assert_eq!(preview.recipes.len(), sample.len());
    assert!(preview.problems.is_empty(), "{:?}", preview.problems);
    let negroni = sample.all().iter().find(|r| r.name == "Negroni").unwrap();
    let got = preview
        .recipes
        .iter()
        .find(|r| r.recipe["name"] == "Negroni")
        .unwrap();
    assert_eq!(differences(negroni, &got.recipe), Vec::<String>::new());
    assert!(got.recipe.get("id").is_none(), "ids are left out");
    // Every recipe is a duplicate of the collection's own.
    let dups = duplicates(&preview, &sample);
    assert_eq!(dups.len(), sample.len());
    let first = &dups[0];
    let name = preview.recipes[first.recipe].recipe["name"]
        .as_str()
        .unwrap();
    assert_eq!(sample.get(first.existing_id).unwrap().name, name);
}

#[test]
fn a_300_recipe_bar_assistant_folder() {
    let dir = tempfile::tempdir().unwrap();
    let written = common::import::bar_assistant_folder(dir.path(), 300);
    let preview = read(Source::Folder(dir.path())).unwrap();
    assert_eq!(preview.recipes.len(), 300);
    let mut failures = Vec::new();
    for (want, got) in written.iter().zip(&preview.recipes) {
        failures.extend(differences(want, &got.recipe));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Totals over one set of files: recipes, rows read exactly, rows kept as names.
#[derive(Default, Debug)]
struct Totals {
    recipes: usize,
    rows: usize,
    kept: usize,
}

impl Totals {
    fn add(&mut self, preview: &Preview) {
        self.recipes += preview.recipes.len();
        self.rows += preview
            .recipes
            .iter()
            .map(|r| r.recipe["ingredients"].as_array().map_or(0, Vec::len))
            .sum::<usize>();
        self.kept += preview
            .problems
            .iter()
            .filter(|p| p.field.starts_with("ingredients[") && p.message.contains("whole line"))
            .count();
    }
}

#[test]
fn the_shared_bar_assistant_files() {
    let Some(dir) = import_dir() else {
        return;
    };
    let converted: Vec<Value> = serde_json::from_slice(
        &std::fs::read(dir.join("../bar-assistant.json")).expect("bar-assistant.json"),
    )
    .unwrap();
    let mut totals = Totals::default();
    let mut failures = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("bar-assistant"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20);
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let source: Value = serde_json::from_slice(&bytes).unwrap();
        let preview = read(Source::Json(&bytes)).unwrap();
        totals.add(&preview);
        assert_eq!(preview.recipes.len(), 1, "{}", file.display());
        let got = &preview.recipes[0].recipe;
        let name = source["name"].as_str().unwrap();
        if got["name"] != name.replace('\u{a0}', " ").trim() {
            failures.push(format!("{name}: name {}", got["name"]));
        }
        if let Some(glass) = source["glass"].as_str()
            && strings(&got["glass"]) != [glass]
        {
            failures.push(format!("{name}: glass {}", got["glass"]));
        }
        if let Some(method) = source["method"].as_str()
            && strings(&got["method"]).first().map(String::as_str) != Some(method)
        {
            failures.push(format!("{name}: method {}", got["method"]));
        }
        let garnish = source["garnish"].as_str().unwrap_or("").trim();
        if garnish.is_empty() != strings(&got["garnish"]).is_empty() {
            failures.push(format!(
                "{name}: garnish {garnish:?} became {}",
                got["garnish"]
            ));
        }
        let rows = got["ingredients"].as_array().unwrap();
        let source_rows = source["ingredients"].as_array().unwrap();
        if rows.len() != source_rows.len() {
            failures.push(format!(
                "{name}: {} rows of {}",
                rows.len(),
                source_rows.len()
            ));
            continue;
        }
        // Measures and units as ../shared/data/bar-assistant.json converted the same recipe.
        let Some(theirs) = converted.iter().find(|r| r["name"] == got["name"]) else {
            failures.push(format!("{name}: not in bar-assistant.json"));
            continue;
        };
        for (g, t) in rows.iter().zip(theirs["ingredients"].as_array().unwrap()) {
            let same = g["unit"] == t["unit"]
                && same_measure(
                    g["measure"].as_str().unwrap(),
                    t["measure"].as_str().unwrap(),
                )
                && g["name"] == t["name"];
            if !same {
                failures.push(format!("{name}: row {g} where bar-assistant.json has {t}"));
            }
        }
    }
    println!(
        "IMPORT TOTALS bar-assistant/: {} files, {} recipes, {} rows: {} read exactly, {} kept as names",
        files.len(),
        totals.recipes,
        totals.rows,
        totals.rows - totals.kept,
        totals.kept
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn page(dir: &std::path::Path, name: &str) -> Preview {
    let html = std::fs::read_to_string(dir.join("jsonld").join(name)).unwrap();
    libations::import::read_from(Source::Html(&html), Some("https://drinks.example/x")).unwrap()
}

fn row(r: &Value, i: usize) -> (String, String, String) {
    let g = &r["ingredients"][i];
    let s = |k: &str| g[k].as_str().unwrap_or("").to_owned();
    (s("measure"), s("unit"), s("name"))
}

#[test]
fn the_shared_jsonld_pages() {
    let Some(dir) = import_dir() else {
        return;
    };
    let mut totals = Totals::default();

    let daiquiri = page(&dir, "daiquiri.html");
    totals.add(&daiquiri);
    let r = &daiquiri.recipes[0].recipe;
    assert_eq!(r["name"], "Daiquiri");
    assert_eq!(row(r, 0), ("2".into(), "oz".into(), "white rum".into()));
    assert_eq!(row(r, 2), ("¾".into(), "oz".into(), "simple syrup".into()));
    assert_eq!(strings(&r["glass"]), ["Coupe"]);
    assert_eq!(strings(&r["method"]), ["Shake", "Double Strain"]);
    assert_eq!(strings(&r["base"]), ["Rum"]);
    let notes = r["notes"].as_str().unwrap();
    assert!(notes.starts_with("Rum, lime and sugar"), "{notes}");
    assert!(
        notes.ends_with("Source: https://drinks.example/x"),
        "{notes}"
    );
    let marks: Vec<(&str, &str)> = daiquiri
        .problems
        .iter()
        .map(|p| (p.field.as_str(), p.message.as_str()))
        .collect();
    assert!(
        marks.contains(&("base", "base guessed from the ingredients")),
        "{marks:?}"
    );
    assert!(marks.contains(&("glass", "glass guessed from the instructions")));

    let negroni = page(&dir, "negroni-graph.html");
    totals.add(&negroni);
    assert_eq!(
        negroni.recipes.len(),
        1,
        "WebSite and WebPage are not recipes"
    );
    let r = &negroni.recipes[0].recipe;
    assert_eq!(r["name"], "Negroni");
    assert_eq!(r["ingredients"].as_array().unwrap().len(), 3);
    assert_eq!(
        row(r, 0),
        ("1".into(), "oz".into(), "London dry gin".into())
    );
    assert_eq!(row(r, 1), ("1".into(), "oz".into(), "Campari".into()));
    assert_eq!(strings(&r["garnish"]), ["Orange peel"]);
    assert_eq!(strings(&r["glass"]), ["Lowball"]);
    assert_eq!(strings(&r["method"]), ["Stir"]);
    assert_eq!(strings(&r["ice"]), ["Large Cube"]);
    assert!(
        r["notes"]
            .as_str()
            .unwrap()
            .contains("Stir until well chilled")
    );

    let penicillin = page(&dir, "penicillin-sections.html");
    totals.add(&penicillin);
    let r = &penicillin.recipes[0].recipe;
    assert_eq!(r["ingredients"].as_array().unwrap().len(), 4);
    assert_eq!(
        row(r, 3),
        (
            "1/4".into(),
            "oz".into(),
            "Islay single malt Scotch (to float)".into()
        )
    );
    assert_eq!(strings(&r["garnish"]), ["Candied ginger"]);
    assert_eq!(strings(&r["base"]), ["Scotch"]);
    let notes = r["notes"].as_str().unwrap();
    assert!(
        notes.contains("Honey-ginger syrup:\nWarm equal parts"),
        "{notes}"
    );
    assert!(
        notes.contains("The drink:\nShake the blended Scotch"),
        "{notes}"
    );

    let two = page(&dir, "two-recipes.html");
    totals.add(&two);
    let names: Vec<&str> = two
        .recipes
        .iter()
        .map(|r| r.recipe["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Tom Collins", "French 75"]);
    let collins = &two.recipes[0].recipe;
    assert!(
        collins["notes"]
            .as_str()
            .unwrap()
            .starts_with("Tall, bright & fizzy.")
    );
    assert_eq!(
        row(collins, 3),
        ("".into(), "top up".into(), "club soda".into())
    );
    assert_eq!(strings(&collins["glass"]), ["Highball"]);
    assert_eq!(
        row(&two.recipes[1].recipe, 3),
        ("3".into(), "oz".into(), "Champagne".into())
    );
    assert_eq!(strings(&two.recipes[1].recipe["glass"]), ["Flute"]);

    let html = std::fs::read_to_string(dir.join("jsonld/no-recipe.html")).unwrap();
    let err = read(Source::Html(&html)).unwrap_err();
    assert!(err.to_string().contains("no schema.org Recipe"), "{err}");

    println!(
        "IMPORT TOTALS jsonld/: {} recipes, {} rows: {} read exactly, {} kept as names",
        totals.recipes,
        totals.rows,
        totals.rows - totals.kept,
        totals.kept
    );
    assert_eq!(totals.kept, 0);
}

/// Every row of the real collections, written as a recipe page writes it (`measure unit
/// name`), read back by the line parser: the same amount, unit (in its one form) and name.
#[test]
fn every_shared_row_written_as_a_line_reads_back() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in ["iba.json", "bar-assistant.json"] {
        // A missing file is logged as a skip; the others are still checked.
        let Some(path) = common::shared_data(file) else {
            continue;
        };
        let recipes = Recipes::from_file(&path).unwrap();
        for row in recipes.all().iter().flat_map(|r| &r.ingredients) {
            let text = libations::import::export::ingredient_line(row);
            let got = libations::import::line::parse(&text);
            let unit = libations::import::line::unit_name(&row.unit).unwrap_or(&row.unit);
            checked += 1;
            let same = got.note.is_none()
                && !got.garnish
                && got.unit == unit
                && same_measure(&got.measure, &row.measure)
                && got.name == row.name.as_str();
            if !same {
                failures.push(format!("{file}: {text:?} read as {got:?}"));
            }
        }
    }
    println!(
        "IMPORT TOTALS lines: {checked} rows of iba.json and bar-assistant.json as lines, {} read back exactly",
        checked - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Checks `value` against the parts of a JSON schema Bar Assistant's uses: `type` (one or
/// a list), `required`, `properties`, `items`, `minLength`, `minimum`, `maximum`.
fn schema_errors(schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let is = |t: &str| match t {
            "string" => value.is_string(),
            "number" => value.is_number(),
            "integer" => value.is_i64() || value.is_u64(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            "null" => value.is_null(),
            _ => true,
        };
        if !types.iter().any(|t| is(t)) {
            out.push(format!("{at}: {value} is not {types:?}"));
            return;
        }
    }
    if let (Some(min), Some(s)) = (
        schema.get("minLength").and_then(Value::as_u64),
        value.as_str(),
    ) && (s.chars().count() as u64) < min
    {
        out.push(format!("{at}: {s:?} is shorter than {min}"));
    }
    if let Some(v) = value.as_f64() {
        if schema
            .get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|m| v < m)
        {
            out.push(format!("{at}: {v} below the minimum"));
        }
        if schema
            .get("maximum")
            .and_then(Value::as_f64)
            .is_some_and(|m| v > m)
        {
            out.push(format!("{at}: {v} above the maximum"));
        }
    }
    if let Some(o) = value.as_object() {
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = key.as_str().unwrap();
            if !o.contains_key(key) {
                out.push(format!("{at}: {key} missing"));
            }
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (key, inner) in o {
                if let Some(sub) = props.get(key) {
                    schema_errors(sub, inner, &format!("{at}.{key}"), out);
                }
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, item) in list.iter().enumerate() {
            schema_errors(items, item, &format!("{at}[{i}]"), out);
        }
    }
}

/// What the Bar Assistant export writes is valid against its "cocktail-02" schema, for
/// every recipe of the sample and of the shared collections.
#[test]
fn bar_assistant_export_follows_its_schema() {
    let Some(dir) = import_dir() else {
        return;
    };
    let schema: Value = serde_json::from_slice(
        &std::fs::read(dir.join("bar-assistant-cocktail-02.schema.json")).unwrap(),
    )
    .unwrap();
    let mut collections = vec![common::import::sample()];
    for file in ["iba.json", "bar-assistant.json"] {
        collections.push(Recipes::from_file(&dir.join("..").join(file)).unwrap());
    }
    let mut errors = Vec::new();
    let mut checked = 0;
    for recipes in &collections {
        for r in recipes.all() {
            let (content_type, bytes) = export(Selection::One(r), Format::BarAssistant).unwrap();
            assert_eq!(content_type, "application/json");
            let v: Value = serde_json::from_slice(&bytes).unwrap();
            schema_errors(&schema, &v, &r.name, &mut errors);
            checked += 1;
        }
    }
    assert!(checked > 400);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
