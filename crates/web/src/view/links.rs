//! Addresses in a recipe's notes (`Source: https://…`) as links.
//!
//! Only `http://` and `https://` become links: anything else (`javascript:`, `data:`) stays
//! text. The template escapes both the text and the address; `static/js/model.js` (`noteParts`)
//! splits notes the same way, so the page and the opened recipe agree.

/// One piece of a note: text as written, or an address to link.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NotePart<'a> {
    pub(crate) text: &'a str,
    pub(crate) link: bool,
}

/// Characters that end a sentence rather than an address when they close one.
const TRAILING: &[char] = &['.', ',', ';', ':', '!', '?', ')', ']', '\'', '"'];

/// Splits `notes` into text and links, in order; joined, the parts are `notes` again.
pub(crate) fn note_parts(notes: &str) -> Vec<NotePart<'_>> {
    let mut parts = Vec::new();
    let (mut text_from, mut at) = (0, 0);
    while let Some(start) = next_address(&notes[at..]).map(|found| found + at) {
        let tail = &notes[start..];
        let len = tail.find(char::is_whitespace).unwrap_or(tail.len());
        let address = tail[..len].trim_end_matches(TRAILING);
        let scheme = address.find("://").map_or(0, |i| i + 3);
        if address.len() <= scheme {
            // "https://" alone: nothing to link to.
            at = start + len;
            continue;
        }
        push_text(&mut parts, &notes[text_from..start]);
        parts.push(NotePart {
            text: address,
            link: true,
        });
        at = start + address.len();
        text_from = at;
    }
    push_text(&mut parts, &notes[text_from..]);
    parts
}

/// Where the next `http://` or `https://` (any case) starts a word in `text`.
fn next_address(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("http").map(|at| at + from) {
        let after = &lower[at..];
        let starts_word = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        if starts_word && (after.starts_with("http://") || after.starts_with("https://")) {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

fn push_text<'a>(parts: &mut Vec<NotePart<'a>>, text: &'a str) {
    if !text.is_empty() {
        parts.push(NotePart { text, link: false });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(notes: &str) -> Vec<(bool, &str)> {
        note_parts(notes)
            .into_iter()
            .map(|p| (p.link, p.text))
            .collect()
    }

    #[test]
    fn addresses_become_links_and_the_rest_stays_text() {
        assert_eq!(
            show("Source: https://example.com/a?b=1&c=2."),
            [
                (false, "Source: "),
                (true, "https://example.com/a?b=1&c=2"),
                (false, ".")
            ]
        );
        assert_eq!(
            show("(see HTTP://x.org/y) and http://z.net"),
            [
                (false, "(see "),
                (true, "HTTP://x.org/y"),
                (false, ") and "),
                (true, "http://z.net")
            ]
        );
    }

    #[test]
    fn other_schemes_and_bare_schemes_stay_text() {
        for notes in [
            "javascript:alert(1)",
            "data:text/html,hi",
            "ftp://x.org",
            "https://",
            "xhttps://x.org",
            "plain words",
        ] {
            assert!(
                note_parts(notes).iter().all(|p| !p.link),
                "{notes}: {:?}",
                note_parts(notes)
            );
            let joined: String = note_parts(notes).iter().map(|p| p.text).collect();
            assert_eq!(joined, notes);
        }
    }

    /// The table `static/js/model.js` is tested with too (tests/js/bar.test.mjs).
    #[test]
    fn shared_cases() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/link-cases.json")).expect("JSON");
        for case in table["cases"].as_array().expect("cases") {
            let notes = case[0].as_str().expect("notes");
            let want: Vec<(bool, &str)> = case[1]
                .as_array()
                .expect("parts")
                .iter()
                .map(|p| (p[1].as_bool().expect("bool"), p[0].as_str().expect("text")))
                .collect();
            assert_eq!(show(notes), want, "{notes:?}");
        }
    }

    #[test]
    fn parts_join_back_to_the_notes() {
        let notes = "Shake hard.\nSource: https://a.example/b, also http://c.example.";
        let joined: String = note_parts(notes).iter().map(|p| p.text).collect();
        assert_eq!(joined, notes);
    }
}
