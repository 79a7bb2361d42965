//! Reading a journal back, whatever a crash, a full disk or a hand left in it.
//!
//! [`read`] keeps every change it can and says what it did, in this order:
//! 1. a torn last line (a crash or a full disk during an append) is cut: its change was
//!    never acknowledged;
//! 2. a line that is not JSON but ends in a whole change (an append that went on after a
//!    torn line, as versions before this one did) keeps that change and drops the torn
//!    start;
//! 3. a line that still does not read is *unreadable*: the caller sets the journal aside
//!    under a new name and starts a new one. The highest recipe id and change number it
//!    mentions are still taken from its text, so that neither is ever given out again;
//! 4. a change the recipes file never got is dropped: the next change started from the
//!    very same file (a save whose file write failed, and whose line could not be taken
//!    back), which also removes a number used twice that way;
//! 5. a number still used twice is given to the later change anew.
//!
//! The last line the file never got is the store's to judge (it needs the file's hash).

use super::record::{Entry, Mark};

/// What was read, and what had to be done to read it.
#[derive(Debug, Default)]
pub(crate) struct Read {
    pub(crate) entries: Vec<Entry>,
    /// Restart marks, in file order.
    pub(crate) marks: Vec<Mark>,
    /// Bytes of whole lines before a torn tail (all of them when nothing was torn).
    pub(crate) good_len: u64,
    /// Whether anything but a torn tail was repaired, so the file must be rewritten.
    pub(crate) rewrite: bool,
    /// Lines (1-based) that could not be read at all.
    pub(crate) unreadable: Vec<usize>,
    /// The highest recipe id and change number the unreadable lines mention.
    pub(crate) floor_id: u64,
    pub(crate) floor_n: u64,
    /// What was done, one sentence each, for the log.
    pub(crate) notes: Vec<String>,
    /// Changes a mark right after them says were refused (see [`Mark::refused`]).
    pub(crate) refused: Vec<Entry>,
}

/// Reads the journal's bytes; see the module docs for the steps.
pub(crate) fn read(bytes: &[u8]) -> Read {
    let mut out = Read::default();
    let mut start = 0;
    let mut line = 0;
    while start < bytes.len() {
        line += 1;
        let end = memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i);
        let text = &bytes[start..end.unwrap_or(bytes.len())];
        let Some(end) = end else {
            // A whole line that only lacks its newline (a hand edit) is kept.
            match one(text) {
                Some(Line::Change(entry)) => out.entries.push(entry),
                Some(Line::Mark(mark)) => out.mark(mark),
                None => {
                    out.notes.push(format!(
                        "cut off line {line}, torn by a crash or a full disk (its change was never acknowledged)"
                    ));
                    break;
                }
            }
            out.rewrite = true;
            out.good_len = bytes.len() as u64;
            break;
        };
        start = end + 1;
        if text.iter().all(u8::is_ascii_whitespace) {
            out.rewrite = true;
            continue;
        }
        match one(text) {
            Some(Line::Change(entry)) => out.entries.push(entry),
            Some(Line::Mark(mark)) => out.mark(mark),
            None => match salvage(text) {
                Some(entry) => {
                    out.notes.push(format!(
                        "line {line} began with a torn line; kept change {} that followed it",
                        entry.n
                    ));
                    out.entries.push(entry);
                    out.rewrite = true;
                }
                None if start == bytes.len() && torn(text) => {
                    out.notes.push(format!(
                        "cut off line {line}, torn by a crash or a full disk (its change was never acknowledged)"
                    ));
                    break;
                }
                None => {
                    let text = String::from_utf8_lossy(text);
                    out.floor_id = out.floor_id.max(highest(&text, "\"max_id\":"));
                    out.floor_id = out.floor_id.max(highest(&text, "\"id\":"));
                    out.floor_n = out.floor_n.max(highest(&text, "\"n\":"));
                    out.unreadable.push(line);
                    out.rewrite = true;
                }
            },
        }
        out.good_len = start as u64;
    }
    drop_phantoms(&mut out);
    renumber_twins(&mut out);
    out
}

