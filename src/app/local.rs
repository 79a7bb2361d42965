//! `--local`: plain HTTP on an ordinary TCP address.

use super::bind::bind;
use super::shared::Shared;
use super::{RunError, wiring};
use crate::cli::ServeArgs;
use crate::connections::{self, Connections};
use std::time::{Duration, Instant};

/// Serves `app` on `--addr` until shutdown, then drains the connections.
pub(super) async fn serve_local(
    args: &ServeArgs,
    app: axum::Router,
    shared: Shared,
    started: Instant,
) -> Result<(), RunError> {
    let (listener, addr) = bind(args.addr).await?;
    let connections = Connections::new(
        app,
        wiring::connection_limits(&args.limits),
        shared.metrics.clone(),
        shared.stopping,
        shared.budget,
    );
    tracing::info!(
        startup_ms = started.elapsed().as_millis() as u64,
        "serving on http://{addr}/"
    );
    shared.metrics.set_ready(true);
    connections::accept_tcp(listener, connections.clone()).await;
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
