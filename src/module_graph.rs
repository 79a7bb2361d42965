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
//! The steps: [`sources`] lists the files, [`production`] keeps what ships, [`named`]
//! resolves paths, [`Tree::arrows`] turns them into edges, [`Rules::parse`] reads the doc.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The most lines a source file may have outside its tests.
const MAX_LINES: usize = 600;

/// Top-level modules whose rooms must not form a circle even when no rule lists them.
const FOLDERS: &[&str] = &["web", "app", "tailnet", "connections", "recipes", "store"];

/// One source file: its module path (`src/web/http/mod.rs` → `["web", "http"]`) and text.
struct Source {
    file: String,
    module: Vec<String>,
    code: String,
}

/// Every `.rs` file under `dir`, except files only compiled for tests (declared after a
/// `#[cfg(test)]` in their parent, or named `tests.rs`).
fn sources(src: &Path) -> Vec<Source> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read src/") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(src, &mut paths);
    let mut found: Vec<Source> = paths
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(src).expect("under src/").to_path_buf();
            let code = std::fs::read_to_string(&path).expect("read a source file");
            Source {
                file: relative.display().to_string(),
                module: module_path(&relative),
                code,
            }
        })
        .collect();
    let test_only: BTreeSet<Vec<String>> = found
        .iter()
        .flat_map(|s| {
            test_modules(&s.code).into_iter().map(|name| {
                let mut child = parent_of(s);
                child.push(name);
                child
            })
        })
        .collect();
    found.retain(|s| {
        !test_only.contains(&s.module) && !s.file.ends_with("tests.rs") && !s.module.is_empty()
    });
    found
}

/// `web/http/mod.rs` → `web::http`; `cli.rs` → `cli`; `lib.rs`, `main.rs` → the
/// crate root (empty).
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The module whose children a file's `mod x;` lines declare: itself for `mod.rs` and the
/// crate root; for `cli.rs`, `cli` too (its children live in `cli/`).
fn parent_of(source: &Source) -> Vec<String> {
    source.module.clone()
}

/// Names of `#[cfg(test)] mod name;` declarations in `code`.
fn test_modules(code: &str) -> Vec<String> {
    let lines: Vec<&str> = code.lines().map(str::trim).collect();
    lines
        .windows(2)
        .filter(|w| w[0] == "#[cfg(test)]")
        .filter_map(|w| {
            let rest = w[1].strip_prefix("pub(crate) ").unwrap_or(w[1]);
            rest.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_owned)
        })
        .collect()
}

/// `code` without its `#[cfg(test)]` items: each is the rest of the attribute's line or
/// the lines after it, up to a `;` or to where the braces it opens close.
fn outside_tests(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        match line.trim().strip_prefix("#[cfg(test)]") {
            Some(after) => skip_item(after.trim(), &mut lines),
            None => out.push(line),
        }
    }
    out
}

/// Skips one item: `first` (what followed the attribute on its line) and, unless it ended
/// there, further attributes, then lines until a `;` or until the braces opened close.
fn skip_item<'a>(first: &str, lines: &mut impl Iterator<Item = &'a str>) {
    let mut depth = braces(first);
    let mut opened = first.contains('{');
    if (opened && depth <= 0) || (!opened && first.ends_with(';')) {
        return;
    }
    for line in lines {
        let trimmed = line.trim();
        if !opened && trimmed.starts_with("#[") {
            continue;
        }
        depth += braces(line);
        opened |= line.contains('{');
        if (opened && depth <= 0) || (!opened && trimmed.ends_with(';')) {
            return;
        }
    }
}

/// What of `code` ships and can name another module: [`outside_tests`] without comment
/// lines; in a module's root (`is_root`) also without its map (`mod x;` and `pub use`
/// lines), which declares and re-exports rather than uses.
fn production(code: &str, is_root: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut lines = outside_tests(code).into_iter();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        if is_root && is_map_line(trimmed) {
            let mut current = line;
            while !current.trim_end().ends_with(';') {
                match lines.next() {
                    Some(next) => current = next,
                    None => break,
                }
            }
            continue;
        }
        out.push(line);
    }
    out
}

