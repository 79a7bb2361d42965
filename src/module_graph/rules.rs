//! The written rules: the ```` ```rules ```` block of `docs/ARCHITECTURE.md`, and the arrows
//! they do not allow.

use super::Graph;
use std::collections::BTreeMap;

/// The written rules: per top-level module, each room → the rooms it may use.
pub(super) struct Rules(pub(super) BTreeMap<String, Graph>);

impl Rules {
    /// Reads the ```` ```rules ```` block of `doc`: lines `web::site -> view, http, error`
    /// (`-> nothing` for a room that uses no other), `#` starting a comment.
    pub(super) fn parse(doc: &str) -> Result<Rules, String> {
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
    pub(super) fn broken(&self, inner: &BTreeMap<String, Graph>) -> Vec<String> {
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
