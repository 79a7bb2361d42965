//! Faults on real syscalls in the whole save path: the real binary, attached by `strace`,
//! whose `--inject` fails one syscall of one file at a time (`-P` limits it to the
//! recipes file, its journal, its temporary file or its directory), for a create, an edit,
//! a delete, an undo, a bulk save of three recipes in one change and its undo, with EIO, ENOSPC and EROFS: every call a save makes, and the
//! later calls that the cleanup of a failed save makes (taking the journal line back,
//! putting the old file back), failing too; and a real full disk, a small tmpfs filled
//! during the file write and during the journal append.
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

use crate::common;

use common::faults::{Inject, Rng, Tmpfs, Tracer, injectable};
use common::{BIN, Server, client};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

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

/// One injected fault: `syscall` on the files `on` fails with `error` at its `when`th
/// call, counted over those files in one thread (strace's `when=` syntax: `2` is the
/// second only, `2..3` the second and third, `1+` every one).
#[derive(Debug, Clone)]
struct Fault {
    syscall: &'static str,
    on: &'static [Target],
    error: &'static str,
    when: &'static str,
}

impl Fault {
    fn label(&self) -> String {
        let on: Vec<&str> = self.on.iter().map(|t| t.name()).collect();
        format!(
            "{}({}) {} #{}",
            self.syscall,
            on.join("+"),
            self.error,
            self.when
        )
    }
}

