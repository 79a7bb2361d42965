//! The household database's durability, against the real binary (docs/HOUSEHOLD.md,
//! "Durability"): an acknowledged write (a 2xx) is on the disk, and a write that was
//! refused or never answered is there whole or not at all, after `kill -9`, after failing
//! syscalls on the write-ahead log (strace's `--inject`: EIO and ENOSPC on its fsync and its
//! pwrite64, once or on every call) and on a real full disk (a small tmpfs filled). After
//! every restart `GET /api/me` is compared with what the clients were told, exactly, and
//! `libations check --household` passes.
//!
//! The fault and full-disk tests need root and strace (tests/common/faults.rs says how they
//! are skipped). `LIBATIONS_HOUSEHOLD_CRASH_ROUNDS` sets the kill rounds (default 36) and
//! `LIBATIONS_HOUSEHOLD_CRASH_SEED` replays a run's kill times.

use crate::common;

use common::faults::{Inject, Rng, Tmpfs, Tracer, env_number, injectable, seed};
use common::{BIN, Server, client};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const ALICE: &str = "alice@example.com";
const BOB: &str = "bob@example.com";

/// The sample collection's recipes are 1 to 28: every write here is for one of them.
const RECIPES: u64 = 28;

/// A household's state directory, and the binary serving it as one person at a time.
struct HouseholdDoor {
    state: PathBuf,
    _dir: Option<tempfile::TempDir>,
    server: Option<Server>,
}

impl HouseholdDoor {
    fn new() -> HouseholdDoor {
        let dir = tempfile::tempdir().unwrap();
        HouseholdDoor {
            state: dir.path().join("state"),
            _dir: Some(dir),
            server: None,
        }
    }

    /// A state directory at `path` (on a tmpfs), kept by its owner.
    fn at(path: &Path) -> HouseholdDoor {
        HouseholdDoor {
            state: path.to_owned(),
            _dir: None,
            server: None,
        }
    }

    /// Starts the binary as `login` on this household, granted the shelf.
    fn start(&mut self, login: &str) {
        assert!(self.server.is_none(), "one server at a time");
        let state = self.state.to_str().unwrap();
        self.server = Some(Server::start(&[
            "--state-dir",
            state,
            "--local-identity",
            login,
            "--local-edit",
        ]));
    }

    /// `PUT /api/bar/shelf` `{"have": [name]}`.
    async fn shelve(&self, name: &str) -> Answer {
        let base = self.base();
        let r = client()
            .put(format!("{base}/api/bar/shelf"))
            .header("origin", &base)
            .header("sec-fetch-site", "same-origin")
            .json(&json!({"have": [name]}))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        if status.is_success() {
            Answer::Acked
        } else {
            Answer::Refused(status, body)
        }
    }

