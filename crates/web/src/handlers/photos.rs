//! Photos of recipes (issue #44): `POST /api/recipes/{id}/photos` (the image itself as the
//! body, whatever its `Content-Type` says: the bytes are sniffed), `GET` of the same (the
//! recipe's photos, cover first), `GET /api/recipes/{id}/photos/gone` (its deleted ones
//! the visitor may restore), `DELETE /api/recipes/{id}/photos/{photo}`, `POST
//! /api/recipes/{id}/photos/{photo}/restore` (a deleted one back, within 30 days), `PUT
//! /api/recipes/{id}/photos/{photo}/cover`, every recipe's cover (`GET
//! /api/photos/covers`), and the files, `GET /photos/{hash}.jpg` and
//! `{hash}.thumb.jpg`, named by their content and so cached for good.
//!
//! Who may: a known person adds photos to any recipe and takes away (and restores) their
//! own ([`Own`]); an editor takes away and restores any, and chooses the cover
//! ([`Covers`]). Unknown visitors see them. A deleted photo's files stay while it may be
//! restored, served only to whoever may restore it.

use super::household::personal;
use super::params::{PhotoPath, RecipeId, find_recipe};
use crate::error::{Api, WebError};
use crate::guard::limits::{self, RequestLimits};
use crate::household::{Household, HouseholdError, Person, Photo};
use crate::http::cache_control::IMMUTABLE;
use crate::site::Site;
use crate::view::photos::{large_url, thumb_url};
use crate::who::editing::Editing;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use crate::who::write::{Covers, Own, Resident, Write};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use libations_photos::{PhotoStore, Variant};
use serde_json::{Value, json};
use std::sync::Arc;

type ApiResult = Result<Response, Api<WebError>>;

/// A photo as the API shows it: its files' addresses, not their hash alone.
pub(crate) fn shown(photo: &Photo) -> Value {
    json!({
        "id": photo.id,
        "url": large_url(&photo.hash),
        "thumb_url": thumb_url(&photo.hash),
        "width": photo.width,
        "height": photo.height,
        "by": photo.by,
        "cover": photo.cover,
    })
}

/// `GET /api/recipes/{id}/photos`: the recipe's photos, the cover first; none where the
/// app keeps no household (a read, answered as such, so a page need not ask first).
pub(crate) async fn list(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    Api(RecipeId(id)): Api<RecipeId>,
) -> ApiResult {
    find_recipe(&site, id)?;
    if let Some(why) = home.unavailable() {
        return Err(WebError::HouseholdOff(why.to_owned()).into());
    }
    let Some(db) = home.db().cloned() else {
        return Ok(personal(Value::Array(Vec::new())));
    };
    let photos = household_call(db, move |db| db.photos(id)).await?;
    Ok(personal(Value::Array(photos.iter().map(shown).collect())))
}

/// `GET /api/recipes/{id}/photos/gone`: the recipe's deleted photos the visitor may
/// restore (their own; an editor's, all), the one deleted last first, each as the list
/// shows a photo with when (`gone_at`) and by whom (`gone_by`) it went. The same rule as
/// the recipe's page ("Recently deleted photos"); `[]` for a visitor the household does
/// not know, and where it keeps no photos (a read, answered as such, as the list is).
pub(crate) async fn gone(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
    Api(RecipeId(id)): Api<RecipeId>,
) -> ApiResult {
    find_recipe(&site, id)?;
    if let Some(why) = home.unavailable() {
        return Err(WebError::HouseholdOff(why.to_owned()).into());
    }
    let (Ok((db, person)), Ok(_)) = (home.person(&visitor), home.photos()) else {
        return Ok(personal(Value::Array(Vec::new())));
    };
    let any = home.keeper(&visitor, &editing).is_ok();
    let gone = household_call(db, move |db| db.gone_photos(&person, any, id)).await?;
    let listed = gone.iter().map(|g| {
        let mut photo = shown(&g.photo);
        photo["gone_at"] = json!(g.gone_at);
        photo["gone_by"] = json!(g.gone_by);
        photo
    });
    Ok(personal(Value::Array(listed.collect())))
}

