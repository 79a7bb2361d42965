//! Responses whose bytes are fixed: rendered once, hashed once, compressed once.
//!
//! The list page, the JSON of all recipes and every static asset are `Cached`. Each gets a
//! strong ETag from its content hash, answers `If-None-Match` with 304, and is sent with the
//! best encoding the client accepts. Compression of large bodies can run after start-up
//! ([`Cached::compress`]); until it has, clients get the identity body.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::sync::{Arc, OnceLock};

/// A content coding we can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

impl Encoding {
    pub(crate) fn token(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Brotli => Some("br"),
        }
    }
}

/// Picks the coding to send from an `Accept-Encoding` header: brotli, then gzip, honouring
/// q-values (`br;q=0` refuses brotli) and `*`.
pub(crate) fn negotiate(headers: &HeaderMap) -> Encoding {
    let (mut br, mut gzip, mut star) = (None, None, None);
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            match coding.as_str() {
                "br" => br = Some(q),
                "gzip" | "x-gzip" => gzip = Some(q),
                "*" => star = Some(q),
                _ => {}
            }
        }
    }
    let br = br.or(star).unwrap_or(0.0);
    let gzip = gzip.or(star).unwrap_or(0.0);
    if br > 0.0 && br >= gzip {
        Encoding::Brotli
    } else if gzip > 0.0 {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// Compressed variants, kept only where they are smaller than the original.
#[derive(Debug, Default)]
struct Compressed {
    gzip: Option<Bytes>,
    brotli: Option<Bytes>,
}

/// A fixed body with its type, caching policy, ETag and compressed variants.
#[derive(Debug)]
pub(crate) struct Cached {
    identity: Bytes,
    content_type: HeaderValue,
    cache_control: HeaderValue,
    hash: String,
    /// Shared by the copies made with [`Cached::with_cache_control`].
    compressed: Arc<OnceLock<Compressed>>,
}

/// How hard to compress: bodies served for a year deserve the best ratio; per-request
/// bodies must stay cheap.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Effort {
    Best,
    Fast,
}

impl Cached {
    pub(crate) fn new(
        body: impl Into<Bytes>,
        content_type: &str,
        cache_control: &'static str,
    ) -> Cached {
        let identity = body.into();
        let hash = content_hash(&identity);
        Cached {
            identity,
            content_type: HeaderValue::from_str(content_type)
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            cache_control: HeaderValue::from_static(cache_control),
            hash,
            compressed: Arc::new(OnceLock::new()),
        }
    }

    /// The same content under another caching policy, sharing the bytes and the
    /// compressed variants, whenever they are made (so they are computed once).
    pub(crate) fn with_cache_control(&self, cache_control: &'static str) -> Cached {
        Cached {
            identity: self.identity.clone(),
            content_type: self.content_type.clone(),
            cache_control: HeaderValue::from_static(cache_control),
            hash: self.hash.clone(),
            compressed: self.compressed.clone(),
        }
    }

    /// The hex content hash (also the ETag, quoted).
    pub(crate) fn hash(&self) -> &str {
        &self.hash
    }

    pub(crate) fn bytes(&self) -> &Bytes {
        &self.identity
    }

    /// Computes the gzip and brotli variants; later calls do nothing.
    pub(crate) fn compress(&self, effort: Effort) {
        self.compress_only(effort, true, true);
    }

    /// Computes only the variant that a request with these headers gets, for a body made
    /// for that one request: the other variant would never be sent.
    pub(crate) fn compress_for(&self, request: &HeaderMap, effort: Effort) {
        let encoding = negotiate(request);
        self.compress_only(
            effort,
            encoding == Encoding::Gzip,
            encoding == Encoding::Brotli,
        );
    }

    fn compress_only(&self, effort: Effort, with_gzip: bool, with_brotli: bool) {
        self.compressed.get_or_init(|| {
            let keep = |b: Vec<u8>| (b.len() < self.identity.len()).then(|| Bytes::from(b));
            if !compressible(&self.content_type) || self.identity.len() < 256 {
                return Compressed::default();
            }
            Compressed {
                gzip: with_gzip
                    .then(|| gzip(&self.identity, effort))
                    .flatten()
                    .and_then(keep),
                brotli: with_brotli
                    .then(|| brotli(&self.identity, effort))
                    .flatten()
                    .and_then(keep),
            }
        });
    }

