//! What the web layer and the connections get from the flags.

use super::RunError;
use crate::cli::{LimitArgs, ServeArgs};
use crate::connections::Limits;
use crate::metrics::Metrics;
use crate::web::{self, AppState, Assets, RequestLimits, Site};
use arc_swap::ArcSwap;
use std::sync::Arc;
use std::time::Duration;

/// The router's state: the site, the limits on requests, who a request is from.
pub(super) fn app_state(
    args: &ServeArgs,
    site: Arc<ArcSwap<Site>>,
    assets: Arc<Assets>,
    metrics: Arc<Metrics>,
) -> Result<AppState, RunError> {
    Ok(AppState {
        site,
        assets,
        metrics,
        limits: RequestLimits {
            max_uri_bytes: args.limits.max_uri_bytes,
            max_body_bytes: args.limits.max_body_bytes,
            body_timeout: Duration::from_secs(args.limits.body_timeout),
        },
        searches: web::SearchGate::for_this_machine(),
        who: who_resolves(args)?,
        access_log: args.access_log,
    })
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

/// The limits every connection is held to.
pub(super) fn connection_limits(args: &LimitArgs) -> Limits {
    Limits {
        header_read_timeout: Duration::from_secs(args.header_timeout),
        write_timeout: Duration::from_secs(args.write_timeout),
        max_connections: args.max_connections,
        max_header_bytes: args.max_header_bytes,
        h2_max_streams: args.h2_max_streams,
        h2_stream_window: args.h2_stream_window,
        h2_connection_window: args.h2_connection_window,
    }
}
