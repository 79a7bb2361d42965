//! Answers made for one request (a search's page or JSON, a recipe page), compressed while
//! they are written.
//!
//! With thousands of recipes such an answer is a megabyte or more of text, and a phone
//! receives a few tens of kilobytes of brotli. Rendering the whole text and compressing it
//! afterwards held the text, the compressor's tables and the compressed bytes at once, on
//! every core running a search, and left glibc's heaps holding the largest such moment for
//! good. An [`Answer`] passes the text to the compressor in slices of [`SLICE`] bytes as it
//! is written, so the text is never held whole. Its ETag is still the hash of the text,
//! taken on the way through: the same ETag as [`per_request`] gives the same text.
//!
//! Small answers ([`STREAM_FROM`]), and any answer for a client that takes no compression,
//! are kept whole and sent through [`per_request`], which compresses only when that makes
//! them smaller.

use super::cached::Effort;
use super::cached::{Encoding, Representation, hash_hex, negotiate, per_request, window_bits};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response};
use bytes::Bytes;
use sha2::{Digest, Sha256};
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
/// once it holds ~12,000 commands and literals, which for our repetitive HTML and JSON is
/// hundreds of kilobytes; its output buffer for the meta-block grows in 32 KiB steps on the
/// way, each step a fresh block: ~7 MB allocated and freed for a 430 KB answer, in sizes
/// that never fit each other's holes, and glibc's heaps grew by several times the live
/// memory under load. Ending a meta-block every 128 KiB keeps that buffer small, allocates
/// ~2.7 MB per such answer and costs 0.1–0.5 % more bytes (matches still reach back across
/// meta-blocks: the window is kept).
const FLUSH_EVERY: usize = 128 << 10;

/// One answer being written ([`io::Write`], or [`fmt::Write`] for askama), then made into a
/// response by [`Answer::finish`].
pub(crate) struct Answer {
    sink: Sink,
    /// The hash of the text written so far (only while compressing: a whole text is
    /// hashed by [`per_request`]).
    hash: Sha256,
    /// Text not yet passed on; at most [`SLICE`] bytes.
    slice: Vec<u8>,
    /// Text given to brotli since its last flush.
    unflushed: usize,
    /// The first error from the compressor, kept for [`Answer::finish`] (askama's writer
    /// reports only that writing failed, not why).
    failed: Option<io::Error>,
}

enum Sink {
    Whole(Vec<u8>),
    Brotli(Box<brotli::CompressorWriter<Vec<u8>>>),
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
}

impl Answer {
    /// An answer for `request` of about `size_hint` bytes of text: the hint decides whether
    /// it is compressed as it is written, and the brotli window (the smallest that holds
    /// it, as for [`per_request`]'s whole bodies).
    pub(crate) fn new(request: &HeaderMap, size_hint: usize) -> Answer {
        let sink = match negotiate(request) {
            _ if size_hint < STREAM_FROM => Sink::Whole(Vec::with_capacity(size_hint)),
            Encoding::Identity => Sink::Whole(Vec::with_capacity(size_hint)),
            Encoding::Brotli => {
                let params = brotli::enc::BrotliEncoderParams {
                    quality: super::cached::FAST_BROTLI_QUALITY,
                    lgwin: window_bits(size_hint, Effort::Fast),
                    size_hint,
                    ..Default::default()
                };
                Sink::Brotli(Box::new(brotli::CompressorWriter::with_params(
                    Vec::new(),
                    SLICE,
                    &params,
                )))
            }
            Encoding::Gzip => Sink::Gzip(flate2::write::GzEncoder::new(
                Vec::new(),
                flate2::Compression::fast(),
            )),
        };
        Answer {
            sink,
            hash: Sha256::new(),
            slice: Vec::new(),
            unflushed: 0,
            failed: None,
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

    /// The response: the compressed bytes with the text's ETag, or the whole text through
    /// [`per_request`]. Marked [`crate::connections::PerRequest`] either way.
    pub(crate) fn finish(
        mut self,
        content_type: &'static str,
        request: &HeaderMap,
    ) -> io::Result<Response<Body>> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        self.pass_slice()?;
        let (packed, encoding) = match self.sink {
            Sink::Whole(text) => return Ok(per_request(text, content_type, request)),
            Sink::Brotli(writer) => (writer.into_inner(), Encoding::Brotli),
            Sink::Gzip(writer) => (writer.finish()?, Encoding::Gzip),
        };
        let hash = hash_hex(&self.hash.finalize());
        let representation = Representation {
            hash: &hash,
            content_type: &HeaderValue::from_static(content_type),
            cache_control: &HeaderValue::from_static(super::site::HTML_CACHE),
            encoding,
        };
        let mut response = representation.respond(Bytes::from(packed), request);
        response
            .extensions_mut()
            .insert(crate::connections::PerRequest);
        Ok(response)
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
        self.hash.update(text);
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

impl Write for Answer {
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
    /// sent once [`Answer::finish`]ed.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl fmt::Write for Answer {
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
    use axum::http::{StatusCode, header};
    use std::io::Read;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        h
    }

    /// A page-like text of `rows` rows, written in pieces of very different sizes.
    fn write_rows(answer: &mut Answer, rows: usize) -> Vec<u8> {
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
            let mut answer = Answer::new(&request, 1 << 20);
            assert!(answer.streaming());
            let text = write_rows(&mut answer, 5_000);
            assert!(answer.held() <= SLICE, "held {} bytes", answer.held());
            let streamed = answer.finish("text/html; charset=utf-8", &request).unwrap();
            let whole = per_request(text.clone(), "text/html; charset=utf-8", &request);
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
        let mut small = Answer::new(&accept("br"), 100);
        assert!(!small.streaming());
        small.write_all(b"[]").unwrap();
        let response = small.finish("application/json", &accept("br")).unwrap();
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(body(response).await, b"[]");

        let plain = HeaderMap::new();
        let mut big = Answer::new(&plain, 1 << 20);
        assert!(!big.streaming());
        let text = write_rows(&mut big, 2_000);
        let response = big.finish("text/html; charset=utf-8", &plain).unwrap();
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(body(response).await, text);
    }

    #[tokio::test]
    async fn a_streamed_answer_honours_if_none_match() {
        let request = accept("br");
        let mut first = Answer::new(&request, 1 << 20);
        write_rows(&mut first, 3_000);
        let first = first.finish("text/html; charset=utf-8", &request).unwrap();
        let mut again = request.clone();
        again.insert(header::IF_NONE_MATCH, first.headers()[header::ETAG].clone());
        let mut second = Answer::new(&again, 1 << 20);
        write_rows(&mut second, 3_000);
        let second = second.finish("text/html; charset=utf-8", &again).unwrap();
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert!(body(second).await.is_empty());
    }
}
