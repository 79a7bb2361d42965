//! The household's shopping list (issue #42): `GET`/`PUT /api/bar/shopping` for
//! `static/js/shopping.js`, and `/shopping`, the list rendered per request with plain forms
//! (add, bought, remove, clear the bought) for a browser without JavaScript. Everyone in
//! the household reads it; the people who keep the shelf change it (`Write<Shelf>`), since
//! buying an item ticks its bottle on the shelf.

use super::household::personal;
use crate::error::{Api, WebError};
use crate::household::{Household, ShoppingChange};
use crate::http::cache_control::private_no_store;
use crate::site::Site;
use crate::view::form::{Fields, field};
use crate::view::shopping::{ShoppingPage, ShoppingRow};
use crate::who::editing::{self, Editing};
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::visitor::Visitor;
use crate::who::write::{Resident, Shelf, Write};
use axum::Form;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::FormRejection;
use axum::http::{HeaderMap, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde_json::json;
use std::sync::Arc;

type ApiResult = Result<Response, Api<WebError>>;

/// `GET /api/bar/shopping`: `{"items": [{name, got, added_by, added_at}], "may_change"}`.
pub(crate) async fn list(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
) -> ApiResult {
    let (db, _) = home.person(&visitor)?;
    answer(db, home.may_shelf(&visitor, &editing)).await
}

async fn answer(db: Arc<Household>, may_change: bool) -> ApiResult {
    let items = household_call(db, |db| db.shopping()).await?;
    Ok(personal(json!({"items": items, "may_change": may_change})))
}

/// `PUT /api/bar/shopping` `{"add": [names], "bought": [..], "got": [..], "unget": [..],
/// "remove": [..], "at": ms}`: one change, all or nothing; answered as the GET.
pub(crate) async fn change(
    Write(Resident { db, person, .. }, _): Write<Shelf>,
    headers: HeaderMap,
    bytes: Bytes,
) -> ApiResult {
    editing::json_body(&headers, "the shopping list's change")?;
    let change: ShoppingChange = super::body::typed(&bytes)?;
    let writer = db.clone();
    household_call(writer, move |db| db.change_shopping(&person, &change)).await?;
    answer(db, true).await
}

/// `GET /shopping`: the list, and for a shelf keeper the forms that change it.
pub(crate) async fn page(
    State(home): State<Arc<HouseholdDoor>>,
    State(editing): State<Arc<Editing>>,
    State(site): State<Arc<Site>>,
    visitor: Visitor,
) -> Result<Response, WebError> {
    let (items, why) = match home.person(&visitor) {
        Err(e) => (Vec::new(), Some(e.to_string())),
        Ok((db, _)) => (household_call(db, |db| db.shopping()).await?, None),
    };
    let keeper = home.shelf_keeper(&visitor, &editing);
    let may_change = keeper.is_ok();
    let why = why.or_else(|| keeper.err().map(|e| e.to_string()));
    let page = ShoppingPage {
        chrome: site.chrome("").at("shelf"),
        any_got: items.iter().any(|i| i.got),
        items: items.into_iter().map(ShoppingRow::from).collect(),
        may_change,
        why,
        csrf: home
            .shelf_form_token(&visitor, &editing)
            .unwrap_or_default(),
    };
    let html = crate::site::render("shopping page", &page)?;
    let mut response = Html(html).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, private_no_store());
    Ok(response)
}

/// `POST /shopping` (`op` = add, bought, remove or clear; `name`; the page's `csrf`): as
/// the API's change, answered with a redirect back; a refusal is a page naming the field.
pub(crate) async fn form(
    State(home): State<Arc<HouseholdDoor>>,
    Write(keeper, _): Write<Shelf>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    let fields = form.map(|Form(f)| f).unwrap_or_default();
    home.check_form(&keeper.visitor, field(&fields, "csrf"))?;
    let name = vec![field(&fields, "name").to_owned()];
    let op = field(&fields, "op").to_owned();
    let person = keeper.person;
    household_call(keeper.db, move |db| {
        let change = match op.as_str() {
            "add" => ShoppingChange {
                add: name,
                ..ShoppingChange::default()
            },
            "bought" => ShoppingChange {
                bought: name,
                ..ShoppingChange::default()
            },
            "remove" => ShoppingChange {
                remove: name,
                ..ShoppingChange::default()
            },
            "clear" => ShoppingChange {
                remove: db
                    .shopping()?
                    .into_iter()
                    .filter(|i| i.got)
                    .map(|i| i.name)
                    .collect(),
                ..ShoppingChange::default()
            },
            other => {
                return Err(crate::household::HouseholdError::refused(
                    "op",
                    format!("must be add, bought, remove or clear, not {other:?}"),
                ));
            }
        };
        db.change_shopping(&person, &change)
    })
    .await?;
    Ok(Redirect::to("/shopping").into_response())
}
