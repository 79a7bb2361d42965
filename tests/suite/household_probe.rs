//! Issue #40's probe of the household, row by row, against the real binary: what a person
//! without grants could do to the household, what a damaged database did to the whole app,
//! and what a backup could carry in that the API refuses. Two people on one state
//! directory, as tests/suite/household.rs starts them.
//!
//! Each test prints its figures (`--nocapture`): `cargo test --test suite household_probe --
//! --nocapture`.

use crate::common;

use common::household::{person, write};
use common::{BIN, Server, client, collection, same_origin};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The largest id a phone's JavaScript can hold exactly: the id the probe planted.
const HUGE: u64 = 9_007_199_254_740_991;
const MALLORY: &str = "mallory@example.com";
const EDITOR: &str = "ed@example.com";

/// A state directory and a copy of the sample collection (recipes 1 to 28).
struct House {
    dir: tempfile::TempDir,
    recipes: PathBuf,
}

impl House {
    fn new() -> House {
        let (dir, recipes) = collection();
        House { dir, recipes }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn db(&self) -> PathBuf {
        self.state().join("household.sqlite")
    }

    /// The binary as `login` on this household and collection, plus `extra`.
    fn start(&self, login: &str, extra: &[&str]) -> Server {
        let mut args = vec!["--recipes-file", self.recipes.to_str().unwrap()];
        args.extend_from_slice(extra);
        person(&self.state(), login, &args)
    }

    /// The binary as an editor (edit grant, editing on).
    fn editor(&self) -> Server {
        self.start(EDITOR, &["--allow-edits", "--local-edit"])
    }

    /// `libations ARGS` to the end: its status, stdout and stderr.
    fn run(&self, args: &[&str]) -> (bool, String, String) {
        let out = Command::new(BIN).args(args).output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.success(), text(&out.stdout), text(&out.stderr))
    }

    /// Rows in `table` of the household's database.
    fn count(&self, table: &str) -> i64 {
        let db = rusqlite::Connection::open(self.db()).unwrap();
        db.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }
}

/// `GET path`'s JSON answer.
async fn get_json(server: &Server, path: &str) -> Value {
    let response = client().get(server.url(path)).send().await.unwrap();
    response.json().await.unwrap()
}

async fn create(server: &Server, name: &str) -> (StatusCode, Value) {
    write(
        server,
        "POST",
        "/api/recipes",
        Some(json!({"name": name, "base": ["Gin"]})),
    )
    .await
}

/// A backup file naming `people` (each a JSON object of a person's rows).
fn backup(people: Value) -> Value {
    json!({
        "format": "libations-household", "version": 2, "exported_at": 1,
        "shelf": [], "people": people,
    })
}

