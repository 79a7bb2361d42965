//! Static assets, embedded with rust-embed and served under content-hashed names.
//!
//! `app.css` is served as `/static/app.<hash>.css` with a year-long immutable cache: a
//! new build changes the name, so phones never keep a stale file. A debug build reads
//! `static/` from the source tree at start (rust-embed's debug behaviour) and then serves
//! it as a release build does, from memory and immutable: a CSS or JS edit shows once
//! the binary is started again, which names the files anew (the service worker keeps
//! content-named files, so a reload alone would not show it anyway). Sent `no-cache`, every
//! file was asked for again, even the glasses' sprite at each recipe opened in the pane:
//! a tenth of the browser tests' CPU (docs/PERFORMANCE.md).
//!
//! The JavaScript is a set of ES modules in `static/js/` that import each other by
//! relative URL (`import … from "./model.js"`). A hash in each file's own name would
//! not survive that: an importer names the plain file, so its text would have to be
//! rewritten with the hashed name, and its own hash would then depend on its imports'.
//! Instead every module is served under one directory named by a hash over all of
//! them — `/static/js.<hash>/app.js`, `/static/js.<hash>/model.js` — and the browser
//! resolves `./model.js` inside it. Changing any module renames the directory, so a
//! page only ever loads modules of one build: a page from an older build asks for a
//! directory that is no longer served and gets a 404 for its entry module, and a
//! module graph with a missing import runs none of its modules (the page stays the
//! working no-JavaScript page until it is reloaded). The service worker caches the
//! whole directory together (`Assets::module_urls`). `vocabulary.json`, the bar's words
//! (`data/vocabulary.json`), is served in that directory too, for `vocabulary.js`.

use crate::http::cache_control::{IMMUTABLE, REVALIDATE};
use crate::http::compress::Effort;
use crate::http::fixed::FixedBody;
use crate::http::representation::content_hash;
use axum::body::Body;
use axum::http::{HeaderMap, Response};
use rust_embed::RustEmbed;
use std::collections::HashMap;

#[derive(RustEmbed)]
#[folder = "../../static/"]
struct Static;

/// Where the guests' page finds its files (the Funnel listener serves nothing else).
pub(crate) const GUEST_PREFIX: &str = "/menu/assets/";

/// The only files the guests' page needs: its styles, icons and its two modules.
const GUEST_ASSETS: [&str; 6] = [
    "app.css",
    "menu.css",
    "glasses.svg",
    "icon.svg",
    "js/menu.js",
    "js/wake.js",
];

/// Where the ES modules are, in `static/`.
const MODULES: &str = "js/";
/// The vocabulary's name among the assets: the one not read from `static/`.
const VOCABULARY: &str = "js/vocabulary.json";

/// Every embedded file, by hashed and by plain name.
#[derive(Debug)]
pub struct Assets {
    /// Logical name ("app.css") → hashed URL ("/static/app.1a2b….css").
    urls: HashMap<String, String>,
    /// Hashed file name → (logical name, body).
    hashed: HashMap<String, (String, FixedBody)>,
    /// Logical name → body served with `no-cache`, for URLs that must stay stable.
    plain: HashMap<String, FixedBody>,
}

