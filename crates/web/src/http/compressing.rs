//! Answers made for one request (a search's page or JSON, a recipe page), compressed while
//! they are written.
//!
//! With thousands of recipes such an answer is a megabyte or more of text, and a phone
//! receives a few tens of kilobytes of brotli. Rendering the whole text and compressing it
//! afterwards held the text, the compressor's tables and the compressed bytes at once, on
//! every core running a search, and left glibc's heaps holding the largest such moment for
//! good. A [`Compressing`] passes the text to the compressor in slices of [`SLICE`] bytes as it
//! is written, so the text is never held whole. Its ETag is still the hash of the text,
//! taken on the way through: the same ETag as [`super::fixed::per_request_as`] gives the same text.
//!
//! Small answers ([`STREAM_FROM`]), and any answer for a client that takes no compression,
//! are kept whole and sent through [`super::fixed::per_request_as`], which compresses only when that makes
//! them smaller.

use super::cache_control;
use super::compress::{Effort, FAST_BROTLI_QUALITY, window_bits};
use super::fixed::{FixedBody, per_request_body, per_request_hashed, per_request_response};
use super::negotiate::{Encoding, negotiate};
use super::representation::{ContentHasher, Representation};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response};
use bytes::Bytes;
use std::fmt;
use std::io::{self, Write};

/// Answers expected to be at least this long are compressed as they are written; shorter
/// ones are kept whole (compressing a few kilobytes whole costs little, and whole, an
/// answer is sent compressed only if that is smaller).
pub(crate) const STREAM_FROM: usize = 64 << 10;

/// How much text is gathered before it goes to the hash and the compressor: askama writes
/// a page as thousands of small pieces, and each call into brotli's stream has a cost of
/// its own.
const SLICE: usize = 16 << 10;

/// How much text brotli takes between flushes. At quality 3 brotli ends a meta-block only
/// once it holds thousands of commands and literals, which for our repetitive HTML and JSON
/// is hundreds of kilobytes; its output buffer for the meta-block grows in steps on the way,
/// each step a fresh block, in sizes that never fit each other's holes, and glibc's heaps
/// grew by several times the live memory under load. Ending a meta-block every 128 KiB
/// keeps that buffer small for a fraction of a per cent more bytes (matches still reach back
/// across meta-blocks: the window is kept). The numbers: docs/bench/notes-web.md.
const FLUSH_EVERY: usize = 128 << 10;

/// One answer being written ([`io::Write`], or [`fmt::Write`] for askama), then made into a
/// response by [`Compressing::finish`].
pub(crate) struct Compressing {
    sink: Sink,
    /// The hash of the text written so far (only while compressing: a whole text is
    /// hashed by [`per_request_body`]).
    hash: ContentHasher,
    /// The text's hash when the caller already knows it ([`Compressing::with_hash`]):
    /// then nothing is hashed on the way.
    given: Option<String>,
    /// Text not yet passed on; at most [`SLICE`] bytes.
    slice: Vec<u8>,
    /// Text given to brotli since its last flush.
    unflushed: usize,
    /// The first error from the compressor, kept for [`Compressing::finish`] (askama's writer
    /// reports only that writing failed, not why).
    failed: Option<io::Error>,
}

enum Sink {
    Whole(Vec<u8>),
    Brotli(Box<libations_compress::Writer>),
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
}

impl Compressing {
    /// An answer for `request` of about `size_hint` bytes of text: the hint decides whether
    /// it is compressed as it is written, and the brotli window (the smallest that holds
    /// it, as for [`super::fixed::per_request_as`]'s whole bodies).
    pub(crate) fn new(request: &HeaderMap, size_hint: usize) -> Compressing {
        let sink = match negotiate(request) {
            _ if size_hint < STREAM_FROM => Sink::Whole(Vec::with_capacity(size_hint)),
            Encoding::Identity => Sink::Whole(Vec::with_capacity(size_hint)),
            Encoding::Brotli => {
                let params = libations_compress::Params {
                    quality: FAST_BROTLI_QUALITY,
                    lgwin: window_bits(size_hint, Effort::Fast),
                    size_hint,
                    ..Default::default()
                };
                Sink::Brotli(Box::new(libations_compress::Writer::new(SLICE, &params)))
            }
            Encoding::Gzip => Sink::Gzip(flate2::write::GzEncoder::new(
                Vec::new(),
                flate2::Compression::fast(),
            )),
        };
        Compressing {
            sink,
            hash: ContentHasher::new(),
            given: None,
            slice: Vec::new(),
            unflushed: 0,
            failed: None,
        }
    }