async fn upload(server: &Server, body: Vec<u8>) -> (StatusCode, Value) {
    let r = client()
        .post(server.url("/api/household/upload"))
        .headers(same_origin(server))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Row 1: taking away what was never there stores nothing, so no id can be planted; a
/// backup cannot plant one either; one planted before is found and dropped by the CLI.
#[tokio::test]
async fn nobody_can_plant_an_id_that_blocks_every_editor() {
    let house = House::new();
    let mallory = house.start(MALLORY, &[]);
    for kind in ["favourites", "ratings", "notes"] {
        for id in [HUGE, 3] {
            let path = format!("/api/me/{kind}/{id}");
            let (status, answer) = write(&mallory, "DELETE", &path, None).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {answer}");
            assert!(
                answer["error"]
                    .as_str()
                    .unwrap()
                    .contains("nothing was changed")
            );
        }
    }
    drop(mallory);
    for table in ["favourites", "ratings", "notes", "people"] {
        assert_eq!(
            house.count(table),
            0,
            "{table}: a refused DELETE stored a row"
        );
    }

    let editor = house.editor();
    let planted = backup(json!([{"login": MALLORY, "name": "M",
        "favourites": [{"id": 2, "on": true, "at": 1}, {"id": HUGE, "on": false, "at": 1}]}]));
    let (status, answer) = upload(&editor, serde_json::to_vec(&planted).unwrap()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["field"], "people[0].favourites[1].id", "{answer}");
    assert_eq!(house.count("favourites"), 0, "a refused backup left a row");
    let (status, made) = create(&editor, "After the probe").await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(made["recipe"]["id"], 29, "{made}");
    drop(editor);

    // A database from before the fix, with the planted row: check finds it, repair drops
    // it, and the next recipe gets the next id, not HUGE + 1.
    let db = rusqlite::Connection::open(house.db()).unwrap();
    db.execute(
        "INSERT INTO favourites (login, recipe, on_, at) VALUES (?1, ?2, 0, 1)",
        rusqlite::params![MALLORY, HUGE as i64],
    )
    .unwrap();
    drop(db);
    let (recipes, db) = (house.recipes.to_str().unwrap(), house.db());
    let (ok, _, said) = house.run(&["check", recipes, "--household", db.to_str().unwrap()]);
    assert!(!ok && said.contains(&HUGE.to_string()), "{said}");
    let state = house.state();
    let repair = ["repair-household", "--recipes-file", recipes, "--state-dir"];
    let (ok, said, err) = house.run(&[&repair[..], &[state.to_str().unwrap()]].concat());
    assert!(ok && said.contains("dropped 1 row"), "{said}{err}");
    let (ok, said, err) = house.run(&["check", recipes, "--household", db.to_str().unwrap()]);
    assert!(ok, "{said}{err}");
    let editor = house.editor();
    let (status, made) = create(&editor, "After the repair").await;
    assert_eq!(
        (status, made["recipe"]["id"].clone()),
        (StatusCode::CREATED, json!(30))
    );
}

/// The process's CPU time (user + system), from /proc.
fn cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

/// Row 5: a backup whose one note carries 150,000 conflicts (70 s of CPU before, with the
/// guests' page waiting behind it) is answered in bounded time, and the guests' page and a
/// person's own answer never wait behind it.
#[tokio::test]
async fn a_merge_is_linear_and_reads_never_wait_behind_it() {
    let house = House::new();
    let editor = house.editor();
    let conflicts: Vec<String> = (0..150_000).map(|i| format!("n{i}")).collect();
    let file = backup(json!([{"login": EDITOR, "name": "Ed",
        "notes": [{"id": 1, "text": "top", "conflicts": conflicts, "at": 1}]}]));
    let body = serde_json::to_vec(&file).unwrap();
    let before = cpu(editor.pid());
    let menu = editor.url("/menu");
    let reads = tokio::spawn(async move {
        let mut slowest = Duration::ZERO;
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(4) {
            let t = Instant::now();
            let r = client().get(&menu).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            slowest = slowest.max(t.elapsed());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        slowest
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let (status, answer) = upload(&editor, body).await;
    let took = started.elapsed();
    let spent = cpu(editor.pid()) - before;
    let slowest = reads.await.unwrap();
    println!(
        "150,000 conflicts: {status} in {took:?}, {spent:?} of the server's CPU; slowest /menu meanwhile {slowest:?}"
    );
    assert!(
        status == StatusCode::OK || status == StatusCode::UNPROCESSABLE_ENTITY,
        "{status} {answer}"
    );
    assert!(
        spent < Duration::from_secs(10),
        "the merge took {spent:?} of CPU"
    );
    assert!(slowest < Duration::from_secs(2), "/menu waited {slowest:?}");
}

/// Row 5: while another process holds the household's database for writing (the CLI
/// merging a backup beside the app), reads answer while it holds it and a write is a 503 saying
/// "busy" with Retry-After, never a 500 "database is locked"; afterwards writes work.
#[tokio::test]
async fn a_database_held_by_another_writer_is_busy_not_broken() {
    let house = House::new();
    let server = house.start("alice@example.com", &[]);
    let (status, _) = write(&server, "PUT", "/api/me/favourites/1", None).await;
    assert_eq!(status, StatusCode::OK);
    let db = house.db();
    // Set just before the holder lets go: a read that waited for the lock ends after it.
    let released = Arc::new(AtomicBool::new(false));
    let (held, holding) = std::sync::mpsc::channel();
    let holder = std::thread::spawn({
        let released = released.clone();
        move || {
            let db = rusqlite::Connection::open(db).unwrap();
            db.execute_batch("BEGIN IMMEDIATE; UPDATE people SET seen = seen;")
                .unwrap();
            held.send(()).unwrap();
            std::thread::sleep(Duration::from_secs(8));
            released.store(true, Ordering::SeqCst);
            db.execute_batch("COMMIT").unwrap();
        }
    });
    holding.recv().unwrap();
    for path in ["/menu", "/api/me", "/api/bar"] {
        let r = client().get(server.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert!(
            !released.load(Ordering::SeqCst),
            "{path} waited for the other writer"
        );
    }
    let r = client()
        .put(server.url("/api/me/favourites/2"))
        .headers(same_origin(&server))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.headers()["retry-after"], "1");
    let answer: Value = r.json().await.unwrap();
    assert!(
        answer["error"].as_str().unwrap().contains("busy"),
        "{answer}"
    );
    holder.join().unwrap();
    let (status, _) = write(&server, "PUT", "/api/me/favourites/2", None).await;
    assert_eq!(status, StatusCode::OK);
    let me = get_json(&server, "/api/me").await;
    assert_eq!(me["favourites"], json!([1, 2]));
}

/// The database as the last connection's close leaves it: everything checkpointed into
/// the file, the write-ahead log and its index gone.
fn closed(db: &Path) {
    let c = rusqlite::Connection::open(db).unwrap();
    let _: i64 = c
        .query_row("SELECT count(*) FROM people", [], |r| r.get(0))
        .unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    drop(c);
}

/// Makes `house`'s database what `how` says, after a first clean start made it.
fn damage(house: &House, how: &str) {
    let db = house.db();
    closed(&db);
    match how {
        "garbage" => std::fs::write(&db, "not a database at all. ".repeat(400)).unwrap(),
        "truncated" => {
            let len = std::fs::metadata(&db).unwrap().len();
            let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
            f.set_len(len / 2).unwrap();
        }
        "future schema" => {
            let c = rusqlite::Connection::open(&db).unwrap();
            c.pragma_update(None, "user_version", 99).unwrap();
        }
        "right version, no tables" => {
            std::fs::remove_file(&db).unwrap();
            let c = rusqlite::Connection::open(&db).unwrap();
            c.pragma_update(None, "user_version", 4).unwrap();
        }
        "another app's" => {
            std::fs::remove_file(&db).unwrap();
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch("CREATE TABLE other (x INTEGER)").unwrap();
        }
        "a directory" => {
            std::fs::remove_file(&db).unwrap();
            std::fs::create_dir(&db).unwrap();
        }
        other => panic!("no such damage: {other}"),
    }
}

/// Row 7: a damaged database (garbage, truncated, a future schema, another schema under
/// our version, a directory in its place) no longer stops the app: the recipes are
/// served, household routes answer 503 with the reason, and `/api/whoami` says it.
#[tokio::test]
async fn a_damaged_household_leaves_the_recipes_served() {
    let damages = [
        "garbage",
        "truncated",
        "future schema",
        "right version, no tables",
        "another app's",
        "a directory",
    ];
    for how in damages {
        let house = House::new();
        let first = house.start("alice@example.com", &[]);
        for id in 1..=28 {
            let path = format!("/api/me/notes/{id}");
            let text = "a note long enough to fill some pages ".repeat(40);
            let (status, _) = write(&first, "PUT", &path, Some(json!({"text": text}))).await;
            assert_eq!(status, StatusCode::OK);
        }
        first.stop();
        damage(&house, how);
        let server = house.start("alice@example.com", &[]);
        for path in ["/", "/recipes/1", "/api/recipes"] {
            let r = client().get(server.url(path)).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK, "{how}: {path}");
        }
        for path in ["/api/me", "/api/bar", "/api/menus"] {
            let r = client().get(server.url(path)).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "{how}: {path}");
            let answer: Value = r.json().await.unwrap();
            let said = answer["error"].as_str().unwrap();
            assert!(
                said.contains("libations check --household"),
                "{how}: {said}"
            );
        }
        let (status, _) = write(&server, "PUT", "/api/me/favourites/1", None).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{how}");
        let who = get_json(&server, "/api/whoami").await;
        assert_eq!(who["household"]["ok"], false, "{how}: {who}");
        assert!(server.log().contains("cannot be used"), "{how}");
        let db = house.db();
        let (ok, _, said) = house.run(&["check", "--household", db.to_str().unwrap()]);
        assert!(!ok, "{how}: check passed: {said}");
        println!("{how}: {}", who["household"]["why"]);
    }
}

/// Row 7: a state directory made read-only after a clean stop (as root the server runs as
/// `nobody`, whom permissions stop).
#[tokio::test]
async fn a_read_only_state_directory_leaves_the_recipes_served() {
    use std::os::unix::fs::PermissionsExt;
    let house = House::new();
    let root = unsafe { libc::geteuid() } == 0;
    let wrapper: &[&str] = if root {
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
    } else {
        &[]
    };
    let state = house.state();
    std::fs::create_dir(&state).unwrap();
    for p in [house.dir.path(), &state, &house.recipes] {
        if root {
            std::os::unix::fs::chown(p, Some(65534), Some(65534)).unwrap();
        }
    }
    let args = [
        "--state-dir",
        state.to_str().unwrap(),
        "--local-identity",
        "alice@example.com",
        "--recipes-file",
        house.recipes.to_str().unwrap(),
    ];
    let first = Server::start_under(wrapper, &args, &[]);
    let r = client()
        .put(first.url("/api/me/favourites/1"))
        .headers(same_origin(&first))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    first.stop();
    // As a stop that closed the database leaves it: the write-ahead log checkpointed and
    // gone, so opening it again must create one, in the directory.
    closed(&house.db());
    assert!(!state.join("household.sqlite-wal").exists());
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o500)).unwrap();
    let server = Server::start_under(wrapper, &args, &[]);
    let r = client().get(server.url("/recipes/1")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = client().get(server.url("/api/me")).send().await.unwrap();
    let status = r.status();
    drop(server);
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
}

/// Row 8: a backup is held to the API's rules: a key twice, over-long or invisible
/// characters in a login, a name or a `by`, refused whole, naming the field.
#[tokio::test]
async fn a_backup_keeps_the_rules_the_api_keeps() {
    let house = House::new();
    let editor = house.editor();
    let good = json!({"login": "amy@example.com", "name": "Amy"});
    let long = "a".repeat(1 << 20);
    let cases: Vec<(String, &str)> = vec![
        (
            r#"{"format":"libations-household","version":2,"exported_at":1,"shelf":[],"people":[{"login":"x@example.com","name":"X"}],"people":[]}"#.into(),
            "people",
        ),
        (backup(json!([{"login": long, "name": "L"}])).to_string(), "people[0].login"),
        (backup(json!([{"login": "nul\u{0}@example.com", "name": "N"}])).to_string(), "people[0].login"),
        (backup(json!([good, {"login": "b@example.com", "name": "evil\u{202e}txt"}])).to_string(), "people[1].name"),
        (
            json!({"format": "libations-household", "version": 2, "exported_at": 1,
                "shelf": [{"name": "Gin", "have": true, "at": 1, "by": "x\u{0}y"}], "people": []})
            .to_string(),
            "shelf[0].by",
        ),
        (
            json!({"format": "libations-household", "version": 2, "exported_at": 1,
                "shelf": [{"name": "G\u{200b}in", "have": true, "at": 1, "by": "x"}], "people": []})
            .to_string(),
            "shelf[0].name",
        ),
    ];
    for (body, field) in cases {
        let (status, answer) = upload(&editor, body.into_bytes()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{field}: {answer}"
        );
        assert_eq!(answer["field"], field, "{answer}");
    }
    assert_eq!(house.count("people"), 0, "a refused backup left a person");
}

/// Row 9: a database and state directory left open to others are tightened at start.
#[tokio::test]
async fn an_open_database_is_tightened_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let house = House::new();
    house.start("alice@example.com", &[]).stop();
    let mode = |p: &Path, m| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(&house.state(), 0o755).unwrap();
    mode(&house.db(), 0o644).unwrap();
    let server = house.start("alice@example.com", &[]);
    let of = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(of(&house.state()), 0o700);
    assert_eq!(of(&house.db()), 0o600);
    assert!(server.log().contains("tightened"), "{}", server.log());
}

