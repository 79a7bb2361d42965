//! Embedded Tailscale node: Libations joins the tailnet as its own machine.
//!
//! The node itself is Go (tsnet, linked in as a C archive by
//! `libtailscale-sys`); this module wraps its small C API and works around
//! the parts of it that are unsafe or unreliable to use from async Rust:
//!
//! * [`node`] — node lifecycle (start, wait for `Running`, close), Tailscale's
//!   log lines forwarded into `tracing` (target `tailscale`), and the login URL
//!   re-logged at WARN when the node needs to be added to a tailnet.
//! * [`adopt`] — on a first start, the Go original's node state is copied in, so that
//!   the replacement is the same machine on the tailnet.
//! * [`accept`] — an async listener on a tailnet TCP port. We do *not* call
//!   `tailscale_accept` (it dereferences NULL once the listener closes);
//!   instead we receive connection fds ourselves with `recvmsg(SCM_RIGHTS)`
//!   driven by tokio's reactor.
//! * [`localapi`] — a minimal client for the node's LocalAPI over the loopback
//!   listener that `tailscale_loopback` opens (status, certificates).
//! * [`cert`] — the tailnet-issued HTTPS certificate as a rustls
//!   [`rustls::server::ResolvesServerCert`], refreshed in the background.
//! * [`forward`] — :443 and :80 through the node's serve config to loopback listeners,
//!   each connection with a PROXY v2 header ([`proxy`]) naming the tailnet peer, accepted
//!   only from this process ([`trust`]); [`whois`] turns the peer into an identity.
//! * [`funnel`] — the guests' menu on :8443 through Funnel (`--guest-menu-funnel`): the
//!   one `AllowFunnel` target, the public address, and whether the policy allows it.
//! * [`intake`] — where each port's connections arrive: forwarded, or on libtailscale's
//!   listeners when forwarding is off or fails.
//! * [`mode`] — `--tailnet-listener`'s values (also compiled without the feature).
//! * [`server`] — the tailnet side of serving: join (retrying), HTTPS on :443 with
//!   the tailnet certificate, and :80 ([`redirect`]) redirecting to it, with a clear page
//!   (`templates/redirect.html`) when the tailnet offers no certificate.
//!
//! HTTP itself is not in here: [`server`] builds a [`crate::connections::Connections`] and
//! `intake` hands it the accepted streams; it serves the router it is given: the same app
//! as `--local`, made in one place for both (`app::routers`).
//!
//! Environment: the Go runtime snapshots the process environment when it
//! starts (before `main`), so `TS_*` knobs such as `TS_NO_LOGS_NO_SUPPORT` or
//! `TS_DEBUG_ACME_DIRECTORY_URL` must be set by whoever launches the process.
//! Never call `std::env::set_var` for them: it is too late, and unsound in a
//! process with other threads.

pub(crate) mod accept;
pub(crate) mod adopt;
pub(crate) mod cert;
#[cfg(test)]
mod fake;
pub(crate) mod forward;
pub(crate) mod funnel;
mod intake;
pub(crate) mod localapi;
mod mode;
pub(crate) mod node;
pub mod proxy;
mod redirect;
pub(crate) mod server;
pub(crate) mod trust;
pub(crate) mod whois;

use std::path::PathBuf;
use std::time::Duration;

pub(crate) use accept::Listener;
pub(crate) use cert::CertStore;
pub(crate) use localapi::LocalApi;
pub(crate) use mode::TailnetListener;
pub(crate) use node::{Node, NodeConfig};

/// Everything that can go wrong in the tailnet module.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TailnetError {
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
pub(crate) type Result<T, E = TailnetError> = std::result::Result<T, E>;
