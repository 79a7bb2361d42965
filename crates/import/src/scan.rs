//! An HTML page read in one linear pass for what import needs: its JSON-LD scripts
//! ([`scripts`]) and the text of a fragment ([`text`]).
//!
//! Why not a parser: an HTML5 tree builder (`scraper`, html5ever) is quadratic on some
//! pages (`<b id=N><i>x` 40,000 times, 629 KB, took 43 s of CPU), and html5ever's
//! tokenizer alone is quadratic in the attributes of one tag (each is compared with every
//! one before it). This scan follows the tokenizer's states that decide where a script
//! is, and nothing more: comments (`<!-- … -->`, `<!…>`, `<?…>`, `</…>` bogus comments),
//! tags with their attributes (quoted, unquoted, the first of a name counting), and the
//! elements whose content is raw text, as the tree builder switches the tokenizer:
//! `<script>` (script data, with its escaped `<!-- <script> … </script> -->` states),
//! `<style>`, `<xmp>`, `<iframe>`, `<noembed>`, `<noframes>`, `<noscript>` (raw text),
//! `<title>`, `<textarea>` (RCDATA) and `<plaintext>` (the rest of the page). So a
//! `<script>` written inside a comment, a `<textarea>` or a `<noscript>` is text, as in a
//! browser. Not followed: `<svg>`/`<math>` content, whose raw-text elements are read as
//! in HTML (a `<script>` there is still read up to its `</script>`).
//!
//! Character references are decoded by html5ever's tokenizer, on pieces that hold no tag
//! (a script's `type`, up to [`MAX_TYPE`] bytes; a text with `<` written as `&lt;`), where
//! it is linear. The scan checks its [`Stop`] every [`CHECK_EVERY`] bytes.

use super::{ImportError, Stop};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use std::cell::RefCell;

/// Bytes scanned between two looks at the [`Stop`].
const CHECK_EVERY: usize = 64 * 1024;

/// The longest `type` attribute decoded; a longer one is no JSON-LD type.
pub(super) const MAX_TYPE: usize = 1024;

/// How the tokenizer reads an element's content, as the tree builder tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    Data,
    Rcdata,
    Rawtext,
    Script,
    Plaintext,
}

fn content_of(name: &str) -> Content {
    let is = |list: &[&str]| list.iter().any(|n| name.eq_ignore_ascii_case(n));
    if is(&["script"]) {
        Content::Script
    } else if is(&["title", "textarea"]) {
        Content::Rcdata
    } else if is(&["style", "xmp", "iframe", "noembed", "noframes", "noscript"]) {
        Content::Rawtext
    } else if is(&["plaintext"]) {
        Content::Plaintext
    } else {
        Content::Data
    }
}

