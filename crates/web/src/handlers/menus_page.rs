//! `/menus`: the host's page for composing the guests' menus (issue #27, docs/MENU.md).
//! Rendered per request (the menus are the household's, and whether the visitor may
//! change them is theirs); without JavaScript it lists the menus with their drinks and
//! switches one on or off through two small forms (`POST /menus/{id}/on`, `POST
//! /menus/off`: the same checks as the API's and the page's form token, answered with a
//! redirect back); composing is `static/js/menus.js` over `/api/menus…`. Someone who may
//! not compose sees only the menu that is on: the others are drafts.

use crate::error::WebError;
use crate::handlers::params::MenuId;
use crate::household::Menu;
use crate::http::cache_control::private_no_store;
use crate::site::Site;
use crate::view::form::{Fields, field};
use crate::view::templates::{MenuSummary, MenusPage};
use crate::who::editing::Editing;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use crate::who::write::{Menus, Resident, Write};
use axum::Form;
use axum::extract::State;
use axum::extract::rejection::FormRejection;
use axum::http::header;
use axum::response::{Html, IntoResponse, Redirect, Response};
use std::sync::Arc;

/// `GET /menus`: every menu with its drinks by name, and the controls the visitor may use.
pub(crate) async fn page(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    State(site): State<Arc<Site>>,
    visitor: Visitor,
) -> Result<Response, WebError> {
    let (menus, why) = match home.required() {
        Err(e) => (Vec::new(), Some(e.to_string())),
        Ok(db) => (household_call(db, |db| db.menus()).await?, None),
    };
    let keeper = home.menu_keeper(&visitor, &editing);
    let may_change = keeper.is_ok();
    let why = why.or_else(|| keeper.err().map(|e| e.to_string()));
    let page = MenusPage {
        chrome: site.chrome("").at("menus"),
        menus: menus
            .iter()
            .filter(|m| may_change || m.on)
            .map(|m| summary(&site, m))
            .collect(),
        may_change,
        why,
        csrf: home.menu_form_token(&visitor, &editing).unwrap_or_default(),
    };
    let html = crate::site::render("menus page", &page)?;
    let mut response = Html(html).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, private_no_store());
    Ok(response)
}

fn summary<'a>(site: &'a Site, menu: &Menu) -> MenuSummary<'a> {
    let recipes = site.recipes();
    let drinks: Vec<&'a str> = menu
        .recipes
        .iter()
        .filter_map(|r| recipes.get(r.id).map(|recipe| recipe.name.as_str()))
        .collect();
    let n = drinks.len();
    let mut facts = vec![format!("{n} drink{}", if n == 1 { "" } else { "s" })];
    if menu.can_make_now {
        facts.push("and everything the shelf can make now".into());
    }
    if !menu.show_ingredients {
        facts.push("ingredients hidden".into());
    }
    MenuSummary {
        id: menu.id,
        title: menu.title.clone(),
        on: menu.on,
        facts: facts.join(" · "),
        drinks,
    }
}

/// A switch form's token checked: the one `/menus` gave this composer. A form that cannot
/// be read sends no token, and is refused as one without.
fn checked(
    home: &HouseholdDoor,
    composer: &Resident,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<(), WebError> {
    let fields = form.map(|Form(f)| f).unwrap_or_default();
    home.check_form(&composer.visitor, field(&fields, "csrf"))
}

/// `POST /menus/{id}/on` (a form on `/menus`): as `POST /api/menus/{id}/on`; a refusal is
/// a page (not the API's JSON).
pub(crate) async fn switch_on(
    State(home): State<Arc<HouseholdDoor>>,
    Write(composer, _): Write<Menus>,
    MenuId(id): MenuId,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    checked(&home, &composer, form)?;
    let key =
        i64::try_from(id).map_err(|_| WebError::NotFound(format!("There is no menu {id}.")))?;
    if !household_call(composer.db, move |db| db.switch_menu_on(key)).await? {
        return Err(WebError::NotFound(format!("There is no menu {id}.")));
    }
    Ok(Redirect::to("/menus").into_response())
}

/// `POST /menus/off` (a form on `/menus`): as `POST /api/menus/off`.
pub(crate) async fn switch_off(
    State(home): State<Arc<HouseholdDoor>>,
    Write(composer, _): Write<Menus>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    checked(&home, &composer, form)?;
    household_call(composer.db, |db| db.switch_menus_off()).await?;
    Ok(Redirect::to("/menus").into_response())
}
