//! Which `Host` names a plain-HTTP listener answers to: a defence against DNS rebinding.
//!
//! A web page the owner visits can point a name of its own at 127.0.0.1 and then read
//! whatever answers there, because to the browser it is the page's own origin. It cannot
//! change the `Host` header, though: that still names the page's domain. So `--local` and
//! the metrics listener answer only to names that are theirs: `localhost`, IP addresses
//! (which cannot be rebound), names of one label such as `bar` (a name with no dot comes
//! from the hosts file or the local network's own DNS, never from a page's public domain,
//! which is what a rebinding attack needs) and the names given with `--allowed-host`. On
//! the tailnet this is not needed: TLS already refuses any name but the certificate's.

use super::limits::{is_api, refuse};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use std::net::IpAddr;
use std::sync::Arc;

/// The names a listener answers to besides `localhost` and IP addresses.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts {
    names: Vec<String>,
}

impl AllowedHosts {
    /// `names` as given on the command line (case and a trailing dot do not matter).
    pub fn new(names: &[String]) -> AllowedHosts {
        AllowedHosts {
            names: names.iter().map(|n| normalise(n)).collect(),
        }
    }

    /// Whether a request naming `host` (as in the `Host` header, port included or not) is
    /// for us.
    pub(crate) fn allows(&self, host: &str) -> bool {
        let name = normalise(strip_port(host));
        if !name.contains('.') || name.ends_with(".localhost") {
            return !name.is_empty();
        }
        let bare = name.trim_start_matches('[').trim_end_matches(']');
        if bare.parse::<IpAddr>().is_ok() {
            return true;
        }
        self.names.contains(&name)
    }
}

fn normalise(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// `example:8080` → `example`, `[::1]:8080` → `[::1]`; a bare IPv6 address stays whole.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    }
}

/// Middleware: 421 for a request that names a host we do not answer to. A request with no
/// host at all (HTTP/1.0 tools) is let through: browsers always send one.
pub(crate) async fn check(
    State(allowed): State<Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .uri()
        .authority()
        .map(|a| a.as_str().rsplit('@').next().unwrap_or_default().to_owned())
        .or_else(|| {
            request
                .headers()
                .get(header::HOST)
                .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        });
    match host {
        Some(host) if !allowed.allows(&host) => {
            // Under /api/ a script reads JSON whatever went wrong, this refusal included.
            let api = is_api(request.uri().path());
            let reason = "This server does not answer to that host name. If it is yours, \
                          start Libations with --allowed-host NAME.";
            refuse(api, StatusCode::MISDIRECTED_REQUEST, reason)
        }
        _ => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localhost_ip_addresses_and_given_names_only() {
        let hosts = AllowedHosts::new(&["Bar.LAN.".into()]);
        for ok in [
            "localhost",
            "localhost:8080",
            "LOCALHOST.",
            "app.localhost:1",
            "127.0.0.1:8080",
            "10.1.2.3",
            "[::1]:8080",
            "[fe80::1]",
            "::1",
            "bar.lan",
            "bar.lan:8080",
            "x",
            "mybox:8080",
        ] {
            assert!(hosts.allows(ok), "{ok} should be allowed");
        }
        for refused in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "bar.lan.evil.example",
            "",
        ] {
            assert!(!hosts.allows(refused), "{refused} should be refused");
        }
    }
}
