//! The node's HTTPS certificate, issued through the tailnet.
//!
//! Tailscale obtains the certificate itself (ACME dns-01, with the TXT record
//! set by the coordination server) and caches it in the state dir; we only
//! ask its LocalAPI for the key+chain and keep the parsed result in memory.
//! Tailscale renews in the background when asked for a cert that is due, so
//! our refresh task just asks again every few hours, and insists on a fresh
//! one (`min_validity`) when the one we hold is close to expiry.

use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use super::localapi::LocalApi;
use super::{Result, TailnetError};

/// How often the refresh task asks Tailscale for the current certificate.
pub(crate) const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(6 * 3600);
/// Retry delay after a failed refresh.
pub(crate) const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(10 * 60);
/// Ask for a synchronous renewal once less than this much validity is left
/// (capped at a third of the certificate's lifetime, so short-lived certs do
/// not trigger a new issuance on every refresh).
pub(crate) const RENEW_BEFORE: Duration = Duration::from_secs(14 * 24 * 3600);

/// A certificate as served: the rustls key plus its validity window.
#[derive(Debug)]
pub(crate) struct Current {
    key: Arc<CertifiedKey>,
    not_before: SystemTime,
    not_after: SystemTime,
}

#[derive(Debug)]
pub(crate) struct Inner {
    domain: String,
    api: LocalApi,
    provider: Arc<CryptoProvider>,
    current: RwLock<Current>,
}

/// The tailnet certificate for this node; cheap to clone. Implements
/// [`ResolvesServerCert`] by returning the same certificate for every
/// handshake, whatever the SNI (full name, short name, IP, or none): the
/// node has exactly one name to offer, and refusing handshakes for other
/// names would only turn a browser warning into a connection error.
#[derive(Debug, Clone)]
pub struct CertStore {
    inner: Arc<Inner>,
}

impl CertStore {
    /// Fetches the certificate for the node's name (`CertDomains[0]` from the
    /// LocalAPI status). Fails with [`TailnetError::NoCertDomain`] if the
    /// tailnet has HTTPS certificates or MagicDNS turned off.
    pub(crate) async fn fetch(api: LocalApi, provider: Arc<CryptoProvider>) -> Result<CertStore> {
        let status = api.status().await?;
        let domain = status
            .cert_domains
            .first()
            .cloned()
            .ok_or(TailnetError::NoCertDomain)?;
        Self::fetch_for(api, provider, domain).await
    }

    /// Like [`CertStore::fetch`] for a known domain.
    pub(crate) async fn fetch_for(
        api: LocalApi,
        provider: Arc<CryptoProvider>,
        domain: String,
    ) -> Result<CertStore> {
        let pem = api.cert_pair(&domain, None).await?;
        let current = parse_pair(&domain, &pem, &provider)?;
        tracing::info!(
            target: "libations::tailnet",
            domain = %domain,
            expires_in_days = days_left(current.not_after),
            "tailnet HTTPS certificate loaded"
        );
        Ok(CertStore {
            inner: Arc::new(Inner {
                domain,
                api,
                provider,
                current: RwLock::new(current),
            }),
        })
    }

    /// The name the certificate is for (the node's full MagicDNS name).
    pub(crate) fn domain(&self) -> &str {
        &self.inner.domain
    }

    /// The certificate currently served.
    pub(crate) fn current(&self) -> Arc<CertifiedKey> {
        match self.inner.current.read() {
            Ok(c) => c.key.clone(),
            Err(poisoned) => poisoned.into_inner().key.clone(),
        }
    }

    /// When the certificate currently served expires.
    pub(crate) fn not_after(&self) -> SystemTime {
        match self.inner.current.read() {
            Ok(c) => c.not_after,
            Err(poisoned) => poisoned.into_inner().not_after,
        }
    }