    /// The shelf, as `GET /api/bar` shows it.
    async fn shelf(&self) -> Value {
        let r = client()
            .get(self.server().url("/api/bar"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        r.json::<Value>().await.unwrap()["shelf"].clone()
    }

    fn server(&self) -> &Server {
        self.server.as_ref().expect("a server is running")
    }

    fn base(&self) -> String {
        self.server().base.clone()
    }

    /// SIGKILL: no clean shutdown, no checkpoint, whatever was in flight cut off.
    fn kill(&mut self) {
        if let Some(server) = self.server.take() {
            let _ = Command::new("kill")
                .args(["-KILL", &server.pid().to_string()])
                .status();
            drop(server); // reaps it
        }
    }

    fn wal(&self) -> PathBuf {
        self.state.join("household.sqlite-wal")
    }

    /// `libations check --household` passes on the database as it is on disk.
    fn check(&self, case: &str) {
        let db = self.state.join("household.sqlite");
        let out = Command::new(BIN)
            .args(["check", "--household"])
            .arg(&db)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{case}: libations check --household: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `GET /api/me`, as what it holds.
    async fn me(&self) -> Own {
        let r = client()
            .get(self.server().url("/api/me"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        Own::from_me(&r.json().await.unwrap())
    }

    /// Sends `change` and says how it was answered.
    async fn send(&self, change: &Change) -> Answer {
        send(&client(), &self.base(), change).await
    }
}

/// One write of a person's own.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    Star(u64, bool),
    Rate(u64, Option<u8>),
    Note(u64, Option<String>),
    Made(u64, i64),
    Unmade(u64, i64),
}

/// How a write was answered.
#[derive(Debug)]
enum Answer {
    Acked,
    /// An answer that is not a 2xx: nothing may have changed.
    Refused(StatusCode, Value),
    /// No answer (the server died): it may have landed, whole, or not at all.
    Lost,
}

async fn send(http: &reqwest::Client, base: &str, change: &Change) -> Answer {
    use reqwest::Method;
    let (method, path, body) = match change {
        Change::Star(id, on) => {
            let method = if *on { Method::PUT } else { Method::DELETE };
            (method, format!("/api/me/favourites/{id}"), None)
        }
        Change::Rate(id, Some(stars)) => (
            Method::PUT,
            format!("/api/me/ratings/{id}"),
            Some(json!({"stars": stars})),
        ),
        Change::Rate(id, None) => (Method::DELETE, format!("/api/me/ratings/{id}"), None),
        Change::Note(id, Some(text)) => (
            Method::PUT,
            format!("/api/me/notes/{id}"),
            Some(json!({"text": text})),
        ),
        Change::Note(id, None) => (Method::DELETE, format!("/api/me/notes/{id}"), None),
        Change::Made(id, at) => (
            Method::POST,
            format!("/api/me/made/{id}"),
            Some(json!({"at": at})),
        ),
        Change::Unmade(id, at) => (Method::DELETE, format!("/api/me/made/{id}?at={at}"), None),
    };
    let mut request = http
        .request(method, format!("{base}{path}"))
        .header("origin", base)
        .header("sec-fetch-site", "same-origin");
    if let Some(body) = body {
        request = request.json(&body);
    }
    let Ok(response) = request.send().await else {
        return Answer::Lost;
    };
    let status = response.status();
    let Ok(answer) = response.json::<Value>().await else {
        return Answer::Lost;
    };
    if status.is_success() {
        Answer::Acked
    } else {
        Answer::Refused(status, answer)
    }
}

/// What one person has, as `GET /api/me` shows it.
#[derive(Debug, Clone, Default, PartialEq)]
struct Own {
    favourites: BTreeSet<u64>,
    ratings: BTreeMap<u64, u8>,
    notes: BTreeMap<u64, String>,
    made: BTreeSet<(u64, i64)>,
}

impl Own {
    fn from_me(me: &Value) -> Own {
        assert_eq!(
            me["note_conflicts"],
            json!({}),
            "no conflicts are made here"
        );
        let id = |k: &String| k.parse::<u64>().unwrap();
        Own {
            favourites: me["favourites"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect(),
            ratings: me["ratings"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (id(k), v.as_u64().unwrap() as u8))
                .collect(),
            notes: me["notes"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (id(k), v.as_str().unwrap().to_owned()))
                .collect(),
            made: me["made"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["id"].as_u64().unwrap(), m["at"].as_i64().unwrap()))
                .collect(),
        }
    }

    fn apply(&mut self, change: &Change) {
        match change {
            Change::Star(id, true) => {
                self.favourites.insert(*id);
            }
            Change::Star(id, false) => {
                self.favourites.remove(id);
            }
            Change::Rate(id, Some(stars)) => {
                self.ratings.insert(*id, *stars);
            }
            Change::Rate(id, None) => {
                self.ratings.remove(id);
            }
            Change::Note(id, Some(text)) => {
                self.notes.insert(*id, text.clone());
            }
            Change::Note(id, None) => {
                self.notes.remove(id);
            }
            Change::Made(id, at) => {
                self.made.insert((*id, *at));
            }
            Change::Unmade(id, at) => {
                self.made.remove(&(*id, *at));
            }
        }
    }

    /// Whether `change` takes away something this model does not hold.
    fn lacks(&self, change: &Change) -> bool {
        match change {
            Change::Star(id, false) => !self.favourites.contains(id),
            Change::Rate(id, None) => !self.ratings.contains_key(id),
            Change::Note(id, None) => !self.notes.contains_key(id),
            _ => false,
        }
    }

    fn with(&self, change: &Change) -> Own {
        let mut own = self.clone();
        own.apply(change);
        own
    }

    /// Only what is about the recipes `ids`.
    fn only(&self, ids: &BTreeSet<u64>) -> Own {
        Own {
            favourites: self
                .favourites
                .iter()
                .filter(|id| ids.contains(id))
                .copied()
                .collect(),
            ratings: self
                .ratings
                .iter()
                .filter(|(id, _)| ids.contains(id))
                .map(|(k, v)| (*k, *v))
                .collect(),
            notes: self
                .notes
                .iter()
                .filter(|(id, _)| ids.contains(id))
                .map(|(k, v)| (*k, v.clone()))
                .collect(),
            made: self
                .made
                .iter()
                .filter(|(id, _)| ids.contains(id))
                .copied()
                .collect(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// kill -9 during concurrent writes

/// Clients writing at once in a round; each has its own recipes, so that what it was told
/// says exactly what must be there for them.
const CLIENTS: u64 = 4;
/// Writes one client sends in a round at most: all of them stay under the per-person rate
/// limit of a fresh process (240 a minute, a burst of 240), so that none is refused for it.
const PER_CLIENT: usize = 55;

fn recipes_of(client: u64) -> BTreeSet<u64> {
    (1..=RECIPES).filter(|id| id % CLIENTS == client).collect()
}

/// What one client was told in a round: its recipes as acknowledged, and the write that
/// was on the wire when the server died.
struct Told {
    client: u64,
    acked: Own,
    in_flight: Option<Change>,
    sent: usize,
}

/// Writes random changes to the client's own recipes until the server dies or the round's
/// share is sent; every answered write must be acknowledged.
async fn writer(base: String, client: u64, round: u64, start: Own, seed: u64) -> Told {
    let http = common::client();
    let mut rng = Rng(seed | 1);
    let ids: Vec<u64> = recipes_of(client).into_iter().collect();
    let mut told = Told {
        client,
        acked: start,
        in_flight: None,
        sent: 0,
    };
    for i in 0..PER_CLIENT {
        let id = ids[rng.below(ids.len() as u64) as usize];
        let tag = format!("r{round} c{client} w{i}");
        let change = match rng.below(8) {
            0 | 1 => Change::Star(id, rng.below(3) > 0),
            2 => Change::Rate(id, (rng.below(6) > 0).then(|| 1 + rng.below(5) as u8)),
            3 | 4 => Change::Note(id, (rng.below(5) > 0).then_some(tag)),
            5 => match told.acked.made.iter().next().copied() {
                Some((id, at)) => Change::Unmade(id, at),
                None => Change::Star(id, true),
            },
            // A time of its own, unique to this write: in 1970, but after 0.
            _ => Change::Made(
                id,
                1_000_000 + (round * 1_000 + client * 100 + i as u64) as i64,
            ),
        };
        told.sent += 1;
        match send(&http, &base, &change).await {
            Answer::Acked => told.acked.apply(&change),
            // Taking away what was never stored is a 404 that stores nothing.
            Answer::Refused(StatusCode::NOT_FOUND, _) if told.acked.lacks(&change) => {}
            Answer::Refused(status, answer) => {
                panic!("round {round}: {change:?} refused without a fault: {status} {answer}")
            }
            Answer::Lost => {
                told.in_flight = Some(change);
                return told;
            }
        }
    }
    told
}

/// The person's state after a kill is what their clients were told, but for each client's
/// write in flight, which is there whole or not at all. Returns the state as it is.
fn reconcile(actual: &Own, told: &[Told], case: &str) -> Own {
    let mut mentioned = BTreeSet::new();
    for t in told {
        let ids = recipes_of(t.client);
        mentioned.extend(ids.iter().copied());
        let got = actual.only(&ids);
        let want = t.acked.only(&ids);
        let landed = t.in_flight.as_ref().map(|c| want.with(c).only(&ids));
        assert!(
            got == want || Some(&got) == landed.as_ref(),
            "{case}, client {}: not as acknowledged\n got {got:?}\nwant {want:?}\n(in flight: {:?})",
            t.client,
            t.in_flight
        );
    }
    assert_eq!(
        mentioned,
        (1..=RECIPES).collect::<BTreeSet<u64>>(),
        "the clients cover every recipe"
    );
    actual.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_household_writes_survive_sigkill_at_random_moments() {
    let rounds = env_number("LIBATIONS_HOUSEHOLD_CRASH_ROUNDS", 36);
    let mut rng = Rng(seed("LIBATIONS_HOUSEHOLD_CRASH_SEED"));
    let mut home = HouseholdDoor::new();
    // Each person's state as last seen, and what their last round's clients were told.
    let mut known: BTreeMap<&str, Own> = BTreeMap::new();
    let mut pending: BTreeMap<&str, Vec<Told>> = BTreeMap::new();
    let (mut mid_write, mut sent) = (0, 0);
    for round in 0..rounds + 2 {
        // Two people take turns, each with a fresh process (and so a fresh rate allowance);
        // the two rounds after the last only check.
        let login = [ALICE, BOB][round as usize % 2];
        home.start(login);
        let case = format!("round {round} ({login})");
        let actual = home.me().await;
        let state = match pending.remove(login) {
            Some(told) => reconcile(&actual, &told, &case),
            None => {
                assert_eq!(actual, Own::default(), "{case}: a new person has nothing");
                actual
            }
        };
        known.insert(login, state.clone());
        if round >= rounds {
            home.kill();
            continue;
        }
        let pid = home.server().pid();
        let delay = Duration::from_millis(10 + rng.below(200));
        let killer = tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        });
        let writers: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let start = state.only(&recipes_of(c));
                tokio::spawn(writer(home.base(), c, round, start, rng.next()))
            })
            .collect();
        let mut told = Vec::new();
        for w in writers {
            told.push(w.await.unwrap());
        }
        killer.await.unwrap();
        home.kill();
        home.check(&case);
        mid_write += usize::from(told.iter().any(|t| t.in_flight.is_some()));
        sent += told.iter().map(|t| t.sent).sum::<usize>();
        pending.insert(login, told);
    }
    eprintln!(
        "household crash test: {rounds} kills, {sent} writes sent, {mid_write} kills with a write in flight; alice has {} made, bob {}",
        known[ALICE].made.len(),
        known[BOB].made.len()
    );
    assert!(
        mid_write * 2 >= rounds as usize,
        "too few kills landed mid-write ({mid_write}/{rounds}) for the test to mean much"
    );
}

// ---------------------------------------------------------------------------------------
// Faults on the write-ahead log

/// The WAL's sync: SQLite calls fsync (fdatasync where its build has it) on the `-wal`
/// file at each commit; both are failed, strace's log says which one was.
fn sync_faults(error: &'static str, when: &'static str) -> Vec<Inject<'static>> {
    ["fsync", "fdatasync"]
        .into_iter()
        .map(|syscall| Inject {
            syscall,
            error,
            when,
        })
        .collect()
}

fn write_faults(error: &'static str, when: &'static str) -> Vec<Inject<'static>> {
    vec![Inject {
        syscall: "pwrite64",
        error,
        when,
    }]
}

/// A refusal for a disk fault: a 5xx with a JSON error that says nothing was saved and
/// tells nothing of the server's insides.
fn assert_disk_refusal(home: &HouseholdDoor, answer: &Answer, case: &str) {
    let Answer::Refused(status, body) = answer else {
        panic!("{case}: a failed write must be refused, got {answer:?}");
    };
    assert!(status.is_server_error(), "{case}: {status} {body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(error.contains("Nothing was saved"), "{case}: {body}");
    for inside in [
        home.state.to_str().unwrap(),
        "sqlite",
        "SQLITE",
        "os error",
        "disk I/O error",
        "household.sqlite",
    ] {
        assert!(!error.contains(inside), "{case}: {inside:?} in {body}");
    }
}

/// Runs `change` with `faults` injected on the WAL; returns the answer and strace's log.
async fn under_faults(
    home: &HouseholdDoor,
    faults: &[Inject<'_>],
    change: &Change,
    log: PathBuf,
) -> (Answer, String) {
    let tracer = Tracer::attach(home.server().pid(), faults, &[home.wal()], log);
    let answer = home.send(change).await;
    (answer, tracer.detach())
}

/// The next write for the faults' tests: each kind in turn, each one new.
fn victim(n: u64) -> Change {
    let id = 1 + n % RECIPES;
    match n % 4 {
        0 => Change::Star(id, true),
        1 => Change::Rate(id, Some(1 + (n % 5) as u8)),
        2 => Change::Note(id, Some(format!("refused {n}"))),
        _ => Change::Made(id, 2_000_000 + n as i64),
    }
}

/// A write that must be acknowledged (no fault), recorded in `acked`.
async fn ack(home: &HouseholdDoor, acked: &mut Own, change: Change, case: &str) {
    match home.send(&change).await {
        Answer::Acked => acked.apply(&change),
        other => panic!("{case}: {change:?} without a fault: {other:?}"),
    }
}

/// Exactly what was acknowledged is there: every acknowledged write, and no refused one.
async fn assert_exactly(home: &HouseholdDoor, acked: &Own, case: &str) {
    assert_eq!(&home.me().await, acked, "{case}: GET /api/me");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_refused_by_a_failed_wal_sync_does_not_come_back_after_a_kill() {
    if !injectable("the WAL sync fault test") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let mut home = HouseholdDoor::new();
    home.start(ALICE);
    let mut acked = Own::default();
    ack(&home, &mut acked, Change::Star(3, true), "before").await;
    ack(
        &home,
        &mut acked,
        Change::Note(3, Some("kept".into())),
        "before",
    )
    .await;
    let refused = Change::Note(5, Some("refused: the sync failed".into()));
    let (answer, traced) = under_faults(
        &home,
        &sync_faults("EIO", "1"),
        &refused,
        logs.path().join("strace.log"),
    )
    .await;
    assert!(traced.contains("(INJECTED)"), "the fault fired:\n{traced}");
    assert_disk_refusal(&home, &answer, "fsync EIO");
    assert_exactly(&home, &acked, "refused, before the kill").await;
    // The shelf's writes take the same path.
    assert!(matches!(home.shelve("Gin").await, Answer::Acked));
    let tracer = Tracer::attach(
        home.server().pid(),
        &sync_faults("EIO", "1"),
        &[home.wal()],
        logs.path().join("shelf.log"),
    );
    let answer = home.shelve("Rum").await;
    assert!(tracer.detach().contains("(INJECTED)"));
    assert_disk_refusal(&home, &answer, "the shelf, fsync EIO");
    // The frames of the refused commit were appended to the WAL before its sync failed: a
    // restart's recovery must not take them for a commit.
    home.kill();
    home.check("after the kill");
    home.start(ALICE);
    assert_exactly(&home, &acked, "refused, after the kill").await;
    assert_eq!(
        home.shelf().await,
        json!(["gin"]),
        "the shelf, after the kill"
    );
    ack(&home, &mut acked, Change::Star(4, true), "after").await;
    home.kill();
    home.start(ALICE);
    assert_exactly(&home, &acked, "a write after the restart, then a kill").await;
}

/// One case of the matrix: the faults, and whether they fail every call (then the next
/// write is refused too, while they last).
struct Case {
    label: String,
    faults: Vec<Inject<'static>>,
    every: bool,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for error in ["EIO", "ENOSPC"] {
        for (what, faults, every) in [
            ("sync", sync_faults(error, "1"), false),
            ("sync", sync_faults(error, "1+"), true),
            ("pwrite64", write_faults(error, "1"), false),
            // Every frame but the first: the commit frame is never whole.
            ("pwrite64", write_faults(error, "2+"), true),
            ("pwrite64", write_faults(error, "1+"), true),
        ] {
            let when = faults[0].when;
            cases.push(Case {
                label: format!("{what} {error} #{when}"),
                faults,
                every,
            });
        }
    }
    cases
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wal_fault_refuses_the_write_and_a_restart_keeps_exactly_the_acknowledged() {
    if !injectable("the WAL fault matrix") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let mut home = HouseholdDoor::new();
    home.start(ALICE);
    let mut acked = Own::default();
    let mut n = 0;
    let mut next = || {
        n += 1;
        victim(n)
    };
    for (i, case) in cases().into_iter().enumerate() {
        let label = &case.label;
        ack(&home, &mut acked, next(), label).await;
        let log = logs.path().join(format!("strace-{i}.log"));
        let tracer = Tracer::attach(home.server().pid(), &case.faults, &[home.wal()], log);
        let answer = home.send(&next()).await;
        assert_disk_refusal(&home, &answer, label);
        if case.every {
            // While the disk fails, every write is refused; reads go on.
            let again = home.send(&next()).await;
            assert_disk_refusal(&home, &again, &format!("{label}, a second write"));
            assert_exactly(&home, &acked, &format!("{label}, while failing")).await;
        }
        let traced = tracer.detach();
        assert!(
            traced.contains("(INJECTED)"),
            "{label}: the fault fired:\n{traced}"
        );
        assert_exactly(&home, &acked, label).await;
        home.kill();
        home.check(label);
        home.start(ALICE);
        assert_exactly(&home, &acked, &format!("{label}, after a kill")).await;
        // And the same with the disk back before any restart: the next write works, and
        // the refused one stays refused across a kill.
        let tracer = Tracer::attach(
            home.server().pid(),
            &case.faults,
            &[home.wal()],
            logs.path().join(format!("strace-{i}b.log")),
        );
        let answer = home.send(&next()).await;
        drop(tracer.detach());
        assert_disk_refusal(&home, &answer, &format!("{label}, again"));
        ack(&home, &mut acked, next(), &format!("{label}, disk back")).await;
        assert_exactly(&home, &acked, &format!("{label}, disk back")).await;
        home.kill();
        home.start(ALICE);
        assert_exactly(&home, &acked, &format!("{label}, disk back, after a kill")).await;
    }
    home.check("after the matrix");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_syncs_fail_every_write_is_refused_and_none_comes_back_after_a_kill() {
    if !injectable("the failed-sync test") {
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    let mut home = HouseholdDoor::new();
    home.start(BOB);
    let mut acked = Own::default();
    ack(&home, &mut acked, Change::Rate(7, Some(5)), "before").await;
    // The sync fails once: the refused write's frames are sealed off at once, so the next
    // write works.
    let (answer, traced) = under_faults(
        &home,
        &sync_faults("EIO", "1"),
        &Change::Rate(7, Some(1)),
        logs.path().join("once.log"),
    )
    .await;
    assert!(traced.contains("(INJECTED)"), "{traced}");
    assert_disk_refusal(&home, &answer, "once");
    ack(&home, &mut acked, Change::Star(7, true), "after once").await;
    // The sync fails on every call: what reached the disk is unknown, and no write is taken
    // until one commits whole again; reads go on.
    let tracer = Tracer::attach(
        home.server().pid(),
        &sync_faults("EIO", "1+"),
        &[home.wal()],
        logs.path().join("every.log"),
    );
    for change in [
        Change::Note(7, Some("never".into())),
        Change::Star(8, true),
        Change::Made(7, 1_500),
    ] {
        let answer = home.send(&change).await;
        assert_disk_refusal(&home, &answer, &format!("every call: {change:?}"));
        assert_exactly(&home, &acked, "every call").await;
    }
    // Killed while the disk still fails: the page cache holds what was written, so the
    // restart's recovery reads it; none of the refused writes may be taken for a commit.
    home.kill();
    let traced = tracer.detach();
    let syncs = traced.matches("(INJECTED)").count();
    assert!(
        syncs >= 3,
        "each write was refused on a failed sync:\n{traced}"
    );
    home.check("killed while the syncs fail");
    home.start(BOB);
    assert_exactly(&home, &acked, "killed while the syncs fail").await;
    ack(
        &home,
        &mut acked,
        Change::Note(7, Some("taken".into())),
        "back",
    )
    .await;
    home.kill();
    home.start(BOB);
    assert_exactly(&home, &acked, "disk back, after a kill").await;
    home.check("after the failed syncs");
}

// ---------------------------------------------------------------------------------------
// A full disk

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_writes_keeps_reads_and_recovers_when_space_is_freed() {
    if !injectable("the full-disk test") {
        return;
    }
    let disk = Tmpfs::mount("2m");
    let mut home = HouseholdDoor::at(&disk.path().join("state"));
    home.start(ALICE);
    let mut acked = Own::default();
    for n in 0..8 {
        ack(&home, &mut acked, victim(n), "before").await;
    }
    for round in 0..3 {
        let case = format!("full disk {round}");
        let filler = disk.fill(0);
        for n in 0..4 {
            let answer = home.send(&victim(100 + round * 10 + n)).await;
            assert_disk_refusal(&home, &answer, &case);
        }
        // Reads need no room.
        assert_exactly(&home, &acked, &case).await;
        let bar = client().get(home.server().url("/api/bar")).send().await;
        assert_eq!(
            bar.unwrap().status(),
            StatusCode::OK,
            "{case}: GET /api/bar"
        );
        std::fs::remove_file(filler).unwrap();
        for n in 0..3 {
            let change = victim(200 + round * 10 + n);
            ack(&home, &mut acked, change, &format!("{case}, space freed")).await;
        }
        assert_exactly(&home, &acked, &format!("{case}, space freed")).await;
        if round == 1 {
            // Killed while the disk is full: nothing acknowledged is lost.
            let filler = disk.fill(0);
            home.kill();
            home.check(&case);
            home.start(ALICE);
            assert_exactly(&home, &acked, &format!("{case}, killed while full")).await;
            std::fs::remove_file(filler).unwrap();
        }
    }
    home.kill();
    home.check("full disk, the end");
    home.start(ALICE);
    assert_exactly(&home, &acked, "full disk, after a kill").await;
    home.kill();
}
