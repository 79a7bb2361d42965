//! Every `Cache-Control` value the app sends, one helper each, so that what a browser, a
//! shared cache and the service worker may keep is decided in one place.
//!
//! Pages and JSON made from the recipes change whenever the recipes do, so they are
//! revalidated ([`REVALIDATE`]: cheap, an ETag and a 304); assets under hashed names never
//! change ([`IMMUTABLE`]); anything carrying one person's data is private
//! ([`private_no_store`], [`private_revalidate`]).

use axum::http::HeaderValue;

/// Kept, but asked about again before each use: whatever is made from the recipes (pages,
/// JSON, the manifest, the service worker) and debug builds' assets.
pub(crate) const REVALIDATE: &str = "no-cache";

/// A year, never asked about again: assets under content-hashed names.
pub(crate) const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// One person's answer that nobody may keep, neither a shared cache nor the service worker:
/// who they are, the history, the edit forms, a change's answer.
pub(crate) fn private_no_store() -> HeaderValue {
    HeaderValue::from_static("private, no-store")
}

/// One person's page that only their own browser may keep, revalidating it: a recipe page
/// with that person's form token in it.
pub(crate) fn private_revalidate() -> HeaderValue {
    HeaderValue::from_static(PRIVATE_REVALIDATE)
}

/// [`private_revalidate`]'s value, for a body built once with its ETag and compressed
/// variants (`GET /api/me`).
pub(crate) const PRIVATE_REVALIDATE: &str = "private, no-cache";
