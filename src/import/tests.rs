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
