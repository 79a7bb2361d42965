//! `/api/me…`: one person's favourites, ratings, notes and "made one" log, for that person
//! only (the person is who the request is from, never a name in the path). JSON in and
//! out; every write is admitted by the one guard (`Write<write::Own>`: a person, the origin,
//! the rate), its body must be JSON, and it reaches the database on a blocking thread and
//! is answered once committed.

use super::params::{RecipeId, find_recipe};
use crate::error::{Api, WebError};
use crate::household::{Household, NoteChange, Person, PersonData};
use crate::http::cache_control;
use crate::http::compress::Effort;
use crate::http::fixed::FixedBody;
use crate::site::Site;
use crate::store::FieldError;
use crate::who::editing;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use crate::who::write::{self, Write};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
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
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<editing::Editing>>,
    visitor: Visitor,
    headers: HeaderMap,
) -> ApiResult {
    if let Some(why) = home.unavailable() {
        return Err(WebError::HouseholdOff(why.to_owned()).into());
    }
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
    let mine = household_call(db, move |db| db.mine(&login)).await?;
    let body = serde_json::to_vec(&mine_json(&person, may_shelf, &mine))?;
    Ok(personal_compressed(body, &headers))
}

/// A person's whole answer grows with what they keep (about 80 KB at 1,000 favourites,
/// ratings and notes), and a phone asks for it on every page: so it is compressed for a
/// client that takes it, and has an ETag, so that the service worker's revalidation is a
/// 304. Still private: only that person's own browser may keep it.
fn personal_compressed(body: Vec<u8>, request: &HeaderMap) -> Response {
    let body = FixedBody::new(body, "application/json", cache_control::PRIVATE_REVALIDATE);
    body.compress_for(request, Effort::Fast);
    let mut response = body.respond(request);
    response
        .extensions_mut()
        .insert(crate::connections::PerRequest);
    response
}

fn mine_json(person: &Person, may_shelf: bool, mine: &PersonData) -> Value {
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

/// A write's body: nothing, or a JSON object of `T`'s fields (unknown ones and keys twice
/// refused, each problem naming its field).
fn body<T: DeserializeOwned + Default>(headers: &HeaderMap, body: &[u8]) -> Result<T, WebError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    editing::json_body(headers, "the change")?;
    super::body::typed(body)
}

/// A write of a person's own, admitted (`Write<write::Own>`: a person, our own pages, the
/// per-person rate) before its body is read, for the recipe in its path.
pub(crate) struct Own {
    db: Arc<Household>,
    person: Person,
    id: u64,
}

impl Own {
    fn of(Write(me, _): Write<write::Own>, Api(RecipeId(id)): Api<RecipeId>) -> Own {
        Own {
            db: me.db,
            person: me.person,
            id,
        }
    }

    /// A new favourite, rating, note or log entry must be for a recipe there is (taking
    /// one away need not: the recipe may have been deleted since).
    fn exists(&self, site: &Site) -> Result<(), WebError> {
        find_recipe(site, self.id).map(|_| ())
    }

    /// Runs `work` on the household for this person and recipe, on a blocking thread.
    async fn run<T: Send + 'static>(
        self,
        work: impl FnOnce(&Household, &Person, u64) -> crate::household::Result<T> + Send + 'static,
    ) -> Result<T, WebError> {
        let Own { db, person, id } = self;
        household_call(db, move |db| work(db, &person, id)).await
    }
}

/// A field the request needs and did not send.
fn needs(field: &str, message: &str) -> WebError {
    WebError::Refused(FieldError {
        field: field.into(),
        message: message.into(),
    })
}

/// `PUT /api/me/favourites/{id}`: a star.
pub(crate) async fn star(
    State(site): State<Arc<Site>>,
    me: Write<write::Own>,
    id: Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let own = Own::of(me, id);
    own.exists(&site)?;
    favourite(own, true, body(&headers, &bytes)?).await
}

