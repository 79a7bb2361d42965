//! A recipe page: the recipe beside the whole list, compressed as it renders, or for a
//! brotli client spliced around the list compressed once (and kept, bounded, per
//! collection).

use super::render::render_compressing;
use super::{HTML, Site, SiteError, render};
use crate::http::cache_control::REVALIDATE;
use crate::http::compressing::Compressing;
use crate::http::negotiate::{Encoding, negotiate};
use crate::http::representation::{ContentHasher, Representation};
use crate::http::spliced::{self, Pieces};
use crate::recipes::Recipe;
use crate::units::AmountView;
use crate::view::photos::RecipePhotos;
use crate::view::strength::StrengthView;
use crate::view::templates::{Amounts, EditControls, RecipePage};
use crate::view::{glass, links};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response};
use std::io::Write;
use std::sync::Arc;

impl Site {
    /// A recipe's page, its amounts shown as `display` asks (`?units=oz&serves=2`).
    #[cfg(test)]
    pub(super) fn render_recipe(
        &self,
        r: &Recipe,
        display: AmountView,
        edit: Option<EditControls>,
    ) -> Result<String, SiteError> {
        let photos = RecipePhotos::default();
        render("recipe page", &self.recipe_view(r, display, edit, photos)?)
    }

    /// [`Site::recipe_answer_with`] without photos.
    #[cfg(test)]
    pub(crate) fn recipe_answer(
        &self,
        r: &Recipe,
        display: AmountView,
        edit: Option<EditControls>,
        request: &HeaderMap,
    ) -> Result<Response<Body>, SiteError> {
        self.recipe_answer_with(r, display, edit, RecipePhotos::default(), request)
    }

    /// [`Site::render_recipe`] as the answer to `request`.
    ///
    /// The page is rendered with [`LIST_MARK`] for the list: its own head and tail, a few
    /// kilobytes. Its ETag is made of the parts' hashes ([`Site::recipe_hash`]), the same for
    /// every coding, so the list (a megabyte or more) is never hashed per request. A brotli
    /// client gets the head and tail spliced around the list compressed once ([`spliced`]);
    /// a page without edit controls is then kept ([`RecipePages`]) for the next asker with
    /// the same units and servings. Other clients get the same text compressed as it is
    /// written. A page is kept under its photos' tag too ([`RecipePhotos::tag`]): photos
    /// change without the recipe changing, and the photo form carries the person's token.
    pub(crate) fn recipe_answer_with(
        &self,
        r: &Recipe,
        display: AmountView,
        edit: Option<EditControls>,
        photos: RecipePhotos,
        request: &HeaderMap,
    ) -> Result<Response<Body>, SiteError> {
        // Edit controls carry the editor's form token: such a page is never kept.
        let key = edit.is_none().then_some((r.id, display, photos.tag()));
        let middle = match self.list_middle.get() {
            Some(Some(middle)) if negotiate(request) == Encoding::Brotli => Some(middle),
            _ => None,
        };
        if middle.is_some()
            && let Some(kept) = key.and_then(|key| self.recipe_pages.get(&key))
        {
            return Ok(kept.respond(request));
        }
        let mut page = self.recipe_view(r, display, edit, photos)?;
        let list = std::mem::replace(&mut page.list, LIST_MARK);
        let marked = render("recipe page", &page);
        page.list = list;
        let marked = marked?;
        let Some((head, tail)) = split_at_mark(&marked) else {
            // A recipe holding the mark itself: the whole text, hashed whole.
            return Ok(
                render_compressing("recipe page", &page, self.list_text.0.len(), request)?
                    .respond(request),
            );
        };
        let hash = self.recipe_hash(head, tail);
        if let Some(middle) = middle
            && let Some(pieces) = spliced::splice(head.as_bytes(), middle, tail.as_bytes())
        {
            let kept = KeptPage { hash, pieces };
            let response = kept.respond(request);
            if let Some(key) = key {
                self.recipe_pages.keep(key, kept);
            }
            return Ok(response);
        }
        let representation = Representation {
            hash: &hash,
            content_type: &HeaderValue::from_static(HTML),
            cache_control: &HeaderValue::from_static(REVALIDATE),
            encoding: negotiate(request),
        };
        if representation.names(request) {
            return Ok(representation.respond_with(Body::empty(), request));
        }
        let mut body = Compressing::with_hash(request, self.list_text.0.len(), hash);
        for part in [head, list, tail] {
            body.write_all(part.as_bytes())?;
        }
        Ok(body.finish(HTML, request)?.respond(request))
    }

    /// A recipe page's content hash, of its parts: its own head and tail (the recipe, the
    /// units and servings it is shown in, the edit controls, the site's chrome) and the
    /// list's hash (the list page's, made once per collection: the list page holds the
    /// list, so it changes whenever the list does). The same for every coding; a different
    /// rule from hashing the joined text, so it is written once, here.
    pub(super) fn recipe_hash(&self, head: &str, tail: &str) -> String {
        let mut hash = ContentHasher::new();
        hash.update(b"recipe page\0");
        hash.update(&(head.len() as u64).to_le_bytes());
        hash.update(head.as_bytes());
        hash.update(self.list_page.hash().as_bytes());
        hash.update(b"\0");
        hash.update(tail.as_bytes());
        hash.finish()
    }

