//! The handlers, thin and by purpose: each reads what a request asks for, asks the site,
//! the editing permission or the store, and returns a response or a [`WebError`].
//!
//! Why a room of its own: handlers are where the rooms below meet (who is asking, what the
//! site renders, how a body is sent), so keeping them thin and together leaves every room
//! below free of routing, and the router free of logic.
//!
//! - [`pages`]: the list and its searches, a recipe, 404 and 405 (and which methods each
//!   route takes).
//! - [`api`]: the JSON of all recipes or a search's, and one recipe.
//! - [`shelf`], [`files`]: pages and files rendered at load (assets, service worker,
//!   manifest).
//! - [`edit_api`], [`edit_pages`]: changing recipes through the JSON API or the forms.
//! - [`import`], [`import_pages`]: adding recipes from a link or a file (`POST
//!   /api/import`, `/recipes/import`), and `?format=` exports.
//! - [`whoami`]: `GET /api/whoami`.
//! - [`household`]: `/api/me…`, a person's own; [`bar`]: `/api/bar…`, the household's
//!   shelf, and `/api/household/…`, its backup ([`household_archive`]: with its photos,
//!   a zip); [`menu`]: `/api/menus…`, composing the
//!   guests' menus; [`guest`]: `/menu`, the guests' page, its change feed and assets
//!   (what the Funnel serves), and `/menu/print`, the card with its QR code;
//!   [`menus_page`]: `/menus`, the host's page for composing them; [`shopping`]:
//!   `/api/bar/shopping` and `/shopping`, the household's shopping list.
//! - [`photos`]: a recipe's photos through the API and their files; [`photo_pages`]: the
//!   same without JavaScript (a photo's page, the upload, delete, restore and cover forms).
//! - [`params`]: what an address asks for; [`body`]: the API's JSON bodies, repeated keys
//!   found.
//!
//! [`WebError`]: crate::error::WebError

pub(crate) mod api;
pub(crate) mod bar;
pub(crate) mod body;
pub(crate) mod edit_api;
pub(crate) mod edit_pages;
pub(crate) mod files;
pub(crate) mod guest;
pub(crate) mod household;
pub(crate) mod household_archive;
pub(crate) mod import;
pub(crate) mod import_pages;
pub(crate) mod menu;
pub(crate) mod menus_page;
pub(crate) mod pages;
pub(crate) mod params;
pub(crate) mod photo_pages;
pub(crate) mod photos;
pub(crate) mod shelf;
pub(crate) mod shopping;
pub(crate) mod whoami;
