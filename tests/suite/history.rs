//! The history and the files under it, over HTTP against the real binary: a journal
//! deleted while the app runs, a recipes file made read-only, a directory read-only for one
//! save. Failing syscalls and full disks are in `faults.rs`; a file broken by hand is in
//! `input.rs`.

use crate::common;

use common::{Server, client, collection, editor};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn write(server: &Server, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
    client()
        .request(method, server.url(path))
        .header("origin", &server.base)
        .header("sec-fetch-site", "same-origin")
}

async fn create(server: &Server, name: &str) -> reqwest::Response {
    write(server, reqwest::Method::POST, "/api/recipes")
        .json(&json!({"name": name, "base": ["Gin"]}))
        .send()
        .await
        .unwrap()
}

async fn names_in_history(server: &Server) -> Vec<String> {
    let history: Value = client()
        .get(server.url("/api/changes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    history["changes"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_journal_deleted_while_running_is_written_again_and_the_history_says_so() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    assert_eq!(
        create(&server, "Before").await.status(),
        StatusCode::CREATED
    );
    std::fs::remove_file(path.with_file_name("recipes.json.journal")).unwrap();
    assert_eq!(create(&server, "After").await.status(), StatusCode::CREATED);
    drop(server);
    let server = editor(&path, &[]);
    assert_eq!(names_in_history(&server).await, ["Before", "After"]);
    let page = client()
        .get(server.url("/changes"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("deleted while the app ran"),
        "the history page says what happened"
    );
}

#[tokio::test]
async fn a_file_made_read_only_while_running_is_refused_naming_the_real_flag() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, path) = collection();
    let server = editor(&path, &[]);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&path).unwrap();
    let r = create(&server, "Refused").await;
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    let answer: Value = r.json().await.unwrap();
    let message = answer["error"].as_str().unwrap();
    assert!(message.contains("--recipes-file"), "{message}");
    assert!(message.contains("recipes.json"), "{message}");
    let dir = dir.path().to_str().unwrap();
    assert!(!message.contains(dir), "no server path: {message}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "not replaced");
    assert!(names_in_history(&server).await.is_empty());
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444, "the mode is left as the owner set it");
}

/// The directory made read-only for one save (a `chmod 555` or a remount), then writable
/// again. Permissions do not stop root, so as root the server runs as `nobody`.
#[tokio::test]
async fn a_directory_read_only_for_one_save_leaves_no_trace_and_no_number_twice() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, path) = collection();
    let root = unsafe { libc::geteuid() } == 0;
    let mut wrapper: Vec<&str> = Vec::new();
    if root {
        for p in [dir.path(), &path] {
            std::os::unix::fs::chown(p, Some(65534), Some(65534)).unwrap();
        }
        wrapper = vec![
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ];
    }
    let file = path.to_str().unwrap();
    let args = ["--recipes-file", file, "--allow-edits", "--local-edit"];
    let server = Server::start_under(&wrapper, &args, &[]);
    assert_eq!(create(&server, "First").await.status(), StatusCode::CREATED);
    let mode = |m| std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(m));
    mode(0o555).unwrap();
    let r = create(&server, "Phantom").await;
    mode(0o755).unwrap();
    assert!(r.status().is_server_error(), "{}", r.status());
    let r = create(&server, "Second").await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let second: Value = r.json().await.unwrap();
    assert_eq!(
        second["change"]["n"], 2,
        "the failed save's number was not kept"
    );
    drop(server);
    let server = Server::start_under(&wrapper, &args, &[]);
    assert_eq!(names_in_history(&server).await, ["First", "Second"]);
    let journal = std::fs::read_to_string(path.with_file_name("recipes.json.journal")).unwrap();
    assert_eq!(journal.lines().count(), 2, "{journal}");
    assert!(!journal.contains("Phantom"));
    let r = write(&server, reqwest::Method::POST, "/api/changes/2/undo")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "the real change undoes");
}
