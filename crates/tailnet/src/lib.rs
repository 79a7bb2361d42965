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
//!
//! Crate `libations-tailnet`: it may use libations-web (the `use`s below name the rooms).

// The rooms of other crates this one uses, under the names the code knows them by.
#[cfg(feature = "node")]
use libations_web as web;
#[cfg(feature = "node")]
use libations_web::{connections, metrics, tasks};

#[cfg(feature = "node")]
pub mod accept;
#[cfg(feature = "node")]
pub mod adopt;
#[cfg(feature = "node")]
pub mod cert;
#[cfg(feature = "node")]
#[cfg(test)]
mod fake;
#[cfg(feature = "node")]
pub mod forward;
#[cfg(feature = "node")]
pub mod funnel;
#[cfg(feature = "node")]
pub mod intake;
#[cfg(feature = "node")]
pub mod localapi;
mod mode;
#[cfg(feature = "node")]
pub mod node;
#[cfg(feature = "node")]
pub mod proxy;
#[cfg(feature = "node")]
pub mod redirect;
#[cfg(feature = "node")]
pub mod server;
#[cfg(feature = "node")]
pub mod trust;
#[cfg(feature = "node")]
pub mod whois;

#[cfg(feature = "node")]
pub use accept::Listener;
#[cfg(feature = "node")]
pub use cert::CertStore;
#[cfg(feature = "node")]
pub use localapi::LocalApi;
pub use mode::TailnetListener;
#[cfg(feature = "node")]
pub use node::{Node, NodeConfig};
#[cfg(feature = "node")]
mod error;
#[cfg(feature = "node")]
pub use error::{Result, TailnetError};
