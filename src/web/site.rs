//! Everything derived from one loaded collection: the search index, the pre-rendered list
//! page and the JSON of all recipes. Built once per load; requests only read it.

use super::answer::{Answer, Finished};
use super::assets::Assets;
use super::cached::{Cached, Effort, Encoding, Representation, content_hash, hash_hex, negotiate};
use super::recent::{Kind, Recent};
use super::spliced::{self, Middle};
use super::templates::{
    Amounts, Chrome, EditControls, ErrorPage, Footer, ListBody, ListPage, RecipePage, Row,
    ShelfPage, Urls,
};
use crate::ingredients::{self, ShelfIngredient};
use crate::recipes::{Recipe, Recipes};
use crate::search::{Index, SearchQuery};
use crate::units::AmountView;
use askama::Template;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response};
use bytes::Bytes;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// HTML changes whenever the recipes do, so browsers must revalidate (cheap: ETag → 304).
pub(crate) const HTML_CACHE: &str = "no-cache";

const HTML: &str = "text/html; charset=utf-8";
const JSON: &str = "application/json";

#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("rendering the {page} failed: {source}")]
    Render {
        page: &'static str,
        #[source]
        source: askama::Error,
    },
    #[error("encoding recipes as JSON failed: {0}")]
    Json(#[from] serde_json::Error),
    /// The list page does not hold the list as rendered; this cannot happen with askama's
    /// output, but is not worth a panic.
    #[error("the list page does not hold the list it was rendered from")]
    ListNotInPage,
    #[error("compressing an answer failed: {0}")]
    Answer(#[from] std::io::Error),
}

/// A loaded collection and everything rendered from it.
#[derive(Debug)]
pub struct Site {
    recipes: Recipes,
    index: Index,
    urls: Urls,
    footer: Footer,
    list_page: Cached,
    /// The list page's text, the same allocation as `list_page`'s body.
    list_text: SharedText,
    /// Where the full list without the page around it is in `list_text`, for recipe
    /// pages ([`ListBody`]).
    list_body: Range<usize>,
    /// The list compressed once, for recipe pages spliced around it ([`spliced`]): unset
    /// until [`Site::compress`] or [`Site::compress_quickly`] has made it, `None` if it
    /// could not be made. Until then recipe pages are compressed whole, per request.
    list_middle: OnceLock<Option<Middle>>,
    all_json: Cached,
    shelf_page: Cached,
    ingredients_json: Cached,
    /// Where each recipe's object is in `all_json`, in `Recipes::all()` order: a search
    /// answers with copies of these instead of serialising its hits again.
    json_spans: Vec<Range<usize>>,
    service_worker: Cached,
    manifest: Cached,
    /// Answers to recent searches, kept compressed.
    recent: Recent,
}

impl Site {
    /// Renders the full list page and the API's JSON once. Compression is left to
    /// [`Site::compress`], so that start-up is not held up by it.
    pub fn new(recipes: Recipes, assets: &Assets) -> Result<Site, SiteError> {
        let urls = Urls {
            css: assets.url("app.css"),
            js: assets.url("js/app.js"),
            glasses: assets.url("glasses.svg"),
            icon: assets.url("icon.svg"),
            apple_touch: assets.url("apple-touch-icon.png"),
        };
        let footer = Footer::new(&recipes);
        let chrome = Chrome {
            urls: &urls,
            footer: &footer,
            q: "",
        };
        // The index, the JSON and the shelf do not depend on the list page: build them on
        // other threads while this one renders the list (start-up for thousands of recipes).
        let (index, all_json, shelf, list) = std::thread::scope(|scope| {
            let side = scope.spawn(|| {
                let index = Index::new(&recipes);
                let json = json_array(recipes.all()).map(|(json, spans)| {
                    (Cached::new(json, "application/json", HTML_CACHE), spans)
                });
                (index, json)
            });
            let shelf_job = scope.spawn(|| shelf(&recipes, chrome));
            let list = list(&recipes, chrome);
            let (index, json) = joined(side);
            (index, json, joined(shelf_job), list)
        });
        let (list_page, list_text, list_body) = list?;
        let (shelf_page, ingredients_json) = shelf?;
        let (all_json, json_spans) = all_json?;
        let manifest = Cached::new(manifest(assets)?, "application/manifest+json", HTML_CACHE);
        let bodies = [
            &list_page,
            &all_json,
            &shelf_page,
            &ingredients_json,
            &manifest,
        ];
        let service_worker = Cached::new(
            service_worker(assets, &urls, &bodies)?,
            "text/javascript; charset=utf-8",
            HTML_CACHE,
        );
        Ok(Site {
            recipes,
            index,
            urls,
            footer,
            list_page,
            list_text,
            list_body,
            list_middle: OnceLock::new(),
            all_json,
            shelf_page,
            ingredients_json,
            json_spans,
            service_worker,
            manifest,
            recent: Recent::new(),
        })
    }

    /// Compresses the pre-rendered bodies (slow for thousands of recipes: run it off the
    /// request path, e.g. in `spawn_blocking`).
    pub fn compress(&self) {
        self.compress_with(Effort::Best);
    }

    /// [`Site::compress`] at the per-request effort (brotli 3, fast gzip): after a change
    /// saved in the app. The best effort takes seconds of a core for thousands of
    /// recipes, which a person saving one recipe after another would pay in slower
    /// searches for everyone; a few per cent more bytes is the better trade.
    pub fn compress_quickly(&self) {
        self.compress_with(Effort::Fast);
    }

    fn compress_with(&self, effort: Effort) {
        self.list_page.compress(effort);
        // After the list page, not beside it: two quality-11 compressions at once would
        // raise the peak memory of a start-up.
        self.list_middle
            .get_or_init(|| Middle::compress(self.list_body().ok()?.as_bytes(), effort));
        self.all_json.compress(effort);
        self.shelf_page.compress(effort);
        self.ingredients_json.compress(effort);
        self.service_worker.compress(effort);
        self.manifest.compress(effort);
    }

    pub(crate) fn recipes(&self) -> &Recipes {
        &self.recipes
    }

    pub(crate) fn list_page(&self) -> &Cached {
        &self.list_page
    }

    pub(crate) fn all_json(&self) -> &Cached {
        &self.all_json
    }

    /// `/shelf`: units, the ingredients to tick, export and import.
    pub(crate) fn shelf_page(&self) -> &Cached {
        &self.shelf_page
    }

    /// `/api/ingredients`: every distinct ingredient (see [`crate::ingredients`]).
    pub(crate) fn ingredients_json(&self) -> &Cached {
        &self.ingredients_json
    }

    /// `/sw.js`: the service worker, with this build's and this collection's version.
    pub(crate) fn service_worker(&self) -> &Cached {
        &self.service_worker
    }

    /// `/manifest.webmanifest`: what an installed app is called and looks like.
    pub(crate) fn manifest(&self) -> &Cached {
        &self.manifest
    }

    /// What a search costs, in recipe scans: the gate runs it at once or on the blocking
    /// pool by this ([`super::gate::INLINE_COST`]).
    pub(crate) fn search_cost(&self, query: &SearchQuery) -> usize {
        self.recipes.len() * query.terms.len().max(1)
    }

    /// The recipes matching a query, best first.
    pub fn search(&self, query: &SearchQuery) -> Vec<&Recipe> {
        let all = self.recipes.all();
        self.index
            .search(query)
            .into_iter()
            .map(|i| &all[i])
            .collect()
    }

    /// The JSON array of the recipes matching a query, best first, as the answer to
    /// `request`: the same bytes as serialising [`Site::search`]'s hits, copied from the
    /// JSON of all recipes (and compressed as they are copied).
    pub(crate) fn search_json_answer(
        &self,
        q: &str,
        query: &SearchQuery,
        request: &HeaderMap,
    ) -> Result<Response<Body>, SiteError> {
        if let Some(kept) = self.recent.get(Kind::Json, q, request) {
            return Ok(kept);
        }
        let (hits, len) = self.json_hits(query);
        let mut answer = Answer::new(request, len);
        self.write_json_hits(&hits, &mut answer)?;
        let finished = answer.finish(JSON, request)?;
        Ok(self.recent.keep(Kind::Json, q, finished, request))
    }

    /// The hits of a query, best first, and the length of their JSON array.
    fn json_hits(&self, query: &SearchQuery) -> (Vec<usize>, usize) {
        let hits = self.index.search(query);
        let objects = hits
            .iter()
            .map(|&i| self.json_spans[i].len())
            .sum::<usize>();
        let commas = hits.len().saturating_sub(1);
        let len = 2 + objects + commas;
        (hits, len)
    }

    fn write_json_hits(&self, hits: &[usize], out: &mut impl Write) -> std::io::Result<()> {
        let all = self.all_json.bytes();
        out.write_all(b"[")?;
        for (n, &i) in hits.iter().enumerate() {
            if n > 0 {
                out.write_all(b",")?;
            }
            out.write_all(&all[self.json_spans[i].clone()])?;
        }
        out.write_all(b"]")
    }

    /// What every page shows around its own part, with `q` in the search box.
    pub(crate) fn chrome<'a>(&'a self, q: &'a str) -> Chrome<'a> {
        Chrome {
            urls: &self.urls,
            footer: &self.footer,
            q,
        }
    }

    /// The list page for a search (rendered per request: queries are endless).
    pub fn render_search(&self, q: &str, query: SearchQuery) -> Result<String, SiteError> {
        render("search results", &self.search_view(q, query))
    }

    /// [`Site::render_search`] as the answer to `request`, compressed as it is rendered.
    pub(crate) fn search_answer(
        &self,
        q: &str,
        query: SearchQuery,
        request: &HeaderMap,
    ) -> Result<Response<Body>, SiteError> {
        // Asked again while this request waited for its turn: sent as made then.
        if let Some(kept) = self.recent.get(Kind::Page, q, request) {
            return Ok(kept);
        }
        let page = self.search_view(q, query);
        let size = self.rows_size(page.list.rows.len());
        let finished = answer("search results", &page, size, request)?;
        Ok(self.recent.keep(Kind::Page, q, finished, request))
    }

    /// The answer made for an earlier request with the same search and coding, if it is
    /// still kept ([`Recent`]).
    pub(crate) fn recent_answer(
        &self,
        kind: Kind,
        q: &str,
        request: &HeaderMap,
    ) -> Option<Response<Body>> {
        self.recent.get(kind, q, request)
    }

    fn search_view<'a>(&'a self, q: &'a str, query: SearchQuery) -> ListPage<'a, ListBody<'a>> {
        let hits = self.search(&query);
        let list = ListBody {
            urls: &self.urls,
            q,
            total: self.recipes.len(),
            rows: hits.into_iter().map(Row::new).collect(),
            device: query.device,
        };
        ListPage {
            chrome: self.chrome(q),
            list,
        }
    }

    /// About how long a list of `rows` recipes is, from the full list's length: what a
    /// page's answer is sized by (see [`Answer::new`]).
    fn rows_size(&self, rows: usize) -> usize {
        let per_row = self.list_body.len() / self.recipes.len().max(1);
        per_row * rows + (self.list_text.0.len() - self.list_body.len())
    }

    /// A recipe's page, its amounts shown as `display` asks (`?units=oz&serves=2`).
    #[cfg(test)]
    fn render_recipe(
        &self,
        r: &Recipe,
        display: AmountView,
        edit: Option<EditControls>,
    ) -> Result<String, SiteError> {
        render("recipe page", &self.recipe_view(r, display, edit)?)
    }

    /// [`Site::render_recipe`] as the answer to `request`, compressed as it is rendered.
    pub(crate) fn recipe_answer(
        &self,
        r: &Recipe,
        display: AmountView,
        edit: Option<EditControls>,
        request: &HeaderMap,
    ) -> Result<Response<Body>, SiteError> {
        let mut page = self.recipe_view(r, display, edit)?;
        if let Some(response) = self.spliced_recipe(&mut page, request)? {
            return Ok(response);
        }
        Ok(answer("recipe page", &page, self.list_text.0.len(), request)?.respond(request))
    }

    /// A recipe page for a brotli client: its own head and tail compressed now, around the
    /// list compressed once ([`spliced`]). `None` (and `page` as it was) for other clients,
    /// until the list is compressed, or if the page cannot be spliced.
    ///
    /// The ETag is the hash of the whole text, as for the page compressed whole. The answer
    /// is not marked [`crate::connections::PerRequest`]: only its head and tail (a few
    /// kilobytes) are this request's own; the rest is the list's shared bytes, which cost
    /// nothing more to hold, like the pre-rendered pages'.
    fn spliced_recipe(
        &self,
        page: &mut RecipePage<'_>,
        request: &HeaderMap,
    ) -> Result<Option<Response<Body>>, SiteError> {
        let Some(Some(middle)) = self.list_middle.get() else {
            return Ok(None);
        };
        if negotiate(request) != Encoding::Brotli {
            return Ok(None);
        }
        let list = std::mem::replace(&mut page.list, LIST_MARK);
        let marked = render("recipe page", &*page);
        page.list = list;
        let marked = marked?;
        let Some((head, tail)) = split_at_mark(&marked) else {
            return Ok(None);
        };
        let Some(body) = spliced::splice(head.as_bytes(), middle, tail.as_bytes()) else {
            return Ok(None);
        };
        let hash = text_hash(&[head, list, tail]);
        let representation = Representation {
            hash: &hash,
            content_type: &HeaderValue::from_static(HTML),
            cache_control: &HeaderValue::from_static(HTML_CACHE),
            encoding: Encoding::Brotli,
        };
        Ok(Some(representation.respond_with(Body::new(body), request)))
    }

    fn recipe_view<'a>(
        &'a self,
        r: &'a Recipe,
        display: AmountView,
        edit: Option<EditControls>,
    ) -> Result<RecipePage<'a>, SiteError> {
        Ok(RecipePage {
            edit,
            chrome: self.chrome(""),
            r,
            icon: super::glass::icon(&r.glass),
            amounts: Amounts::new(r, display),
            notes: super::links::note_parts(&r.notes),
            list: self.list_body()?,
        })
    }

    /// The full list without the page around it, as it sits inside the list page.
    fn list_body(&self) -> Result<&str, SiteError> {
        (self.list_text.0)
            .get(self.list_body.clone())
            .ok_or(SiteError::ListNotInPage)
    }

    pub(crate) fn render_error(&self, title: &str, message: &str) -> Result<String, SiteError> {
        let page = ErrorPage {
            chrome: self.chrome(""),
            title,
            message,
        };
        render("error page", &page)
    }
}

