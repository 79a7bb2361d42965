//! The web layer: the router, its handlers and what they render, in rooms with one job
//! each. Arrows point one way (`a → b`: a imports b):
//!
//! - `http` → nothing: encoding negotiation, ETags and 304s, compression (whole, as a body
//!   is written, spliced), the answers kept for recent searches, `Cache-Control` values.
//! - `guard` → nothing: request limits, the `Host` allow-list, the gate for heavy work.
//! - `view` → nothing: the values each askama template is given, and their helpers.
//! - `site` → view, http: everything rendered from one loaded collection.
//! - `error` → site, guard, http: one error type that is the response (an HTML page, or
//!   JSON under `/api/`).
//! - `who` → error: who is asking, what they may change, the change pipeline, the access
//!   log.
//! - `handlers` → who, site, view, guard, http, error: thin handlers by purpose.
//! - `state` → site, guard, who: [`AppState`], what the handlers share.
//! - `router` → state, handlers, who, error, guard: [`app`], the one `Router` that
//!   `--local`, the tailnet and the tests all serve, and [`guests`], what guests reach.
//! - `guest_port` → router, state, handlers, who, guard: [`guest_port()`], the guests' own listener
//!   on the internet (Funnel): [`guests`] alone, nobody known, a rate per source address.
//!
//! A new page is a handler in `handlers::pages` returning `Result<Response, WebError>` (`?`
//! does the rest), a template struct with a `Chrome` in `view::templates` rendered by a
//! `Site` method, and a route in `router::app`. An API route wraps its error and
//! extractors in `Api`.
//!
//! Crate `libations-web`: it may use libations-model, libations-store, libations-household and libations-import (the `use`s below name the rooms).

// The rooms of other crates this one uses, under the names the code knows them by.
use libations_household as household;
use libations_import as import;
use libations_import::fetch;
use libations_model::{
    digest, ingredients, makes, recipes, search, strength, strict_json, text, units, vocabulary,
};
use libations_store as store;

pub mod connections;
pub mod metrics;
pub mod tasks;

mod error;
mod guard;
mod guest_port;
mod handlers;
mod http;
mod photo_room;
mod router;
mod site;
mod state;
mod view;
mod who;

pub use guard::gate::HeavyGate;
pub use guard::host::AllowedHosts;
pub use guard::limits::{BUFFERED_BODY_BYTES, RequestLimits};
pub use guest_port::guest_port;
pub use router::for_hosts;
pub use router::{Registered, app, guests, registered};
pub use site::{Assets, PublishError, Publisher, Site, SiteError};
pub use state::AppState;
pub use who::editing::{Editing, Publish};
pub use who::household_door::HouseholdDoor;
pub use who::identity;
pub use who::identity::{Capabilities, Resolve};
