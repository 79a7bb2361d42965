//! Handlers for the HTML pages: the list and its searches, a recipe, and the pages for
//! addresses and methods we do not serve. Errors answer as the site's error page.

use super::params::{Amounts, RecipeId, Search, find_recipe};
use crate::connections::Share;
use crate::error::WebError;
use crate::guard::gate::HeavyGate;
use crate::guard::limits::is_api;
use crate::household::Asking;
use crate::http::cache_control;
use crate::http::recent::Kind;
use crate::site::Site;
use crate::view::photos::RecipePhotos;
use crate::view::templates::{EditControls, EditOn};
use crate::who::editing::Editing;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, FromRef, FromRequestParts, Query, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::response::Response;
use std::convert::Infallible;
use std::sync::Arc;

/// `/`: the whole list, rendered at load; `/?q=…`: a search's, rendered per request.
/// Personal terms (`is:fav`, `can:make`, …) are answered from the household for a person
/// the tailnet names; such an answer is never kept for the next asker.
pub(crate) async fn index(
    State(site): State<Arc<Site>>,
    State(heavy): State<HeavyGate>,
    State(home): State<Arc<HouseholdDoor>>,
    share: Option<Extension<Share>>,
    visitor: Visitor,
    search: Search,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    let Search::Matching { text, query } = search else {
        return Ok(site.list_page().respond(&headers));
    };
    if Site::is_kept(&query)
        && let Some(kept) = site.recent_answer(Kind::Page, &text, &headers)
    {
        return Ok(kept);
    }
    let asking = home.asking(&visitor, &query).await?;
    let cost = site.search_cost(&query);
    gated_page(&heavy, cost, share, site, headers, move |site, headers| {
        let mine = asking.as_ref().map(Asking::as_asker);
        Ok(site.search_answer(&text, query, mine.as_ref(), headers)?)
    })
    .await
}

/// `/recipes/{id}`. A recipe's page carries the whole list beside the recipe (for wide
/// screens without JavaScript): with thousands of recipes that is a megabyte to render and
/// compress per request, so it runs behind the same gate as searches.
pub(crate) async fn recipe(
    RecipeState {
        site,
        heavy,
        editing,
        home,
    }: RecipeState,
    share: Option<Extension<Share>>,
    visitor: Visitor,
    RecipeId(id): RecipeId,
    Amounts(display): Amounts,
    after: Result<Query<AfterSave>, QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, WebError> {
    let cost = site.recipes().len();
    let editor = editing.editor(&visitor).ok();
    let off = editing.off_for(&visitor);
    let deleted = after.as_ref().ok().and_then(|Query(a)| a.photo_deleted);
    let photos = recipe_photos(&home, &editing, &visitor, id, deleted).await;
    let editing_shown = editor.is_some() || off.is_some();
    // The photo form carries this person's token: kept for them alone (under its tag).
    let personal = editing_shown || photos.csrf.is_some();
    let kept = match editing_shown {
        false => site.kept_recipe_page(id, display, photos.tag(), &headers),
        true => None,
    };
    if let Some(mut kept) = kept {
        if personal {
            kept.headers_mut().insert(
                axum::http::header::CACHE_CONTROL,
                cache_control::private_revalidate(),
            );
        }
        return Ok(kept);
    }
    let saved = after.ok().and_then(|Query(a)| a.saved);
    let mut page = gated_page(&heavy, cost, share, site, headers, move |site, headers| {
        let r = find_recipe(site, id)?;
        let controls = match (editor, off) {
            (Some(e), _) => Some(EditControls::On(EditOn {
                csrf: e.token,
                version: crate::store::version(r),
                saved,
            })),
            (None, off) => off.map(EditControls::Off),
        };
        Ok(site.recipe_answer_with(r, display, controls, photos, headers)?)
    })
    .await?;
    if personal {
        // The page carries this person's form token, or says why they cannot edit:
        // nobody else's cache may keep it.
        page.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            cache_control::private_revalidate(),
        );
    }
    Ok(page)
}