/// Renders a page whole or not at all: askama renders into a string of its own, so a
/// failure part way (a field's `Display` failing, say) leaves nothing to send but the error,
/// which becomes a 500.
pub(crate) fn render(page: &'static str, template: &impl Template) -> Result<String, SiteError> {
    template
        .render()
        .map_err(|source| SiteError::Render { page, source })
}

/// Stands for the list while a recipe page is rendered to be spliced: a private-use
/// character and NULs, which no page holds otherwise (and one that does is not split:
/// see [`split_at_mark`]).
const LIST_MARK: &str = "\u{F8FF}\0list\0\u{F8FF}";

/// `text` before and after its [`LIST_MARK`], or `None` unless it holds the mark once.
fn split_at_mark(text: &str) -> Option<(&str, &str)> {
    let (head, tail) = text.split_once(LIST_MARK)?;
    (!tail.contains(LIST_MARK)).then_some((head, tail))
}

/// The content hash ([`content_hash`]) of `parts` one after another.
fn text_hash(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
    }
    hash_hex(&hash.finalize())
}

/// Renders a page into an [`Answer`] for `request` (about `size` bytes of text), whole or
/// not at all: a failure part way leaves only the error, which becomes a 500.
fn answer(
    page: &'static str,
    template: &impl Template,
    size: usize,
    request: &HeaderMap,
) -> Result<Finished, SiteError> {
    let mut answer = Answer::new(request, size);
    template
        .render_into(&mut answer)
        .map_err(|source| SiteError::Render { page, source })?;
    Ok(answer.finish(HTML, request)?)
}

