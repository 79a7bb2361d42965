//! The shape of the source tree, checked: arrows between modules point one way.
//!
//! Read from the bottom up (`text`, then `recipes`, then `search`, …), every module can be
//! understood, tested and moved on its own, and inside a module with a folder each room
//! (sub-module) can be read knowing only the rooms below it. These tests read every
//! production source file under `src/` (comments and `#[cfg(test)]` items skipped), resolve
//! each `crate::`, `super::` and `self::` path it names (`use` groups included), and fail on:
//!
//! 1. a circle between top-level modules;
//! 2. a circle between the rooms of any top-level module (its root `mod.rs` is the room
//!    `mod` when it holds code; its `mod` and `use` lines are the map and not arrows);
//! 3. an arrow the rules in `docs/ARCHITECTURE.md` (the ```` ```rules ```` block) do not
//!    allow, or a room those rules do not list, for each module they list;
//! 4. a source file longer than [`MAX_LINES`] outside its tests.
//!
//! The steps, a file each: `source` lists the files and keeps what ships, `paths` resolves
//! the paths a line names, `tree` turns them into arrows, `cycles` finds circles, `rules`
//! reads the doc; the checks are below, the reader's own tests in `tests`.

mod cycles;
mod paths;
mod rules;
mod source;
#[cfg(test)]
mod tests;
mod tree;

use cycles::{find_cycle, without_root};
use rules::Rules;
use source::sources;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tree::Tree;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The most lines a source file may have outside its tests.
const MAX_LINES: usize = 600;

/// Top-level modules whose rooms must not form a circle even when no rule lists them.
const FOLDERS: &[&str] = &[
    "web",
    "app",
    "tailnet",
    "connections",
    "recipes",
    "store",
    "household",
];

fn tree() -> Tree {
    Tree::new(sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")))
}

#[test]
fn no_module_imports_itself_through_others() {
    let (top, _) = tree().arrows();
    assert!(
        top.get("search")
            .is_some_and(|uses| uses.contains("recipes")),
        "the reader sees search → recipes: {top:?}"
    );
    if let Some(cycle) = find_cycle(&top) {
        panic!(
            "modules import each other in a circle: {}",
            cycle.join(" → ")
        );
    }
}

#[test]
fn no_room_imports_itself_through_others() {
    let (_, inner) = tree().arrows();
    for top in FOLDERS {
        let graph = inner
            .get(*top)
            .unwrap_or_else(|| panic!("{top} has rooms: {inner:?}"));
        if let Some(cycle) = find_cycle(&without_root(graph)) {
            panic!(
                "rooms of {top} import each other in a circle: {}",
                cycle.join(" → ")
            );
        }
    }
}

#[test]
fn rooms_keep_the_written_rules() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md"))
            .expect("read docs/ARCHITECTURE.md");
    let rules = Rules::parse(&doc).unwrap_or_else(|e| panic!("{e}"));
    assert!(rules.0.contains_key("web"), "the rules cover web/");
    let (_, inner) = tree().arrows();
    let broken = rules.broken(&inner);
    assert!(
        broken.is_empty(),
        "docs/ARCHITECTURE.md's rules are broken:\n{}",
        broken.join("\n")
    );
}

#[test]
fn no_file_is_longer_than_the_limit() {
    let long = tree().too_long();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// Prints every module's rooms and their arrows, for writing the rules:
/// `cargo test --lib module_graph::print_rooms -- --ignored --nocapture`.
#[test]
#[ignore = "prints the graph; run by hand"]
fn print_rooms() {
    let (top, inner) = tree().arrows();
    for (module, graph) in inner {
        for (room, uses) in graph {
            let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
            println!(
                "{module}::{room} -> {}",
                if uses.is_empty() {
                    "nothing".to_owned()
                } else {
                    uses.join(", ")
                }
            );
        }
    }
    println!("top: {top:?}");
}
