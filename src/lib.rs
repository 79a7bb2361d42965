//! Libations: a private cocktail-recipe web app that lives on a tailnet.
//!
//! - [`recipes`]: the data model, loading and validating a recipes file.
//! - [`search`]: the one definition of what a query matches.
//! - [`web`]: the router, pages and embedded assets ([`web::app`]).
//! - [`serve`]: speaking HTTP on connections, wherever they come from; graceful drain.
//! - [`credentials`]: files handed over by systemd (`$CREDENTIALS_DIRECTORY`), auth keys.
//! - [`reload`]: live reload of the recipes file (SIGHUP, file changes).
//! - [`metrics`]: Prometheus metrics and health checks on their own listener.
//! - [`cli`]: flags; [`run`] wires it all together.

pub mod cli;
pub mod credentials;
pub mod metrics;
pub mod recipes;
pub mod reload;
pub mod search;
pub mod serve;
pub mod web;

use arc_swap::ArcSwap;
use cli::{Cli, Command, LimitArgs, LogFormat, ServeArgs};
use metrics::Metrics;
use recipes::{LoadError, Recipes};
use reload::Reloader;
use serve::{Connections, Limits};
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use web::{AppState, Assets, RequestLimits, Site, SiteError};

/// Why the program stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Credential(#[from] credentials::CredentialError),
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
/// A relative `--recipes-file` is looked up in `$CREDENTIALS_DIRECTORY` when that is set.
pub fn load_recipes(args: &ServeArgs) -> Result<Recipes, RunError> {
    match &args.recipes_file {
        Some(path) => Ok(Recipes::from_file(&credentials::resolve(path)?)?),
        None => Ok(Recipes::sample()?),
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
    let metrics = Arc::new(Metrics::new());
    metrics.reloaded(Ok(recipes.len()));
    let assets = Arc::new(Assets::load());
    let site = Arc::new(Site::new(recipes, &assets)?);
    let compressing = site.clone();
    tokio::task::spawn_blocking(move || compressing.compress());
    let site = Arc::new(ArcSwap::new(site));
    let limits = &args.limits;
    let state = AppState {
        site: site.clone(),
        assets: assets.clone(),
        metrics: metrics.clone(),
        limits: RequestLimits {
            max_uri_bytes: limits.max_uri_bytes,
            max_body_bytes: limits.max_body_bytes,
        },
    };
    let connections = Connections::new(web::app(state), connection_limits(limits), metrics.clone());
    let stopping = connections.stopping();
    let reloader = Reloader::new(args.recipes_file.clone(), site, assets, metrics.clone());
    let reloading = tokio::spawn(reloader.run(stopping.clone()));
    if let Some(addr) = args.metrics_addr {
        serve_metrics(addr, metrics.clone(), stopping.clone()).await?;
    }
    if !args.local {
        return Err(RunError::Usage(
            "joining a tailnet is not available in this build; run with --local".into(),
        ));
    }
    let accepting = serve_local(args.addr, &connections, started).await?;
    metrics.set_ready(true);
    serve::shutdown_signal().await;
    tracing::info!("shutting down: finishing requests in flight");
    let left = connections
        .drain(Duration::from_secs(limits.drain_timeout))
        .await;
    let _ = accepting.await;
    let _ = reloading.await;
    if left > 0 {
        tracing::warn!(
            connections = left,
            "closed connections still open at the drain deadline"
        );
    }
    tracing::info!("stopped");
    Ok(())
}

fn connection_limits(args: &LimitArgs) -> Limits {
    Limits {
        header_read_timeout: Duration::from_secs(args.header_timeout),
        max_connections: args.max_connections,
        max_header_bytes: args.max_header_bytes,
        h2_max_streams: args.h2_max_streams,
        h2_stream_window: args.h2_stream_window,
        h2_connection_window: args.h2_connection_window,
    }
}

async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), RunError> {
    let bind_err = |source| RunError::Bind { addr, source };
    let listener = TcpListener::bind(addr).await.map_err(bind_err)?;
    let local = listener.local_addr().map_err(bind_err)?;
    Ok((listener, local))
}

/// `--local`: plain HTTP on an ordinary TCP address.
async fn serve_local(
    addr: SocketAddr,
    connections: &Connections,
    started: Instant,
) -> Result<tokio::task::JoinHandle<()>, RunError> {
    let (listener, addr) = bind(addr).await?;
    tracing::info!(
        startup_ms = started.elapsed().as_millis() as u64,
        "serving on http://{addr}/"
    );
    Ok(tokio::spawn(serve::accept_tcp(
        listener,
        connections.clone(),
    )))
}

/// The metrics and health listener; it stops when shutdown starts.
async fn serve_metrics(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
    stopping: tokio_util::sync::CancellationToken,
) -> Result<(), RunError> {
    let (listener, addr) = bind(addr).await?;
    tracing::info!("metrics on http://{addr}/metrics");
    tokio::spawn(async move {
        let shutdown = async move { stopping.cancelled().await };
        if let Err(e) = axum::serve(listener, metrics::router(metrics))
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::warn!(error = %e, "metrics listener failed");
        }
    });
    Ok(())
}
