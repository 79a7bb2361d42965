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
pub const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(6 * 3600);
/// Retry delay after a failed refresh.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(10 * 60);
/// Ask for a synchronous renewal once less than this much validity is left
/// (capped at a third of the certificate's lifetime, so short-lived certs do
/// not trigger a new issuance on every refresh).
const RENEW_BEFORE: Duration = Duration::from_secs(14 * 24 * 3600);

/// A certificate as served: the rustls key plus its validity window.
#[derive(Debug)]
struct Current {
    key: Arc<CertifiedKey>,
    not_before: SystemTime,
    not_after: SystemTime,
}

#[derive(Debug)]
struct Inner {
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
    pub async fn fetch(api: LocalApi, provider: Arc<CryptoProvider>) -> Result<CertStore> {
        let status = api.status().await?;
        let domain = status
            .cert_domains
            .first()
            .cloned()
            .ok_or(TailnetError::NoCertDomain)?;
        Self::fetch_for(api, provider, domain).await
    }

    /// Like [`CertStore::fetch`] for a known domain.
    pub async fn fetch_for(
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
    pub fn domain(&self) -> &str {
        &self.inner.domain
    }

    /// The certificate currently served.
    pub fn current(&self) -> Arc<CertifiedKey> {
        match self.inner.current.read() {
            Ok(c) => c.key.clone(),
            Err(poisoned) => poisoned.into_inner().key.clone(),
        }
    }

    /// When the certificate currently served expires.
    pub fn not_after(&self) -> SystemTime {
        match self.inner.current.read() {
            Ok(c) => c.not_after,
            Err(poisoned) => poisoned.into_inner().not_after,
        }
    }

    /// Asks Tailscale for the certificate again and swaps it in if it
    /// changed. Returns whether it changed. On error the old certificate
    /// stays in place.
    pub async fn refresh(&self) -> Result<bool> {
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
    pub fn spawn_refresh(
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
    pub fn server_config(&self) -> Result<Arc<rustls::ServerConfig>> {
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
fn renewal_demand(
    not_before: SystemTime,
    not_after: SystemTime,
    now: SystemTime,
) -> Option<Duration> {
    let lifetime = not_after.duration_since(not_before).unwrap_or_default();
    let threshold = RENEW_BEFORE.min(lifetime / 3);
    let left = not_after.duration_since(now).unwrap_or_default();
    (left < threshold).then_some(threshold)
}

fn unix_seconds(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn days_left(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::now()) {
        Ok(d) => (d.as_secs() / 86400) as i64,
        Err(e) => -((e.duration().as_secs() / 86400) as i64),
    }
}

/// Parses LocalAPI's `type=pair` body: key PEM (SEC1 "EC PRIVATE KEY" from
/// Tailscale, but any PEM key type is accepted) followed by the chain PEM.
fn parse_pair(domain: &str, pem: &[u8], provider: &CryptoProvider) -> Result<Current> {
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
    let (not_before, not_after) =
        der::validity(leaf).map_err(|e| bad(format!("leaf validity: {e}")))?;
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

/// Just enough DER to read a certificate's validity period; saves pulling in
/// a full X.509 parser for two timestamps.
mod der {
    use super::*;

    /// (tag, content, rest)
    fn tlv(input: &[u8]) -> std::result::Result<(u8, &[u8], &[u8]), &'static str> {
        let (&tag, rest) = input.split_first().ok_or("truncated")?;
        let (&first, rest) = rest.split_first().ok_or("truncated")?;
        let (len, rest) = if first < 0x80 {
            (first as usize, rest)
        } else {
            let n = (first & 0x7f) as usize;
            if n == 0 || n > 4 || rest.len() < n {
                return Err("bad length");
            }
            let len = rest[..n]
                .iter()
                .fold(0usize, |acc, &b| (acc << 8) | b as usize);
            (len, &rest[n..])
        };
        if rest.len() < len {
            return Err("truncated");
        }
        Ok((tag, &rest[..len], &rest[len..]))
    }

    pub(super) fn validity(
        cert: &[u8],
    ) -> std::result::Result<(SystemTime, SystemTime), &'static str> {
        let (_, certificate, _) = tlv(cert)?; // Certificate SEQUENCE
        let (_, tbs, _) = tlv(certificate)?; // TBSCertificate SEQUENCE
        let mut rest = tbs;
        let (tag, _, r) = tlv(rest)?;
        if tag == 0xa0 {
            rest = r; // [0] version
        }
        let (_, _, r) = tlv(rest)?; // serialNumber
        let (_, _, r) = tlv(r)?; // signature AlgorithmIdentifier
        let (_, _, r) = tlv(r)?; // issuer
        let (tag, validity, _) = tlv(r)?;
        if tag != 0x30 {
            return Err("validity is not a SEQUENCE");
        }
        let (t1, nb, r) = tlv(validity)?;
        let (t2, na, _) = tlv(r)?;
        Ok((time(t1, nb)?, time(t2, na)?))
    }

    /// UTCTime (0x17, YYMMDDHHMMSSZ) or GeneralizedTime (0x18, YYYYMMDDHHMMSSZ).
    fn time(tag: u8, v: &[u8]) -> std::result::Result<SystemTime, &'static str> {
        let s = std::str::from_utf8(v).map_err(|_| "bad time")?;
        let s = s.strip_suffix('Z').ok_or("time not in UTC")?;
        let (year, rest) = match tag {
            0x17 if s.len() == 12 => {
                let yy: i64 = s[..2].parse().map_err(|_| "bad year")?;
                (if yy < 50 { 2000 + yy } else { 1900 + yy }, &s[2..])
            }
            0x18 if s.len() == 14 => (s[..4].parse().map_err(|_| "bad year")?, &s[4..]),
            _ => return Err("unsupported time format"),
        };
        let num = |i: usize| -> std::result::Result<i64, &'static str> {
            rest[i..i + 2].parse().map_err(|_| "bad time field")
        };
        let (mo, d, h, mi, se) = (num(0)?, num(2)?, num(4)?, num(6)?, num(8)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
            return Err("time field out of range");
        }
        let secs = days_from_civil(year, mo, d) * 86400 + h * 3600 + mi * 60 + se;
        let secs = u64::try_from(secs).map_err(|_| "time before 1970")?;
        Ok(UNIX_EPOCH + Duration::from_secs(secs))
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146097 + doe - 719468
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn civil_dates() {
            assert_eq!(days_from_civil(1970, 1, 1), 0);
            assert_eq!(days_from_civil(2000, 3, 1), 11017);
            assert_eq!(
                time(0x17, b"240229120000Z").expect("t"),
                UNIX_EPOCH + Duration::from_secs(1709208000)
            );
            assert_eq!(
                time(0x18, b"20500101000000Z").expect("t"),
                UNIX_EPOCH + Duration::from_secs(2524608000)
            );
        }
    }
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
}
