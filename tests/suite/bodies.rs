//! Request bodies against the real binary (issue #40, rows 2 and 3): each large-body route
//! takes what its limit says (not axum's default 2 MiB) and names its limit in a 413; a
//! visitor without the grant is refused before their body is read; what all bodies hold in
//! memory together is bounded by one budget (503 beyond it); and a household filled to its
//! own budget (crates/household/src/budget.rs) downloads a backup that loads back by web and CLI.

use crate::common;

use common::household::person;
use common::{Server, client, collection, editor, same_origin};
use reqwest::StatusCode;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The large-body routes' limit: the household backup's cap.
const LIMIT: usize = 8 << 20;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

/// A bulk save of one recipe, padded with whitespace (still JSON) to `size` bytes.
fn padded_bulk(size: usize) -> String {
    let recipe = json!({"recipes": [{
        "name": "Padded Gimlet",
        "base": ["Gin"],
        "glass": ["Coupe"],
        "method": ["Shake"],
        "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml"}]
    }]})
    .to_string();
    format!("{recipe}{}", " ".repeat(size - recipe.len()))
}

async fn post_json(server: &Server, path: &str, body: String) -> (StatusCode, String) {
    let response = client()
        .post(server.url(path))
        .headers(same_origin(server))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

#[tokio::test]
async fn large_routes_take_their_limit_and_name_it() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let three = 3 << 20;
    let (status, text) = post_json(&server, "/api/recipes/bulk", padded_bulk(three)).await;
    assert_eq!(status, StatusCode::CREATED, "3 MiB bulk save: {text}");
    let jsonld = json!({"jsonld": {"@type": "Recipe", "name": "Padded Sour",
        "recipeIngredient": ["50 ml Whisky", "25 ml Lemon Juice"]}})
    .to_string();
    let padded = format!("{jsonld}{}", " ".repeat(three - jsonld.len()));
    let (status, text) = post_json(&server, "/api/import", padded).await;
    assert_eq!(status, StatusCode::OK, "3 MiB import: {text}");
    assert!(text.contains("Padded Sour"), "{text}");

    // 9 MiB announced: refused before it is sent, the limit named (JSON under /api/).
    let nine = 9 << 20;
    for route in ["/api/recipes/bulk", "/api/import", "/recipes/import"] {
        let kind = match route {
            "/recipes/import" => "application/x-www-form-urlencoded",
            _ => "application/json",
        };
        let answer = announce(port(&server), route, kind, nine);
        assert!(answer.starts_with("HTTP/1.1 413 "), "{route}: {answer}");
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        assert!(body.contains(&LIMIT.to_string()), "{route}: {body}");
        let json = serde_json::from_str::<serde_json::Value>(body).is_ok();
        assert_eq!(json, route.starts_with("/api/"), "{route}: {body}");
    }
}

/// Announces a body of `len` bytes to `path`, sends 64 KiB of it and reads the answer.
fn announce(port: u16, path: &str, kind: &str, len: usize) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {kind}\r\n\
         Sec-Fetch-Site: same-origin\r\nContent-Length: {len}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).expect("head");
    let _ = stream.write_all(&vec![b' '; 64 << 10]);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_large_form_is_read_past_two_mib() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let page = client()
        .get(server.url("/recipes/import"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let token = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the page's token");
    let source = json!({"@type": "Recipe", "name": "Form Sour",
        "recipeIngredient": ["50 ml Whisky", "25 ml Lemon Juice"]})
    .to_string();
    let padded = format!("{source}{}", " ".repeat(3 << 20));
    let body = format!(
        "csrf={token}&source={}",
        padded
            .replace('%', "%25")
            .replace('&', "%26")
            .replace('+', "%2B")
    );
    let response = client()
        .post(server.url("/recipes/import"))
        .headers(same_origin(&server))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(
        text.contains("Form Sour"),
        "the form filled from the import"
    );
}

/// What one stalled sender got back: the status line, or what went wrong.
fn stalled_post(port: u16, path: &'static str, sent: usize) -> (String, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Sec-Fetch-Site: same-origin\r\nContent-Length: {}\r\n\r\n",
        LIMIT - 1
    );
    stream.write_all(head.as_bytes()).expect("head");
    let mut writer = stream.try_clone().unwrap();
    let sending = std::thread::spawn(move || {
        let chunk = vec![b' '; 64 << 10];
        let mut left = sent;
        while left > 0 {
            let n = left.min(chunk.len());
            if writer.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n;
        }
        // Then nothing more: the body stalls, the connection stays open.
        std::thread::sleep(Duration::from_secs(8));
    });
    let mut answer = [0u8; 64];
    let line = match stream.read(&mut answer) {
        Ok(n) => String::from_utf8_lossy(&answer[..n])
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned(),
        Err(e) => format!("read failed: {e}"),
    };
    let took = started.elapsed();
    drop(sending);
    (line, took)
}

