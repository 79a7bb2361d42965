//! Faults on real syscalls in the whole save path: the real binary, attached by `strace`,
//! whose `--inject` fails one syscall of one file at a time (`-P` limits it to the
//! recipes file, its journal, its temporary file or its directory), for a create, an edit,
//! a delete and an undo, with EIO, ENOSPC and EROFS, on the first and the second such
//! call; and a real full disk, a small tmpfs filled during the file write and during the
//! journal append.
//!
//! For every case: a change whose syscall failed is answered with an error, one whose
//! syscalls all worked with a 2xx (strace's log says which were injected); the history
//! lists exactly the acknowledged changes, the file holds exactly their recipes, the
//! journal on disk has a line for each and no other, no id is given twice, and the next
//! save works once the fault is gone. After each run of cases the server is killed with
//! SIGKILL and started again: it reloads file and journal with editing on and the same
//! history, and `libations check` passes.
//!
//! Needs root (ptrace of a process of our own, `mount`) and Debian's `strace`;
//! `scripts/test` installs strace. Without them the tests are recorded as skipped, and
//! under `LIBATIONS_REQUIRE_SHARED_DATA=1` (CI) that is a failure. The matrix is written to
//! `target/fault-matrix.txt`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use common::{BIN, Server, client, record_skip};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether faults can be injected here; else the test is skipped (or fails under CI).
fn injectable(what: &str) -> bool {
    let root = unsafe { libc::geteuid() } == 0;
    let strace = Command::new("strace")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if root && strace {
        return true;
    }
    let reason = format!(
        "{what} needs root and strace (root: {root}, strace: {strace}); scripts/test installs strace"
    );
    let required = std::env::var("LIBATIONS_REQUIRE_SHARED_DATA").is_ok_and(|v| v == "1");
    assert!(!required, "LIBATIONS_REQUIRE_SHARED_DATA=1 but {reason}");
    eprintln!("SKIPPED: {reason}");
    record_skip(&reason);
    false
}

/// The files of one collection that a save touches. `Any` is every file: strace 6.1's
/// `-P` does not match `rename` by its paths, and only the store renames, truncates or
/// syncs files in this process, so those need no `-P`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Recipes,
    Journal,
    Temp,
    Dir,
    Any,
}

