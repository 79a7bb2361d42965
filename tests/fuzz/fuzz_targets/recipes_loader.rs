//! Any bytes as a recipes file: loading never panics, and whatever loads survives a round
//! trip through the API's JSON unchanged (nothing is dropped or altered).
#![no_main]

use libations::recipes::{Origin, Recipes};
use libfuzzer_sys::fuzz_target;
use std::time::SystemTime;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(recipes) = Recipes::parse(text, Origin::Embedded, SystemTime::UNIX_EPOCH) else {
        return;
    };
    let json = serde_json::to_string(recipes.all()).expect("recipes serialise");
    let again = Recipes::parse(&json, Origin::Embedded, SystemTime::UNIX_EPOCH)
        .expect("what we serve must load again");
    assert_eq!(recipes.all(), again.all());
    for r in recipes.all() {
        assert_eq!(recipes.get(r.id), Some(r));
    }
});
