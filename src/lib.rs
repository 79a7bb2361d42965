//! Libations: a private cocktail-recipe web app that lives on a tailnet.
//!
//! - [`app`]: the process: [`run`] wires it all together (logging, start-up, listeners).
//! - [`cli`]: the command-line flags.
//! - [`recipes`]: the data model, loading and validating a recipes file.
//! - [`text`]: folding text for comparison, and where words start.
//! - [`search`]: the one definition of what a query matches.
//! - [`units`]: amounts in ml, cl or oz, and for more servings.
//! - [`ingredients`]: the shelf's names for ingredients, staples, what a recipe needs.
//! - [`web`]: the router, pages and embedded assets ([`web::app`]).
//! - [`connections`]: speaking HTTP on connections, wherever they come from; graceful drain.
//! - `tailnet` (feature, on by default): the embedded Tailscale node, HTTPS with the
//!   tailnet's certificate, and the :80 redirect.
//! - [`signals`]: SIGINT/SIGTERM/SIGHUP, safe next to the Go runtime.
//! - [`credentials`]: files handed over by systemd (`$CREDENTIALS_DIRECTORY`), auth keys.
//! - [`reload`]: live reload of the recipes file (SIGHUP, file changes).
//! - [`metrics`]: Prometheus metrics and health checks on their own listener.
//! - [`memory`]: allocator settings for start-up and for serving.
//! - [`profile`]: CPU profiles in pprof's format, on the metrics listener.
//! - [`household`]: the bar's shelf and each person's favourites, ratings, notes and log.
//! - [`import`]: reading recipes from other formats (JSON-LD, Bar Assistant, Markdown), writing ours in them.
//! - [`strength`]: how strong a recipe is: ABV, volume and standard drinks, with dilution.
//! - [`store`]: adding, editing, deleting and undoing recipes, safely on disk.
//! - [`strict_json`]: JSON read with every repeated key named, for writes and backups.
//! - [`tasks`]: waiting for background tasks without losing their panics.

pub(crate) mod app;
pub mod cli;
pub(crate) mod connections;
pub(crate) mod credentials;
pub(crate) mod digest;
pub mod fetch;
pub mod household;
pub mod import;
pub mod ingredients;
pub(crate) mod memory;
pub mod metrics;
pub(crate) mod profile;
pub mod recipes;
pub(crate) mod reload;
pub mod search;
pub(crate) mod signals;
pub mod store;
pub mod strength;
pub mod strict_json;
#[cfg(feature = "tailnet")]
pub mod tailnet;
/// Without the `tailnet` feature: only `--tailnet-listener`'s values, so that the flag
/// parses the same in every build.
#[cfg(not(feature = "tailnet"))]
pub mod tailnet {
    mod mode;
    pub(crate) use mode::TailnetListener;
}
pub(crate) mod tasks;
pub mod text;
pub(crate) mod units;
pub mod web;

pub use app::run;

#[cfg(test)]
mod module_graph;