impl Read {
    /// A mark; one that says the change before it was refused takes that change out.
    fn mark(&mut self, mark: Mark) {
        if let Some(n) = mark.refused
            && self.entries.last().is_some_and(|e| e.n == n)
        {
            self.refused.extend(self.entries.pop());
        }
        self.marks.push(mark);
    }
}

enum Line {
    Change(Entry),
    Mark(Mark),
}

/// A change or a mark, if the line is one with numbers this app can have given: a
/// number past [`MAX`] (a hand edit) would overflow the next one.
fn one(text: &[u8]) -> Option<Line> {
    if let Ok(entry) = serde_json::from_slice::<Entry>(text) {
        let ids = entry
            .parts()
            .all(|(id, _, _)| id <= MAX && id <= entry.max_id);
        return (entry.n <= MAX && entry.max_id <= MAX && ids).then_some(Line::Change(entry));
    }
    let mark = serde_json::from_slice::<Mark>(text).ok()?;
    (mark.max_id <= MAX && mark.last_n <= MAX).then_some(Line::Mark(mark))
}

/// The largest recipe id or change number the app gives out (JSON's exact integers).
const MAX: u64 = (1 << 53) - 1;

/// A line cut short reads as JSON that ends too early.
fn torn(text: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(text).is_err_and(|e| e.is_eof())
}

/// The whole change at the end of a line that starts with a torn one: entries are written
/// compact with `n` first, so a change starts at `{"n":`.
fn salvage(text: &[u8]) -> Option<Entry> {
    let start = b"{\"n\":";
    let mut from = 1;
    while let Some(at) = memchr::memmem::find(&text[from.min(text.len())..], start) {
        let at = from + at;
        if let Some(Line::Change(entry)) = one(&text[at..]) {
            return Some(entry);
        }
        from = at + 1;
    }
    None
}

/// The largest number that follows `key` anywhere in `text`.
fn highest(text: &str, key: &str) -> u64 {
    text.match_indices(key)
        .filter_map(|(at, _)| {
            let digits: String = text[at + key.len()..]
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<u64>().ok().filter(|n| *n <= MAX)
        })
        .max()
        .unwrap_or(0)
}

/// Step 4: a change followed by one that started from the same file never reached it.
fn drop_phantoms(out: &mut Read) {
    let mut kept: Vec<Entry> = Vec::with_capacity(out.entries.len());
    for entry in std::mem::take(&mut out.entries) {
        if let Some(last) = kept.last()
            && last.file_before.is_some()
            && last.file_before == entry.file_before
        {
            out.notes.push(format!(
                "dropped change {} ({}): the recipes file never got it (the next change started from the same file)",
                last.n, last.name
            ));
            kept.pop();
            out.rewrite = true;
        }
        kept.push(entry);
    }
    out.entries = kept;
}

