//! Moving from the Go original: its command line and its recipe files, with the real binary.
//! (Its tailnet node is adopted in tests/tailnet.rs; its NixOS options in scripts/nix-check.)

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `libations` started with exactly these arguments (no `--local --addr` of ours added).
struct Go {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl Go {
    fn start(args: &[&str]) -> Go {
        let mut child = Command::new(common::BIN)
            .args(args)
            .env_remove("RUST_LOG")
            .env("TS_NO_LOGS_NO_SUPPORT", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start libations");
        let stderr = child.stderr.take().expect("piped");
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Go { child, log }
    }

    fn stop(mut self) -> i32 {
        let log = self.log.clone();
        common::stop_child(&mut self.child, || log.lock().unwrap().join("\n"))
            .code()
            .unwrap_or(-1)
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(line) = self.log.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return line.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no {needle:?} in the log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Go {
    fn drop(&mut self) {
        common::kill_child(&mut self.child);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A recipes file as the Go original read it: Go's field names in their own case, a key it
/// ignored, and `null` for empty values.
const GO_RECIPES: &str = r#"[
 {"ID": 1, "Name": "Go Sour", "Base": ["Gin"], "Glass": null,
  "Ingredients": [{"Name": "Lemon Juice", "Measure": "25", "Unit": "ml"}],
  "Notes": null, "rating": 5},
 {"id": 2, "name": "Plain Negroni", "base": ["Gin"], "ingredients": null}
]"#;

#[tokio::test]
async fn the_go_command_line_serves_a_go_recipes_file_on_127_0_0_1_port() {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), GO_RECIPES).unwrap();
    let port = free_port().to_string();
    let addr = format!(":{port}");
    // Exactly as the original's README has it, single dashes and `:PORT`, plus Go's forms
    // of a boolean and of `-name=value`.
    let go = Go::start(&[
        "-local",
        "-addr",
        &addr,
        "-recipes-file",
        file.path().to_str().unwrap(),
        "-tsnet-logs=false",
        "-hostname=bar",
    ]);
    let serving = go.wait_for("serving on ");
    assert!(
        serving.contains(&format!("http://127.0.0.1:{port}/")),
        "{serving}"
    );
    let page = common::client()
        .get(format!("http://127.0.0.1:{port}/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Go Sour") && page.contains("Plain Negroni"),
        "{page}"
    );
    let recipe = common::client()
        .get(format!("http://127.0.0.1:{port}/recipes/1"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(recipe.contains("Lemon Juice"), "{recipe}");

    // Every key only Go's decoding accepted is in the log, with file, recipe and field.
    let log = go.log();
    let file_name = file.path().display().to_string();
    let warned = |field: &str| {
        log.lines().any(|l| {
            l.contains("WARN")
                && l.contains(&file_name)
                && l.contains("recipe index 0 (id 1, \"Go Sour\")")
                && l.contains(&format!("field \"{field}\""))
        })
    };
    for field in [
        "ID",
        "Name",
        "Base",
        "Glass",
        "Ingredients",
        "Notes",
        "rating",
    ] {
        assert!(warned(field), "no warning for {field}:\n{log}");
    }
    assert!(warned("ingredients[0].Measure"), "{log}");
    assert!(
        log.contains("field \"rating\": unknown field, ignored as the Go version ignored it"),
        "{log}"
    );
    assert!(
        !log.contains("\"Plain Negroni\")"),
        "exact recipe warned about:\n{log}"
    );

    assert_eq!(go.stop(), 0, "exit code after SIGTERM");
}

#[test]
fn check_loads_a_go_recipes_file_and_lists_the_warnings() {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), GO_RECIPES).unwrap();
    let out = Command::new(common::BIN)
        .arg("check")
        .arg(file.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("OK, 2 recipes with 1 ingredient lines; 10 warning(s) above"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 10, "{stderr}");
    assert!(
        stderr.lines().all(|l| l.starts_with("warning: ")),
        "{stderr}"
    );
    assert!(
        stderr.contains("field \"Name\": loaded as \"name\""),
        "{stderr}"
    );
    assert!(stderr.contains("rename it to \"name\""), "{stderr}");
}

#[test]
fn a_bad_boolean_or_address_stops_with_a_message() {
    for (args, needle) in [
        (&["-local=maybe"][..], "is not a boolean; use true or false"),
        (
            &["-local", "-addr", ":http"],
            "the port after ':' must be a number",
        ),
    ] {
        let out = Command::new(common::BIN).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}
