//! A rate limit per source address, for the listener open to the internet (the guests'
//! menu through Funnel): each source may send [`Rates::burst`] requests at once, then
//! [`Rates::per_minute`] a minute; past that it gets `429` with `Retry-After`, before any
//! handler runs.
//!
//! The source is the address the connection's PROXY header names ([`Peer`]): on that
//! listener a public address that Tailscale's relay saw, used for nothing but this count
//! and the log (a line per request, as `--access-log` asks, with the source in place of a
//! login; at debug otherwise). The middleware takes it out of the request, so no handler behind it can
//! turn it into an identity. IPv6 sources count by their /64 (one household's network),
//! and the table is bounded: when it is full, sources whose bucket has filled up again are
//! forgotten, and while it is still full every new source shares one bucket.
//!
//! The numbers are generous on purpose: guests at the party on the host's own Wi-Fi all
//! arrive from one public address, each page load is a few requests and a tablet follows
//! the menu's changes.

use crate::connections::Peer;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much one source may ask.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rates {
    /// Requests at once, after a quiet spell.
    pub burst: u32,
    /// Requests a minute, sustained.
    pub per_minute: u32,
    /// Sources remembered at most.
    pub max_sources: usize,
}

impl Rates {
    /// For the guests' listener: 20 guests behind one address loading the page together,
    /// and then a request every 12 seconds each.
    pub(crate) const GUESTS: Rates = Rates {
        burst: 200,
        per_minute: 100,
        max_sources: 4096,
    };
}

/// The buckets, one per source.
#[derive(Debug)]
pub(crate) struct PerSource {
    rates: Rates,
    table: Mutex<HashMap<IpAddr, Bucket>>,
    /// One line per request at info (`--access-log`), else at debug.
    access_log: bool,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Where sources share a bucket once the table is full.
const OVERFLOW: IpAddr = IpAddr::V6(Ipv6Addr::UNSPECIFIED);

impl PerSource {
    pub(crate) fn new(rates: Rates, access_log: bool) -> Arc<PerSource> {
        Arc::new(PerSource {
            rates,
            table: Mutex::new(HashMap::new()),
            access_log,
        })
    }

    /// Takes one request from `source`'s bucket: `Ok` to go on, or how long until the next
    /// one would be let through.
    pub(crate) fn take(&self, source: IpAddr, now: Instant) -> Result<(), Duration> {
        let rates = self.rates;
        let per_second = f64::from(rates.per_minute.max(1)) / 60.0;
        let burst = f64::from(rates.burst.max(1));
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let mut key = bucket_key(source);
        if !table.contains_key(&key) && table.len() >= rates.max_sources {
            table.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * per_second < burst
            });
            if table.len() >= rates.max_sources {
                key = OVERFLOW;
            }
        }
        let bucket = table.entry(key).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let refill = now.saturating_duration_since(bucket.at).as_secs_f64() * per_second;
        bucket.tokens = (bucket.tokens + refill).min(burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / per_second))
        }
    }
}

/// A source's bucket: the address itself, or its /64 for IPv6.
fn bucket_key(source: IpAddr) -> IpAddr {
    match source {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(Ipv6Addr::from(bits))
            }
        },
        v4 => v4,
    }
}

/// Middleware: counts the request against its source, takes the source out of the request
/// so that nothing behind can read it, and logs the request with it.
pub(crate) async fn limit(
    State(sources): State<Arc<PerSource>>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request.extensions_mut().remove::<Peer>();
    let source = peer.map_or(OVERFLOW, |Peer(addr)| addr.ip());
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let started = Instant::now();
    let response = match sources.take(source, started) {
        Ok(()) => next.run(request).await,
        Err(wait) => refuse(source, wait),
    };
    let (status, micros) = (response.status().as_u16(), started.elapsed().as_micros());
    if sources.access_log {
        tracing::info!(target: "libations::access", %method, %path, status, micros = micros as u64, %source, "guest request");
    } else {
        tracing::debug!(target: "libations::access", %method, %path, status, micros = micros as u64, %source, "guest request");
    }
    response
}

/// `429` with `Retry-After`.
fn refuse(source: IpAddr, wait: Duration) -> Response {
    tracing::info!(target: "libations::guests", source = %source, "a guest source over its rate limit got 429");
    let seconds = wait.as_secs().max(1).to_string();
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        "Too many requests from your address; try again in a moment.\n",
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&seconds) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(max_sources: usize) -> Arc<PerSource> {
        PerSource::new(
            Rates {
                burst: 3,
                per_minute: 60,
                max_sources,
            },
            false,
        )
    }

    #[test]
    fn a_source_gets_its_burst_then_waits_for_the_refill() {
        let limiter = small(10);
        let now = Instant::now();
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        for _ in 0..3 {
            assert!(limiter.take(a, now).is_ok());
        }
        let wait = limiter.take(a, now).expect_err("over the burst");
        assert!(wait <= Duration::from_secs(1), "{wait:?}");
        // Another source is not held back by the first.
        assert!(limiter.take("198.51.100.1".parse().unwrap(), now).is_ok());
        // One a second comes back.
        assert!(limiter.take(a, now + Duration::from_secs(1)).is_ok());
        assert!(limiter.take(a, now + Duration::from_secs(1)).is_err());
    }

    #[test]
    fn ipv6_counts_by_its_64_and_mapped_ipv4_as_ipv4() {
        let limiter = small(10);
        let now = Instant::now();
        for i in 0..3 {
            let ip: IpAddr = format!("2001:db8:1:2::{i}").parse().unwrap();
            assert!(limiter.take(ip, now).is_ok());
        }
        assert!(
            limiter
                .take("2001:db8:1:2::ff".parse().unwrap(), now)
                .is_err()
        );
        assert!(
            limiter
                .take("2001:db8:1:3::1".parse().unwrap(), now)
                .is_ok()
        );
        let v4: IpAddr = "192.0.2.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(bucket_key(mapped), v4);
    }

    #[test]
    fn a_full_table_forgets_idle_sources_and_then_shares_one_bucket() {
        let limiter = small(2);
        let now = Instant::now();
        let (a, b, c, d): (IpAddr, IpAddr, IpAddr, IpAddr) = (
            "192.0.2.1".parse().unwrap(),
            "192.0.2.2".parse().unwrap(),
            "192.0.2.3".parse().unwrap(),
            "192.0.2.4".parse().unwrap(),
        );
        assert!(limiter.take(a, now).is_ok());
        assert!(limiter.take(b, now).is_ok());
        // Full, and both still busy: the newcomers share the overflow bucket.
        for _ in 0..3 {
            assert!(limiter.take(c, now).is_ok());
        }
        assert!(limiter.take(d, now).is_err());
        // Later, the idle ones are forgotten and a newcomer gets its own bucket.
        let later = now + Duration::from_secs(60);
        assert!(limiter.take(d, later).is_ok());
        assert!(limiter.table.lock().unwrap().contains_key(&d));
    }
}
