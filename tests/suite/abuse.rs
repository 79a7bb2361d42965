//! Clients that try to lock the others out or exhaust the server, against the real binary:
//! sockets that never send a byte, bodies announced and never sent, readers that stop
//! reading, HTTP/2 streams whose window is never opened, searches of thousands of terms,
//! and pages that rebind their own name to 127.0.0.1.

use crate::common;
use crate::working;

use common::{Server, client, metrics_base, metrics_text};
use reqwest::StatusCode;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

fn addr(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

/// The value of one metric sample line, e.g. `libations_connections_open`.
async fn metric(base: &str, sample: &str) -> f64 {
    metrics_text(base)
        .await
        .lines()
        .find_map(|l| l.strip_prefix(sample)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

/// Waits until `sample` reaches `at_least`, up to `within`; returns the time it took.
async fn wait_metric(base: &str, sample: &str, at_least: f64, within: Duration) -> Duration {
    let started = Instant::now();
    loop {
        if metric(base, sample).await >= at_least {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < within,
            "{sample} did not reach {at_least} within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A recipes file of `count` recipes that all match the search `lime`, each with `notes`
/// bytes of notes: large answers without needing the shared data.
fn big_collection(dir: &Path, count: usize, notes: usize) -> std::path::PathBuf {
    let recipes: Vec<serde_json::Value> = (1..=count)
        .map(|id| {
            serde_json::json!({
                "id": id, "name": format!("Lime Drink {id}"), "base": ["Gin"],
                "glass": ["Coupe"], "method": ["Shake"], "ice": [],
                "ingredients": [{"name": "Lime Juice", "measure": "25", "unit": "ml"}],
                "garnish": [], "notes": "n".repeat(notes),
            })
        })
        .collect();
    let path = dir.join("big.json");
    std::fs::write(&path, serde_json::to_vec(&recipes).expect("json")).expect("write");
    path
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

#[tokio::test]
async fn silent_sockets_beyond_the_limit_do_not_lock_out_a_normal_client() {
    let server = Server::start(&[
        "--max-connections",
        "20",
        "--header-timeout",
        "2",
        "--metrics-addr",
        "127.0.0.1:0",
    ]);
    let metrics = metrics_base(&server);
    // More sockets than the limit, each silent: not a byte sent, ever.
    let silent: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(addr(&server)).expect("connect"))
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Held now; after the header timeout (counted from accept) + 1 s they are closed...
    tokio::time::sleep(Duration::from_secs(3)).await;
    let expired = metric(
        &metrics,
        "libations_connections_expired_total{reason=\"first_request\"}",
    )
    .await;
    assert!(expired >= 20.0, "only {expired} silent sockets were closed");
    for mut s in silent {
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut b = [0u8; 1];
        match s.read(&mut b) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            other => panic!("a silent socket is still open: {other:?}"),
        }
    }
    // ...and a normal client is served.
    let r = client().get(server.url("/")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[test]
fn an_announced_body_never_sent_is_not_waited_for() {
    // Long enough that a busy machine answers the GET well within it.
    let server = Server::start(&["--body-timeout", "6"]);
    let connect = || {
        let s = TcpStream::connect(addr(&server)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s
    };
    let mut reply = [0u8; 12];
    // A route that takes a body waits for it, within the body timeout. (A method the
    // route does not take is answered 405 at once: no body is read for it.)
    let mut waiting = connect();
    let started = Instant::now();
    waiting
        .write_all(b"POST /api/recipes HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        .unwrap();
    // GET carries no body: refused at once, while the POST sent before it still waits
    // for its five bytes.
    let mut s = connect();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        .unwrap();
    s.read_exact(&mut reply)
        .expect("an answer without the body");
    assert_eq!(&reply, b"HTTP/1.1 413");
    waiting.set_nonblocking(true).unwrap();
    let early = waiting.read(&mut reply);
    assert!(
        early
            .as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock),
        "the GET was answered only once the POST's wait had ended: {early:?}"
    );
    waiting.set_nonblocking(false).unwrap();
    waiting
        .read_exact(&mut reply)
        .expect("an answer at the body timeout");
    assert_eq!(&reply, b"HTTP/1.1 408");
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(5), "{took:?}");
}

#[tokio::test]
async fn a_reader_that_stops_reading_is_closed_at_the_write_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // ~12 MB of JSON: more than the socket buffers on both sides can hold.
    let file = big_collection(dir.path(), 3000, 4000);
    let file = file.to_str().unwrap();
    let server = Server::start(&[
        "--recipes-file",
        file,
        "--write-timeout",
        "2",
        "--metrics-addr",
        "127.0.0.1:0",
    ]);
    let metrics = metrics_base(&server);
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket
        .connect(addr(&server).parse().unwrap())
        .await
        .expect("connect");
    use tokio::io::AsyncWriteExt;
    stream
        .write_all(b"GET /api/recipes HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n")
        .await
        .unwrap();
    // Read nothing. The server must give up on this connection.
    let took = wait_metric(
        &metrics,
        "libations_connections_expired_total{reason=\"write\"}",
        1.0,
        Duration::from_secs(20),
    )
    .await;
    assert!(took >= Duration::from_millis(1500), "closed after {took:?}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while metric(&metrics, "libations_connections_open").await != 0.0 {
        assert!(
            Instant::now() < deadline,
            "the connection was counted as open"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(stream);
    assert_eq!(
        client().get(server.url("/")).send().await.unwrap().status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn http2_streams_that_are_never_read_are_bounded_and_reset() {
    let dir = tempfile::tempdir().unwrap();
    // Every search for "lime" answers ~3 MB of JSON, made per request.
    let file = big_collection(dir.path(), 1500, 2000);
    let file = file.to_str().unwrap();
    let server = Server::start(&[
        "--recipes-file",
        file,
        "--write-timeout",
        "3",
        // Only the write timeout may close these connections: on a loaded machine a first
        // request head can wait longer than the default 10 s to be read.
        "--header-timeout",
        "600",
        "--max-unsent-bytes",
        "33554432",
        "--metrics-addr",
        "127.0.0.1:0",
    ]);
    let metrics = metrics_base(&server);
    // Warm up: the first answers allocate what any search needs.
    for _ in 0..3 {
        let r = client()
            .get(server.url("/api/recipes?q=lime"))
            .header("accept-encoding", "identity")
            .send()
            .await
            .unwrap();
        assert!(r.bytes().await.unwrap().len() > 3_000_000);
    }
    let before = rss_kib(server.pid());
    let mut streams = Vec::new();
    let mut connections = Vec::new();
    for _ in 0..8 {
        let tcp = tokio::net::TcpStream::connect(addr(&server)).await.unwrap();
        // A window of zero, never opened: the server may send headers but no data.
        let (client, connection) = h2::client::Builder::new()
            .initial_window_size(0)
            .handshake::<_, bytes::Bytes>(tcp)
            .await
            .expect("h2 handshake");
        connections.push(tokio::spawn(connection));
        let mut client = client.ready().await.expect("ready");
        for i in 0..32 {
            let request = http::Request::get(format!("http://x/api/recipes?q=lime&n={i}"))
                .header("accept-encoding", "identity")
                .body(())
                .unwrap();
            let (response, _) = client.send_request(request, true).expect("send");
            streams.push(tokio::spawn(async move {
                let mut body = response.await?.into_body();
                // Ask for data that cannot come: this waits until the stream ends.
                while let Some(chunk) = body.data().await {
                    chunk?;
                }
                Ok::<(), h2::Error>(())
            }));
            client = client.ready().await.expect("ready");
        }
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let held = rss_kib(server.pid());
    let grew_mib = held.saturating_sub(before) as f64 / 1024.0;
    println!("RSS before {before} KiB, with 256 unread streams {held} KiB (+{grew_mib:.1} MiB)");
    // Unbounded, 256 streams of 3 MB would be ~800 MB; the budget is 32 MiB for the process.
    assert!(grew_mib < 100.0, "RSS grew by {grew_mib:.1} MiB");
    // Every stream is reset with its connection once it made no progress for the write
    // timeout (3 s). On a loaded machine the 256 answers themselves take a while to make,
    // and each one finished is progress that restarts the clock; so the clock that counts
    // is the server's idle time: 3 s of it, plus 3 of slack, and a stream still open fails.
    let started = Instant::now();
    let mut idle = 0;
    while !streams.iter().all(|s| s.is_finished()) {
        idle = if working::idle_for_a_second(server.pid()).await {
            idle + 1
        } else {
            0
        };
        let open = streams.iter().filter(|s| !s.is_finished()).count();
        assert!(
            idle < 6 && started.elapsed() < working::AT_MOST,
            "{open} streams still open after the server was idle for {idle} s ({:?} in all)",
            started.elapsed()
        );
    }
    for stream in streams {
        assert!(
            stream.await.expect("join").is_err(),
            "a stream completed with a zero window"
        );
    }
    let expired = metrics_text(&metrics).await;
    let expired: Vec<&str> = expired
        .lines()
        .filter(|l| l.starts_with("libations_connections_"))
        .collect();
    assert!(
        metric(
            &metrics,
            "libations_connections_expired_total{reason=\"write\"}"
        )
        .await
            >= 8.0,
        "{expired:#?}"
    );
    assert_eq!(
        client().get(server.url("/")).send().await.unwrap().status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn thousands_of_search_terms_count_once_or_are_refused() {
    let server = Server::start(&[]);
    let same = vec!["a"; 2600].join("+");
    let one: serde_json::Value = client()
        .get(server.url("/api/recipes?q=a"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let started = Instant::now();
    let r = client()
        .get(server.url(&format!("/api/recipes?q={same}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let many: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        many, one,
        "2,600 copies of one term must answer as the term once"
    );
    println!("2,600 copies of one term: {:?}", started.elapsed());
    // Distinct terms beyond the limit: refused with the reason, page and API alike.
    let distinct: Vec<String> = (0..600).map(|i| format!("a{i}")).collect();
    let q = distinct.join("+");
    let r = client()
        .get(server.url(&format!("/api/recipes?q={q}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        body["error"],
        "A search can have at most 16 different words; this one has 600."
    );
    let r = client()
        .get(server.url(&format!("/?q={q}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("at most 16 different words")
    );
}

#[tokio::test]
async fn only_our_own_host_names_are_answered() {
    let server = Server::start(&["--metrics-addr", "127.0.0.1:0", "--allowed-host", "bar.lan"]);
    let metrics = metrics_base(&server);
    let port = |base: &str| base.rsplit(':').next().unwrap_or_default().to_owned();
    for (base, path) in [(server.base.clone(), "/"), (metrics.clone(), "/metrics")] {
        let p = port(&base);
        let ask = |host: String| {
            let url = format!("{base}{path}");
            async move {
                client()
                    .get(url)
                    .header("host", host)
                    .send()
                    .await
                    .unwrap()
                    .status()
            }
        };
        for host in ["evil.example", "evil.example:80", "localhost.evil.example"] {
            let status = ask(host.to_string()).await;
            assert_eq!(
                status,
                StatusCode::MISDIRECTED_REQUEST,
                "{base} Host: {host}"
            );
        }
        for host in [
            format!("localhost:{p}"),
            format!("127.0.0.1:{p}"),
            format!("bar.lan:{p}"),
        ] {
            assert_eq!(
                ask(host.clone()).await,
                StatusCode::OK,
                "{base} Host: {host}"
            );
        }
    }
    // Under /api/ the refusal is the API's JSON, as every other error there is; a page
    // gets one plain line.
    for (path, json) in [("/api/recipes", true), ("/", false)] {
        let r = client()
            .get(server.url(path))
            .header("host", "evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::MISDIRECTED_REQUEST, "{path}");
        let kind = r.headers()["content-type"].to_str().unwrap().to_owned();
        let text = r.text().await.unwrap();
        assert!(text.contains("--allowed-host NAME"), "{path}: {text}");
        if json {
            assert_eq!(kind, "application/json", "{path}");
            let body: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert!(body["error"].as_str().unwrap().contains("host name"));
        } else {
            assert!(kind.starts_with("text/plain"), "{path}: {kind}");
        }
    }
}

#[tokio::test]
async fn a_recipes_file_over_the_size_limit_is_refused_and_the_old_one_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bar.json");
    let sample =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/sample.json"))
            .unwrap();
    std::fs::write(&path, &sample).unwrap();
    let limit = (sample.len() + 100).to_string();
    let server = Server::start(&[
        "--recipes-file",
        path.to_str().unwrap(),
        "--max-recipes-bytes",
        &limit,
    ]);
    let before = client()
        .get(server.url("/api/recipes"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // Valid JSON, but larger than the limit: white space at the end.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, format!("{sample}{}", " ".repeat(500))).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    server.log_once("more than the", "no refusal logged").await;
    let after = client()
        .get(server.url("/api/recipes"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(after, before);
    // At start-up the same limit is an error that names the file.
    let out = std::process::Command::new(common::BIN)
        .args([
            "--local",
            "--addr",
            "127.0.0.1:0",
            "--max-recipes-bytes",
            "100",
        ])
        .args(["--recipes-file", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bar.json") && err.contains("more than the 100 allowed"),
        "{err}"
    );
}