fn port(server: &Server) -> u16 {
    server.base.rsplit(':').next().unwrap().parse().unwrap()
}

/// `n` senders at once, each announcing 8 MiB − 1 on `paths` in turn and sending `sent`
/// bytes, then stalling; RSS (KiB) before and while they stall, and each one's answer.
fn flood(
    server: &Server,
    paths: &[&'static str],
    n: usize,
    sent: usize,
) -> (u64, u64, Vec<(String, Duration)>) {
    let pid = server.pid();
    let before = rss_kib(pid);
    let port = port(server);
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(before));
    let watching = peak.clone();
    let watcher = std::thread::spawn(move || {
        for _ in 0..60 {
            let now = rss_kib(pid);
            watching.fetch_max(now, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let senders: Vec<_> = (0..n)
        .map(|i| {
            let path = paths[i % paths.len()];
            std::thread::spawn(move || stalled_post(port, path, sent))
        })
        .collect();
    let answers: Vec<_> = senders.into_iter().map(|s| s.join().unwrap()).collect();
    watcher.join().unwrap();
    let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
    (before, peak, answers)
}

#[test]
fn bodies_of_visitors_without_the_grant_are_not_read() {
    let (_dir, path) = collection();
    let state = tempfile::tempdir().unwrap();
    let file = path.to_str().unwrap();
    // A person the household knows, with no grant: may not edit, may not load a backup.
    let server = person(
        state.path(),
        "guest@example.com",
        &[
            "--recipes-file",
            file,
            "--allow-edits",
            "--body-timeout",
            "20",
        ],
    );
    let paths = ["/api/recipes/bulk", "/api/import", "/api/household/upload"];
    let (before, peak, answers) = flood(&server, &paths, 60, 4 << 20);
    println!(
        "no grant, 60 senders of 4 MiB each: RSS {} MiB before, {} MiB at most while they stalled",
        before >> 10,
        peak >> 10
    );
    for (line, took) in &answers {
        assert!(line.contains(" 403 "), "{line}");
        assert!(*took < Duration::from_secs(5), "answered in {took:?}");
    }
    assert!(
        peak < before + (150 << 10),
        "RSS grew from {before} KiB to {peak} KiB"
    );
}

#[test]
fn bodies_held_at_once_stay_within_the_budget() {
    let (_dir, path) = collection();
    // The write guard takes the editor's rate before any body is read: a rate this high
    // lets every sender through to the budget, which is what this test measures.
    let server = editor(
        &path,
        &["--body-timeout", "8", "--edits-per-minute", "1000"],
    );
    let (before, peak, answers) = flood(&server, &["/api/recipes/bulk"], 60, 4 << 20);
    println!(
        "editor, 60 senders of 4 MiB each: RSS {} MiB before, {} MiB at most while they stalled",
        before >> 10,
        peak >> 10
    );
    let refused = answers.iter().filter(|(l, _)| l.contains(" 503 ")).count();
    println!("{refused} of 60 got 503");
    assert!(refused >= 40, "{answers:?}");
    assert!(
        peak < before + (150 << 10),
        "RSS grew from {before} KiB to {peak} KiB"
    );
}

/// A note's text of 2,000 characters (6,000 bytes), told apart by `tag`.
fn long_text(tag: &str) -> String {
    let text = format!("{tag} ");
    let pad = 2_000 - text.chars().count();
    format!("{text}{}", "€".repeat(pad))
}

/// `login`'s notes on recipes 1 to 7, each written over 20 times by stale devices (20
/// conflicts each), a favourite and a rating.
async fn fill(state: &std::path::Path, login: &str) {
    use common::household::write;
    let server = person(state, login, &["--local-edit"]);
    for id in 1..=7 {
        let path = format!("/api/me/notes/{id}");
        let body = json!({"text": long_text(&format!("{login} {id} top"))});
        let (status, said) = write(&server, "PUT", &path, Some(body)).await;
        assert_eq!(status, StatusCode::OK, "{said}");
        for i in 0..20 {
            let body = json!({"text": long_text(&format!("{login} {id} stale {i}")),
                "was": "a text no longer there"});
            let (status, said) = write(&server, "PUT", &path, Some(body)).await;
            assert_eq!(status, StatusCode::OK, "{said}");
        }
        let (status, _) = write(&server, "PUT", &format!("/api/me/favourites/{id}"), None).await;
        assert_eq!(status, StatusCode::OK);
        let rating = json!({"stars": 1 + id % 5});
        let (status, _) = write(
            &server,
            "PUT",
            &format!("/api/me/ratings/{id}"),
            Some(rating),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }
}

/// The household's backup as `GET /api/household/download` gives it, without its time.
async fn download(state: &std::path::Path) -> (usize, serde_json::Value) {
    let server = person(state, "keeper@example.com", &["--local-edit"]);
    let response = client()
        .get(server.url("/api/household/download"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.bytes().await.unwrap();
    let mut backup: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    backup["exported_at"] = json!(0);
    (bytes.len(), backup)
}

/// `backup` (as [`download`] gives it) loads back whole into an empty household through
/// the web and, into another, through `libations import-household` (the sample's recipes).
async fn loads_back_by_web_and_cli(backup: &serde_json::Value) {
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("backup.json");
    std::fs::write(&file, serde_json::to_vec(backup).unwrap()).unwrap();

    // Through the web, into an empty household.
    let web = tempfile::tempdir().unwrap();
    {
        let server = person(web.path(), "keeper@example.com", &["--local-edit"]);
        let response = client()
            .post(server.url("/api/household/upload"))
            .headers(same_origin(&server))
            .header("content-type", "application/json")
            .body(std::fs::read(&file).unwrap())
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert_eq!(status, StatusCode::OK, "{}", response.text().await.unwrap());
    }
    let (_, loaded) = download(web.path()).await;
    assert!(&loaded == backup, "the web's load differs from the backup");

    // Through the CLI, into another.
    let cli = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(common::BIN)
        .arg("import-household")
        .arg(&file)
        .arg("--state-dir")
        .arg(cli.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, loaded) = download(cli.path()).await;
    assert!(&loaded == backup, "the CLI's load differs from the backup");
}

#[tokio::test]
async fn a_household_full_of_conflicts_loads_back_by_web_and_cli() {
    let state = tempfile::tempdir().unwrap();
    for login in ["ann@example.com", "ben@example.com", "cat@example.com"] {
        fill(state.path(), login).await;
    }
    let (size, backup) = download(state.path()).await;
    println!("the backup: {size} bytes");
    assert!(size > 2 << 20, "{size} bytes: not past axum's default");
    loads_back_by_web_and_cli(&backup).await;
}

/// The household's budget (crates/household/src/budget.rs, `HOUSEHOLD_BYTES`): 7 MiB.
const BUDGET: usize = 7 << 20;

/// A backup file whose guests' notes (on the sample's recipes 1 to 28, each with up to 20
/// conflicts) bring it past `size` bytes by at most one note's text.
fn backup_of(size: usize) -> Vec<u8> {
    let mut people = Vec::new();
    let (mut total, mut n) = (200, 0);
    while total < size {
        let mut notes = Vec::new();
        for id in 1..=28 {
            let mut texts: Vec<String> = Vec::new();
            while texts.len() < 21 && total < size {
                n += 1;
                texts.push(long_text(&format!("guest text {n}")));
                total += texts[texts.len() - 1].len() + 3;
            }
            if texts.is_empty() {
                break;
            }
            let text = texts.remove(0);
            total += 80;
            notes.push(json!({"id": id, "text": text, "conflicts": texts, "at": 1_000 + n}));
        }
        let login = format!("guest{}@example.com", people.len());
        total += 120;
        people.push(json!({"login": login, "name": "Guest", "notes": notes}));
    }
    let backup = json!({"format": "libations-household", "version": 2, "exported_at": 1,
        "shelf": [], "people": people});
    serde_json::to_vec(&backup).unwrap()
}

/// Uploads `bytes` as the household's backup: it must be taken.
async fn upload(server: &Server, bytes: Vec<u8>) {
    let body = String::from_utf8(bytes).unwrap();
    let (status, said) = post_json(server, "/api/household/upload", body).await;
    assert_eq!(status, StatusCode::OK, "{said}");
}

/// Notes written over by 20 stale devices each (seven per person, so that no one's 240
/// writes a minute run out), until a write is refused: says the refused text's tag, and
/// what the refusal said. Room for 2.6 MB more, far past the budget.
async fn write_until_refused(state: &std::path::Path) -> (String, serde_json::Value) {
    use common::household::write;
    for writer in 0..3 {
        let login = format!("writer{writer}@example.com");
        let server = person(state, &login, &["--local-edit"]);
        for id in 1..=7 {
            let path = format!("/api/me/notes/{id}");
            for i in 0..=20 {
                let tag = format!("{login} {id} {i}");
                let mut body = json!({"text": long_text(&tag)});
                if i > 0 {
                    body["was"] = json!("a text no longer there");
                }
                let (status, said) = write(&server, "PUT", &path, Some(body)).await;
                if status == StatusCode::UNPROCESSABLE_ENTITY {
                    return (tag, said);
                }
                assert_eq!(status, StatusCode::OK, "{said}");
            }
        }
    }
    panic!("the household grew past its budget: no write was refused");
}

#[tokio::test]
async fn a_household_filled_to_its_budget_loads_back_by_web_and_cli() {
    let state = tempfile::tempdir().unwrap();
    let file = backup_of(BUDGET - 60_000);
    assert!(
        (BUDGET - 70_000..BUDGET).contains(&file.len()),
        "{}",
        file.len()
    );
    {
        let server = person(state.path(), "keeper@example.com", &["--local-edit"]);
        upload(&server, file).await;
    }
    let (refused, said) = write_until_refused(state.path()).await;
    assert_eq!(said["field"], "(household)", "{said}");
    let message = said["error"].as_str().unwrap();
    assert!(message.contains("at most 7 MiB"), "{message}");
    let (size, backup) = download(state.path()).await;
    println!("filled to the budget: the backup has {size} bytes");
    // Within the budget, so within what the upload and the CLI take (`LIMIT`).
    const { assert!(BUDGET < LIMIT) };
    assert!(size <= BUDGET, "{size} bytes");
    assert!(size > BUDGET - 20_000, "{size} bytes: not filled");
    let (text, trace) = (backup.to_string(), format!("\"{refused} €"));
    assert!(
        text.contains("\"writer0@example.com 1 0 €"),
        "the keeper's first write is missing"
    );
    assert!(!text.contains(&trace), "the refused write left a trace");
    loads_back_by_web_and_cli(&backup).await;
}

#[tokio::test]
async fn a_household_over_its_budget_can_shrink_but_not_grow() {
    use common::household::write;
    let state = tempfile::tempdir().unwrap();
    {
        let server = person(state.path(), "keeper@example.com", &["--local-edit"]);
        upload(&server, backup_of(BUDGET - 200_000)).await;
        let note = json!({"text": "a short note"});
        let (status, said) = write(&server, "PUT", "/api/me/notes/5", Some(note)).await;
        assert_eq!(status, StatusCode::OK, "{said}");
        let (status, _) = write(&server, "PUT", "/api/me/favourites/5", None).await;
        assert_eq!(status, StatusCode::OK);
    }
    // Grown past the budget behind the app's back, as an older Libations could have.
    let db = rusqlite::Connection::open(state.path().join("household.sqlite")).unwrap();
    let big = serde_json::to_string(&vec![long_text("old"); 60]).unwrap();
    db.execute(
        "UPDATE notes SET conflicts = ?1 WHERE login = 'guest0@example.com' AND recipe = 1",
        [&big],
    )
    .unwrap();
    drop(db);
    let (over, _) = download(state.path()).await;
    assert!(over > BUDGET, "{over} bytes: not over the budget");

    let server = person(state.path(), "keeper@example.com", &["--local-edit"]);
    let note = json!({"text": long_text("more")});
    let (status, said) = write(&server, "PUT", "/api/me/notes/6", Some(note)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{said}");
    assert_eq!(said["field"], "(household)");
    let (status, said) = write(&server, "DELETE", "/api/me/favourites/5", None).await;
    assert_eq!(status, StatusCode::OK, "{said}");
    let (status, said) = write(&server, "DELETE", "/api/me/notes/5", None).await;
    assert_eq!(status, StatusCode::OK, "{said}");
    drop(server);
    let (after, _) = download(state.path()).await;
    assert!(after < over, "{after} bytes, was {over}");
}
