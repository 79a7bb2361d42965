//! A recipe page: the recipe beside the whole list, compressed as it renders, or for a
//! brotli client spliced around the list compressed once.

use super::render::render_compressing;
use super::{HTML, Site, SiteError, render};
use crate::recipes::Recipe;
use crate::units::AmountView;
use crate::web::http::cache_control::REVALIDATE;
use crate::web::http::negotiate::{Encoding, negotiate};
use crate::web::http::representation::{ContentHasher, Representation};
use crate::web::http::spliced;
use crate::web::view::strength::StrengthView;
use crate::web::view::templates::{Amounts, EditControls, RecipePage};
use crate::web::view::{glass, links};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response};

impl Site {
    /// A recipe's page, its amounts shown as `display` asks (`?units=oz&serves=2`).
    #[cfg(test)]
    pub(super) fn render_recipe(
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
        Ok(
            render_compressing("recipe page", &page, self.list_text.0.len(), request)?
                .respond(request),
        )
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
            cache_control: &HeaderValue::from_static(REVALIDATE),
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

/// The content hash ([`crate::web::http::representation::content_hash`]) of `parts` one
/// after another.
fn text_hash(parts: &[&str]) -> String {
    let mut hash = ContentHasher::new();
    for part in parts {
        hash.update(part.as_bytes());
    }
    hash.finish()
}
