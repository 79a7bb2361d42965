//! CPU profiles on the metrics listener, against the real binary: a profile taken under
//! load is one `go tool pprof` reads and that names our functions; one profile at a time;
//! bad requests are 400; the app listener has no such route.

use crate::common;

use common::{BIN, Server, client, metrics_base};
use reqwest::StatusCode;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const PROFILE: &str = "/debug/pprof/profile";

/// Go's pprof: the one `tests/tailnet-harness/build` makes beside control, if it is there
/// (scripts/test builds it first), else `go tool pprof`. `go tool` would build pprof as a
/// plain program, compiling the standard library once more in that mode (80 s of CPU on a
/// cold cache); built as the harness and the app's Go are (`-buildmode=pie`), 20 s.
fn pprof() -> Command {
    let built = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pprof");
    if built.is_file() {
        return Command::new(built);
    }
    let mut go = Command::new("go");
    go.args(["tool", "pprof"]);
    go
}

/// Keeps `clients` connections busy with searches until `until`.
async fn search_load(server: &Server, clients: usize, until: Instant) -> usize {
    let mut tasks = Vec::new();
    for n in 0..clients {
        let url = server.url(if n % 2 == 0 {
            "/api/recipes?q=lime"
        } else {
            "/?q=gin"
        });
        tasks.push(tokio::spawn(async move {
            let client = client();
            let mut done = 0;
            while Instant::now() < until {
                let r = client.get(&url).send().await.expect("search");
                assert_eq!(r.status(), StatusCode::OK);
                r.bytes().await.expect("body");
                done += 1;
            }
            done
        }));
    }
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("load task");
    }
    total
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn profile_under_load_is_read_by_go_pprof_and_names_our_functions() {
    let server = Server::start(&["--metrics-addr", "127.0.0.1:0"]);
    let metrics = metrics_base(&server);
    let load = search_load(&server, 4, Instant::now() + Duration::from_secs(3));
    let profile = async {
        let r = client()
            .get(format!("{metrics}{PROFILE}?seconds=2"))
            .send()
            .await
            .expect("profile request");
        assert_eq!(r.status(), StatusCode::OK);
        r.bytes().await.expect("profile body")
    };
    let (requests, body) = tokio::join!(load, profile);
    assert!(requests > 0, "the load ran");
    assert_eq!(&body[..2], [0x1f, 0x8b], "the profile is gzip-compressed");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cpu.pb.gz");
    std::fs::write(&file, &body).unwrap();
    let out = pprof()
        .args(["-top", "-nodefraction=0"])
        .arg(BIN)
        .arg(&file)
        .env("PPROF_TMPDIR", dir.path())
        .output()
        .expect("run go tool pprof (Go is required by scripts/test)");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "go tool pprof failed:\n{err}\n{text}");
    assert!(text.contains("Type: cpu"), "{text}");
    // Any of our crates: the search under load runs in libations_web and libations_model,
    // and the root crate's start-up work may be over before the profile begins.
    assert!(
        text.lines()
            .any(|l| l.contains("libations::") || l.contains("libations_")),
        "no frame from our crates in:\n{text}"
    );
    assert!(!server.log().contains("panicked"), "{}", server.log());
}

#[tokio::test]
async fn one_profile_at_a_time_and_bad_seconds_are_refused() {
    let server = Server::start(&["--metrics-addr", "127.0.0.1:0"]);
    let metrics = metrics_base(&server);
    let first = tokio::spawn({
        let url = format!("{metrics}{PROFILE}?seconds=2");
        async move { client().get(url).send().await.expect("first").status() }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let second = client()
        .get(format!("{metrics}{PROFILE}?seconds=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(second.text().await.unwrap().contains("already being taken"));
    assert_eq!(first.await.unwrap(), StatusCode::OK);
    // The slot is free again once the first is done.
    let third = client()
        .get(format!("{metrics}{PROFILE}?seconds=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(third.status(), StatusCode::OK);

    for query in [
        "seconds=61",
        "seconds=0",
        "seconds=abc",
        "seconds=-5",
        "second=5",
    ] {
        let r = client()
            .get(format!("{metrics}{PROFILE}?{query}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{query}");
        let text = r.text().await.unwrap();
        assert!(text.contains("seconds"), "{query}: {text}");
    }
}

#[tokio::test]
async fn the_app_listener_has_no_profile() {
    let server = Server::start(&["--metrics-addr", "127.0.0.1:0"]);
    let r = client()
        .get(server.url(&format!("{PROFILE}?seconds=1")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // Nor without a metrics listener at all.
    let plain = Server::start(&[]);
    let r = client().get(plain.url(PROFILE)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}
