//! Brotli compression of a whole body, in a crate of its own.
//!
//! Why a crate: brotli's encoder is generic (over its reader, writer and allocator), so its
//! code is compiled in the crate that calls it, at that crate's optimisation level. Called
//! from `libations-web`, a debug build ran it unoptimised: quality 11 over the assets and
//! the list page took about 3 s of CPU at every start of the binary, and every test starts
//! the binary. Called from here, it is compiled in this crate, which the root Cargo.toml
//! optimises in debug builds too (`[profile.dev.package.libations-compress]`); release
//! builds are unchanged. Uses nothing of ours.

pub use brotli::enc::BrotliEncoderParams as Params;

/// `data` compressed as one brotli stream with `params`; `capacity` is the output's
/// initial capacity.
pub fn brotli(data: &[u8], params: &Params, capacity: usize) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(capacity);
    brotli::BrotliCompress(&mut &data[..], &mut out, params)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_the_given_quality() {
        let text = "Negroni: gin, Campari, sweet vermouth. ".repeat(200);
        let fast = brotli(
            text.as_bytes(),
            &Params {
                quality: 1,
                ..Default::default()
            },
            0,
        )
        .unwrap();
        let best = brotli(
            text.as_bytes(),
            &Params {
                quality: 11,
                ..Default::default()
            },
            0,
        )
        .unwrap();
        assert!(best.len() <= fast.len() && best.len() < text.len() / 10);
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &best[..], &mut out).unwrap();
        assert_eq!(out, text.as_bytes());
    }
}
