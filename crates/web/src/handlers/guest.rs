//! The guests' side of the menu (issue #27, docs/MENU.md): `/menu`, the page of the menu
//! that is on; `/menu/feed`, the change feed its script polls; `/menu/assets/…`, the few
//! files it needs; `/menu/photos/…`, the cover photos of the drinks it shows, when the
//! menu shows photos. [`crate::router::guests`] serves exactly these, on the app and
//! alone on the Funnel's listener. And `/menu/print`, the printed card with a QR code of
//! the guests' address, on the app only.
//!
//! The change feed is polled, not pushed: a tablet asks `/menu/feed` every few seconds
//! with the version it shows (`If-None-Match`) and gets a bodiless 304 until the menu
//! changes. An endless server-sent-events answer would hold a connection, a request in
//! flight and a place in the drain at shutdown for as long as a tablet stays open, and
//! the connection layer's progress deadlines would have to make an exception for it; a
//! poll is an ordinary short request, answered within every deadline and budget.

use super::photos;
use crate::error::WebError;
use crate::household::Menu;
use crate::http::negotiate::Encoding;
use crate::http::representation::{Representation, content_hash};
use crate::site::{Assets, Site};
use crate::state::GuestAddress;
use crate::view::qr;
use crate::view::templates::{MenuCard, MenuDrink, MenuPage};
use crate::who::editing::Editing;
use crate::who::household_door::{HouseholdDoor, household_call};
use crate::who::identity::Resolve;
use crate::who::visitor::Visitor;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRef, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::Response;
use libations_photos::Variant;
use serde::Deserialize;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

/// What guests are shown: a menu (the one on, or one asked for by id), for a "can make
/// now" menu what the household's shelf makes, and for a menu that shows photos each
/// recipe's cover (recipe id → the photo's hash).
struct Shown {
    menu: Option<Menu>,
    makes: Option<Vec<u64>>,
    covers: HashMap<u64, String>,
}

/// Where a drink's cover is: the guests' own address on `/menu` (the Funnel's listener
/// serves no other), the app's on the printed card (which may show a menu that is off).
#[derive(Clone, Copy)]
enum PhotoAt {
    Guests,
    App,
}

impl PhotoAt {
    fn url(self, hash: &str) -> String {
        match self {
            PhotoAt::Guests => format!("/menu/photos/{hash}.jpg"),
            PhotoAt::App => crate::view::photos::thumb_url(hash),
        }
    }
}

impl Shown {
    /// The menu `id`, or the one that is on; none without a household.
    async fn read(home: &HouseholdDoor, site: &Site, id: Option<i64>) -> Result<Shown, WebError> {
        let Some(db) = home.db() else {
            return Ok(Shown {
                menu: None,
                makes: None,
                covers: HashMap::new(),
            });
        };
        let (menu, shelf, covers) = household_call(db.clone(), move |db| {
            let menu = match id {
                Some(id) => db.menu(id)?,
                None => db.menu_on()?,
            };
            let Some(menu) = menu else {
                return Ok((None, None, Vec::new()));
            };
            let shelf = if menu.can_make_now {
                Some((db.shelf()?, db.rules()?))
            } else {
                None
            };
            let covers = if menu.show_photos {
                db.covers()?
            } else {
                Vec::new()
            };
            Ok((Some(menu), shelf, covers))
        })
        .await?;
        let makes = shelf.map(|(shelf, rules)| {
            let shelf = shelf.into_iter().collect();
            crate::makes::analyse(site.needs(), &shelf, &rules).can_make
        });
        let covers = covers.into_iter().map(|p| (p.recipe, p.hash)).collect();
        Ok(Shown {
            menu,
            makes,
            covers,
        })
    }

    fn title(&self) -> &str {
        self.menu
            .as_ref()
            .map_or("No menu tonight", |m| m.title.as_str())
    }

    fn on(&self) -> bool {
        self.menu.is_some()
    }