/// `DELETE /api/me/favourites/{id}`: the star taken away.
pub(crate) async fn unstar(
    me: Write<write::Own>,
    id: Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let own = Own::of(me, id);
    favourite(own, false, body(&headers, &bytes)?).await
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct When {
    at: Option<i64>,
}

async fn favourite(own: Own, on: bool, when: When) -> ApiResult {
    let id = own.id;
    let t = own
        .run(move |db, who, id| db.set_favourite(who, id, on, when.at))
        .await?;
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
    State(site): State<Arc<Site>>,
    me: Write<write::Own>,
    id: Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let own = Own::of(me, id);
    let sent: Stars = body(&headers, &bytes)?;
    let stars = sent.stars.ok_or_else(|| {
        needs(
            "stars",
            "say how many stars, 1 to 5 (DELETE takes a rating away)",
        )
    })?;
    own.exists(&site)?;
    rating(own, Some(stars), sent.at).await
}

/// `DELETE /api/me/ratings/{id}`.
pub(crate) async fn unrate(
    me: Write<write::Own>,
    id: Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let own = Own::of(me, id);
    let when: When = body(&headers, &bytes)?;
    rating(own, None, when.at).await
}

async fn rating(own: Own, stars: Option<u8>, at: Option<i64>) -> ApiResult {
    let id = own.id;
    let r = own
        .run(move |db, who, id| db.set_rating(who, id, stars, at))
        .await?;
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
    State(site): State<Arc<Site>>,
    me: Write<write::Own>,
    id: Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let own = Own::of(me, id);
    let sent: NoteBody = body(&headers, &bytes)?;
    if sent.text.is_none() {
        return Err(needs(
            "text",
            "the note's text is missing (DELETE takes a note away)",
        )
        .into());
    }
    own.exists(&site)?;
    note(own, sent).await
}

/// `DELETE /api/me/notes/{id}`.
pub(crate) async fn delete_note(
    me: Write<write::Own>,
    id: Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let own = Own::of(me, id);
    let sent: NoteBody = body(&headers, &bytes)?;
    if sent.text.is_some() {
        return Err(WebError::BadRequest(
            "DELETE takes a note away: send no text (PUT changes it).".into(),
        )
        .into());
    }
    note(own, sent).await
}

async fn note(own: Own, sent: NoteBody) -> ApiResult {
    let id = own.id;
    let change = NoteChange {
        text: sent.text,
        was: sent.was,
        settles: sent.settles,
        at: sent.at,
    };
    let n = own
        .run(move |db, who, id| db.set_note(who, id, change))
        .await?;
    Ok(personal(
        json!({"id": id, "text": n.text, "conflicts": n.conflicts, "at": n.at}),
    ))
}

/// `GET /api/me/notes/{id}/replaced`: the texts this person's note on `id` lost, newest
/// first, so that a note changed or deleted by mistake (on any device) can be written back.
/// A read: no origin check or rate, as `GET /api/me`; the recipe may be gone.
pub(crate) async fn replaced_notes(
    State(home): State<Arc<HouseholdDoor>>,
    visitor: Visitor,
    RecipeId(id): RecipeId,
) -> ApiResult {
    let (db, person) = home.person(&visitor)?;
    let login = person.login;
    let replaced = household_call(db, move |db| db.replaced_notes(&login, id)).await?;
    Ok(personal(json!({"id": id, "replaced": replaced})))
}

/// `POST /api/me/made/{id}`: one made, now or at `at`.
pub(crate) async fn made(
    State(site): State<Arc<Site>>,
    me: Write<write::Own>,
    id: Api<RecipeId>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let own = Own::of(me, id);
    let when: When = body(&headers, &bytes)?;
    own.exists(&site)?;
    let id = own.id;
    let at = own
        .run(move |db, who, id| db.add_made(who, id, when.at))
        .await?;
    Ok(personal(json!({"id": id, "at": at})))
}

#[derive(Debug, Deserialize)]
pub(crate) struct At {
    at: Option<i64>,
}

/// `DELETE /api/me/made/{id}?at=MS`: one entry taken back.
pub(crate) async fn unmade(
    me: Write<write::Own>,
    id: Api<RecipeId>,
    query: Result<Query<At>, QueryRejection>,
) -> ApiResult {
    let own = Own::of(me, id);
    let Some(at) = query.ok().and_then(|q| q.0.at) else {
        return Err(WebError::BadRequest(
            "Say which entry: ?at=<its time in milliseconds>.".into(),
        )
        .into());
    };
    let id = own.id;
    if !own
        .run(move |db, who, id| db.remove_made(who, id, at))
        .await?
    {
        return Err(WebError::NotFound(format!(
            "There is no \"made one\" of recipe {id} at {at}."
        ))
        .into());
    }
    Ok(personal(json!({"id": id, "at": at, "removed": true})))
}
