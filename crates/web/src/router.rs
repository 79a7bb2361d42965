//! The one router that `--local`, the tailnet and the tests all serve: every route, in one
//! table ([`table`]) from which the router, each route's body limit, the `Allow` header of
//! a 405 and the list of routes ([`registered`]) are all built, and the layers around them
//! (error pages, the request guard, metrics, security headers).
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
    menus_page, pages, photo_pages, photos, shelf, shopping, whoami,
};
use super::state::AppState;
use super::who::access_log::access_log;

mod routes;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use pages::Allowed;
pub use routes::Registered;
use routes::{Allows, Route, Switch, Verb};
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

/// The application router, shared by every way of serving it: the app's own routes
/// ([`table`]) and [`guests`]'.
pub fn app(state: AppState) -> Router {
    let table = table();
    let allows = Arc::new(Allows::of(&table, state.editing.writable().is_ok()));
    let (mut small, mut large, mut photo) = (Router::new(), Router::new(), Router::new());
    for route in table {
        if let Some(methods) = route.small {
            small = small.route(route.path, methods);
        }
        if let Some(methods) = route.large {
            large = large.route(route.path, methods);
        }
        if let Some(methods) = route.photo {
            photo = photo.route(route.path, methods);
        }
    }
    let router = small
        .route_layer(axum::middleware::from_fn_with_state(
            state.limits.clone(),
            limits::small_body,
        ))
        .merge(large_bodies(large, limits::LARGE_BODY_BYTES))
        .merge(large_bodies(photo, limits::PHOTO_BODY_BYTES))
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::method_not_allowed)
        // After the fallback above, so that it wraps it too: every 405 of a route.
        .route_layer(axum::middleware::from_fn_with_state(allows, allow));
    layered(router, &state)
        .with_state(state.clone())
        .merge(guests(state))
}

/// Every route of [`app`] (but [`guests`]', which only read): its path, what each method
/// is (a read, a write, a recipe edit switched by `--allow-edits`) and which body it takes.
/// The router, `Allow` on a 405 and [`registered`] are all built from it.
fn table() -> Vec<Route> {
    use Switch::{Always, Edits};
    use Verb::{Delete, Post, Put};
    vec![
        Route::at("/").get(pages::index),
        Route::at("/recipes/{id}").get(pages::recipe),
        Route::at("/recipes/new")
            .get(edit_pages::new_form)
            .write(Post, Edits, edit_pages::create),
        Route::at("/recipes/{id}/edit")
            .get(edit_pages::edit_form)
            .write(Post, Edits, edit_pages::update),
        Route::at("/recipes/{id}/delete").write(Post, Edits, edit_pages::delete),
        Route::at("/recipes/{id}/photos").photo(Post, Always, photo_pages::add),
        Route::at("/recipes/{id}/photos/{photo}").get(photo_pages::page),
        Route::at("/recipes/{id}/photos/{photo}/delete").write(Post, Always, photo_pages::delete),
        Route::at("/recipes/{id}/photos/{photo}/restore").write(Post, Always, photo_pages::restore),
        Route::at("/recipes/{id}/photos/{photo}/cover").write(Post, Always, photo_pages::cover),
        Route::at("/recipes/import")
            .get(import_pages::page)
            .large(Post, Edits, import_pages::read),
        Route::at("/recipes/import/save").large(Post, Edits, import_pages::save),
        Route::at("/changes").get(edit_pages::changes),
        Route::at("/changes/{n}/undo").write(Post, Edits, edit_pages::undo),
        Route::at("/api/recipes")
            .get(api::list)
            .write(Post, Edits, edit_api::create),
        Route::at("/api/recipes/bulk").large(Post, Edits, edit_api::bulk),
        Route::at("/api/recipes/download").get(edit_api::download),
        Route::at("/api/recipes/{id}")
            .get(api::recipe)
            .write(Put, Edits, edit_api::update)
            .write(Delete, Edits, edit_api::delete),
        Route::at("/api/recipes/{id}/photos")
            .get(photos::list)
            .photo(Post, Always, photos::add),
        Route::at("/api/recipes/{id}/photos/gone").get(photos::gone),
        Route::at("/api/photos/covers").get(photos::covers),
        Route::at("/api/recipes/{id}/photos/{photo}").write(Delete, Always, photos::delete),
        Route::at("/api/recipes/{id}/photos/{photo}/restore").write(Post, Always, photos::restore),
        Route::at("/api/recipes/{id}/photos/{photo}/cover").write(Put, Always, photos::cover),
        Route::at("/photos/{name}").get(photos::file),
        Route::at("/api/import").large(Post, Edits, import::api_import),
        Route::at("/api/changes").get(edit_api::changes),
        Route::at("/api/changes/{n}/undo").write(Post, Edits, edit_api::undo),
        Route::at("/shelf").get(shelf::page),
        Route::at("/api/ingredients").get(shelf::ingredients),
        Route::at("/api/whoami").get(whoami::whoami),
        Route::at("/api/me").get(household::me),
        Route::at("/api/me/favourites/{id}")
            .write(Put, Always, household::star)
            .write(Delete, Always, household::unstar),
        Route::at("/api/me/ratings/{id}")
            .write(Put, Always, household::rate)
            .write(Delete, Always, household::unrate),
        Route::at("/api/me/notes/{id}")
            .write(Put, Always, household::write_note)
            .write(Delete, Always, household::delete_note),
        Route::at("/api/me/notes/{id}/replaced").get(household::replaced_notes),
        Route::at("/api/me/made/{id}")
            .write(Post, Always, household::made)
            .write(Delete, Always, household::unmade),
        Route::at("/api/bar").get(bar::bar),
        Route::at("/api/bar/shelf").write(Put, Always, bar::change_shelf),
        Route::at("/api/bar/rules").write(Put, Always, bar::change_rule),
        Route::at("/api/bar/strengths").get(bar::strengths).write(
            Put,
            Always,
            bar::change_strength,
        ),
        Route::at("/api/bar/shopping")
            .get(shopping::list)
            .write(Put, Always, shopping::change),
        Route::at("/shopping")
            .get(shopping::page)
            .write(Post, Always, shopping::form),
        Route::at("/api/household/download").get(bar::download),
        Route::at("/api/household/upload").large(Post, Always, bar::upload),
        Route::at("/menu/print").get(guest::print),
        Route::at("/menus").get(menus_page::page),
        Route::at("/menus/off").write(Post, Always, menus_page::switch_off),
        Route::at("/menus/{id}/on").write(Post, Always, menus_page::switch_on),
        Route::at("/api/menus")
            .get(menu::list)
            .write(Post, Always, menu::create),
        Route::at("/api/menus/off").write(Post, Always, menu::switch_off),
        Route::at("/api/menus/{id}")
            .write(Put, Always, menu::update)
            .write(Delete, Always, menu::delete),
        Route::at("/api/menus/{id}/on").write(Post, Always, menu::switch_on),
        Route::at("/static/{*file}").get(files::asset),
        Route::at("/sw.js").get(files::service_worker),
        Route::at("/manifest.webmanifest").get(files::manifest),
    ]
}

