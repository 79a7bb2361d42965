//! One GET over one connection to an address already checked: TCP to that very address,
//! TLS (for https) with the host's name, HTTP/1.1 through hyper's client connection.

use super::{FetchError, MAX_BYTES, Page, Target};
use http_body_util::BodyExt;
use hyper::header;
use hyper_util::rt::TokioIo;
use std::sync::{Arc, OnceLock};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// What one request brought back.
pub(super) enum Answer {
    Redirect(String),
    Page(Page),
}

pub(super) async fn get(url: &url::Url, target: &Target) -> Result<Answer, FetchError> {
    let tcp = connect(target).await?;
    let protocol = |e: &dyn std::fmt::Display| FetchError::Protocol {
        host: target.host.clone(),
        message: e.to_string(),
    };
    if url.scheme() == "https" {
        let name = rustls_pki_types::ServerName::try_from(target.host.clone())
            .map_err(|e| protocol(&e))?;
        let tls = tokio_rustls::TlsConnector::from(tls_config())
            .connect(name, tcp)
            .await
            .map_err(|e| FetchError::Connect {
                host: target.host.clone(),
                message: format!("TLS: {e}"),
            })?;
        request(url, target, tls).await
    } else {
        request(url, target, tcp).await
    }
}

async fn connect(target: &Target) -> Result<TcpStream, FetchError> {
    let mut last = String::from("no address");
    for addr in &target.addrs {
        match TcpStream::connect(addr).await {
            Ok(stream) => return Ok(stream),
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(FetchError::Connect {
        host: target.host.clone(),
        message: last,
    })
}

async fn request<S>(url: &url::Url, target: &Target, io: S) -> Result<Answer, FetchError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let protocol = |e: &dyn std::fmt::Display| FetchError::Protocol {
        host: target.host.clone(),
        message: e.to_string(),
    };
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| protocol(&e))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    let request = hyper::Request::get(path)
        .header(header::HOST, host)
        .header(header::USER_AGENT, "libations-import/1")
        .header(
            header::ACCEPT,
            "text/html, application/ld+json, application/json;q=0.9",
        )
        .body(http_body_util::Empty::<bytes::Bytes>::new())
        .map_err(|e| protocol(&e))?;
    let answer = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| protocol(&e))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| protocol(&format!("a redirect ({status}) without a Location")))?;
            return Ok(Answer::Redirect(location.to_owned()));
        }
        if !status.is_success() {
            return Err(FetchError::Status {
                url: url.to_string(),
                status: status.as_u16(),
            });
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("no content type")
            .to_owned();
        if !readable(&content_type) {
            return Err(FetchError::ContentType(content_type));
        }
        let declared = response
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > MAX_BYTES as u64) {
            return Err(FetchError::TooLarge);
        }
        let body = http_body_util::Limited::new(response.into_body(), MAX_BYTES)
            .collect()
            .await
            .map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    FetchError::TooLarge
                } else {
                    protocol(&e)
                }
            })?
            .to_bytes();
        Ok(Answer::Page(Page {
            url: url.to_string(),
            content_type,
            body: body.to_vec(),
        }))
    }
    .await;
    driver.abort();
    answer
}

/// HTML or JSON (JSON-LD included).
fn readable(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    matches!(
        essence.as_str(),
        "text/html" | "application/xhtml+xml" | "application/json" | "application/ld+json"
    ) || essence.ends_with("+json")
}

fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|b| b.with_root_certificates(roots).with_no_client_auth())
                .unwrap_or_else(|_| {
                    rustls::ClientConfig::builder()
                        .with_root_certificates(rustls::RootCertStore::empty())
                        .with_no_client_auth()
                });
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Arc::new(config)
        })
        .clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn html_and_json_types_are_read_others_not() {
        for ok in [
            "text/html",
            "text/html; charset=utf-8",
            "application/ld+json",
            "application/json",
            "application/vnd.api+json",
        ] {
            assert!(super::readable(ok), "{ok}");
        }
        for no in [
            "image/png",
            "text/plain",
            "application/zip",
            "no content type",
        ] {
            assert!(!super::readable(no), "{no}");
        }
    }
}
