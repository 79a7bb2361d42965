//! What the web layer and the connections get from the flags.

use super::RunError;
use crate::cli::{LimitArgs, ServeArgs};
use crate::connections::Limits;
use crate::credentials;
use crate::household::{self, Household};
use crate::metrics::Metrics;
use crate::store::Store;
use crate::web::{self, AppState, Editing, HouseholdDoor, Publish, RequestLimits};
use std::sync::Arc;
use std::time::Duration;

/// The router's state: the site, the limits on requests, who a request is from.
pub(super) fn app_state(
    args: &ServeArgs,
    publisher: web::Publisher,
    metrics: Arc<Metrics>,
    editing: Arc<Editing>,
    home: Arc<HouseholdDoor>,
) -> Result<AppState, RunError> {
    Ok(AppState {
        site: publisher.site().clone(),
        assets: publisher.assets().clone(),
        publisher,
        metrics,
        limits: RequestLimits {
            max_uri_bytes: args.limits.max_uri_bytes,
            max_body_bytes: args.limits.max_body_bytes,
            max_write_bytes: RequestLimits::default().max_write_bytes,
            body_timeout: Duration::from_secs(args.limits.body_timeout),
            ..RequestLimits::default()
        }
        .with_body_budget(args.limits.max_buffered_body_bytes),
        heavy: web::HeavyGate::for_this_machine(),
        who: who_resolves(args)?,
        access_log: args.access_log,
        editing,
        home,
        // The Funnel's address, when it serves the guests' menu.
        guest_url: None,
        https: !args.local,
    })
}

/// Editing as the flags ask: on only with `--allow-edits` and a `--recipes-file` that can
/// be written in place; otherwise off, with the reason logged and shown to would-be editors.
pub(super) fn editing(args: &ServeArgs, publish: Arc<dyn Publish>) -> Arc<Editing> {
    let flags = &args.editing;
    if !flags.allow_edits {
        return Arc::new(Editing::read_only());
    }
    let opened = match &args.recipes_file {
        None => Err(
            "--allow-edits needs --recipes-file: the embedded sample cannot be changed".to_owned(),
        ),
        Some(path) => credentials::resolve(path)
            .map_err(|e| e.to_string())
            .and_then(|path| {
                Store::open(&path, args.limits.max_recipes_bytes).map_err(|e| e.to_string())
            }),
    };
    let store = match opened {
        Ok(store) => store,
        Err(why) => {
            tracing::warn!("editing is off: {why}");
            return Arc::new(Editing::off(format!("Editing is off: {why}")));
        }
    };
    let path = store.path().display().to_string();
    match Editing::on(
        store,
        flags.editors.clone(),
        flags.edits_per_minute,
        publish,
    ) {
        Ok(editing) => {
            let editing = editing.with_import_hosts(flags.import_allow_hosts.clone());
            tracing::info!(file = %path, "editing is on: changes go to {path}, their history to {path}.journal");
            Arc::new(editing)
        }
        Err(e) => {
            tracing::warn!("editing is off: no random key for form tokens: {e}");
            Arc::new(Editing::off(format!("Editing is off: {e}")))
        }
    }
}

/// Who a request comes from until the tailnet says otherwise: with `--local`, the
/// `--local-identity` (nobody with `--local-nobody`); on the tailnet nobody, until the node's WhoIs is wired in.
fn who_resolves(args: &ServeArgs) -> Result<Arc<dyn web::Resolve>, RunError> {
    web::identity::check_capability_name(&args.tailnet.app_capability).map_err(RunError::Usage)?;
    if !args.local || args.local_nobody {
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
        shelf: args.local_edit || args.local_shelf,
        menu: args.local_edit,
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

/// The household, kept in the state directory: on the tailnet always (the node keeps its
/// own state there too); with `--local` only when `--state-dir` is given, so that UI work
/// and tests never write into the user's home unasked. A database that cannot be opened
/// (damaged, a future schema, not writable) does not stop the start: the recipes are
/// served, and the household's routes answer 503 saying what is wrong and how to repair.
pub(super) fn home(args: &ServeArgs) -> Result<Arc<HouseholdDoor>, RunError> {
    let flag = args.tailnet.state_dir.as_deref();
    if args.local && flag.is_none() {
        return Ok(Arc::new(HouseholdDoor::off(
            "This app keeps no household: it was started with --local and no --state-dir, so your choices stay on this device.",
        )));
    }
    let dir = state_dir(flag)?;
    match Household::open_in(&dir) {
        Ok(db) => {
            tracing::info!(file = %db.path().display(), "the household is kept in {}", db.path().display());
            let home = HouseholdDoor::on(db).map_err(|e| {
                RunError::Usage(format!(
                    "no random key for the menu forms' tokens (/dev/urandom): {e}"
                ))
            })?;
            Ok(Arc::new(home))
        }
        Err(e) => {
            let why = broken_household(&dir.join(household::FILE_NAME), &e);
            tracing::error!("{why}");
            Ok(Arc::new(HouseholdDoor::broken(why)))
        }
    }
}

/// What a household whose database cannot be opened is told, and the log says: what is
/// wrong and how to repair it. The recipes are served all the same.
fn broken_household(file: &std::path::Path, e: &household::HouseholdError) -> String {
    format!(
        "The household's database cannot be used ({e}). The recipes are served, but \
         favourites, ratings, notes, the shelf and the guests' menus are not until it is \
         repaired: `libations check --household {file}` says what is wrong; restore it from a \
         backup (move it aside, start the app, then `libations import-household`), or make \
         its directory writable, and restart the app.",
        file = file.display()
    )
}

/// `--state-dir`, else `$XDG_STATE_HOME/libations`, else `~/.local/state/libations`.
pub(super) fn state_dir(flag: Option<&std::path::Path>) -> Result<std::path::PathBuf, RunError> {
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
