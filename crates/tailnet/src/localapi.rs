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
//! hours, the serve config once, a WhoIs per tailnet peer now and then), so each one uses a fresh HTTP/1.1 connection via hyper's low-level
//! client; no pool, no proxy logic, nothing that could send these credentials
//! anywhere but the loopback address libtailscale gave us.

use std::net::SocketAddr;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, ETAG, HOST, IF_MATCH};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::net::TcpStream;

use super::{Result, TailnetError};

/// Largest LocalAPI response we accept (status with many peers can be big;
/// certificates are a few KiB).
pub(crate) const MAX_BODY: usize = 8 << 20;

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
pub(crate) struct Status {
    /// "NoState", "NeedsLogin", "NeedsMachineAuth", "Stopped", "Starting", "Running".
    #[serde(default)]
    pub(crate) backend_state: String,
    /// Login URL while the node waits for someone to add it to a tailnet.
    #[serde(default, rename = "AuthURL")]
    pub(crate) auth_url: String,
    #[serde(default, rename = "TailscaleIPs", deserialize_with = "null_as_default")]
    pub(crate) tailscale_ips: Vec<String>,
    #[serde(default, rename = "Self")]
    pub(crate) self_status: Option<SelfStatus>,
    /// Names this node may get certificates for; empty unless the tailnet
    /// has MagicDNS and HTTPS certificates enabled.
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) cert_domains: Vec<String>,
    /// Health warnings from the node, human readable.
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) health: Vec<String>,
}

/// `Status.Self`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct SelfStatus {
    /// Fully-qualified MagicDNS name with a trailing dot.
    #[serde(default, rename = "DNSName")]
    pub(crate) dns_name: String,
    /// The node's capabilities (node attributes from the tailnet policy, such as `funnel`),
    /// each with its values (often none).
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) cap_map: std::collections::HashMap<String, serde_json::Value>,
    /// The same names in the older list form (kept by Tailscale for old readers).
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) capabilities: Vec<String>,
}

impl Status {
    /// The node's MagicDNS name without the trailing dot, if it has one.
    pub(crate) fn dns_name(&self) -> Option<&str> {
        self.self_status
            .as_ref()
            .map(|s| s.dns_name.trim_end_matches('.'))
            .filter(|s| !s.is_empty())
    }
}

/// Go encodes empty slices as `null`; treat that like an empty list.
pub(crate) fn null_as_default<'de, D, T>(d: D) -> std::result::Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

impl LocalApi {
    /// `addr` and `credential` as returned by `tailscale_loopback`.
    pub fn new(addr: SocketAddr, credential: &str) -> Self {
        let token = base64::engine::general_purpose::STANDARD.encode(format!(":{credential}"));
        Self {
            addr,
            authorization: format!("Basic {token}"),
        }
    }

    /// `GET /localapi/v0/status` without the peer list.
    pub(crate) async fn status(&self) -> Result<Status> {
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
    pub(crate) async fn cert_pair(
        &self,
        domain: &str,
        min_validity: Option<Duration>,
    ) -> Result<Bytes> {
        if domain.is_empty()
            || !domain
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        {
            return Err(TailnetError::NotCertDomain(domain.to_owned()));
        }
        let mut path = format!("/localapi/v0/cert/{domain}?type=pair");
        if let Some(v) = min_validity {
            path.push_str(&format!("&min_validity={}s", v.as_secs()));
        }
        self.get(&path, Duration::from_secs(300)).await
    }

    /// One GET request; returns the body of a 2xx response.
    pub(crate) async fn get(&self, path: &str, timeout: Duration) -> Result<Bytes> {
        let reply = self.call(Method::GET, path, None, None, timeout).await?;
        reply.ok(path)
    }

    /// One request, bounded by `timeout`, with an optional `If-Match` and JSON body.
    async fn call(
        &self,
        method: Method,
        path: &str,
        if_match: Option<&str>,
        body: Option<Bytes>,
        timeout: Duration,
    ) -> Result<Reply> {
        let exchange = self.exchange(method, path, if_match, body);
        match tokio::time::timeout(timeout, exchange).await {
            Ok(r) => r,
            Err(_) => Err(TailnetError::LocalApiTransport {
                path: path.to_owned(),
                reason: format!("no answer within {timeout:?}"),
            }),
        }
    }

    async fn exchange(
        &self,
        method: Method,
        path: &str,
        if_match: Option<&str>,
        body: Option<Bytes>,
    ) -> Result<Reply> {
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

        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, self.addr.to_string())
            .header("Sec-Tailscale", "localapi")
            .header(AUTHORIZATION, &self.authorization);
        if let Some(etag) = if_match {
            req = req.header(IF_MATCH, etag);
        }
        if body.is_some() {
            req = req.header(CONTENT_TYPE, "application/json");
        }
        let req = req
            .body(Full::new(body.unwrap_or_default()))
            .map_err(|e| transport(e.to_string()))?;
        let result = async {
            let resp = sender
                .send_request(req)
                .await
                .map_err(|e| transport(e.to_string()))?;
            let status = resp.status();
            let etag = resp
                .headers()
                .get(ETAG)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = Limited::new(resp.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| transport(e.to_string()))?
                .to_bytes();
            Ok(Reply { status, etag, body })
        }
        .await;
        conn_task.abort();
        result
    }

