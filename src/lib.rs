//! Libations: a private cocktail-recipe web app that lives on a tailnet.
//!
//! - [`recipes`]: the data model, loading and validating a recipes file.
//! - [`search`]: the one definition of what a query matches.
//! - [`units`]: amounts in ml, cl or oz, and for more servings.
//! - [`ingredients`]: the shelf's names for ingredients, staples, what a recipe needs.
//! - [`web`]: the router, pages and embedded assets ([`web::app`]).
//! - [`serve`]: speaking HTTP on connections, wherever they come from; graceful drain.
//! - `tailnet` (feature, on by default): the embedded Tailscale node, HTTPS with the
//!   tailnet's certificate, and the :80 redirect.
//! - [`signals`]: SIGINT/SIGTERM/SIGHUP, safe next to the Go runtime.
//! - [`credentials`]: files handed over by systemd (`$CREDENTIALS_DIRECTORY`), auth keys.
//! - [`reload`]: live reload of the recipes file (SIGHUP, file changes).
//! - [`metrics`]: Prometheus metrics and health checks on their own listener.
//! - [`memory`]: allocator settings for start-up and for serving.
//! - [`profile`]: CPU profiles in pprof's format, on the metrics listener.
//! - [`cli`]: flags; [`run`] wires it all together.

pub mod cli;
pub mod credentials;
pub mod ingredients;
pub mod memory;
pub mod metrics;
pub mod profile;
pub mod recipes;
pub mod reload;
pub mod search;
pub mod serve;
pub mod signals;
#[cfg(feature = "tailnet")]
pub mod tailnet;
pub mod units;
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
use tokio_util::sync::CancellationToken;
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
    #[error("cannot listen for signals: {0}")]
    Signals(std::io::Error),
    #[cfg(feature = "tailnet")]
    #[error(transparent)]
    Tailnet(#[from] tailnet::TailnetError),
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

/// `libations check FILE`: every problem on stderr and exit 1, or the warnings (stderr)
/// and a summary and exit 0.
fn check(file: &Path) -> ExitCode {
    match Recipes::from_file(file) {
        Ok(recipes) => {
            for w in recipes.warnings() {
                eprintln!("warning: {w}");
            }
            let ingredients: usize = recipes.all().iter().map(|r| r.ingredients.len()).sum();
            let warnings = match recipes.warnings().len() {
                0 => String::new(),
                n => format!("; {n} warning(s) above: it loads, but is not exact"),
            };
            println!(
                "{}: OK, {} recipes with {} ingredient lines{warnings}",
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
        Some(path) => Ok(Recipes::from_file_at_most(
            &credentials::resolve(path)?,
            args.limits.max_recipes_bytes,
        )?),
        None => Ok(Recipes::sample()?),
    }
}

fn serve_blocking(args: &ServeArgs) -> Result<(), RunError> {
    let started = Instant::now();
    memory::loading();
    // Assets (reading, hashing) do not depend on the recipes: prepare them on another
    // core while the file loads.
    let assets = std::thread::spawn(Assets::load);
    // Stamp the file before reading it, so that the watcher cannot miss an edit made while
    // we load.
    let stamp = match &args.recipes_file {
        Some(path) => credentials::resolve(path)
            .ok()
            .and_then(|p| reload::Stamp::of(&p)),
        None => None,
    };
    // Load before anything listens: a bad file must fail fast, with exit code 1.
    let recipes = load_recipes(args)?;
    let assets = match assets.join() {
        Ok(assets) => Arc::new(assets),
        Err(panic) => std::panic::resume_unwind(panic),
    };
    recipes.log_warnings();
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
    let result = runtime.block_on(serve(args, recipes, assets, stamp, started));
    // Background work (compressing a large list page) must not hold up the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

async fn serve(
    args: &ServeArgs,
    recipes: Recipes,
    assets: Arc<Assets>,
    stamp: Option<reload::Stamp>,
    started: Instant,
) -> Result<(), RunError> {
    // Signals first: from here on, SIGTERM means "drain and exit 0", never "die".
    let stopping = CancellationToken::new();
    let mut signals = signals::Shutdown::new().map_err(RunError::Signals)?;
    tokio::spawn({
        let stopping = stopping.clone();
        async move {
            let name = signals.recv().await;
            tracing::info!("{name}: shutting down, finishing requests in flight");
            stopping.cancel();
        }
    });

    let metrics = Arc::new(Metrics::new());
    metrics.reloaded(Ok(recipes.len()));
    let site = Arc::new(Site::new(recipes, &assets)?);
    // Compression (brotli quality 11) waits until we serve: small assets first, then the
    // large bodies. Until a body is compressed, it is sent as it is.
    let compressing = (site.clone(), assets.clone());
    tokio::task::spawn_blocking(move || {
        compressing.1.compress();
        compressing.0.compress();
        memory::serving();
    });
    let site = Arc::new(ArcSwap::new(site));
    let state = AppState {
        site: site.clone(),
        assets: assets.clone(),
        metrics: metrics.clone(),
        limits: RequestLimits {
            max_uri_bytes: args.limits.max_uri_bytes,
            max_body_bytes: args.limits.max_body_bytes,
            body_timeout: Duration::from_secs(args.limits.body_timeout),
        },
        searches: web::SearchGate::for_this_machine(),
        who: who_resolves(args)?,
        access_log: args.access_log,
    };
    let app = web::app(state.clone());
    let reloader = Reloader::new(
        args.recipes_file.clone(),
        stamp,
        site,
        assets,
        metrics.clone(),
        args.limits.max_recipes_bytes,
    );
    let reloading = tokio::spawn(reloader.run(stopping.clone()));
    let hosts = web::AllowedHosts::new(&args.allowed_hosts);
    if let Some(addr) = args.metrics_addr {
        serve_metrics(
            addr,
            metrics.clone(),
            hosts.clone(),
            &args.limits,
            stopping.clone(),
        )
        .await?;
    }
    let budget = Arc::new(serve::Budget::new(
        args.limits.max_unsent_bytes_per_connection,
        args.limits.max_unsent_bytes,
    ));
    if args.local {
        let app = web::for_hosts(app, hosts);
        serve_local(args, app, metrics, budget, stopping, started).await?;
    } else {
        serve_tailnet(args, state, metrics, budget, stopping).await?;
    }
    let _ = reloading.await;
    tracing::info!("stopped");
    Ok(())
}

/// Who a request comes from until the tailnet says otherwise: with `--local`, the
/// `--local-identity`; on the tailnet nobody, until the node's WhoIs is wired in.
fn who_resolves(args: &ServeArgs) -> Result<Arc<dyn web::Resolve>, RunError> {
    web::identity::check_capability_name(&args.tailnet.app_capability).map_err(RunError::Usage)?;
    if !args.local {
        return Ok(Arc::new(web::identity::Fixed::default()));
    }
    let login = args.local_identity.trim();
    if login.is_empty() || login.chars().any(char::is_control) {
        return Err(RunError::Usage(format!(
            "--local-identity {:?}: give a login such as you@local",
            args.local_identity
        )));
    }
    let capabilities = web::Capabilities {
        edit: args.local_edit,
    };
    Ok(Arc::new(web::identity::Fixed::local(login, capabilities)))
}

/// `--local`: plain HTTP on an ordinary TCP address, until shutdown.
async fn serve_local(
    args: &ServeArgs,
    app: axum::Router,
    metrics: Arc<Metrics>,
    budget: Arc<serve::Budget>,
    stopping: CancellationToken,
    started: Instant,
) -> Result<(), RunError> {
    let (listener, addr) = bind(args.addr).await?;
    let connections = Connections::new(
        app,
        connection_limits(&args.limits),
        metrics.clone(),
        stopping.clone(),
        budget,
    );
    tracing::info!(
        startup_ms = started.elapsed().as_millis() as u64,
        "serving on http://{addr}/"
    );
    metrics.set_ready(true);
    serve::accept_tcp(listener, connections.clone()).await;
    let left = connections
        .drain(Duration::from_secs(args.limits.drain_timeout))
        .await;
    if left > 0 {
        tracing::warn!(
            connections = left,
            "closed connections still open at the drain deadline"
        );
    }
    Ok(())
}

#[cfg(feature = "tailnet")]
async fn serve_tailnet(
    args: &ServeArgs,
    state: AppState,
    metrics: Arc<Metrics>,
    budget: Arc<serve::Budget>,
    stopping: CancellationToken,
) -> Result<(), RunError> {
    let t = &args.tailnet;
    let auth_key = match &t.auth_key_file {
        Some(path) => Some(credentials::read_auth_key(path)?),
        None => std::env::var("TS_AUTHKEY")
            .ok()
            .filter(|k| !k.trim().is_empty()),
    };
    let state_dir = state_dir(t.state_dir.as_deref())?;
    // Before the node starts: with the Go version's state copied in, it is the same machine.
    tailnet::adopt::adopt_go_state(&state_dir, &args.hostname)
        .map_err(tailnet::TailnetError::from)?;
    let server = tailnet::serve::TailnetServer {
        node: tailnet::NodeConfig {
            hostname: args.hostname.clone(),
            state_dir,
            auth_key,
            control_url: t.control_url.clone(),
            ephemeral: t.ephemeral,
            forward_logs: t.tsnet_logs,
        },
        state,
        capability: t.app_capability.clone(),
        listener: t.tailnet_listener,
        limits: connection_limits(&args.limits),
        metrics,
        budget,
        stopping,
        drain: Duration::from_secs(args.limits.drain_timeout),
    };
    Ok(server.run().await?)
}

#[cfg(not(feature = "tailnet"))]
async fn serve_tailnet(
    _: &ServeArgs,
    _: AppState,
    _: Arc<Metrics>,
    _: Arc<serve::Budget>,
    _: CancellationToken,
) -> Result<(), RunError> {
    Err(RunError::Usage(
        "this build has no tailnet support (built without the `tailnet` feature); run with --local"
            .into(),
    ))
}

/// `--state-dir`, else `$XDG_STATE_HOME/libations`, else `~/.local/state/libations`.
#[cfg(feature = "tailnet")]
fn state_dir(flag: Option<&Path>) -> Result<std::path::PathBuf, RunError> {
    if let Some(dir) = flag {
        return Ok(dir.to_owned());
    }
    let env = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    };
    if let Some(state) = env("XDG_STATE_HOME") {
        return Ok(state.join("libations"));
    }
    match env("HOME") {
        Some(home) => Ok(home.join(".local/state/libations")),
        None => Err(RunError::Usage(
            "no --state-dir given and neither XDG_STATE_HOME nor HOME is set".into(),
        )),
    }
}

fn connection_limits(args: &LimitArgs) -> Limits {
    Limits {
        header_read_timeout: Duration::from_secs(args.header_timeout),
        write_timeout: Duration::from_secs(args.write_timeout),
        max_connections: args.max_connections,
        max_header_bytes: args.max_header_bytes,
        h2_max_streams: args.h2_max_streams,
        h2_stream_window: args.h2_stream_window,
        h2_connection_window: args.h2_connection_window,
        max_unsent_bytes_per_connection: args.max_unsent_bytes_per_connection,
        max_unsent_bytes: args.max_unsent_bytes,
    }
}

async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), RunError> {
    let bind_err = |source| RunError::Bind { addr, source };
    let listener = TcpListener::bind(addr).await.map_err(bind_err)?;
    let local = listener.local_addr().map_err(bind_err)?;
    Ok((listener, local))
}

/// The metrics and health listener; it stops when shutdown starts.
///
/// It is held to the same deadlines as the app's listeners, with fewer connections: a
/// scraper needs one or two, and silent sockets here must not use up the process's file
/// descriptors. Its connections are not counted in the app's connection metrics.
async fn serve_metrics(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
    hosts: web::AllowedHosts,
    limits: &LimitArgs,
    stopping: CancellationToken,
) -> Result<(), RunError> {
    /// Open connections on the metrics listener at most.
    const MAX_CONNECTIONS: usize = 32;
    let (listener, addr) = bind(addr).await?;
    tracing::info!("metrics on http://{addr}/metrics");
    let connections = Connections::new(
        web::for_hosts(metrics::router(metrics), hosts),
        Limits {
            max_connections: MAX_CONNECTIONS,
            ..connection_limits(limits)
        },
        Arc::new(Metrics::new()),
        stopping,
        Arc::new(serve::Budget::new(
            limits.max_unsent_bytes_per_connection,
            limits.max_unsent_bytes_per_connection,
        )),
    );
    tokio::spawn(serve::accept_tcp(listener, connections));
    Ok(())
}