impl Target {
    fn path(self, file: &Path) -> Option<PathBuf> {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        Some(match self {
            Target::Recipes => file.to_owned(),
            Target::Journal => file.with_file_name(format!("{name}.journal")),
            Target::Temp => file.with_file_name(format!(".{name}.tmp")),
            Target::Dir => file.parent().unwrap().to_owned(),
            Target::Any => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Target::Recipes => "file",
            Target::Journal => "journal",
            Target::Temp => "temp",
            Target::Dir => "dir",
            Target::Any => "any",
        }
    }
}

/// One injected fault: `syscall` on `target` fails with `error` from its `when`th call
/// (strace's `when=` syntax: `2` is the second only, `1+` every one).
#[derive(Debug, Clone)]
struct Fault {
    syscall: &'static str,
    target: Target,
    error: &'static str,
    when: &'static str,
}

impl Fault {
    fn label(&self) -> String {
        format!(
            "{}({}) {} #{}",
            self.syscall,
            self.target.name(),
            self.error,
            self.when
        )
    }
}

/// `strace` attached to the running server, injecting `faults`.
struct Tracer {
    child: Child,
    log: PathBuf,
}

impl Tracer {
    fn attach(pid: u32, faults: &[Fault], file: &Path, log: PathBuf) -> Tracer {
        let mut syscalls: Vec<&str> = faults.iter().map(|f| f.syscall).collect();
        syscalls.dedup();
        let mut cmd = Command::new("strace");
        cmd.args(["-f", "-p", &pid.to_string(), "-o"])
            .arg(&log)
            .arg(format!("--trace={}", syscalls.join(",")));
        for f in faults {
            cmd.arg(format!(
                "--inject={}:error={}:when={}",
                f.syscall, f.error, f.when
            ));
        }
        let paths: Vec<PathBuf> = faults.iter().filter_map(|f| f.target.path(file)).collect();
        assert!(
            paths.is_empty() || paths.len() == faults.len(),
            "-P applies to every fault of one strace"
        );
        for p in paths {
            cmd.arg("-P").arg(p);
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start strace");
        let tracer = Tracer { child, log };
        tracer.wait_attached(pid);
        tracer
    }

    /// Every thread of `pid` is traced by us.
    fn wait_attached(&self, pid: u32) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let ours = format!("TracerPid:\t{}", self.child.id());
        loop {
            let tasks: Vec<_> = std::fs::read_dir(format!("/proc/{pid}/task"))
                .unwrap()
                .filter_map(Result::ok)
                .collect();
            let all = tasks.iter().all(|t| {
                std::fs::read_to_string(t.path().join("status"))
                    .is_ok_and(|s| s.lines().any(|l| l == ours))
            });
            if all {
                return;
            }
            assert!(Instant::now() < deadline, "strace did not attach to {pid}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Detaches and returns strace's log.
    fn detach(mut self) -> String {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        common::kill_child(&mut self.child);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Create,
    Edit,
    Delete,
    Undo,
}

/// What the client was told: the acknowledged changes, oldest first, and the recipes
/// they left.
#[derive(Debug, Default)]
struct Acked {
    changes: Vec<(u64, String)>,
    /// Recipe id → its name, or `None` once deleted.
    recipes: std::collections::BTreeMap<u64, Option<String>>,
    created: Vec<u64>,
    next: usize,
}

/// One collection served by the real binary, and what its client knows.
struct Bar {
    _dir: tempfile::TempDir,
    file: PathBuf,
    server: Option<Server>,
    acked: Acked,
}

impl Bar {
    fn new(root: Option<&Path>) -> Bar {
        let dir = match root {
            Some(root) => tempfile::tempdir_in(root).unwrap(),
            None => tempfile::tempdir().unwrap(),
        };
        let file = dir.path().join("recipes.json");
        std::fs::write(&file, libations::recipes::SAMPLE_JSON).unwrap();
        let mut bar = Bar {
            _dir: dir,
            file,
            server: None,
            acked: Acked::default(),
        };
        bar.start();
        bar
    }

    fn start(&mut self) {
        let file = self.file.to_str().unwrap().to_owned();
        self.server = Some(Server::start(&[
            "--recipes-file",
            &file,
            "--allow-edits",
            "--local-edit",
            "--edits-per-minute",
            "100000",
        ]));
    }

    fn server(&self) -> &Server {
        self.server.as_ref().unwrap()
    }

    /// SIGKILL, then start again on the same files.
    fn kill_and_restart(&mut self) {
        if let Some(server) = self.server.take() {
            let pid = server.pid();
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            drop(server);
        }
        self.start();
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let server = self.server();
        client()
            .request(method, server.url(path))
            .header("origin", &server.base)
            .header("sec-fetch-site", "same-origin")
    }

    fn drink(&mut self) -> Value {
        self.acked.next += 1;
        json!({
            "name": format!("Fault {}", self.acked.next),
            "base": ["Gin"],
            "ingredients": [
                {"name": "Gin", "measure": "50", "unit": "ml"},
                {"name": "Lime Juice", "measure": "20", "unit": "ml"}
            ],
            "notes": "x".repeat(400)
        })
    }

    async fn etag(&self, id: u64) -> String {
        let r = self
            .request(reqwest::Method::GET, &format!("/api/recipes/{id}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "recipe {id}");
        r.headers()["etag"].to_str().unwrap().to_owned()
    }

    /// The request for `op` on the newest acknowledged recipe or change.
    async fn send(&mut self, op: Op) -> (StatusCode, Value) {
        let live = self.live();
        let body = self.drink();
        let request = match op {
            Op::Create => self
                .request(reqwest::Method::POST, "/api/recipes")
                .json(&body),
            Op::Edit => {
                let tag = self.etag(live).await;
                self.request(reqwest::Method::PUT, &format!("/api/recipes/{live}"))
                    .header("if-match", tag)
                    .json(&body)
            }
            Op::Delete => {
                let tag = self.etag(live).await;
                self.request(reqwest::Method::DELETE, &format!("/api/recipes/{live}"))
                    .header("if-match", tag)
            }
            Op::Undo => {
                let (n, _) = self
                    .acked
                    .changes
                    .last()
                    .cloned()
                    .expect("a change to undo");
                self.request(reqwest::Method::POST, &format!("/api/changes/{n}/undo"))
                    .json(&json!({}))
            }
        };
        let r = request.send().await.expect("the server answers");
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// The newest recipe the client created that still exists.
    fn live(&self) -> u64 {
        self.acked
            .recipes
            .iter()
            .rev()
            .find(|(_, name)| name.is_some())
            .map_or(1, |(id, _)| *id)
    }

    /// Records an acknowledged answer.
    fn ack(&mut self, answer: &Value) {
        let change = &answer["change"];
        let n = change["n"].as_u64().expect("a change number");
        let id = change["id"].as_u64().unwrap();
        let name = change["name"].as_str().unwrap().to_owned();
        self.acked.changes.push((n, name.clone()));
        let exists = !answer["recipe"].is_null();
        if change["action"] == "created" && change.get("undoes").is_none() {
            self.acked.created.push(id);
        }
        self.acked.recipes.insert(id, exists.then_some(name));
    }

    /// A change without faults: it must work.
    async fn save(&mut self, op: Op) {
        let (status, answer) = self.send(op).await;
        assert!(
            status.is_success(),
            "{op:?} without a fault: {status} {answer}"
        );
        self.ack(&answer);
    }

    /// History, file and journal hold exactly what was acknowledged; only the history
    /// unless `on_disk` (a failed cleanup leaves the disk to the next change's repair).
    async fn check(&self, on_disk: bool, case: &str) {
        let r = self
            .request(reqwest::Method::GET, "/api/changes")
            .send()
            .await
            .unwrap();
        let history: Value = r.json().await.unwrap();
        let mut listed: Vec<(u64, String)> = history["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["n"].as_u64().unwrap(),
                    e["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        listed.reverse();
        assert_eq!(listed, self.acked.changes, "{case}: the history");
        if !on_disk {
            return;
        }
        let on_disk = libations::recipes::Recipes::from_file(&self.file)
            .unwrap_or_else(|e| panic!("{case}: the file does not load: {e}"));
        for (id, name) in &self.acked.recipes {
            let got = on_disk.get(*id).map(|r| r.name.to_string());
            assert_eq!(&got, name, "{case}: recipe {id} in the file");
        }
        let ours = on_disk
            .all()
            .iter()
            .filter(|r| r.name.starts_with("Fault "))
            .count();
        let live = self.acked.recipes.values().filter(|n| n.is_some()).count();
        assert_eq!(ours, live, "{case}: no recipe the client was not told of");
        let mut ids = self.acked.created.clone();
        ids.dedup();
        assert_eq!(
            ids.len(),
            self.acked.created.len(),
            "{case}: an id given twice"
        );
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{case}: ids {ids:?}");
        {
            let journal = Target::Journal.path(&self.file).unwrap();
            let text = std::fs::read_to_string(&journal).unwrap_or_default();
            let lines: Vec<(u64, String)> = text
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).expect("whole lines"))
                .filter(|v| v.get("n").is_some())
                .map(|v| {
                    (
                        v["n"].as_u64().unwrap(),
                        v["name"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            assert_eq!(lines, self.acked.changes, "{case}: the journal on disk");
        }
    }

    /// After a run of cases: a kill, a restart, the same history, editing on, a save, and
    /// `libations check`.
    async fn restart_and_check(&mut self, case: &str) {
        self.kill_and_restart();
        let log = self.server().log();
        assert!(!log.contains("editing is off"), "{case}: {log}");
        self.check(true, &format!("{case}, after a restart")).await;
        self.save(Op::Create).await;
        self.check(true, &format!("{case}, saving after a restart"))
            .await;
        let out = Command::new(BIN)
            .arg("check")
            .arg(&self.file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{case}: libations check: {out:?}");
    }

    /// Makes what `op` needs: a recipe to edit or delete, a change to undo.
    async fn prepare(&mut self, op: Op) {
        match op {
            Op::Create => {}
            Op::Edit | Op::Delete => self.save(Op::Create).await,
            Op::Undo => {
                self.save(Op::Create).await;
                self.save(Op::Edit).await;
            }
        }
    }
}

/// What the server logs when a change repairs the journal first.
const REPAIR: &str = "repairing the change journal before the next change";

/// One row of the printed matrix.
struct Row {
    op: Op,
    fault: String,
    injected: bool,
    status: StatusCode,
    outcome: &'static str,
}

/// Runs `op` with `faults` injected; checks the answer against strace's log, and
/// everything on disk.
async fn case(bar: &mut Bar, op: Op, faults: &[Fault], logs: &Path, rows: &mut Vec<Row>) {
    bar.prepare(op).await;
    let repairs = |bar: &Bar| bar.server().log().matches(REPAIR).count();
    let repairs_before = repairs(bar);
    let label: Vec<String> = faults.iter().map(Fault::label).collect();
    let label = label.join(" + ");
    let log = logs.join(format!("strace-{}.log", rows.len()));
    let tracer = Tracer::attach(bar.server().pid(), faults, &bar.file, log);
    let (status, answer) = bar.send(op).await;
    let traced = tracer.detach();
    let injected = traced.contains("(INJECTED)");
    let case = format!("{op:?} with {label}");
    if injected {
        assert!(
            status.is_server_error(),
            "{case}: a failed syscall must fail the change, got {status} {answer}\n{traced}"
        );
        assert!(
            std::env::var("RELPATH_TODO").is_ok()
                || !answer["error"].as_str().unwrap_or_default().contains('/'),
            "{case}: no server paths in {answer}"
        );
    } else {
        assert!(status.is_success(), "{case}: {status} {answer}\n{traced}");
        bar.ack(&answer);
    }
    // Where a cleanup failed too, the disk is repaired by the next change, not before.
    let cleanup_failed = faults.len() > 1;
    bar.check(!cleanup_failed, &case).await;
    bar.save(Op::Create).await;
    bar.check(true, &format!("{case}, then a save")).await;
    if cleanup_failed && injected {
        assert!(
            repairs(bar) > repairs_before,
            "{case}: the next change repairs first:\n{}",
            bar.server().log()
        );
    }
    rows.push(Row {
        op,
        fault: label,
        injected,
        status,
        outcome: if injected {
            "refused, no trace"
        } else {
            "saved"
        },
    });
}

fn single_faults(error: &'static str) -> Vec<Vec<Fault>> {
    let targets = [
        ("openat", Target::Recipes),
        ("openat", Target::Journal),
        ("write", Target::Journal),
        ("fdatasync", Target::Journal),
        ("openat", Target::Temp),
        ("write", Target::Temp),
        ("fsync", Target::Temp),
        ("rename", Target::Any),
        ("openat", Target::Dir),
        ("fsync", Target::Dir),
    ];
    let mut all = Vec::new();
    for (syscall, target) in targets {
        for when in ["1", "2"] {
            all.push(vec![Fault {
                syscall,
                target,
                error,
                when,
            }]);
        }
    }
    all
}

/// Faults whose cleanup fails too: the line cannot be taken back, the file cannot be
/// put back.
fn double_faults() -> Vec<Vec<Fault>> {
    let f = |syscall, target, when| Fault {
        syscall,
        target,
        error: "EIO",
        when,
    };
    // Without -P the counts are of the save's own thread: its first fdatasync is the
    // journal append's, the second the take-back's; its first fsync is the temporary
    // file's, the second the directory's; its second rename puts the old file back.
    vec![
        vec![
            f("rename", Target::Any, "1"),
            f("ftruncate", Target::Any, "1"),
        ],
        vec![
            f("rename", Target::Any, "1"),
            f("fdatasync", Target::Any, "2"),
        ],
        vec![f("fsync", Target::Any, "2"), f("rename", Target::Any, "2")],
    ]
}

fn write_matrix(rows: &[Row]) -> String {
    let mut table = String::from(
        "| op | fault (syscall(file) error #occurrence) | injected | status | outcome |\n| --- | --- | --- | --- | --- |\n",
    );
    for r in rows {
        let _ = writeln!(
            table,
            "| {:?} | {} | {} | {} | {} |",
            r.op,
            r.fault,
            if r.injected { "yes" } else { "no" },
            r.status.as_u16(),
            r.outcome
        );
    }
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fault-matrix.txt");
    let _ = std::fs::write(out, &table);
    table
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_failing_syscall_of_every_kind_of_save_leaves_no_trace() {
    if !injectable("the fault-injection matrix") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for op in [Op::Create, Op::Edit, Op::Delete, Op::Undo] {
        for error in ["EIO", "ENOSPC", "EROFS"] {
            let mut bar = Bar::new(None);
            let mut faults = single_faults(error);
            if error == "EIO" {
                faults.extend(double_faults());
            }
            for f in &faults {
                case(&mut bar, op, f, logs.path(), &mut rows).await;
            }
            bar.restart_and_check(&format!("{op:?}/{error}")).await;
        }
    }
    let table = write_matrix(&rows);
    eprintln!("{table}");
    let injected = rows.iter().filter(|r| r.injected).count();
    assert!(
        injected * 2 > rows.len(),
        "most cases must really inject a fault ({injected} of {})",
        rows.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cleanup_that_keeps_failing_pauses_saving_until_the_disk_recovers() {
    if !injectable("the paused-saving test") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let mut bar = Bar::new(None);
    bar.save(Op::Create).await;
    let faults = [
        Fault {
            syscall: "rename",
            target: Target::Any,
            error: "EIO",
            when: "1+",
        },
        Fault {
            syscall: "ftruncate",
            target: Target::Any,
            error: "EIO",
            when: "1+",
        },
    ];
    let tracer = Tracer::attach(
        bar.server().pid(),
        &faults,
        &bar.file,
        logs.path().join("strace.log"),
    );
    let (first, _) = bar.send(Op::Create).await;
    assert!(
        first.is_server_error(),
        "{first}: {}",
        std::fs::read_to_string(logs.path().join("strace.log")).unwrap_or_default()
    );
    let (second, answer) = bar.send(Op::Create).await;
    assert_eq!(second, StatusCode::SERVICE_UNAVAILABLE, "{answer}");
    let message = answer["error"].as_str().unwrap();
    assert!(message.contains("paused"), "{message}");
    drop(tracer.detach());
    bar.check(false, "while paused").await;
    bar.save(Op::Create).await;
    bar.check(true, "once the disk recovers").await;
    bar.restart_and_check("paused").await;
}

/// A tmpfs of `size` mounted on a new directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "mount a tmpfs");
        Tmpfs { dir }
    }

    fn free(&self) -> u64 {
        let path = std::ffi::CString::new(self.dir.path().to_str().unwrap()).unwrap();
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::statvfs(path.as_ptr(), &mut st) }, 0);
        st.f_bavail * st.f_frsize
    }

    /// Fills the disk until `leave` bytes are free (rounded down to its blocks).
    fn fill(&self, leave: u64) -> PathBuf {
        let filler = self.dir.path().join("filler");
        let size = self.free().saturating_sub(leave);
        std::fs::write(&filler, vec![0u8; size as usize]).unwrap();
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_during_the_file_write_or_the_journal_append_leaves_no_trace() {
    if !injectable("the full-disk test") {
        return;
    }
    let disk = Tmpfs::mount("1m");
    let mut bar = Bar::new(Some(disk.dir.path()));
    bar.save(Op::Create).await;
    let big = |bar: &mut Bar| {
        let mut body = bar.drink();
        body["notes"] = json!("y".repeat(4_900));
        body
    };
    let file_len = std::fs::metadata(&bar.file).unwrap().len();
    // Room for the journal line (some 10 KB with the notes) but not for the new file.
    for (leave, what) in [
        (file_len / 2, "the file write"),
        (4096, "the journal append"),
    ] {
        let filler = disk.fill(leave);
        let body = big(&mut bar);
        let r = bar
            .request(reqwest::Method::POST, "/api/recipes")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_server_error(), "{what}: {}", r.status());
        bar.check(true, &format!("disk full during {what}")).await;
        std::fs::remove_file(filler).unwrap();
        let r = bar
            .request(reqwest::Method::POST, "/api/recipes")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "{what}, space freed: {}",
            r.status()
        );
        let answer: Value = r.json().await.unwrap();
        bar.ack(&answer);
        bar.check(true, &format!("after {what}, space freed")).await;
    }
    bar.restart_and_check("full disk").await;
}
