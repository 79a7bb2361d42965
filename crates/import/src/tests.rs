//! Reading and writing each format, on small inputs written here.

use super::*;

fn names(preview: &Preview) -> Vec<&str> {
    preview
        .recipes
        .iter()
        .filter_map(|r| r.recipe["name"].as_str())
        .collect()
}

#[test]
fn a_bare_recipe_in_a_page() {
    let html = r#"<html><head><script type="application/ld+json">
        {"@context": "https://schema.org", "@type": "Recipe", "name": "Daiquiri &amp; Co",
         "recipeIngredient": ["2 oz white rum", "1 oz lime juice", "Lime wheel, for garnish"],
         "recipeInstructions": "Shake with ice, strain into a coupe."}
        </script></head><body></body></html>"#;
    let preview = read_from(Source::Html(html), Some("https://example.org/d")).unwrap();
    assert_eq!(names(&preview), ["Daiquiri & Co"]);
    let r = &preview.recipes[0].recipe;
    assert_eq!(r["ingredients"][0]["measure"], "2");
    assert_eq!(r["ingredients"][0]["unit"], "oz");
    assert_eq!(r["ingredients"][0]["name"], "white rum");
    assert_eq!(r["garnish"][0], "Lime wheel");
    assert_eq!(r["glass"][0], "Coupe");
    assert!(
        r["notes"]
            .as_str()
            .unwrap()
            .ends_with("Source: https://example.org/d")
    );
    assert!(
        preview
            .problems
            .iter()
            .any(|p| p.field == "glass" && p.message == "glass guessed from the instructions")
    );
    assert!(r.get("id").is_none());
}

#[test]
fn a_page_without_a_recipe_says_so() {
    let err = read(Source::Html("<html><body>hi</body></html>")).unwrap_err();
    assert!(err.to_string().contains("no schema.org JSON-LD"), "{err}");
}

fn page(json: &str) -> String {
    format!(
        "<!doctype html><html><head><title>x</title>\
         <script type=\"application/ld+json\">{json}</script></head><body></body></html>"
    )
}

#[test]
fn recipes_in_a_graph_an_array_and_with_a_type_list() {
    let json = r#"[{"@context": "https://schema.org", "@graph": [
        {"@type": "WebPage", "name": "Not a drink"},
        {"@type": ["Recipe", "NewsArticle"], "name": "One", "recipeIngredient": ["1 oz gin"]}]},
        {"@type": "http://schema.org/Recipe", "name": "Two"},
        {"@type": "ItemList", "itemListElement": [{"@type": "ListItem", "item":
            {"@type": "Recipe", "name": "Three"}}]}]"#;
    let preview = read(Source::Html(&page(json))).unwrap();
    assert_eq!(names(&preview), ["One", "Two", "Three"]);
    let preview = read(Source::JsonLd(json)).unwrap();
    assert_eq!(names(&preview), ["One", "Two", "Three"]);
    let preview = read(Source::Json(json.as_bytes())).unwrap();
    assert_eq!(names(&preview), ["One", "Two", "Three"]);
}

#[test]
fn sections_steps_and_entities_become_notes() {
    let json = r#"{"@type": "Recipe", "name": "Caf&eacute; &amp; <b>Rum</b>",
        "description": "<p>Rich&nbsp;&amp; dark.</p>",
        "recipeInstructions": [
          {"@type": "HowToSection", "name": "Syrup", "itemListElement": [
            {"@type": "HowToStep", "text": "Boil sugar &amp; water."}]},
          {"@type": "HowToStep", "name": "Step 2", "text": "Stir it."},
          "Serve."]}"#;
    let preview = read(Source::JsonLd(json)).unwrap();
    let r = &preview.recipes[0].recipe;
    assert_eq!(r["name"], "Café & Rum");
    assert_eq!(
        r["notes"],
        "Rich & dark.\n\nSyrup:\nBoil sugar & water.\nStir it.\nServe."
    );
    assert_eq!(r["method"][0], "Stir");
}

