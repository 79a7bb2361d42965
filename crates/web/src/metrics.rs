//! Prometheus metrics and health, served on their own listener (`--metrics-addr`), never
//! on the tailnet by default: they are for the owner's monitoring, not for guests.

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RouteStatus {
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct Route {
    pub route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct Reason {
    pub reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct Outcome {
    pub result: &'static str,
}

/// Every metric the server keeps, and whether it is ready to serve.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RouteStatus, Counter>,
    latency: Family<Route, Histogram>,
    pub connections_open: Gauge,
    pub connections_accepted: Counter,
    pub connections_shed: Counter,
    connections_expired: Family<Reason, Counter>,
    pub recipes_loaded: Gauge,
    reloads: Family<Outcome, Counter>,
    last_reload: Gauge<f64, AtomicU64>,
    pub cert_expiry: Gauge<i64, AtomicI64>,
    pub cert_refresh_failures: Counter,
    pub tailnet_up: Gauge,
    /// 1 while tailnet connections arrive through the serve config's forward (who sent each
    /// request is known), 0 on libtailscale's own listeners (nobody is known).
    pub tailnet_identity: Gauge,
    forward_refused: Family<Reason, Counter>,
    whois: Family<Outcome, Counter>,
    ready: AtomicBool,
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("libations");
        let m = Metrics {
            requests: Family::default(),
            latency: Family::new_with_constructor(|| {
                Histogram::new([
                    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
                ])
            }),
            connections_open: Gauge::default(),
            connections_accepted: Counter::default(),
            connections_shed: Counter::default(),
            connections_expired: Family::default(),
            recipes_loaded: Gauge::default(),
            reloads: Family::default(),
            last_reload: Gauge::default(),
            cert_expiry: Gauge::default(),
            cert_refresh_failures: Counter::default(),
            tailnet_up: Gauge::default(),
            tailnet_identity: Gauge::default(),
            forward_refused: Family::default(),
            whois: Family::default(),
            ready: AtomicBool::new(false),
            registry: Registry::default(),
        };
        registry.register(
            "http_requests",
            "HTTP requests by route and status",
            m.requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to produce a response, by route",
            m.latency.clone(),
        );
        registry.register(
            "connections_open",
            "Connections open now",
            m.connections_open.clone(),
        );
        registry.register(
            "connections_accepted",
            "Connections accepted",
            m.connections_accepted.clone(),
        );
        registry.register(
            "connections_shed",
            "Connections closed at once because the limit was reached",
            m.connections_shed.clone(),
        );
        registry.register(
            "connections_expired",
            "Connections closed because they made no progress in time, by which deadline",
            m.connections_expired.clone(),
        );
        registry.register(
            "recipes_loaded",
            "Recipes being served",
            m.recipes_loaded.clone(),
        );
        registry.register(
            "recipe_reloads",
            "Reloads of the recipes file, by result",
            m.reloads.clone(),
        );
        registry.register(
            "recipe_last_reload_success_timestamp_seconds",
            "When recipes were last loaded successfully (Unix time)",
            m.last_reload.clone(),
        );
        registry.register(
            "tls_certificate_expiry_timestamp_seconds",
            "When the served TLS certificate expires (Unix time; 0 without one)",
            m.cert_expiry.clone(),
        );
        registry.register(
            "tls_certificate_refresh_failures",
            "Failed attempts to refresh the TLS certificate",
            m.cert_refresh_failures.clone(),
        );
        registry.register(
            "tailnet_up",
            "1 while the tailnet node is running",
            m.tailnet_up.clone(),
        );
        registry.register(
            "tailnet_identity",
            "1 while tailnet requests carry who sent them (serve-config forward); 0 on the anonymous fallback",
            m.tailnet_identity.clone(),
        );
        registry.register(
            "tailnet_forward_refused",
            "Connections to the forwarded loopback listeners closed unserved, by why (not_ours: another process; proxy_header: a bad PROXY header; check_failed: ownership could not be checked)",
            m.forward_refused.clone(),
        );
        registry.register(
            "tailnet_whois",
            "WhoIs lookups of tailnet peers (cache misses), by result (found, unknown, error)",
            m.whois.clone(),
        );
        Metrics { registry, ..m }
    }

    /// Counts a forwarded connection closed unserved (`reason`: why).
    pub fn forward_refused(&self, reason: &'static str) {
        self.forward_refused.get_or_create(&Reason { reason }).inc();
    }

    /// Counts a WhoIs lookup by its `result`.
    pub fn whois(&self, result: &'static str) {
        self.whois.get_or_create(&Outcome { result }).inc();
    }

    /// Counts a connection closed by a progress deadline (`reason`: which one).
    pub(crate) fn connection_expired(&self, reason: &'static str) {
        self.connections_expired
            .get_or_create(&Reason { reason })
            .inc();
    }

    /// Records a successful load or reload: `count` recipes are served from now on.
    pub fn loaded(&self, count: usize) {
        self.reloads
            .get_or_create(&Outcome { result: "success" })
            .inc();
        self.recipes_loaded
            .set(i64::try_from(count).unwrap_or(i64::MAX));
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        self.last_reload.set(now);
    }

    /// Records a reload that was refused: the recipes served before stay.
    pub fn reload_failed(&self) {
        self.reloads
            .get_or_create(&Outcome { result: "failure" })
            .inc();
    }

    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }

    pub(crate) fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }

    /// The text exposition format.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// Middleware: counts every request by its route pattern (not the raw path, which would
/// let a scanner create unbounded label values) and status.
pub(crate) async fn track(
    State(metrics): State<Arc<Metrics>>,
    request: Request,
    next: Next,
) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    metrics
        .latency
        .get_or_create(&Route {
            route: route.clone(),
        })
        .observe(started.elapsed().as_secs_f64());
    metrics
        .requests
        .get_or_create(&RouteStatus {
            route,
            status: response.status().as_u16(),
        })
        .inc();
    response
}

/// The router for the metrics listener: `/metrics`, `/healthz`, `/readyz` (the binary
/// adds its CPU profiles, `/debug/pprof/profile`).
pub fn router(metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/metrics", get(exposition))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readiness))
        .with_state(metrics)
}

async fn exposition(State(metrics): State<Arc<Metrics>>) -> Response {
    match metrics.encode() {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn readiness(State(metrics): State<Arc<Metrics>>) -> Response {
    if metrics.is_ready() {
        (StatusCode::OK, "ready\n").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready\n").into_response()
    }
}
