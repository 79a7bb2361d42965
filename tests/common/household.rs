//! For the tests of a person's own things (tests/suite/household.rs, tests/suite/menu.rs): the binary
//! as someone on a household's state directory, and a same-origin JSON write.

use super::{Server, client, same_origin, shared_data};
use libations::recipes::Recipes;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::Path;

/// The binary over the shared collection `file` as alice@example.com with `grant`
/// (`--local-shelf` or `--local-edit`), after she ticked `shelf` in her own words: the
/// server, `PUT /api/bar/shelf`'s answer, the collection and the state directory. `None`
/// outside this workplace (see `shared_data`).
pub async fn shelf_over(
    file: &str,
    grant: &str,
    shelf: &[&str],
) -> Option<(Server, Value, Recipes, tempfile::TempDir)> {
    let path = shared_data(file)?;
    let recipes = Recipes::from_file(&path).expect("shared data loads");
    let state = tempfile::tempdir().expect("temp dir");
    let extra = ["--recipes-file", path.to_str().unwrap(), grant];
    let server = person(state.path(), "alice@example.com", &extra);
    let change = Some(json!({"have": shelf}));
    let (status, bar) = write(&server, "PUT", "/api/bar/shelf", change).await;
    assert_eq!(status, StatusCode::OK, "{file}: {bar}");
    Some((server, bar, recipes, state))
}

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