/// Step 5: a number used twice for changes the file did get goes to the later one anew,
/// so that an undo names exactly one change.
fn renumber_twins(out: &mut Read) {
    let mut seen = std::collections::HashSet::new();
    let mut next = out
        .entries
        .iter()
        .map(|e| e.n)
        .chain(out.marks.iter().map(|m| m.last_n))
        .chain([out.floor_n])
        .max()
        .unwrap_or(0);
    for entry in &mut out.entries {
        if !seen.insert(entry.n) {
            next += 1;
            out.notes.push(format!(
                "change {} ({}) shared its number with an earlier one; it is change {next} now",
                entry.n, entry.name
            ));
            entry.n = next;
            seen.insert(next);
            out.rewrite = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Action;

    fn entry(n: u64, before: &str) -> Entry {
        Entry {
            n,
            at: 1_700_000_000 + n,
            who: "a@example.com".into(),
            action: Action::Created,
            id: 10 + n,
            name: format!("Drink {n}"),
            fields: vec![],
            undoes: None,
            max_id: 10 + n,
            file_before: Some(before.into()),
            before: None,
            after: Some(serde_json::Map::new()),
            more: vec![],
        }
    }

    fn line(e: &Entry) -> String {
        let mut s = serde_json::to_string(e).unwrap();
        s.push('\n');
        s
    }

    fn numbers(r: &Read) -> Vec<u64> {
        r.entries.iter().map(|e| e.n).collect()
    }

    #[test]
    fn a_torn_tail_is_cut_and_whole_lines_kept() {
        let text = format!("{}{}", line(&entry(1, "a")), r#"{"n":2,"at":17"#);
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1]);
        assert_eq!(r.good_len, line(&entry(1, "a")).len() as u64);
        assert!(!r.rewrite && r.unreadable.is_empty());
    }

    #[test]
    fn a_whole_last_line_without_its_newline_is_kept() {
        let text = format!(
            "{}{}",
            line(&entry(1, "a")),
            line(&entry(2, "b")).trim_end()
        );
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1, 2]);
        assert!(r.rewrite, "written again with its newline");
    }

    #[test]
    fn numbers_past_what_the_app_gives_are_unreadable_not_an_overflow() {
        let mut huge = entry(2, "b");
        huge.n = u64::MAX;
        let text = format!("{}{}", line(&entry(1, "a")), line(&huge));
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1]);
        assert_eq!(r.unreadable, [2]);
        assert!(r.floor_n <= MAX && r.floor_id <= MAX);
    }

    #[test]
    fn a_change_of_several_recipes_reads_back_and_its_ids_are_bounded() {
        let mut bulk = entry(2, "b");
        bulk.max_id = 14;
        bulk.more = (13..=14)
            .map(|id| crate::journal::Part {
                id,
                name: format!("Drink {id}"),
                before: None,
                after: Some(serde_json::Map::new()),
            })
            .collect();
        let text = format!("{}{}", line(&entry(1, "a")), line(&bulk));
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1, 2]);
        assert_eq!(r.entries[1].count(), 3);
        // An id past what the line says was given (a hand edit) makes the line unreadable.
        bulk.more[1].id = 99;
        let text = format!("{}{}", line(&entry(1, "a")), line(&bulk));
        let r = read(text.as_bytes());
        assert_eq!(r.unreadable, [2]);
        assert_eq!(r.floor_id, 99, "its numbers still count");
    }

    #[test]
    fn a_change_appended_onto_a_torn_line_is_kept() {
        let text = format!(
            "{}{}{}",
            line(&entry(1, "a")),
            r#"{"n":2,"at":17"#,
            line(&entry(2, "b"))
        );
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1, 2]);
        assert!(r.rewrite && r.unreadable.is_empty(), "{:?}", r.notes);
    }

    #[test]
    fn a_change_the_file_never_got_is_dropped_and_its_twin_number_with_it() {
        // Change 2 failed to reach the file and its line stayed; the next save reused 2.
        let text = format!(
            "{}{}{}",
            line(&entry(1, "a")),
            line(&entry(2, "b")),
            line(&entry(2, "b"))
        );
        let mut phantom = entry(2, "b");
        phantom.name = "Phantom".into();
        let text = text.replacen(&line(&entry(2, "b")), &line(&phantom), 1);
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1, 2]);
        assert_eq!(r.entries[1].name, "Drink 2");
        assert!(
            r.notes.iter().any(|n| n.contains("Phantom")),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn twins_that_both_reached_the_file_keep_both_under_new_numbers() {
        let text = format!("{}{}", line(&entry(1, "a")), line(&entry(1, "b")));
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1, 2]);
    }

    #[test]
    fn an_unreadable_line_is_named_and_its_numbers_still_count() {
        let text = format!(
            "{}{}\n{}",
            line(&entry(1, "a")),
            r#"garbage "n": 40, "max_id": 77 garbage"#,
            line(&entry(3, "c"))
        );
        let r = read(text.as_bytes());
        assert_eq!(numbers(&r), [1, 3]);
        assert_eq!(r.unreadable, [2]);
        assert_eq!((r.floor_id, r.floor_n), (77, 40));
        assert!(r.rewrite);
    }
}