    /// Asks Tailscale for the certificate again and swaps it in if it
    /// changed. Returns whether it changed. On error the old certificate
    /// stays in place.
    pub(crate) async fn refresh(&self) -> Result<bool> {
        let min_validity = {
            let c = match self.inner.current.read() {
                Ok(c) => (c.not_before, c.not_after),
                Err(p) => {
                    let c = p.into_inner();
                    (c.not_before, c.not_after)
                }
            };
            renewal_demand(c.0, c.1, SystemTime::now())
        };
        let pem = self
            .inner
            .api
            .cert_pair(&self.inner.domain, min_validity)
            .await?;
        let fresh = parse_pair(&self.inner.domain, &pem, &self.inner.provider)?;
        let mut cur = match self.inner.current.write() {
            Ok(c) => c,
            Err(p) => p.into_inner(),
        };
        let changed = cur.key.cert.first() != fresh.key.cert.first();
        if changed {
            tracing::info!(
                target: "libations::tailnet",
                domain = %self.inner.domain,
                expires_in_days = days_left(fresh.not_after),
                "tailnet HTTPS certificate renewed"
            );
            *cur = fresh;
        } else {
            tracing::debug!(target: "libations::tailnet", domain = %self.inner.domain, "tailnet HTTPS certificate unchanged");
        }
        Ok(changed)
    }

    /// Spawns the background refresh loop, keeping the expiry and failure metrics current.
    /// Abort the handle to stop it.
    pub(crate) fn spawn_refresh(
        &self,
        interval: Duration,
        metrics: Arc<crate::metrics::Metrics>,
    ) -> tokio::task::JoinHandle<()> {
        let store = self.clone();
        metrics.cert_expiry.set(unix_seconds(store.not_after()));
        tokio::spawn(async move {
            let mut delay = interval;
            loop {
                tokio::time::sleep(delay).await;
                match store.refresh().await {
                    Ok(_) => delay = interval,
                    Err(e) => {
                        metrics.cert_refresh_failures.inc();
                        tracing::warn!(
                            target: "libations::tailnet",
                            domain = %store.domain(),
                            expires_in_days = days_left(store.not_after()),
                            "could not refresh the tailnet HTTPS certificate, keeping the current one: {e}"
                        );
                        delay = interval.min(RETRY_AFTER_FAILURE);
                    }
                }
                metrics.cert_expiry.set(unix_seconds(store.not_after()));
            }
        })
    }

    /// A rustls server config using this store, offering HTTP/2 and HTTP/1.1.
    pub(crate) fn server_config(&self) -> Result<Arc<rustls::ServerConfig>> {
        let mut cfg = rustls::ServerConfig::builder_with_provider(self.inner.provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| TailnetError::BadCertificate {
                domain: self.inner.domain.clone(),
                reason: e.to_string(),
            })?
            .with_no_client_auth()
            .with_cert_resolver(Arc::new(self.clone()));
        cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Arc::new(cfg))
    }
}

impl ResolvesServerCert for CertStore {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// `Some(min_validity)` when the held certificate is close enough to expiry
/// that Tailscale should renew synchronously.
pub(crate) fn renewal_demand(
    not_before: SystemTime,
    not_after: SystemTime,
    now: SystemTime,
) -> Option<Duration> {
    let lifetime = not_after.duration_since(not_before).unwrap_or_default();
    let threshold = RENEW_BEFORE.min(lifetime / 3);
    let left = not_after.duration_since(now).unwrap_or_default();
    (left < threshold).then_some(threshold)
}

pub(crate) fn unix_seconds(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

pub(crate) fn days_left(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::now()) {
        Ok(d) => (d.as_secs() / 86400) as i64,
        Err(e) => -((e.duration().as_secs() / 86400) as i64),
    }
}

/// Parses LocalAPI's `type=pair` body: key PEM (SEC1 "EC PRIVATE KEY" from
/// Tailscale, but any PEM key type is accepted) followed by the chain PEM.
pub(crate) fn parse_pair(domain: &str, pem: &[u8], provider: &CryptoProvider) -> Result<Current> {
    let bad = |reason: String| TailnetError::BadCertificate {
        domain: domain.to_owned(),
        reason,
    };
    let key = PrivateKeyDer::from_pem_slice(pem).map_err(|e| bad(format!("private key: {e}")))?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| bad(format!("certificate chain: {e}")))?;
    let leaf = chain
        .first()
        .ok_or_else(|| bad("no certificate in LocalAPI response".into()))?;
    let (not_before, not_after) = validity(leaf).map_err(|e| bad(format!("leaf validity: {e}")))?;
    let key = CertifiedKey::from_der(chain, key, provider)
        .map_err(|e| bad(format!("key/cert mismatch: {e}")))?;
    if not_after <= SystemTime::now() {
        tracing::warn!(target: "libations::tailnet", %domain, "tailnet certificate has already expired");
    }
    Ok(Current {
        key: Arc::new(key),
        not_before,
        not_after,
    })
}