/// Recipe `id`'s photos, and the upload form's token for a person the household knows;
/// for them, the deleted photos they may restore, and `deleted` (`?photo_deleted=`, the
/// one the form just took away) said with its Undo. Without a household (or should it
/// fail to answer) the page shows none: the recipe is served all the same.
async fn recipe_photos(
    home: &HouseholdDoor,
    editing: &Editing,
    visitor: &Visitor,
    id: u64,
    deleted: Option<i64>,
) -> RecipePhotos {
    let Some(db) = home.db().cloned().filter(|_| home.photos().is_ok()) else {
        return RecipePhotos::default();
    };
    let restorer = home.person(visitor).ok().map(|(_, person)| person);
    let any = restorer.is_some() && home.keeper(visitor, editing).is_ok();
    let read = household_call(db, move |db| {
        let gone = match &restorer {
            Some(person) => db.gone_photos(person, any, id)?,
            None => Vec::new(),
        };
        Ok((db.photos(id)?, gone))
    })
    .await;
    let (photos, gone) = read.unwrap_or_else(|e| {
        tracing::warn!("recipe {id}'s photos could not be read: {e}");
        (Vec::new(), Vec::new())
    });
    let gone: Vec<_> = gone.into_iter().map(|g| g.photo).collect();
    RecipePhotos::new(&photos, home.photo_form_token(visitor)).with_gone(&gone, deleted)
}

/// The parts of the state a recipe page needs: the site, the gate, the editing
/// permission (for its edit controls) and the household (for its photos).
pub(crate) struct RecipeState {
    site: Arc<Site>,
    heavy: HeavyGate,
    editing: Arc<Editing>,
    home: Arc<HouseholdDoor>,
}

impl<S> FromRequestParts<S> for RecipeState
where
    S: Send + Sync,
    Arc<Site>: FromRef<S>,
    HeavyGate: FromRef<S>,
    Arc<Editing>: FromRef<S>,
    Arc<HouseholdDoor>: FromRef<S>,
{
    type Rejection = Infallible;

    async fn from_request_parts(_: &mut Parts, state: &S) -> Result<RecipeState, Infallible> {
        Ok(RecipeState {
            site: Arc::<Site>::from_ref(state),
            heavy: HeavyGate::from_ref(state),
            editing: Arc::<Editing>::from_ref(state),
            home: Arc::<HouseholdDoor>::from_ref(state),
        })
    }
}

/// `?saved=n` after a save: the page offers to undo change `n`; `?photo_deleted=n`
/// after a photo was deleted: the page offers to restore it.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct AfterSave {
    saved: Option<u64>,
    /// The photo the no-JavaScript form just deleted: said, with its Undo.
    photo_deleted: Option<i64>,
}

/// An HTML page rendered per request through the gate ([`HeavyGate::run`]), compressed for
/// the request.
async fn gated_page(
    heavy: &HeavyGate,
    cost: usize,
    share: Option<Extension<Share>>,
    site: Arc<Site>,
    headers: HeaderMap,
    render: impl FnOnce(&Site, &HeaderMap) -> Result<Response, WebError> + Send + 'static,
) -> Result<Response, WebError> {
    heavy
        .run(cost, share.as_deref(), move || render(&site, &headers))
        .await?
}

/// Any address no route serves.
pub(crate) async fn not_found(uri: axum::http::Uri) -> WebError {
    if is_api(uri.path()) {
        WebError::NotFound("The API has nothing at this address.".into())
    } else {
        WebError::NotFound("There is no page at this address.".into())
    }
}

/// What a route takes, as its 405's `Allow` lists it: the router's route layer finds it in
/// the router's table and leaves it on the request for [`method_not_allowed`].
#[derive(Debug, Clone)]
pub(crate) struct Allowed(pub(crate) axum::http::HeaderValue);

/// A route asked with a method it has no handler for; `Allow` is set by the router
/// ([`Allowed`]), and the message says the same.
pub(crate) async fn method_not_allowed(
    method: axum::http::Method,
    allowed: Option<Extension<Allowed>>,
) -> WebError {
    let takes = allowed
        .as_ref()
        .and_then(|Extension(Allowed(v))| v.to_str().ok())
        .unwrap_or_default();
    WebError::MethodNotAllowed(if takes.is_empty() {
        "This address takes no method while the app is read-only: start it with \
         --allow-edits to add and edit recipes."
            .to_owned()
    } else {
        format!("This address takes {takes}, not {method}.")
    })
}
