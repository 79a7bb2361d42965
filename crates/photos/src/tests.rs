//! The steps against images made here: formats in, JPEG out, EXIF (GPS, orientation) in
//! and none out, a decompression bomb refused from its header, the store's files.

use super::fixtures::{self, encoded, halves};
use super::*;
use image::{DynamicImage, ImageFormat, Rgba, RgbaImage};

fn decoded(jpeg: &[u8]) -> DynamicImage {
    assert!(jpeg.starts_with(&[0xFF, 0xD8, 0xFF]), "a JPEG");
    image::load_from_memory_with_format(jpeg, ImageFormat::Jpeg).unwrap()
}

#[test]
fn every_format_taken_becomes_two_jpegs_of_the_right_size() {
    let picture = halves(3000, 2000);
    for format in [
        ImageFormat::Jpeg,
        ImageFormat::Png,
        ImageFormat::WebP,
        ImageFormat::Gif,
    ] {
        let source = match format {
            ImageFormat::Gif | ImageFormat::WebP => DynamicImage::ImageRgba8(picture.to_rgba8()),
            _ => picture.clone(),
        };
        let prepared = prepare(&encoded(&source, format)).unwrap();
        assert_eq!(
            (prepared.width, prepared.height),
            (1600, 1067),
            "{format:?}"
        );
        let large = decoded(&prepared.large);
        assert_eq!((large.width(), large.height()), (1600, 1067), "{format:?}");
        let thumb = decoded(&prepared.thumb);
        assert_eq!((thumb.width(), thumb.height()), (480, 320), "{format:?}");
        let left = large.to_rgb8().get_pixel(100, 500).0;
        assert!(
            left[0] > 150 && left[2] < 80,
            "{format:?}: still red on the left: {left:?}"
        );
    }
}

#[test]
fn a_small_photo_is_not_enlarged() {
    let prepared = prepare(&encoded(&halves(300, 200), ImageFormat::Png)).unwrap();
    assert_eq!((prepared.width, prepared.height), (300, 200));
    assert_eq!(decoded(&prepared.thumb).width(), 300);
}

#[test]
fn transparency_is_shown_over_white() {
    let clear = DynamicImage::ImageRgba8(RgbaImage::from_pixel(64, 64, Rgba([0, 0, 0, 0])));
    let prepared = prepare(&encoded(&clear, ImageFormat::Png)).unwrap();
    let pixel = decoded(&prepared.large).to_rgb8().get_pixel(32, 32).0;
    assert!(
        pixel.iter().all(|&c| c > 245),
        "white, not black: {pixel:?}"
    );
}

#[test]
fn location_and_comments_are_dropped_and_the_camera_turn_applied() {
    // 6: the picture is turned 90° clockwise to view.
    let phone = fixtures::phone_jpeg(&halves(400, 200), 6);
    let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(
        contains(&phone, b"Exif\0\0") && contains(&phone, b"my kitchen"),
        "the upload has them"
    );
    let prepared = prepare(&phone).unwrap();
    for file in [&prepared.large, &prepared.thumb] {
        assert!(!contains(file, b"Exif"), "no EXIF out");
        assert!(!contains(file, b"my kitchen"), "no comment out");
        assert!(
            !contains(file, &[0xFF, 0xE1]),
            "no APP1 (EXIF or XMP) segment out"
        );
    }
    // Turned: 400 × 200 becomes 200 × 400, the red (left) half now on top.
    assert_eq!((prepared.width, prepared.height), (200, 400));
    let upright = decoded(&prepared.large).to_rgb8();
    let top = upright.get_pixel(100, 50).0;
    assert!(
        top[0] > 150 && top[2] < 80,
        "red on top after the turn: {top:?}"
    );
}

#[test]
fn a_bomb_is_refused_from_its_header_in_no_time() {
    // A PNG saying 30,000 × 30,000 (900 MP, 2.7 GB as RGB) in a few dozen bytes: refused
    // from the header, before a pixel is decoded.
    let refused = prepare(&fixtures::png_bomb(30_000)).unwrap_err();
    assert!(
        matches!(
            refused,
            PhotoError::TooManyPixels {
                width: 30_000,
                height: 30_000
            }
        ),
        "{refused}"
    );
    assert!(refused.to_string().contains("50 MP"), "{refused}");
}

#[test]
fn not_images_are_refused_saying_what_is_taken() {
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
    let heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic";
    for (bytes, says) in [
        (
            &svg[..],
            "not a photo this app reads (JPEG, PNG, WebP or GIF)",
        ),
        (
            &heic[..],
            "HEIC photos can't be read here yet; send a JPEG, PNG, WebP or GIF",
        ),
        (&b""[..], "the file is empty"),
        (
            &b"\xFF\xD8\xFF\xE0 truncated"[..],
            "the JPEG file could not be read",
        ),
    ] {
        let refused = prepare(bytes).unwrap_err().to_string();
        assert!(refused.contains(says), "{refused}");
    }
    let huge = vec![0u8; MAX_BYTES + 1];
    assert!(matches!(prepare(&huge), Err(PhotoError::TooLarge(_))));
}