/// The leaf's validity window.
pub(crate) fn validity(
    leaf: &CertificateDer<'_>,
) -> std::result::Result<(SystemTime, SystemTime), String> {
    use x509_cert::der::Decode;
    let cert = x509_cert::Certificate::from_der(leaf.as_ref()).map_err(|e| e.to_string())?;
    let window = cert.tbs_certificate().validity();
    Ok((
        UNIX_EPOCH + window.not_before.to_unix_duration(),
        UNIX_EPOCH + window.not_after.to_unix_duration(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renewal_threshold_scales_with_lifetime() {
        let day = Duration::from_secs(86400);
        let nb = UNIX_EPOCH + 1000 * day;
        // 90-day cert: renew synchronously under 14 days left.
        assert_eq!(renewal_demand(nb, nb + 90 * day, nb + 10 * day), None);
        assert_eq!(
            renewal_demand(nb, nb + 90 * day, nb + 80 * day),
            Some(14 * day)
        );
        // 6-day cert: threshold is 2 days, not 14.
        assert_eq!(renewal_demand(nb, nb + 6 * day, nb + day), None);
        assert_eq!(
            renewal_demand(nb, nb + 6 * day, nb + 5 * day),
            Some(2 * day)
        );
    }

    /// A self-signed pair in the LocalAPI's layout: key PEM, then the chain.
    fn pair(name: &str) -> (Vec<u8>, SystemTime) {
        let key = rcgen::KeyPair::generate().expect("key");
        let mut params = rcgen::CertificateParams::new(vec![name.to_owned()]).expect("params");
        params.not_after = rcgen::date_time_ymd(2031, 1, 2);
        let cert = params.self_signed(&key).expect("cert");
        let pem = format!("{}{}", key.serialize_pem(), cert.pem());
        (
            pem.into_bytes(),
            UNIX_EPOCH + Duration::from_secs(1_925_078_400),
        )
    }

    #[test]
    fn parses_the_pair_and_its_validity() {
        let provider = rustls::crypto::ring::default_provider();
        let (pem, not_after) = pair("libations.example.ts.net");
        let current = parse_pair("libations.example.ts.net", &pem, &provider).expect("parse");
        assert_eq!(current.not_after, not_after);
        let err = parse_pair("x", b"not pem", &provider).expect_err("garbage");
        assert!(
            err.to_string().contains("certificate for x is unusable"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_failed_refresh_keeps_the_certificate_and_counts_in_metrics() {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let (pem, not_after) = pair("libations.example.ts.net");
        let current = parse_pair("libations.example.ts.net", &pem, &provider).expect("parse");
        // A LocalAPI that is gone: a port that was just free.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port");
        let store = CertStore {
            inner: Arc::new(Inner {
                domain: "libations.example.ts.net".into(),
                api: LocalApi::new(port, &"0".repeat(32)),
                provider,
                current: RwLock::new(current),
            }),
        };
        let before = store.current();
        assert!(store.refresh().await.is_err());
        assert!(
            Arc::ptr_eq(&before, &store.current()),
            "old certificate kept"
        );

        let metrics = Arc::new(crate::metrics::Metrics::new());
        let task = store.spawn_refresh(Duration::from_millis(20), metrics.clone());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while metrics.cert_refresh_failures.get() < 2 {
            assert!(
                std::time::Instant::now() < deadline,
                "refresh failures not counted"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        task.abort();
        assert!(Arc::ptr_eq(&before, &store.current()));
        let expiry = not_after
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        assert_eq!(metrics.cert_expiry.get(), expiry);
    }
}