/// `GET /api/photos/covers`: every recipe's cover, `{"<recipe id>": "<thumbnail's
/// address>"}`, for the list's thumbnails (a setting of the device's): one request for
/// the whole list, never one per row. `{}` where the app keeps no household.
pub(crate) async fn covers(State(home): State<Arc<HouseholdDoor>>) -> ApiResult {
    if let Some(why) = home.unavailable() {
        return Err(WebError::HouseholdOff(why.to_owned()).into());
    }
    let Some(db) = home.db().cloned() else {
        return Ok(personal(json!({})));
    };
    let covers = household_call(db, |db| db.covers()).await?;
    let by_recipe: serde_json::Map<String, Value> = covers
        .iter()
        .map(|p| (p.recipe.to_string(), Value::String(thumb_url(&p.hash))))
        .collect();
    Ok(personal(Value::Object(by_recipe)))
}

/// `POST /api/recipes/{id}/photos`: the body made into a photo (step by step in
/// `libations_photos`), its files written durably, then its row; 201 with the photo.
pub(crate) async fn add(
    State(site): State<Arc<Site>>,
    State(home): State<Arc<HouseholdDoor>>,
    State(limits): State<RequestLimits>,
    Api(RecipeId(id)): Api<RecipeId>,
    Write(resident, _): Write<Own>,
    request: Request,
) -> ApiResult {
    find_recipe(&site, id)?;
    home.photos()?;
    let body = limits::read(&limits, request)
        .await
        .map_err(WebError::from)?;
    let photo = keep(&home, id, resident, body.bytes.clone()).await?;
    drop(body);
    let mut response = personal(shown(&photo));
    *response.status_mut() = StatusCode::CREATED;
    Ok(response)
}

/// The one way a photo is taken, once its bytes are read (the API's body, the form's
/// field): made (off the runtime), its files written durably, then its row; should the
/// row be refused, its files go at once.
pub(crate) async fn keep(
    home: &HouseholdDoor,
    id: u64,
    Resident { db, person, .. }: Resident,
    bytes: axum::body::Bytes,
) -> Result<Photo, WebError> {
    let room = home.photos()?;
    let stored = room.make(bytes).await?;
    let hash = stored.hash.clone();
    let added = household_call(db.clone(), move |db| {
        db.add_photo(&person, id, &stored.hash, (stored.width, stored.height))
    })
    .await;
    match added {
        Ok(photo) => Ok(photo),
        Err(e) => {
            // Refused (the cap) or not saved: files no row names go now, not at the next start.
            forget_unnamed(&db, room.store(), hash).await;
            Err(e)
        }
    }
}

/// Removes the files of `hash` if no photo row names them.
async fn forget_unnamed(db: &Arc<crate::household::Household>, store: &PhotoStore, hash: String) {
    let db = db.clone();
    let store = store.clone();
    let _ = household_call(db, move |db| {
        if !db.photo_hashes()?.contains(&hash)
            && let Err(e) = store.remove(&hash)
        {
            tracing::warn!("photo files {hash} could not be removed: {e}");
        }
        Ok(())
    })
    .await;
}

