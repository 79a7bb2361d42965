//! Whole-body gzip and brotli, at the effort a body deserves, and the brotli window sized
//! to the input.
//!
//! Kept apart from the bodies that use them so that start-up compression (best effort, for
//! bodies served for a year) and per-request compression (fast) share one set of settings.

use axum::http::HeaderValue;
use std::io::Write;

/// How hard to compress: bodies served for a year deserve the best ratio; per-request
/// bodies must stay cheap.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Effort {
    Best,
    Fast,
}

pub(crate) fn compressible(content_type: &HeaderValue) -> bool {
    let t = content_type.to_str().unwrap_or("");
    t.starts_with("text/")
        || t.contains("json")
        || t.contains("javascript")
        || t.contains("svg")
        || t.contains("xml")
        || t.contains("manifest")
}

pub(crate) fn gzip(data: &[u8], effort: Effort) -> Option<Vec<u8>> {
    let level = match effort {
        Effort::Best => flate2::Compression::best(),
        Effort::Fast => flate2::Compression::fast(),
    };
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), level);
    encoder.write_all(data).ok()?;
    encoder.finish().ok()
}

/// Brotli's quality for bodies made per request (see [`fn@brotli`]).
pub(crate) const FAST_BROTLI_QUALITY: i32 = 3;

pub(crate) fn brotli(data: &[u8], effort: Effort) -> Option<Vec<u8>> {
    // Per request, quality 3 takes half the time of 4 for a few per cent more bytes
    // (the numbers: docs/bench/notes-web.md).
    let quality = match effort {
        Effort::Best => 11,
        Effort::Fast => FAST_BROTLI_QUALITY,
    };
    let mut params = libations_compress::Params {
        quality,
        lgwin: window_bits(data.len(), effort),
        size_hint: data.len(),
        ..Default::default()
    };
    if let Effort::Best = effort {
        // Quality 11 feeds the encoder 256 KiB blocks by default; 64 KiB blocks need
        // megabytes less for its buffers and cost a few bytes (docs/bench/notes-web.md).
        params.lgblock = 16;
    }
    libations_compress::brotli(data, &params, 0).ok()
}

/// The largest brotli window for quality 11: 256 KiB. Its match finder keeps 8 bytes per
/// window byte, and this compression runs at start-up, so the window sets the peak memory
/// of a start-up. A larger window makes the list page barely smaller and the JSON a little
/// smaller; the list page is what a phone waits for, the JSON loads once, after it, into the
/// service worker's cache, and the memory a larger window costs was worth more than those
/// bytes (the numbers: docs/bench/notes-web.md).
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
}
