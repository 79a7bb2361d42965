//! Step 3: the two sizes a page shows, as JPEG (every phone and browser reads it), with
//! nothing in the file but its pixels.

use crate::PhotoError;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};

/// The large variant's long side, in pixels: sharp on a tablet's recipe pane and a phone
/// held close, a few hundred kilobytes.
pub const LARGE_SIDE: u32 = 1600;
/// The thumbnail's long side: beside a recipe's name on a phone at 3× density.
pub const THUMB_SIDE: u32 = 480;
/// JPEG quality: past ~85 files grow fast for little a phone screen shows.
const QUALITY: u8 = 82;

/// A photo ready to store: both variants encoded, and the large one's size.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub large: Vec<u8>,
    pub thumb: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

pub(crate) fn variants(image: &DynamicImage) -> Result<Prepared, PhotoError> {
    let large = fitted(image, LARGE_SIDE);
    let thumb = fitted(&large, THUMB_SIDE);
    let (width, height) = (large.width(), large.height());
    Ok(Prepared {
        large: jpeg(&opaque(&large))?,
        thumb: jpeg(&opaque(&thumb))?,
        width,
        height,
    })
}

/// `image` shrunk to fit `side` on its long side (never enlarged).
fn fitted(image: &DynamicImage, side: u32) -> DynamicImage {
    if image.width().max(image.height()) <= side {
        return image.clone();
    }
    image.resize(side, side, FilterType::Triangle)
}

/// The pixels over white: a transparent PNG or GIF is shown as on a light page.
fn opaque(image: &DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.to_rgb8();
    }
    let rgba = image.to_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let over = |c: u8| {
            let (c, a) = (u16::from(c), u16::from(a));
            // c·a + 255·(255 − a), over 255, rounded: at most 255.
            u8::try_from((c * a + 255 * (255 - a) + 127) / 255).unwrap_or(u8::MAX)
        };
        image::Rgb([over(r), over(g), over(b)])
    })
}

fn jpeg(image: &RgbImage) -> Result<Vec<u8>, PhotoError> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, QUALITY)
        .encode_image(image)
        .map_err(|e| PhotoError::Encode(e.to_string()))?;
    Ok(out)
}
