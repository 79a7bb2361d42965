//! `GET /api/whoami`: who the app thinks you are, and what you may do.

use crate::http::cache_control;
use crate::who::editing::Editing;
use crate::who::household_door::HouseholdDoor;
use crate::who::identity::Capabilities;
use crate::who::visitor::Visitor;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// `GET /api/whoami`: who the app thinks you are, and what you may do.
pub(crate) async fn whoami(
    State(editing): State<Arc<Editing>>,
    State(home): State<Arc<HouseholdDoor>>,
    visitor: Visitor,
) -> Response {
    let mut body = match &visitor.0 {
        Some(identity) => serde_json::json!({
            "known": true,
            "login": identity.login,
            "display_name": identity.display_name,
            "node": identity.node,
            "tags": identity.tags,
            "label": identity.label(),
            "capabilities": identity.capabilities,
        }),
        None => serde_json::json!({
            "known": false,
            "login": null,
            "display_name": null,
            "node": null,
            "tags": [],
            "label": null,
            "capabilities": Capabilities::default(),
        }),
    };
    // What the grants and the switch together allow, for the page to offer its links.
    body["can_edit"] = serde_json::Value::Bool(editing.may_edit(&visitor));
    // Whether they may compose the guests' menus: the navigation's "Menus".
    body["can_compose"] = serde_json::Value::Bool(home.menu_keeper(&visitor, &editing).is_ok());
    // Whether they may choose a recipe's cover photo and delete anyone's (photos.js).
    body["can_cover"] = serde_json::Value::Bool(home.keeper(&visitor, &editing).is_ok());
    // Whether the household's database can be used, and if not what is wrong with it.
    body["household"] = match home.unavailable() {
        Some(why) => serde_json::json!({"ok": false, "why": why}),
        None => serde_json::json!({"ok": true, "why": null}),
    };
    let mut response = axum::Json(body).into_response();
    // Per person: never stored by a shared cache, nor kept by the service worker.
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, cache_control::private_no_store());
    response
}
