//! HTTP for bodies we make: which coding a client gets, ETags and 304s, compression (whole,
//! as a body is written, or spliced around a part compressed once), the answers kept for
//! recent searches, and every `Cache-Control` value.
//!
//! Why a room of its own: this is the part that knows HTTP and nothing of recipes, pages or
//! who is asking, so it imports nothing else from `web` and everything above it (the site,
//! the handlers, the error pages) sends bytes the same way.
//!
//! - [`negotiate`]: `Accept-Encoding` → brotli, gzip or identity.
//! - [`representation`]: the headers of one representation, the 304, the content hash.
//! - [`compress`]: whole-body gzip and brotli, and the brotli window.
//! - [`fixed`]: [`fixed::FixedBody`], a body made once (list page, JSON, assets).
//! - [`compressing`]: [`compressing::Compressing`], a body compressed as it is written.
//! - [`spliced`]: brotli recipe pages spliced around the list compressed once.
//! - [`recent`]: compressed answers to recent searches, kept.
//! - [`cache_control`]: one helper per `Cache-Control` value.

pub(crate) mod cache_control;
pub(crate) mod compress;
pub(crate) mod compressing;
pub(crate) mod fixed;
pub(crate) mod negotiate;
pub(crate) mod recent;
pub(crate) mod representation;
pub(crate) mod spliced;
