//! What the headers of one representation say (ETag, type, caching, coding), the 304 for
//! `If-None-Match`, and the content hash an ETag is made of.
//!
//! Fixed bodies, bodies compressed as they are written and recipe pages spliced around the
//! list are all sent through [`Representation`], so that one text has one ETag however its
//! bytes were made.

use super::negotiate::Encoding;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;
use sha2::{Digest, Sha256};

/// What the headers of one representation say: the content's hash, its type and caching
/// policy, and the coding its bytes are in. [`super::fixed::FixedBody`] bodies and bodies
/// compressed as they are written ([`super::compressing::Compressing`]) are sent through it
/// alike.
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

/// The first 16 hex digits of the SHA-256 of `bytes`: plenty to tell versions apart. Every
/// ETag here is made of it (whole, or through [`ContentHasher`] for a text passed in pieces).
pub(crate) fn content_hash(bytes: &[u8]) -> String {
    let mut hasher = ContentHasher::new();
    hasher.update(bytes);
    hasher.finish()
}

/// [`content_hash`] of a text passed in pieces: the same hash as of the pieces joined.
#[derive(Clone, Default)]
pub(crate) struct ContentHasher(Sha256);

impl ContentHasher {
    pub(crate) fn new() -> ContentHasher {
        ContentHasher(Sha256::new())
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The hex form: the digest's first 8 bytes, 16 digits.
    pub(crate) fn finish(self) -> String {
        self.0
            .finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}