    /// [`Compressing::new`] for a text whose hash the caller has made already, of its
    /// parts (a recipe page: see `site::recipe_page`): the answer's ETag is `hash`.
    pub(crate) fn with_hash(request: &HeaderMap, size_hint: usize, hash: String) -> Compressing {
        Compressing {
            given: Some(hash),
            ..Compressing::new(request, size_hint)
        }
    }

    /// Whether the text is being compressed as it is written (else it is kept whole).
    #[cfg(test)]
    fn streaming(&self) -> bool {
        !matches!(self.sink, Sink::Whole(_))
    }

    /// Text held by this answer, not yet compressed: at most [`SLICE`] bytes while
    /// streaming.
    #[cfg(test)]
    fn held(&self) -> usize {
        match &self.sink {
            Sink::Whole(text) => text.len(),
            _ => self.slice.len(),
        }
    }

    /// The finished answer: its compressed bytes with the text's hash, or the whole text
    /// as a response through [`super::fixed::per_request_as`].
    pub(crate) fn finish(
        mut self,
        content_type: &'static str,
        request: &HeaderMap,
    ) -> io::Result<Finished> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        self.pass_slice()?;
        let (packed, encoding) = match self.sink {
            Sink::Whole(text) => {
                return Ok(Finished::Whole(match self.given {
                    Some(hash) => per_request_hashed(text, hash, content_type, request),
                    None => per_request_body(text, content_type, request),
                }));
            }
            Sink::Brotli(writer) => (writer.into_inner(), Encoding::Brotli),
            Sink::Gzip(writer) => (writer.finish()?, Encoding::Gzip),
        };
        Ok(Finished::Packed(Packed {
            hash: match self.given {
                Some(hash) => hash,
                None => self.hash.finish(),
            },
            encoding,
            content_type,
            body: Bytes::from(packed),
        }))
    }

    /// Hashes and compresses what the slice holds.
    fn pass_slice(&mut self) -> io::Result<()> {
        let slice = std::mem::take(&mut self.slice);
        let passed = self.pass(&slice);
        self.slice = slice;
        self.slice.clear();
        passed
    }

    fn pass(&mut self, text: &[u8]) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.given.is_none() {
            self.hash.update(text);
        }
        match &mut self.sink {
            Sink::Whole(whole) => {
                whole.extend_from_slice(text);
                Ok(())
            }
            Sink::Brotli(writer) => {
                writer.write_all(text)?;
                self.unflushed += text.len();
                if self.unflushed >= FLUSH_EVERY {
                    self.unflushed = 0;
                    writer.flush()?;
                }
                Ok(())
            }
            Sink::Gzip(writer) => writer.write_all(text),
        }
    }
}

/// What [`Compressing::finish`] made.
pub(crate) enum Finished {
    /// Compressed as it was written.
    Packed(Packed),
    /// Kept whole (small, or for a client that takes no compression), compressed for the
    /// request if that made it smaller.
    Whole(FixedBody),
}

impl Finished {
    /// Bytes of the answer as it will be sent.
    pub(crate) fn size(&self) -> usize {
        match self {
            Finished::Packed(packed) => packed.size(),
            Finished::Whole(body) => body.size(),
        }
    }

    /// The response to `request`, marked [`crate::connections::PerRequest`]: its bytes
    /// were made for this request.
    pub(crate) fn respond(self, request: &HeaderMap) -> Response<Body> {
        match self {
            Finished::Whole(body) => per_request_response(&body, request),
            Finished::Packed(packed) => {
                let mut response = packed.respond(request);
                response
                    .extensions_mut()
                    .insert(crate::connections::PerRequest);
                response
            }
        }
    }
}

/// An answer's compressed bytes and the hash of its text: all it takes to send it again.
#[derive(Debug)]
pub(crate) struct Packed {
    hash: String,
    encoding: Encoding,
    content_type: &'static str,
    body: Bytes,
}

impl Packed {
    /// The response to `request`: these bytes with the text's ETag, or 304.
    pub(crate) fn respond(&self, request: &HeaderMap) -> Response<Body> {
        let representation = Representation {
            hash: &self.hash,
            content_type: &HeaderValue::from_static(self.content_type),
            cache_control: &HeaderValue::from_static(cache_control::REVALIDATE),
            encoding: self.encoding,
        };
        representation.respond(self.body.clone(), request)
    }

    /// The coding the bytes are in.
    pub(crate) fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Bytes held: the body and the hash.
    pub(crate) fn size(&self) -> usize {
        self.body.len() + self.hash.len()
    }
}

