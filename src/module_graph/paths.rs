//! The module paths a file's lines name, resolved to absolute paths: `crate::`,
//! `super::`, `self::`, a root's bare child names, and `{…}` groups.

use std::collections::BTreeSet;

/// Every module path `lines` name, absolute, resolved against `here` (the file's module):
/// `crate::a::b`, `super::x`, `self::y`, and each member of a `{…}` group, nested or not.
pub(super) fn named(
    lines: &[&str],
    here: &[String],
    children: &BTreeSet<String>,
) -> Vec<Vec<String>> {
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
pub(super) fn expand(base: &[String], tail: &str, out: &mut Vec<Vec<String>>) {
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
pub(super) fn split_group(group: &str) -> Vec<&str> {
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
