//! Libations: a private cocktail-recipe web app that lives on a tailnet.
//!
//! This crate is the binary's: the process and its flags. The rooms it builds on are
//! crates of their own (docs/ARCHITECTURE.md), re-exported here under the names the code
//! and the tests know them by:
//!
//! - `libations-model`: [`recipes`], [`text`], [`units`], [`ingredients`], [`makes`],
//!   [`search`], [`strength`], [`vocabulary`], [`digest`], [`strict_json`].
//! - `libations-store`: [`store`], changing the recipes file safely.
//! - `libations-household`: [`household`], the household's SQLite state.
//! - `libations-import`: [`import`] and [`fetch`], recipes from elsewhere.
//! - `libations-photos`: [`photos`], photos' files and the household archive.
//! - `libations-web`: [`web`] (the router, pages, assets), [`connections`], [`metrics`],
//!   [`tasks`].
//! - `libations-tailnet`: [`tailnet`], the embedded Tailscale node (only with the
//!   `tailnet` feature; without it only `--tailnet-listener`'s values).
//!
//! Its own rooms:
//! - [`app`]: the process: [`run`] wires it all together (logging, start-up, listeners).
//! - [`cli`]: the command-line flags.
//! - [`signals`]: SIGINT/SIGTERM/SIGHUP, safe next to the Go runtime.
//! - [`credentials`]: files handed over by systemd (`$CREDENTIALS_DIRECTORY`), auth keys.
//! - [`reload`]: live reload of the recipes file (SIGHUP, file changes).
//! - [`memory`]: allocator settings for start-up and for serving.
//! - [`profile`]: CPU profiles in pprof's format, on the metrics listener.

pub use libations_household as household;
pub use libations_import as import;
pub use libations_import::fetch;
pub use libations_model::{
    digest, ingredients, makes, recipes, search, strength, strict_json, text, units, vocabulary,
};
pub use libations_photos as photos;
pub use libations_store as store;
pub use libations_tailnet as tailnet;
pub use libations_web as web;
pub use libations_web::{connections, metrics, tasks};

pub(crate) mod app;
pub mod cli;
pub(crate) mod credentials;
pub(crate) mod memory;
pub(crate) mod profile;
pub(crate) mod reload;
pub(crate) mod signals;

pub use app::run;

#[cfg(test)]
mod module_graph;
