//! Which content coding a client gets: brotli, then gzip, as its `Accept-Encoding` allows.
//!
//! One place decides, so that fixed bodies, bodies compressed as they are written and the
//! recent answers kept for a search all pick the same coding for the same request (their
//! ETags and kept copies depend on it).

use axum::http::{HeaderMap, header};

/// A content coding we can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

impl Encoding {
    pub(crate) fn token(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Brotli => Some("br"),
        }
    }
}

/// Picks the coding to send from an `Accept-Encoding` header: brotli, then gzip, honouring
/// q-values (`br;q=0` refuses brotli) and `*`.
pub(crate) fn negotiate(headers: &HeaderMap) -> Encoding {
    let (mut br, mut gzip, mut star) = (None, None, None);
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            match coding.as_str() {
                "br" => br = Some(q),
                "gzip" | "x-gzip" => gzip = Some(q),
                "*" => star = Some(q),
                _ => {}
            }
        }
    }
    let br = br.or(star).unwrap_or(0.0);
    let gzip = gzip.or(star).unwrap_or(0.0);
    if br > 0.0 && br >= gzip {
        Encoding::Brotli
    } else if gzip > 0.0 {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use axum::http::HeaderValue;

    /// Request headers with this `Accept-Encoding` (the other rooms' tests use it too).
    pub(in crate::http) fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        h
    }

    #[test]
    fn negotiation_honours_q_values() {
        assert_eq!(negotiate(&HeaderMap::new()), Encoding::Identity);
        assert_eq!(
            negotiate(&accept("gzip, deflate, br, zstd")),
            Encoding::Brotli
        );
        assert_eq!(negotiate(&accept("gzip")), Encoding::Gzip);
        assert_eq!(negotiate(&accept("br;q=0, gzip")), Encoding::Gzip);
        assert_eq!(negotiate(&accept("br;q=0.5, gzip;q=0.8")), Encoding::Gzip);
        assert_eq!(negotiate(&accept("*")), Encoding::Brotli);
        assert_eq!(negotiate(&accept("*;q=0")), Encoding::Identity);
        assert_eq!(negotiate(&accept("identity")), Encoding::Identity);
    }
}
