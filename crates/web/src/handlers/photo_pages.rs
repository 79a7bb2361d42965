//! A recipe's photos without JavaScript (issue #44): a photo's own page, `GET
//! /recipes/{id}/photos/{photo}` (large, with Delete and "Make cover" for whoever may),
//! and the plain forms: `POST /recipes/{id}/photos` (multipart, one file field `photo`
//! and the page's `csrf`), `…/{photo}/delete` (asks first: a confirm page, then
//! `confirm=yes`; back to the recipe saying "Photo deleted." with an Undo),
//! `…/{photo}/restore` (a deleted one back) and `…/{photo}/cover`. Each answers with a
//! redirect (303) back to the recipe, or a page naming the problem with a link back.
//!
//! Why a file apart from the API's (`photos`): the same rules and code path once the bytes
//! are read ([`photos::keep`], [`photos::take_away`], [`photos::bring_back`],
//! [`photos::make_cover`]); only the body's shape and the answer differ.

use super::params::{PhotoPath, RecipeId, find_recipe};
use super::photos;
use crate::error::WebError;
use crate::guard::limits::{self, BodyError, RequestLimits};
use crate::household::Photo;
use crate::http::cache_control::private_no_store;
use crate::site::Site;
use crate::store::FieldError;
use crate::view::form::{Fields, field};
use crate::view::photo_pages::{PhotoPage, PhotoRefused};
use crate::view::photos::{PhotoLink, PhotoRights};
use crate::who::editing::Editing;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use crate::who::write::{Covers, Own, Write};
use axum::Form;
use axum::body::Bytes;
use axum::extract::rejection::FormRejection;
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Redirect, Response};
use std::sync::Arc;

/// `GET /recipes/{id}/photos/{photo}`: the photo large, and its buttons for whoever may.
pub(crate) async fn page(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
    PhotoPath(id, photo): PhotoPath,
) -> Result<Response, WebError> {
    let name = find_recipe(&site, id)?.name.clone();
    let photo = find_photo(&home, id, photo).await?;
    let shown = Shown {
        site: &site,
        home: &home,
        editing: &editing,
        visitor: &visitor,
    };
    shown.page(id, &name, &photo, false)
}

/// What rendering a photo's page needs.
struct Shown<'a> {
    site: &'a Site,
    home: &'a HouseholdDoor,
    editing: &'a Editing,
    visitor: &'a Visitor,
}

impl Shown<'_> {
    /// The photo's page, or (`confirming`) the question before deleting it.
    fn page(
        &self,
        id: u64,
        name: &str,
        photo: &Photo,
        confirming: bool,
    ) -> Result<Response, WebError> {
        let editor = self.home.keeper(self.visitor, self.editing).is_ok();
        let own = self
            .home
            .person(self.visitor)
            .is_ok_and(|(_, person)| person.login == photo.by);
        let page = PhotoPage {
            chrome: self.site.chrome("").at("recipes"),
            recipe: id,
            name,
            photo: PhotoLink::from(photo),
            is_cover: photo.cover,
            rights: PhotoRights {
                delete: own || editor,
                cover: editor,
            },
            csrf: self.home.photo_form_token(self.visitor).unwrap_or_default(),
            confirming,
        };
        let html = crate::site::render("photo page", &page)?;
        let mut response = Html(html).into_response();
        // It carries this visitor's buttons and token.
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, private_no_store());
        Ok(response)
    }
}

/// A form whose photo is over the limit, refused as the photo rules say it (the photo's
/// size, at most 25 MiB): the form's body is the photo and a few lines around it.
fn too_large_photo(e: BodyError, announced: Option<u64>) -> WebError {
    match e {
        BodyError::TooLarge(limit) => {
            let size = announced.map_or(limit.saturating_add(1), |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            });
            libations_photos::PhotoError::TooLarge(size).into()
        }
        e => e.into(),
    }
}

/// Photo `photo` of recipe `id`, or a 404 saying there is none.
async fn find_photo(home: &HouseholdDoor, id: u64, photo: i64) -> Result<Photo, WebError> {
    let db = home.required()?;
    let photos = household_call(db, move |db| db.photos(id)).await?;
    photos
        .into_iter()
        .find(|p| p.id == photo)
        .ok_or_else(|| WebError::NotFound(format!("Recipe {id} has no photo {photo}.")))
}

/// `POST /recipes/{id}/photos`: the form's photo, taken as the API takes one
/// ([`photos::keep`]); back to the recipe (303), or a page saying why not.
pub(crate) async fn add(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    State(limits): State<RequestLimits>,
    RecipeId(id): RecipeId,
    Write(resident, _): Write<Own>,
    request: Request,
) -> Result<Response, WebError> {
    let sent = async {
        home.photos()?;
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let announced = limits::declared(&request);
        let body = limits::read(&limits, request)
            .await
            .map_err(|e| too_large_photo(e, announced))?;
        let form = PhotoForm::read(&content_type, body.bytes.clone()).await?;
        home.check_form(&resident.visitor, &form.csrf)?;
        let kept = photos::keep(&home, id, resident, form.photo).await;
        drop(body);
        kept.map(|_| back(id))
    };
    answered(&site, id, sent).await
}