#[test]
fn a_line_that_cannot_be_read_is_kept_with_a_note() {
    let json = r#"{"@type": "Recipe", "name": "X", "recipeIngredient": ["Angostura", "3 cl"]}"#;
    let preview = read(Source::JsonLd(json)).unwrap();
    let r = &preview.recipes[0].recipe;
    assert_eq!(r["ingredients"][0]["name"], "Angostura");
    let fields: Vec<&str> = preview.problems.iter().map(|p| p.field.as_str()).collect();
    assert!(fields.contains(&"ingredients[0]"), "{fields:?}");
    // The nameless row stays, and the validator's word on it is a problem too.
    assert_eq!(r["ingredients"][1]["measure"], "3");
    assert!(
        preview
            .problems
            .iter()
            .any(|p| p.field == "ingredients[1].name" && p.recipe == 0),
        "{:?}",
        preview.problems
    );
}

#[test]
fn problems_serialize_as_the_api_says() {
    let p = Problem {
        recipe: 2,
        field: "glass".to_owned(),
        message: "glass not given".to_owned(),
    };
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        serde_json::json!({"recipe": 2, "field": "glass", "message": "glass not given"})
    );
    let d = Duplicate {
        recipe: 0,
        existing_id: 7,
    };
    assert_eq!(
        serde_json::to_value(&d).unwrap(),
        serde_json::json!({"recipe": 0, "existing_id": 7})
    );
}

#[test]
fn nothing_readable_is_an_error_naming_why() {
    assert!(matches!(
        read(Source::Json(b"{nope")),
        Err(ImportError::Json(_))
    ));
    assert!(matches!(
        read(Source::Json(b"[1, 2]")),
        Err(ImportError::NoRecipe(_))
    ));
    assert!(matches!(
        read(Source::Zip(b"PK not a zip")),
        Err(ImportError::Zip(_))
    ));
    assert!(matches!(
        read(Source::Markdown("no heading")),
        Err(ImportError::NoRecipe(_))
    ));
    let err = read(Source::Html(&page(r#"{"@type": "Article", "name": "x"}"#))).unwrap_err();
    assert!(err.to_string().contains("no schema.org Recipe"), "{err}");
}

#[test]
fn a_cocktail_02_recipe_names_its_rows_by_id() {
    let json = r#"{"recipe": {"_id": "margarita", "name": "Margarita",
        "instructions": "Shake with ice.", "garnish": "Garnish with a lime wheel.",
        "glass": "Coupe", "method": "Shake", "tags": ["classic"],
        "ingredients": [
          {"_id": "tequila", "amount": 50, "units": "ml"},
          {"_id": "lime-juice", "amount": 0.75, "units": "ounces", "note": "fresh"},
          {"_id": "salt", "amount": 1, "amount_max": 2, "units": "Pinches", "optional": true},
          {"_id": "soda", "amount": 1, "units": "topup"}]},
      "ingredients": [{"_id": "tequila", "name": "Tequila"}, {"_id": "lime-juice", "name": "Lime juice"},
        {"_id": "salt", "name": "Salt"}, {"_id": "soda", "name": "Soda"}]}"#;
    let preview = read(Source::Json(json.as_bytes())).unwrap();
    let r = &preview.recipes[0].recipe;
    let rows: Vec<(String, String, String)> = r["ingredients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let s = |k: &str| g[k].as_str().unwrap().to_owned();
            (s("measure"), s("unit"), s("name"))
        })
        .collect();
    let want = [
        ("50", "ml", "Tequila"),
        ("0.75", "oz", "Lime juice (fresh)"),
        ("1-2", "pinch", "Salt (optional)"),
        ("", "top up", "Soda"),
    ];
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
        .collect();
    assert_eq!(rows, want);
    assert_eq!(r["garnish"], serde_json::json!(["lime wheel"]));
    assert_eq!(r["glass"], serde_json::json!(["Coupe"]));
    assert_eq!(r["base"], serde_json::json!(["Tequila"]));
}

#[test]
fn a_zip_skips_files_that_are_not_recipes() {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    let recipe = br#"{"name": "Gimlet", "instructions": "Shake.", "ingredients": [
        {"name": "Gin", "amount": 60, "units": "ml"}]}"#;
    zip.start_file("cocktails/gimlet/data.json", options)
        .unwrap();
    zip.write_all(recipe).unwrap();
    zip.start_file("ingredients/gin/data.json", options)
        .unwrap();
    zip.write_all(br#"{"name": "Gin", "strength": 40}"#)
        .unwrap();
    zip.start_file("cocktails/gimlet/image.png", options)
        .unwrap();
    zip.write_all(b"\x89PNG").unwrap();
    zip.start_file("README.json", options).unwrap();
    zip.write_all(b"not json").unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let preview = read(Source::Zip(&bytes)).unwrap();
    assert_eq!(names(&preview), ["Gimlet"]);
}

