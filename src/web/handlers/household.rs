//! `/api/me…`: one person's favourites, ratings, notes and "made one" log, for that person
//! only (the person is who the request is from, never a name in the path). JSON in and
//! out; every write passes the same checks (a person, the origin, JSON, the rate) before
//! it reaches the database on a blocking thread, and is answered once committed.

use super::params::{RecipeId, find_recipe};
use crate::household::{Household, Mine, NoteChange, Person};
use crate::web::error::{Api, WebError};
use crate::web::http::cache_control;
use crate::web::site::Site;
use crate::web::who::editing::{self, Provenance};
use crate::web::who::home::{Home, on_blocking};
use crate::web::who::visitor::Visitor;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::sync::Arc;

type ApiResult = Result<Response, Api<WebError>>;

/// A per-person answer: never kept by a shared cache; the page's service worker keeps its
/// own copy for offline use.
pub(crate) fn personal(body: Value) -> Response {
    let mut response = Json(body).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, cache_control::private_revalidate());
    response
}

/// `GET /api/me`: what is the visitor's, or (login null) why nothing follows them.
pub(crate) async fn me(
    State(home): State<Arc<Home>>,
    State(editing): State<Arc<editing::Editing>>,
    visitor: Visitor,
) -> ApiResult {
    let may_shelf = home.may_shelf(&visitor, &editing);
    let (db, person) = match home.person(&visitor) {
        Ok(known) => known,
        Err(why) => {
            return Ok(personal(json!({
                "login": null, "name": null, "why": why.to_string(), "may_shelf": false,
                "favourites": [], "ratings": {}, "notes": {}, "note_conflicts": {}, "made": [],
            })));
        }
    };
    let login = person.login.clone();
    let mine = on_blocking(db, move |db| db.mine(&login)).await?;
    Ok(personal(mine_json(&person, may_shelf, &mine)))
}

fn mine_json(person: &Person, may_shelf: bool, mine: &Mine) -> Value {
    let made: Vec<Value> = mine
        .made
        .iter()
        .map(|(id, at)| json!({"id": id, "at": at}))
        .collect();
    json!({
        "login": person.login, "name": person.name, "why": null, "may_shelf": may_shelf,
        "favourites": mine.favourites, "ratings": mine.ratings, "notes": mine.notes,
        "note_conflicts": mine.note_conflicts, "made": made,
    })
}

/// A write's body: nothing, or a JSON object of `T`'s fields (unknown ones refused, each
/// problem naming its field).
fn body<T: DeserializeOwned + Default>(headers: &HeaderMap, body: &[u8]) -> Result<T, WebError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    editing::json_body(headers)?;
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| WebError::BadRequest(format!("The body is not JSON: {e}.")))?;
    if !value.is_object() {
        return Err(WebError::BadRequest(
            "The body must be a JSON object.".into(),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        WebError::Refused(crate::store::FieldError {
            field: e.path().to_string(),
            message: e.into_inner().to_string(),
        })
    })
}

/// The checks every write of a person's own passes, in order: who, from where, how often.
fn writer(
    home: &Home,
    visitor: &Visitor,
    from: &Provenance,
) -> Result<(Arc<Household>, Person), WebError> {
    let (db, person) = home.person(visitor)?;
    from.check()?;
    home.take_write(&person)?;
    Ok((db, person))
}

