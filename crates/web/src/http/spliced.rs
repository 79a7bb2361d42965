//! Brotli answers spliced from pieces: a large part that many answers share, compressed
//! once and well ([`Middle`]), between two small parts compressed for one request
//! ([`splice`]).
//!
//! Every recipe page is a few kilobytes of its own around the whole list (a megabyte or
//! more for thousands of recipes), the same list on every recipe page. Brotli streams made
//! *catable* (no static dictionary, no reference to anything before their own start) can be
//! joined into one stream by the brotli crate's `BroCatli`, which rewrites the first bytes
//! of each stream after the first and drops the end-of-stream bits of all but the last.
//! When every stream also ends on a byte boundary (`byte_align`), what `BroCatli` makes of
//! a stream in the middle does not depend on its neighbours at all: its first bytes change
//! the same way whatever comes before, and its last byte (only the end-of-stream bits) is
//! dropped whatever comes after. So the list is compressed and rewritten once; a request
//! compresses its own head and tail at brotli's per-request quality, joins just those two,
//! and sends head, the shared middle, tail.
//!
//! A recipe page is then smaller (the list at quality 11 rather than 3), several times
//! cheaper to make, and needs no memory of its own beyond its head and tail; most of what
//! is left per request is the ETag, a hash of the whole text (the numbers:
//! docs/bench/notes-web.md).
//!
//! Any piece that does not come out as this needs makes [`splice`] (or
//! [`Middle::compress`]) answer `None`, and the caller compresses the whole text its
//! usual way: a corrupt stream is never sent. The middle is also decoded once, spliced
//! between two test pieces, when it is made.

use super::compress::{Effort, FAST_BROTLI_QUALITY, window_bits};
use brotli::concat::{BroCatli, BroCatliResult};
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use std::convert::Infallible;
use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The window of the joined stream, which no piece may exceed: 256 KiB, as for every body
/// compressed at quality 11 (see `compress::MAX_WINDOW_BITS_BEST`; the same memory at start-up).
const WINDOW_BITS: u8 = 18;

/// The middle's quality when it must be made quickly (after a change saved in the app):
/// past 5, each step costs more time and memory than the bytes it saves are worth, and 11
/// takes seconds (the numbers: docs/bench/notes-web.md).
const QUICK_MIDDLE_QUALITY: i32 = 5;

/// What every catable brotli stream ends with when `byte_align` is set: the last
/// meta-block's ISLAST and ISLASTEMPTY bits, alone in a byte.
const END: u8 = 0x03;

/// A text compressed once to sit between per-request pieces: the bytes `BroCatli` makes of
/// its catable stream between two byte-aligned streams.
#[derive(Debug)]
pub(crate) struct Middle(Bytes);

impl Middle {
    /// `text` compressed as a middle (quality 11 for [`Effort::Best`]), or `None` if the
    /// stream does not come out as splicing needs or fails its check.
    pub(crate) fn compress(text: &[u8], effort: Effort) -> Option<Middle> {
        let quality = match effort {
            Effort::Best => 11,
            Effort::Fast => QUICK_MIDDLE_QUALITY,
        };
        let stream = catable(text, quality)?;
        let lead = catable(b"<", FAST_BROTLI_QUALITY)?;
        let (joined, split) = join(&lead, &stream)?;
        // `joined` is the lead, the middle, then the end-of-stream byte.
        let middle = Middle(Bytes::copy_from_slice(joined.get(split..joined.len() - 1)?));
        middle.decodes_between(b"<", text, b">").then_some(middle)
    }

    /// The bytes sent between every answer's head and tail.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> &Bytes {
        &self.0
    }

    /// Whether `head`, this middle and `tail`, spliced, decode to `head ++ text ++ tail`:
    /// checked once per middle, against the text it was made from.
    fn decodes_between(&self, head: &[u8], text: &[u8], tail: &[u8]) -> bool {
        let Some(pieces) = splice(head, self, tail) else {
            return false;
        };
        let mut input = io::Read::chain(
            io::Read::chain(&pieces.0[0][..], &pieces.0[1][..]),
            &pieces.0[2][..],
        );
        let mut expected = Expect([head, text, tail].into_iter().flatten().copied());
        brotli::BrotliDecompress(&mut input, &mut expected).is_ok() && expected.0.next().is_none()
    }
}

/// Compares what is written with an expected sequence of bytes, failing at the first
/// difference: a decoded megabyte is checked without being held.
struct Expect<I>(I);

