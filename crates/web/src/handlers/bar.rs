//! `/api/bar`: the household's shelf, its own rules, and what they make (`can_make`,
//! `missing_one`, the best next bottles), and changing them (people granted the shelf). `/api/household/…`: the
//! whole household as a backup file, and loading one back (editors).

use super::household::personal;
use crate::error::{Api, WebError};
use crate::guard::limits::{self, RequestLimits};
use crate::household::{Backup, Household, RuleChange};
use crate::site::{Publisher, Site};
use crate::who::editing::{self, Editing};
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use crate::who::write::{Resident, Restore, Shelf, Write};
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use std::sync::Arc;

type ApiResult = Result<Response, Api<WebError>>;

/// `GET /api/bar`: the shelf and what it makes. Anyone the household has a door for sees
/// it (the shelf is the home's, not private); `may_change` says whether they may tick.
pub(crate) async fn bar(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    State(site): State<Arc<Site>>,
    visitor: Visitor,
) -> ApiResult {
    let db = home.required()?;
    let may_change = home.may_shelf(&visitor, &editing);
    answer(db, site, may_change).await
}

async fn answer(db: Arc<Household>, site: Arc<Site>, may_change: bool) -> ApiResult {
    let (shelf, rules) = household_call(db, |db| Ok((db.shelf()?, db.rules()?))).await?;
    let shelf_set = shelf.iter().cloned().collect();
    let analysis = crate::makes::analyse(site.needs(), &shelf_set, &rules);
    let mut body = serde_json::to_value(analysis)?;
    body["shelf"] = json!(shelf);
    body["rules"] = json!(rules);
    body["may_change"] = json!(may_change);
    Ok(personal(body))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShelfChange {
    #[serde(default)]
    have: Vec<String>,
    #[serde(default)]
    out: Vec<String>,
    at: Option<i64>,
}

/// `PUT /api/bar/shelf` `{"have": [names], "out": [names]}`: answered as `GET /api/bar`.
pub(crate) async fn change_shelf(
    State(site): State<Arc<Site>>,
    Write(Resident { db, person, .. }, _): Write<Shelf>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    editing::json_body(&headers, "the shelf's change")?;
    let change: ShelfChange = super::body::typed(&bytes)?;
    let writer = db.clone();
    household_call(writer, move |db| {
        db.change_shelf(&person, &change.have, &change.out, change.at)
    })
    .await?;
    answer(db, site, true).await
}

/// `PUT /api/bar/rules` `{"have": name, "wanted": name, "on": bool, "at": ms}`: adds (or,
/// `"on": false`, takes back) one of the household's rules; answered as `GET /api/bar`.
pub(crate) async fn change_rule(
    State(site): State<Arc<Site>>,
    Write(Resident { db, person, .. }, _): Write<Shelf>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    editing::json_body(&headers, "the rule's change")?;
    let change: RuleChange = super::body::typed(&bytes)?;
    let writer = db.clone();
    household_call(writer, move |db| db.change_rule(&person, &change)).await?;
    answer(db, site, true).await
}

/// What a download asks for: `?photos=1`, the archive with the photos' files. Other keys
/// are ignored, as they were before there was one (a cache-buster keeps working).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct DownloadQuery {
    photos: Option<u8>,
}

/// `GET /api/household/download`: everything, as a backup file (photo rows included, not
/// their images); with `?photos=1` the household archive, a zip with the images too.
pub(crate) async fn download(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
    query: Result<Query<DownloadQuery>, QueryRejection>,
) -> ApiResult {
    let (db, _) = home.keeper(&visitor, &editing)?;
    let photos = match query {
        Ok(Query(DownloadQuery {
            photos: None | Some(0),
        })) => false,
        Ok(Query(DownloadQuery { photos: Some(1) })) => true,
        _ => {
            return Err(WebError::BadRequest(
                "photos: say ?photos=1 for the archive with the photos, or nothing for the JSON file."
                    .into(),
            )
            .into());
        }
    };
    let store = match photos {
        true => Some(home.photos()?.store().clone()),
        false => None,
    };
    let backup = household_call(db, |db| db.export()).await?;
    if let Some(store) = store {
        return Ok(super::household_archive::answer(&backup, store)?);
    }
    let mut response = personal(serde_json::to_value(&backup)?);
    response.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"libations-household.json\""),
    );
    Ok(response)
}