#[test]
fn the_store_keeps_files_by_content_and_sweeps_strays() {
    let dir = tempfile::tempdir().unwrap();
    let store = PhotoStore::open(&dir.path().join("photos")).unwrap();
    let prepared = prepare(&encoded(&halves(800, 600), ImageFormat::Png)).unwrap();
    let kept = store.keep(&prepared).unwrap();
    assert_eq!(kept.hash.len(), 32);
    assert_eq!((kept.width, kept.height), (800, 600));
    let large = store.path(&kept.hash, store::Variant::Large);
    let thumb = store.path(&kept.hash, store::Variant::Thumb);
    assert_eq!(std::fs::read(&large).unwrap(), prepared.large);
    assert_eq!(std::fs::read(&thumb).unwrap(), prepared.thumb);
    assert_eq!(
        store.keep(&prepared).unwrap(),
        kept,
        "the same photo twice is one pair of files"
    );
    // Names from a URL: only a hash and a known ending.
    let name = format!("{}.thumb.jpg", kept.hash);
    assert_eq!(
        PhotoStore::parse_name(&name),
        Some((kept.hash.clone(), store::Variant::Thumb))
    );
    for bad in [
        "../etc/passwd",
        "x.jpg",
        &format!("{}.png", kept.hash),
        &format!("{}.jpg/..", kept.hash),
    ] {
        assert_eq!(PhotoStore::parse_name(bad), None, "{bad}");
    }
    // A temp file a crash left, and a photo no row refers to, go once older than the
    // sweep spares; the kept one stays, however old.
    let temp = dir.path().join("photos/.tmp-1-0-x.jpg");
    std::fs::write(&temp, b"half").unwrap();
    let other = store
        .keep(&prepare(&encoded(&halves(90, 60), ImageFormat::Png)).unwrap())
        .unwrap();
    let other_files = [
        store.path(&other.hash, store::Variant::Large),
        store.path(&other.hash, store::Variant::Thumb),
    ];
    for path in other_files.iter().chain([&temp, &large, &thumb]) {
        aged(path, HOURS_2);
    }
    let keep: std::collections::HashSet<String> = [kept.hash.clone()].into();
    assert_eq!(store.sweep(&keep).unwrap(), 3);
    assert!(large.exists() && thumb.exists());
    assert!(!store.path(&other.hash, store::Variant::Large).exists());
    store.remove(&kept.hash).unwrap();
    assert!(!large.exists() && !thumb.exists());
}

/// Two hours: past what the sweep spares.
const HOURS_2: std::time::Duration = std::time::Duration::from_secs(2 * 60 * 60);

/// Sets `path`'s modified time `ago` back.
fn aged(path: &std::path::Path, ago: std::time::Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - ago)
        .unwrap();
}

#[test]
fn the_sweep_spares_files_in_flight_and_takes_old_strays() {
    // An import (another process) writes its files, then commits its rows: a server
    // starting between the two must leave the fresh files.
    let dir = tempfile::tempdir().unwrap();
    let store = PhotoStore::open(&dir.path().join("photos")).unwrap();
    let fresh = store
        .keep(&prepare(&encoded(&halves(90, 60), ImageFormat::Png)).unwrap())
        .unwrap();
    let old = store
        .keep(&prepare(&encoded(&halves(60, 90), ImageFormat::Png)).unwrap())
        .unwrap();
    let files =
        |hash: &str| [store::Variant::Large, store::Variant::Thumb].map(|v| store.path(hash, v));
    let temp = dir.path().join("photos/.tmp-1-0-y.jpg");
    std::fs::write(&temp, b"being written").unwrap();
    for path in files(&old.hash) {
        aged(&path, HOURS_2);
    }
    let none = std::collections::HashSet::new();
    assert_eq!(store.sweep(&none).unwrap(), 2, "only the old pair goes");
    assert!(
        files(&fresh.hash).iter().all(|p| p.exists()),
        "fresh spared"
    );
    assert!(temp.exists(), "a temp file being written is spared");
    assert!(files(&old.hash).iter().all(|p| !p.exists()), "old swept");

    // Just inside the hour: spared; an old file an import keeps again: fresh again.
    for path in files(&fresh.hash) {
        aged(
            &path,
            store::SWEEP_SPARES - std::time::Duration::from_secs(60),
        );
    }
    assert_eq!(store.sweep(&none).unwrap(), 0);
    let [large, _] = files(&fresh.hash);
    aged(&large, HOURS_2);
    let bytes = std::fs::read(&large).unwrap();
    assert!(
        !store
            .keep_file(&fresh.hash, store::Variant::Large, &bytes)
            .unwrap()
    );
    assert_eq!(store.sweep(&none).unwrap(), 0, "kept again: spared");
    assert!(large.exists());
}
