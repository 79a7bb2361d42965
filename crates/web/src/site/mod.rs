//! Everything derived from one loaded collection: the search index, the pre-rendered list
//! page and the JSON of all recipes. Built once per load; requests only read it.

//!
//! Why a room of its own: everything a page shows is made from the collection, once per
//! load where it can be (the list, the JSON, the shelf, the service worker) and per request
//! where it cannot (searches, recipe pages); the handlers only pick which. It uses only
//! [`crate::view`] (what the templates are given) and [`crate::http`] (how bodies
//! are sent), never a handler.
//!
//! - this file: [`Site`], [`SiteError`], building a site and compressing it.
//! - [`prebuilt`]: the bodies rendered once (the list page, the shelf, the JSON of all
//!   recipes).
//! - [`search`]: search answers, HTML and JSON, kept for the next asker.
//! - [`recipe_page`]: a recipe page, spliced around the list compressed once for brotli.
//! - [`pwa`]: the web app manifest and the service worker.
//! - [`mod@render`]: rendering a template whole, or compressed as it renders; the error page.
//! - [`assets`]: [`Assets`], the embedded static files under hashed names.

mod prebuilt;
mod publish;
mod pwa;
mod recipe_page;
mod render;
mod search;

mod assets;
#[cfg(test)]
mod tests;

pub use assets::Assets;
pub use publish::{PublishError, Publisher};
pub(crate) use render::render;

use crate::http::cache_control::REVALIDATE;
use crate::http::compress::Effort;
use crate::http::fixed::FixedBody;
use crate::http::recent::Recent;
use crate::http::spliced::Middle;
use crate::recipes::Recipes;
use crate::search::Index;
use crate::strength::{Household, Strengths};
use crate::view::templates::{Chrome, Footer, GuestUrls, Urls};
use prebuilt::{SharedText, joined, json_array, list, shelf};
use pwa::{manifest, service_worker};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

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
    Compressing(#[from] std::io::Error),
}

/// A loaded collection and everything rendered from it.
#[derive(Debug)]
pub struct Site {
    recipes: Recipes,
    index: Index,
    /// Every recipe's strength, worked out once with the index ([`crate::strength`]).
    strengths: Strengths,
    /// The household's own strengths they were worked out with: a site made again from
    /// this one (a reload, a save) keeps them unless they are what changed.
    own_strengths: Arc<Household>,
    urls: Urls,
    footer: Footer,
    list_page: FixedBody,
    /// The list page's text, the same allocation as `list_page`'s body.
    list_text: SharedText,
    /// Where the full list without the page around it is in `list_text`, for recipe
    /// pages ([`crate::view::templates::ListBody`]).
    list_body: Range<usize>,
    /// The list compressed once, for recipe pages spliced around it
    /// ([`crate::http::spliced`]): unset until [`Site::compress`] or
    /// [`Site::compress_quickly`] has made it, `None` if it could not be made. Until then
    /// recipe pages are compressed whole, per request.
    list_middle: OnceLock<Option<Middle>>,
    all_json: FixedBody,
    shelf_page: FixedBody,
    ingredients_json: FixedBody,
    /// My bar's picker, for a known person's page with the household's shelf ticked.
    shelf_groups: Vec<crate::view::picker::Group>,
    /// Where each recipe's object is in `all_json`, in `Recipes::all()` order: a search
    /// answers with copies of these instead of serialising its hits again.
    json_spans: Vec<Range<usize>>,
    service_worker: FixedBody,
    manifest: FixedBody,
    /// Answers to recent searches, kept compressed.
    recent: Recent,
    /// Brotli recipe pages asked for lately, kept spliced.
    recipe_pages: recipe_page::RecipePages,
}