impl Write for Compressing {
    fn write(&mut self, text: &[u8]) -> io::Result<usize> {
        if let Sink::Whole(whole) = &mut self.sink {
            whole.extend_from_slice(text);
            return Ok(text.len());
        }
        if self.slice.len() + text.len() > SLICE {
            self.pass_slice()?;
        }
        if text.len() >= SLICE {
            self.pass(text)?;
        } else {
            if self.slice.capacity() == 0 {
                self.slice.reserve_exact(SLICE);
            }
            self.slice.extend_from_slice(text);
        }
        Ok(text.len())
    }

    /// Nothing to do: flushing brotli part way would cost bytes, and the answer is only
    /// sent once [`Compressing::finish`]ed.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl fmt::Write for Compressing {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.write_all(text.as_bytes()).map_err(|error| {
            self.failed.get_or_insert(error);
            fmt::Error
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::fixed::per_request_as;
    use crate::http::negotiate::tests::accept;
    use axum::http::{StatusCode, header};
    use std::io::Read;

    /// A page-like text of `rows` rows, written in pieces of very different sizes.
    fn write_rows(answer: &mut Compressing, rows: usize) -> Vec<u8> {
        let mut text = Vec::new();
        for n in 0..rows {
            let row = format!("<li><a href=\"/recipes/{n}\">Drink {n}</a> gin, lime, sugar</li>\n");
            answer.write_all(row.as_bytes()).unwrap();
            text.extend_from_slice(row.as_bytes());
            if n % 500 == 0 {
                let block = "x".repeat(40_000);
                answer.write_all(block.as_bytes()).unwrap();
                text.extend_from_slice(block.as_bytes());
            }
        }
        text
    }

    async fn body(response: Response<Body>) -> Vec<u8> {
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec()
    }

    #[tokio::test]
    async fn streamed_answers_decode_to_the_text_with_the_same_etag_as_whole_ones() {
        for coding in ["br", "gzip"] {
            let request = accept(coding);
            let mut answer = Compressing::new(&request, 1 << 20);
            assert!(answer.streaming());
            let text = write_rows(&mut answer, 5_000);
            assert!(answer.held() <= SLICE, "held {} bytes", answer.held());
            let streamed = answer
                .finish("text/html; charset=utf-8", &request)
                .unwrap()
                .respond(&request);
            let whole = per_request_as(text.clone(), "text/html; charset=utf-8", &request, None);
            assert_eq!(streamed.headers()[header::CONTENT_ENCODING], coding);
            assert_eq!(
                streamed.headers()[header::ETAG],
                whole.headers()[header::ETAG]
            );
            assert!(
                streamed
                    .extensions()
                    .get::<crate::connections::PerRequest>()
                    .is_some()
            );
            let packed = body(streamed).await;
            let mut decoded = Vec::new();
            if coding == "br" {
                brotli::BrotliDecompress(&mut &packed[..], &mut decoded).unwrap();
            } else {
                flate2::read::GzDecoder::new(&packed[..])
                    .read_to_end(&mut decoded)
                    .unwrap();
            }
            assert_eq!(decoded, text, "{coding}");
        }
    }

    #[tokio::test]
    async fn small_answers_and_identity_clients_get_the_text_whole() {
        let mut small = Compressing::new(&accept("br"), 100);
        assert!(!small.streaming());
        small.write_all(b"[]").unwrap();
        let response = small
            .finish("application/json", &accept("br"))
            .unwrap()
            .respond(&accept("br"));
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(body(response).await, b"[]");

        let plain = HeaderMap::new();
        let mut big = Compressing::new(&plain, 1 << 20);
        assert!(!big.streaming());
        let text = write_rows(&mut big, 2_000);
        let response = big
            .finish("text/html; charset=utf-8", &plain)
            .unwrap()
            .respond(&plain);
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(body(response).await, text);
    }

    #[tokio::test]
    async fn a_streamed_answer_honours_if_none_match() {
        let request = accept("br");
        let mut first = Compressing::new(&request, 1 << 20);
        write_rows(&mut first, 3_000);
        let first = first
            .finish("text/html; charset=utf-8", &request)
            .unwrap()
            .respond(&request);
        let mut again = request.clone();
        again.insert(header::IF_NONE_MATCH, first.headers()[header::ETAG].clone());
        let mut second = Compressing::new(&again, 1 << 20);
        write_rows(&mut second, 3_000);
        let second = second
            .finish("text/html; charset=utf-8", &again)
            .unwrap()
            .respond(&again);
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert!(body(second).await.is_empty());
    }
}
