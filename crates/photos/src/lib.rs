//! Photos of drinks (issue #44): what a phone sends becomes two small, clean JPEGs on disk.
//!
//! Why a crate of its own: decoding images is where a hostile upload does its damage (a
//! 30,000 × 30,000 PNG of a few kilobytes, a file that claims to be a photo and is not,
//! a photo that carries the phone's location). One room takes the bytes and gives back
//! only pixels, or a refusal that says why.
//!
//! The steps:
//! 1. [`sniff`]: the format from the bytes themselves (JPEG, PNG, WebP, GIF), never from
//!    the `Content-Type`; HEIC, SVG and everything else refused, naming what is taken.
//! 2. [`decode`]: the size read from the header first, refused above [`MAX_PIXELS`] before
//!    a pixel is decoded; then decoded under a memory limit, the orientation the camera
//!    recorded applied (a GIF's first frame).
//! 3. [`variants`]: re-encoded as JPEG at two sizes ([`LARGE_SIDE`], [`THUMB_SIDE`] on the
//!    long side). Only pixels are written, so EXIF (GPS above all), XMP and comments are
//!    gone.
//! 4. [`store`]: the variants named by a hash of the large one, written durably (temp
//!    file, fsync, rename, fsync of the directory) before anything refers to them; files
//!    nothing refers to are swept.
//!
//! Steps 1–3 are CPU-heavy ([`prepare`]): the web layer runs them off the async runtime,
//! one or two at a time.
//!
//! [`archive`] carries the stored files in and out of the household archive (a zip),
//! each file coming in checked as an upload is ([`check_stored`]) and by its hash.
//!
//! Crate `libations-photos`: it uses no other crate of ours.

pub mod archive;
mod decode;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod sniff;
pub mod store;
mod variants;

pub use decode::MAX_PIXELS;
pub use sniff::Format;
pub use store::{PhotoStore, Stored, Variant};
pub use variants::{LARGE_SIDE, Prepared, THUMB_SIDE};

/// The most bytes an upload may have: a 12 MP phone JPEG is 3–8 MB, a 48 MP one ~20.
pub const MAX_BYTES: usize = 25 << 20;

/// Why an upload is not taken: each says what would be.
#[derive(Debug, thiserror::Error)]
pub enum PhotoError {
    #[error("the photo is {0} bytes; at most {MAX_BYTES} (25 MiB) are taken")]
    TooLarge(usize),
    #[error("the file is empty")]
    Empty,
    #[error(
        "{0} photos can't be read here yet; send a JPEG, PNG, WebP or GIF (on an iPhone: Settings → Camera → Formats → Most Compatible)"
    )]
    Unsupported(&'static str),
    #[error("the file is not a photo this app reads (JPEG, PNG, WebP or GIF)")]
    NotAnImage,
    #[error(
        "the photo is {width} × {height} pixels; at most {MAX_PIXELS} pixels (50 MP) are taken"
    )]
    TooManyPixels { width: u32, height: u32 },
    #[error("the {format} file could not be read: {reason}")]
    Unreadable {
        format: &'static str,
        reason: String,
    },
    #[error("a stored photo is a JPEG; this is a {0}")]
    NotJpeg(&'static str),
    #[error("the photo could not be written: {0}")]
    Encode(String),
    #[error("the photo could not be stored: {0}")]
    Io(#[from] std::io::Error),
}

/// Steps 1–3: the bytes of an upload made into its two variants, or why not.
pub fn prepare(bytes: &[u8]) -> Result<Prepared, PhotoError> {
    if bytes.len() > MAX_BYTES {
        return Err(PhotoError::TooLarge(bytes.len()));
    }
    let format = sniff::sniff(bytes)?;
    let image = decode::decode(bytes, format)?;
    variants::variants(&image)
}

#[cfg(test)]
mod tests;

/// Steps 1–2 for a file said to be a stored variant (from a household archive): within
/// [`MAX_BYTES`], sniffed, its size read from the header and refused above [`MAX_PIXELS`],
/// decoded under the memory limit, and a JPEG. Returns its size in pixels.
pub fn check_stored(bytes: &[u8]) -> Result<(u32, u32), PhotoError> {
    if bytes.len() > MAX_BYTES {
        return Err(PhotoError::TooLarge(bytes.len()));
    }
    let format = sniff::sniff(bytes)?;
    let image = decode::decode(bytes, format)?;
    if format != Format::Jpeg {
        return Err(PhotoError::NotJpeg(format.name()));
    }
    Ok((image.width(), image.height()))
}
