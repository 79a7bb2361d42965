//! The process: what `main` runs once the flags are parsed.
//!
//! `libations check FILE` validates a file and exits. Serving loads the recipes before
//! anything listens (a bad file fails fast, exit code 1), then wires the pieces together
//! and runs until SIGINT or SIGTERM asks it to drain and stop (exit code 0):
//!
//! - [`logging`]: tracing to stderr, as text or JSON.
//! - [`check`]: the `check` command.
//! - [`startup`]: recipes and assets read in parallel, then the async runtime.
//! - [`serving`]: signals, the site, the reloader, the listeners, and the orderly stop.
//! - [`state`]: what the web layer gets from the flags (limits, who a request is from).
//! - [`local`] and [`tailnet`]: the two ways of listening (`--local`, or the tailnet node).
//! - [`monitoring`]: the metrics and health listener (`--metrics-addr`).

mod check;
mod local;
mod logging;
mod monitoring;
mod serving;
mod startup;
mod state;
mod tailnet;

use crate::cli::{Cli, Command};
use crate::credentials::CredentialError;
use crate::recipes::LoadError;
use crate::web::SiteError;
use std::process::ExitCode;

/// Why the program stopped with an error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(transparent)]
    Site(#[from] SiteError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen for signals: {0}")]
    Signals(std::io::Error),
    #[cfg(feature = "tailnet")]
    #[error(transparent)]
    Tailnet(#[from] crate::tailnet::TailnetError),
    #[error("cannot create the recipes file for editing: {0}")]
    Seed(#[from] crate::store::StoreError),
    /// The flags ask for something this process cannot do; the text says which flag.
    #[error("{0}")]
    Usage(String),
}

/// Runs the command the flags ask for and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    logging::init(cli.log_format, cli.log_level.as_deref());
    let result = match &cli.command {
        Some(Command::Check { file }) => return check::check(file),
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
