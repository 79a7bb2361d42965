//! The web layer: the router, its handlers and what they render.
//!
//! - [`app`] (`router`): the one `Router` that `--local`, the tailnet and the tests all
//!   serve, and [`AppState`], what its handlers share.
//! - Handlers by purpose: `pages` (list, search, recipe, not found), `api` (JSON),
//!   `shelf`, `files` (assets, service worker, manifest), [`identity`] (`/api/whoami`).
//! - Changing recipes: `editing` (who may, and the checks every change passes),
//!   `edit_api` (the JSON API; `body`: its JSON, repeated keys found), `edit_pages` (the
//!   forms and history, without JavaScript), `draft` (the recipe form as posted: its
//!   fields, rows and row buttons).
//! - `params`: what an address asks for (`?q=`, `?units=&serves=`, a recipe id or change
//!   number in the path).
//! - `error`: one error type, answered as an HTML page or as JSON (everything under
//!   `/api/` is JSON).
//! - `guard`: refuses malformed or oversized requests before any handler sees them.
//! - [`Site`] (`site`): everything rendered from one loaded collection (`spliced`: its
//!   recipe pages as brotli around the list compressed once); `templates`: the
//!   values each askama template is given; `cached`: fixed bodies with ETags and
//!   compression; [`Assets`] (`assets`): embedded static files under hashed names.
//! - [`SearchGate`] (`gate`): CPU-heavy work a few at a time; `host`: the `Host` check
//!   for plain-HTTP listeners; `glass`, `links`: a recipe's glass icon and note links.
//!
//! A new page is a handler in `pages` returning `Result<Response, WebError>` (`?` does the
//! rest), a template struct with a `Chrome` in `templates` rendered by a `Site` method, and
//! a route in `router::app`. An API route wraps its error and extractors in `Api`.

mod answer;
mod api;
mod assets;
mod body;
mod cached;
mod draft;
mod edit_api;
mod edit_pages;
mod editing;
mod error;
mod files;
mod gate;
mod glass;
mod guard;
mod host;
pub mod identity;
mod links;
mod pages;
mod params;
mod recent;
mod router;
mod shelf;
mod site;
mod spliced;
mod templates;

pub use assets::Assets;
pub use editing::{Editing, Publish};
pub use gate::SearchGate;
pub(crate) use host::AllowedHosts;
pub(crate) use identity::{Capabilities, Resolve};
pub(crate) use router::for_hosts;
pub use router::{AppState, RequestLimits, app};
pub use site::{Site, SiteError};
