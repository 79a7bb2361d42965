//! The printed menu's QR code: the guests' address as an inline SVG (the `qrcode` crate,
//! SVG only), so that the card needs no image file and no request anywhere else. The SVG
//! draws with presentation attributes (`fill`), which the strict CSP allows; its size on
//! paper is the stylesheet's.

use qrcode::render::svg;
use qrcode::{EcLevel, QrCode};

/// `text` as a QR code in an `<svg>` element, one unit per module with the standard quiet
/// zone, labelled for screen readers; none if it cannot be encoded (too long for a QR code).
pub(crate) fn svg(text: &str) -> Option<String> {
    // M: a card on a bar gets splashed; M mends 15% of it and keeps the code small.
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M).ok()?;
    let image = code
        .render::<svg::Color<'_>>()
        .module_dimensions(1, 1)
        .quiet_zone(true)
        .dark_color(svg::Color("#000"))
        .light_color(svg::Color("#fff"))
        .build();
    let start = image.find("<svg ")?;
    let label = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    Some(format!(
        r#"<svg class="qr" role="img" aria-label="QR code: {label}" {}"#,
        &image[start + 5..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_one_inline_svg_without_styles() {
        let svg = svg("https://bar.example.ts.net/menu").unwrap();
        assert!(svg.starts_with(r#"<svg class="qr" role="img""#), "{svg}");
        assert!(svg.ends_with("</svg>"));
        assert!(!svg.contains("<?xml"));
        assert!(!svg.contains("style"), "the CSP forbids style attributes");
        assert!(svg.contains("QR code: https://bar.example.ts.net/menu"));
    }
}