impl Site {
    /// Renders the full list page and the API's JSON once. Compression is left to
    /// [`Site::compress`], so that start-up is not held up by it.
    pub fn new(
        recipes: Recipes,
        assets: &Assets,
        own_strengths: Arc<Household>,
    ) -> Result<Site, SiteError> {
        let urls = Urls {
            css: assets.url("app.css"),
            js: assets.url("js/app.js"),
            glasses: assets.url("glasses.svg"),
            icon: assets.url("icon.svg"),
            apple_touch: assets.url("apple-touch-icon.png"),
            menu_css: assets.url("menu.css"),
            guest: GuestUrls {
                css: assets.guest_url("app.css"),
                menu_css: assets.guest_url("menu.css"),
                js: assets.guest_url("js/menu.js"),
                glasses: assets.guest_url("glasses.svg"),
                icon: assets.guest_url("icon.svg"),
            },
        };
        let footer = Footer::new(&recipes);
        let chrome = Chrome {
            urls: &urls,
            footer: &footer,
            q: "",
            here: "recipes",
        };
        // The index, the JSON and the shelf do not depend on the list page: build them on
        // other threads while this one renders the list (start-up for thousands of recipes).
        let (index, strengths, all_json, shelf, list) = std::thread::scope(|scope| {
            let side = scope.spawn(|| {
                let strengths = Strengths::new(&recipes, &own_strengths);
                let index = Index::with_strengths(&recipes, &strengths);
                let json = json_array(recipes.all(), &strengths).map(|(json, spans)| {
                    (FixedBody::new(json, "application/json", REVALIDATE), spans)
                });
                (index, strengths, json)
            });
            let shelf_job = scope.spawn(|| shelf(&recipes, chrome));
            let list = list(&recipes, chrome);
            let (index, strengths, json) = joined(side);
            (index, strengths, json, joined(shelf_job), list)
        });
        let (list_page, list_text, list_body) = list?;
        let (shelf_page, ingredients_json, shelf_groups) = shelf?;
        let (all_json, json_spans) = all_json?;
        let manifest = FixedBody::new(manifest(assets)?, "application/manifest+json", REVALIDATE);
        let bodies = [
            &list_page,
            &all_json,
            &shelf_page,
            &ingredients_json,
            &manifest,
        ];
        let service_worker = FixedBody::new(
            service_worker(assets, &urls, &bodies)?,
            "text/javascript; charset=utf-8",
            REVALIDATE,
        );
        Ok(Site {
            recipes,
            index,
            strengths,
            own_strengths,
            urls,
            footer,
            list_page,
            list_text,
            list_body,
            list_middle: OnceLock::new(),
            all_json,
            shelf_page,
            ingredients_json,
            shelf_groups,
            json_spans,
            service_worker,
            manifest,
            recent: Recent::new(),
            recipe_pages: recipe_page::RecipePages::new(),
        })
    }

    /// Compresses the pre-rendered bodies (slow for thousands of recipes: run it off the
    /// request path, e.g. in `spawn_blocking`), at the best effort in a release build.
    ///
    /// A debug build takes [`Site::compress_quickly`]'s effort instead: every HTTP and
    /// browser test starts one (about a thousand starts in CI), and quality 11 was most of
    /// a start's CPU (the sample 0.28 s against 0.13, bar-assistant 1.13 s against 0.27).
    /// The bodies decode to the same bytes; the unit tests compress at the best effort
    /// by name.
    pub fn compress(&self) {
        self.compress_with(if cfg!(debug_assertions) {
            Effort::Fast
        } else {
            Effort::Best
        });
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

    pub fn recipes(&self) -> &Recipes {
        &self.recipes
    }

    /// Every recipe's strength ([`crate::strength`]).
    pub(crate) fn strengths(&self) -> &Strengths {
        &self.strengths
    }

    /// The household's own strengths this site was worked out with.
    pub fn own_strengths(&self) -> &Arc<Household> {
        &self.own_strengths
    }

    /// What each recipe needs from a shelf (read once, with the index).
    pub(crate) fn needs(&self) -> &crate::makes::Needs {
        self.index.needs()
    }

    pub(crate) fn list_page(&self) -> &FixedBody {
        &self.list_page
    }

    pub(crate) fn all_json(&self) -> &FixedBody {
        &self.all_json
    }

    /// `/shelf`: units, the ingredients to tick, export and import.
    pub(crate) fn shelf_page(&self) -> &FixedBody {
        &self.shelf_page
    }

    /// `/shelf` for a known person: the household's shelf (`names`, as stored) ticked in
    /// the page, so that it shows without JavaScript; rendered per request.
    pub(crate) fn shelf_page_ticked(
        &self,
        names: &std::collections::BTreeSet<String>,
    ) -> Result<String, SiteError> {
        let ticked =
            crate::view::picker::Ticked::of(crate::vocabulary::Vocabulary::built_in(), names);
        let page = crate::view::templates::ShelfPage::new(
            self.chrome(""),
            &self.shelf_groups,
            Some(ticked),
        );
        render("shelf page", &page)
    }

    /// `/api/ingredients`: every distinct ingredient (see [`crate::ingredients`]).
    pub(crate) fn ingredients_json(&self) -> &FixedBody {
        &self.ingredients_json
    }

    /// `/sw.js`: the service worker, with this build's and this collection's version.
    pub(crate) fn service_worker(&self) -> &FixedBody {
        &self.service_worker
    }

    /// `/manifest.webmanifest`: what an installed app is called and looks like.
    pub(crate) fn manifest(&self) -> &FixedBody {
        &self.manifest
    }

    /// The asset URLs (content-hashed), for a page that does without the site's chrome.
    pub(crate) fn urls(&self) -> &Urls {
        &self.urls
    }

    /// What every page shows around its own part, with `q` in the search box.
    pub(crate) fn chrome<'a>(&'a self, q: &'a str) -> Chrome<'a> {
        Chrome {
            urls: &self.urls,
            footer: &self.footer,
            q,
            here: "",
        }
    }
}