/// One piece of a page, in order.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    /// Text in the data state: character references count.
    Text(&'a str),
    /// A start tag: its name as written and its first `type` attribute, as written.
    Start {
        name: &'a str,
        kind: Option<&'a str>,
    },
    /// The content of a raw-text element, up to its end tag.
    Raw(&'a str, Content),
}

/// The page, read piece by piece.
struct Scanner<'a> {
    s: &'a str,
    pos: usize,
    /// The content that follows the start tag just read.
    pending: Content,
    pending_name: &'a str,
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

impl<'a> Scanner<'a> {
    fn new(s: &'a str) -> Scanner<'a> {
        Scanner {
            s,
            pos: 0,
            pending: Content::Data,
            pending_name: "",
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.s.as_bytes()
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.bytes().get(i).copied()
    }

    /// The first index at or after `from` where `needle` starts, else the end.
    fn find(&self, from: usize, needle: &[u8]) -> usize {
        memchr::memmem::find(&self.bytes()[from..], needle).map_or(self.s.len(), |i| from + i)
    }

    /// The index after the next `>` at or after `from` (a bogus comment's or doctype's end).
    fn past_gt(&self, from: usize) -> usize {
        memchr::memchr(b'>', &self.bytes()[from..]).map_or(self.s.len(), |i| from + i + 1)
    }

    fn next(&mut self) -> Option<Piece<'a>> {
        if self.pending != Content::Data {
            let content = std::mem::replace(&mut self.pending, Content::Data);
            return Some(self.raw(content));
        }
        loop {
            if self.pos >= self.s.len() {
                return None;
            }
            let start = self.pos;
            let lt =
                memchr::memchr(b'<', &self.bytes()[start..]).map_or(self.s.len(), |i| start + i);
            if lt > start {
                self.pos = lt;
                return Some(Piece::Text(&self.s[start..lt]));
            }
            if let Some(piece) = self.markup() {
                return Some(piece);
            }
        }
    }

    /// At a `<`: a tag (a start tag is returned), a comment (skipped), or text.
    fn markup(&mut self) -> Option<Piece<'a>> {
        let at = self.pos;
        match self.at(at + 1) {
            Some(b'!') => {
                self.pos = if self.s[at + 2..].starts_with("--") {
                    self.comment_end(at + 4)
                } else {
                    self.past_gt(at + 2)
                };
                None
            }
            Some(b'?') => {
                self.pos = self.past_gt(at + 2);
                None
            }
            Some(b'/') => {
                match self.at(at + 2) {
                    Some(b) if b.is_ascii_alphabetic() => self.pos = self.tag(at + 2).2,
                    Some(b'>') => self.pos = at + 3,
                    Some(_) => self.pos = self.past_gt(at + 2),
                    None => return self.text_to_end(at),
                }
                None
            }
            Some(b) if b.is_ascii_alphabetic() => {
                let (name, kind, end, complete) = self.tag(at + 1);
                self.pos = end;
                if !complete {
                    return None;
                }
                self.pending = content_of(name);
                self.pending_name = name;
                Some(Piece::Start { name, kind })
            }
            _ => {
                // A `<` that starts nothing: text.
                let next = memchr::memchr(b'<', &self.bytes()[at + 1..])
                    .map_or(self.s.len(), |i| at + 1 + i);
                self.pos = next;
                Some(Piece::Text(&self.s[at..next]))
            }
        }
    }

    fn text_to_end(&mut self, at: usize) -> Option<Piece<'a>> {
        self.pos = self.s.len();
        Some(Piece::Text(&self.s[at..]))
    }

    /// Where a comment whose text starts at `from` ends: `-->` or `--!>`; `<!-->` and
    /// `<!--->` end at once.
    fn comment_end(&self, from: usize) -> usize {
        let rest = &self.s[from.min(self.s.len())..];
        if rest.starts_with('>') {
            return from + 1;
        }
        if rest.starts_with("->") {
            return from + 2;
        }
        let mut i = from;
        loop {
            let dash = self.find(i, b"--");
            if dash >= self.s.len() {
                return self.s.len();
            }
            let after = &self.s[dash + 2..];
            if after.starts_with('>') {
                return dash + 3;
            }
            if after.starts_with("!>") {
                return dash + 4;
            }
            i = dash + 1;
        }
    }

    /// A tag whose name starts at `from`: its name, first `type` attribute, the index
    /// after its `>`, and whether it has one (without, the page ends in it: dropped).
    fn tag(&self, from: usize) -> (&'a str, Option<&'a str>, usize, bool) {
        let b = self.bytes();
        let mut i = from;
        while i < b.len() && !is_space(b[i]) && b[i] != b'/' && b[i] != b'>' {
            i += 1;
        }
        let (kind, end, complete) = self.attributes(i);
        (&self.s[from..i], kind, end, complete)
    }

    /// The attributes from `i` to the tag's `>`: the first `type`'s value, the index after
    /// the `>`, and whether there was one.
    fn attributes(&self, mut i: usize) -> (Option<&'a str>, usize, bool) {
        let b = self.bytes();
        let mut kind = None;
        let mut seen_type = false;
        loop {
            while i < b.len() && (is_space(b[i]) || b[i] == b'/') {
                i += 1;
            }
            match b.get(i) {
                None => return (kind, b.len(), false),
                Some(b'>') => return (kind, i + 1, true),
                Some(_) => {}
            }
            let name_start = i;
            i += 1; // A first `=` belongs to the name.
            while i < b.len() && !is_space(b[i]) && !matches!(b[i], b'/' | b'>' | b'=') {
                i += 1;
            }
            let name = &self.s[name_start..i];
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            let mut value = "";
            if b.get(i) == Some(&b'=') {
                i += 1;
                while i < b.len() && is_space(b[i]) {
                    i += 1;
                }
                let (v, end) = self.value(i);
                value = v;
                i = end;
            }
            if !seen_type && name.eq_ignore_ascii_case("type") {
                seen_type = true;
                kind = Some(value);
            }
        }
    }

    /// An attribute value starting at `i` (quoted or not) and the index after it.
    fn value(&self, i: usize) -> (&'a str, usize) {
        let b = self.bytes();
        match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let end = memchr::memchr(q, &b[i + 1..]).map_or(b.len(), |n| i + 1 + n);
                (&self.s[i + 1..end], (end + 1).min(b.len()))
            }
            _ => {
                let mut end = i;
                while end < b.len() && !is_space(b[end]) && b[end] != b'>' {
                    end += 1;
                }
                (&self.s[i..end], end)
            }
        }
    }

    /// The content of the raw-text element just opened, up to its end tag (which is
    /// skipped); to the page's end for `<plaintext>` or without one.
    fn raw(&mut self, content: Content) -> Piece<'a> {
        let from = self.pos;
        let end = match content {
            Content::Plaintext | Content::Data => None,
            Content::Script => self.script_end(from),
            _ => self.end_tag(from, self.pending_name),
        };
        let Some(end) = end else {
            self.pos = self.s.len();
            return Piece::Raw(&self.s[from..], content);
        };
        // The end tag's attributes (quoted values may hold a `>`), up to its `>`.
        let (_, past, _) = self.attributes(end + 2 + self.pending_name.len());
        self.pos = past;
        Piece::Raw(&self.s[from..end], content)
    }

    /// Whether an end tag `</name` followed by a space, `/` or `>` starts at `i`.
    fn is_end_tag(&self, i: usize, name: &str) -> bool {
        let b = self.bytes();
        let n = name.len();
        b.get(i..i + 2) == Some(b"</")
            && b.get(i + 2..i + 2 + n)
                .is_some_and(|t| t.eq_ignore_ascii_case(name.as_bytes()))
            && b.get(i + 2 + n)
                .is_some_and(|&c| is_space(c) || c == b'/' || c == b'>')
    }

    /// Where the end tag of an RCDATA or raw-text element starts, if anywhere.
    fn end_tag(&self, from: usize, name: &str) -> Option<usize> {
        let b = self.bytes();
        let mut i = from;
        while let Some(n) = memchr::memchr(b'<', &b[i..]) {
            if self.is_end_tag(i + n, name) {
                return Some(i + n);
            }
            i += n + 1;
        }
        None
    }

    /// Where a script's `</script` end tag starts, through the escaped states: inside
    /// `<!--`, a `<script` starts a part that only `</script` then `-->` leaves.
    fn script_end(&self, from: usize) -> Option<usize> {
        let mut state = Escape::None;
        let mut i = from;
        loop {
            let n = self.find_script_mark(i)?;
            i = n;
            let rest = &self.s[i..];
            match state {
                Escape::None | Escape::Escaped if self.is_end_tag(i, "script") => return Some(i),
                Escape::None if rest.starts_with("<!--") => {
                    state = Escape::Escaped;
                    // `<!-->` and `<!--->`: the dashes also end the escape.
                    i += 2;
                    continue;
                }
                Escape::Escaped if rest.starts_with("<") && self.opens_script(i + 1) => {
                    state = Escape::Double;
                }
                Escape::Double if self.is_end_tag(i, "script") && self.closes_word(i + 8) => {
                    state = Escape::Escaped;
                }
                Escape::Escaped | Escape::Double if rest.starts_with("-->") => {
                    state = Escape::None;
                    i += 3;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// The next `<` or `-` at or after `i` (all the escaped states look at).
    fn find_script_mark(&self, i: usize) -> Option<usize> {
        memchr::memchr2(b'<', b'-', self.bytes().get(i..)?).map(|n| i + n)
    }

    /// Whether `script` then a space, `/` or `>` starts at `i` (the double escape).
    fn opens_script(&self, i: usize) -> bool {
        let b = self.bytes();
        b.get(i..i + 6)
            .is_some_and(|t| t.eq_ignore_ascii_case(b"script"))
            && self.closes_word(i + 6)
    }

    fn closes_word(&self, i: usize) -> bool {
        self.at(i)
            .is_some_and(|c| is_space(c) || c == b'/' || c == b'>')
    }
}

/// Where a script's content is in the escaped states of the tokenizer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    Escaped,
    Double,
}

/// The text of every `<script>` whose `type` is `application/ld+json` (parameters after
/// `;` and case aside; character references decoded), in order.
pub(super) fn scripts<'a>(html: &'a str, stop: &Stop) -> Result<Vec<&'a str>, ImportError> {
    let mut scanner = Scanner::new(html);
    let mut found = Vec::new();
    let mut ld = false;
    let mut checked = 0;
    while let Some(piece) = scanner.next() {
        if scanner.pos >= checked + CHECK_EVERY {
            stop.check()?;
            checked = scanner.pos;
        }
        match piece {
            Piece::Start { name, kind } => {
                ld = name.eq_ignore_ascii_case("script") && kind.is_some_and(is_json_ld);
            }
            Piece::Raw(text, Content::Script) if ld => found.push(text),
            _ => ld = false,
        }
    }
    Ok(found)
}