    fn drinks<'a>(&'a self, site: &'a Site, photos: PhotoAt) -> Vec<MenuDrink<'a>> {
        match &self.menu {
            None => Vec::new(),
            Some(menu) => drinks(site, menu, self.makes.as_deref())
                .into_iter()
                .map(|(id, mut drink)| {
                    drink.photo = self.covers.get(&id).map(|hash| photos.url(hash));
                    drink
                })
                .collect(),
        }
    }

    /// Whether guests are shown the photo `hash`: a cover of a drink on the menu.
    fn shows_photo(&self, site: &Site, hash: &str) -> bool {
        let url = PhotoAt::Guests.url(hash);
        self.drinks(site, PhotoAt::Guests)
            .iter()
            .any(|d| d.photo.as_deref() == Some(url.as_str()))
    }
}

/// The version of what guests see: changes when the title, a drink, its description,
/// ingredients or strength, or whether a menu is on does, and only then.
fn version(title: &str, on: bool, drinks: &[MenuDrink<'_>]) -> String {
    let mut text = format!("{title}\u{1e}{on}");
    for d in drinks {
        text.push('\u{1e}');
        for part in [d.name, d.icon, d.description.unwrap_or("\u{1}")] {
            text.push_str(part);
            text.push('\u{1f}');
        }
        text.push_str(&d.ingredients.join("\u{1d}"));
        text.push('\u{1f}');
        text.push_str(d.strength.as_deref().unwrap_or("\u{1}"));
        text.push('\u{1f}');
        text.push_str(d.photo.as_deref().unwrap_or("\u{1}"));
    }
    content_hash(text.as_bytes())
}

/// `body` as `content_type`, revalidated each time (`no-cache`), its ETag `hash`; a 304
/// when the request already has it.
fn respond(body: String, hash: &str, content_type: &'static str, request: &HeaderMap) -> Response {
    Representation {
        hash,
        content_type: &HeaderValue::from_static(content_type),
        cache_control: &HeaderValue::from_static(crate::http::cache_control::REVALIDATE),
        encoding: Encoding::Identity,
    }
    .respond(body.into(), request)
}

/// `GET /menu`: the guests' view of the menu that is on, or "No menu tonight". Its drinks
/// in the menu's order; a "can make now" menu shows what the household's shelf makes (as
/// `/api/bar` says), the menu's own drinks first, in its order, with their descriptions.
/// Revalidated each time: the host switches menus during the evening.
pub(crate) async fn page(
    State(home): State<Arc<HouseholdDoor>>,
    State(site): State<Arc<Site>>,
    request: HeaderMap,
) -> Result<Response, WebError> {
    let shown = Shown::read(&home, &site, None).await?;
    let drinks = shown.drinks(&site, PhotoAt::Guests);
    let version = version(shown.title(), shown.on(), &drinks);
    let page = MenuPage {
        urls: site.urls(),
        glasses: &site.urls().guest.glasses,
        title: shown.title(),
        on: shown.on(),
        drinks,
        version: &version,
    };
    let html = crate::site::render("menu page", &page)?;
    let hash = content_hash(html.as_bytes());
    Ok(respond(html, &hash, "text/html; charset=utf-8", &request))
}

/// `GET /menu/feed`: `{"version", "on"}` of what `/menu` shows now, its ETag the version:
/// the page's script asks with `If-None-Match` and gets a 304 until the menu changes.
pub(crate) async fn feed(
    State(home): State<Arc<HouseholdDoor>>,
    State(site): State<Arc<Site>>,
    request: HeaderMap,
) -> Result<Response, WebError> {
    let shown = Shown::read(&home, &site, None).await?;
    let version = version(
        shown.title(),
        shown.on(),
        &shown.drinks(&site, PhotoAt::Guests),
    );
    let body = serde_json::json!({ "version": version, "on": shown.on() }).to_string();
    Ok(respond(body, &version, "application/json", &request))
}

/// `GET /menu/photos/<hash>.jpg`: the thumbnail of a cover photo the menu that is on
/// shows, and of no other photo: the Funnel's listener serves this to the internet.
pub(crate) async fn photo(
    State(home): State<Arc<HouseholdDoor>>,
    State(site): State<Arc<Site>>,
    Path(name): Path<String>,
) -> Result<Response, WebError> {
    let hash = name.strip_suffix(".jpg").ok_or_else(photos::no_photo)?;
    let shown = Shown::read(&home, &site, None).await?;
    if !shown.shows_photo(&site, hash) {
        return Err(photos::no_photo());
    }
    photos::jpeg(&home, hash, Variant::Thumb).await
}

/// `GET /menu/assets/<file>`: the guests' page's own files, and no other.
pub(crate) async fn asset(
    State(assets): State<Arc<Assets>>,
    Path(file): Path<String>,
    request: HeaderMap,
) -> Result<Response, WebError> {
    assets
        .guest_respond(&file, &request)
        .ok_or_else(|| WebError::NotFound("There is no such file.".into()))
}

/// The paper a card is printed on: the query's value and what the size form shows.
const SIZES: &[(&str, &str)] = &[("a5", "A5"), ("a4", "A4"), ("letter", "Letter")];

/// `/menu/print`'s query: `size` (a5, a4, letter), `columns` (1, 2), `menu` (an id; by
/// default the menu that is on). Anything else asks for the defaults.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CardQuery {
    size: Option<String>,
    columns: Option<String>,
    menu: Option<String>,
}

