//! Any text as a search query against the sample: parsing and searching never panic, every
//! term is non-empty folded text, and the hits are distinct recipes that all match.
#![no_main]

use libations::recipes::Recipes;
use libations::search::{Index, SearchQuery};
use libations::text::fold;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn sample() -> &'static (Recipes, Index) {
    static SAMPLE: OnceLock<(Recipes, Index)> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let recipes = Recipes::sample().expect("sample loads");
        let index = Index::new(&recipes);
        (recipes, index)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else { return };
    let query = SearchQuery::parse(input);
    for term in &query.terms {
        assert!(!term.text.is_empty());
        assert_eq!(fold(&term.text), term.text, "terms are already folded");
    }
    let (recipes, index) = sample();
    let hits = index.search(&query);
    let mut seen = std::collections::HashSet::new();
    for &i in &hits {
        assert!(i < recipes.len());
        assert!(seen.insert(i), "a recipe is listed twice");
    }
    if query.is_empty() {
        assert_eq!(hits.len(), recipes.len());
    }
});