impl Assets {
    /// Reads and hashes every asset; `Assets::compress` compresses them.
    pub fn load() -> Assets {
        let mut files: Vec<(String, FixedBody)> = Static::iter()
            .filter_map(|name| {
                let file = Static::get(&name)?;
                let mime = text_charset(file.metadata.mimetype());
                Some((
                    name.to_string(),
                    FixedBody::new(file.data.into_owned(), &mime, IMMUTABLE),
                ))
            })
            .collect();
        files.push(vocabulary_file());
        let modules = module_dir(&files);
        let mut assets = Assets {
            urls: HashMap::new(),
            hashed: HashMap::new(),
            plain: HashMap::new(),
        };
        for (name, immutable) in files {
            let plain = immutable.with_cache_control(REVALIDATE);
            let hashed = match name.strip_prefix(MODULES) {
                Some(module) => format!("{modules}/{module}"),
                None => hashed_name(&name, immutable.hash()),
            };
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
    ///
    /// A debug build compresses none here: [`Assets::respond`] compresses each file the
    /// first time it is asked for, at the per-request effort, as
    /// [`Site::compress`](super::Site::compress) does. Every test starts a debug binary,
    /// most ask for few of its files, and these compressions were most of a start's CPU
    /// (the vocabulary alone at quality 11: 47 % of the sample's start).
    pub fn compress(&self) {
        if cfg!(debug_assertions) {
            return;
        }
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

    /// The URL of an asset the guests' page needs, under `/menu/assets/` (see
    /// [`Assets::guest_respond`]).
    pub(crate) fn guest_url(&self, name: &str) -> String {
        let url = self.url(name);
        let file = url.strip_prefix("/static/").unwrap_or(&url);
        format!("{GUEST_PREFIX}{file}")
    }

    /// Serves `/menu/assets/<file>`: as [`Assets::respond`], but only the few files the
    /// guests' page needs ([`GUEST_ASSETS`]); the rest of the app's files are not there.
    pub(crate) fn guest_respond(&self, file: &str, request: &HeaderMap) -> Option<Response<Body>> {
        let name = match self.hashed.get(file) {
            Some((name, _)) => name.as_str(),
            None => self.plain.get_key_value(file)?.0.as_str(),
        };
        if !GUEST_ASSETS.contains(&name) {
            return None;
        }
        self.respond(file, request)
    }

    /// The URLs of every ES module (`static/js/`), for the service worker to keep together.
    pub fn module_urls(&self) -> Vec<String> {
        let mut urls: Vec<String> = self
            .urls
            .iter()
            .filter(|(name, _)| name.starts_with(MODULES))
            .map(|(_, url)| url.clone())
            .collect();
        urls.sort();
        urls
    }

    /// The bytes of an asset by its plain name, e.g. `source("sw.js")`.
    pub(crate) fn source(&self, name: &str) -> Option<bytes::Bytes> {
        self.plain.get(name).map(|c| c.bytes().clone())
    }

    /// Serves `/static/<file>` (`app.<hash>.css`, `js.<hash>/app.js`, or a plain name);
    /// `None` when there is no such asset. Only names found at start are looked up, so no
    /// path from a request reaches the file system.
    pub(crate) fn respond(&self, file: &str, request: &HeaderMap) -> Option<Response<Body>> {
        let body = match self.hashed.get(file) {
            Some((_, cached)) => cached,
            None => self.plain.get(file)?,
        };
        if cfg!(debug_assertions) {
            // Once for each file (its variants are kept), where a release build compressed
            // them all at start (`Assets::compress`).
            body.compress(Effort::Fast);
        }
        Some(body.respond(request))
    }
}

/// `js.<hash>`: the directory the modules are served in, named by a hash over every
/// module's name and content, so that a change to any of them renames it.
fn module_dir(files: &[(String, FixedBody)]) -> String {
    let mut lines: Vec<String> = files
        .iter()
        .filter(|(name, _)| name.starts_with(MODULES))
        .map(|(name, body)| format!("{name} {}\n", body.hash()))
        .collect();
    lines.sort();
    format!("js.{}", content_hash(lines.concat().as_bytes()))
}

/// `data/vocabulary.json`, the one table of the bar's words, served beside the modules as
/// `vocabulary.json`: `static/js/vocabulary.js` reads it from there, so it is renamed with
/// them and kept offline with them (the service worker keeps the module directory whole).
/// Served with only the fields the browser reads ([`BROWSER_FIELDS`]): the sources and
/// strengths are the server's, and every first visit downloads this.
fn vocabulary_file() -> (String, FixedBody) {
    let text = crate::vocabulary::VOCABULARY_JSON;
    let mime = "application/json; charset=utf-8";
    let bytes = browser_cut(text).unwrap_or_else(|| text.as_bytes().to_vec());
    let body = FixedBody::new(bytes, mime, IMMUTABLE);
    (VOCABULARY.to_owned(), body)
}

/// What `static/js/vocabulary.js` reads of an entry, and of its `made_of`.
const BROWSER_FIELDS: [&str; 6] = ["id", "name", "is", "also", "made_of", "staple"];
const BROWSER_PREP_FIELDS: [&str; 3] = ["parts", "how", "keeps"];

/// The vocabulary's entries with [`BROWSER_FIELDS`] alone; `None` if it is not the JSON
/// expected (the unit tests read the same text, so it always is).
fn browser_cut(text: &str) -> Option<Vec<u8>> {
    let keep = |value: &serde_json::Value, fields: &[&str]| -> Option<serde_json::Value> {
        let object = value.as_object()?;
        let kept = object.iter().filter(|(k, _)| fields.contains(&k.as_str()));
        Some(kept.map(|(k, v)| (k.clone(), v.clone())).collect())
    };
    let file: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut entries = Vec::new();
    for entry in file.get("entries")?.as_array()? {
        let mut cut = keep(entry, &BROWSER_FIELDS)?;
        if let Some(prep) = entry.get("made_of") {
            cut["made_of"] = keep(prep, &BROWSER_PREP_FIELDS)?;
        }
        entries.push(cut);
    }
    serde_json::to_vec(&serde_json::json!({ "entries": entries })).ok()
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
        let plain = &assets.plain[VOCABULARY];
        assert!(
            plain
                .respond(&accept)
                .headers()
                .get("content-encoding")
                .is_none()
        );
        // At start in a release build; in a debug build, when first asked for.
        assets.compress();
        let hashed = assets.url(VOCABULARY);
        let hashed = hashed.trim_start_matches("/static/");
        assert_eq!(
            assets.respond(hashed, &accept).expect("served").headers()["content-encoding"],
            "br"
        );
        assert_eq!(plain.respond(&accept).headers()["content-encoding"], "br");
    }

    #[test]
    fn the_guests_page_reaches_its_own_files_and_no_other() {
        let assets = Assets::load();
        for name in GUEST_ASSETS {
            let url = assets.guest_url(name);
            let file = url.strip_prefix(GUEST_PREFIX).expect("under /menu/assets/");
            assert_eq!(file, assets.url(name).trim_start_matches("/static/"));
            assert!(
                assets.guest_respond(file, &HeaderMap::new()).is_some(),
                "{url}"
            );
            assert!(
                assets.guest_respond(name, &HeaderMap::new()).is_some(),
                "{name}"
            );
        }
        for name in ["js/app.js", "sw.js", "icon-512.png", "manifest.webmanifest"] {
            let file = assets.url(name);
            let file = file.trim_start_matches("/static/");
            assert!(
                assets.guest_respond(file, &HeaderMap::new()).is_none(),
                "{file}"
            );
            assert!(
                assets.guest_respond(name, &HeaderMap::new()).is_none(),
                "{name}"
            );
        }
    }

    #[test]
    fn every_asset_has_a_hashed_url() {
        let assets = Assets::load();
        for name in ["app.css", "js/app.js", "glasses.svg"] {
            let url = assets.url(name);
            let file = url.trim_start_matches("/static/");
            assert_ne!(file, name, "{name} is not hashed");
            assert!(assets.respond(file, &HeaderMap::new()).is_some(), "{url}");
        }
        assert_eq!(hashed_name("a.b.css", "ff"), "a.b.ff.css");
    }

    #[test]
    fn modules_share_one_directory_named_by_all_of_them() {
        let assets = Assets::load();
        let urls = assets.module_urls();
        assert!(urls.len() >= 2, "{urls:?}");
        let dir = |url: &str| url.rsplit_once('/').map(|(dir, _)| dir.to_owned());
        assert!(urls.iter().all(|u| dir(u) == dir(&urls[0])), "{urls:?}");
        assert!(urls.iter().any(|u| u.ends_with("/app.js")), "{urls:?}");
        for url in &urls {
            let file = url.trim_start_matches("/static/");
            assert!(assets.respond(file, &HeaderMap::new()).is_some(), "{url}");
            let other = file.replacen("js.", "js.0", 1);
            assert!(
                assets.respond(&other, &HeaderMap::new()).is_none(),
                "{other}"
            );
        }
        // A change to one module, a module more or a renamed one renames the directory;
        // other assets do not.
        let dir = |files: &[(&str, &str)]| {
            let files: Vec<(String, FixedBody)> = files
                .iter()
                .map(|(name, body)| {
                    let body = FixedBody::new(body.to_string(), "text/javascript", IMMUTABLE);
                    (name.to_string(), body)
                })
                .collect();
            module_dir(&files)
        };
        let base = [("js/a.js", "a"), ("js/b.js", "b"), ("app.css", "x")];
        let with = |at: usize, file: (&'static str, &'static str)| {
            let mut files = base;
            files[at] = file;
            dir(&files)
        };
        assert_ne!(with(1, ("js/b.js", "b2")), dir(&base), "a module changed");
        assert_ne!(with(2, ("js/c.js", "")), dir(&base), "a module more");
        assert_ne!(with(0, ("js/a2.js", "a")), dir(&base), "a module renamed");
        assert_eq!(with(2, ("app.css", "y")), dir(&base), "another asset");
    }

    #[test]
    fn no_path_outside_the_embedded_files_is_served() {
        let assets = Assets::load();
        for path in [
            "../Cargo.toml",
            "js/../../Cargo.toml",
            "js",
            "nope.js",
            "js.0/app.js",
        ] {
            assert!(assets.respond(path, &HeaderMap::new()).is_none(), "{path}");
        }
    }
}