/// `DELETE /api/recipes/{id}/photos/{photo}`: the person's own, or any for an editor;
/// restorable for 30 days (its files stay).
pub(crate) async fn delete(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    Api(PhotoPath(id, photo)): Api<PhotoPath>,
    Write(resident, _): Write<Own>,
) -> ApiResult {
    take_away(&home, &editing, resident, id, photo).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The one way a photo is taken away (the API's DELETE, the page's form): the person's
/// own, or any for an editor. Its row is kept, restorable, and its files with it.
pub(crate) async fn take_away(
    home: &HouseholdDoor,
    editing: &Editing,
    resident: Resident,
    id: u64,
    photo: i64,
) -> Result<Photo, WebError> {
    as_owner(home, editing, resident, move |db, person, any| {
        db.delete_photo(person, any, id, photo)
    })
    .await
}

/// `POST /api/recipes/{id}/photos/{photo}/restore`: a deleted photo back, under its own
/// id; 201 with the photo, as adding one answers.
pub(crate) async fn restore(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    Api(PhotoPath(id, photo)): Api<PhotoPath>,
    Write(resident, _): Write<Own>,
) -> ApiResult {
    let photo = bring_back(&home, &editing, resident, id, photo).await?;
    let mut response = personal(shown(&photo));
    *response.status_mut() = StatusCode::CREATED;
    Ok(response)
}

/// The one way a deleted photo is restored (the API's POST, the page's form): whoever
/// could have deleted it (its adder, or an editor), within the recipe's and household's
/// caps, its files still there.
pub(crate) async fn bring_back(
    home: &HouseholdDoor,
    editing: &Editing,
    resident: Resident,
    id: u64,
    photo: i64,
) -> Result<Photo, WebError> {
    as_owner(home, editing, resident, move |db, person, any| {
        db.restore_photo(person, any, id, photo)
    })
    .await
}

/// Runs `change` on the household as `resident`, with `any` when they may edit recipes
/// (an editor takes away and restores anyone's photo; a person only their own).
async fn as_owner(
    home: &HouseholdDoor,
    editing: &Editing,
    resident: Resident,
    change: impl FnOnce(&Household, &Person, bool) -> Result<Photo, HouseholdError> + Send + 'static,
) -> Result<Photo, WebError> {
    let Resident {
        db,
        person,
        visitor,
    } = resident;
    home.photos()?;
    let any = home.keeper(&visitor, editing).is_ok();
    household_call(db, move |db| change(db, &person, any)).await
}

/// `PUT /api/recipes/{id}/photos/{photo}/cover`: an editor chooses the cover.
pub(crate) async fn cover(
    Api(PhotoPath(id, photo)): Api<PhotoPath>,
    Write(resident, _): Write<Covers>,
) -> ApiResult {
    let photo = make_cover(resident, id, photo).await?;
    Ok(personal(shown(&photo)))
}

/// The one way a cover is chosen (the API's PUT, the page's form).
pub(crate) async fn make_cover(
    Resident { db, person, .. }: Resident,
    id: u64,
    photo: i64,
) -> Result<Photo, WebError> {
    household_call(db, move |db| db.set_cover(&person, id, photo)).await
}

/// `GET /photos/{name}`: a photo's file; its name is its content's, so it never changes.
/// Served while a photo names it; a deleted photo's, only to whoever may restore it.
pub(crate) async fn file(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
    Path(name): Path<String>,
) -> Result<Response, WebError> {
    let (hash, variant) = PhotoStore::parse_name(&name).ok_or_else(no_photo)?;
    let db = home.required().map_err(|_| no_photo())?;
    let login = home.person(&visitor).ok().map(|(_, person)| person.login);
    let any = login.is_some() && home.keeper(&visitor, &editing).is_ok();
    let asked = hash.clone();
    let shown = household_call(db, move |db| {
        db.may_see_photo_file(&asked, login.as_deref(), any)
    })
    .await?;
    if !shown {
        return Err(no_photo());
    }
    jpeg(&home, &hash, variant).await
}

/// The 404 of an address that names no photo.
pub(crate) fn no_photo() -> WebError {
    WebError::NotFound("There is no photo at this address.".into())
}

/// The file `variant` of photo `hash`, as an answer cached for good.
pub(crate) async fn jpeg(
    home: &HouseholdDoor,
    hash: &str,
    variant: Variant,
) -> Result<Response, WebError> {
    let room = home.photos().map_err(|_| no_photo())?;
    let bytes = match tokio::fs::read(room.store().path(hash, variant)).await {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(no_photo()),
        Err(e) => return Err(WebError::Household(format!("photo {hash}: {e}"))),
    };
    let mut response = bytes.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/jpeg"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    Ok(response)
}
