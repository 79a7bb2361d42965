//! Static assets, embedded with rust-embed and served under content-hashed names.
//!
//! `app.css` is served as `/static/app.<hash>.css` with a year-long immutable cache: a
//! new build changes the name, so phones never keep a stale file. Debug builds read
//! `static/` from disk on every request (rust-embed's debug behaviour) and send it with
//! `no-cache`, so CSS and JS edits show on reload in `--local` mode.

use super::cached::{Cached, Effort};
use axum::body::Body;
use axum::http::{HeaderMap, Response};
use rust_embed::RustEmbed;
use std::collections::HashMap;

#[derive(RustEmbed)]
#[folder = "static/"]
struct Static;

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";

/// Every embedded file, by hashed and by plain name.
#[derive(Debug)]
pub struct Assets {
    /// Logical name ("app.css") → hashed URL ("/static/app.1a2b….css").
    urls: HashMap<String, String>,
    /// Hashed file name → (logical name, body).
    hashed: HashMap<String, (String, Cached)>,
    /// Logical name → body served with `no-cache`, for URLs that must stay stable.
    plain: HashMap<String, Cached>,
}

impl Assets {
    /// Reads and hashes every asset; `Assets::compress` compresses them.
    pub fn load() -> Assets {
        let mut assets = Assets {
            urls: HashMap::new(),
            hashed: HashMap::new(),
            plain: HashMap::new(),
        };
        for name in Static::iter() {
            let name = name.to_string();
            let Some(file) = Static::get(&name) else {
                continue;
            };
            let mime = file.metadata.mimetype().to_owned();
            let mime = text_charset(&mime);
            let data = file.data.into_owned();
            let immutable = Cached::new(data, &mime, IMMUTABLE);
            let plain = immutable.with_cache_control(REVALIDATE);
            let hashed = hashed_name(&name, immutable.hash());
            assets
                .urls
                .insert(name.clone(), format!("/static/{hashed}"));
            assets.hashed.insert(hashed, (name.clone(), immutable));
            assets.plain.insert(name, plain);
        }
        assets
    }

    /// Compresses every asset once (brotli at quality 11 takes tens of milliseconds for
    /// the few dozen KB of text: run it off the start-up path). Until then, assets are sent
    /// as they are.
    pub(crate) fn compress(&self) {
        // The plain copies share their variants with the hashed ones.
        for (_, cached) in self.hashed.values() {
            cached.compress(Effort::Best);
        }
    }

    /// The URL to reference an asset by, e.g. `url("app.css")`.
    pub(crate) fn url(&self, name: &str) -> String {
        self.urls
            .get(name)
            .cloned()
            .unwrap_or_else(|| format!("/static/{name}"))
    }

    /// The bytes of an asset by its plain name, e.g. `source("sw.js")`.
    pub(crate) fn source(&self, name: &str) -> Option<bytes::Bytes> {
        self.plain.get(name).map(|c| c.bytes().clone())
    }

    /// Serves `/static/<file>`, hashed or plain; `None` when there is no such asset.
    pub(crate) fn respond(&self, file: &str, request: &HeaderMap) -> Option<Response<Body>> {
        if cfg!(debug_assertions) {
            let name = match self.hashed.get(file) {
                Some((name, _)) => name.as_str(),
                None => file,
            };
            let fresh = Static::get(name)?;
            let mime = text_charset(fresh.metadata.mimetype());
            let cached = Cached::new(fresh.data.into_owned(), &mime, REVALIDATE);
            cached.compress(Effort::Fast);
            return Some(cached.respond(request));
        }
        if let Some((_, cached)) = self.hashed.get(file) {
            return Some(cached.respond(request));
        }
        self.plain.get(file).map(|c| c.respond(request))
    }
}

/// `app.css` + `1a2b` → `app.1a2b.css`.
fn hashed_name(name: &str, hash: &str) -> String {
    match name.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.{hash}.{ext}"),
        None => format!("{name}.{hash}"),
    }
}

fn text_charset(mime: &str) -> String {
    if (mime.starts_with("text/") || mime.contains("javascript")) && !mime.contains("charset") {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_share_the_compressed_variants() {
        let assets = Assets::load();
        let mut accept = HeaderMap::new();
        accept.insert(axum::http::header::ACCEPT_ENCODING, "br".parse().unwrap());
        let plain = &assets.plain["app.css"];
        assert!(
            plain
                .respond(&accept)
                .headers()
                .get("content-encoding")
                .is_none()
        );
        assets.compress();
        assert_eq!(plain.respond(&accept).headers()["content-encoding"], "br");
    }

    #[test]
    fn every_asset_has_a_hashed_url() {
        let assets = Assets::load();
        for name in ["app.css", "app.js", "glasses.svg"] {
            let url = assets.url(name);
            let file = url.trim_start_matches("/static/");
            assert_ne!(file, name, "{name} is not hashed");
            assert!(assets.respond(file, &HeaderMap::new()).is_some(), "{url}");
        }
        assert_eq!(hashed_name("a.b.css", "ff"), "a.b.ff.css");
    }
}
