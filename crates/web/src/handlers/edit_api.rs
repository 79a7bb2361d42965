//! The JSON API for changes: `POST /api/recipes` (and `/api/recipes/bulk` for many at
//! once, one change), `PUT` and `DELETE /api/recipes/{id}`
//! (with `If-Match`), `GET /api/changes`, `POST /api/changes/{n}/undo` and
//! `GET /api/recipes/download`. Errors are JSON ([`Api`]), with the fields at fault
//! (`problems`) or both versions (`conflict`).
//!
//! A recipe's version is the ETag `GET /api/recipes/{id}` sends (the hash of its JSON); a
//! change answers with the recipe's new ETag. `If-Match` must carry it as a strong tag
//! ([`if_match`]): anything else is a 412.

use super::params::{ChangeNumber, RecipeId};
use crate::error::{Api, WebError};
use crate::guard::limits::{self, RequestLimits};
use crate::http::cache_control;
use crate::recipes::Submitted;
use crate::store::{Edit, Entry, Names, Saved, Store, version};
use crate::who::change::{change, change_as, store_call};
use crate::who::editing::{self, Editing};
use crate::who::write::{Edits, Write};
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::Arc;

type ApiResult = Result<Response, Api<WebError>>;

/// Takes `"duplicate": true` out of a change's body: the editor wants a recipe of a name
/// the collection already has. Without it a second one is a 409 naming the first.
fn names_asked(body: &mut Value) -> Result<Names, Api<WebError>> {
    let asked = body.as_object_mut().and_then(|o| o.remove("duplicate"));
    match asked {
        None | Some(Value::Bool(false)) => Ok(Names::Unique),
        Some(Value::Bool(true)) => Ok(Names::MayRepeat),
        Some(_) => Err(Api(WebError::Invalid(vec![crate::store::FieldError {
            field: "duplicate".into(),
            message: "expected true (save another recipe of a name already here) or false".into(),
        }]))),
    }
}

/// `POST /api/recipes`: a new recipe; 201 with its address. A name the collection has
/// is a 409 (`duplicates`) unless the body says `"duplicate": true`.
pub(crate) async fn create(
    State(editing): State<Arc<Editing>>,
    Write(editor, _): Write<Edits>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let mut body = read_json(&headers, &body)?;
    let names = names_asked(&mut body)?;
    let draft = submitted(&body, None)?;
    let saved = change_as(&editing, &editor, Edit::Create(draft), names).await?;
    saved_response(StatusCode::CREATED, &saved, None)
}

/// `POST /api/recipes/bulk` `{"recipes": […]}`: new recipes, all saved as one change (one
/// line in the history, one undo); 201 with the recipes as saved and the change. A problem
/// with any recipe refuses them all, each named `recipes[i].field`.
///
/// Admitted (who asks, where from, the rate) before the body is read.
pub(crate) async fn bulk(
    State(editing): State<Arc<Editing>>,
    State(limits): State<RequestLimits>,
    Write(editor, _): Write<Edits>,
    request: Request,
) -> ApiResult {
    let headers = request.headers().clone();
    let read = limits::read(&limits, request)
        .await
        .map_err(WebError::from)?;
    let mut body = read_json(&headers, &read.bytes)?;
    let names = names_asked(&mut body)?;
    let Some(Value::Array(drafts)) = body.get("recipes").cloned() else {
        return Err(Api(WebError::Invalid(vec![crate::store::FieldError {
            field: "recipes".into(),
            message: "expected {\"recipes\": [recipe, …]}, a list of recipes without ids".into(),
        }])));
    };
    let drafts = Submitted::check_many(&drafts).map_err(WebError::Invalid)?;
    let saved = change_as(&editing, &editor, Edit::CreateMany(drafts), names).await?;
    let recipes: Vec<_> = saved
        .entry
        .iter()
        .flat_map(|e| e.parts().map(|(id, _, _)| id).collect::<Vec<_>>())
        .filter_map(|id| saved.recipes.get(id))
        .collect();
    let body = json!({ "recipes": recipes, "change": saved.entry });
    Ok(not_stored(
        (StatusCode::CREATED, Json(body)).into_response(),
    ))
}

/// `PUT /api/recipes/{id}`: replaces a recipe, if it is still at the version in `If-Match`.
pub(crate) async fn update(
    State(editing): State<Arc<Editing>>,
    Api(RecipeId(id)): Api<RecipeId>,
    Write(editor, _): Write<Edits>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let mut draft = read_json(&headers, &body)?;
    let names = names_asked(&mut draft)?;
    let expected = if_match(&headers)?;
    // Checked before the version: a stale and invalid recipe is a 422 with its problems;
    // once they are fixed, a conflict that is still there is a 409.
    let draft = submitted(&draft, Some(id))?;
    let edit = Edit::Update {
        id,
        expected,
        draft,
    };
    let saved = change_as(&editing, &editor, edit, names).await?;
    saved_response(StatusCode::OK, &saved, Some(id))
}

/// `DELETE /api/recipes/{id}`: removes a recipe, if it is still at the version in
/// `If-Match`.
pub(crate) async fn delete(
    State(editing): State<Arc<Editing>>,
    Api(RecipeId(id)): Api<RecipeId>,
    Write(editor, _): Write<Edits>,
    headers: HeaderMap,
) -> ApiResult {
    let expected = if_match(&headers)?;
    let saved = change(&editing, &editor, Edit::Delete { id, expected }).await?;
    saved_response(StatusCode::OK, &saved, Some(id))
}