    /// The response for a GET or HEAD with these request headers. Built from typed
    /// headers, so that it cannot fail: there is no error to turn into an empty answer.
    pub(crate) fn respond(&self, request: &HeaderMap) -> Response<Body> {
        let (body, encoding) = self.variant(negotiate(request));
        let representation = Representation {
            hash: &self.hash,
            content_type: &self.content_type,
            cache_control: &self.cache_control,
            encoding,
        };
        representation.respond(body, request)
    }

    /// The bytes to send for the encoding a client prefers: that variant if it has been
    /// made, else gzip for a brotli client, else the identity body.
    fn variant(&self, encoding: Encoding) -> (Bytes, Encoding) {
        match (encoding, self.compressed.get()) {
            (
                Encoding::Brotli,
                Some(Compressed {
                    brotli: Some(b), ..
                }),
            ) => (b.clone(), encoding),
            (Encoding::Brotli | Encoding::Gzip, Some(Compressed { gzip: Some(g), .. })) => {
                (g.clone(), Encoding::Gzip)
            }
            _ => (self.identity.clone(), Encoding::Identity),
        }
    }
}

/// A per-request body, compressed cheaply and with an ETag of its own.
/// Marked [`crate::connections::PerRequest`]: its bytes are this request's own, counted against
/// the budget for unsent answers while a slow client holds them.
pub(crate) fn per_request(
    body: impl Into<Bytes>,
    content_type: &str,
    request: &HeaderMap,
) -> Response<Body> {
    let cached = Cached::new(body, content_type, super::site::HTML_CACHE);
    cached.compress_for(request, Effort::Fast);
    let mut response = cached.respond(request);
    response
        .extensions_mut()
        .insert(crate::connections::PerRequest);
    response
}

/// What the headers of one representation say: the content's hash, its type and caching
/// policy, and the coding its bytes are in. [`Cached`] bodies and answers compressed as they
/// are written ([`super::answer::Answer`]) are sent through it alike.
pub(crate) struct Representation<'a> {
    pub(crate) hash: &'a str,
    pub(crate) content_type: &'a HeaderValue,
    pub(crate) cache_control: &'a HeaderValue,
    pub(crate) encoding: Encoding,
}

impl Representation<'_> {
    /// The response for a GET or HEAD: 304 when `If-None-Match` names this content, else
    /// `body` with its headers. Built from typed headers, so that it cannot fail.
    pub(crate) fn respond(&self, body: Bytes, request: &HeaderMap) -> Response<Body> {
        self.respond_with(Body::from(body), request)
    }

    /// [`Representation::respond`] with a body of any kind (a spliced answer's pieces).
    pub(crate) fn respond_with(&self, body: Body, request: &HeaderMap) -> Response<Body> {
        let mut response = Response::new(Body::empty());
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, self.cache_control.clone());
        headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        // Each encoding is its own representation, so each gets its own strong ETag.
        let etag = match self.encoding.token() {
            Some(token) => format!("\"{}-{token}\"", self.hash),
            None => format!("\"{}\"", self.hash),
        };
        if let Ok(etag) = HeaderValue::from_str(&etag) {
            headers.insert(header::ETAG, etag);
        }
        if self.not_modified(request) {
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            return response;
        }
        headers.insert(header::CONTENT_TYPE, self.content_type.clone());
        if let Some(token) = self.encoding.token() {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
        }
        *response.body_mut() = body;
        response
    }

    /// `If-None-Match` names any representation of this content (weak comparison, as
    /// RFC 9110 asks for this header).
    fn not_modified(&self, request: &HeaderMap) -> bool {
        request
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|tag| tag.trim().trim_start_matches("W/").trim_matches('"'))
            .any(|tag| tag == "*" || tag.split('-').next() == Some(self.hash))
    }
}

