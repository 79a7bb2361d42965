//! Serving on the tailnet (feature `tailnet`): the node's settings from the flags, the node
//! started, and its router (the app knowing who sent each request) handed to the tailnet.

use super::RunError;
use super::shared::Shared;
use crate::cli::ServeArgs;
use crate::web::AppState;

/// Joins the tailnet and serves until shutdown.
#[cfg(feature = "tailnet")]
pub(super) async fn serve_tailnet(
    args: &ServeArgs,
    state: AppState,
    shared: Shared,
) -> Result<(), RunError> {
    use super::routers::{self, Facing};
    use crate::tailnet::server::{Routers, TailnetServer};
    use crate::tailnet::{self, Node, TailnetError, funnel, whois::WhoIsCache};
    use std::sync::Arc;
    use std::time::Duration;
    let t = &args.tailnet;
    if t.guest_menu_funnel && t.tailnet_listener == tailnet::TailnetListener::Socketpair {
        return Err(RunError::Usage(
            "--guest-menu-funnel needs the node's serve config (Funnel reaches the app only through it), so it does not go with --tailnet-listener socketpair".into(),
        ));
    }
    let auth_key = auth_key(t.auth_key_file.as_deref())?;
    let node = tailnet::NodeConfig {
        hostname: args.hostname.clone(),
        state_dir: super::wiring::state_dir(t.state_dir.as_deref())?,
        auth_key,
        control_url: t.control_url.clone(),
        ephemeral: t.ephemeral,
        forward_logs: t.tsnet_logs,
    };
    // Before the node starts: with the Go version's state copied in, it is the same machine.
    tailnet::adopt::adopt_go_state(&node.state_dir, &args.hostname).map_err(TailnetError::from)?;
    let node = Arc::new(Node::start(node).await?);
    // The app, knowing who sent each request through the node's WhoIs.
    let who = WhoIsCache::new(
        node.local_api().clone(),
        t.app_capability.clone(),
        shared.metrics.clone(),
    );
    let state = AppState {
        who: Arc::new(who),
        ..state
    };
    let funnel_on = t.guest_menu_funnel;
    // Made once the node's name is known: with Funnel on, the guests' address names it.
    let make = move |domain: &str| {
        let state = AppState {
            guest_url: funnel_on.then(|| funnel::guest_url(domain)),
            ..state.clone()
        };
        Routers {
            guests: funnel_on.then(|| routers::router(state.clone(), Facing::Guests)),
            app: routers::router(state, Facing::Tailnet),
        }
    };
    let server = TailnetServer {
        node,
        routers: Box::new(make),
        listener: t.tailnet_listener,
        limits: super::wiring::connection_limits(&args.limits),
        metrics: shared.metrics,
        budget: shared.budget,
        stopping: shared.stopping,
        drain: Duration::from_secs(args.limits.drain_timeout),
    };
    Ok(server.run().await?)
}

/// Without the feature there is no tailnet to serve on.
#[cfg(not(feature = "tailnet"))]
pub(super) async fn serve_tailnet(_: &ServeArgs, _: AppState, _: Shared) -> Result<(), RunError> {
    Err(RunError::Usage(
        "this build has no tailnet support (built without the `tailnet` feature); run with --local"
            .into(),
    ))
}

/// The auth key from `--auth-key-file`, else from `TS_AUTHKEY`; none when both are unset
/// (a node with saved state needs none).
#[cfg(feature = "tailnet")]
fn auth_key(file: Option<&std::path::Path>) -> Result<Option<String>, RunError> {
    match file {
        Some(path) => Ok(Some(crate::credentials::read_auth_key(path)?)),
        None => Ok(std::env::var("TS_AUTHKEY")
            .ok()
            .filter(|k| !k.trim().is_empty())),
    }
}
