//! The metrics and health listener (`--metrics-addr`).

use super::bind::bind;
use super::{RunError, wiring};
use crate::cli::LimitArgs;
use crate::connections::{self, Budget, Connections, Limits};
use crate::metrics::{self, Metrics};
use crate::web;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Open connections on the metrics listener at most.
const MAX_CONNECTIONS: usize = 32;

/// Starts the metrics listener; it stops when shutdown starts.
///
/// It is held to the same deadlines as the app's listeners, with fewer connections: a
/// scraper needs one or two, and silent sockets here must not use up the process's file
/// descriptors. Its connections are not counted in the app's connection metrics.
pub(super) async fn serve_metrics(
    addr: SocketAddr,
    metrics: &Arc<Metrics>,
    hosts: web::AllowedHosts,
    limits: &LimitArgs,
    stopping: &CancellationToken,
) -> Result<(), RunError> {
    let (listener, addr) = bind(addr).await?;
    tracing::info!("metrics on http://{addr}/metrics");
    let connections = Connections::new(
        web::for_hosts(
            metrics::router(metrics.clone()).route(
                "/debug/pprof/profile",
                axum::routing::get(crate::profile::cpu),
            ),
            hosts,
        ),
        Limits {
            max_connections: MAX_CONNECTIONS,
            ..wiring::connection_limits(limits)
        },
        Arc::new(Metrics::new()),
        stopping.clone(),
        Arc::new(Budget::new(
            limits.max_unsent_bytes_per_connection,
            limits.max_unsent_bytes_per_connection,
        )),
    );
    tokio::spawn(connections::accept_tcp(listener, connections));
    Ok(())
}