fn is_json_ld(kind: &str) -> bool {
    if kind.len() > MAX_TYPE {
        return false;
    }
    let decoded = decode_attribute(kind);
    let essence = decoded.split(';').next().unwrap_or_default();
    essence
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .eq_ignore_ascii_case("application/ld+json")
}

/// Text with HTML character references decoded and tags taken out (the content of
/// `<script>`, `<style>` and the like kept, as a parsed fragment's text has it).
pub(super) fn text(html: &str) -> String {
    let mut scanner = Scanner::new(html);
    let mut out = String::with_capacity(html.len());
    while let Some(piece) = scanner.next() {
        match piece {
            Piece::Text(t) | Piece::Raw(t, Content::Rcdata) => out.push_str(&decode_text(t)),
            Piece::Raw(t, _) => out.push_str(t),
            Piece::Start { .. } => {}
        }
    }
    out
}

/// Collects what html5ever's tokenizer reads: the characters, or an attribute's value.
#[derive(Default)]
struct Collect {
    text: RefCell<String>,
}

impl TokenSink for Collect {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::CharacterTokens(t) => self.text.borrow_mut().push_str(&t),
            TagToken(tag) => {
                if let Some(a) = tag.attrs.first() {
                    self.text.borrow_mut().push_str(&a.value);
                }
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// What html5ever's tokenizer reads from `input` (which holds at most one tag).
fn tokenize(input: &str) -> String {
    let tokenizer = Tokenizer::new(Collect::default(), TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(input));
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    tokenizer.sink.text.take()
}

/// Text with its character references decoded; no tag is read (`<` is text).
fn decode_text(t: &str) -> String {
    if !t.contains('&') {
        return t.to_owned();
    }
    tokenize(&t.replace('<', "&lt;"))
}

/// An attribute value as written (without its quotes) with its references decoded, as in
/// an attribute (where `&amp=` is not a reference).
fn decode_attribute(value: &str) -> String {
    if !value.contains('&') {
        return value.to_owned();
    }
    let quote = if value.contains('"') { '\'' } else { '"' };
    tokenize(&format!("<x t={quote}{value}{quote}>"))
}

#[cfg(test)]
mod tests;
