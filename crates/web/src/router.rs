//! The one router that `--local`, the tailnet and the tests all serve: every route, the
//! layers around them (error pages, the request guard, metrics, security headers) and the
//! `Allow` header of a 405.
//!
//! [`app`] knows nothing about where a connection came from: the connection layer
//! ([`crate::connections`]) and the host check ([`for_hosts`]) sit around it.
//!
//! [`guests`] is what guests reach: [`app`] merges it, and the guests' own listener
//! (Funnel, `:8443`) serves it alone, through [`super::funnel`].

use super::error;
use super::guard::host::{self, AllowedHosts};
use super::guard::limits;
use super::handlers::{
    api, bar, edit_api, edit_pages, files, guest, household, import, import_pages, menu,
    menus_page, pages, shelf, whoami,
};
use super::state::AppState;
use super::who::access_log::access_log;
use super::who::editing::Editing;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{get, post, put};
use std::sync::Arc;
use tower_http::set_header::SetResponseHeaderLayer;

/// The strict policy the UI is written for: no inline script or style, nothing external.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; \
    frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/// `router` answering only requests for `allowed` hosts (see [`host`]).
pub fn for_hosts(router: Router, allowed: AllowedHosts) -> Router {
    router.layer(axum::middleware::from_fn_with_state(
        Arc::new(allowed),
        host::check,
    ))
}

/// The application router, shared by every way of serving it: the app's own routes and
/// [`guests`]'.
pub fn app(state: AppState) -> Router {
    let router = Router::new()
        .route("/", get(pages::index))
        .route("/recipes/{id}", get(pages::recipe))
        .route(
            "/recipes/new",
            get(edit_pages::new_form).post(edit_pages::create),
        )
        .route(
            "/recipes/{id}/edit",
            get(edit_pages::edit_form).post(edit_pages::update),
        )
        .route("/recipes/{id}/delete", post(edit_pages::delete))
        .route("/recipes/import", get(import_pages::page))
        .route("/changes", get(edit_pages::changes))
        .route("/changes/{n}/undo", post(edit_pages::undo))
        .route("/api/recipes", get(api::list).post(edit_api::create))
        .route("/api/recipes/download", get(edit_api::download))
        .route(
            "/api/recipes/{id}",
            get(api::recipe)
                .put(edit_api::update)
                .delete(edit_api::delete),
        )
        .route("/api/changes", get(edit_api::changes))
        .route("/api/changes/{n}/undo", post(edit_api::undo))
        .route("/shelf", get(shelf::page))
        .route("/api/ingredients", get(shelf::ingredients))
        .route("/api/whoami", get(whoami::whoami))
        .route("/api/me", get(household::me))
        .route(
            "/api/me/favourites/{id}",
            put(household::star).delete(household::unstar),
        )
        .route(
            "/api/me/ratings/{id}",
            put(household::rate).delete(household::unrate),
        )
        .route(
            "/api/me/notes/{id}",
            put(household::write_note).delete(household::delete_note),
        )
        .route(
            "/api/me/notes/{id}/replaced",
            get(household::replaced_notes),
        )
        .route(
            "/api/me/made/{id}",
            post(household::made).delete(household::unmade),
        )
        .route("/api/bar", get(bar::bar))
        .route("/api/bar/shelf", put(bar::change_shelf))
        .route(
            "/api/bar/strengths",
            get(bar::strengths).put(bar::change_strength),
        )
        .route("/api/household/download", get(bar::download))
        .route("/menu/print", get(guest::print))
        .route("/menus", get(menus_page::page))
        .route("/menus/off", post(menus_page::switch_off))
        .route("/menus/{id}/on", post(menus_page::switch_on))
        .route("/api/menus", get(menu::list).post(menu::create))
        .route("/api/menus/off", post(menu::switch_off))
        .route("/api/menus/{id}", put(menu::update).delete(menu::delete))
        .route("/api/menus/{id}/on", post(menu::switch_on))
        .route("/static/{*file}", get(files::asset))
        .route("/sw.js", get(files::service_worker))
        .route("/manifest.webmanifest", get(files::manifest))
        .route_layer(axum::middleware::from_fn_with_state(
            state.limits.clone(),
            limits::small_body,
        ))
        .merge(large())
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::method_not_allowed)
        // After the fallback above, so that it wraps it too: every 405 of a route.
        .route_layer(axum::middleware::from_fn_with_state(
            state.editing.clone(),
            allow,
        ));
    layered(router, &state)
        .with_state(state.clone())
        .merge(guests(state))
}