/// The full list, rendered once: the list page (cached), and where in it the list alone
/// is, which every recipe page shows beside the recipe (kept as a range rather than a
/// second copy: 1.3 MB for 5,000 recipes).
fn list(
    recipes: &Recipes,
    chrome: Chrome<'_>,
) -> Result<(Cached, SharedText, Range<usize>), SiteError> {
    let body = ListBody {
        urls: chrome.urls,
        q: "",
        total: recipes.len(),
        rows: recipes.all().iter().map(Row::new).collect(),
        device: Vec::new(),
    };
    let body = render("recipe list", &body)?;
    let page = render(
        "recipe list",
        &ListPage {
            chrome,
            list: body.as_str(),
        },
    )?;
    let start =
        memchr::memmem::find(page.as_bytes(), body.as_bytes()).ok_or(SiteError::ListNotInPage)?;
    let text = SharedText(page.into());
    let cached = Cached::new(
        Bytes::from_owner(text.clone()),
        "text/html; charset=utf-8",
        HTML_CACHE,
    );
    Ok((cached, text, start..start + body.len()))
}

/// Text shared between a [`Cached`] body (as bytes) and the code that reads it as text,
/// so that recipe pages take the list from the list page without a copy or a UTF-8 check
/// per request.
#[derive(Debug, Clone)]
struct SharedText(Arc<str>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// What a start-up thread built; its panic, if it had one, goes on here.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    match handle.join() {
        Ok(built) => built,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// `/shelf` and `/api/ingredients`. Staples are not offered on the page: they never block
/// a recipe.
fn shelf(recipes: &Recipes, chrome: Chrome<'_>) -> Result<(Cached, Cached), SiteError> {
    let all: Vec<ShelfIngredient> = ingredients::distinct(recipes);
    let page = ShelfPage {
        chrome,
        ingredients: all.iter().filter(|i| !i.staple).collect(),
    };
    let page = render("shelf page", &page)?;
    Ok((
        Cached::new(page, "text/html; charset=utf-8", HTML_CACHE),
        Cached::new(serde_json::to_vec(&all)?, "application/json", HTML_CACHE),
    ))
}

/// `serde_json::to_vec(recipes)`, and where each recipe's object is in it.
fn json_array(recipes: &[Recipe]) -> Result<(Vec<u8>, Vec<Range<usize>>), SiteError> {
    let mut out = vec![b'['];
    let mut spans = Vec::with_capacity(recipes.len());
    for (n, recipe) in recipes.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        let start = out.len();
        serde_json::to_writer(&mut out, recipe)?;
        spans.push(start..out.len());
    }
    out.push(b']');
    Ok((out, spans))
}