/// `POST /recipes/{id}/photos/{photo}/delete`: without `confirm=yes`, the page asking
/// first; with it, the photo taken away as the API does ([`photos::take_away`]).
pub(crate) async fn delete(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    PhotoPath(id, photo): PhotoPath,
    Write(resident, _): Write<Own>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    let fields = form.map(|Form(f)| f).unwrap_or_default();
    let done = async {
        home.check_form(&resident.visitor, field(&fields, "csrf"))?;
        if field(&fields, "confirm") != "yes" {
            let name = &find_recipe(&site, id)?.name;
            let visitor = resident.visitor.clone();
            let shown = Shown {
                site: &site,
                home: &home,
                editing: &editing,
                visitor: &visitor,
            };
            return shown.page(id, name, &find_photo(&home, id, photo).await?, true);
        }
        photos::take_away(&home, &editing, resident, id, photo).await?;
        // Back to the recipe, which says so with an Undo (`?photo_deleted=`).
        Ok(Redirect::to(&format!("/recipes/{id}?photo_deleted={photo}")).into_response())
    };
    answered(&site, id, done).await
}

/// `POST /recipes/{id}/photos/{photo}/restore`: a deleted photo back, as the API does
/// ([`photos::bring_back`]); back to the recipe.
pub(crate) async fn restore(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    PhotoPath(id, photo): PhotoPath,
    Write(resident, _): Write<Own>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    let fields = form.map(|Form(f)| f).unwrap_or_default();
    let done = async {
        home.check_form(&resident.visitor, field(&fields, "csrf"))?;
        photos::bring_back(&home, &editing, resident, id, photo).await?;
        Ok(back(id))
    };
    answered(&site, id, done).await
}

/// `POST /recipes/{id}/photos/{photo}/cover`: an editor makes it the cover.
pub(crate) async fn cover(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    PhotoPath(id, photo): PhotoPath,
    Write(resident, _): Write<Covers>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    let fields = form.map(|Form(f)| f).unwrap_or_default();
    let done = async {
        home.check_form(&resident.visitor, field(&fields, "csrf"))?;
        photos::make_cover(resident, id, photo).await?;
        Ok(back(id))
    };
    answered(&site, id, done).await
}

/// A photo form's answer on recipe `id`: `done`'s, or a page naming why not with the way
/// back ([`refused`]). A recipe the collection has not is a 404 before `done` starts.
async fn answered(
    site: &Site,
    id: u64,
    done: impl Future<Output = Result<Response, WebError>>,
) -> Result<Response, WebError> {
    let name = &find_recipe(site, id)?.name;
    Ok(done.await.unwrap_or_else(|e| refused(site, id, name, e)))
}

/// Back to the recipe, to be asked for (303: a GET, whatever the form's method).
fn back(id: u64) -> Response {
    Redirect::to(&format!("/recipes/{id}")).into_response()
}

/// `e` as a page naming the problem, with the way back to recipe `id`.
fn refused(site: &Site, id: u64, name: &str, e: WebError) -> Response {
    e.into_own_page(|title, message| {
        crate::site::render(
            "photo refused page",
            &PhotoRefused {
                chrome: site.chrome("").at("recipes"),
                title,
                message: message.to_owned(),
                recipe: id,
                name,
            },
        )
    })
}

/// The upload form's fields: its token and its photo.
struct PhotoForm {
    csrf: String,
    photo: Bytes,
}

impl PhotoForm {
    /// The fields of a `multipart/form-data` body (already read, within the photo's
    /// limit); a field of another name is no field of ours and is passed over.
    async fn read(content_type: &str, body: Bytes) -> Result<PhotoForm, WebError> {
        let boundary = multer::parse_boundary(content_type).map_err(|_| {
            WebError::UnsupportedMediaType(
                "The photo form sends multipart/form-data (its field \u{201c}photo\u{201d}); \
                 this request sent something else."
                    .into(),
            )
        })?;
        let broken = |e: multer::Error| {
            WebError::BadRequest(format!("The form's body is not well-formed: {e}."))
        };
        let mut fields =
            multer::Multipart::new(axum::body::Body::from(body).into_data_stream(), boundary);
        let (mut csrf, mut photo) = (String::new(), Bytes::new());
        while let Some(part) = fields.next_field().await.map_err(broken)? {
            match part.name() {
                Some("csrf") => csrf = part.text().await.map_err(broken)?,
                Some("photo") => photo = part.bytes().await.map_err(broken)?,
                _ => {}
            }
        }
        if photo.is_empty() {
            return Err(WebError::Refused(FieldError {
                field: "photo".into(),
                message: "no photo was chosen (choose or take one, then send it)".into(),
            }));
        }
        Ok(PhotoForm { csrf, photo })
    }
}
