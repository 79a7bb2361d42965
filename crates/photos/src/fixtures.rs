//! Images for tests (this crate's and the app's HTTP suite, through the `fixtures`
//! feature): a picture that shows a turn, a phone's JPEG with EXIF (orientation, GPS) and a
//! comment, and a PNG bomb. Made here, byte by byte where it matters, from the formats'
//! specifications (CIPA DC-008 for EXIF, the PNG specification for chunks).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use std::io::Cursor;

/// `image` written in `format`.
pub fn encoded(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// A picture whose left half is red and right half blue, so a turn shows.
pub fn halves(width: u32, height: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, _| {
        if x < width / 2 {
            Rgb([220, 20, 20])
        } else {
            Rgb([20, 20, 220])
        }
    }))
}

/// `image` as a phone's camera writes it: a JPEG with an EXIF segment (its `orientation`
/// and a GPS position, 51° 30′ N) and a comment ("GPS 51.5 N, my kitchen").
pub fn phone_jpeg(image: &DynamicImage, orientation: u16) -> Vec<u8> {
    let jpeg = encoded(image, ImageFormat::Jpeg);
    let mut phone = jpeg[..2].to_vec(); // SOI, then EXIF, then the rest
    phone.extend(exif_segment(orientation));
    phone.extend(&jpeg[2..]);
    phone
}

/// An EXIF APP1 segment (CIPA DC-008, TIFF little-endian): IFD0 with Orientation (0x0112)
/// and a GPS IFD pointer (0x8825); the GPS IFD with GPSLatitudeRef "N" (0x0001) and a
/// GPSLatitude (0x0002) of 51/1, 30/1, 0/1; then an XMP-like comment segment.
pub fn exif_segment(orientation: u16) -> Vec<u8> {
    let mut tiff: Vec<u8> = b"II*\0".to_vec();
    tiff.extend(8u32.to_le_bytes()); // IFD0 at 8
    let entry = |tag: u16, kind: u16, count: u32, value: u32| {
        let mut e = tag.to_le_bytes().to_vec();
        e.extend(kind.to_le_bytes());
        e.extend(count.to_le_bytes());
        e.extend(value.to_le_bytes());
        e
    };
    // IFD0: 2 entries, at 8; 2 + 2·12 + 4 = 30 bytes; the GPS IFD follows at 38.
    tiff.extend(2u16.to_le_bytes());
    tiff.extend(entry(0x0112, 3, 1, u32::from(orientation)));
    tiff.extend(entry(0x8825, 4, 1, 38));
    tiff.extend(0u32.to_le_bytes());
    // GPS IFD at 38: 2 entries (30 bytes), the rationals at 68.
    tiff.extend(2u16.to_le_bytes());
    tiff.extend(entry(0x0001, 2, 2, u32::from_le_bytes(*b"N\0\0\0")));
    tiff.extend(entry(0x0002, 5, 3, 68));
    tiff.extend(0u32.to_le_bytes());
    for (n, d) in [(51u32, 1u32), (30, 1), (0, 1)] {
        tiff.extend(n.to_le_bytes());
        tiff.extend(d.to_le_bytes());
    }
    let mut app1 = vec![0xFF, 0xE1];
    app1.extend(u16::try_from(2 + 6 + tiff.len()).unwrap().to_be_bytes());
    app1.extend(b"Exif\0\0");
    app1.extend(tiff);
    let comment = b"GPS 51.5 N, my kitchen";
    app1.extend([0xFF, 0xFE]);
    app1.extend(u16::try_from(2 + comment.len()).unwrap().to_be_bytes());
    app1.extend(comment);
    app1
}

/// CRC-32 (ISO-HDLC), as PNG chunks carry it (PNG spec, 5.5).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut c = u32::try_from(data.len()).unwrap().to_be_bytes().to_vec();
    let mut body = kind.to_vec();
    body.extend(data);
    c.extend(&body);
    c.extend(crc32(&body).to_be_bytes());
    c
}

/// A PNG whose header says `side` × `side` pixels, with almost no data: a decompression
/// bomb's shape.
pub fn png_bomb(side: u32) -> Vec<u8> {
    let mut ihdr = side.to_be_bytes().to_vec();
    ihdr.extend(side.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]); // 8-bit RGB
    let mut bomb = b"\x89PNG\r\n\x1a\n".to_vec();
    bomb.extend(chunk(b"IHDR", &ihdr));
    bomb.extend(chunk(
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    ));
    bomb.extend(chunk(b"IEND", &[]));
    bomb
}