impl<I: Iterator<Item = u8>> Write for Expect<I> {
    fn write(&mut self, decoded: &[u8]) -> io::Result<usize> {
        if decoded.iter().all(|&b| self.0.next() == Some(b)) {
            Ok(decoded.len())
        } else {
            Err(io::Error::other("the spliced stream decodes to other text"))
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `head ++ middle's text ++ tail` as one brotli stream in three pieces, the middle one
/// shared; `None` if a piece does not come out as splicing needs (the caller then
/// compresses the whole text its usual way).
pub(crate) fn splice(head: &[u8], middle: &Middle, tail: &[u8]) -> Option<Pieces> {
    let head = catable(head, FAST_BROTLI_QUALITY)?;
    let tail = catable(tail, FAST_BROTLI_QUALITY)?;
    let (joined, split) = join(&head, &tail)?;
    let joined = Bytes::from(joined);
    Some(Pieces(
        [
            joined.slice(..split),
            middle.0.clone(),
            joined.slice(split..),
        ],
        0,
    ))
}

/// `text` as a catable, byte-aligned brotli stream, or `None` if it does not end as
/// [`join`] relies on. An empty text is refused: its stream has no byte to spare.
fn catable(text: &[u8], quality: i32) -> Option<Vec<u8>> {
    if text.is_empty() {
        return None;
    }
    let params = libations_compress::Params {
        quality,
        lgwin: window_bits(text.len(), Effort::Best),
        // Quality 11's buffers for 64 KiB blocks, as in `compress::brotli`.
        lgblock: if quality >= 10 { 16 } else { 0 },
        size_hint: text.len(),
        catable: true,
        appendable: true,
        use_dictionary: false,
        byte_align: true,
        ..Default::default()
    };
    let out = libations_compress::brotli(text, &params, text.len() / 8 + 64).ok()?;
    (out.len() >= 3 && out.last() == Some(&END)).then_some(out)
}

/// `first` and `second` joined by `BroCatli`, and where `first`'s bytes end in the result:
/// the place a middle goes. `None` unless both stream through whole and the result ends
/// on the end-of-stream byte with `first`'s last byte before the end-of-stream bits
/// right before the split.
///
/// `BroCatli` holds back a stream's last two bytes; when the next stream starts it drops
/// the end-of-stream byte and writes the one before it, so `first` ends one byte after
/// what had been written when `second` started.
fn join(first: &[u8], second: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut cat = BroCatli::try_new_with_window_size(WINDOW_BITS).ok()?;
    let mut out = vec![0; first.len() + second.len() + 16];
    let mut written = 0;
    let mut split = 0;
    for (n, part) in [first, second].into_iter().enumerate() {
        cat.new_brotli_file();
        let mut read = 0;
        let result = cat.stream(part, &mut read, &mut out, &mut written);
        if result != BroCatliResult::NeedsMoreInput || read != part.len() {
            return None;
        }
        if n == 0 {
            split = written + 1;
        }
    }
    if cat.finish(&mut out, &mut written) != BroCatliResult::Success {
        return None;
    }
    out.truncate(written);
    let last_of_first = first.get(first.len().checked_sub(2)?)?;
    let ok = out.last() == Some(&END) && split < out.len() && out[split - 1] == *last_of_first;
    ok.then_some((out, split))
}

/// A response body of three pieces sent in turn, its length known (so it is sent with a
/// `Content-Length`); the pieces are reference-counted, the middle shared by every answer
/// spliced around it.
#[derive(Debug, Clone)]
pub(crate) struct Pieces([Bytes; 3], usize);

impl Pieces {
    /// The bytes made for this answer alone (its head and tail): the middle is shared.
    pub(crate) fn own_len(&self) -> usize {
        self.0[0].len() + self.0[2].len()
    }

    /// The bytes still to send.
    fn remaining(&self) -> u64 {
        let rest = self.0.get(self.1..).unwrap_or_default();
        rest.iter().map(|piece| piece.len() as u64).sum()
    }
}

impl http_body::Body for Pieces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        while let Some(piece) = this.0.get_mut(this.1) {
            this.1 += 1;
            if !piece.is_empty() {
                return Poll::Ready(Some(Ok(Frame::data(std::mem::take(piece)))));
            }
        }
        Poll::Ready(None)
    }

    fn is_end_stream(&self) -> bool {
        self.remaining() == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HTML-like text of about `len` bytes that does not simply repeat.
    fn text(len: usize, seed: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut n = seed;
        while out.len() < len {
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let row = format!(
                "<li><a href=\"/recipes/{}\">Drink {}</a></li>\n",
                n >> 50,
                n >> 40
            );
            out.extend_from_slice(row.as_bytes());
        }
        out.truncate(len);
        out
    }

    fn decoded(pieces: Pieces) -> Vec<u8> {
        let packed = pieces.0.concat();
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &packed[..], &mut out).expect("the stream decodes");
        out
    }

    #[test]
    fn spliced_pieces_decode_to_head_middle_and_tail() {
        let cases = [
            (1, Effort::Best),
            (5_000, Effort::Best),
            (700_000, Effort::Fast),
        ];
        for (len, effort) in cases {
            let middle_text = text(len, len);
            let middle = Middle::compress(&middle_text, effort).expect("a middle");
            for (head, tail) in [(1, 1), (3, 40_000), (2_600, 2_000), (600_000, 7)] {
                let (head, tail) = (text(head, 1), text(tail, 2));
                let pieces = splice(&head, &middle, &tail).expect("spliced");
                assert_eq!(pieces.0[1], middle.0, "the middle is sent as made");
                let length = http_body::Body::size_hint(&pieces).exact();
                assert_eq!(length, Some(pieces.0.iter().map(|p| p.len() as u64).sum()));
                let whole = [&head[..], &middle_text, &tail].concat();
                assert!(
                    decoded(pieces) == whole,
                    "{len}: {} + {}",
                    head.len(),
                    tail.len()
                );
            }
        }
    }

    #[test]
    fn empty_pieces_are_not_spliced() {
        let middle = Middle::compress(b"<ol></ol>", Effort::Fast).expect("a middle");
        assert!(splice(b"", &middle, b"x").is_none());
        assert!(splice(b"x", &middle, b"").is_none());
        assert!(Middle::compress(b"", Effort::Fast).is_none());
    }

    #[tokio::test]
    async fn pieces_are_sent_in_turn_with_their_length() {
        let pieces = Pieces([Bytes::from("ab"), Bytes::new(), Bytes::from("c")], 0);
        let body = axum::body::Body::new(pieces);
        assert_eq!(http_body::Body::size_hint(&body).exact(), Some(3));
        let sent = axum::body::to_bytes(body, usize::MAX).await.expect("sent");
        assert_eq!(&sent[..], b"abc");
    }
}
