//! The tailnet harness (`tests/tailnet-harness`: control, DERP, Pebble, client nodes on
//! 127.0.0.1) and the real binary as a node on it, for `tests/tailnet.rs` and
//! `tests/suite/funnel.rs`.

use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Builds the harness once per test run (Go caches the work between runs): the
/// harness's own build script, which puts tailnet-control beside it.
pub fn harness_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let build = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/tailnet-harness/build");
        let status = Command::new("bash")
            .arg(&build)
            .arg(&dir)
            .status()
            .expect("run tests/tailnet-harness/build (is bash installed?)");
        assert!(
            status.success(),
            "building tests/tailnet-harness failed (is Go installed?)"
        );
        assert!(
            Command::new("pebble").arg("-version").output().is_ok()
                || Path::new("/usr/bin/pebble").exists(),
            "pebble (the ACME test CA) is not installed: apt-get install pebble"
        );
        dir.join("tailnet-harness")
    })
}

/// A captured child process log, for waiting on lines.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn capture(stream: impl std::io::Read + Send + 'static) -> Log {
        let log = Log::default();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                sink.0.lock().unwrap().push(line);
            }
        });
        log
    }

    pub fn text(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }

    /// Waits for a line containing `needle` and returns it.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> String {
        self.wait(needle, timeout).unwrap_or_else(|| {
            panic!(
                "no log line with {needle:?} in {timeout:?}; log:\n{}",
                self.text()
            )
        })
    }

    /// The first line containing `needle`, waiting up to `timeout`; `None` after it.
    pub fn wait(&self, needle: &str, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(line) = self.0.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return Some(line.clone());
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The harness: control server, DERP, Pebble and the phone.
pub struct Harness {
    child: Child,
    pub fields: HashMap<String, String>,
    pub dir: tempfile::TempDir,
    pub log: Log,
}

impl Harness {
    pub fn start(extra: &[&str]) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        // The nodes' state in `dir` too: the harness is stopped by SIGKILL (Drop), so
        // a folder it made itself would be left behind.
        let mut child = Command::new(harness_binary())
            .arg("-pebble")
            .arg("-state-dir")
            .arg(dir.path().join("state"))
            .arg("-files-dir")
            .arg(dir.path().join("files"))
            .arg("-auth-key-file")
            .arg(dir.path().join("authkey"))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the tailnet harness");
        let log = Log::capture(child.stderr.take().unwrap());
        let out = Log::capture(child.stdout.take().unwrap());
        let Some(ready) = out.wait("READY", Duration::from_secs(120)) else {
            // Once seen in CI (2026-12-07): no READY and nothing on stderr. Go prints every
            // goroutine's stack on SIGQUIT, which says where it waits.
            let _ = Command::new("kill")
                .args(["-QUIT", &child.id().to_string()])
                .status();
            std::thread::sleep(Duration::from_secs(2));
            let _ = child.kill();
            panic!(
                "the tailnet harness printed no READY in 120 s; stdout:\n{}\nstderr (with \
                 its goroutines, after SIGQUIT):\n{}",
                out.text(),
                log.text()
            );
        };
        let fields = ready
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        Harness {
            child,
            fields,
            dir,
            log,
        }
    }

    pub fn get(&self, key: &str) -> &str {
        self.fields
            .get(key)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("READY line has no {key}"))
    }

    pub fn domain(&self) -> &str {
        self.get("domain")
    }

    pub fn auth_key(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("authkey"))
            .unwrap()
            .trim()
            .to_owned()
    }

    /// One request from the phone over the tailnet (no redirects followed, TLS verified
    /// against Pebble's root unless `insecure=1`).
    pub async fn fetch(&self, url: &str, extra: &[(&str, &str)]) -> Value {
        let mut query = vec![("url", url)];
        query.extend_from_slice(extra);
        let r = super::client()
            .get(format!("{}/fetch", self.get("harness")))
            .query(&query)
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .expect("harness /fetch");
        let v: Value = r.json().await.expect("harness JSON");
        assert_eq!(v["ok"], true, "phone request to {url} failed: {v}");
        v
    }

    pub async fn post(&self, path: &str) {
        let r = super::client()
            .post(format!("{}{path}", self.get("harness")))
            .send()
            .await
            .expect("harness POST");
        assert!(r.status().is_success(), "POST {path}: {}", r.status());
    }

    pub async fn node_addresses(&self, hostname: &str) -> Value {
        let nodes: Vec<Value> = super::client()
            .get(format!("{}/control/nodes", self.get("harness")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        nodes
            .into_iter()
            .find(|n| n["hostname"] == hostname)
            .map(|n| n["addresses"].clone())
            .unwrap_or(Value::Null)
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The real binary, as a tailnet node.
pub struct App {
    pub child: Child,
    pub log: Log,
}

impl App {
    /// Starts `libations` with the environment Tailscale reads at exec (the Go runtime
    /// snapshots it before main, so it cannot be set later), through `loopback-dns`, so
    /// that its node's DNS queries stay on 127.0.0.1 (the script says why).
    pub fn start(h: &Harness, args: &[&str], env: &[(&str, &str)]) -> App {
        let mut cmd = Command::new(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tailnet-harness/loopback-dns"),
        );
        cmd.arg(super::BIN)
            .args([
                "--control-url",
                h.get("control"),
                "--log-level",
                "info,tailscale=warn",
            ])
            .args(args)
            .env("TS_DEBUG_ACME_DIRECTORY_URL", h.get("pebble_dir"))
            .env("SSL_CERT_FILE", h.get("pebble_tls_ca"))
            .env("TS_NO_LOGS_NO_SUPPORT", "true")
            .env_remove("TS_AUTHKEY")
            .env_remove("CREDENTIALS_DIRECTORY")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start libations");
        let log = Log::capture(child.stderr.take().unwrap());
        App { child, log }
    }

    pub fn wait_serving(&self) {
        self.log
            .wait_for("serving on https://", Duration::from_secs(120));
    }

    pub fn stop(mut self) -> i32 {
        let log = self.log.clone();
        super::stop_child(&mut self.child, || log.text())
            .code()
            .unwrap_or(-1)
    }
}

impl Drop for App {
    fn drop(&mut self) {
        super::kill_child(&mut self.child);
    }
}

pub fn header(v: &Value, name: &str) -> String {
    v["headers"][name][0]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

pub fn body(v: &Value) -> String {
    v["body"].as_str().unwrap_or_default().to_owned()
}

/// A phone's write over the tailnet: POSTs `body` as JSON to `path` on the app, from the
/// client node `from` (the phone when `None`), as a same-origin page would.
pub async fn write(h: &Harness, host: &str, from: Option<&str>, path: &str, body: &Value) -> Value {
    let origin = format!("Origin: https://{host}");
    let mut query = vec![
        ("url", format!("https://{host}{path}")),
        ("method", "POST".to_owned()),
        ("header", "Content-Type: application/json".to_owned()),
        ("header", origin),
    ];
    if let Some(from) = from {
        query.push(("from", from.to_owned()));
    }
    let r = super::client()
        .post(format!("{}/fetch", h.get("harness")))
        .query(&query)
        .body(body.to_string())
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .expect("harness /fetch");
    let v: Value = r.json().await.expect("harness JSON");
    assert_eq!(v["ok"], true, "phone write to {path} failed: {v}");
    v
}
