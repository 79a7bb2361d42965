//! Brotli compression, of a whole body or as it is written, in a crate of its own.
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

/// A brotli stream into a `Vec`, compressed as it is written ([`std::io::Write`]); its
/// methods are compiled here, like [`fn@brotli`].
pub struct Writer(brotli::CompressorWriter<Vec<u8>>);

impl Writer {
    /// A stream with `params`, passing `buffer` bytes at a time to the encoder.
    pub fn new(buffer: usize, params: &Params) -> Writer {
        Writer(brotli::CompressorWriter::with_params(
            Vec::new(),
            buffer,
            params,
        ))
    }

    /// Ends the stream; the compressed bytes.
    pub fn into_inner(self) -> Vec<u8> {
        self.0.into_inner()
    }
}

impl std::io::Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
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

    #[test]
    fn a_writer_flushed_midway_makes_one_stream() {
        use std::io::Write;
        let text = "Daiquiri: rum, lime, sugar. ".repeat(300);
        let mut writer = Writer::new(
            4096,
            &Params {
                quality: 3,
                ..Default::default()
            },
        );
        let (head, tail) = text.as_bytes().split_at(1000);
        writer.write_all(head).unwrap();
        writer.flush().unwrap();
        writer.write_all(tail).unwrap();
        let packed = writer.into_inner();
        assert!(packed.len() < text.len() / 5);
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &packed[..], &mut out).unwrap();
        assert_eq!(out, text.as_bytes());
    }
}
