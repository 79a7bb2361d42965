//! The bodies rendered once per load: the list page (with where the list alone is in it,
//! for recipe pages), the shelf page and its ingredients, and the JSON of all recipes
//! (with where each recipe is in it, for search answers).

use super::{SiteError, render};
use crate::http::cache_control::REVALIDATE;
use crate::http::fixed::FixedBody;
use crate::ingredients::{self, ShelfIngredient};
use crate::recipes::{Recipe, Recipes};
use crate::view::picker;
use crate::view::templates::{Chrome, ListBody, ListPage, Row, ShelfPage};
use crate::vocabulary::Vocabulary;
use bytes::Bytes;
use std::ops::Range;
use std::sync::Arc;

/// The full list, rendered once: the list page (cached), and where in it the list alone
/// is, which every recipe page shows beside the recipe (kept as a range rather than a
/// second copy: a megabyte or more for thousands of recipes).
pub(super) fn list(
    recipes: &Recipes,
    chrome: Chrome<'_>,
) -> Result<(FixedBody, SharedText, Range<usize>), SiteError> {
    let body = ListBody {
        urls: chrome.urls,
        q: "",
        total: recipes.len(),
        rows: recipes.all().iter().map(Row::new).collect(),
        personal: Vec::new(),
        guesses: Vec::new(),
        misread: None,
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
    let cached = FixedBody::new(
        Bytes::from_owner(text.clone()),
        "text/html; charset=utf-8",
        REVALIDATE,
    );
    Ok((cached, text, start..start + body.len()))
}

/// Text shared between a [`FixedBody`] body (as bytes) and the code that reads it as text,
/// so that recipe pages take the list from the list page without a copy or a UTF-8 check
/// per request.
#[derive(Debug, Clone)]
pub(super) struct SharedText(pub(super) Arc<str>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// What a start-up thread built; its panic, if it had one, goes on here.
pub(super) fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    match handle.join() {
        Ok(built) => built,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// `/shelf` and `/api/ingredients`, and the picker kept for a known person's page (see
/// [`super::Site::shelf_page_ticked`]). Staples are not offered on the page: they never
/// block a recipe.
pub(super) fn shelf(
    recipes: &Recipes,
    chrome: Chrome<'_>,
) -> Result<(FixedBody, FixedBody, Vec<picker::Group>), SiteError> {
    let all: Vec<ShelfIngredient> = ingredients::distinct(recipes);
    let offered: Vec<&ShelfIngredient> = all.iter().filter(|i| !i.staple).collect();
    let groups = picker::groups(Vocabulary::built_in(), &offered);
    let page = render("shelf page", &ShelfPage::new(chrome, &groups, None))?;
    Ok((
        FixedBody::new(page, "text/html; charset=utf-8", REVALIDATE),
        FixedBody::new(serde_json::to_vec(&all)?, "application/json", REVALIDATE),
        groups,
    ))
}

/// A recipe as the list JSON has it: its fields and its `strength`.
#[derive(serde::Serialize)]
pub(super) struct Listed<'a> {
    #[serde(flatten)]
    pub(super) recipe: &'a Recipe,
    pub(super) strength: Option<&'a crate::strength::Strength>,
}

/// The recipes as a JSON list (each with its `strength`), and where each recipe's object
/// is in it.
pub(super) fn json_array(
    recipes: &[Recipe],
    strengths: &crate::strength::Strengths,
) -> Result<(Vec<u8>, Vec<Range<usize>>), SiteError> {
    let mut out = vec![b'['];
    let mut spans = Vec::with_capacity(recipes.len());
    for (n, recipe) in recipes.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        let start = out.len();
        let listed = Listed {
            recipe,
            strength: strengths.at(n),
        };
        serde_json::to_writer(&mut out, &listed)?;
        spans.push(start..out.len());
    }
    out.push(b']');
    Ok((out, spans))
}