/// The web app manifest: installable, standalone, with PNG icons (any and maskable).
fn manifest(assets: &Assets) -> Result<Vec<u8>, SiteError> {
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
        "icons": [
            icon("icon-192.png", 192, "any"),
            icon("icon-512.png", 512, "any"),
            icon("icon-maskable-512.png", 512, "maskable"),
        ],
    });
    Ok(serde_json::to_vec_pretty(&manifest)?)
}

/// `static/sw.js` preceded by what it must cache and a version that changes whenever the
/// recipes, the list page, the manifest or an asset does: browsers compare `/sw.js` byte for
/// byte, so a new version installs a new worker, which fetches everything afresh.
fn service_worker(assets: &Assets, urls: &Urls, bodies: &[&Cached]) -> Result<Vec<u8>, SiteError> {
    let mut precache = vec![
        "/".to_owned(),
        "/api/recipes".to_owned(),
        "/shelf".to_owned(),
        "/api/ingredients".to_owned(),
        "/manifest.webmanifest".to_owned(),
        urls.css.clone(),
        urls.glasses.clone(),
        urls.icon.clone(),
        urls.apple_touch.clone(),
        assets.url("icon-192.png"),
    ];
    // Every module, not just the entry: offline, the page needs all it imports.
    precache.extend(assets.module_urls());
    let source = assets.source("sw.js").unwrap_or_default();
    let mut fingerprint = precache.join("\n");
    for body in bodies {
        fingerprint.push_str(body.hash());
    }
    fingerprint.push_str(&content_hash(&source));
    let header = format!(
        "const VERSION = {};\nconst PRECACHE = {};\n",
        serde_json::to_string(&content_hash(fingerprint.as_bytes()))?,
        serde_json::to_string(&precache)?
    );
    let mut out = header.into_bytes();
    out.extend_from_slice(&source);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connections::PerRequest;
    use crate::units::Unit;
    use crate::web::cached::per_request;
    use axum::http::header;
    use std::io::Read;

    #[test]
    fn search_json_is_the_serialised_hits() {
        let recipes = Recipes::sample().expect("the sample is valid");
        let site = Site::new(recipes.clone(), &Assets::load()).expect("the site builds");
        let all = serde_json::to_vec(recipes.all()).expect("recipes serialise");
        assert_eq!(site.all_json().bytes().as_ref(), all.as_slice());
        for q in ["", "gin", "lime juice", "base:rum", "zzz", "e"] {
            let query = SearchQuery::parse(q);
            let hits = serde_json::to_vec(&site.search(&query)).expect("hits serialise");
            let (found, len) = site.json_hits(&query);
            let mut copied = Vec::new();
            site.write_json_hits(&found, &mut copied)
                .expect("a Vec takes it");
            assert_eq!(copied, hits, "query {q:?}");
            assert_eq!(len, hits.len(), "query {q:?}");
        }
        let empty = Site::new(
            Recipes::parse(
                "[]",
                crate::recipes::Origin::Embedded,
                std::time::UNIX_EPOCH,
            )
            .expect("an empty list is valid"),
            &Assets::load(),
        )
        .expect("the site builds");
        assert_eq!(empty.all_json().bytes().as_ref(), b"[]");
    }

    /// The sample's recipes many times over, under other ids and names: a collection
    /// whose searches answer with more than [`super::super::answer::STREAM_FROM`] bytes.
    fn large_site(copies: u64) -> Site {
        let sample = Recipes::sample().expect("the sample is valid");
        let mut all = Vec::new();
        for n in 0..copies {
            for r in sample.all() {
                let mut v = serde_json::to_value(r).expect("a recipe serialises");
                v["id"] = serde_json::json!(n * 1000 + r.id);
                v["name"] = serde_json::json!(format!("{} {n}", r.name));
                all.push(v);
            }
        }
        let json = serde_json::to_string(&all).expect("recipes serialise");
        let recipes = Recipes::parse(
            &json,
            crate::recipes::Origin::Embedded,
            std::time::UNIX_EPOCH,
        )
        .expect("the copies are valid");
        Site::new(recipes, &Assets::load()).expect("the site builds")
    }

    async fn decoded(response: Response<Body>) -> Vec<u8> {
        let packed = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("a body");
        let mut text = Vec::new();
        brotli::BrotliDecompress(&mut &packed[..], &mut text).expect("brotli");
        text
    }

    #[tokio::test]
    async fn search_answers_are_kept_per_search_and_coding_and_sent_again_unchanged() {
        let site = large_site(60);
        let br = accept("br");
        for (kind, q) in [(Kind::Page, "gin"), (Kind::Json, "lime")] {
            assert!(site.recent_answer(kind, q, &br).is_none());
            let query = SearchQuery::parse(q);
            let made = match kind {
                Kind::Page => site.search_answer(q, query.clone(), &br),
                Kind::Json => site.search_json_answer(q, &query, &br),
            }
            .expect("an answer");
            let etag = made.headers()[axum::http::header::ETAG].clone();
            let kept = site.recent_answer(kind, q, &br).expect("kept");
            assert_eq!(kept.headers()[axum::http::header::ETAG], etag);
            let (made, kept) = (decoded(made).await, decoded(kept).await);
            assert_eq!(made, kept);
            let whole = match kind {
                Kind::Page => site.render_search(q, query).expect("renders").into_bytes(),
                Kind::Json => serde_json::to_vec(&site.search(&query)).expect("serialises"),
            };
            assert!(
                whole.len() > super::super::answer::STREAM_FROM,
                "{q}: too small a test"
            );
            assert_eq!(kept, whole, "{q}");
            // Another search, another coding or the other kind of answer is not this one.
            assert!(site.recent_answer(kind, "gin lime", &br).is_none());
            assert!(site.recent_answer(kind, q, &accept("gzip")).is_none());
            assert!(site.recent_answer(kind, q, &HeaderMap::new()).is_none());
        }
        assert!(site.recent_answer(Kind::Json, "gin", &br).is_none());
        assert_eq!(site.recent.len(), 2);
        // A new collection starts with none kept.
        assert!(
            large_site(60)
                .recent_answer(Kind::Page, "gin", &br)
                .is_none()
        );
    }

    #[test]
    fn recipe_pages_carry_the_list_as_rendered_alone() {
        let recipes = Recipes::sample().expect("the sample is valid");
        let site = Site::new(recipes.clone(), &Assets::load()).expect("the site builds");
        let alone = render(
            "recipe list",
            &ListBody {
                urls: &site.urls,
                q: "",
                total: recipes.len(),
                rows: recipes.all().iter().map(Row::new).collect(),
                device: Vec::new(),
            },
        )
        .expect("the list renders");
        assert_eq!(site.list_body().expect("the list is in the page"), alone);
        let page = site
            .render_recipe(&recipes.all()[0], AmountView::default(), None)
            .expect("the page renders");
        assert!(page.contains(&alone));
    }

    fn accept(coding: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(coding).unwrap(),
        );
        h
    }

    async fn body(response: Response<Body>) -> Vec<u8> {
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap()
            .to_vec()
    }

    fn decode(coding: &str, packed: &[u8]) -> Vec<u8> {
        let mut text = Vec::new();
        match coding {
            "br" => brotli::BrotliDecompress(&mut &packed[..], &mut text).unwrap(),
            "gzip" => {
                flate2::read::GzDecoder::new(packed)
                    .read_to_end(&mut text)
                    .unwrap();
            }
            _ => text = packed.to_vec(),
        }
        text
    }

    /// `recipes` as JSON: `n` generated recipes, their names starting with `name`.
    fn generated(n: usize, name: &str) -> Recipes {
        let all: Vec<serde_json::Value> = (1..=n)
            .map(|id| {
                serde_json::json!({
                    "id": id,
                    "name": format!("{name} {id}"),
                    "base": ["Gin"],
                    "glass": ["Coupe"],
                    "ingredients": [
                        {"name": "Gin", "measure": "45", "unit": "ml"},
                        {"name": format!("Syrup no. {}", id * 7919 % 1000), "measure": "15", "unit": "ml"}
                    ],
                    "notes": format!("Shake {id} times with ice. See https://example.com/{id}")
                })
            })
            .collect();
        let text = serde_json::to_string(&all).unwrap();
        Recipes::parse(
            &text,
            crate::recipes::Origin::Embedded,
            std::time::UNIX_EPOCH,
        )
        .unwrap()
    }

    /// Every way a recipe page is asked for: amounts as in the file or converted and
    /// scaled, with and without the edit controls (which change the part after the list).
    const VIEWS: [(AmountView, bool); 3] = [
        (
            AmountView {
                unit: None,
                servings: 1,
            },
            false,
        ),
        (
            AmountView {
                unit: Some(Unit::Oz),
                servings: 3,
            },
            false,
        ),
        (
            AmountView {
                unit: None,
                servings: 1,
            },
            true,
        ),
    ];

    fn controls(shown: bool) -> Option<EditControls> {
        shown.then(|| EditControls {
            csrf: "token".into(),
            version: "v1".into(),
            saved: Some(4),
        })
    }

    /// Checks `site`'s answers for `r` for every coding against the whole text and its
    /// ETag; whether the brotli answer was `spliced` around the list compressed once.
    async fn check_answers(site: &Site, r: &Recipe, spliced: bool) {
        for (display, edit) in VIEWS {
            let text = site.render_recipe(r, display, controls(edit)).unwrap();
            for coding in ["br", "gzip", "identity"] {
                let request = accept(coding);
                let whole = per_request(text.clone(), HTML, &request);
                let answer = site
                    .recipe_answer(r, display, controls(edit), &request)
                    .unwrap();
                let what = format!("{} {display:?} {coding}", r.name);
                assert_eq!(
                    answer.headers()[header::ETAG],
                    whole.headers()[header::ETAG],
                    "{what}"
                );
                let was_spliced = answer.extensions().get::<PerRequest>().is_none();
                assert_eq!(was_spliced, spliced && coding == "br", "{what}");
                let length = answer.headers().get(header::CONTENT_LENGTH).cloned();
                let sent = answer.headers().get(header::CONTENT_ENCODING).cloned();
                let packed = body(answer).await;
                if was_spliced {
                    let middle = site.list_middle.get().unwrap().as_ref().unwrap().bytes();
                    assert!(memchr::memmem::find(&packed, middle).is_some(), "{what}");
                    assert!(length.is_none_or(|l| l == packed.len().to_string().as_str()));
                }
                let sent = sent.map(|s| s.to_str().unwrap().to_owned());
                assert_eq!(
                    decode(sent.as_deref().unwrap_or(""), &packed),
                    text.as_bytes(),
                    "{what}"
                );
            }
        }
    }

    #[tokio::test]
    async fn brotli_recipe_pages_are_spliced_around_the_list_once_it_is_compressed() {
        let recipes = Recipes::sample().unwrap();
        let site = Site::new(recipes.clone(), &Assets::load()).unwrap();
        check_answers(&site, &recipes.all()[0], false).await;
        site.compress();
        for r in recipes.all() {
            check_answers(&site, r, true).await;
        }
    }

    #[tokio::test]
    async fn a_list_past_the_streaming_size_is_spliced_too() {
        let recipes = generated(400, "Generated");
        let site = Site::new(recipes.clone(), &Assets::load()).unwrap();
        let list = site.list_body().unwrap().len();
        assert!(
            list > crate::web::answer::STREAM_FROM,
            "list of {list} bytes"
        );
        check_answers(&site, &recipes.all()[7], false).await;
        site.compress_quickly();
        for r in [&recipes.all()[0], &recipes.all()[123], &recipes.all()[399]] {
            check_answers(&site, r, true).await;
        }
    }

    #[tokio::test]
    async fn a_page_holding_the_mark_is_compressed_whole() {
        let recipes = generated(3, &format!("Odd{LIST_MARK}"));
        let site = Site::new(recipes.clone(), &Assets::load()).unwrap();
        site.compress();
        let page = site
            .render_recipe(&recipes.all()[1], AmountView::default(), None)
            .unwrap();
        assert!(
            page.matches(LIST_MARK).count() > 1,
            "the name shows the mark"
        );
        check_answers(&site, &recipes.all()[1], false).await;
    }
}
