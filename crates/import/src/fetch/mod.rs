//! Fetching a recipe page for an import, safely: the server must not become a way into
//! the tailnet, the LAN or a cloud's metadata service.
//!
//! Only `http` and `https` addresses are fetched, and only from public unicast addresses
//! ([`addresses`]): the host name is resolved here, every address checked, and the connection
//! made to exactly an address that passed (no second lookup that a DNS-rebinding answer
//! could change). Each redirect is checked the same way. At most [`MAX_REDIRECTS`]
//! redirects, [`MAX_BYTES`] of body, [`TIMEOUT`] in all, and an HTML or JSON content type.
//! Every refusal names its rule.
//!
//! `--import-allow-host HOST` lets named hosts through the address rules (for tests and a
//! LAN recipe server); nothing else does.

pub mod addresses;
mod http;

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// How many redirects one fetch follows.
pub(crate) const MAX_REDIRECTS: usize = 5;
/// The largest page fetched.
pub(crate) const MAX_BYTES: usize = 2 << 20;
/// How long one fetch may take, redirects included.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// Why a page was not fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{0} is not a web address (http:// or https://)")]
    NotAnAddress(String),
    #[error("only http and https addresses are fetched, not {0}:")]
    Scheme(String),
    #[error("{host} is not fetched: it is a {rule} ({address}); only public addresses are")]
    Refused {
        host: String,
        address: IpAddr,
        rule: &'static str,
    },
    #[error("{host} could not be found: {message}")]
    Resolve { host: String, message: String },
    #[error("{host} could not be reached: {message}")]
    Connect { host: String, message: String },
    #[error("{host} answered with something that is not HTTP: {message}")]
    Protocol { host: String, message: String },
    #[error("{url} answered {status}")]
    Status { url: String, status: u16 },
    #[error("more than {MAX_REDIRECTS} redirects")]
    TooManyRedirects,
    #[error("the page is larger than {} MiB", MAX_BYTES >> 20)]
    TooLarge,
    #[error("the page took longer than {} seconds", TIMEOUT.as_secs())]
    Timeout,
    #[error("the page is {0}, not HTML or JSON")]
    ContentType(String),
}

/// Looks a host name up: the system's resolver, or a stub in tests.
pub(crate) trait Resolve: Send + Sync {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send + 'a>>;
}

/// The system's resolver (getaddrinfo, on a blocking thread).
struct System;

impl Resolve for System {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send + 'a>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.collect()) })
    }
}

/// A page as fetched.
#[derive(Debug, Clone)]
pub struct Page {
    /// The address it came from, after redirects.
    pub url: String,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// Fetches pages under the rules above.
#[derive(Clone)]
pub struct Fetcher {
    allowed: Arc<Vec<String>>,
    resolver: Arc<dyn Resolve>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("allowed", &self.allowed)
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A fetcher that also lets the hosts in `allowed` through (`--import-allow-host`).
    pub fn new(allowed: Vec<String>) -> Fetcher {
        Fetcher::with_resolver(allowed, Arc::new(System))
    }

    pub(crate) fn with_resolver(allowed: Vec<String>, resolver: Arc<dyn Resolve>) -> Fetcher {
        let allowed = allowed
            .into_iter()
            .map(|h| h.trim().trim_matches(['[', ']']).to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        Fetcher {
            allowed: Arc::new(allowed),
            resolver,
        }
    }

    /// Fetches `address`, following redirects; see the module docs for the rules.
    pub async fn fetch(&self, address: &str) -> Result<Page, FetchError> {
        tokio::time::timeout(TIMEOUT, self.follow(address))
            .await
            .unwrap_or(Err(FetchError::Timeout))
    }

    async fn follow(&self, address: &str) -> Result<Page, FetchError> {
        let mut url = parse(address)?;
        for _ in 0..=MAX_REDIRECTS {
            let target = self.target(&url).await?;
            match http::get(&url, &target).await? {
                http::Answer::Redirect(location) => {
                    url = url
                        .join(&location)
                        .map_err(|_| FetchError::NotAnAddress(location.clone()))?;
                    scheme(&url)?;
                }
                http::Answer::Page(page) => return Ok(page),
            }
        }
        Err(FetchError::TooManyRedirects)
    }

    /// Where to connect for `url`: its host's addresses that pass the rules (all of them
    /// for an allowed host), in the resolver's order.
    pub(crate) async fn target(&self, url: &url::Url) -> Result<Target, FetchError> {
        let host = url
            .host_str()
            .ok_or_else(|| FetchError::NotAnAddress(url.to_string()))?;
        let bare = host.trim_matches(['[', ']']).to_ascii_lowercase();
        let port = url.port_or_known_default().unwrap_or(80);
        let addrs = match url.host() {
            Some(url::Host::Ipv4(ip)) => vec![SocketAddr::new(ip.into(), port)],
            Some(url::Host::Ipv6(ip)) => vec![SocketAddr::new(ip.into(), port)],
            _ => self
                .resolver
                .lookup(&bare, port)
                .await
                .map_err(|e| FetchError::Resolve {
                    host: bare.clone(),
                    message: e.to_string(),
                })?,
        };
        let allowed = self.allowed.contains(&bare);
        let mut passed = Vec::new();
        let mut first_refusal = None;
        for addr in addrs {
            match addresses::refused(addr.ip()) {
                Some(rule) if !allowed => {
                    first_refusal.get_or_insert(FetchError::Refused {
                        host: bare.clone(),
                        address: addr.ip(),
                        rule,
                    });
                }
                _ => passed.push(addr),
            }
        }
        // A name that resolves to a refused address as well as a public one is refused
        // whole: it is not a public site's name.
        if let Some(refusal) = first_refusal {
            return Err(refusal);
        }
        if passed.is_empty() {
            return Err(FetchError::Resolve {
                host: bare,
                message: "no address".into(),
            });
        }
        Ok(Target {
            host: bare,
            addrs: passed,
        })
    }
}

/// The checked addresses to connect to for one request, and the host name for TLS and
/// the `Host` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) host: String,
    pub(crate) addrs: Vec<SocketAddr>,
}

fn parse(address: &str) -> Result<url::Url, FetchError> {
    let url = url::Url::parse(address.trim())
        .map_err(|_| FetchError::NotAnAddress(address.chars().take(200).collect()))?;
    scheme(&url)?;
    Ok(url)
}

fn scheme(url: &url::Url) -> Result<(), FetchError> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(FetchError::Scheme(other.to_owned())),
    }
}

#[cfg(test)]
mod tests;