    /// The kept page of recipe `id` for `display` and photos tagged `photos`
    /// ([`RecipePhotos::tag`]) without edit controls, if a brotli
    /// client asks and one is kept: sent without rendering anything, so the handler asks
    /// before the heavy-work gate (as for searches).
    pub(crate) fn kept_recipe_page(
        &self,
        id: u64,
        display: AmountView,
        photos: u64,
        request: &HeaderMap,
    ) -> Option<Response<Body>> {
        if negotiate(request) != Encoding::Brotli {
            return None;
        }
        Some(
            self.recipe_pages
                .get(&(id, display, photos))?
                .respond(request),
        )
    }

    fn recipe_view<'a>(
        &'a self,
        r: &'a Recipe,
        display: AmountView,
        edit: Option<EditControls>,
        photos: RecipePhotos,
    ) -> Result<RecipePage<'a>, SiteError> {
        Ok(RecipePage {
            photos,
            edit,
            chrome: self.chrome("").at("recipes"),
            r,
            icon: glass::icon(&r.glass),
            amounts: Amounts::new(r, display),
            strength: match self.strengths.of_id(r.id) {
                Some(s) => StrengthView::new(r, s, display.servings),
                None => StrengthView::new(
                    r,
                    &crate::strength::of(
                        r,
                        crate::strength::table::Table::built_in(),
                        &Default::default(),
                    )
                    .0,
                    display.servings,
                ),
            },
            notes: links::note_parts(&r.notes),
            list: self.list_body()?,
        })
    }

    /// The full list without the page around it, as it sits inside the list page.
    pub(super) fn list_body(&self) -> Result<&str, SiteError> {
        (self.list_text.0)
            .get(self.list_body.clone())
            .ok_or(SiteError::ListNotInPage)
    }
}

/// Stands for the list while a recipe page is rendered to be spliced: a private-use
/// character and NULs, which no page holds otherwise (and one that does is not split:
/// see [`split_at_mark`]).
pub(super) const LIST_MARK: &str = "\u{F8FF}\0list\0\u{F8FF}";

/// `text` before and after its [`LIST_MARK`], or `None` unless it holds the mark once.
fn split_at_mark(text: &str) -> Option<(&str, &str)> {
    let (head, tail) = text.split_once(LIST_MARK)?;
    (!tail.contains(LIST_MARK)).then_some((head, tail))
}

/// Bytes of spliced recipe pages kept per collection: their own heads and tails (a few
/// kilobytes each; the list between them is shared), a few hundred pages.
pub(crate) const RECIPE_PAGES_BUDGET: u64 = 1 << 20;

/// A brotli recipe page as sent: its hash and its pieces.
#[derive(Debug)]
struct KeptPage {
    hash: String,
    pieces: Pieces,
}

impl KeptPage {
    fn respond(&self, request: &HeaderMap) -> Response<Body> {
        let representation = Representation {
            hash: &self.hash,
            content_type: &HeaderValue::from_static(HTML),
            cache_control: &HeaderValue::from_static(REVALIDATE),
            encoding: Encoding::Brotli,
        };
        representation.respond_with(Body::new(self.pieces.clone()), request)
    }
}

/// A recipe, the display asked for, and its photos' tag ([`RecipePhotos::tag`]).
type PageKey = (u64, AmountView, u64);

#[derive(Debug, Clone)]
struct ByOwnSize;

impl quick_cache::Weighter<PageKey, Arc<KeptPage>> for ByOwnSize {
    fn weight(&self, _: &PageKey, page: &Arc<KeptPage>) -> u64 {
        (page.pieces.own_len() + page.hash.len() + 32) as u64
    }
}

/// The brotli recipe pages of one collection asked for lately, without edit controls, by
/// recipe, display and photos: bounded by [`RECIPE_PAGES_BUDGET`], the least useful evicted first.
/// Made afresh with the collection ([`Site::new`]), so a save empties it.
pub(crate) struct RecipePages(quick_cache::sync::Cache<PageKey, Arc<KeptPage>, ByOwnSize>);

impl std::fmt::Debug for RecipePages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecipePages")
            .field("pages", &self.0.len())
            .field("bytes", &self.0.weight())
            .finish()
    }
}

impl RecipePages {
    pub(crate) fn new() -> RecipePages {
        RecipePages(quick_cache::sync::Cache::with_weighter(
            256,
            RECIPE_PAGES_BUDGET,
            ByOwnSize,
        ))
    }

    fn get(&self, key: &PageKey) -> Option<Arc<KeptPage>> {
        self.0.get(key)
    }

    fn keep(&self, key: PageKey, page: KeptPage) {
        self.0.insert(key, Arc::new(page));
    }

    /// How many pages are kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}
