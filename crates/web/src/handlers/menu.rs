//! `/api/menus…`: composing the guests' menus and switching one on (people granted
//! `{"menu": true}` or `{"edit": true}`, and `--editor` logins); the guests' side is
//! [`super::guest`]. Writes pass the same checks as every household write (a
//! person with the grant, our own origin, the per-person rate, JSON) before the body is
//! read, and a refusal names the field. docs/MENU.md has the API.

use super::household::personal;
use crate::error::{Api, WebError};
use crate::handlers::params::MenuId;
use crate::household::{Household, Menu, MenuDraft, Person};
use crate::site::Site;
use crate::store::FieldError;
use crate::who::editing::{self, Editing, Provenance};
use crate::who::home::{Home, on_blocking};
use crate::who::identity::Resolve;
use crate::who::visitor::Visitor;
use axum::body::Bytes;
use axum::extract::{FromRef, FromRequestParts, State};
use axum::http::request::Parts;
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
    State(home): State<Arc<Home>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
) -> ApiResult {
    let (db, _) = home.person(&visitor)?;
    let may_change = home.menu_keeper(&visitor, &editing).is_ok();
    let mut menus = on_blocking(db, |db| db.menus()).await?;
    menus.retain(|m| may_change || m.on);
    Ok(personal(json!({"menus": menus, "may_change": may_change})))
}

/// A menu write, checked before its body is read: who (a person with the grant), from
/// where (our own pages), how often (the per-person rate). One extractor, so that no
/// route can skip a check another makes.
pub(crate) struct Composer {
    pub(crate) db: Arc<Household>,
    person: Person,
}

impl<S> FromRequestParts<S> for Composer
where
    S: Send + Sync,
    Arc<Home>: FromRef<S>,
    Arc<Editing>: FromRef<S>,
    Arc<dyn Resolve>: FromRef<S>,
{
    type Rejection = Api<WebError>;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Composer, Api<WebError>> {
        let home = Arc::<Home>::from_ref(state);
        let editing = Arc::<Editing>::from_ref(state);
        let Ok(visitor) = Visitor::from_request_parts(parts, state).await;
        let (db, person) = home.menu_keeper(&visitor, &editing)?;
        let Ok(from) = Provenance::from_request_parts(parts, state).await;
        from.check()?;
        home.take_write(&person)?;
        Ok(Composer { db, person })
    }
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
    Composer { db, person }: Composer,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let draft = draft(&site, &headers, &bytes)?;
    let id = on_blocking(db, move |db| db.add_menu(&person, &draft)).await?;
    let mut response = personal(json!({ "id": id }));
    *response.status_mut() = StatusCode::CREATED;
    Ok(response)
}

/// `PUT /api/menus/{id}`: the menu replaced whole; answered with the menu as kept.
pub(crate) async fn update(
    State(site): State<Arc<Site>>,
    Composer { db, person }: Composer,
    MenuId(id): MenuId,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    let key = menu_id(id)?;
    let draft = draft(&site, &headers, &bytes)?;
    let menu = on_blocking(db, move |db| {
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
pub(crate) async fn delete(Composer { db, .. }: Composer, MenuId(id): MenuId) -> ApiResult {
    let key = menu_id(id)?;
    if !on_blocking(db, move |db| db.delete_menu(key)).await? {
        return Err(no_menu(id).into());
    }
    Ok(personal(json!({ "id": id, "deleted": true })))
}

/// `POST /api/menus/{id}/on`: this menu is the one `/menu` shows (whichever was on is
/// off); answered with the menu.
pub(crate) async fn switch_on(Composer { db, .. }: Composer, MenuId(id): MenuId) -> ApiResult {
    let key = menu_id(id)?;
    let menu = on_blocking(db, move |db| {
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
pub(crate) async fn switch_off(Composer { db, .. }: Composer) -> ApiResult {
    on_blocking(db, |db| db.switch_menus_off()).await?;
    Ok(personal(json!({ "on": null })).into_response())
}