/// Every method of every route [`app`] serves (but [`guests`]', which only read), as
/// [`table`] has it: what the tests walk, so that a route added without a test fails one.
pub fn registered() -> Vec<Registered> {
    table()
        .into_iter()
        .flat_map(|route| route.methods)
        .collect()
}

/// A large-body group, up to `limit` bytes: [`limits::LARGE_BODY_BYTES`] (a household
/// backup, a bulk save, an import) or [`limits::PHOTO_BODY_BYTES`] (a photo). Their
/// handlers read the body themselves, once the write is admitted ([`limits::read`]); no
/// other body is read before its handler runs.
fn large_bodies(routes: Router<AppState>, limit: usize) -> Router<AppState> {
    routes
        .route_layer(axum::middleware::from_fn_with_state(
            limit,
            limits::large_body,
        ))
        .layer(DefaultBodyLimit::max(limit))
}

/// What guests outside the household reach (issue #27, docs/MENU.md): `/menu`, its
/// change feed `/menu/feed`, the files it needs under `/menu/assets/` and the covers of
/// its drinks under `/menu/photos/` (when the menu shows them), and nothing
/// else: no API, no other page, no write. [`app`] merges it; the Funnel's listener
/// serves it alone. The app's layers (request limits, metrics, security headers) but not
/// its error pages: an error here is a short plain page, never the app's header and
/// footer with their search box and links. No fallback of its own, so that [`app`]'s
/// answers every other path.
pub fn guests(state: AppState) -> Router {
    let router = Router::new()
        .route("/menu", get(guest::page))
        .route("/menu/feed", get(guest::feed))
        .route("/menu/assets/{*file}", get(guest::asset))
        .route("/menu/photos/{name}", get(guest::photo));
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

/// Route middleware: a 405 says in `Allow` what the route does take ([`Allows`]), whether
/// the router answered it (a method the route has no handler for) or a write handler did
/// (editing is off); the 405's message says the same ([`pages::method_not_allowed`]).
/// axum's own `Allow` would list the write methods with editing off.
async fn allow(State(allows): State<Arc<Allows>>, mut request: Request, next: Next) -> Response {
    let allowed = request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|route| allows.0.get(route.as_str()))
        .cloned();
    if let Some(allowed) = &allowed {
        request.extensions_mut().insert(allowed.clone());
    }
    let mut response = next.run(request).await;
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && let Some(Allowed(methods)) = allowed
    {
        response.headers_mut().insert(header::ALLOW, methods);
    }
    response
}
