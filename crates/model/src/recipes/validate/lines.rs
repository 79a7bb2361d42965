//! Where each recipe starts: a scanner over the text for the line of every element of the
//! top-level array.
//!
//! Why its own room: serde's values carry no positions, and a problem that names only an
//! index is hard to find in a hand-edited file of thousands of recipes. The scanner knows
//! nothing of recipes, only of JSON's strings and brackets.

/// The line (from 1) on which each element of the top-level array starts.
/// Only called on text that already parsed as JSON.
pub(super) fn element_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut line, mut depth) = (1usize, 0usize);
    let (mut in_string, mut escaped, mut expect_element) = (false, false, false);
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if depth == 1 && expect_element && !c.is_whitespace() && c != ']' {
            lines.push(line);
            expect_element = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth == 1 {
                    expect_element = true;
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect_element = true,
            _ => {}
        }
    }
    lines
}
