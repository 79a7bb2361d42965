//! A crate as a tree of folders (the crate root and every module with child modules) and
//! their rooms (the child modules), and the arrows between the rooms of each folder.

use super::paths::{expand, named};
use super::source::{Source, outside_tests, production};
use super::{Graph, MAX_LINES};
use std::collections::{BTreeMap, BTreeSet};

/// A folder: a module path (`[]` is the crate root, `["web", "http"]` is `web::http`).
pub(super) type Folder = Vec<String>;

/// One crate's files, which folders have which rooms, and what each folder's root
/// re-exports.
pub(super) struct Tree {
    sources: Vec<Source>,
    /// A folder → its child modules (the rooms), from the files.
    rooms: BTreeMap<Folder, BTreeSet<String>>,
    /// A folder → the names its root re-exports → the room each comes from.
    exports: BTreeMap<Folder, BTreeMap<String, String>>,
}

impl Tree {
    pub(super) fn new(sources: Vec<Source>) -> Tree {
        let mut rooms: BTreeMap<Folder, BTreeSet<String>> = BTreeMap::new();
        for s in &sources {
            for depth in 0..s.module.len() {
                let folder = s.module[..depth].to_vec();
                rooms
                    .entry(folder)
                    .or_default()
                    .insert(s.module[depth].clone());
            }
        }
        let mut exports = BTreeMap::new();
        for s in sources.iter().filter(|s| rooms.contains_key(&s.module)) {
            let children = &rooms[&s.module];
            exports.insert(s.module.clone(), re_exports(&s.code, &s.module, children));
        }
        Tree {
            sources,
            rooms,
            exports,
        }
    }

    /// The room of `folder` that `path` (under it) is in: its next segment if that is a
    /// room, the room a name comes from if the folder's root re-exports it, else `mod`
    /// (the root's own items, or a name from another crate).
    fn room_of(&self, folder: &[String], path: &[String]) -> String {
        let Some(next) = path.get(folder.len()) else {
            return "mod".to_owned();
        };
        if self.rooms.get(folder).is_some_and(|r| r.contains(next)) {
            return next.clone();
        }
        match self.exports.get(folder).and_then(|e| e.get(next)) {
            Some(room) => room.clone(),
            None => "mod".to_owned(),
        }
    }

    /// Every folder's arrows between its rooms (`a → b`: a file in room a names room b).
    /// An arrow belongs to the deepest folder both ends are in.
    pub(super) fn arrows(&self) -> BTreeMap<Folder, Graph> {
        let mut folders: BTreeMap<Folder, Graph> = BTreeMap::new();
        for (folder, rooms) in &self.rooms {
            let graph = folders.entry(folder.clone()).or_default();
            for room in rooms {
                graph.entry(room.clone()).or_default();
            }
        }
        for source in &self.sources {
            let is_root = self.rooms.contains_key(&source.module);
            let lines = production(&source.code, is_root);
            let no_children = BTreeSet::new();
            let children = self.rooms.get(&source.module).unwrap_or(&no_children);
            for path in named(&lines, &source.module, children) {
                let shared = source
                    .module
                    .iter()
                    .zip(&path)
                    .take_while(|(a, b)| a == b)
                    .count();
                let folder = &source.module[..shared];
                let (from, to) = (
                    self.room_of(folder, &source.module),
                    self.room_of(folder, &path),
                );
                if from != to && self.rooms.contains_key(folder) {
                    let graph = folders.entry(folder.to_vec()).or_default();
                    graph.entry(from).or_default().insert(to);
                }
            }
        }
        folders
    }

    /// Files longer than [`MAX_LINES`] outside their tests, with their lengths.
    pub(super) fn too_long(&self) -> Vec<String> {
        self.sources
            .iter()
            .map(|s| (s, outside_tests(&s.code).len()))
            .filter(|(_, n)| *n > MAX_LINES)
            .map(|(s, n)| format!("{} ({n} lines outside its tests)", s.file))
            .collect()
    }
}

/// What a folder's root re-exports: each `pub use` name (its alias if it has one) → the
/// room it comes from.
pub(super) fn re_exports(
    code: &str,
    here: &[String],
    children: &BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let statements = outside_tests(code).join("\n");
    for statement in statements.split(';') {
        let trimmed = statement.trim_start();
        let Some(rest) = ["pub(crate) use ", "pub(super) use ", "pub use "]
            .iter()
            .find_map(|p| trimmed.strip_prefix(p))
        else {
            continue;
        };
        let mut paths = Vec::new();
        let rest = rest.trim_start_matches("self::");
        expand(here, rest, &mut paths);
        let aliases = aliases_in(rest);
        for path in paths {
            let (Some(room), Some(last)) = (path.get(here.len()), path.last()) else {
                continue;
            };
            if children.contains(room) {
                let name = aliases
                    .get(last.as_str())
                    .cloned()
                    .unwrap_or_else(|| last.clone());
                out.insert(name, room.clone());
            }
        }
    }
    out
}

/// `A as B` pairs in a `use` statement's text: A → B.
pub(super) fn aliases_in(text: &str) -> BTreeMap<&str, String> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(3)
        .filter(|w| w[1] == "as")
        .map(|w| (w[0], w[2].to_owned()))
        .collect()
}