/// `POST /api/household/upload`: a backup merged in (all of it or nothing). Admitted (who
/// asks, where from, the rate) and its content type checked before the body is read.
pub(crate) async fn upload(
    State(publisher): State<Publisher>,
    State(limits): State<RequestLimits>,
    State(home): State<Arc<HouseholdDoor>>,
    Write(Resident { db, .. }, _): Write<Restore>,
    request: Request,
) -> ApiResult {
    refuse_archive(request.headers())?;
    editing::json_body(request.headers(), "the backup")?;
    let body = limits::read(&limits, request)
        .await
        .map_err(WebError::from)?;
    if body.bytes.starts_with(b"PK\x03\x04") {
        return Err(archive_refused().into());
    }
    let mut backup = Backup::from_slice(&body.bytes).map_err(WebError::from)?;
    let recipes = publisher.site().load().recipes().clone();
    let store = home.photos().ok().map(|room| room.store().clone());
    let (taken, table) = household_call(db, move |db| {
        let highest = highest_id_ever(&recipes)?;
        // A row is taken only with its files: the JSON file carries none.
        let left_out =
            backup.keep_photos_with_files(|hash| store.as_ref().is_some_and(|s| s.has(hash)));
        let mut taken = db.import(&backup, highest)?;
        taken.photos_without_files = left_out;
        // The household's strengths may have changed: every figure is worked out again.
        let table = match taken.strengths > 0 {
            true => Some(db.strength_table()?),
            false => None,
        };
        Ok((taken, table))
    })
    .await?;
    if let Some(table) = table {
        publisher.strengths(table).await?;
    }
    Ok(personal(serde_json::to_value(&taken)?).into_response())
}

/// The household archive (a zip with the photos, often hundreds of MiB) is past what
/// the upload takes in one request: it is loaded with the command line.
fn archive_refused() -> WebError {
    WebError::UnsupportedMediaType(
        "The upload takes the backup file (libations-household.json), not the archive with \
         photos: load the .zip with `libations import-household FILE.zip --state-dir DIR` on \
         the machine that runs Libations."
            .into(),
    )
}

/// Refuses a body that says it is a zip before it is read.
fn refuse_archive(headers: &HeaderMap) -> Result<(), WebError> {
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match kind.contains("zip") {
        true => Err(archive_refused()),
        false => Ok(()),
    }
}

/// The highest recipe id the collection ever had ([`crate::store::highest_id_ever`]); a
/// journal that cannot be read is the household's refusal, naming it.
pub fn highest_id_ever(recipes: &crate::recipes::Recipes) -> crate::household::Result<u64> {
    crate::store::highest_id_ever(recipes)
        .map_err(|e| crate::household::HouseholdError::refused("(recipes)", e.to_string()))
}

/// `GET /api/bar/strengths`: the household's own ingredient strengths, which win over the
/// built-in table (README, "How strong is it?"), and whether this visitor may change them.
pub(crate) async fn strengths(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
) -> ApiResult {
    let db = home.required()?;
    let may_change = home.may_shelf(&visitor, &editing);
    strengths_answer(db, may_change).await
}

async fn strengths_answer(db: Arc<Household>, may_change: bool) -> ApiResult {
    let own = household_call(db, |db| db.strengths()).await?;
    Ok(personal(
        json!({"strengths": own, "may_change": may_change}),
    ))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StrengthChange {
    name: String,
    /// % ABV; `null` takes the household's figure back. It must be there: a change that
    /// forgot it must not take a figure back unasked.
    #[serde(deserialize_with = "said")]
    abv: Option<f64>,
    at: Option<i64>,
}

/// A field that must be present, `null` included (serde reads a missing `Option` as
/// `None`): the change says it, or is refused naming the field.
fn said<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(d)
}

/// `PUT /api/bar/strengths` `{"name": "Overproof Rum", "abv": 63}` (`"abv": null` takes it
/// back): by those who keep the shelf. Every recipe's strength is worked out again with it
/// (once, a new site), then answered as the GET.
pub(crate) async fn change_strength(
    State(publisher): State<Publisher>,
    Write(Resident { db, person, .. }, _): Write<Shelf>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    editing::json_body(&headers, "the strength")?;
    let change: StrengthChange = super::body::typed(&bytes)?;
    let writer = db.clone();
    let table = household_call(writer, move |db| {
        db.set_strength(&person, &change.name, change.abv, change.at)?;
        db.strength_table()
    })
    .await?;
    publisher.strengths(table).await?;
    strengths_answer(db, true).await
}