/// Whether the visitor may compose menus, and so see one that is not on.
pub(crate) struct MayCompose(bool);

impl<S> FromRequestParts<S> for MayCompose
where
    S: Send + Sync,
    Arc<HouseholdDoor>: FromRef<S>,
    Arc<Editing>: FromRef<S>,
    Arc<dyn Resolve>: FromRef<S>,
{
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<MayCompose, Infallible> {
        let home = Arc::<HouseholdDoor>::from_ref(state);
        let editing = Arc::<Editing>::from_ref(state);
        let Ok(visitor) = Visitor::from_request_parts(parts, state).await;
        Ok(MayCompose(home.menu_keeper(&visitor, &editing).is_ok()))
    }
}

/// `GET /menu/print`: the menu as a one-page card with a QR code of the guests' address.
/// The menu that is on is what guests see, so anyone who reaches the app may print it;
/// `?menu=<id>` of another (a draft) only for who may compose, anyone else gets the one
/// that is on. The Funnel's listener does not serve it.
pub(crate) async fn print(
    State(home): State<Arc<HouseholdDoor>>,
    State(site): State<Arc<Site>>,
    State(guests): State<GuestAddress>,
    MayCompose(composer): MayCompose,
    query: Result<Query<CardQuery>, QueryRejection>,
    uri: Uri,
    request: HeaderMap,
) -> Result<Response, WebError> {
    let query = query.map(|Query(q)| q).unwrap_or_default();
    let size = SIZES
        .iter()
        .map(|(value, _)| *value)
        .find(|value| query.size.as_deref() == Some(*value))
        .unwrap_or("a5");
    let columns = if query.columns.as_deref() == Some("2") {
        2
    } else {
        1
    };
    let menu_id = query
        .menu
        .as_deref()
        .and_then(|m| m.parse::<i64>().ok())
        .filter(|_| composer);
    let shown = Shown::read(&home, &site, menu_id).await?;
    let drinks = shown.drinks(&site, PhotoAt::App);
    let (fit, crowded) = fit(size, columns, &drinks);
    let guest_url = guest_address(&guests, &request, &uri).unwrap_or_default();
    let card = MenuCard {
        urls: site.urls(),
        glasses: &site.urls().glasses,
        title: shown.title(),
        on: shown.on(),
        drinks,
        menu_id: menu_id.filter(|_| shown.on()),
        size,
        sizes: SIZES,
        columns,
        fit,
        crowded,
        qr: qr::svg(&guest_url).filter(|_| !guest_url.is_empty()),
        guest_url: &guest_url,
    };
    let html = crate::site::render("menu card", &card)?;
    let hash = content_hash(html.as_bytes());
    Ok(respond(html, &hash, "text/html; charset=utf-8", &request))
}

