//! For the tests of a person's own things (tests/suite/household.rs, tests/suite/menu.rs): the binary
//! as someone on a household's state directory, and a same-origin JSON write.

use super::{Server, client, same_origin};
use reqwest::StatusCode;
use serde_json::Value;
use std::path::Path;

/// The binary as `login` on the household in `state`, plus `extra` arguments.
pub fn person(state: &Path, login: &str, extra: &[&str]) -> Server {
    let dir = state.to_str().unwrap();
    let mut args = vec!["--state-dir", dir, "--local-identity", login];
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// A same-origin write with a JSON body (or none), and its status and JSON answer.
pub async fn write(
    server: &Server,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = client()
        .request(method, server.url(path))
        .headers(same_origin(server));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}
