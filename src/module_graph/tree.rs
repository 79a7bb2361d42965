//! The crate as a tree of top-level modules and their rooms, and the arrows between them.

use super::paths::{expand, named};
use super::source::{Source, outside_tests, production};
use super::{Graph, MAX_LINES};
use std::collections::{BTreeMap, BTreeSet};

/// The crate's files, and which top-level modules have which rooms.
pub(super) struct Tree {
    sources: Vec<Source>,
    /// A top-level module → its child modules (the rooms), from the files.
    rooms: BTreeMap<String, BTreeSet<String>>,
    /// A top-level module → the names its root re-exports → the room each comes from.
    exports: BTreeMap<String, BTreeMap<String, String>>,
}

impl Tree {
    pub(super) fn new(sources: Vec<Source>) -> Tree {
        let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for s in &sources {
            if let [top, room, ..] = s.module.as_slice() {
                rooms.entry(top.clone()).or_default().insert(room.clone());
            }
        }
        let mut exports = BTreeMap::new();
        for s in sources.iter().filter(|s| s.module.len() == 1) {
            let children = rooms.get(&s.module[0]).cloned().unwrap_or_default();
            exports.insert(
                s.module[0].clone(),
                re_exports(&s.code, &s.module, &children),
            );
        }
        Tree {
            sources,
            rooms,
            exports,
        }
    }

    /// The room `module` is in: its second segment if that is a child module of its top
    /// one, the room a name comes from if the top's root re-exports it, else `mod` (the
    /// root's own items).
    pub(super) fn room_of(&self, module: &[String]) -> Option<(String, String)> {
        let top = module.first()?;
        let room = match module.get(1) {
            Some(r) if self.rooms.get(top).is_some_and(|rooms| rooms.contains(r)) => r.clone(),
            Some(name) => match self.exports.get(top).and_then(|e| e.get(name)) {
                Some(room) => room.clone(),
                None => "mod".to_owned(),
            },
            None => "mod".to_owned(),
        };
        Some((top.clone(), room))
    }

    /// Arrows between top-level modules, and per top-level module between its rooms.
    pub(super) fn arrows(&self) -> (Graph, BTreeMap<String, Graph>) {
        let mut top = Graph::new();
        let mut inner: BTreeMap<String, Graph> = BTreeMap::new();
        for source in &self.sources {
            let Some((from_top, from_room)) = self.room_of(&source.module) else {
                continue;
            };
            let is_root = source.module.len() == 1;
            let lines = production(&source.code, is_root);
            top.entry(from_top.clone()).or_default();
            if self.rooms.contains_key(&from_top) {
                let graph = inner.entry(from_top.clone()).or_default();
                graph.entry(from_room.clone()).or_default();
            }
            let no_children = BTreeSet::new();
            let children = match is_root {
                true => self.rooms.get(&from_top).unwrap_or(&no_children),
                false => &no_children,
            };
            for path in named(&lines, &source.module, children) {
                let Some((to_top, to_room)) = self.room_of(&path) else {
                    continue;
                };
                if to_top != from_top {
                    top.entry(from_top.clone()).or_default().insert(to_top);
                } else if to_room != from_room {
                    let graph = inner.entry(from_top.clone()).or_default();
                    graph.entry(from_room.clone()).or_default().insert(to_room);
                }
            }
        }
        (top, inner)
    }

    /// Files longer than [`MAX_LINES`] outside their tests, with their lengths.
    pub(super) fn too_long(&self) -> Vec<String> {
        self.sources
            .iter()
            .map(|s| (s, outside_tests(&s.code).len()))
            .filter(|(_, n)| *n > MAX_LINES)
            .map(|(s, n)| format!("src/{} ({n} lines outside its tests)", s.file))
            .collect()
    }
}

/// What a module's root re-exports: each `pub use` name (its alias if it has one) → the
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
            let (Some(room), Some(last)) = (path.get(1), path.last()) else {
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