/// Where guests find the menu: the Funnel's address when it is on, else this app as the
/// host reached it (`Host`, or an HTTP/2 request's authority: both checked against the
/// allowed names by then), with the scheme the app serves. None if the request names no
/// host fit for an address.
fn guest_address(guests: &GuestAddress, request: &HeaderMap, uri: &Uri) -> Option<String> {
    if let Some(url) = &guests.url {
        return Some(url.clone());
    }
    let host = request
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| uri.authority().map(|a| a.as_str()))?;
    let fit = !host.is_empty()
        && host.len() <= 255
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-.:[]_".contains(c));
    if !fit {
        return None;
    }
    let scheme = if guests.https { "https" } else { "http" };
    Some(format!("{scheme}://{host}/menu"))
}

/// How tightly to set the drinks so that the card stays one page: the first of the four
/// type sizes (1 roomy … 4 small) at which the drinks' estimated lines fit the paper's
/// columns, and whether even the smallest may not.
///
/// In millimetres, as `static/menu.css` sets the card: the paper less its margins; the QR
/// code and its gap (35 mm) and the title (3.5 em) above the drinks; a line of 1.35 em,
/// 1 em being 11 pt (3.88 mm) times the size's scale; a character about half an em; two
/// columns 8 mm apart. A tenth of the height is kept for the columns' uneven ends.
/// Checked against printed cards (tests/browser/menu.test.mjs: a card that does not warn
/// has every drink on it).
fn fit(size: &str, columns: u8, drinks: &[MenuDrink<'_>]) -> (u8, bool) {
    const EM_MM: f64 = 3.88;
    let (width, height) = match size {
        "a4" => (182.0, 269.0),
        "letter" => (190.5, 253.6),
        _ => (128.0, 190.0),
    };
    let columns = f64::from(columns.clamp(1, 2));
    let column_width = (width - 8.0 * (columns - 1.0)) / columns;
    let lines_at = |scale: f64| -> f64 {
        let em = EM_MM * scale;
        let area = height - 35.0 - 3.5 * em;
        area / (1.35 * em) * columns * 0.9
    };
    let need = |scale: f64| -> f64 {
        drinks
            .iter()
            .map(|d| {
                // A photo (3.2 em square, 0.6 em from the text) narrows the text beside it
                // and makes the drink at least as tall as itself.
                let (beside, least) = if d.photo.is_some() {
                    (3.8 * EM_MM * scale, 3.2 / 1.35 + 0.65)
                } else {
                    (0.0, 0.0)
                };
                let per_line = (column_width - beside) / (0.5 * EM_MM * scale);
                let description = d
                    .description
                    .map_or(0.0, |t| (t.chars().count() as f64 / per_line).ceil());
                let ingredients: usize = d.ingredients.iter().map(|i| i.chars().count() + 3).sum();
                // The name (1.35 em), the ingredients (0.9 em: more a line), the padding.
                let text =
                    1.4 + description + (ingredients as f64 * 0.9 / per_line).ceil() * 0.9 + 0.65;
                text.max(least)
            })
            .sum()
    };
    for (n, scale) in [(1, 1.0), (2, 0.85), (3, 0.72), (4, 0.6)] {
        if need(scale) <= lines_at(scale) {
            return (n, false);
        }
    }
    (4, true)
}

/// The menu's drinks as guests see them, each with its recipe's id: recipes since deleted
/// are left out; with `makes` (a "can make now" menu), only what the shelf makes, the rest
/// of it after the menu's own in the collection's order.
fn drinks<'a>(site: &'a Site, menu: &'a Menu, makes: Option<&[u64]>) -> Vec<(u64, MenuDrink<'a>)> {
    let recipes = site.recipes();
    let show = menu.show_ingredients;
    let listed = menu
        .recipes
        .iter()
        .filter(|r| makes.is_none_or(|m| m.contains(&r.id)));
    let mut drinks: Vec<(u64, MenuDrink<'a>)> = listed
        .filter_map(|r| {
            let recipe = recipes.get(r.id)?;
            let strength = site.strengths().of_id(recipe.id);
            let drink = MenuDrink::new(recipe, r.description.as_deref(), show, strength);
            Some((r.id, drink))
        })
        .collect();
    if let Some(makes) = makes {
        let rest = makes
            .iter()
            .filter(|id| !menu.recipes.iter().any(|r| r.id == **id))
            .filter_map(|&id| recipes.get(id));
        drinks.extend(rest.map(|recipe| {
            let strength = site.strengths().of_id(recipe.id);
            (recipe.id, MenuDrink::new(recipe, None, show, strength))
        }));
    }
    drinks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        headers
    }

    #[test]
    fn the_guests_address_is_the_funnels_else_this_app_as_reached() {
        let uri: Uri = "/menu/print".parse().unwrap();
        let tailnet = GuestAddress {
            url: None,
            https: true,
        };
        assert_eq!(
            guest_address(&tailnet, &request("bar.tail1234.ts.net"), &uri).as_deref(),
            Some("https://bar.tail1234.ts.net/menu")
        );
        let local = GuestAddress {
            url: None,
            https: false,
        };
        assert_eq!(
            guest_address(&local, &request("127.0.0.1:8080"), &uri).as_deref(),
            Some("http://127.0.0.1:8080/menu")
        );
        // HTTP/2: the authority of the request's target.
        let h2: Uri = "https://bar.tail1234.ts.net/menu/print".parse().unwrap();
        assert_eq!(
            guest_address(&tailnet, &HeaderMap::new(), &h2).as_deref(),
            Some("https://bar.tail1234.ts.net/menu")
        );
        // Not a host name: no address, so no QR code.
        for bad in ["evil.example/x?", "a b", "x@y", ""] {
            assert_eq!(guest_address(&local, &request(bad), &uri), None, "{bad}");
        }
        let funnel = GuestAddress {
            url: Some("https://bar.tail1234.ts.net:8443/menu".into()),
            https: true,
        };
        assert_eq!(
            guest_address(&funnel, &request("localhost"), &uri).as_deref(),
            Some("https://bar.tail1234.ts.net:8443/menu")
        );
    }

    fn drinks(n: usize, description: Option<&'static str>) -> Vec<MenuDrink<'static>> {
        (0..n).map(|_| drink(description)).collect()
    }

    fn drink(description: Option<&'static str>) -> MenuDrink<'static> {
        MenuDrink {
            name: "Negroni",
            icon: "rocks",
            description,
            ingredients: vec!["Gin", "Campari", "Sweet Vermouth"],
            strength: None,
            photo: None,
        }
    }

    #[test]
    fn a_long_menu_is_set_smaller_and_a_too_long_one_says_so() {
        let few = drinks(5, None);
        assert_eq!(fit("a5", 1, &few), (1, false));
        let line = Some("A long line that tells the guests what this drink tastes like");
        let many = drinks(28, line);
        assert_eq!(fit("a5", 1, &many), (4, true));
        assert!(!fit("a4", 2, &many).1, "two columns of A4 hold it");
        // Smaller type for more drinks, never larger.
        let mut last = 1;
        for n in 1..40 {
            let (size, _) = fit("a4", 1, &drinks(n, line));
            assert!(size >= last, "{n} drinks");
            last = size;
        }
        assert_eq!(fit("a3", 1, &few), fit("a5", 1, &few), "unknown paper: A5");
        // Photos take room: the same drinks with one each are never set larger, and some
        // menus are set smaller.
        let pictured = |n| {
            let mut all = drinks(n, line);
            for d in &mut all {
                d.photo = Some("/photos/x.thumb.jpg".into());
            }
            all
        };
        let sizes: Vec<(u8, u8)> = (1..40)
            .map(|n| {
                (
                    fit("a5", 1, &drinks(n, None)).0,
                    fit("a5", 1, &pictured(n)).0,
                )
            })
            .collect();
        assert!(sizes.iter().all(|(plain, with)| with >= plain), "{sizes:?}");
        assert!(sizes.iter().any(|(plain, with)| with > plain), "{sizes:?}");
    }
}
