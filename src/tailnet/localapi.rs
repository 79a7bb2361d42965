//! Minimal LocalAPI client.
//!
//! `tailscale_loopback` makes the Go node listen on `127.0.0.1:<random>` and
//! returns that address plus two 32-character credentials. The LocalAPI on
//! that listener insists on (tsnet `localSecHandler`, ipn/localapi
//! `Handler.ServeHTTP` / `validHost`):
//! * header `Sec-Tailscale: localapi`,
//! * HTTP basic auth with any user (we send an empty one) and the LocalAPI
//!   credential as password,
//! * no `Referer` or `Origin` header,
//! * a `Host` of `127.0.0.1:<port>` (or `localhost:<port>`).
//!
//! Requests are rare (status polls at start-up, a certificate every few
//! hours), so each one uses a fresh HTTP/1.1 connection via hyper's low-level
//! client; no pool, no proxy logic, nothing that could send these credentials
//! anywhere but the loopback address libtailscale gave us.

use std::net::SocketAddr;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::header::{AUTHORIZATION, HOST};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::net::TcpStream;

use super::{Result, TailnetError};

/// Largest LocalAPI response we accept (status with many peers can be big;
/// certificates are a few KiB).
const MAX_BODY: usize = 8 << 20;

/// Handle for the node's LocalAPI. Cheap to clone.
#[derive(Clone)]
pub struct LocalApi {
    addr: SocketAddr,
    authorization: String,
}

impl std::fmt::Debug for LocalApi {
    // Never print the credential.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalApi")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// The parts of `ipnstate.Status` we use. Field names follow Go's JSON.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Status {
    /// "NoState", "NeedsLogin", "NeedsMachineAuth", "Stopped", "Starting", "Running".
    #[serde(default)]
    pub backend_state: String,
    /// Login URL while the node waits for someone to add it to a tailnet.
    #[serde(default, rename = "AuthURL")]
    pub auth_url: String,
    #[serde(default, rename = "TailscaleIPs", deserialize_with = "null_as_default")]
    pub tailscale_ips: Vec<String>,
    #[serde(default, rename = "Self")]
    pub self_status: Option<SelfStatus>,
    /// Names this node may get certificates for; empty unless the tailnet
    /// has MagicDNS and HTTPS certificates enabled.
    #[serde(default, deserialize_with = "null_as_default")]
    pub cert_domains: Vec<String>,
    #[serde(default, rename = "MagicDNSSuffix")]
    pub magic_dns_suffix: String,
    /// Health warnings from the node, human readable.
    #[serde(default, deserialize_with = "null_as_default")]
    pub health: Vec<String>,
}

/// `Status.Self`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SelfStatus {
    /// Fully-qualified MagicDNS name with a trailing dot.
    #[serde(default, rename = "DNSName")]
    pub dns_name: String,
    #[serde(default)]
    pub host_name: String,
    #[serde(default, rename = "TailscaleIPs", deserialize_with = "null_as_default")]
    pub tailscale_ips: Vec<String>,
    #[serde(default)]
    pub online: bool,
}

impl Status {
    /// The node's MagicDNS name without the trailing dot, if it has one.
    pub fn dns_name(&self) -> Option<&str> {
        self.self_status
            .as_ref()
            .map(|s| s.dns_name.trim_end_matches('.'))
            .filter(|s| !s.is_empty())
    }
}

/// Go encodes empty slices as `null`; treat that like an empty list.
fn null_as_default<'de, D, T>(d: D) -> std::result::Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

impl LocalApi {
    /// `addr` and `credential` as returned by `tailscale_loopback`.
    pub(crate) fn new(addr: SocketAddr, credential: &str) -> Self {
        let token = base64::engine::general_purpose::STANDARD.encode(format!(":{credential}"));
        Self {
            addr,
            authorization: format!("Basic {token}"),
        }
    }