/// The hex form of a content hash: its first 8 bytes, 16 digits, plenty to tell versions
/// apart.
pub(crate) fn hash_hex(digest: &[u8]) -> String {
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The first 16 hex digits of the SHA-256 of `bytes`: plenty to tell versions apart.
pub(crate) fn content_hash(bytes: &[u8]) -> String {
    hash_hex(&Sha256::digest(bytes))
}

fn compressible(content_type: &HeaderValue) -> bool {
    let t = content_type.to_str().unwrap_or("");
    t.starts_with("text/")
        || t.contains("json")
        || t.contains("javascript")
        || t.contains("svg")
        || t.contains("xml")
        || t.contains("manifest")
}

fn gzip(data: &[u8], effort: Effort) -> Option<Vec<u8>> {
    let level = match effort {
        Effort::Best => flate2::Compression::best(),
        Effort::Fast => flate2::Compression::fast(),
    };
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), level);
    encoder.write_all(data).ok()?;
    encoder.finish().ok()
}

/// Brotli's quality for bodies made per request (see [`brotli`]).
pub(crate) const FAST_BROTLI_QUALITY: i32 = 3;

fn brotli(data: &[u8], effort: Effort) -> Option<Vec<u8>> {
    // Per request, quality 3 takes half the time of 4 for a few per cent more bytes
    // (a search hitting 1,646 of 5,000 recipes: JSON 3.9 vs 7.0 ms, 84,058 vs 79,003 B;
    // HTML 1.4 vs 2.7 ms, 27,935 vs 27,439 B).
    let quality = match effort {
        Effort::Best => 11,
        Effort::Fast => FAST_BROTLI_QUALITY,
    };
    let mut out = Vec::new();
    let mut params = brotli::enc::BrotliEncoderParams {
        quality,
        lgwin: window_bits(data.len(), effort),
        size_hint: data.len(),
        ..Default::default()
    };
    if let Effort::Best = effort {
        // Quality 11 feeds the encoder 256 KiB blocks by default; 64 KiB blocks need
        // ~14 MiB less for its buffers and cost a few bytes (measured on 5,000 recipes:
        // list page +4 B of 49,918, JSON +0.3 %).
        params.lgblock = 16;
    }
    brotli::BrotliCompress(&mut &data[..], &mut out, &params).ok()?;
    Some(out)
}

/// The largest brotli window for quality 11: 256 KiB. Its match finder keeps 8 bytes per
/// window byte, and this compression runs at start-up, so the window sets the peak memory
/// of a start-up. With 5,000 recipes (a 2.7 MB JSON of all recipes, a 1.3 MB list page),
/// brotli's own peak was 12.9 MB at 512 KiB and 9.1 MB at 256 KiB; 2 MiB peaked ~16 MiB
/// higher still. At 256 KiB the list page is 0.6 % larger than at 512 KiB (51,006 vs
/// 50,696 B) and the JSON 6.6 % (148 vs 139 KB). The list page is what a phone waits for;
/// the JSON loads once, after it, into the service worker's cache. Measured against the Go
/// original's peak memory, the 3.8 MB were worth more than those 9 KB.
const MAX_WINDOW_BITS_BEST: i32 = 18;

/// Per request (quality 3) the match finder does not grow with the window, so a large
/// search result gets the format's usual 2 MiB.
const MAX_WINDOW_BITS_FAST: i32 = 21;

