//! Which files ship, and what of each one can name another module: the source files
//! under a crate's `src/` without those compiled only for tests, and each file's lines without its
//! tests, comments and (in a module's root) its map.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One source file: its module path (`web/http/mod.rs` under `src/` → `["web", "http"]`) and text.
pub(super) struct Source {
    pub(super) file: String,
    pub(super) module: Vec<String>,
    pub(super) code: String,
}

/// Every `.rs` file under `dir`, except files only compiled for tests (declared after a
/// `#[cfg(test)]` in their parent, inside such a module, or named `tests.rs`).
pub(super) fn sources(src: &Path) -> Vec<Source> {
    pub(super) fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
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
        // A module inside a test-only one is test-only too (`module_graph/tree.rs`).
        let for_tests = test_only.iter().any(|t| s.module.starts_with(t));
        // `main.rs` is a binary of its own; `lib.rs` is the crate root's room `mod`.
        !for_tests && !s.file.ends_with("tests.rs") && s.file != "main.rs"
    });
    found
}

/// `web/http/mod.rs` → `web::http`; `cli.rs` → `cli`; `lib.rs`, `main.rs` → the
/// crate root (empty).
pub(super) fn module_path(relative: &Path) -> Vec<String> {
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
pub(super) fn parent_of(source: &Source) -> Vec<String> {
    source.module.clone()
}

/// Names of `#[cfg(test)] mod name;` declarations in `code`.
pub(super) fn test_modules(code: &str) -> Vec<String> {
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
pub(super) fn outside_tests(code: &str) -> Vec<&str> {
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
pub(super) fn skip_item<'a>(first: &str, lines: &mut impl Iterator<Item = &'a str>) {
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
pub(super) fn production(code: &str, is_root: bool) -> Vec<&str> {
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
pub(super) fn is_map_line(trimmed: &str) -> bool {
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
pub(super) fn braces(line: &str) -> i64 {
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
