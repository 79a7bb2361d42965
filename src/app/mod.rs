//! The process: what `main` runs once the flags are parsed.
//!
//! `libations check FILE` validates a file and exits. Serving loads the recipes before
//! anything listens (a bad file fails fast, exit code 1), then wires the pieces together
//! and runs until SIGINT or SIGTERM asks it to drain and stop (exit code 0):
//!
//! - [`logging`]: tracing to stderr, as text or JSON.
//! - [`check`]: the `check` command and the household's (`import-household`,
//!   `repair-household`); [`restore`]: the household archive loaded, and the photo side
//!   of those checks; [`import`]: `libations import`.
//! - [`startup`]: recipes and assets read in parallel, then the async runtime.
//! - [`serving`]: signals, the site, the reloader, the listeners, and the orderly stop.
//! - [`wiring`]: what the web layer gets from the flags (limits, who a request is from).
//! - [`routers`]: the one place both routers are made (`--local`'s, the tailnet's).
//! - [`local`] and [`tailnet`]: the two ways of listening (`--local`, or the tailnet node).
//! - [`monitoring`]: the metrics and health listener (`--metrics-addr`).
//! - [`shared`], [`bind`], [`error`]: what the rooms above share (what every listener
//!   gets, listening on a TCP address, [`RunError`]), in rooms of their own so that every
//!   arrow between rooms points one way.

mod bind;
mod check;
mod error;
mod import;
mod local;
mod logging;
mod monitoring;
mod restore;
mod routers;
mod serving;
mod shared;
mod startup;
mod tailnet;
mod wiring;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

pub(crate) use error::RunError;

/// Runs the command the flags ask for and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    logging::init(cli.log_format, cli.log_level.as_deref());
    let result = match &cli.command {
        Some(Command::Check { file, household }) => {
            return check::check(file.as_deref(), household.as_deref());
        }
        Some(Command::ImportHousehold {
            file,
            state_dir,
            recipes_file,
        }) => {
            return check::import_household(file, state_dir.as_deref(), recipes_file.as_deref());
        }
        Some(Command::RepairHousehold {
            recipes_file,
            state_dir,
        }) => {
            return check::repair_household(recipes_file, state_dir.as_deref());
        }
        Some(Command::Import { file, into }) => {
            return import::import_file(file, into, cli.serve.limits.max_recipes_bytes);
        }
        None => startup::serve_blocking(&cli.serve),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("libations: {e}");
            ExitCode::FAILURE
        }
    }
}