/// The smallest brotli window (10 bits up to the cap for `effort`) that holds `len`
/// bytes: a window larger than the input compresses no better, but its match finder's
/// tables (megabytes at quality 11) dominate the time for small files.
pub(crate) fn window_bits(len: usize, effort: Effort) -> i32 {
    let cap = match effort {
        Effort::Best => MAX_WINDOW_BITS_BEST,
        Effort::Fast => MAX_WINDOW_BITS_FAST,
    };
    let mut bits = 10;
    while bits < cap && (1usize << bits) - 16 < len {
        bits += 1;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brotli_window_fits_the_input_and_round_trips() {
        assert_eq!(window_bits(0, Effort::Best), 10);
        assert_eq!(window_bits(1008, Effort::Best), 10);
        assert_eq!(window_bits(1009, Effort::Fast), 11);
        assert_eq!(window_bits(50 << 20, Effort::Best), MAX_WINDOW_BITS_BEST);
        assert_eq!(window_bits(50 << 20, Effort::Fast), MAX_WINDOW_BITS_FAST);
        let text = "<li>Gin, lime, sugar</li>".repeat(500);
        let packed = brotli(text.as_bytes(), Effort::Best).unwrap();
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &packed[..], &mut out).unwrap();
        assert_eq!(out, text.as_bytes());
    }

    #[test]
    fn with_cache_control_shares_compressed_variants() {
        let c = Cached::new("<p>x</p>".repeat(100), "text/html", "no-cache");
        let other = c.with_cache_control("public, max-age=60");
        c.compress(Effort::Fast);
        let r = other.respond(&accept("br"));
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "br");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "public, max-age=60");
        assert_eq!(other.hash(), c.hash());
    }

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        h
    }

    #[test]
    fn negotiation_honours_q_values() {
        assert_eq!(negotiate(&HeaderMap::new()), Encoding::Identity);
        assert_eq!(
            negotiate(&accept("gzip, deflate, br, zstd")),
            Encoding::Brotli
        );
        assert_eq!(negotiate(&accept("gzip")), Encoding::Gzip);
        assert_eq!(negotiate(&accept("br;q=0, gzip")), Encoding::Gzip);
        assert_eq!(negotiate(&accept("br;q=0.5, gzip;q=0.8")), Encoding::Gzip);
        assert_eq!(negotiate(&accept("*")), Encoding::Brotli);
        assert_eq!(negotiate(&accept("*;q=0")), Encoding::Identity);
        assert_eq!(negotiate(&accept("identity")), Encoding::Identity);
    }

    #[test]
    fn etag_and_304_per_encoding() {
        let page = "<p>hello</p>".repeat(100);
        let c = Cached::new(page.clone(), "text/html; charset=utf-8", "no-cache");
        c.compress(Effort::Fast);
        let r = c.respond(&accept("br"));
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "br");
        let etag = r.headers()[header::ETAG].to_str().unwrap().to_owned();
        assert_eq!(etag, format!("\"{}-br\"", c.hash()));
        let mut again = accept("br");
        again.insert(header::IF_NONE_MATCH, HeaderValue::from_str(&etag).unwrap());
        assert_eq!(c.respond(&again).status(), StatusCode::NOT_MODIFIED);
        let mut other = HeaderMap::new();
        other.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"0000\""));
        assert_eq!(c.respond(&other).status(), StatusCode::OK);
    }

    #[test]
    fn compress_for_makes_only_the_negotiated_variant() {
        let body = "<p>hello</p>".repeat(100);
        for (accept_encoding, sent) in [("gzip, deflate, br", "br"), ("gzip", "gzip")] {
            let c = Cached::new(body.clone(), "text/html; charset=utf-8", "no-cache");
            c.compress_for(&accept(accept_encoding), Effort::Fast);
            let r = c.respond(&accept(accept_encoding));
            assert_eq!(r.headers()[header::CONTENT_ENCODING], sent);
            let other = if sent == "br" {
                "gzip"
            } else {
                "br;q=0, gzip;q=0"
            };
            assert!(
                c.respond(&accept(other))
                    .headers()
                    .get(header::CONTENT_ENCODING)
                    .is_none()
            );
        }
        let c = Cached::new(body, "text/html; charset=utf-8", "no-cache");
        c.compress_for(&HeaderMap::new(), Effort::Fast);
        assert!(
            c.respond(&accept("br"))
                .headers()
                .get(header::CONTENT_ENCODING)
                .is_none()
        );
    }

    #[test]
    fn small_or_binary_bodies_are_not_compressed() {
        let c = Cached::new("tiny", "text/plain", "no-cache");
        c.compress(Effort::Best);
        assert!(
            c.respond(&accept("br"))
                .headers()
                .get(header::CONTENT_ENCODING)
                .is_none()
        );
        let png = Cached::new(vec![0u8; 4096], "image/png", "no-cache");
        png.compress(Effort::Best);
        assert!(
            png.respond(&accept("br"))
                .headers()
                .get(header::CONTENT_ENCODING)
                .is_none()
        );
    }
}
