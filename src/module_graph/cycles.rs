//! Circles in a graph of arrows, and a folder's graph without its root.

use super::Graph;
use std::collections::BTreeSet;

/// `graph` without its root room `mod`: a root uses its rooms and they use its own items
/// (the `Store` that `recover` implements, the `StoreError` that `caps` returns), which is
/// one module's face and insides, not a circle between rooms.
pub(super) fn without_root(graph: &Graph) -> Graph {
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
pub(super) fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    pub(super) fn visit(
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
