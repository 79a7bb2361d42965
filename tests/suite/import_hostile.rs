//! Hostile pages pasted to `POST /api/import` and `/recipes/import`, against the real
//! binary (issue #40, row 4): the answer comes back while the server process spends
//! little CPU time on it (read from `/proc/<pid>/stat`), and a client that hangs up
//! mid-read leaves no work running. Each test prints the CPU time it measured
//! (`cargo test --test suite import_hostile -- --nocapture`).

use crate::common;

use common::{Server, collection, editor, same_origin};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::io::Write;
use std::time::Duration;

/// The CPU time (user and system) the process `pid` has used so far.
fn cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's `)`: state is field 3; utime and stime are fields 14 and 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_millis(ticks * 1000 / per_second)
}

/// Waits until the server is idle (its start-up work, such as compressing its files,
/// done): its CPU time still for half a second.
async fn settle(pid: u32) {
    let mut last = cpu(pid);
    for _ in 0..120 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = cpu(pid);
        if now - last <= Duration::from_millis(20) {
            return;
        }
        last = now;
    }
    panic!("the server never went idle");
}

/// CPU time the server may spend on one hostile page (it took 43 s before the fix).
const BOUND: Duration = Duration::from_secs(3);

/// `<b id=N><i>x`, never closed, `n` times: quadratic for an HTML5 tree builder.
fn unclosed(n: usize) -> String {
    let mut page = String::from("<!doctype html><html><body>");
    for i in 0..n {
        page.push_str(&format!("<b id={i}><i>x"));
    }
    page
}

/// Formatting elements nested `n` deep, one tag with `n` attributes (quadratic for
/// html5ever's tokenizer), and then a real recipe.
fn nested_with_a_recipe(n: usize) -> String {
    let mut page = String::from("<!doctype html><html><body>");
    for i in 0..n {
        page.push_str(&format!("<div><a href=#{i}><font><u><s>"));
    }
    page.push_str("<p");
    for i in 0..n * 2 {
        page.push_str(&format!(" a{i}"));
    }
    page.push_str(
        r#">x<script type="application/ld+json">{"@type": "Recipe", "name": "Deep Sour",
        "recipeIngredient": ["2 oz whiskey", "1 oz lemon juice"]}</script>"#,
    );
    page
}

fn long_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

async fn import(server: &Server, page: &str) -> (StatusCode, Value) {
    let response = long_client()
        .post(server.url("/api/import"))
        .headers(same_origin(server))
        .json(&json!({ "html": page }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn a_hostile_page_is_answered_in_little_cpu_time() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    settle(server.pid()).await;
    let page = unclosed(40_000);
    let before = cpu(server.pid());
    let (status, answer) = import(&server, &page).await;
    let spent = cpu(server.pid()) - before;
    println!(
        "unclosed <b id=N><i>x x40000 ({} bytes): {status}, server CPU {spent:?}",
        page.len()
    );
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(
        answer["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no schema.org JSON-LD"),
        "{answer}"
    );
    assert!(spent < BOUND, "{spent:?} of CPU for one page");

    let page = nested_with_a_recipe(40_000);
    let before = cpu(server.pid());
    let (status, answer) = import(&server, &page).await;
    let spent = cpu(server.pid()) - before;
    println!(
        "nested 200000 deep, a tag of 80000 attributes ({} bytes): {status}, server CPU {spent:?}",
        page.len()
    );
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["recipes"][0]["name"], "Deep Sour", "{answer}");
    assert!(spent < BOUND, "{spent:?} of CPU for one page");

    // The form without JavaScript reads pasted pages the same way.
    let form = long_client()
        .get(server.url("/recipes/import"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let at = form.find(r#"name="csrf" value=""#).unwrap() + 19;
    let csrf = &form[at..at + form[at..].find('"').unwrap()];
    let page = unclosed(40_000);
    let before = cpu(server.pid());
    let response = long_client()
        .post(server.url("/recipes/import"))
        .headers(same_origin(&server))
        .form(&[("csrf", csrf), ("source", page.as_str())])
        .send()
        .await
        .unwrap();
    let spent = cpu(server.pid()) - before;
    println!(
        "the same pasted in /recipes/import: {}, server CPU {spent:?}",
        response.status()
    );
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("no schema.org JSON-LD")
    );
    assert!(spent < BOUND, "{spent:?} of CPU for one page");
    server.stop();
}

#[tokio::test]
async fn a_client_that_hangs_up_leaves_no_work_running() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    settle(server.pid()).await;
    let body = json!({ "html": unclosed(40_000) }).to_string();
    let addr = server.base.trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "POST /api/import HTTP/1.1\r\nHost: {addr}\r\nOrigin: {}\r\nSec-Fetch-Site: same-origin\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        server.base,
        body.len()
    )
    .unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    // Reading has begun; then the client is gone.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    drop(stream);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after_hangup = cpu(server.pid());
    tokio::time::sleep(Duration::from_secs(3)).await;
    let spent = cpu(server.pid()) - after_hangup;
    println!("server CPU in the 3 s after the client hung up: {spent:?}");
    assert!(
        spent < Duration::from_millis(500),
        "the server went on working: {spent:?} of CPU"
    );
    server.stop();
}
