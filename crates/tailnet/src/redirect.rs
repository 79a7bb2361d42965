//! The tailnet's :80: a permanent redirect to the one HTTPS name, never anywhere else.
//!
//! While the tailnet offers no certificate (HTTPS or MagicDNS off in the admin console),
//! :80 answers with a page that says what to turn on (`templates/redirect.html`, an askama
//! template like every other page), rather than leaving a dead port.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use std::sync::{Arc, OnceLock};

/// The :80 app: a permanent redirect to the certificate's name, built from our own name
/// and never from the request's Host header (that would be an open redirect, and
/// `https://libations/` would not match the certificate anyway).
pub(crate) fn redirect_app(domain: Arc<OnceLock<String>>) -> Router {
    Router::new().fallback(redirect).with_state(domain)
}

async fn redirect(State(domain): State<Arc<OnceLock<String>>>, uri: Uri) -> Response {
    match domain.get() {
        Some(domain) => {
            // Only a path of ours is kept: an HTTP/2 `:path` such as `@evil.example` would
            // otherwise turn the redirect into `https://<name>@evil.example`.
            let target = uri
                .path_and_query()
                .map(|pq| pq.as_str())
                .filter(|target| target.starts_with('/'))
                .unwrap_or("/");
            let location = format!("https://{domain}{target}");
            match HeaderValue::from_str(&location) {
                Ok(location) => (
                    StatusCode::MOVED_PERMANENTLY,
                    [(header::LOCATION, location)],
                )
                    .into_response(),
                Err(_) => StatusCode::BAD_REQUEST.into_response(),
            }
        }
        None => match NoCertificatePage.render() {
            Ok(page) => (
                StatusCode::SERVICE_UNAVAILABLE,
                [
                    (
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("text/html; charset=utf-8"),
                    ),
                    (header::RETRY_AFTER, HeaderValue::from_static("60")),
                ],
                page,
            )
                .into_response(),
            // The page has no values to go wrong; a 500 rather than a panic all the same.
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
    }
}

/// What :80 says while the tailnet offers no certificate (`templates/redirect.html`).
#[derive(Template)]
#[template(path = "redirect.html")]
struct NoCertificatePage;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connections::{Budget, Connections, Limits};
    use crate::metrics::Metrics;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;
    use tokio_util::sync::CancellationToken;

    const DOMAIN: &str = "libations.example.ts.net";

    /// Serves the :80 app on a loopback port (plain TCP: the app does not care where bytes
    /// come from, and the same port speaks HTTP/1.1 and HTTP/2).
    async fn redirect_server() -> (std::net::SocketAddr, CancellationToken) {
        let domain = Arc::new(OnceLock::new());
        let _ = domain.set(DOMAIN.to_owned());
        let stopping = CancellationToken::new();
        let connections = Connections::new(
            redirect_app(domain),
            Limits::default(),
            Arc::new(Metrics::new()),
            stopping.clone(),
            Arc::new(Budget::new(1 << 20, 1 << 20)),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(crate::connections::accept_tcp(listener, connections));
        (addr, stopping)
    }

    /// One HTTP/2 frame: 9-byte header, then the payload.
    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let len = payload.len() as u32;
        let mut out = len.to_be_bytes()[1..].to_vec();
        out.extend([kind, flags]);
        out.extend(stream.to_be_bytes());
        out.extend(payload);
        out
    }

    /// Sends, over HTTP/2 with prior knowledge, a request with exactly these pseudo-headers
    /// and returns the answer's status and Location, or `None` if the stream was reset.
    /// Written with raw frames because HTTP clients cannot send a `:path` that does not
    /// start with `/`.
    async fn over_h2(pseudo: &[(&str, &str)]) -> Option<(String, String)> {
        let (addr, stopping) = redirect_server().await;
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        let block = loona_hpack::Encoder::new()
            .encode(pseudo.iter().map(|(k, v)| (k.as_bytes(), v.as_bytes())));
        let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        out.extend(frame(0x4, 0, 0, &[]));
        // HEADERS, END_STREAM | END_HEADERS, stream 1.
        out.extend(frame(0x1, 0x5, 1, &block));
        tcp.write_all(&out).await.expect("send");
        let mut decoder = loona_hpack::Decoder::new();
        let answer = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let mut head = [0u8; 9];
                tcp.read_exact(&mut head).await.expect("frame header");
                let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
                let mut payload = vec![0u8; len];
                tcp.read_exact(&mut payload).await.expect("frame payload");
                let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
                match head[3] {
                    0x1 if stream == 1 => return Some(decoder.decode(&payload).expect("hpack")),
                    0x3 if stream == 1 => return None,
                    0x7 => panic!("GOAWAY: {payload:?}"),
                    _ => {}
                }
            }
        })
        .await
        .expect("an answer within 10 s");
        stopping.cancel();
        let answer = answer?;
        let field = |name: &[u8]| {
            answer
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
                .unwrap_or_default()
        };
        Some((field(b":status"), field(b"location")))
    }

    /// Sends one raw HTTP/1.1 request head and returns the Location of the answer.
    async fn over_h1(head: &str) -> String {
        let (addr, stopping) = redirect_server().await;
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        tcp.write_all(head.as_bytes()).await.expect("send");
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut answer));
        read.await.expect("closed within 10 s").expect("read");
        stopping.cancel();
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert!(answer.starts_with("HTTP/1.1 301"), "{head:?}: {answer}");
        answer
            .lines()
            .find_map(|l| l.strip_prefix("location: "))
            .unwrap_or_default()
            .to_owned()
    }

    #[tokio::test]
    async fn redirect_keeps_only_a_path_of_ours() {
        let root = format!("https://{DOMAIN}/");
        let get = |path| [(":method", "GET"), (":scheme", "http"), (":path", path)];
        assert_eq!(
            over_h2(&get("/recipes/3?units=oz")).await,
            Some(("301".into(), format!("https://{DOMAIN}/recipes/3?units=oz")))
        );
        // A `:path` that is not a path is refused by HTTP/2 itself (stream reset) or sent
        // to `/`; it never reaches the Location.
        for odd in [
            "@evil.example",
            "@evil.example/x",
            "evil.example",
            ".evil.example",
        ] {
            for pseudo in [
                get(odd).to_vec(),
                [get(odd).to_vec(), vec![(":authority", "x")]].concat(),
            ] {
                let answer = over_h2(&pseudo).await;
                assert!(
                    answer.is_none() || answer == Some(("301".into(), root.clone())),
                    "{pseudo:?}: {answer:?}"
                );
            }
        }
        // HTTP/1.1's asterisk form is the one target without a slash that reaches the app.
        assert_eq!(
            over_h1("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await,
            root
        );
        assert_eq!(
            over_h1("GET @evil.example HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await,
            root
        );
    }

    /// The page as it was written inline before it became a template, byte for byte.
    const NO_CERTIFICATE_PAGE: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Libations: HTTPS is off</title></head>\
<body><main><h1>Libations is on your tailnet, but HTTPS is not enabled</h1>\
<p>Libations only serves recipes over HTTPS, with the certificate your tailnet issues. This tailnet \
does not offer one yet.</p><ol><li>Open the Tailscale admin console, DNS page.</li>\
<li>Enable <strong>MagicDNS</strong>.</li><li>Under HTTPS Certificates, choose <strong>Enable HTTPS</strong>.</li></ol>\
<p>Libations checks again every minute; reload this page in a minute or two.</p></main></body></html>\n";

    #[test]
    fn the_no_certificate_page_is_the_one_written_inline_before() {
        assert_eq!(
            NoCertificatePage.render().expect("render"),
            NO_CERTIFICATE_PAGE
        );
    }
}
