//! `/api/menus…`: composing the guests' menus and switching one on (people granted
//! `{"menu": true}` or `{"edit": true}`, and `--editor` logins); the guests' side is
//! [`super::guest`]. Writes are admitted by the one guard (`Write<Menus>`: a person with
//! the grant, our own origin, the per-person rate) before the body is read, which must be
//! JSON; a refusal names the field. docs/MENU.md has the API.

use super::household::personal;
use crate::error::{Api, WebError};
use crate::handlers::params::MenuId;
use crate::household::{Menu, MenuDraft};
use crate::site::Site;
use crate::store::FieldError;
use crate::who::editing::{self, Editing};
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use crate::who::write::{Menus, Resident, Write};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::sync::Arc;

type ApiResult = Result<Response, Api<WebError>>;

/// `GET /api/menus`: the menus, and whether the visitor may change them. A person (whom
/// the household has a door for) may ask, anyone else gets 403 with why; who may compose
/// gets every menu, anyone else only the one that is on (what guests are shown anyway:
/// the others are drafts).
pub(crate) async fn list(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
) -> ApiResult {
    let (db, _) = home.person(&visitor)?;
    let may_change = home.menu_keeper(&visitor, &editing).is_ok();
    let mut menus = household_call(db, |db| db.menus()).await?;
    menus.retain(|m| may_change || m.on);
    Ok(personal(json!({"menus": menus, "may_change": may_change})))
}

/// The menu sent: a JSON object of [`MenuDraft`]'s fields, each recipe one there is.
fn draft(site: &Site, headers: &HeaderMap, bytes: &[u8]) -> Result<MenuDraft, WebError> {
    editing::json_body(headers, "the menu")?;
    let draft: MenuDraft = super::body::typed(bytes)?;
    for (i, r) in draft.recipes.iter().enumerate() {
        if site.recipes().get(r.id).is_none() {
            return Err(WebError::Refused(FieldError {
                field: format!("recipes[{i}].id"),
                message: format!("there is no recipe {}", r.id),
            }));
        }
    }
    Ok(draft)
}

fn no_menu(id: u64) -> WebError {
    WebError::NotFound(format!("There is no menu {id}."))
}

/// A menu id as the database keeps it; one too large for it names no menu.
fn menu_id(id: u64) -> Result<i64, WebError> {
    i64::try_from(id).map_err(|_| no_menu(id))
}

/// `POST /api/menus`: a new menu (off); `201` with `{"id"}`.
pub(crate) async fn create(
    State(site): State<Arc<Site>>,
    Write(Resident { db, person, .. }, _): Write<Menus>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let draft = draft(&site, &headers, &bytes)?;
    let id = household_call(db, move |db| db.add_menu(&person, &draft)).await?;
    let mut response = personal(json!({ "id": id }));
    *response.status_mut() = StatusCode::CREATED;
    Ok(response)
}

/// `PUT /api/menus/{id}`: the menu replaced whole; answered with the menu as kept.
pub(crate) async fn update(
    State(site): State<Arc<Site>>,
    Write(Resident { db, person, .. }, _): Write<Menus>,
    MenuId(id): MenuId,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let key = menu_id(id)?;
    let draft = draft(&site, &headers, &bytes)?;
    let menu = household_call(db, move |db| {
        Ok(if db.put_menu(&person, key, &draft)? {
            db.menu(key)?
        } else {
            None
        })
    })
    .await?;
    answer(menu, id)
}

fn answer(menu: Option<Menu>, id: u64) -> ApiResult {
    let menu = menu.ok_or_else(|| no_menu(id))?;
    Ok(personal(serde_json::to_value(&menu)?))
}

/// `DELETE /api/menus/{id}`: gone (if it was on, no menu is on now).
pub(crate) async fn delete(
    Write(Resident { db, .. }, _): Write<Menus>,
    MenuId(id): MenuId,
) -> ApiResult {
    let key = menu_id(id)?;
    if !household_call(db, move |db| db.delete_menu(key)).await? {
        return Err(no_menu(id).into());
    }
    Ok(personal(json!({ "id": id, "deleted": true })))
}

/// `POST /api/menus/{id}/on`: this menu is the one `/menu` shows (whichever was on is
/// off); answered with the menu.
pub(crate) async fn switch_on(
    Write(Resident { db, .. }, _): Write<Menus>,
    MenuId(id): MenuId,
) -> ApiResult {
    let key = menu_id(id)?;
    let menu = household_call(db, move |db| {
        Ok(if db.switch_menu_on(key)? {
            db.menu(key)?
        } else {
            None
        })
    })
    .await?;
    answer(menu, id)
}

/// `POST /api/menus/off`: no menu is on; `/menu` says so.
pub(crate) async fn switch_off(Write(Resident { db, .. }, _): Write<Menus>) -> ApiResult {
    household_call(db, |db| db.switch_menus_off()).await?;
    Ok(personal(json!({ "on": null })).into_response())
}