/// `strace` attached to the running server, injecting `faults` on the files they name.
fn attach(pid: u32, faults: &[Fault], file: &Path, log: PathBuf) -> Tracer {
    let mut paths: Vec<PathBuf> = faults
        .iter()
        .flat_map(|f| f.on.iter().filter_map(|t| t.path(file)))
        .collect();
    paths.sort();
    paths.dedup();
    let any = faults.iter().any(|f| f.on.contains(&Target::Any));
    assert!(
        !any || paths.is_empty(),
        "-P applies to every fault of one strace"
    );
    let injects: Vec<Inject<'_>> = faults
        .iter()
        .map(|f| Inject {
            syscall: f.syscall,
            error: f.error,
            when: f.when,
        })
        .collect();
    Tracer::attach(pid, &injects, &paths, log)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Create,
    Edit,
    Delete,
    Undo,
    /// Three recipes in one change (`POST /api/recipes/bulk`).
    Bulk,
    /// The undo of a bulk change: three recipes taken out in one change.
    UndoBulk,
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
            Op::Bulk => {
                let list = vec![body, self.drink(), self.drink()];
                self.request(reqwest::Method::POST, "/api/recipes/bulk")
                    .json(&json!({ "recipes": list }))
            }
            Op::Undo | Op::UndoBulk => {
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
        let name = change["name"].as_str().unwrap().to_owned();
        self.acked.changes.push((n, name));
        // Every recipe of the change: its own, then those of a change of several.
        let parts = std::iter::once(change).chain(change["more"].as_array().into_iter().flatten());
        for part in parts {
            let id = part["id"].as_u64().unwrap();
            let after = &part["after"];
            let own = after["name"]
                .as_str()
                .or(part["before"]["name"].as_str())
                .unwrap()
                .to_owned();
            if change["action"] == "created" && change.get("undoes").is_none() {
                self.acked.created.push(id);
            }
            self.acked
                .recipes
                .insert(id, (!after.is_null()).then_some(own));
        }
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

    /// `GET /api/changes`: the history, newest first.
    async fn history(&self) -> Vec<Value> {
        let r = self
            .request(reqwest::Method::GET, "/api/changes")
            .send()
            .await
            .unwrap();
        let mut history: Value = r.json().await.unwrap();
        history["changes"]
            .as_array_mut()
            .map(std::mem::take)
            .unwrap()
    }

    /// History, file and journal hold exactly what was acknowledged; only the history
    /// unless `on_disk` (a failed cleanup leaves the disk to the next change's repair).
    async fn check(&self, on_disk: bool, case: &str) {
        let mut listed: Vec<(u64, String)> = self
            .history()
            .await
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
            Op::Bulk => {}
            Op::UndoBulk => self.save(Op::Bulk).await,
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
async fn case(
    bar: &mut Bar,
    op: Op,
    (faults, cleanup_failed): (&[Fault], bool),
    logs: &Path,
    rows: &mut Vec<Row>,
) {
    bar.prepare(op).await;
    let repairs = |bar: &Bar| bar.server().log().matches(REPAIR).count();
    let repairs_before = repairs(bar);
    let label: Vec<String> = faults.iter().map(Fault::label).collect();
    let label = label.join(" + ");
    let log = logs.join(format!("strace-{}.log", rows.len()));
    let tracer = attach(bar.server().pid(), faults, &bar.file, log);
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
            !answer["error"]
                .as_str()
                .unwrap_or_default()
                .contains(bar.file.parent().unwrap().to_str().unwrap()),
            "{case}: no server paths in {answer}"
        );
    } else {
        assert!(status.is_success(), "{case}: {status} {answer}\n{traced}");
        bar.ack(&answer);
    }
    // Where a cleanup failed too, the disk is repaired by the next change, not before.
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

/// Each syscall of a save on each of its files, failing at its one call in a save.
fn single_faults(error: &'static str) -> Vec<Vec<Fault>> {
    use Target::*;
    let targets: [(&str, &[Target]); 10] = [
        ("openat", &[Recipes]),
        ("openat", &[Journal]),
        ("write", &[Journal]),
        ("fdatasync", &[Journal]),
        ("openat", &[Temp]),
        ("write", &[Temp]),
        ("fsync", &[Temp]),
        ("rename", &[Any]),
        ("openat", &[Dir]),
        ("fsync", &[Dir]),
    ];
    targets
        .into_iter()
        .map(|(syscall, on)| {
            vec![Fault {
                syscall,
                on,
                error,
                when: "1",
            }]
        })
        .collect()
}

/// The later calls: those a failed save's cleanup makes (the take-back of the journal
/// line, putting the old file back), failing too; and whether the cleanup then fails for
/// good (putting the file back is tried three times). Counts are per thread, over the
/// files named: without `-P`, the save's first fdatasync is the journal append's and the
/// second the take-back's; its first fsync is the temporary file's, the second the
/// directory's; its second rename puts the old file back. Over temp+journal, openat #2 is
/// the temporary file and #3 the take-back's journal; over temp+dir, openat and fsync #2
/// are the directory's, and from #3 on those of putting the file back; write #2 is its
/// write.
fn later_faults(error: &'static str) -> Vec<(Vec<Fault>, bool)> {
    use Target::*;
    let f = |syscall, on, when| Fault {
        syscall,
        on,
        error,
        when,
    };
    vec![
        (
            vec![f("rename", &[Any], "1"), f("ftruncate", &[Any], "1")],
            true,
        ),
        (
            vec![f("rename", &[Any], "1"), f("fdatasync", &[Any], "2")],
            true,
        ),
        (vec![f("openat", &[Temp, Journal], "2..3")], true),
        (
            vec![f("fsync", &[Any], "2"), f("rename", &[Any], "2+")],
            true,
        ),
        (vec![f("fsync", &[Temp, Dir], "2+")], true),
        (vec![f("fsync", &[Temp, Dir], "2..4+2")], false),
        (vec![f("openat", &[Temp, Dir], "2+")], true),
        (
            vec![
                f("fsync", &[Temp, Dir], "2"),
                f("write", &[Temp, Dir], "2+"),
            ],
            true,
        ),
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
    let ops = [
        Op::Create,
        Op::Edit,
        Op::Delete,
        Op::Undo,
        Op::Bulk,
        Op::UndoBulk,
    ];
    for op in ops {
        for error in ["EIO", "ENOSPC", "EROFS"] {
            let mut bar = Bar::new(None);
            let mut faults: Vec<(Vec<Fault>, bool)> = single_faults(error)
                .into_iter()
                .map(|f| (f, false))
                .collect();
            faults.extend(later_faults(error));
            for (f, fails) in &faults {
                case(&mut bar, op, (f, *fails), logs.path(), &mut rows).await;
            }
            bar.restart_and_check(&format!("{op:?}/{error}")).await;
        }
    }
    let table = write_matrix(&rows);
    eprintln!("{table}");
    let missed: Vec<&str> = rows
        .iter()
        .filter(|r| !r.injected)
        .map(|r| r.fault.as_str())
        .collect();
    assert!(missed.is_empty(), "faults that never fired: {missed:?}");
}

/// strace on `bar`'s server failing its renames and truncates from the `when`th: a save
/// is refused, and its journal line cannot be taken back.
fn untakeable(bar: &Bar, when: &'static str, logs: &Path) -> Tracer {
    let fault = |syscall| Fault {
        syscall,
        on: &[Target::Any],
        error: "EIO",
        when,
    };
    let faults = [fault("rename"), fault("ftruncate")];
    attach(
        bar.server().pid(),
        &faults,
        &bar.file,
        logs.join("strace.log"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cleanup_that_keeps_failing_pauses_saving_until_the_disk_recovers() {
    if !injectable("the paused-saving test") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let mut bar = Bar::new(None);
    bar.save(Op::Create).await;
    let tracer = untakeable(&bar, "1+", logs.path());
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

/// What the soak's clients were told, and what was on the wire when the server died.
#[derive(Default)]
struct Told {
    /// Acknowledged changes: number → (recipe id, name after).
    acked: std::collections::BTreeMap<u64, (u64, String)>,
    /// Names sent in creates and edits that were refused with an error answer.
    refused: Vec<String>,
    /// Names sent in requests that got no answer (the kill): they may have landed.
    in_flight: Vec<String>,
    /// Recipes whose delete, and changes whose undo, were refused; and those in flight.
    refused_deletes: Vec<u64>,
    refused_undos: Vec<u64>,
    in_flight_ids: Vec<u64>,
    /// Refusals the app said it could not take back ("may still be there").
    unconfirmed: usize,
    errors: usize,
}

/// One soak client: creates, edits, deletes and undoes its own recipes until the server
/// stops answering.
async fn soak_client(base: String, who: usize, round: usize, seed: u64) -> Told {
    let http = client();
    let mut rng = Rng(seed | 1);
    let mut told = Told::default();
    let mut mine: Vec<(u64, String)> = Vec::new();
    let mut last: Option<u64> = None;
    for i in 0.. {
        let name = format!("Soak {round}-{who}-{i}");
        let body = json!({"name": name, "base": ["Gin"], "notes": "z".repeat(200),
            "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml"}]});
        let pick = if mine.is_empty() { 0 } else { rng.below(4) };
        // A delete's recipe or an undo's change, to know it again if it is refused.
        let mut about: Option<(bool, u64)> = None;
        let request = match pick {
            1 | 2 => {
                let at = rng.below(mine.len() as u64) as usize;
                let (id, tag) = mine[at].clone();
                let r = if pick == 1 {
                    http.put(format!("{base}/api/recipes/{id}")).json(&body)
                } else {
                    mine.remove(at);
                    about = Some((true, id));
                    http.delete(format!("{base}/api/recipes/{id}"))
                };
                r.header("if-match", tag)
            }
            3 if last.is_some() => {
                let n = last.take().unwrap_or_default();
                about = Some((false, n));
                mine.clear(); // versions change with an undo: start from new recipes
                http.post(format!("{base}/api/changes/{n}/undo"))
                    .json(&json!({}))
            }
            _ => http.post(format!("{base}/api/recipes")).json(&body),
        };
        let sent = request
            .header("origin", &base)
            .header("sec-fetch-site", "same-origin")
            .send()
            .await;
        let Ok(response) = sent else {
            told.in_flight.push(name);
            told.in_flight_ids.extend(about.map(|(_, id)| id));
            return told;
        };
        let status = response.status();
        let tag = response
            .headers()
            .get("etag")
            .and_then(|t| t.to_str().ok())
            .map(str::to_owned);
        let Ok(answer) = response.json::<Value>().await else {
            told.in_flight.push(name);
            told.in_flight_ids.extend(about.map(|(_, id)| id));
            return told;
        };
        if !status.is_success() {
            assert!(status.is_server_error(), "{status} {answer}");
            let error = answer["error"].as_str().unwrap_or_default();
            if error.contains("may still be there") {
                // The app says it could not take the change back: as good as no answer.
                told.unconfirmed += 1;
                told.in_flight.push(name);
                told.in_flight_ids.extend(about.map(|(_, id)| id));
                continue;
            }
            told.errors += 1;
            match about {
                Some((true, id)) => told.refused_deletes.push(id),
                Some((false, n)) => told.refused_undos.push(n),
                None => told.refused.push(name),
            }
            continue;
        }
        let change = &answer["change"];
        let (Some(n), Some(id)) = (change["n"].as_u64(), change["id"].as_u64()) else {
            continue;
        };
        told.acked.insert(
            n,
            (id, change["name"].as_str().unwrap_or_default().to_owned()),
        );
        last = Some(n);
        if let (Some(tag), false) = (tag, answer["recipe"].is_null()) {
            mine.retain(|(i, _)| *i != id);
            mine.push((id, tag));
        }
    }
    told
}

/// Writes from two clients while every Nth rename, fsync, fdatasync and ftruncate fails
/// and the server is killed with SIGKILL every few seconds; after each kill, every
/// acknowledged change is in the history and the file, no refused one is, `libations
/// check` passes; at the end the last 20 changes undo. `LIBATIONS_SOAK_SECONDS` (default
/// 15) and `LIBATIONS_SOAK_KILL_SECONDS` (the mean time between kills, default 4) set its
/// length; the numbers are printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_under_random_faults_and_kills_lose_nothing_acknowledged() {
    if !injectable("the fault soak") {
        return;
    }
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let total = Duration::from_secs(env("LIBATIONS_SOAK_SECONDS", 15));
    let kill_every = env("LIBATIONS_SOAK_KILL_SECONDS", 4).max(1);
    let seed = env("LIBATIONS_SOAK_SEED", 0x005e_ed0f_fa17);
    eprintln!("soak seed {seed} (LIBATIONS_SOAK_SEED replays it)");
    let mut rng = Rng(seed);
    let logs = tempfile::tempdir().unwrap();
    let mut bar = Bar::new(None);
    let started = Instant::now();
    let (mut all, mut rounds) = (Told::default(), 0);
    while started.elapsed() < total {
        rounds += 1;
        let faults: Vec<Fault> = ["rename", "fsync", "fdatasync", "ftruncate"]
            .into_iter()
            .map(|syscall| {
                let n = 3 + rng.below(12);
                Fault {
                    syscall,
                    on: &[Target::Any],
                    error: ["EIO", "ENOSPC", "EROFS"][rng.below(3) as usize],
                    when: Box::leak(format!("{n}+{n}").into_boxed_str()),
                }
            })
            .collect();
        let log = logs.path().join(format!("soak-{rounds}.log"));
        let tracer = attach(bar.server().pid(), &faults, &bar.file, log);
        let base = bar.server().base.clone();
        let clients: Vec<_> = (0..2)
            .map(|who| tokio::spawn(soak_client(base.clone(), who, rounds, rng.below(u64::MAX))))
            .collect();
        let wait = kill_every * 500 + rng.below(kill_every * 1000);
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let _ = std::fs::write(
            logs.path().join(format!("server-{rounds}.log")),
            bar.server().log(),
        );
        bar.kill_and_restart();
        drop(tracer);
        for c in clients {
            let told = c.await.unwrap();
            all.acked.extend(told.acked);
            all.refused.extend(told.refused);
            all.in_flight.extend(told.in_flight);
            all.in_flight_ids.extend(told.in_flight_ids);
            all.refused_deletes.extend(told.refused_deletes);
            all.refused_undos.extend(told.refused_undos);
            all.errors += told.errors;
            all.unconfirmed += told.unconfirmed;
        }
        soak_check(&bar, &all, logs.path()).await;
    }
    let history = undo_last(&bar, 20).await;
    eprintln!(
        "soak: {rounds} kills in {:.0?}, {} acknowledged changes, {} refused by faults, {} refused but not taken back, {} in flight at a kill, {history} changes in the history; the last 20 undone",
        started.elapsed(),
        all.acked.len(),
        all.errors,
        all.unconfirmed,
        all.in_flight.len() - all.unconfirmed
    );
    assert!(!all.acked.is_empty() && rounds > 1);
}

/// Every acknowledged change is in the history as acknowledged; no refused one is; the
/// file holds what the newest change of each recipe left; `libations check` passes.
async fn soak_check(bar: &Bar, told: &Told, logs: &Path) {
    // On a failure, what the servers logged about changes, to tell why; the file, the
    // journal and the warnings are kept in target/tmp/soak-failure/.
    let logged = || {
        let mut out = String::new();
        for e in std::fs::read_dir(logs).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            for l in text
                .lines()
                .filter(|l| l.contains("WARN") || l.contains("ERROR"))
            {
                out.push_str(l);
                out.push('\n');
            }
        }
        let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("soak-failure");
        let keep = keep.as_path();
        let _ = std::fs::create_dir_all(keep);
        let _ = std::fs::write(keep.join("warnings.log"), &out);
        let _ = std::fs::copy(&bar.file, keep.join("recipes.json"));
        let _ = std::fs::copy(
            Target::Journal.path(&bar.file).unwrap(),
            keep.join("journal"),
        );
        out.lines().rev().take(40).collect::<Vec<_>>().join("\n")
    };
    let entries = &bar.history().await;
    let by_n: std::collections::HashMap<u64, &Value> = entries
        .iter()
        .map(|e| (e["n"].as_u64().unwrap(), e))
        .collect();
    // The journal keeps the newest KEEP changes (compacting at KEEP + SLACK lines): older
    // ones leave the history by design.
    let oldest = entries
        .iter()
        .filter_map(|e| e["n"].as_u64())
        .min()
        .unwrap_or(0);
    let full = entries.len() >= libations::store::journal::KEEP;
    for (n, (id, name)) in told.acked.iter().filter(|(n, _)| !full || **n >= oldest) {
        let e = by_n.get(n).unwrap_or_else(|| {
            panic!(
                "acknowledged change {n} ({name}) is not in the history\n{}",
                logged()
            )
        });
        assert_eq!(
            (e["id"].as_u64(), e["name"].as_str()),
            (Some(*id), Some(name.as_str()))
        );
    }
    for e in entries {
        let name = e["name"].as_str().unwrap();
        let refused = told.refused.iter().any(|r| r == name);
        let maybe = told.in_flight.iter().any(|r| r == name);
        assert!(!refused || maybe, "refused change {name} is in the history");
        if told.acked.contains_key(&e["n"].as_u64().unwrap()) {
            continue; // the same recipe may have been deleted (or undone) before, acknowledged
        }
        let id = e["id"].as_u64().unwrap();
        let undoes = e["undoes"].as_u64();
        let maybe = |x: u64| told.in_flight_ids.contains(&x);
        if e["action"] == "deleted" && undoes.is_none() {
            let refused = told.refused_deletes.contains(&id);
            assert!(
                !refused || maybe(id),
                "refused delete of {id} is in the history: {e}\n{}",
                logged()
            );
        }
        if let Some(n) = undoes {
            let refused = told.refused_undos.contains(&n);
            assert!(
                !refused || maybe(n),
                "refused undo of {n} is in the history: {e}\n{}",
                logged()
            );
        }
    }
    let on_disk = libations::recipes::Recipes::from_file(&bar.file).unwrap();
    let mut seen = std::collections::HashSet::new();
    for e in entries {
        let id = e["id"].as_u64().unwrap();
        if !seen.insert(id) {
            continue;
        }
        let want = e["after"]["name"].as_str();
        let got = on_disk.get(id).map(|r| r.name.to_string());
        assert_eq!(
            got.as_deref(),
            want,
            "recipe {id} in the file, change {}",
            e["n"]
        );
    }
    let out = Command::new(BIN)
        .arg("check")
        .arg(&bar.file)
        .output()
        .unwrap();
    assert!(out.status.success(), "libations check: {out:?}");
}

/// Undoes the newest `count` changes, newest first; returns the history's length.
async fn undo_last(bar: &Bar, count: usize) -> usize {
    let entries = bar.history().await;
    for e in entries.iter().take(count) {
        let n = e["n"].as_u64().unwrap();
        let r = bar
            .request(reqwest::Method::POST, &format!("/api/changes/{n}/undo"))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        let status = r.status();
        assert!(
            status.is_success(),
            "undo {n}: {status} {}",
            r.text().await.unwrap()
        );
    }
    entries.len()
}

/// A save refused while its journal line could not be taken back, then a hand edit of the
/// recipes file before the next save: the repair drops exactly the refused line, though the
/// file is no longer the one the refused change started from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_change_stays_refused_when_the_file_is_edited_by_hand_before_the_repair() {
    if !injectable("the refused-then-hand-edited test") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let mut bar = Bar::new(None);
    bar.save(Op::Create).await;
    let tracer = untakeable(&bar, "1", logs.path());
    let (status, _) = bar.send(Op::Create).await;
    let traced = tracer.detach();
    assert!(
        status.is_server_error() && traced.contains("(INJECTED)"),
        "{status}"
    );
    let text = std::fs::read_to_string(&bar.file).unwrap();
    std::fs::write(
        &bar.file,
        text.replacen("\"notes\": \"", "\"notes\": \"By hand. ", 1),
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await; // the reloader takes it in
    bar.save(Op::Create).await;
    bar.check(true, "refused, hand edit, then a save").await;
    bar.restart_and_check("refused, hand edit").await;
}

/// A save whose directory sync fails after the rename, and whose put-back fails too, then
/// a SIGKILL before any other save: the refusal was written down, so the next start puts
/// the file back and the history never lists the change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_change_whose_file_could_not_be_put_back_stays_refused_across_a_kill() {
    if !injectable("the refused-then-killed test") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let ops = [
        Op::Create,
        Op::Edit,
        Op::Delete,
        Op::Undo,
        Op::Bulk,
        Op::UndoBulk,
    ];
    for op in ops {
        let mut bar = Bar::new(None);
        bar.save(Op::Create).await; // the journal exists: counts as in the matrix
        bar.prepare(op).await;
        let fault = |syscall, when| Fault {
            syscall,
            on: &[Target::Any],
            error: "EIO",
            when,
        };
        let faults = [fault("fsync", "2"), fault("rename", "2+")];
        let log = logs.path().join(format!("strace-{op:?}.log"));
        let tracer = attach(bar.server().pid(), &faults, &bar.file, log);
        let (status, _) = bar.send(op).await;
        let traced = tracer.detach();
        assert!(
            status.is_server_error() && traced.contains("(INJECTED)"),
            "{op:?}: {status}"
        );
        bar.kill_and_restart();
        assert!(
            bar.server().log().contains("putting the recipes file back"),
            "{op:?}: {}",
            bar.server().log()
        );
        bar.check(true, &format!("{op:?} refused, then killed"))
            .await;
        bar.restart_and_check(&format!("{op:?} refused, then killed"))
            .await;
    }
}
