//! The shape of each crate's source tree, checked: arrows between rooms point one way.
//!
//! Between crates the compiler holds the arrows (Cargo refuses a circle of crates, and a
//! crate cannot name one it does not depend on). Inside a crate it cannot, so these tests
//! read every production source file of every crate (the binary's `src/` and each
//! `crates/*/src/`; comments and `#[cfg(test)]` items skipped), resolve each `crate::`,
//! `super::` and `self::` path it names (`use` groups included), and fail on:
//!
//! 1. a circle between the rooms of any folder: the crate root's modules, or the child
//!    modules of any module at any depth (a folder's root, `lib.rs` or `mod.rs`, is the
//!    room `mod` when it holds code; its `mod` and `pub use` lines are the map and not
//!    arrows; no list of folders to keep up to date);
//! 2. a source file longer than [`MAX_LINES`] outside its tests.
//!
//! The steps, a file each: `source` lists the files and keeps what ships, `paths` resolves
//! the paths a line names, `tree` turns them into arrows per folder, `cycles` finds
//! circles; the checks are below, the reader's own tests in `tests`.

mod cycles;
mod paths;
mod source;
#[cfg(test)]
mod tests;
mod tree;

use cycles::{find_cycle, without_root};
use source::sources;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use tree::Tree;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The most lines a source file may have outside its tests.
const MAX_LINES: usize = 600;

/// Every crate of the workspace: its name (its folder) and its `src/`.
fn crates() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = vec![("libations".to_owned(), root.join("src"))];
    let members = std::fs::read_dir(root.join("crates")).expect("read crates/");
    for entry in members {
        let dir = entry.expect("dir entry").path();
        if dir.join("Cargo.toml").is_file() {
            let name = dir.file_name().expect("a name").to_string_lossy();
            found.push((format!("crates/{name}"), dir.join("src")));
        }
    }
    found.sort();
    found
}

fn trees() -> Vec<(String, Tree)> {
    crates()
        .into_iter()
        .map(|(name, src)| (name, Tree::new(sources(&src))))
        .collect()
}

fn folder_name(folder: &[String]) -> String {
    match folder.is_empty() {
        true => "the crate root".to_owned(),
        false => folder.join("::"),
    }
}

#[test]
fn no_room_imports_itself_through_others() {
    let trees = trees();
    assert!(trees.len() >= 7, "the binary and six library crates");
    let web = &trees
        .iter()
        .find(|(n, _)| n == "crates/web")
        .expect("web")
        .1;
    let folders = web.arrows();
    assert!(
        folders[&Vec::new()]["handlers"].contains("who"),
        "the reader sees handlers → who in crates/web: {:?}",
        folders[&Vec::new()]
    );
    let mut circles = Vec::new();
    for (name, tree) in &trees {
        for (folder, graph) in tree.arrows() {
            if let Some(cycle) = find_cycle(&without_root(&graph)) {
                circles.push(format!(
                    "{name}, {}: {}",
                    folder_name(&folder),
                    cycle.join(" → ")
                ));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "rooms import each other in a circle:\n{}",
        circles.join("\n")
    );
}

#[test]
fn no_file_is_longer_than_the_limit() {
    let long: Vec<String> = trees()
        .iter()
        .flat_map(|(name, tree)| {
            tree.too_long()
                .into_iter()
                .map(move |f| format!("{name}/src/{f}"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// Prints every crate's folders, their rooms and arrows:
/// `cargo test --lib module_graph::print_rooms -- --ignored --nocapture`.
#[test]
#[ignore = "prints the graph; run by hand"]
fn print_rooms() {
    for (name, tree) in trees() {
        for (folder, graph) in tree.arrows() {
            for (room, uses) in graph {
                let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
                let uses = if uses.is_empty() {
                    "nothing".to_owned()
                } else {
                    uses.join(", ")
                };
                println!("{name}: {} :: {room} -> {uses}", folder_name(&folder));
            }
        }
    }
}