/// A line of a module's map: a `mod` declaration or a re-export.
fn is_map_line(trimmed: &str) -> bool {
    let (public, rest) = match ["pub(crate) ", "pub(super) ", "pub "]
        .iter()
        .find_map(|p| trimmed.strip_prefix(p))
    {
        Some(rest) => (true, rest),
        None => (false, trimmed),
    };
    (rest.starts_with("mod ") && rest.trim_end().ends_with(';'))
        || (public && rest.starts_with("use "))
}

/// `{` minus `}` in `line`, outside string and char literals.
fn braces(line: &str) -> i64 {
    let mut depth = 0;
    let mut in_string = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => in_string = !in_string,
            '\'' if !in_string => {
                // A char literal such as '{' (a lifetime has no closing quote nearby).
                let rest: String = chars.clone().take(3).collect();
                if rest.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            '{' if !in_string => depth += 1,
            '}' if !in_string => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// Every module path `lines` name, absolute, resolved against `here` (the file's module):
/// `crate::a::b`, `super::x`, `self::y`, and each member of a `{…}` group, nested or not.
fn named(lines: &[&str], here: &[String], children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let code = lines.join("\n");
    let mut out = Vec::new();
    for (at, _) in code.match_indices("::") {
        let start = code[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        // Only a path's first segment starts it (`a::self` is a group member, handled in
        // `expand`; `super::super` is counted once, from the first).
        if code[..start].ends_with("::") {
            continue;
        }
        let (base, tail) = match &code[start..at] {
            "crate" => (Vec::new(), &code[at + 2..]),
            "self" => (here.to_vec(), &code[at + 2..]),
            "super" => {
                let mut base = here.to_vec();
                base.pop();
                let mut tail = &code[at + 2..];
                while let Some(rest) = tail.strip_prefix("super::") {
                    base.pop();
                    tail = rest;
                }
                (base, tail)
            }
            // A module's root names its own rooms without `self::`.
            child if children.contains(child) => (here.to_vec(), &code[start..]),
            _ => continue,
        };
        expand(&base, tail, &mut out);
    }
    out
}

/// Adds to `out` the paths `tail` continues `base` with: `a::b::C`, or a group `{a, b::{c}}`.
fn expand(base: &[String], tail: &str, out: &mut Vec<Vec<String>>) {
    let mut path = base.to_vec();
    let mut rest = tail.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            for member in split_group(group) {
                expand(&path, member, out);
            }
            return;
        }
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() || ident == "self" {
            break;
        }
        path.push(ident.clone());
        match rest[ident.len()..].strip_prefix("::") {
            Some(more) => rest = more.trim_start(),
            None => break,
        }
    }
    out.push(path);
}

/// The top-level members of a `{…}` group (its text after the `{`).
fn split_group(group: &str) -> Vec<&str> {
    let mut members = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                members.push(&group[start..i]);
                return members;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                members.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    members.push(&group[start..]);
    members
}

/// The crate's files, and which top-level modules have which rooms.
struct Tree {
    sources: Vec<Source>,
    /// A top-level module → its child modules (the rooms), from the files.
    rooms: BTreeMap<String, BTreeSet<String>>,
    /// A top-level module → the names its root re-exports → the room each comes from.
    exports: BTreeMap<String, BTreeMap<String, String>>,
}

impl Tree {
    fn new(sources: Vec<Source>) -> Tree {
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
    fn room_of(&self, module: &[String]) -> Option<(String, String)> {
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
    fn arrows(&self) -> (Graph, BTreeMap<String, Graph>) {
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
    fn too_long(&self) -> Vec<String> {
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
fn re_exports(
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
fn aliases_in(text: &str) -> BTreeMap<&str, String> {
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

/// `graph` without its root room `mod`: a root uses its rooms and they use its own items
/// (the `Store` that `recover` implements, the `StoreError` that `caps` returns), which is
/// one module's face and insides, not a circle between rooms.
fn without_root(graph: &Graph) -> Graph {
    graph
        .iter()
        .filter(|(room, _)| *room != "mod")
        .map(|(room, uses)| {
            let uses = uses.iter().filter(|to| *to != "mod").cloned().collect();
            (room.clone(), uses)
        })
        .collect()
}

/// A circle in `graph` (its nodes in order, the first repeated at the end), if any.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// The written rules: per top-level module, each room → the rooms it may use.
struct Rules(BTreeMap<String, Graph>);

impl Rules {
    /// Reads the ```` ```rules ```` block of `doc`: lines `web::site -> view, http, error`
    /// (`-> nothing` for a room that uses no other), `#` starting a comment.
    fn parse(doc: &str) -> Result<Rules, String> {
        let block = doc
            .split("```rules\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .ok_or("docs/ARCHITECTURE.md has no ```rules block")?;
        let mut rules: BTreeMap<String, Graph> = BTreeMap::new();
        for (n, line) in block.lines().enumerate() {
            let line = line.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let bad = || format!("rules line {}: `{line}` is not `top::room -> rooms`", n + 1);
            let (from, to) = line.split_once("->").ok_or_else(bad)?;
            let (top, room) = from.trim().split_once("::").ok_or_else(bad)?;
            let allowed = to
                .split(',')
                .map(str::trim)
                .filter(|r| !r.is_empty() && *r != "nothing")
                .map(str::to_owned)
                .collect();
            let rooms = rules.entry(top.to_owned()).or_default();
            if rooms.insert(room.to_owned(), allowed).is_some() {
                return Err(format!(
                    "rules line {}: {top}::{room} is listed twice",
                    n + 1
                ));
            }
        }
        Ok(Rules(rules))
    }

    /// Every arrow of `inner` the rules do not allow, and every room they do not list.
    fn broken(&self, inner: &BTreeMap<String, Graph>) -> Vec<String> {
        let mut out = Vec::new();
        for (top, allowed) in &self.0 {
            let Some(graph) = inner.get(top) else {
                out.push(format!("the rules list `{top}`, which has no rooms"));
                continue;
            };
            for (room, uses) in graph {
                let Some(may) = allowed.get(room) else {
                    out.push(format!("{top}::{room} is not in the rules"));
                    continue;
                };
                for to in uses.difference(may) {
                    out.push(format!("{top}::{room} → {to} is against the rules"));
                }
            }
        }
        out
    }
}

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

mod reader {
    use super::*;

    fn source(file: &str, code: &str) -> Source {
        Source {
            file: file.to_owned(),
            module: module_path(Path::new(file)),
            code: code.to_owned(),
        }
    }

    fn paths(file: &str, code: &str) -> Vec<String> {
        let s = source(file, code);
        let lines = production(&s.code, s.module.len() == 1);
        let children = BTreeSet::from(["caps".to_owned()]);
        named(&lines, &s.module, &children)
            .iter()
            .map(|p| p.join("::"))
            .collect()
    }

    #[test]
    fn paths_are_resolved_from_where_they_are_written() {
        let code = "use crate::{text::fold, recipes};\n// crate::web in a comment\n\
                    use super::{http::{Body, etag}, view};\nlet x = crate::units::amount;\n\
                    use super::super::store::Store;\nuse self::inner::Thing;";
        assert_eq!(
            paths("web/site.rs", code),
            [
                "text::fold",
                "recipes",
                "web::http::Body",
                "web::http::etag",
                "web::view",
                "units::amount",
                "store::Store",
                "web::site::inner::Thing",
            ]
        );
        assert_eq!(paths("web/mod.rs", "fn f() { super::x::y(); }"), ["x::y"]);
        assert_eq!(
            paths("web/router.rs", "use super::http::Body;"),
            ["web::http::Body"]
        );
        assert_eq!(
            paths("store/mod.rs", "fn f() { caps::check(); other::x(); }"),
            ["store::caps::check"],
            "a root names its rooms bare; other bare paths are crates"
        );
    }

    #[test]
    fn tests_comments_and_a_roots_map_are_not_arrows() {
        let code = "mod http;\npub use site::{Site,\n    SiteError};\n\
                    #[cfg(test)]\nfn only_in_tests() {\n    crate::search::x();\n}\n\
                    #[cfg(test)]\nuse crate::units;\nfn real() { crate::text::fold(); }\n\
                    #[cfg(test)]\nmod tests {\n    use crate::store;\n    let s = \"}\";\n}\n\
                    fn after() { crate::ingredients::x(); }";
        assert_eq!(paths("web/mod.rs", code), ["text::fold", "ingredients::x"]);
        assert_eq!(
            outside_tests(code).len(),
            5,
            "the map and comments count as lines of the file"
        );
    }

    fn tree_of(files: &[(&str, &str)]) -> Tree {
        Tree::new(files.iter().map(|(f, c)| source(f, c)).collect())
    }

    #[test]
    fn a_back_arrow_between_rooms_is_a_circle_and_against_the_rules() {
        let files = [
            ("web/mod.rs", "mod http;\nmod site;\npub use site::Site;"),
            ("web/http/mod.rs", "pub struct Body;"),
            ("web/site.rs", "use super::http::Body;"),
        ];
        let rules = Rules::parse(
            "```rules\nweb::http -> nothing\nweb::site -> http\nweb::mod -> nothing\n```",
        )
        .expect("rules parse");
        let (_, inner) = tree_of(&files).arrows();
        assert_eq!(find_cycle(&inner["web"]), None);
        assert_eq!(rules.broken(&inner), Vec::<String>::new());

        // The same tree with one arrow added the wrong way.
        let mut with_back_arrow = files.to_vec();
        with_back_arrow[1] = (
            "web/http/mod.rs",
            "use crate::web::site::Page;\npub struct Body;",
        );
        let (_, inner) = tree_of(&with_back_arrow).arrows();
        assert_eq!(
            find_cycle(&inner["web"]).map(|c| c.join(" → ")),
            Some("http → site → http".to_owned())
        );
        assert_eq!(
            rules.broken(&inner),
            ["web::http → site is against the rules"]
        );
    }

    #[test]
    fn a_re_export_is_named_by_its_room_and_the_root_is_no_circle() {
        let files = [
            (
                "store/mod.rs",
                "mod caps;\nmod plan;\npub use plan::{Plan, make as plan_for};\n\
                              pub struct StoreError;\nfn apply() { caps::check(); }",
            ),
            (
                "store/caps.rs",
                "use super::StoreError;\nuse super::{Plan, plan_for};\npub fn check() {}",
            ),
            ("store/plan.rs", "use super::caps::check;"),
        ];
        let (_, inner) = tree_of(&files).arrows();
        let store = &inner["store"];
        assert_eq!(store["mod"], BTreeSet::from(["caps".to_owned()]));
        assert_eq!(
            store["caps"],
            BTreeSet::from(["mod".to_owned(), "plan".to_owned()])
        );
        assert_eq!(
            find_cycle(&without_root(store)).map(|c| c.join(" → ")),
            Some("caps → plan → caps".to_owned()),
            "naming plan's items through the root is an arrow to plan; the root's own items are not a circle"
        );
    }

    #[test]
    fn a_room_missing_from_the_rules_is_named() {
        let rules = Rules::parse("```rules\nweb::http -> nothing\n```").expect("rules parse");
        let (_, inner) = tree_of(&[("web/http.rs", ""), ("web/new_room.rs", "")]).arrows();
        assert_eq!(rules.broken(&inner), ["web::new_room is not in the rules"]);
        assert!(Rules::parse("```rules\nweb::http\n```").is_err());
    }
}