/// The routes that take a large body, [`limits::LARGE_BODY_BYTES`] (a household backup, a
/// bulk save, an import): their handlers read it themselves, once they know the visitor may
/// send it ([`limits::read`]); no other body is read before its handler runs.
fn large() -> Router<AppState> {
    Router::new()
        .route("/api/household/upload", post(bar::upload))
        .route("/api/recipes/bulk", post(edit_api::bulk))
        .route("/api/import", post(import::api_import))
        .route("/recipes/import", post(import_pages::read))
        .route("/recipes/import/save", post(import_pages::save))
        .route_layer(axum::middleware::from_fn_with_state(
            limits::LARGE_BODY_BYTES,
            limits::large_body,
        ))
        .layer(DefaultBodyLimit::max(limits::LARGE_BODY_BYTES))
}

/// What guests outside the household reach (issue #27, docs/MENU.md): `/menu`, its
/// change feed `/menu/feed` and the files it needs under `/menu/assets/`, and nothing
/// else: no API, no other page, no write. [`app`] merges it; the Funnel's listener
/// serves it alone. The app's layers (request limits, metrics, security headers) but not
/// its error pages: an error here is a short plain page, never the app's header and
/// footer with their search box and links. No fallback of its own, so that [`app`]'s
/// answers every other path.
pub fn guests(state: AppState) -> Router {
    let router = Router::new()
        .route("/menu", get(guest::page))
        .route("/menu/feed", get(guest::feed))
        .route("/menu/assets/{*file}", get(guest::asset));
    guarded(router, &state).with_state(state)
}

/// The app's layers: its error pages (in the site's header and footer) around
/// [`guarded`]'s.
fn layered(router: Router<AppState>, state: &AppState) -> Router<AppState> {
    guarded(
        router.layer(axum::middleware::from_fn_with_state(
            state.site.clone(),
            error::render_page,
        )),
        state,
    )
}

/// The layers around every route: the request guard, metrics, security headers and
/// (`--access-log`) the access log.
fn guarded(router: Router<AppState>, state: &AppState) -> Router<AppState> {
    let header =
        |name, value| SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value));
    let router = router
        .layer(axum::middleware::from_fn_with_state(
            state.limits.clone(),
            limits::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            crate::metrics::track,
        ))
        .layer(header(header::CONTENT_SECURITY_POLICY, CSP))
        .layer(header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header(header::REFERRER_POLICY, "no-referrer"))
        .layer(header(
            header::HeaderName::from_static("permissions-policy"),
            "camera=(), microphone=(), geolocation=(), payment=(), usb=(), screen-wake-lock=(self)",
        ));
    match state.access_log {
        true => router.layer(axum::middleware::from_fn_with_state(
            state.who.clone(),
            access_log,
        )),
        false => router,
    }
}

/// Route middleware: a 405 says in `Allow` what the route does take ([`pages::allowed`]), whether
/// the router answered it (a method the route has no handler for) or a write handler did
/// (editing is off). axum's own `Allow` would list the write methods with editing off.
async fn allow(State(editing): State<Arc<Editing>>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && let Some(route) = route
    {
        let methods = pages::allowed(route.as_str(), editing.writable().is_ok());
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(methods));
    }
    response
}