/// A new favourite, rating or note must be for a recipe there is (taking one away need
/// not: the recipe may have been deleted since).
fn exists(site: &Site, id: u64) -> Result<(), WebError> {
    find_recipe(site, id).map(|_| ())
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct When {
    at: Option<i64>,
}

/// `PUT /api/me/favourites/{id}`: a star.
pub(crate) async fn star(
    State(home): State<Arc<Home>>,
    State(site): State<Arc<Site>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    favourite(
        &home,
        Some(&site),
        &visitor,
        &from,
        id,
        true,
        &headers,
        &bytes,
    )
    .await
}

/// `DELETE /api/me/favourites/{id}`: the star taken away.
pub(crate) async fn unstar(
    State(home): State<Arc<Home>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    favourite(&home, None, &visitor, &from, id, false, &headers, &bytes).await
}

#[allow(clippy::too_many_arguments)]
async fn favourite(
    home: &Home,
    site: Option<&Site>,
    visitor: &Visitor,
    from: &Provenance,
    id: u64,
    on: bool,
    headers: &HeaderMap,
    bytes: &[u8],
) -> ApiResult {
    let (db, person) = writer(home, visitor, from)?;
    let when: When = body(headers, bytes)?;
    if let Some(site) = site {
        exists(site, id)?;
    }
    let t = on_blocking(db, move |db| db.set_favourite(&person, id, on, when.at)).await?;
    Ok(personal(
        json!({"id": id, "favourite": t.on, "at": t.at, "applied": t.applied}),
    ))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Stars {
    stars: Option<u8>,
    at: Option<i64>,
}

/// `PUT /api/me/ratings/{id}` `{"stars": 1..5}`.
pub(crate) async fn rate(
    State(home): State<Arc<Home>>,
    State(site): State<Arc<Site>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let (db, person) = writer(&home, &visitor, &from)?;
    let sent: Stars = body(&headers, &bytes)?;
    let Some(stars) = sent.stars else {
        return Err(WebError::Refused(crate::store::FieldError {
            field: "stars".into(),
            message: "say how many stars, 1 to 5 (DELETE takes a rating away)".into(),
        })
        .into());
    };
    exists(&site, id)?;
    let r = on_blocking(db, move |db| {
        db.set_rating(&person, id, Some(stars), sent.at)
    })
    .await?;
    Ok(personal(
        json!({"id": id, "stars": r.stars, "at": r.at, "applied": r.applied}),
    ))
}

/// `DELETE /api/me/ratings/{id}`.
pub(crate) async fn unrate(
    State(home): State<Arc<Home>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let (db, person) = writer(&home, &visitor, &from)?;
    let when: When = body(&headers, &bytes)?;
    let r = on_blocking(db, move |db| db.set_rating(&person, id, None, when.at)).await?;
    Ok(personal(
        json!({"id": id, "stars": r.stars, "at": r.at, "applied": r.applied}),
    ))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoteBody {
    text: Option<String>,
    /// Absent: the change is taken as it is; `null`: written over no note.
    #[serde(default, deserialize_with = "present")]
    was: Option<Option<String>>,
    #[serde(default)]
    settles: Vec<String>,
    at: Option<i64>,
}

/// Tells a `null` that is there (`Some(None)`) from a field that is not (`None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// `PUT /api/me/notes/{id}` `{"text", "was", "settles"}`.
pub(crate) async fn write_note(
    State(home): State<Arc<Home>>,
    State(site): State<Arc<Site>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let (db, person) = writer(&home, &visitor, &from)?;
    let sent: NoteBody = body(&headers, &bytes)?;
    let Some(text) = sent.text else {
        return Err(WebError::Refused(crate::store::FieldError {
            field: "text".into(),
            message: "the note's text is missing (DELETE takes a note away)".into(),
        })
        .into());
    };
    exists(&site, id)?;
    let change = NoteChange {
        text: Some(text),
        was: sent.was,
        settles: sent.settles,
        at: sent.at,
    };
    note(db, person, id, change).await
}

/// `DELETE /api/me/notes/{id}`.
pub(crate) async fn delete_note(
    State(home): State<Arc<Home>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let (db, person) = writer(&home, &visitor, &from)?;
    let sent: NoteBody = body(&headers, &bytes)?;
    if sent.text.is_some() {
        return Err(WebError::BadRequest(
            "DELETE takes a note away: send no text (PUT changes it).".into(),
        )
        .into());
    }
    let change = NoteChange {
        text: None,
        was: sent.was,
        settles: sent.settles,
        at: sent.at,
    };
    note(db, person, id, change).await
}

async fn note(db: Arc<Household>, person: Person, id: u64, change: NoteChange) -> ApiResult {
    let n = on_blocking(db, move |db| db.set_note(&person, id, change)).await?;
    Ok(personal(
        json!({"id": id, "text": n.text, "conflicts": n.conflicts, "at": n.at}),
    ))
}

/// `POST /api/me/made/{id}`: one made, now or at `at`.
pub(crate) async fn made(
    State(home): State<Arc<Home>>,
    State(site): State<Arc<Site>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let (db, person) = writer(&home, &visitor, &from)?;
    let when: When = body(&headers, &bytes)?;
    exists(&site, id)?;
    let at = on_blocking(db, move |db| db.add_made(&person, id, when.at)).await?;
    Ok(personal(json!({"id": id, "at": at})))
}

#[derive(Debug, Deserialize)]
pub(crate) struct At {
    at: Option<i64>,
}

/// `DELETE /api/me/made/{id}?at=MS`: one entry taken back.
pub(crate) async fn unmade(
    State(home): State<Arc<Home>>,
    visitor: Visitor,
    from: Provenance,
    Api(RecipeId(id)): Api<RecipeId>,
    query: Result<Query<At>, axum::extract::rejection::QueryRejection>,
) -> ApiResult {
    let (db, person) = writer(&home, &visitor, &from)?;
    let Some(at) = query.ok().and_then(|q| q.0.at) else {
        return Err(WebError::BadRequest(
            "Say which entry: ?at=<its time in milliseconds>.".into(),
        )
        .into());
    };
    let removed = on_blocking(db, move |db| db.remove_made(&person, id, at)).await?;
    if !removed {
        return Err(WebError::NotFound(format!(
            "There is no \"made one\" of recipe {id} at {at}."
        ))
        .into());
    }
    Ok(personal(json!({"id": id, "at": at, "removed": true})))
}
