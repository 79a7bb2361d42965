//! Serving: from loaded recipes to listeners, and the orderly stop.

use super::routers::{self, Facing};
use super::shared::Shared;
use super::{RunError, local, monitoring, tailnet, wiring};
use crate::cli::ServeArgs;
use crate::connections::Budget;
use crate::metrics::Metrics;
use crate::recipes::{Recipes, Stamp};
use crate::reload::Reloader;
use crate::web::{self, Assets, Site};
use crate::{memory, signals, strength, tasks};
use arc_swap::ArcSwap;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// What the server starts with: the recipes, the assets, and the file's [`Stamp`] from
/// before the recipes were read (made by [`super::startup`]).
pub(super) struct Loaded {
    pub recipes: Recipes,
    pub assets: Arc<Assets>,
    pub stamp: Option<Stamp>,
}

/// Serves until SIGINT or SIGTERM, then drains and returns.
pub(super) async fn serve(
    args: &ServeArgs,
    loaded: Loaded,
    started: Instant,
) -> Result<(), RunError> {
    if args.local && args.tailnet.guest_menu_funnel {
        return Err(RunError::Usage(
            "--guest-menu-funnel serves the guests' menu through the tailnet node's Funnel, so it does not go with --local".into(),
        ));
    }
    // Signals first: from here on, SIGTERM means "drain and exit 0", never "die".
    let stopping = stop_on_signal()?;
    let metrics = Arc::new(Metrics::new());
    metrics.loaded(loaded.recipes.len());
    let home = wiring::home(args)?;
    let site = start_site(loaded.recipes, &loaded.assets, own_strengths(&home))?;
    let publisher = web::Publisher::new(site, loaded.assets, metrics.clone());
    let reloader = Reloader::new(
        args.recipes_file.clone(),
        loaded.stamp,
        publisher.clone(),
        metrics.clone(),
        args.limits.max_recipes_bytes,
    );
    let editing = wiring::editing(args, Arc::new(reloader.clone()));
    let state = wiring::app_state(args, publisher, metrics.clone(), editing, home)?;
    let reloading = tokio::spawn(reloader.run(stopping.clone()));
    let hosts = web::AllowedHosts::new(&args.allowed_hosts);
    if let Some(addr) = args.metrics_addr {
        monitoring::serve_metrics(addr, &metrics, hosts.clone(), &args.limits, &stopping).await?;
    }
    let shared = Shared {
        metrics,
        budget: Arc::new(Budget::new(
            args.limits.max_unsent_bytes_per_connection,
            args.limits.max_unsent_bytes,
        )),
        stopping,
    };
    if args.local {
        let app = routers::router(state, Facing::Local(hosts));
        local::serve_local(args, app, shared, started).await?;
    } else {
        tailnet::serve_tailnet(args, state, shared).await?;
    }
    tasks::join("the recipe reloader", reloading).await;
    tracing::info!("stopped");
    Ok(())
}

/// A token cancelled on the first SIGINT or SIGTERM.
fn stop_on_signal() -> Result<CancellationToken, RunError> {
    let stopping = CancellationToken::new();
    let mut signals = signals::Shutdown::new().map_err(RunError::Signals)?;
    tokio::spawn({
        let stopping = stopping.clone();
        async move {
            let name = signals.recv().await;
            // Cancelled before anything else can go wrong in this task.
            stopping.cancel();
            tracing::info!("{name}: shutting down, finishing requests in flight");
        }
    });
    Ok(stopping)
}

/// The household's own strengths, read before the first collection is worked out with
/// them (none when there is no household, or it cannot be read: logged).
fn own_strengths(home: &web::HouseholdDoor) -> strength::Household {
    let Some(db) = home.db() else {
        return strength::Household::new();
    };
    match db.strength_table() {
        Ok(table) => table,
        Err(e) => {
            tracing::warn!("the household's strengths could not be read: {e}");
            strength::Household::new()
        }
    }
}

/// The site to serve, swappable by reloads. Compression (brotli quality 11) waits until
/// we serve: small assets first, then the large bodies. Until a body is compressed, it
/// is sent as it is.
fn start_site(
    recipes: Recipes,
    assets: &Arc<Assets>,
    own: strength::Household,
) -> Result<Arc<ArcSwap<Site>>, RunError> {
    let site = Arc::new(Site::new(recipes, assets, Arc::new(own))?);
    let compressing = (site.clone(), assets.clone());
    tokio::task::spawn_blocking(move || {
        compressing.1.compress();
        compressing.0.compress();
        memory::serving();
    });
    Ok(Arc::new(ArcSwap::new(site)))
}
