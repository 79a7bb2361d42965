//! Importing recipes over HTTP, against the real binary (the formats themselves are
//! tests/suite/import_formats.rs's): `POST /api/import` from links served by a
//! page server of our own on 127.0.0.1 (reached through `--import-allow-host`), from page
//! sources and files; the address rules on every spelling of loopback and on redirects;
//! the size, redirect and type limits; `POST /api/recipes/bulk` as one change and one
//! undo; exports; and `libations import`. No packet leaves 127.0.0.0/8 (names are resolved
//! from /etc/hosts; refused addresses are never connected to).

use crate::common;

use common::{BIN, Server, client, collection, editor, same_origin, shared_data};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

/// A tiny HTTP/1.1 server on 127.0.0.1: the pages of `../shared/data/import/jsonld`, and
/// the paths below. One connection per request (`Connection: close`).
struct Pages {
    port: u16,
}

impl Pages {
    fn start(jsonld: Option<PathBuf>) -> Pages {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let jsonld = jsonld.clone();
                std::thread::spawn(move || serve(stream, port, jsonld.as_deref()));
            }
        });
        Pages { port }
    }

    fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port)
    }
}

fn serve(mut stream: std::net::TcpStream, port: u16, jsonld: Option<&Path>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
    }
    let redirect = |to: String| (302, "text/html", Vec::new(), Some(to));
    let (status, kind, body, location): (u16, &str, Vec<u8>, Option<String>) = match path.as_str() {
        "/big.html" => {
            let mut page = b"<html><body>".to_vec();
            page.resize(3 << 20, b'x');
            (200, "text/html", page, None)
        }
        "/image.png" => (200, "image/png", vec![0x89, b'P', b'N', b'G'], None),
        "/missing" => (404, "text/html", b"gone".to_vec(), None),
        "/chain/3" => redirect("/daiquiri.html".into()),
        p if p.starts_with("/chain/") => {
            let n: u32 = p["/chain/".len()..].parse().unwrap_or(0);
            redirect(format!("/chain/{}", n + 1))
        }
        "/loop" => redirect("/loop".into()),
        "/to-loopback" => redirect(format!("http://127.0.0.1:{port}/daiquiri.html")),
        "/to-metadata" => redirect("http://169.254.169.254/latest/meta-data/".into()),
        "/to-file" => redirect("file:///etc/passwd".into()),
        p => match jsonld.map(|d| d.join(p.trim_start_matches('/'))) {
            Some(file) if !p.contains("..") && file.is_file() => (
                200,
                "text/html; charset=utf-8",
                std::fs::read(file).unwrap(),
                None,
            ),
            _ => (404, "text/plain", b"not here".to_vec(), None),
        },
    };
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(to) = location {
        head.push_str(&format!("Location: {to}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

async fn import(server: &Server, body: &Value) -> (StatusCode, Value) {
    let r = client()
        .post(server.url("/api/import"))
        .headers(same_origin(server))
        .json(body)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn upload(server: &Server, kind: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    let r = client()
        .post(server.url("/api/import"))
        .headers(same_origin(server))
        .header("content-type", kind)
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn problem_text(answer: &Value) -> String {
    answer.to_string()
}

fn names(answer: &Value) -> Vec<String> {
    answer["recipes"]
        .as_array()
        .unwrap_or(&vec![])
        .iter()
        .map(|r| {
            let r = if r["recipe"].is_object() {
                &r["recipe"]
            } else {
                r
            };
            r["name"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

fn recipe_of(item: &Value) -> Value {
    if item["recipe"].is_object() {
        item["recipe"].clone()
    } else {
        item.clone()
    }
}

#[tokio::test]
async fn every_spelling_of_loopback_is_refused_without_the_flag_naming_the_rule() {
    let pages = Pages::start(None);
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    for host in [
        "127.0.0.1",
        "[::1]",
        "localhost",
        "127.1",
        "0x7f000001",
        "2130706433",
    ] {
        let url = pages.url(host, "/daiquiri.html");
        let (status, answer) = import(&server, &json!({ "url": url })).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{url}: {answer}");
        let text = problem_text(&answer);
        assert!(text.contains("loopback"), "{url}: {text}");
        assert_eq!(answer["problems"][0]["field"], "url", "{answer}");
    }
    for (url, rule) in [
        ("http://169.254.169.254/latest/meta-data/", "metadata"),
        ("http://[fd00:ec2::254]/", "metadata"),
        ("http://10.0.0.1/", "private"),
        ("http://100.100.100.100/", "CGNAT"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped"),
        ("file:///etc/passwd", "http and https"),
        ("gopher://127.0.0.1/", "http and https"),
    ] {
        let (status, answer) = import(&server, &json!({ "url": url })).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{url}: {answer}");
        assert!(problem_text(&answer).contains(rule), "{url}: {answer}");
    }
}

#[tokio::test]
async fn limits_on_size_redirects_and_type_each_say_which() {
    let pages = Pages::start(shared_data("import/jsonld"));
    let (_dir, path) = collection();
    let server = editor(&path, &["--import-allow-host", "127.0.0.1"]);
    for (page, says) in [
        ("/big.html", "larger than 2 MiB"),
        ("/loop", "more than 5 redirects"),
        ("/image.png", "not HTML or JSON"),
        ("/missing", "404"),
        ("/to-metadata", "metadata"),
        ("/to-file", "http and https"),
    ] {
        let (status, answer) = import(&server, &json!({"url": pages.url("127.0.0.1", page)})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page}: {answer}");
        assert!(problem_text(&answer).contains(says), "{page}: {answer}");
    }
}

#[tokio::test]
async fn a_redirect_to_loopback_is_refused_unless_that_host_is_allowed() {
    let Some(jsonld) = shared_data("import/jsonld") else {
        return;
    };
    let pages = Pages::start(Some(jsonld));
    let (_dir, path) = collection();
    // Only the name "localhost" is allowed: its redirect to 127.0.0.1 is checked anew.
    let server = editor(&path, &["--import-allow-host", "localhost"]);
    let (status, answer) = import(
        &server,
        &json!({"url": pages.url("localhost", "/to-loopback")}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(problem_text(&answer).contains("loopback"), "{answer}");
    drop(server);
    let server = editor(&path, &["--import-allow-host", "localhost,127.0.0.1"]);
    let (status, answer) = import(
        &server,
        &json!({"url": pages.url("localhost", "/to-loopback")}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(names(&answer), ["Daiquiri"]);
}

#[tokio::test]
async fn json_ld_in_its_common_shapes_is_read_from_a_link_and_nothing_is_saved() {
    let Some(jsonld) = shared_data("import/jsonld") else {
        return;
    };
    let pages = Pages::start(Some(jsonld.clone()));
    let (_dir, path) = collection();
    let before = std::fs::read(&path).unwrap();
    let server = editor(&path, &["--import-allow-host", "127.0.0.1"]);
    for (page, expected) in [
        ("/daiquiri.html", vec!["Daiquiri"]),
        ("/negroni-graph.html", vec!["Negroni"]),
        ("/penicillin-sections.html", vec!["Penicillin"]),
        ("/two-recipes.html", vec!["Tom Collins", "French 75"]),
        // Five redirects, then the page.
        ("/chain/0", vec!["Daiquiri"]),
    ] {
        let url = pages.url("127.0.0.1", page);
        let (status, answer) = import(&server, &json!({ "url": url })).await;
        assert_eq!(status, StatusCode::OK, "{page}: {answer}");
        assert_eq!(names(&answer), expected, "{page}: {answer}");
        let first = recipe_of(&answer["recipes"][0]);
        assert!(
            first["ingredients"]
                .as_array()
                .is_some_and(|rows| !rows.is_empty()),
            "{page}: {first}"
        );
        let notes = first["notes"].as_str().unwrap_or_default();
        assert!(
            notes.ends_with(&format!("Source: {}", answer["source"].as_str().unwrap())),
            "{notes}"
        );
        assert!(answer["problems"].is_array(), "{answer}");
        // The sample collection has each of these drinks already, but the Penicillin.
        assert_eq!(
            answer["duplicates"][0]["existing_id"].is_u64(),
            !page.contains("penicillin"),
            "{page}: {}",
            answer["duplicates"]
        );
    }
    // No recipe on the page: a clear message.
    let (status, answer) = import(
        &server,
        &json!({"url": pages.url("127.0.0.1", "/no-recipe.html")}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(
        problem_text(&answer).to_lowercase().contains("no recipe"),
        "{answer}"
    );
    // The page's source and the JSON-LD itself, pasted.
    let html = std::fs::read_to_string(jsonld.join("daiquiri.html")).unwrap();
    let (status, answer) = import(&server, &json!({ "html": html })).await;
    assert_eq!(
        (status, names(&answer)),
        (StatusCode::OK, vec!["Daiquiri".to_owned()]),
        "{answer}"
    );
    let (status, answer) = upload(&server, "text/html", html.clone().into_bytes()).await;
    assert_eq!(
        (status, names(&answer)),
        (StatusCode::OK, vec!["Daiquiri".to_owned()]),
        "{answer}"
    );
    let script = html
        .split("application/ld+json\">")
        .nth(1)
        .and_then(|s| s.split("</script>").next())
        .unwrap()
        .to_owned();
    let (status, answer) = import(&server, &json!({ "jsonld": script })).await;
    assert_eq!(
        (status, names(&answer)),
        (StatusCode::OK, vec!["Daiquiri".to_owned()]),
        "{answer}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing was saved");
}

#[tokio::test]
async fn only_editors_import_and_only_from_the_same_origin() {
    let (_dir, path) = collection();
    let reader = Server::start(&["--recipes-file", path.to_str().unwrap(), "--allow-edits"]);
    let (status, _) = import(&reader, &json!({"html": "<p>hi</p>"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    drop(reader);
    let server = editor(&path, &[]);
    let r = client()
        .post(server.url("/api/import"))
        .header("origin", "https://evil.example")
        .header("sec-fetch-site", "cross-site")
        .json(&json!({"html": "<p>hi</p>"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let (status, answer) = upload(&server, "image/png", vec![1, 2, 3]).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{answer}");
}

fn drink(i: usize) -> Value {
    json!({"name": format!("Imported {i}"), "base": ["Gin"], "ingredients": [
        {"name": "Gin", "measure": "50", "unit": "ml"}, {"name": "Tonic", "measure": "100", "unit": "ml"}]})
}

async fn changes(server: &Server) -> Vec<Value> {
    let r = client()
        .get(server.url("/api/changes"))
        .send()
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    body["changes"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_bulk_save_is_one_change_one_undo_and_refused_whole_naming_the_recipe() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let before = libations::recipes::Recipes::from_file(&path).unwrap().len();
    let mut list: Vec<Value> = (0..5).map(drink).collect();
    list[3]["name"] = json!("");
    let r = client()
        .post(server.url("/api/recipes/bulk"))
        .headers(same_origin(&server))
        .json(&json!({ "recipes": list }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["problems"][0]["field"], "recipes[3].name", "{body}");
    assert!(changes(&server).await.is_empty());

    list[3]["name"] = json!("Imported 3");
    let r = client()
        .post(server.url("/api/recipes/bulk"))
        .headers(same_origin(&server))
        .json(&json!({ "recipes": list }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["recipes"].as_array().unwrap().len(), 5, "{body}");
    let n = body["change"]["n"].as_u64().unwrap();
    let history = changes(&server).await;
    assert_eq!(history.len(), 1, "one change");
    assert_eq!(history[0]["more"].as_array().unwrap().len(), 4);
    assert_eq!(
        libations::recipes::Recipes::from_file(&path).unwrap().len(),
        before + 5
    );
    let r = client()
        .post(server.url(&format!("/api/changes/{n}/undo")))
        .headers(same_origin(&server))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        libations::recipes::Recipes::from_file(&path).unwrap().len(),
        before
    );
    // Without the same origin, nothing.
    let r = client()
        .post(server.url("/api/recipes/bulk"))
        .json(&json!({ "recipes": [drink(9)] }))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
}

/// A Bar Assistant recipe file (its export schema) for drink `i`.
fn bar_assistant(i: usize) -> Value {
    json!({
        "_id": format!("drink-{i}"),
        "name": format!("Bulk Drink {i}"),
        "instructions": "Shake with ice and strain.",
        "garnish": "Lime wheel",
        "glass": "Coupe",
        "method": "Shake",
        "tags": ["Test"],
        "ingredients": [
            {"_id": "gin", "name": "Gin", "amount": 45, "units": "ml", "sort": 1},
            {"_id": "lime-juice", "name": "Lime juice", "amount": 20, "units": "ml", "sort": 2},
            {"_id": "simple-syrup", "name": "Simple syrup", "amount": 15, "units": "ml", "sort": 3}
        ]
    })
}

/// A folder of `n` Bar Assistant recipe files, one per cocktail (`<slug>/data.json`).
fn bar_assistant_folder(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..n {
        let folder = dir.path().join(format!("drink-{i}"));
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("data.json"), bar_assistant(i).to_string()).unwrap();
    }
    dir
}

#[tokio::test]
async fn three_hundred_bar_assistant_recipes_preview_choose_save_as_one_change_and_undo() {
    // A Bar Assistant export: a zip with a recipe file per cocktail.
    let zip = {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for i in 0..300 {
            zip.start_file(format!("cocktails/drink-{i}/data.json"), options)
                .unwrap();
            zip.write_all(bar_assistant(i).to_string().as_bytes())
                .unwrap();
        }
        zip.finish().unwrap().into_inner()
    };
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "1000"]);
    let started = std::time::Instant::now();
    let (status, preview) = upload(&server, "application/zip", zip.clone()).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let recipes = preview["recipes"].as_array().unwrap();
    assert_eq!(recipes.len(), 300);
    eprintln!("preview of 300: {:?}", started.elapsed());
    // Choose every other one.
    let chosen: Vec<Value> = recipes.iter().step_by(2).map(recipe_of).collect();
    let r = client()
        .post(server.url("/api/recipes/bulk"))
        .headers(same_origin(&server))
        .json(&json!({ "recipes": chosen }))
        .send()
        .await
        .unwrap();
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let on_disk = libations::recipes::Recipes::from_file(&path).unwrap();
    assert_eq!(
        on_disk
            .all()
            .iter()
            .filter(|r| r.name.starts_with("Bulk Drink"))
            .count(),
        150
    );
    let history = changes(&server).await;
    assert_eq!(history.len(), 1);
    // The same file again: every recipe is now a duplicate or new.
    let (_, again) = upload(&server, "application/zip", zip.clone()).await;
    assert_eq!(
        again["duplicates"].as_array().unwrap().len(),
        150,
        "{}",
        again["duplicates"]
    );
    let n = body["change"]["n"].as_u64().unwrap();
    let r = client()
        .post(server.url(&format!("/api/changes/{n}/undo")))
        .headers(same_origin(&server))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let on_disk = libations::recipes::Recipes::from_file(&path).unwrap();
    assert_eq!(
        on_disk
            .all()
            .iter()
            .filter(|r| r.name.starts_with("Bulk Drink"))
            .count(),
        0
    );
}

#[tokio::test]
async fn exports_answer_in_each_format() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let r = client()
        .get(server.url("/api/recipes/1?format=jsonld"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/ld+json");
    let r = client()
        .get(server.url("/api/recipes/1?format=markdown"))
        .send()
        .await
        .unwrap();
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/markdown")
    );
    let r = client()
        .get(server.url("/api/recipes/download?format=bar-assistant"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("recipes.bar-assistant.json")
    );
    let r = client()
        .get(server.url("/api/recipes/1?format=pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
}

#[test]
fn the_import_command_adds_a_folder_as_one_change_and_names_a_bad_file() {
    let folder = bar_assistant_folder(12);
    let (_dir, path) = collection();
    let out = std::process::Command::new(BIN)
        .arg("import")
        .arg(folder.path())
        .arg("--into")
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("added 12"), "{stdout}");
    let on_disk = libations::recipes::Recipes::from_file(&path).unwrap();
    assert_eq!(
        on_disk
            .all()
            .iter()
            .filter(|r| r.name.starts_with("Bulk Drink"))
            .count(),
        12
    );
    let journal = std::fs::read_to_string(path.with_file_name("recipes.json.journal")).unwrap();
    assert_eq!(journal.lines().count(), 1, "one change");
    // Again: all twelve are duplicates, skipped.
    let out = std::process::Command::new(BIN)
        .arg("import")
        .arg(folder.path())
        .arg("--into")
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("skipped 12"), "{stdout}");
    // A broken file: its name, and where.
    let bad = folder.path().join("broken.json");
    std::fs::write(&bad, "{\"name\": \"x\",\n \"ingredients\": [oops]}").unwrap();
    let out = std::process::Command::new(BIN)
        .arg("import")
        .arg(&bad)
        .arg("--into")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("broken.json"), "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
}

/// The value of the hidden input `name` in `html`.
fn hidden(html: &str, name: &str) -> String {
    let at = html
        .find(&format!("name=\"{name}\" value=\""))
        .unwrap_or_else(|| panic!("no {name} in the page"));
    let rest = &html[at + name.len() + 15..];
    let value = &rest[..rest.find('"').unwrap()];
    value
        .replace("&quot;", "\"")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

async fn post_form(server: &Server, path: &str, fields: &[(&str, String)]) -> reqwest::Response {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(server.url(path))
        .headers(same_origin(server))
        .form(fields)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn without_javascript_a_pasted_page_opens_the_form_and_several_recipes_a_list() {
    let Some(jsonld) = shared_data("import/jsonld") else {
        return;
    };
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let page = client()
        .get(server.url("/recipes/import"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let csrf = hidden(&page.text().await.unwrap(), "csrf");
    // One recipe: the ordinary form, filled in, posting to /recipes/new.
    let one = std::fs::read_to_string(jsonld.join("daiquiri.html")).unwrap();
    let r = post_form(
        &server,
        "/recipes/import",
        &[("csrf", csrf.clone()), ("source", one)],
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(html.contains("action=\"/recipes/new\""), "{html}");
    assert!(html.contains("value=\"Daiquiri\""), "the name is filled in");
    // Two recipes: a list to choose from; the second chosen is saved as one change.
    let two = std::fs::read_to_string(jsonld.join("two-recipes.html")).unwrap();
    let r = post_form(
        &server,
        "/recipes/import",
        &[("csrf", csrf.clone()), ("source", two)],
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert_eq!(html.matches("name=\"pick\"").count(), 2, "{html}");
    let recipes = hidden(&html, "recipes");
    let r = post_form(
        &server,
        "/recipes/import/save",
        &[
            ("csrf", csrf.clone()),
            ("recipes", recipes),
            ("pick", "1".into()),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER, "{:?}", r.text().await);
    assert!(
        r.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/changes?done=")
    );
    let names: Vec<String> = libations::recipes::Recipes::from_file(&path)
        .unwrap()
        .all()
        .iter()
        .map(|r| r.name.to_string())
        .collect();
    // The sample has both already: the list flagged them, and the one chosen is added.
    assert!(html.contains("Already here"), "duplicates flagged");
    let count = |n: &str| names.iter().filter(|x| x.as_str() == n).count();
    assert_eq!((count("French 75"), count("Tom Collins")), (2, 1));
    // A bad link says why, with what was typed kept.
    let r = post_form(
        &server,
        "/recipes/import",
        &[("csrf", csrf), ("source", "http://127.0.0.1:9/x".into())],
    )
    .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("loopback") && html.contains("http://127.0.0.1:9/x"),
        "{html}"
    );
}
