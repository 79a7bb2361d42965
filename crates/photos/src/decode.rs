//! Step 2: the size from the header, then the pixels, within limits, upright.

use crate::PhotoError;
use crate::sniff::Format;
use image::{DynamicImage, ImageDecoder, ImageReader, Limits};
use std::io::Cursor;

/// The most pixels a photo may have (50 MP: a 48 MP phone camera's full size passes).
pub const MAX_PIXELS: u64 = 50_000_000;

/// The most memory a decode may allocate: a 50 MP photo as RGBA is 200 MB; a smaller one
/// needs less. A file whose header lies about its size fails here rather than growing
/// the process.
const MAX_ALLOC: u64 = 256 << 20;

/// The decoded photo, turned as the camera recorded it (EXIF orientation applied).
pub(crate) fn decode(bytes: &[u8], format: Format) -> Result<DynamicImage, PhotoError> {
    let unreadable = |e: image::ImageError| match e {
        image::ImageError::Limits(_) => PhotoError::Unreadable {
            format: format.name(),
            reason: "it needs more memory to decode than a photo may".to_owned(),
        },
        other => PhotoError::Unreadable {
            format: format.name(),
            reason: other.to_string(),
        },
    };
    let mut reader = ImageReader::new(Cursor::new(bytes));
    reader.set_format(format.image_format());
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(unreadable)?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(PhotoError::TooManyPixels { width, height });
    }
    let orientation = decoder.orientation().map_err(unreadable)?;
    let mut image = DynamicImage::from_decoder(decoder).map_err(unreadable)?;
    image.apply_orientation(orientation);
    Ok(image)
}