    /// `GET /localapi/v0/status` without the peer list.
    pub async fn status(&self) -> Result<Status> {
        let path = "/localapi/v0/status?peers=false";
        let body = self.get(path, Duration::from_secs(10)).await?;
        serde_json::from_slice(&body).map_err(|source| TailnetError::LocalApiJson {
            path: path.to_owned(),
            source,
        })
    }

    /// `GET /localapi/v0/cert/<domain>?type=pair`: the private key PEM
    /// followed by the certificate chain PEM.
    ///
    /// With `min_validity`, Tailscale renews synchronously if the cached
    /// certificate expires sooner than that; without it, it returns the
    /// cached certificate and renews in the background when due. The first
    /// call for a domain runs the whole ACME exchange, hence the long timeout.
    pub async fn cert_pair(&self, domain: &str, min_validity: Option<Duration>) -> Result<Bytes> {
        if domain.is_empty()
            || !domain
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        {
            return Err(TailnetError::InvalidConfig(format!(
                "not a certificate domain: {domain:?}"
            )));
        }
        let mut path = format!("/localapi/v0/cert/{domain}?type=pair");
        if let Some(v) = min_validity {
            path.push_str(&format!("&min_validity={}s", v.as_secs()));
        }
        self.get(&path, Duration::from_secs(300)).await
    }

    /// One GET request; returns the body of a 2xx response.
    pub async fn get(&self, path: &str, timeout: Duration) -> Result<Bytes> {
        match tokio::time::timeout(timeout, self.get_inner(path)).await {
            Ok(r) => r,
            Err(_) => Err(TailnetError::LocalApiTransport {
                path: path.to_owned(),
                reason: format!("no answer within {timeout:?}"),
            }),
        }
    }

    async fn get_inner(&self, path: &str) -> Result<Bytes> {
        let transport = |reason: String| TailnetError::LocalApiTransport {
            path: path.to_owned(),
            reason,
        };
        let stream = TcpStream::connect(self.addr)
            .await
            .map_err(|e| transport(format!("connect {}: {e}", self.addr)))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| transport(e.to_string()))?;
        let conn_task = tokio::spawn(async move {
            // Errors surface through send_request / body reads as well.
            let _ = conn.await;
        });

        let req = Request::builder()
            .method(Method::GET)
            .uri(path)
            .header(HOST, self.addr.to_string())
            .header("Sec-Tailscale", "localapi")
            .header(AUTHORIZATION, &self.authorization)
            .body(Empty::<Bytes>::new())
            .map_err(|e| transport(e.to_string()))?;
        let result = async {
            let resp = sender
                .send_request(req)
                .await
                .map_err(|e| transport(e.to_string()))?;
            let status = resp.status();
            let body = Limited::new(resp.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| transport(e.to_string()))?
                .to_bytes();
            if status != StatusCode::OK {
                return Err(TailnetError::LocalApiStatus {
                    path: path.to_owned(),
                    status: status.as_u16(),
                    body: String::from_utf8_lossy(&body)
                        .trim()
                        .chars()
                        .take(500)
                        .collect(),
                });
            }
            Ok(body)
        }
        .await;
        conn_task.abort();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_parses_go_json_with_nulls() {
        let j = br#"{"Version":"1.94.1","BackendState":"Running","AuthURL":"",
            "TailscaleIPs":["100.64.0.2","fd7a::2"],
            "Self":{"DNSName":"libations.example.ts.net.","HostName":"libations","TailscaleIPs":null,"Online":true},
            "CertDomains":null,"MagicDNSSuffix":"example.ts.net","Health":null}"#;
        let st: Status = serde_json::from_slice(j).expect("parse");
        assert_eq!(st.backend_state, "Running");
        assert_eq!(st.dns_name(), Some("libations.example.ts.net"));
        assert!(st.cert_domains.is_empty());
        assert_eq!(st.tailscale_ips.len(), 2);
    }

    #[test]
    fn debug_hides_credential() {
        let api = LocalApi::new(
            "127.0.0.1:1".parse().expect("addr"),
            "supersecretsupersecretsupersecre",
        );
        assert!(!format!("{api:?}").contains("supersecret"));
    }
}
