//! What makes the app installable and work offline: the web app manifest and the service
//! worker, with a version that changes whenever anything it caches does.

use super::SiteError;
use super::assets::Assets;
use crate::http::fixed::FixedBody;
use crate::http::representation::content_hash;
use crate::view::templates::Urls;

/// The web app manifest: installable, standalone, with PNG icons (any and maskable).
pub(super) fn manifest(assets: &Assets) -> Result<Vec<u8>, SiteError> {
    let icon = |name: &str, size: u32, purpose: &str| {
        serde_json::json!({
            "src": assets.url(name),
            "sizes": format!("{size}x{size}"),
            "type": "image/png",
            "purpose": purpose,
        })
    };
    let manifest = serde_json::json!({
        "id": "/",
        "name": "Libations",
        "short_name": "Libations",
        "description": "Your home bar's cocktail recipes",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "background_color": "#f7f3ec",
        "theme_color": "#f7f3ec",
        // "Share → Libations" on a phone opens Add from a link with the page's address.
        "share_target": {
            "action": "/recipes/import",
            "method": "GET",
            "enctype": "application/x-www-form-urlencoded",
            "params": {"title": "title", "text": "text", "url": "url"},
        },
        "icons": [
            icon("icon-192.png", 192, "any"),
            icon("icon-512.png", 512, "any"),
            icon("icon-maskable-512.png", 512, "maskable"),
        ],
    });
    Ok(serde_json::to_vec_pretty(&manifest)?)
}

/// `static/sw.js` preceded by what it must cache, which of that is named by its content, and
/// a version that changes whenever the recipes, the list page, the manifest or an asset
/// does: browsers compare `/sw.js` byte for byte, so a new version installs a new worker,
/// which fetches everything afresh.
pub(super) fn service_worker(
    assets: &Assets,
    urls: &Urls,
    bodies: &[&FixedBody],
) -> Result<Vec<u8>, SiteError> {
    // Addresses that change with their content (`Assets`): the worker serves them from
    // its cache without asking the network, where every page load asked for each again.
    let mut named = vec![
        urls.css.clone(),
        urls.menu_css.clone(),
        urls.glasses.clone(),
        urls.icon.clone(),
        urls.apple_touch.clone(),
        assets.url("icon-192.png"),
    ];
    // Every module, not just the entry: offline, the page needs all it imports.
    named.extend(assets.module_urls());
    let mut precache = vec![
        "/".to_owned(),
        "/api/recipes".to_owned(),
        "/shelf".to_owned(),
        "/api/ingredients".to_owned(),
        "/manifest.webmanifest".to_owned(),
    ];
    precache.extend(named.iter().cloned());
    let source = assets.source("sw.js").unwrap_or_default();
    let mut fingerprint = precache.join("\n");
    for body in bodies {
        fingerprint.push_str(body.hash());
    }
    fingerprint.push_str(&content_hash(&source));
    let header = format!(
        "const VERSION = {};\nconst PRECACHE = {};\nconst NAMED_BY_CONTENT = {};\n",
        serde_json::to_string(&content_hash(fingerprint.as_bytes()))?,
        serde_json::to_string(&precache)?,
        serde_json::to_string(&named)?
    );
    let mut out = header.into_bytes();
    out.extend_from_slice(&source);
    Ok(out)
}
