//! The one content hash: SHA-256, and the hex forms the app shows of it.
//!
//! A recipe's version (`store::version`), the recipes file's hash in the journal and the
//! ETags the web layer sends are all this hash. The API relies on them agreeing (an ETag
//! and a version written the same way can be compared), so they are written once, here.
//! A leaf: it imports nothing from the crate, so that any module can use it.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`.
pub fn content_hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The short hex form of a digest: its first 8 bytes as 16 lowercase hex digits, plenty to
/// tell versions apart. Takes any digest (an incremental SHA-256 finished by the caller too).
pub fn short_hex(digest: &[u8]) -> String {
    hex(&digest[..digest.len().min(8)])
}

/// Every byte of a digest as lowercase hex (64 digits for a SHA-256).
pub fn full_hex(digest: &[u8]) -> String {
    hex(digest)
}

/// The first 16 hex digits of the SHA-256 of `bytes`: a recipe's version, an ETag.
pub fn short_hash(bytes: &[u8]) -> String {
    short_hex(&content_hash(bytes))
}

/// The whole SHA-256 of `bytes` in hex: a file's hash, as journal entries record it.
pub fn full_hash(bytes: &[u8]) -> String {
    full_hex(&content_hash(bytes))
}

/// [`short_hash`] of bytes passed in pieces: the same hash as of the pieces joined, for
/// text written out as it is rendered.
#[derive(Clone, Default)]
pub struct Hasher(Sha256);

impl Hasher {
    pub fn new() -> Hasher {
        Hasher(Sha256::new())
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The short hex form, as [`short_hash`] writes it.
    pub fn finish(self) -> String {
        short_hex(&self.0.finalize())
    }
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing into a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SHA-256 of "abc" (FIPS 180-2, appendix B.1).
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn full_and_short_forms_of_a_known_digest() {
        assert_eq!(full_hash(b"abc"), ABC);
        assert_eq!(short_hash(b"abc"), &ABC[..16]);
        assert_eq!(full_hex(&content_hash(b"abc")), ABC);
        assert_eq!(short_hex(&content_hash(b"abc")), "ba7816bf8f01cfea");
    }

    #[test]
    fn short_hex_matches_the_digest_it_is_given() {
        let mut incremental = Sha256::new();
        incremental.update(b"ab");
        incremental.update(b"c");
        assert_eq!(short_hex(&incremental.finalize()), short_hash(b"abc"));
        let mut pieces = Hasher::new();
        pieces.update(b"a");
        pieces.update(b"bc");
        assert_eq!(
            pieces.finish(),
            "ba7816bf8f01cfea",
            "pieces hash as the whole"
        );
        assert_eq!(
            short_hex(&[0x0f, 0xa0]),
            "0fa0",
            "a short digest is shown whole"
        );
        assert_eq!(
            full_hash(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
