//! Import test inputs made on the fly: a Bar Assistant export folder of any size.

use libations::import::{Format, Selection, export};
use libations::recipes::{Origin, Recipe, Recipes};
use std::path::{Path, PathBuf};

/// The recipes a bulk test starts from: `../shared/data/bar-assistant.json` (306 real
/// recipes) when it is there, else the embedded sample.
pub fn source_recipes() -> Vec<Recipe> {
    let shared =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/bar-assistant.json");
    let recipes = if shared.is_file() {
        Recipes::from_file(&shared).expect("bar-assistant.json loads")
    } else {
        Recipes::sample().expect("the sample loads")
    };
    recipes.all().to_vec()
}

/// Writes a Bar Assistant export folder of `count` recipes into `dir`
/// (`cocktails/<slug>/data.json`, cocktail-02 schema, as `export` writes it) and returns
/// the recipes written, in order. With fewer source recipes than `count` they repeat,
/// named `… #2`, `… #3`, so every name is distinct.
pub fn bar_assistant_folder(dir: &Path, count: usize) -> Vec<Recipe> {
    let source = source_recipes();
    assert!(!source.is_empty());
    let mut written = Vec::with_capacity(count);
    for i in 0..count {
        let mut recipe = source[i % source.len()].clone();
        let round = i / source.len();
        if round > 0 {
            recipe.name = format!("{} #{}", recipe.name, round + 1).into();
        }
        recipe.id = i as u64 + 1;
        let (_, body) = export(Selection::One(&recipe), Format::BarAssistant).expect("export");
        let folder = dir.join("cocktails").join(format!("recipe-{:04}", i + 1));
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::write(folder.join("data.json"), body).expect("write data.json");
        written.push(recipe);
    }
    written
}

/// The sample collection, for tests that need no shared data.
pub fn sample() -> Recipes {
    Recipes::parse(
        libations::recipes::SAMPLE_JSON,
        Origin::Embedded,
        std::time::SystemTime::UNIX_EPOCH,
    )
    .expect("sample")
}
