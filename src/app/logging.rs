//! Logging: `tracing` events to stderr, as text (coloured on a terminal) or JSON lines.

use crate::cli::LogFormat;
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. `level` (`--log-level`) wins over `RUST_LOG`, which
/// wins over `info`.
pub(super) fn init(format: LogFormat, level: Option<&str>) {
    let filter = match level {
        Some(level) => EnvFilter::new(level),
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        // A failed write would otherwise be reported with `eprintln!`, which panics when
        // stderr is gone (a closed terminal, a dead log collector) and takes down the task
        // that logged: SIGTERM's, for one, so the server never stopped. A log line that
        // cannot be written is lost either way.
        .log_internal_errors(false);
    // This fails only when a subscriber is installed already (a test harness calling
    // `run` again): that one keeps logging, which is what the caller wants.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