/// The properties our JSON-LD uses, each a property of schema.org's `Recipe` (or of the
/// types it inherits from: `HowTo`, `CreativeWork`, `Thing`), `HowToSupply`/`HowToTool`
/// (`HowToItem`) or `QuantitativeValue`, as the vocabulary at schema.org defines them.
const VOCABULARY: [&str; 14] = [
    "@context",
    "@graph",
    "@type",
    "name",
    "recipeCategory",
    "recipeYield",
    "keywords",
    "recipeIngredient",
    "recipeInstructions",
    "cookingMethod",
    "tool",
    "supply",
    "requiredQuantity",
    "value",
];

fn keys_outside_the_vocabulary(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, inner) in o {
                if !VOCABULARY.contains(&k.as_str()) && k != "unitText" {
                    out.push(k.clone());
                }
                keys_outside_the_vocabulary(inner, out);
            }
        }
        serde_json::Value::Array(items) => {
            items
                .iter()
                .for_each(|i| keys_outside_the_vocabulary(i, out));
        }
        _ => {}
    }
}

#[test]
fn json_ld_uses_only_the_vocabulary() {
    let sample = crate::recipes::Recipes::sample().unwrap();
    let (_, bytes) = export(Selection::All(sample.all()), Format::JsonLd).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let mut odd = Vec::new();
    keys_outside_the_vocabulary(&v, &mut odd);
    assert!(odd.is_empty(), "{odd:?}");
    let types: Vec<&str> = v["@graph"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["@type"].as_str().unwrap())
        .collect();
    assert!(types.iter().all(|t| *t == "Recipe"));
    assert_eq!(v["@context"], "https://schema.org");
    let (_, one) = export(Selection::One(&sample.all()[0]), Format::JsonLd).unwrap();
    let one: serde_json::Value = serde_json::from_slice(&one).unwrap();
    assert_eq!(one["@type"], "Recipe");
    assert_eq!(one["@context"], "https://schema.org");
}

#[test]
fn formats_are_named_as_in_the_address() {
    assert_eq!(Format::from_name("jsonld"), Some(Format::JsonLd));
    assert_eq!(Format::from_name("markdown"), Some(Format::Markdown));
    assert_eq!(
        Format::from_name("bar-assistant"),
        Some(Format::BarAssistant)
    );
    assert_eq!(Format::from_name("csv"), None);
}

#[test]
fn what_saving_would_refuse_is_a_problem() {
    let long = "x".repeat(crate::recipes::caps::NAME_CHARS + 1);
    let json = format!(
        r#"[{{"name": "{long}", "ingredients": [{{"name": "Gin", "measure": "1", "unit": "oz"}}]}},
            {{"name": "Fine\u202e", "notes": ""}}, {{"name": "Good"}}]"#
    );
    let preview = read(Source::Json(json.as_bytes())).unwrap();
    assert_eq!(preview.recipes.len(), 3, "nothing is dropped");
    let fields: Vec<(usize, &str)> = preview
        .problems
        .iter()
        .map(|p| (p.recipe, p.field.as_str()))
        .collect();
    assert!(fields.contains(&(0, "name")), "{:?}", preview.problems);
    assert!(fields.contains(&(1, "name")), "{:?}", preview.problems);
    assert!(
        !fields.iter().any(|(r, _)| *r == 2),
        "{:?}",
        preview.problems
    );
}

#[test]
fn a_folder_is_read_below_its_root_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ingredients").join("export");
    let write = |rel: &str, body: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    };
    write(
        "cocktails/gimlet/data.json",
        r#"{"name": "Gimlet", "instructions": "Shake.", "ingredients": []}"#,
    );
    write(
        "ingredients/gin/data.json",
        r#"{"name": "Gin", "instructions": "x"}"#,
    );
    write("cocktails/gimlet/notes.txt", "not json");
    let preview = read(Source::Folder(&root)).unwrap();
    assert_eq!(names(&preview), ["Gimlet"]);
    let missing = read(Source::Folder(&dir.path().join("nope"))).unwrap_err();
    assert!(matches!(missing, ImportError::Read { .. }), "{missing}");
}
