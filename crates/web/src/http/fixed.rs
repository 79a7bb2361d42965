//! Responses whose bytes are fixed: rendered once, hashed once, compressed once.
//!
//! The list page, the JSON of all recipes and every static asset are `FixedBody`. Each gets a
//! strong ETag from its content hash, answers `If-None-Match` with 304, and is sent with the
//! best encoding the client accepts. Compression of large bodies can run after start-up
//! ([`FixedBody::compress`]); until it has, clients get the identity body.

use super::cache_control;
use super::compress::{Effort, brotli, compressible, gzip};
use super::negotiate::{Encoding, negotiate};
use super::representation::{Representation, content_hash};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response};
use bytes::Bytes;
use std::sync::{Arc, OnceLock};

/// Compressed variants, kept only where they are smaller than the original.
#[derive(Debug, Default)]
struct Compressed {
    gzip: Option<Bytes>,
    brotli: Option<Bytes>,
}

/// A fixed body with its type, caching policy, ETag and compressed variants.
#[derive(Debug)]
pub(crate) struct FixedBody {
    identity: Bytes,
    content_type: HeaderValue,
    cache_control: HeaderValue,
    hash: String,
    /// Shared by the copies made with [`FixedBody::with_cache_control`].
    compressed: Arc<OnceLock<Compressed>>,
}

impl FixedBody {
    pub(crate) fn new(
        body: impl Into<Bytes>,
        content_type: &str,
        cache_control: &'static str,
    ) -> FixedBody {
        let identity = body.into();
        let hash = content_hash(&identity);
        FixedBody::hashed(identity, hash, content_type, cache_control)
    }

    /// [`FixedBody::new`] with its hash already known (a recipe page's, made of its parts'
    /// hashes: see `site::recipe_page`).
    pub(crate) fn hashed(
        identity: Bytes,
        hash: String,
        content_type: &str,
        cache_control: &'static str,
    ) -> FixedBody {
        FixedBody {
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
    pub(crate) fn with_cache_control(&self, cache_control: &'static str) -> FixedBody {
        FixedBody {
            identity: self.identity.clone(),
            content_type: self.content_type.clone(),
            cache_control: HeaderValue::from_static(cache_control),
            hash: self.hash.clone(),
            compressed: self.compressed.clone(),
        }
    }

    /// Bytes held: the text and the compressed variants made so far.
    pub(crate) fn size(&self) -> usize {
        let compressed = self.compressed.get().map_or(0, |c| {
            c.gzip.as_ref().map_or(0, Bytes::len) + c.brotli.as_ref().map_or(0, Bytes::len)
        });
        self.identity.len() + compressed + self.hash.len()
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

/// A per-request body, compressed cheaply, under the ETag `hash` when given, else one of
/// its own. Marked [`crate::connections::PerRequest`]: its bytes are this request's own,
/// counted against the budget for unsent answers while a slow client holds them.
pub(crate) fn per_request_as(
    body: impl Into<Bytes>,
    content_type: &str,
    request: &HeaderMap,
    hash: Option<String>,
) -> Response<Body> {
    let body = match hash {
        Some(hash) => FixedBody::hashed(body.into(), hash, content_type, cache_control::REVALIDATE),
        None => FixedBody::new(body, content_type, cache_control::REVALIDATE),
    };
    body.compress_for(request, Effort::Fast);
    per_request_response(&body, request)
}

/// [`per_request_as`]'s body before it is sent, compressed for `request`: kept by
/// [`super::recent`] for the next asker.
pub(crate) fn per_request_body(
    body: impl Into<Bytes>,
    content_type: &str,
    request: &HeaderMap,
) -> FixedBody {
    let body = FixedBody::new(body, content_type, cache_control::REVALIDATE);
    body.compress_for(request, Effort::Fast);
    body
}

/// [`per_request_body`] with its hash already known.
pub(crate) fn per_request_hashed(
    body: Vec<u8>,
    hash: String,
    content_type: &str,
    request: &HeaderMap,
) -> FixedBody {
    let body = FixedBody::hashed(body.into(), hash, content_type, cache_control::REVALIDATE);
    body.compress_for(request, Effort::Fast);
    body
}

/// The response of a [`per_request_body`], marked [`crate::connections::PerRequest`].
pub(crate) fn per_request_response(body: &FixedBody, request: &HeaderMap) -> Response<Body> {
    let mut response = body.respond(request);
    response
        .extensions_mut()
        .insert(crate::connections::PerRequest);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::negotiate::tests::accept;
    use axum::http::{StatusCode, header};

    #[test]
    fn with_cache_control_shares_compressed_variants() {
        let c = FixedBody::new("<p>x</p>".repeat(100), "text/html", "no-cache");
        let other = c.with_cache_control("public, max-age=60");
        c.compress(Effort::Fast);
        let r = other.respond(&accept("br"));
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "br");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "public, max-age=60");
        assert_eq!(other.hash(), c.hash());
    }

    #[test]
    fn etag_and_304_per_encoding() {
        let page = "<p>hello</p>".repeat(100);
        let c = FixedBody::new(page.clone(), "text/html; charset=utf-8", "no-cache");
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
            let c = FixedBody::new(body.clone(), "text/html; charset=utf-8", "no-cache");
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
        let c = FixedBody::new(body, "text/html; charset=utf-8", "no-cache");
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
        let c = FixedBody::new("tiny", "text/plain", "no-cache");
        c.compress(Effort::Best);
        assert!(
            c.respond(&accept("br"))
                .headers()
                .get(header::CONTENT_ENCODING)
                .is_none()
        );
        let png = FixedBody::new(vec![0u8; 4096], "image/png", "no-cache");
        png.compress(Effort::Best);
        assert!(
            png.respond(&accept("br"))
                .headers()
                .get(header::CONTENT_ENCODING)
                .is_none()
        );
    }
}
