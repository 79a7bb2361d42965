//! The top-level modules must not import each other in a circle: read from the bottom up
//! (`text`, then `recipes`, then `search`, …), each can be understood, tested and moved
//! on its own. This test reads every `crate::` path in `src/` (comments skipped) and
//! fails with the circle it finds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The top-level module a file belongs to: `src/web/site.rs` → `web`; `None` for the
/// crate root and the binary.
fn module_of(path: &Path, src: &Path) -> Option<String> {
    let relative = path.strip_prefix(src).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then(|| name.to_owned())
}

/// The top-level modules `code` names: `crate::a::…` and each item of `crate::{a, b::c}`.
fn named(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            match rest.strip_prefix('{') {
                Some(group) => {
                    let group = group.split('}').next().unwrap_or_default();
                    out.extend(group.split(',').map(ident));
                }
                None => {
                    out.insert(ident(rest));
                }
            }
        }
    }
    out.retain(|name| !name.is_empty() && name != "self");
    out
}

/// A circle in `graph` (its modules in order, the first repeated at the end), if any.
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

/// Which top-level module names which, from the files under `src`.
fn graph_of(src: &Path) -> Graph {
    let mut graph = Graph::new();
    for path in sources(src) {
        let Some(module) = module_of(&path, src) else {
            continue;
        };
        let code = std::fs::read_to_string(&path).expect("read a source file");
        let uses = graph.entry(module.clone()).or_default();
        uses.extend(named(&code).into_iter().filter(|m| *m != module));
    }
    graph
}

#[test]
fn no_module_imports_itself_through_others() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph_of(&src);
    assert!(
        graph
            .get("search")
            .is_some_and(|uses| uses.contains("recipes")),
        "the reader sees search → recipes: {graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "modules import each other in a circle: {}",
            cycle.join(" → ")
        );
    }
}

#[test]
fn the_reader_finds_grouped_imports_and_circles() {
    let code = "use crate::{text::fold, recipes};\n// crate::web in a comment\nlet x = crate::units::amount;";
    let found: Vec<String> = named(code).into_iter().collect();
    assert_eq!(found, ["recipes", "text", "units"]);
    let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_owned(), BTreeSet::from([to.to_owned()])))
        .collect();
    assert_eq!(
        find_cycle(&graph).map(|c| c.join(" → ")),
        Some("a → b → c → a".to_owned())
    );
}
