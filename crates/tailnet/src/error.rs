//! Everything that can go wrong in the tailnet crate, as one error type.

use crate::adopt;
use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong in the tailnet module.
#[derive(Debug, thiserror::Error)]
pub enum TailnetError {
    /// The state directory cannot be created or written. Tailscale keeps the
    /// node's identity (private keys) there, so we refuse to start without it.
    #[error("tailscale state directory {path:?} is not usable: {source}")]
    StateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The Go original's node was found but could not be copied in.
    #[error(transparent)]
    Adopt(#[from] adopt::AdoptError),

    /// A configuration value cannot be passed to the C API (e.g. contains NUL).
    #[error("invalid tailnet configuration: {0}")]
    InvalidConfig(String),

    /// libtailscale's LocalAPI loopback (address, credential) is not what its C API promises.
    #[error("libtailscale's LocalAPI loopback is unusable: {0}")]
    Loopback(String),

    /// A libtailscale call on tokio's blocking pool panicked or was cancelled.
    #[error("a libtailscale call did not finish: {0}")]
    Blocking(#[from] tokio::task::JoinError),

    /// The pipe or thread that carries Tailscale's log lines into `tracing` failed.
    #[error("cannot forward Tailscale's log lines: {0}")]
    LogPipe(#[source] std::io::Error),

    /// A tailnet port's listener (libtailscale's socketpair, or the loopback listener the
    /// serve config forwards to) could not be set up.
    #[error("cannot listen on tailnet port {port}: {source}")]
    Listen {
        port: u16,
        #[source]
        source: std::io::Error,
    },

    /// Asked for the certificate of something that is not a DNS name.
    #[error("not a certificate domain: {0:?}")]
    NotCertDomain(String),

    /// A libtailscale call returned an error code.
    #[error("libtailscale {op} failed (code {code}): {message}")]
    Ffi {
        op: &'static str,
        code: i32,
        message: String,
    },

    /// The LocalAPI answered with a non-success status.
    #[error("LocalAPI {path} returned HTTP {status}: {body}")]
    LocalApiStatus {
        path: String,
        status: u16,
        body: String,
    },

    /// The LocalAPI could not be reached or the exchange failed midway.
    #[error("LocalAPI {path} request failed: {reason}")]
    LocalApiTransport { path: String, reason: String },

    /// The LocalAPI answered with JSON we could not decode.
    #[error("LocalAPI {path} returned unexpected JSON: {source}")]
    LocalApiJson {
        path: String,
        #[source]
        source: serde_json::Error,
    },

    /// The node did not reach `Running` in time.
    #[error("tailscale node is not running after {waited:?} (state {state}){hint}")]
    NotRunning {
        state: String,
        waited: Duration,
        /// Human hint, already formatted with a leading separator.
        hint: String,
    },

    /// The tailnet offers no certificate name for this node.
    #[error(
        "the tailnet offers no HTTPS certificate name for this node: in the Tailscale admin \
         console open DNS, enable MagicDNS and then \"HTTPS Certificates\", then restart"
    )]
    NoCertDomain,

    /// The certificate/key pair from the LocalAPI could not be used.
    #[error("certificate for {domain} is unusable: {reason}")]
    BadCertificate { domain: String, reason: String },

    /// The node's serve config could not be set to forward to us.
    #[error("cannot set the node's serve config: {0}")]
    ServeConfig(String),

    /// The node has been closed.
    #[error("tailscale node is closed")]
    Closed,
}

/// Result alias for this module.
pub type Result<T, E = TailnetError> = std::result::Result<T, E>;
