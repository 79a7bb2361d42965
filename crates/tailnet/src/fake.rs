//! A stand-in for the node's LocalAPI, for unit tests of what we do with its answers: the
//! serve config with its ETag and `If-Match` (as `ipn/localapi/serve.go` does it), and
//! WhoIs answers that are good, unknown, failing or slow.

use super::LocalApi;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the fake node holds and how it misbehaves.
#[derive(Default)]
pub(crate) struct FakeNode {
    /// The serve config and the number its ETag is made from.
    pub(crate) config: Mutex<(Value, u64)>,
    /// `If-Match` of every POST, in order.
    pub(crate) posted_etags: Mutex<Vec<String>>,
    /// POSTs still to answer 412 as if someone else changed the config first.
    pub(crate) conflicts: AtomicUsize,
    /// POSTs answer 500.
    pub(crate) refuse: AtomicBool,
    /// POSTs answer 200 and keep the old config.
    pub(crate) ignore: AtomicBool,
    /// The WhoIs answer body; `None` answers 404.
    pub(crate) whois: Mutex<Option<Value>>,
    /// WhoIs answers 500.
    pub(crate) whois_fails: AtomicBool,
    /// WhoIs waits this long first.
    pub(crate) whois_delay: Mutex<Duration>,
    pub(crate) whois_calls: AtomicUsize,
}

impl FakeNode {
    /// Serves the fake on a loopback port and returns a client for it.
    pub async fn start(self: &Arc<FakeNode>) -> LocalApi {
        let app = Router::new()
            .route(
                "/localapi/v0/serve-config",
                get(get_config).post(post_config),
            )
            .route("/localapi/v0/whois", get(whois))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await });
        LocalApi::new(addr, "0123456789abcdef0123456789abcdef")
    }
}

fn etag(n: u64) -> String {
    format!("\"etag-{n}\"")
}

async fn get_config(State(node): State<Arc<FakeNode>>) -> Response {
    let (config, n) = node.config.lock().expect("lock").clone();
    let config = if config.is_null() {
        serde_json::json!({})
    } else {
        config
    };
    ([(header::ETAG, etag(n))], axum::Json(config)).into_response()
}

async fn post_config(
    State(node): State<Arc<FakeNode>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let sent = headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    node.posted_etags.lock().expect("lock").push(sent.clone());
    if node.refuse.load(Ordering::SeqCst) {
        return (StatusCode::INTERNAL_SERVER_ERROR, "serve config denied").into_response();
    }
    let mut config = node.config.lock().expect("lock");
    if node
        .conflicts
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        config.1 += 1; // someone else's change
    }
    if sent != etag(config.1) {
        return (StatusCode::PRECONDITION_FAILED, "etag mismatch").into_response();
    }
    if !node.ignore.load(Ordering::SeqCst) {
        config.0 = serde_json::from_slice(&body).expect("JSON body");
        config.1 += 1;
    }
    StatusCode::OK.into_response()
}

async fn whois(State(node): State<Arc<FakeNode>>) -> Response {
    node.whois_calls.fetch_add(1, Ordering::SeqCst);
    let delay = *node.whois_delay.lock().expect("lock");
    tokio::time::sleep(delay).await;
    if node.whois_fails.load(Ordering::SeqCst) {
        return (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response();
    }
    match node.whois.lock().expect("lock").clone() {
        Some(answer) => axum::Json(answer).into_response(),
        None => (StatusCode::NOT_FOUND, "no match for IP:port").into_response(),
    }
}
