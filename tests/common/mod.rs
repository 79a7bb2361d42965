//! Shared by the integration tests: start the real `libations` binary and talk to it.
#![allow(dead_code)]

pub mod faults;
pub mod household;
pub mod import;
pub mod tailnet;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_libations");

/// A running `libations --local` on a free port; stopped (SIGTERM) when dropped.
pub struct Server {
    child: Child,
    pub base: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Starts the binary with `--local --addr 127.0.0.1:0` plus `args`, and waits until it
    /// logs the URL it serves.
    pub fn start(args: &[&str]) -> Server {
        Server::start_with_env(args, &[])
    }

    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_under(&[], args, env)
    }

    /// Starts the binary through `wrapper` (a command and its arguments that run the rest,
    /// such as `setpriv --reuid=…`), else as [`Server::start_with_env`].
    pub fn start_under(wrapper: &[&str], args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = match wrapper.split_first() {
            Some((first, rest)) => {
                let mut cmd = Command::new(first);
                cmd.args(rest).arg(BIN);
                cmd
            }
            None => Command::new(BIN),
        };
        cmd.args(["--local", "--addr", "127.0.0.1:0", "--log-level", "info"])
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start libations");
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = served_url(&line) {
                    let _ = tx.send(url);
                }
                sink.lock().unwrap().push(line);
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "libations did not start; log:\n{}",
                    log.lock().unwrap().join("\n")
                );
            }
        };
        Server { child, base, log }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// The log once it contains `needle` (a server logs on its own time: a line may come
    /// after the answer that caused it); after 15 s, fails with `what` and the log.
    pub async fn log_once(&self, needle: &str, what: &str) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        loop {
            let log = self.log();
            if log.contains(needle) {
                return log;
            }
            assert!(std::time::Instant::now() < deadline, "{what}:\n{log}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn stop(mut self) -> ExitStatus {
        let log = self.log.clone();
        stop_child(&mut self.child, || log.lock().unwrap().join("\n"))
    }
}

/// The address a log line says the server serves on ("serving on http://…/"), without
/// its last slash.
pub fn served_url(line: &str) -> Option<String> {
    let url = line.split("serving on ").nth(1)?;
    let url = url.split_whitespace().next().unwrap_or_default();
    Some(url.trim_end_matches('/').to_owned())
}

impl Drop for Server {
    fn drop(&mut self) {
        kill_child(&mut self.child);
    }
}

/// Sends SIGTERM to `child` and waits up to 30 s for it to exit; panics with `log()` if it
/// does not.
pub fn stop_child(child: &mut Child, log: impl Fn() -> String) -> ExitStatus {
    terminate(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("libations did not stop on SIGTERM; log:\n{}", log());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills `child` if it is still running (for `Drop`: a failed test must not leave it).
pub fn kill_child(child: &mut Child) {
    if let Ok(None) = child.try_wait() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

pub fn terminate(child: &Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

/// The Prometheus text from a `--metrics-addr` listener at `base`.
pub async fn metrics_text(base: &str) -> String {
    let r = client()
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    r.text().await.unwrap()
}

/// A client that does not decompress or follow redirects: tests see the bytes as sent.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client")
}

/// `../shared/data/<name>` (a file or a folder): the real collections. Outside this workplace they are absent;
/// then the test is skipped with a message, unless LIBATIONS_REQUIRE_SHARED_DATA=1 (as in CI).
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(name);
    if path.exists() {
        return Some(path);
    }
    let required = std::env::var("LIBATIONS_REQUIRE_SHARED_DATA").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "LIBATIONS_REQUIRE_SHARED_DATA=1 but {} is missing",
        path.display()
    );
    let reason = format!(
        "{} not found (the shared test data lives beside this clone, in ../shared/data)",
        path.display()
    );
    eprintln!("SKIPPED: {reason}");
    record_skip(&reason);
    None
}

/// Adds a line naming the running test and why it skipped to the file `$LIBATIONS_SKIP_LOG`
/// names (scripts/test sets it and counts the lines at the end), because cargo's summary
/// counts a test that returned early as passed.
pub fn record_skip(reason: &str) {
    use std::io::Write;
    let Some(log) = std::env::var_os("LIBATIONS_SKIP_LOG") else {
        return;
    };
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_owned();
    let binary = std::env::args().next().unwrap_or_default();
    let binary = Path::new(&binary)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // cargo names test binaries `<target>-<hash>`.
    let binary = binary
        .rsplit_once('-')
        .map_or(binary.as_str(), |(name, _)| name);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .expect("open $LIBATIONS_SKIP_LOG");
    writeln!(file, "rust {binary} {test}: {reason}").expect("write $LIBATIONS_SKIP_LOG");
}

pub fn decode_brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::BrotliDecompress(&mut &bytes[..], &mut out).expect("valid brotli");
    out
}

/// The base URL (`http://127.0.0.1:PORT`) of the `--metrics-addr` listener, read from the
/// server's log.
pub fn metrics_base(server: &Server) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = server.log();
        if let Some(url) = log
            .lines()
            .find_map(|l| l.split("metrics on ").nth(1))
            .and_then(|rest| rest.split_whitespace().next())
        {
            return url.trim_end_matches("/metrics").to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "no metrics address logged:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A temporary copy of the sample collection, and its path.
pub fn collection() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipes.json");
    std::fs::write(&path, libations::recipes::SAMPLE_JSON).unwrap();
    (dir, path)
}

/// The binary editing the collection at `path`, the local identity an editor, plus `extra`.
pub fn editor(path: &Path, extra: &[&str]) -> Server {
    let file = path.to_str().unwrap();
    let mut args = vec!["--recipes-file", file, "--allow-edits", "--local-edit"];
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// Headers a same-origin `fetch` from the app's own page sends.
pub fn same_origin(server: &Server) -> reqwest::header::HeaderMap {
    use reqwest::header::{HeaderMap, HeaderValue};
    let mut h = HeaderMap::new();
    h.insert("origin", HeaderValue::from_str(&server.base).unwrap());
    h.insert("sec-fetch-site", HeaderValue::from_static("same-origin"));
    h
}

/// The hidden inputs (`csrf`, `version`, …) of a page's forms, as (name, value).
pub fn hidden_inputs(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for input in html.split("<input").skip(1) {
        let tag = &input[..input.find('>').unwrap_or(input.len())];
        let attr = |name: &str| {
            tag.split(&format!("{name}=\""))
                .nth(1)
                .and_then(|v| v.split('"').next())
                .map(str::to_owned)
        };
        if attr("type").as_deref() == Some("hidden")
            && let (Some(n), Some(v)) = (attr("name"), attr("value"))
        {
            out.push((n, v));
        }
    }
    out
}

/// A change as the app's own page sends it: same origin, a JSON body if any, and for a
/// `PUT` the recipe's current ETag in `If-Match`.
pub async fn send_change(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    body: Option<&serde_json::Value>,
) -> reqwest::Response {
    let mut request = client()
        .request(method.clone(), server.url(path))
        .headers(same_origin(server));
    if method == reqwest::Method::PUT {
        let current = client().get(server.url(path)).send().await.unwrap();
        request = request.header("if-match", current.headers()["etag"].clone());
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    request.send().await.unwrap()
}
