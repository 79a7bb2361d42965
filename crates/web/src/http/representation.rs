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

    /// Whether `request` already holds this content ([`Representation::not_modified`]):
    /// its answer is a 304, whatever the body would have been.
    pub(crate) fn names(&self, request: &HeaderMap) -> bool {
        self.not_modified(request)
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

/// The short form of the crate's one content hash ([`crate::digest`]), as a recipe's
/// version is written: the API compares the two. Every ETag here is made of it (whole, or
/// through [`ContentHasher`] for a text passed in pieces).
pub(crate) fn content_hash(bytes: &[u8]) -> String {
    crate::digest::short_hash(bytes)
}

/// [`content_hash`] of a text passed in pieces: the same hash as of the pieces joined.
pub(crate) use crate::digest::Hasher as ContentHasher;
