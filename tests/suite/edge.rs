//! Misbehaving clients and hand-edited files, against the real binary: slowloris,
//! connection floods, malformed requests, live reload, metrics and health.

use crate::common;

use common::{Server, client};
use reqwest::StatusCode;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

fn addr(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

/// Sends raw bytes and returns the status code of the reply (0 when the server closed the
/// connection without answering).
fn raw_status(server: &Server, request: &[u8]) -> u16 {
    let mut stream = TcpStream::connect(addr(server)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request).expect("send");
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                reply.extend_from_slice(&buf[..n]);
                if reply.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            Err(e) => panic!(
                "no reply to {:?}: {e}",
                String::from_utf8_lossy(&request[..request.len().min(80)])
            ),
        }
    }
    let head = String::from_utf8_lossy(&reply);
    head.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn malformed_requests_get_4xx_never_5xx() {
    let server = Server::start(&[]);
    let big_header = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    let long_uri = format!("GET /?q={} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(9_000));
    let cases: Vec<(&str, Vec<u8>, &[u16])> = vec![
        ("garbage request line", b"HELLO\r\n\r\n".to_vec(), &[400]),
        ("bad version", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n".to_vec(), &[400, 505]),
        ("oversized header", big_header.into_bytes(), &[431]),
        ("long uri", long_uri.into_bytes(), &[414]),
        ("NUL in path", b"GET /static/app%00.css HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[400]),
        ("raw NUL", b"GET /\0 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[400]),
        ("invalid UTF-8 in path", b"GET /recipes/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[400, 404]),
        ("encoded invalid UTF-8", b"GET /recipes/%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[400, 404]),
        ("dot-dot", b"GET /static/../Cargo.toml HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[400, 404]),
        ("encoded dot-dot", b"GET /static/%2e%2e/Cargo.toml HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[400, 404]),
        ("encoded slash", b"GET /static/..%2fCargo.toml HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[400]),
        ("double slash", b"GET //static//app.css HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[404]),
        ("duplicate host", b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".to_vec(), &[200, 400]),
        ("duplicate content-length", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab".to_vec(), &[400]),
        ("absurd range", b"GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=99999999999999999999-\r\n\r\n".to_vec(), &[200, 416]),
        ("many ranges", format!("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes={}\r\n\r\n", vec!["0-1"; 500].join(",")).into_bytes(), &[200, 416]),
        ("body on GET", format!("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{}", "a".repeat(5000)).into_bytes(), &[413]),
        ("chunked body on GET", format!("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1400\r\n{}\r\n0\r\n\r\n", "a".repeat(5120)).into_bytes(), &[413]),
        ("POST", b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".to_vec(), &[405]),
        ("DELETE", b"DELETE /api/recipes/1 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), &[405]),
        ("header without colon", b"GET / HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n".to_vec(), &[400]),
    ];
    for (name, request, allowed) in cases {
        let status = raw_status(&server, &request);
        assert!(
            allowed.contains(&status),
            "{name}: got {status}, want one of {allowed:?}"
        );
        assert!(status < 500, "{name}: {status}");
    }
    // Still healthy afterwards, and nothing panicked.
    assert_eq!(
        client().get(server.url("/")).send().await.unwrap().status(),
        StatusCode::OK
    );
    assert!(!server.log().contains("panicked"), "{}", server.log());
}

#[tokio::test]
async fn http2_with_more_streams_than_allowed_is_served_without_errors() {
    let server = Server::start(&["--h2-max-streams", "10"]);
    let h2 = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let requests = (0..300).map(|i| {
        let (h2, url) = (h2.clone(), server.url(&format!("/api/recipes?q=a{i}")));
        tokio::spawn(async move { h2.get(url).send().await.map(|r| (r.status(), r.version())) })
    });
    for r in requests {
        let (status, version) = r.await.unwrap().expect("request over h2");
        assert_eq!(status, StatusCode::OK);
        assert_eq!(version, reqwest::Version::HTTP_2);
    }
}

#[tokio::test]
async fn slowloris_connections_are_closed_at_the_header_timeout() {
    let server = Server::start(&["--header-timeout", "3"]);
    let target = addr(&server);
    let started = Instant::now();
    // 200 clients trickle a request head, one byte a second.
    let slow: Vec<_> = (0..200)
        .map(|_| {
            let target = target.clone();
            std::thread::spawn(move || -> Option<Duration> {
                let mut s = TcpStream::connect(&target).ok()?;
                let began = Instant::now();
                for b in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaa".iter() {
                    if s.write_all(&[*b]).is_err() {
                        return Some(began.elapsed());
                    }
                    std::thread::sleep(Duration::from_secs(1));
                    let mut probe = [0u8; 512];
                    s.set_nonblocking(true).ok()?;
                    match s.read(&mut probe) {
                        Ok(_) => return Some(began.elapsed()), // closed, or an error reply then close
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(_) => return Some(began.elapsed()),
                    }
                    s.set_nonblocking(false).ok()?;
                }
                None
            })
        })
        .collect();
    // Meanwhile, while every slow connection is still open (the first is closed at 3 s),
    // a normal client is served again and again: a server that 200 slow heads held up
    // would answer it only once they were closed. (How often is not a speed figure: on
    // a busy CI machine a debug build's `/` takes hundreds of milliseconds.)
    let (mut served, attack) = (0, Duration::from_millis(2500));
    while started.elapsed() < attack {
        let r = client().get(server.url("/")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        if started.elapsed() < attack {
            served += 1;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(served >= 3, "normal client served {served} times");
    for t in slow {
        let closed_after = t
            .join()
            .unwrap()
            .expect("slow connection was closed by the server");
        assert!(
            closed_after >= Duration::from_millis(2500) && closed_after < Duration::from_secs(8),
            "closed after {closed_after:?}, header timeout is 3 s"
        );
    }
}

#[tokio::test]
async fn connection_flood_beyond_the_limit_is_shed() {
    let server = Server::start(&["--max-connections", "40", "--metrics-addr", "127.0.0.1:0"]);
    let target = addr(&server);
    let mut open = Vec::new();
    for _ in 0..120 {
        open.push(TcpStream::connect(&target).expect("connect"));
    }
    // Give the server time to accept (and shed) them all, then see which were closed.
    std::thread::sleep(Duration::from_secs(2));
    let mut held = Vec::new();
    let mut shed = 0;
    for mut s in open {
        s.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut b = [0u8; 1];
        match s.read(&mut b) {
            Ok(0) => shed += 1,
            _ => held.push(s),
        }
    }
    assert!(
        shed >= 70,
        "only {shed} of 120 were shed with a limit of 40"
    );
    assert!(held.len() <= 45, "{} held", held.len());
    drop(held);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Service is normal once the flood stops.
    for _ in 0..20 {
        assert_eq!(
            client().get(server.url("/")).send().await.unwrap().status(),
            StatusCode::OK
        );
    }
    assert!(!server.log().contains("panicked"));
}

#[tokio::test]
async fn metrics_and_health_on_their_own_listener() {
    let server = Server::start(&["--metrics-addr", "127.0.0.1:0"]);
    let metrics = common::metrics_base(&server);
    for _ in 0..3 {
        client().get(server.url("/")).send().await.unwrap();
    }
    client().get(server.url("/nope")).send().await.unwrap();
    let text = common::metrics_text(&metrics).await;
    assert!(
        text.contains("libations_http_requests_total{route=\"/\",status=\"200\"} 3"),
        "{text}"
    );
    assert!(
        text.contains("libations_http_requests_total{route=\"unmatched\",status=\"404\"} 1"),
        "{text}"
    );
    assert!(text.contains("libations_recipes_loaded "), "{text}");
    assert!(
        text.contains("libations_http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(text.contains("libations_connections_open"), "{text}");
    assert!(
        text.contains("libations_recipe_reloads_total{result=\"success\"} 1"),
        "{text}"
    );
    let health = client()
        .get(format!("{metrics}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let ready = client()
        .get(format!("{metrics}/readyz"))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status(), StatusCode::OK);
    // Not on the app's listener.
    assert_eq!(
        client()
            .get(server.url("/metrics"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::NOT_FOUND
    );
}

fn write(path: &std::path::Path, text: &str) {
    // Write then rename, as editors do, so the watcher never sees half a file.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn names(server: &Server) -> Vec<String> {
    let all: Vec<serde_json::Value> = client()
        .get(server.url("/api/recipes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    all.iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn wait_for_names(server: &Server, want: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while names(server).await != want {
        assert!(
            Instant::now() < deadline,
            "never served {want:?}; log:\n{}",
            server.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn hangup(server: &Server) {
    let pid = server.pid().to_string();
    assert!(
        Command::new("kill")
            .args(["-HUP", &pid])
            .status()
            .unwrap()
            .success()
    );
}

#[tokio::test]
async fn reload_on_change_and_on_sighup_keeps_old_data_when_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bar.json");
    write(&file, r#"[{"id": 1, "name": "Alpha"}]"#);
    let server = Server::start(&[
        "--recipes-file",
        file.to_str().unwrap(),
        "--metrics-addr",
        "127.0.0.1:0",
    ]);
    assert_eq!(names(&server).await, ["Alpha"]);

    // A valid change is picked up by the watcher.
    write(
        &file,
        r#"[{"id": 1, "name": "Alpha"}, {"id": 2, "name": "Beta"}]"#,
    );
    wait_for_names(&server, &["Alpha", "Beta"]).await;
    let page = client()
        .get(server.url("/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Beta") && page.contains("2 recipes"));

    // An invalid one is rejected with the full error list, and the old data stays.
    write(
        &file,
        "[{\"id\": 1, \"name\": \"Alpha\", \"garnish\": \"Lime\"},\n {\"id\": 1}]",
    );
    let log = server
        .log_once("reload rejected", "invalid file not reported")
        .await;
    assert!(log.contains("field \"garnish\""), "{log}");
    assert!(log.contains("field \"name\": missing"), "{log}");
    assert_eq!(names(&server).await, ["Alpha", "Beta"]);
    let metrics = common::metrics_base(&server);
    let text = common::metrics_text(&metrics).await;
    assert!(
        text.contains("libations_recipe_reloads_total{result=\"failure\"} 1"),
        "{text}"
    );

    // SIGHUP reloads too (the file is valid again; the watcher may race it, either is fine).
    write(&file, r#"[{"id": 3, "name": "Gamma"}]"#);
    hangup(&server);
    wait_for_names(&server, &["Gamma"]).await;
    assert!(
        server.log().contains("SIGHUP: reloading recipes")
            || server.log().contains("changed: reloading")
    );
}

#[tokio::test]
async fn sighup_reload_under_load_loses_no_request() {
    let Some(data) = common::shared_data("bar-assistant.json") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bar.json");
    std::fs::copy(&data, &file).unwrap();
    let server = Server::start(&["--recipes-file", file.to_str().unwrap()]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (url, stop) = (server.url("/?q=gin"), stop.clone());
            tokio::spawn(async move {
                let c = client();
                let (mut ok, mut failed) = (0u32, 0u32);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let good = match c.get(&url).send().await {
                        Ok(r) => r.status() == StatusCode::OK && r.bytes().await.is_ok(),
                        Err(_) => false,
                    };
                    if good {
                        ok += 1;
                    } else {
                        failed += 1;
                    }
                }
                (ok, failed)
            })
        })
        .collect();
    // Signals that arrive while a reload runs coalesce, so wait for each one to land.
    for n in 1..=3 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        hangup(&server);
        let deadline = Instant::now() + Duration::from_secs(15);
        while server.log().matches("reloaded 306 recipes").count() < n {
            assert!(Instant::now() < deadline, "reload {n} never finished");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut ok, mut failed) = (0, 0);
    for w in workers {
        let (o, f) = w.await.unwrap();
        ok += o;
        failed += f;
    }
    assert_eq!(
        failed, 0,
        "{failed} requests failed during reloads ({ok} succeeded)"
    );
    assert!(ok >= 20, "only {ok} requests");
    assert_eq!(server.log().matches("reloaded 306 recipes").count(), 3);
}

#[test]
fn idle_keep_alive_connections_close_after_the_header_timeout() {
    let server = Server::start(&["--header-timeout", "2"]);
    let mut s = TcpStream::connect(addr(&server)).unwrap();
    s.write_all(b"GET /api/recipes/1 HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = vec![0u8; 65536];
    assert!(s.read(&mut buf).unwrap() > 0, "first response");
    let idle_since = Instant::now();
    // Drain whatever is left of the response, then wait for the close.
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => continue,
            Err(e) => panic!("idle connection not closed: {e}"),
        }
    }
    let idle = idle_since.elapsed();
    assert!(
        idle >= Duration::from_millis(1500) && idle < Duration::from_secs(6),
        "{idle:?}"
    );
}