    /// `GET /localapi/v0/serve-config`: the node's serve config and its ETag, which a
    /// change must present (`If-Match`) so that it cannot overwrite one it did not see.
    pub(crate) async fn serve_config(&self) -> Result<(serde_json::Value, String)> {
        let path = "/localapi/v0/serve-config";
        let reply = self
            .call(Method::GET, path, None, None, Duration::from_secs(10))
            .await?;
        let etag = reply.etag.clone().unwrap_or_default();
        let body = reply.ok(path)?;
        let config =
            serde_json::from_slice(&body).map_err(|source| TailnetError::LocalApiJson {
                path: path.to_owned(),
                source,
            })?;
        Ok((config, etag))
    }

    /// `POST /localapi/v0/serve-config` with `If-Match: etag`. `Ok(false)` when the config
    /// changed since `etag` was read (412): read it again and retry.
    pub(crate) async fn set_serve_config(
        &self,
        config: &serde_json::Value,
        etag: &str,
    ) -> Result<bool> {
        let path = "/localapi/v0/serve-config";
        let body = Bytes::from(config.to_string());
        let reply = self
            .call(
                Method::POST,
                path,
                Some(etag),
                Some(body),
                Duration::from_secs(10),
            )
            .await?;
        if reply.status == StatusCode::PRECONDITION_FAILED {
            return Ok(false);
        }
        reply.ok(path).map(|_| true)
    }

    /// `GET /localapi/v0/whois?addr=<ip>`: who owns a tailnet address, and what the
    /// tailnet policy grants them. `Ok(None)` when the address is no peer of ours (404).
    pub(crate) async fn whois(
        &self,
        ip: std::net::IpAddr,
        timeout: Duration,
    ) -> Result<Option<WhoIs>> {
        let path = format!("/localapi/v0/whois?addr={ip}");
        let reply = self.call(Method::GET, &path, None, None, timeout).await?;
        if reply.status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let body = reply.ok(&path)?;
        serde_json::from_slice(&body)
            .map(Some)
            .map_err(|source| TailnetError::LocalApiJson { path, source })
    }
}

/// A LocalAPI reply, whatever its status.
pub(crate) struct Reply {
    status: StatusCode,
    etag: Option<String>,
    body: Bytes,
}

impl Reply {
    /// The body of a 200, or an error naming the path, status and what the node said.
    pub(crate) fn ok(self, path: &str) -> Result<Bytes> {
        if self.status == StatusCode::OK {
            return Ok(self.body);
        }
        Err(TailnetError::LocalApiStatus {
            path: path.to_owned(),
            status: self.status.as_u16(),
            body: String::from_utf8_lossy(&self.body)
                .trim()
                .chars()
                .take(500)
                .collect(),
        })
    }
}

/// The parts of `apitype.WhoIsResponse` we use.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct WhoIs {
    #[serde(default)]
    pub node: Option<WhoIsNode>,
    #[serde(default)]
    pub(crate) user_profile: Option<UserProfile>,
    /// Capability name to the list of values granted (one per matching grant), as raw JSON.
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) cap_map: std::collections::HashMap<String, Option<Vec<serde_json::Value>>>,
}

/// `tailcfg.Node`, the fields we show.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct WhoIsNode {
    /// MagicDNS name with a trailing dot.
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default, rename = "ComputedName")]
    pub(crate) computed_name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) tags: Vec<String>,
}

/// `tailcfg.UserProfile`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct UserProfile {
    #[serde(default)]
    pub(crate) login_name: String,
    #[serde(default)]
    pub(crate) display_name: String,
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
