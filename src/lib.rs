//! Libations: a private cocktail-recipe web app that lives on a tailnet.
//!
//! - [`recipes`]: the data model, loading and validating a recipes file.
//! - [`search`]: the one definition of what a query matches.
//! - [`web`]: the router, pages and embedded assets ([`web::app`]).
//! - [`serve`]: speaking HTTP on connections, wherever they come from; graceful drain.
//! - [`cli`]: flags; [`run`] wires it all together.

pub mod cli;
pub mod recipes;
pub mod search;
pub mod serve;
pub mod web;

use cli::{Cli, Command, LogFormat, ServeArgs};
use recipes::{LoadError, Recipes};
use serve::Connections;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use web::{AppState, Assets, Site, SiteError};

/// How long shutdown waits for in-flight requests.
const DRAIN_DEADLINE: Duration = Duration::from_secs(10);

/// Why the program stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Load(#[from] LoadError),
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
    #[error("{0}")]
    Usage(String),
}

/// Runs the command the flags ask for and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    init_logging(cli.log_format, cli.log_level.as_deref());
    let result = match &cli.command {
        Some(Command::Check { file }) => return check(file),
        None => serve_blocking(&cli.serve),
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

fn init_logging(format: LogFormat, level: Option<&str>) {
    use tracing_subscriber::EnvFilter;
    let filter = match level {
        Some(level) => EnvFilter::new(level),
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// `libations check FILE`: every problem on stderr and exit 1, or a summary and exit 0.
fn check(file: &Path) -> ExitCode {
    match Recipes::from_file(file) {
        Ok(recipes) => {
            let ingredients: usize = recipes.all().iter().map(|r| r.ingredients.len()).sum();
            println!(
                "{}: OK, {} recipes with {} ingredient lines",
                file.display(),
                recipes.len(),
                ingredients
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Loads the recipes named by the flags, or the embedded sample.
pub fn load_recipes(args: &ServeArgs) -> Result<Recipes, LoadError> {
    match &args.recipes_file {
        Some(path) => Recipes::from_file(path),
        None => Recipes::sample(),
    }
}

fn serve_blocking(args: &ServeArgs) -> Result<(), RunError> {
    let started = Instant::now();
    // Load before anything listens: a bad file must fail fast, with exit code 1.
    let recipes = load_recipes(args)?;
    tracing::info!(
        recipes = recipes.len(),
        from = %recipes.origin(),
        "loaded {} recipes from {}",
        recipes.len(),
        recipes.origin()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    let result = runtime.block_on(serve(args, recipes, started));
    // Background work (compressing a large list page) must not hold up the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

async fn serve(args: &ServeArgs, recipes: Recipes, started: Instant) -> Result<(), RunError> {
    let assets = Arc::new(Assets::load());
    let site = Arc::new(Site::new(recipes, &assets)?);
    let compressing = site.clone();
    tokio::task::spawn_blocking(move || compressing.compress());
    let connections = Connections::new(web::app(AppState { site, assets }));
    if !args.local {
        return Err(RunError::Usage(
            "joining a tailnet is not available in this build; run with --local".into(),
        ));
    }
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .map_err(|source| RunError::Bind {
            addr: args.addr,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| RunError::Bind {
        addr: args.addr,
        source,
    })?;
    tracing::info!(
        url = %format!("http://{addr}/"),
        startup_ms = started.elapsed().as_millis() as u64,
        "serving on http://{addr}/"
    );
    let accepting = tokio::spawn(serve::accept_tcp(listener, connections.clone()));
    serve::shutdown_signal().await;
    tracing::info!("shutting down: finishing requests in flight");
    let left = connections.drain(DRAIN_DEADLINE).await;
    let _ = accepting.await;
    if left > 0 {
        tracing::warn!(
            connections = left,
            "closed connections still open at the drain deadline"
        );
    }
    tracing::info!("stopped");
    Ok(())
}
