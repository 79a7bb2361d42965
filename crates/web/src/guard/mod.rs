//! What stands between a request and the handlers: the request limits, the `Host`
//! allow-list, and the gate that lets heavy work through a few at a time.
//!
//! Why a room of its own: each of these refuses or holds back a request for reasons that
//! have nothing to do with what it asks for (its size, the name it was sent to, how busy the
//! server is), so none of them needs the site, the handlers or the error pages, and this
//! room imports nothing else from `web`.
//!
//! - [`limits`]: [`limits::RequestLimits`] and the middleware that enforces them (414, 413,
//!   408, 400), and [`limits::is_api`], which says whose refusals are JSON.
//! - [`host`]: the `Host` allow-list for plain-HTTP listeners (DNS rebinding).
//! - [`gate`]: [`gate::HeavyGate`], CPU-heavy work on the blocking pool, a few at a time.
//! - [`rate`]: the rate limit per source address on the guests' listener open to the
//!   internet (Funnel), which also keeps that address away from the handlers.

pub(crate) mod gate;
pub(crate) mod host;
pub(crate) mod limits;
pub(crate) mod rate;