/// `POST /api/changes/{n}/undo`: undoes change `n`, if its recipe is as that change left it.
pub(crate) async fn undo(
    State(editing): State<Arc<Editing>>,
    Api(ChangeNumber(n)): Api<ChangeNumber>,
    Write(editor, _): Write<Edits>,
    headers: HeaderMap,
) -> ApiResult {
    editing::json_body(&headers, "the recipe")?;
    let saved = change(&editing, &editor, Edit::Undo(n)).await?;
    saved_response(StatusCode::OK, &saved, None)
}

/// `GET /api/changes`: the history, newest first.
pub(crate) async fn changes(State(editing): State<Arc<Editing>>) -> ApiResult {
    let changes: Vec<Entry> = editing.store().map(|s| s.changes()).unwrap_or_default();
    Ok(not_stored(
        Json(json!({ "changes": changes })).into_response(),
    ))
}

/// `GET /api/recipes/download`: the recipes file as it is on disk, to take edits back into
/// a configuration. `?format=jsonld|markdown|bar-assistant`: every recipe served, in that
/// format (editing on or off).
pub(crate) async fn download(
    State(editing): State<Arc<Editing>>,
    State(site): State<Arc<crate::site::Site>>,
    uri: axum::http::Uri,
) -> ApiResult {
    if let Some(format) = super::import::format(uri.query())? {
        let selection = crate::import::Selection::All(site.recipes().all());
        return Ok(super::import::export_response(selection, format)?);
    }
    let Some(store) = editing.store().cloned() else {
        return Err(Api(WebError::NotFound(
            "Editing is off, so there is no edited file to download; /api/recipes has every recipe.".into(),
        )));
    };
    let bytes = store_call(store, Store::download).await?;
    let mut response = (
        [
            (header::CONTENT_TYPE, "application/json"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"recipes.json\"",
            ),
        ],
        bytes,
    )
        .into_response();
    response = not_stored(response);
    Ok(response)
}

/// The request's JSON body, or a 400 that says where it stops being JSON, or a 422 naming
/// each key an object repeats ([`body`]).
fn read_json(headers: &HeaderMap, body: &[u8]) -> Result<Value, WebError> {
    editing::json_body(headers, "the recipe")?;
    let (value, repeats) = crate::strict_json::parse(body).map_err(|e| {
        WebError::BadRequest(format!(
            "The body is not JSON: {} (line {}, column {}).",
            strip_position(&e.to_string()),
            e.line(),
            e.column()
        ))
    })?;
    if repeats.is_empty() {
        Ok(value)
    } else {
        Err(WebError::Invalid(repeats))
    }
}

/// `body` as a recipe to save as recipe `id` (`None`: a new one), or a 422 naming every
/// problem ([`Submitted::check`]).
fn submitted(body: &Value, id: Option<u64>) -> Result<Submitted, WebError> {
    Submitted::check(body, id).map_err(WebError::Invalid)
}

fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

/// The version in `If-Match`: one strong ETag, as `GET /api/recipes/{id}` sends it
/// (`"<hash>"`, or `"<hash>-br"`/`"<hash>-gzip"` as a compressed answer carries it: the same
/// version). If-Match compares strongly (RFC 9110 13.1.1), so a weak tag (`W/"…"`) never
/// matches, and neither does anything that is not a quoted tag (`<hash>` bare, `"<hash>`,
/// `""<hash>""`): each is a 412, not a guess at what was meant. `*` (any version) is
/// refused the same way: a change must say which version it was made from, or it could
/// overwrite one its sender never saw. So is a list: the store checks one version.
/// A well-formed tag that is not the current version is a conflict (409, both versions).
fn if_match(headers: &HeaderMap) -> Result<String, WebError> {
    let value = headers
        .get(header::IF_MATCH)
        .ok_or(WebError::PreconditionRequired)?;
    let tag = value
        .to_str()
        .ok()
        .map(str::trim)
        .and_then(|v| v.strip_prefix('"')?.strip_suffix('"'))
        // etagc: any visible ASCII but `"` (RFC 9110 8.8.3); also no `,`, which would make
        // `"a", "b"` one tag.
        .filter(|t| {
            t.bytes()
                .all(|b| (0x21..0x7f).contains(&b) && b != b'"' && b != b',')
        })
        .ok_or(WebError::PreconditionFailed)?;
    let tag = tag
        .strip_suffix("-br")
        .or_else(|| tag.strip_suffix("-gzip"))
        .unwrap_or(tag);
    Ok(tag.to_owned())
}

/// `{"recipe": …, "change": …}` with the recipe's ETag and, for a new one, its address.
/// `id` names the recipe when the change may have changed nothing (and so has no entry).
fn saved_response(status: StatusCode, saved: &Saved, id: Option<u64>) -> ApiResult {
    let id = saved.entry.as_ref().map(|e| e.id).or(id);
    let recipe = id.and_then(|id| saved.recipes.get(id));
    let body = json!({ "recipe": recipe, "change": saved.entry });
    let mut response = (status, Json(body)).into_response();
    let headers = response.headers_mut();
    if let Some(recipe) = recipe {
        if let Ok(tag) = HeaderValue::from_str(&format!("\"{}\"", version(recipe))) {
            headers.insert(header::ETAG, tag);
        }
        if status == StatusCode::CREATED
            && let Ok(location) = HeaderValue::from_str(&format!("/recipes/{}", recipe.id))
        {
            headers.insert(header::LOCATION, location);
        }
    }
    Ok(not_stored(response))
}

fn not_stored(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, cache_control::private_no_store());
    response
}