/// Row 10: plain words: which body a 415 wants, no Rust type names, no "failed: failed",
/// a strength change without `abv` refused (not a figure taken back), a key twice in a
/// note refused, and zero-width characters in names refused.
#[tokio::test]
async fn refusals_are_in_plain_words() {
    let house = House::new();
    let server = house.editor();
    let r = client()
        .put(server.url("/api/me/notes/1"))
        .headers(same_origin(&server))
        .header("content-type", "text/plain")
        .body(r#"{"text": "x"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let said: Value = r.json().await.unwrap();
    assert!(
        !said["error"].as_str().unwrap().contains("recipe"),
        "{said}"
    );

    let set = |body: Value| write(&server, "PUT", "/api/bar/strengths", Some(body));
    let (status, _) = set(json!({"name": "Overproof Rum", "abv": 63})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, said) = set(json!({"name": "Overproof Rum"})).await;
    assert_eq!(
        (status, said["field"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!("abv"))
    );
    let (status, said) = set(json!(["Overproof Rum", 40, 1])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(!said.to_string().contains("StrengthChange"), "{said}");
    let (status, said) = set(json!({"name": "Rum", "abv": "strong"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(!said.to_string().contains("f64"), "{said}");
    let own = get_json(&server, "/api/bar/strengths").await;
    assert_eq!(own["strengths"][0]["abv"], 63.0, "{own}");

    let r = client()
        .put(server.url("/api/me/notes/1"))
        .headers(same_origin(&server))
        .header("content-type", "application/json")
        .body(r#"{"text": "first", "text": "second"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let said: Value = r.json().await.unwrap();
    assert_eq!(said["field"], "text", "{said}");

    for (path, body, field) in [
        (
            "/api/bar/shelf",
            json!({"have": ["G\u{200b}in"]}),
            "have[0]",
        ),
        (
            "/api/bar/strengths",
            json!({"name": "R\u{200b}um", "abv": 40}),
            "name",
        ),
    ] {
        let (status, said) = write(&server, "PUT", path, Some(body)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {said}");
        assert_eq!(said["field"], field, "{said}");
    }
    let menu = json!({"title": "Fri\u{200b}day", "recipes": [{"id": 1}]});
    let (status, said) = write(&server, "POST", "/api/menus", Some(menu)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{said}");
    assert_eq!(said["field"], "title", "{said}");
    assert!(
        !said["error"]
            .as_str()
            .unwrap()
            .contains("failed: the household")
    );
}
