//! Step 1: which format the bytes are, from their first bytes (the "magic numbers" of
//! each format's specification), whatever the upload's `Content-Type` or name says.

use crate::PhotoError;

/// A format this app decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jpeg,
    Png,
    WebP,
    Gif,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Jpeg => "JPEG",
            Format::Png => "PNG",
            Format::WebP => "WebP",
            Format::Gif => "GIF",
        }
    }

    pub(crate) fn image_format(self) -> image::ImageFormat {
        match self {
            Format::Jpeg => image::ImageFormat::Jpeg,
            Format::Png => image::ImageFormat::Png,
            Format::WebP => image::ImageFormat::WebP,
            Format::Gif => image::ImageFormat::Gif,
        }
    }
}

/// The ISO base media brands of HEIF/HEIC/AVIF files (ISO/IEC 23008-12): an `ftyp` box
/// at byte 4 whose major brand is one of these.
const HEIF_BRANDS: [&[u8; 4]; 8] = [
    b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1",
];

/// The format of `bytes`, or why it is refused.
pub(crate) fn sniff(bytes: &[u8]) -> Result<Format, PhotoError> {
    if bytes.is_empty() {
        return Err(PhotoError::Empty);
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Ok(Format::Jpeg);
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Ok(Format::Png);
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Ok(Format::Gif);
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Ok(Format::WebP);
    }
    if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        let brand = &bytes[8..12];
        if brand == b"avif" || brand == b"avis" {
            return Err(PhotoError::Unsupported("AVIF"));
        }
        if HEIF_BRANDS.iter().any(|b| &b[..] == brand) {
            return Err(PhotoError::Unsupported("HEIC"));
        }
    }
    Err(PhotoError::NotAnImage)
}
