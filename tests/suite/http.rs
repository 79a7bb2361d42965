//! The real binary, over real HTTP: pages, search, API, errors, caching and compression.

use crate::common;
use crate::working;

use common::{Server, client, decode_brotli, shared_data};
use reqwest::StatusCode;
use reqwest::header;
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

async fn get(url: &str) -> reqwest::Response {
    client().get(url).send().await.expect("request")
}

async fn text(url: &str) -> String {
    let r = get(url).await;
    assert_eq!(r.status(), StatusCode::OK, "{url}");
    r.text().await.expect("body")
}

async fn api(url: &str) -> Vec<Value> {
    let r = get(url).await;
    assert_eq!(r.status(), StatusCode::OK, "{url}");
    r.json::<Vec<Value>>().await.expect("json array")
}

fn names(recipes: &[Value]) -> Vec<String> {
    recipes
        .iter()
        .map(|r| r["name"].as_str().expect("name").to_owned())
        .collect()
}

/// Names of the rows of a list page, in order (the text of each `class="name"` span).
fn page_names(html: &str) -> Vec<String> {
    html.split("<span class=\"name\">")
        .skip(1)
        .map(|s| s.split("</span>").next().unwrap_or("").to_owned())
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&#39;", "'")
        .replace("&#34;", "\"")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#38;", "&")
}

fn asset_url(html: &str, prefix: &str) -> String {
    let start = html.find(prefix).expect("asset referenced");
    let rest = &html[start..];
    rest[..rest.find('"').expect("quoted")].to_owned()
}

#[tokio::test]
async fn list_page_shows_every_sample_recipe_with_headers() {
    let server = Server::start(&[]);
    let all = api(&server.url("/api/recipes")).await;
    assert!((20..=30).contains(&all.len()));
    let r = get(&server.url("/")).await;
    assert_eq!(r.status(), StatusCode::OK);
    let h = r.headers().clone();
    assert_eq!(h[header::CONTENT_TYPE], "text/html; charset=utf-8");
    assert_eq!(h[header::CACHE_CONTROL], "no-cache");
    let csp = h[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"));
    assert_eq!(h[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    let html = r.text().await.unwrap();
    let shown: Vec<String> = page_names(&html).iter().map(|n| unescape(n)).collect();
    assert_eq!(
        shown,
        names(&all),
        "page and API list the same recipes in the same order"
    );
    assert!(html.contains(&format!("{} recipes", all.len())));
    assert!(!html.contains("<script>"), "no inline script");
    assert!(!html.contains("style="), "no inline style");
    assert!(server.log().contains(&format!(
        "loaded {} recipes from embedded sample",
        all.len()
    )));
}

#[tokio::test]
async fn list_page_etag_gives_304() {
    let server = Server::start(&[]);
    let r = get(&server.url("/")).await;
    let etag = r.headers()[header::ETAG].clone();
    assert!(etag.to_str().unwrap().starts_with('"'));
    let again = client()
        .get(server.url("/"))
        .header(header::IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn search_without_javascript() {
    let server = Server::start(&[]);
    let total = api(&server.url("/api/recipes")).await.len();
    let hits = names(&api(&server.url("/api/recipes?q=lime")).await);
    assert!(hits.len() >= 3, "lime finds several recipes: {hits:?}");
    assert!(hits.len() < total);
    let html = text(&server.url("/?q=lime")).await;
    assert!(html.contains(&format!("{} of {total}", hits.len())));
    let shown: Vec<String> = page_names(&html).iter().map(|n| unescape(n)).collect();
    assert_eq!(shown, hits);
    assert!(
        html.contains("value=\"lime\""),
        "the query stays in the box"
    );
    assert!(html.contains("id=\"empty\" hidden"));

    let mezcal = names(&api(&server.url("/api/recipes?q=mezcal+margarita")).await);
    assert_eq!(mezcal, ["Margarita (Mezcal)"]);
    let creme = names(&api(&server.url("/api/recipes?q=creme")).await);
    assert!(creme.contains(&"Kir Royale".to_owned()), "{creme:?}");
    let gin = names(&api(&server.url("/api/recipes?q=base:gin")).await);
    assert!(gin.contains(&"Negroni".to_owned()) && !gin.contains(&"Daiquiri".to_owned()));

    let none = text(&server.url("/?q=zzzzzz")).await;
    assert!(none.contains(&format!("0 of {total}")));
    assert!(none.contains("No recipe matches <q id=\"empty-q\">zzzzzz</q>"));
    assert!(!none.contains("id=\"empty\" hidden"));
    assert!(page_names(&none).is_empty());
}

#[tokio::test]
async fn recipe_page_and_api_by_id() {
    let server = Server::start(&[]);
    let all = api(&server.url("/api/recipes")).await;
    let first = &all[0];
    let id = first["id"].as_u64().unwrap();
    let html = text(&server.url(&format!("/recipes/{id}"))).await;
    assert!(unescape(&html).contains(first["name"].as_str().unwrap()));
    let one: Value = get(&server.url(&format!("/api/recipes/{id}")))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(&one, first);
    for key in [
        "id",
        "name",
        "base",
        "glass",
        "method",
        "ice",
        "ingredients",
        "garnish",
        "notes",
    ] {
        assert!(one.get(key).is_some(), "API recipe has {key}");
    }
    let missing = get(&server.url("/recipes/987654")).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert!(
        missing
            .text()
            .await
            .unwrap()
            .contains("There is no recipe with id 987654")
    );
    assert_eq!(
        get(&server.url("/recipes/abc")).await.status(),
        StatusCode::NOT_FOUND
    );
    let api_missing = get(&server.url("/api/recipes/987654")).await;
    assert_eq!(api_missing.status(), StatusCode::NOT_FOUND);
    let body: Value = api_missing.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("987654"));
}

#[tokio::test]
async fn unknown_paths_404_and_wrong_methods_405() {
    let server = Server::start(&[]);
    let r = get(&server.url("/no/such/page")).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        r.headers()[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    let html = r.text().await.unwrap();
    assert!(html.contains("<h1>Not found</h1>") && html.contains("href=\"/\""));
    for path in ["/", "/api/recipes", "/recipes/1"] {
        let r = client().post(server.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "POST {path}");
        assert!(r.headers()[header::ALLOW].to_str().unwrap().contains("GET"));
        assert!(r.text().await.unwrap().contains("Method not allowed"));
    }
    let head = client().head(server.url("/")).send().await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    let missing_asset = get(&server.url("/static/nope.css")).await;
    assert_eq!(missing_asset.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn assets_are_hashed_cached_and_compressed() {
    let server = Server::start(&[]);
    let html = text(&server.url("/")).await;
    for prefix in ["/static/app.", "/static/glasses."] {
        let url = server.url(&asset_url(&html, prefix));
        let plain = get(&url).await;
        assert_eq!(plain.status(), StatusCode::OK, "{url}");
        let h = plain.headers().clone();
        let ct = h[header::CONTENT_TYPE].to_str().unwrap().to_owned();
        assert!(
            ct.starts_with("text/css") || ct.starts_with("image/svg+xml"),
            "{ct}"
        );
        let etag = h[header::ETAG].clone();
        let identity = plain.bytes().await.unwrap();
        // Debug builds too (read at start: an edit shows once started again).
        assert_eq!(
            h[header::CACHE_CONTROL],
            "public, max-age=31536000, immutable"
        );
        let not_modified = client()
            .get(&url)
            .header(header::IF_NONE_MATCH, etag)
            .send()
            .await
            .unwrap();
        assert_eq!(not_modified.status(), StatusCode::NOT_MODIFIED);
        let br = client()
            .get(&url)
            .header(header::ACCEPT_ENCODING, "gzip, deflate, br")
            .send()
            .await
            .unwrap();
        assert_eq!(br.headers()[header::CONTENT_ENCODING], "br", "{url}");
        let body = br.bytes().await.unwrap();
        assert!(body.len() < identity.len());
        assert_eq!(decode_brotli(&body), identity.to_vec());
    }
}

/// The list page is compressed in the background after start; poll until it is.
async fn brotli_page(server: &Server, path: &str) -> (Vec<u8>, usize) {
    // Compressed in the background after start-up: until then the page is sent as it is.
    // The server stopping work (no CPU for a second) without it means it is not coming.
    // Asked once more after the server went idle: it may have finished the work between
    // the last answer and the second of idleness.
    let started = Instant::now();
    let mut idle = false;
    loop {
        let r = client()
            .get(server.url(path))
            .header(header::ACCEPT_ENCODING, "br")
            .send()
            .await
            .unwrap();
        let encoded = r.headers().get(header::CONTENT_ENCODING).cloned();
        let body = r.bytes().await.unwrap();
        if encoded.is_some_and(|e| e == "br") {
            return (decode_brotli(&body), body.len());
        }
        assert!(
            !idle && started.elapsed() < working::AT_MOST,
            "{path} was never served with brotli (idle: {idle}, after {:?})",
            started.elapsed()
        );
        idle = working::idle_for_a_second(server.pid()).await;
    }
}

#[tokio::test]
async fn list_page_brotli_decodes_to_the_same_bytes() {
    let server = Server::start(&[]);
    let identity = get(&server.url("/")).await.bytes().await.unwrap();
    let (decoded, compressed) = brotli_page(&server, "/").await;
    assert_eq!(decoded, identity.to_vec());
    assert!(
        compressed * 3 < identity.len(),
        "brotli {compressed} vs {}",
        identity.len()
    );
    let gz = client()
        .get(server.url("/"))
        .header(header::ACCEPT_ENCODING, "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gz.headers()[header::CONTENT_ENCODING], "gzip");
    let search = client()
        .get(server.url("/?q=gin"))
        .header(header::ACCEPT_ENCODING, "br")
        .send()
        .await
        .unwrap();
    assert_eq!(search.headers()[header::CONTENT_ENCODING], "br");
    let plain_search = text(&server.url("/?q=gin")).await;
    assert_eq!(
        decode_brotli(&search.bytes().await.unwrap()),
        plain_search.as_bytes()
    );
}

/// A GET with these request headers.
async fn get_with(url: &str, headers: &[(header::HeaderName, &str)]) -> reqwest::Response {
    let mut request = client().get(url);
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    request.send().await.expect("request")
}

/// Recipe pages for brotli clients are the page's own head and tail compressed per request
/// around the list compressed once, which the server makes after the list page's brotli and
/// before the JSON's: once `/api/recipes` comes in brotli, recipe pages are spliced. The
/// splice must decode to the page as sent uncompressed, under the same ETag.
#[tokio::test]
async fn recipe_pages_in_brotli_decode_to_the_same_bytes() {
    let server = Server::start(&[]);
    brotli_page(&server, "/api/recipes").await;
    let all = api(&server.url("/api/recipes")).await;
    for recipe in all.iter().take(5) {
        let url = server.url(&format!("/recipes/{}?units=oz&serves=2", recipe["id"]));
        let plain = get(&url).await;
        assert_eq!(plain.headers().get(header::CONTENT_ENCODING), None, "{url}");
        let etag = plain.headers()[header::ETAG].to_str().unwrap().to_owned();
        let identity = plain.bytes().await.unwrap();
        let br = get_with(&url, &[(header::ACCEPT_ENCODING, "gzip, deflate, br")]).await;
        assert_eq!(br.headers()[header::CONTENT_ENCODING], "br", "{url}");
        let br_etag = br.headers()[header::ETAG].to_str().unwrap().to_owned();
        assert_eq!(br_etag, format!("{}-br\"", etag.trim_end_matches('"')));
        let length = br.headers()[header::CONTENT_LENGTH]
            .to_str()
            .unwrap()
            .to_owned();
        let body = br.bytes().await.unwrap();
        assert_eq!(length, body.len().to_string(), "{url}");
        assert_eq!(decode_brotli(&body), identity.to_vec(), "{url}");
        let again = [
            (header::ACCEPT_ENCODING, "br"),
            (header::IF_NONE_MATCH, br_etag.as_str()),
        ];
        let again = get_with(&url, &again).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{url}");
    }
}

fn write_temp(contents: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::io::Write::write_all(&mut f, contents.as_bytes()).unwrap();
    f
}

#[tokio::test]
async fn recipes_file_escaping_and_modification_time() {
    let file = write_temp(
        r#"[{"id": 1, "name": "<script>alert(1)</script>", "glass": [], "ingredients": [{"name": "Gin"}]},
            {"id": 2, "name": "Plain", "base": null}]"#,
    );
    // 2021-06-15T12:00:00Z: the page must show the file's time, not the request's.
    let mtime = std::time::UNIX_EPOCH + Duration::from_secs(1_623_758_400);
    std::fs::File::options()
        .write(true)
        .open(file.path())
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let path = file.path().to_str().unwrap();
    let server = Server::start(&["--recipes-file", path]);
    let html = text(&server.url("/")).await;
    assert!(!html.contains("<script>alert(1)</script>"));
    assert!(html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"));
    assert!(html.contains("datetime=\"2021-06-15T12:00:00Z\">15 Jun 2021</time>"));
    assert!(html.contains("#glass-default"));
    assert!(
        server
            .log()
            .contains(&format!("loaded 2 recipes from {path}"))
    );
}

#[test]
fn bad_recipes_file_exits_1_before_listening() {
    let file = write_temp(
        "[{\"id\": 1, \"name\": \"A\", \"garnsh\": []},\n {\"id\": 1, \"name\": \"B\"}]",
    );
    let out = Command::new(common::BIN)
        .args(["--local", "--addr", "127.0.0.1:0", "--recipes-file"])
        .arg(file.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let path = file.path().display().to_string();
    assert!(
        err.contains(&format!(
            "{path}:1: recipe index 0 (id 1, \"A\"), field \"garnsh\""
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{path}:2: recipe index 1 (id 1, \"B\"), field \"id\""
        )),
        "{err}"
    );
    assert!(!err.contains("serving on"), "{err}");

    let missing = Command::new(common::BIN)
        .args(["--local", "--recipes-file", "/nonexistent/bar.json"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr)
            .contains("cannot read recipes file /nonexistent/bar.json")
    );

    let syntax = write_temp("[\n{\"id\": 1,, }]");
    let out = Command::new(common::BIN)
        .args(["--local", "--recipes-file"])
        .arg(syntax.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:2:", syntax.path().display())),
        "{err}"
    );
}

#[test]
fn check_command_lists_every_problem() {
    let bad = write_temp(
        "[{\"id\": 1},\n{\"name\": \"B\", \"ingredients\": [{\"unit\": \"ml\"}]},\n{\"id\": 3, \"name\": \"C\", \"notes\": 5}]",
    );
    let out = Command::new(common::BIN)
        .arg("check")
        .arg(bad.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4 problem(s) found"), "{err}");
    assert!(err.contains("field \"name\": missing"));
    assert!(err.contains("field \"id\": missing"));
    assert!(err.contains("field \"ingredients[0].name\""));
    assert!(err.contains("field \"notes\": expected a string"));

    let good = write_temp(
        r#"[{"id": 1, "name": "A", "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml"}]}]"#,
    );
    let out = Command::new(common::BIN)
        .arg("check")
        .arg(good.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The summary, then how much of it the bottles' vocabulary understands.
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(
        stdout.contains("OK, 1 recipes with 1 ingredient lines"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nvocabulary: 100.0% of 1 ingredient lines name a bottle it knows\n"),
        "{stdout}"
    );
}

#[tokio::test]
async fn flags_come_from_the_environment_and_sigterm_exits_0() {
    let file = write_temp(r#"[{"id": 5, "name": "From Env"}]"#);
    let server = Server::start_with_env(
        &[],
        &[("LIBATIONS_RECIPES_FILE", file.path().to_str().unwrap())],
    );
    let all = names(&api(&server.url("/api/recipes")).await);
    assert_eq!(all, ["From Env"]);
    let status = server.stop();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn sigterm_lets_an_in_flight_request_finish() {
    use std::io::{Read, Write};
    let Some(path) = shared_data("scale-5000.json") else {
        return;
    };
    let server = Server::start(&["--recipes-file", path.to_str().unwrap()]);
    // A big response is under way (its first bytes have arrived) when SIGTERM comes.
    let addr = server.base.trim_start_matches("http://").to_owned();
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    conn.write_all(b"GET /api/recipes?q=e HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut first = [0u8; 64];
    let n = conn.read(&mut first).unwrap();
    assert!(first[..n].starts_with(b"HTTP/1.1 200"));
    let stopping = std::thread::spawn(move || server.stop());
    let mut rest = Vec::new();
    conn.read_to_end(&mut rest).expect("the response completes");
    let mut whole = first[..n].to_vec();
    whole.extend_from_slice(&rest);
    let split = whole.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&whole[..split]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("content-length");
    let body = &whole[split + 4..];
    assert_eq!(body.len(), length, "the whole body arrived");
    let parsed: Vec<Value> = serde_json::from_slice(body).unwrap();
    assert!(parsed.len() > 1000);
    assert_eq!(stopping.join().unwrap().code(), Some(0));
}

/// A server whose log has nowhere to go (the terminal it started from closed, or the log
/// collector died) keeps answering, and still stops on SIGTERM: the failed writes of its
/// log are not allowed to take the stop down with them.
#[tokio::test]
async fn sigterm_stops_a_server_whose_log_reader_is_gone() {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut child = Command::new(common::BIN)
        .args(["--local", "--addr", "127.0.0.1:0", "--log-level", "debug"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let base = loop {
        line.clear();
        assert!(
            log.read_line(&mut line).unwrap() > 0,
            "exited before serving"
        );
        if let Some(url) = common::served_url(&line) {
            break url;
        }
    };
    drop(log);
    for _ in 0..3 {
        assert_eq!(
            get(&format!("{base}/?q=lime")).await.status(),
            StatusCode::OK
        );
    }
    let status = common::stop_child(&mut child, || "(its log has no reader)".to_owned());
    assert_eq!(status.code(), Some(0), "exit code after SIGTERM");
}

#[tokio::test]
async fn real_collections_load_list_and_search() {
    for name in ["bar-assistant.json", "iba.json", "scale-5000.json"] {
        // A missing file is logged as a skip; the others are still checked.
        let Some(path) = shared_data(name) else {
            continue;
        };
        let expected: Vec<Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let check = Command::new(common::BIN)
            .arg("check")
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            check.status.code(),
            Some(0),
            "check {name}: {}",
            String::from_utf8_lossy(&check.stderr)
        );

        let server = Server::start(&["--recipes-file", path.to_str().unwrap()]);
        let mut all = api(&server.url("/api/recipes")).await;
        assert_eq!(all.len(), expected.len(), "{name}");
        // Each recipe as the file has it, and its strength (tests/suite/strength.rs) beside it.
        for r in &mut all {
            let strength = r.as_object_mut().unwrap().remove("strength");
            assert!(
                strength.is_some_and(|s| s.is_object()),
                "{name}: a strength"
            );
        }
        let mut by_id: Vec<&Value> = all.iter().collect();
        by_id.sort_by_key(|r| r["id"].as_u64());
        let mut want: Vec<&Value> = expected.iter().collect();
        want.sort_by_key(|r| r["id"].as_u64());
        assert_eq!(
            by_id, want,
            "{name}: the API returns the file's data unchanged"
        );

        let html = text(&server.url("/")).await;
        assert_eq!(page_names(&html).len(), expected.len(), "{name}");
        assert!(html.contains(&format!("{} recipes", expected.len())));

        for q in ["gin", "lime", "base:rum", "\"lemon juice\"", "glass:coup"] {
            let hits = names(&api(&server.url(&format!("/api/recipes?q={}", urlencode(q)))).await);
            let page = text(&server.url(&format!("/?q={}", urlencode(q)))).await;
            let shown: Vec<String> = page_names(&page).iter().map(|n| unescape(n)).collect();
            assert_eq!(shown, hits, "{name}: page and API agree for {q}");
            assert!(page.contains(&format!("{} of {}", hits.len(), expected.len())));
        }
        let gin = names(&api(&server.url("/api/recipes?q=gin")).await);
        assert!(!gin.is_empty(), "{name}: gin finds something");
    }
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b' ' => "+".into(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// As the NixOS unit runs it: files by credential name from $CREDENTIALS_DIRECTORY.
#[tokio::test]
async fn credentials_directory_as_systemd_hands_it_over() {
    let creds = tempfile::tempdir().unwrap();
    std::fs::write(
        creds.path().join("recipes.json"),
        r#"[{"id": 1, "name": "From A Credential"}]"#,
    )
    .unwrap();
    let dir = creds.path().to_str().unwrap();
    let server = Server::start_with_env(
        &["--recipes-file", "recipes.json"],
        &[("CREDENTIALS_DIRECTORY", dir), ("STATE_DIRECTORY", dir)],
    );
    let names = names(&api(&server.url("/api/recipes")).await);
    assert_eq!(names, ["From A Credential"]);
    assert_eq!(server.stop().code(), Some(0));

    // A credential the unit forgot to load: a clear error, exit 1, nothing served.
    let out = Command::new(common::BIN)
        .args([
            "--local",
            "--addr",
            "127.0.0.1:0",
            "--recipes-file",
            "missing.json",
        ])
        .env("CREDENTIALS_DIRECTORY", dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("credential \"missing.json\" is not in $CREDENTIALS_DIRECTORY"),
        "{err}"
    );
    assert!(err.contains("LoadCredential=missing.json:"), "{err}");

    // Same for the auth key in tailnet mode: refused before the node starts.
    if !cfg!(feature = "tailnet") {
        return;
    }
    std::fs::write(creds.path().join("auth-key"), "").unwrap();
    let state = tempfile::tempdir().unwrap();
    for (key_name, message) in [
        (
            "nope",
            "credential \"nope\" is not in $CREDENTIALS_DIRECTORY",
        ),
        ("auth-key", "auth key file"),
    ] {
        let out = Command::new(common::BIN)
            .args(["--auth-key-file", key_name, "--state-dir"])
            .arg(state.path())
            .env("CREDENTIALS_DIRECTORY", dir)
            .env("TS_NO_LOGS_NO_SUPPORT", "true")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{key_name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{key_name}: {err}");
    }
}

/// The `td.amount` texts of a recipe page, in order.
fn amounts(html: &str) -> Vec<String> {
    html.split("<td class=\"amount\"")
        .skip(1)
        .map(|s| {
            let cell = s.split("</td>").next().unwrap_or("");
            cell.split_once('>').map_or("", |(_, text)| text).to_owned()
        })
        .collect()
}

#[tokio::test]
async fn recipe_pages_convert_and_scale_without_javascript() {
    let server = Server::start(&[]);
    // Negroni in the sample: 25 ml each of gin, Campari and sweet vermouth.
    let negroni = api(&server.url("/api/recipes?q=name:negroni")).await;
    let id = negroni[0]["id"].as_u64().expect("id");
    let page = |query: &str| server.url(&format!("/recipes/{id}{query}"));
    assert_eq!(amounts(&text(&page("")).await), ["25 ml"; 3]);
    assert_eq!(amounts(&text(&page("?units=oz")).await), ["¾ oz"; 3]);
    assert_eq!(
        amounts(&text(&page("?units=cl&serves=2")).await),
        ["5 cl"; 3]
    );
    assert_eq!(amounts(&text(&page("?serves=4")).await), ["100 ml"; 3]);
    let html = text(&page("?units=oz&serves=8")).await;
    assert_eq!(amounts(&html), ["6¾ oz"; 3]);
    // The current unit links back to the file's units; the choices keep each other.
    assert!(
        html.contains(&format!(
            "href=\"/recipes/{id}?serves=8\" data-units=\"oz\" aria-current=\"true\""
        )),
        "{html}"
    );
    assert!(html.contains(&format!(
        "href=\"/recipes/{id}?units=oz&#38;serves=4\" data-serves=\"4\""
    )));
    for (query, field) in [
        ("?units=gallons", "units must be ml, oz or cl"),
        ("?serves=0", "serves must be a whole number from 1 to 100"),
        ("?serves=101", "serves must be a whole number from 1 to 100"),
        ("?serves=2.5", "serves must be a whole number from 1 to 100"),
        ("?units=oz&units=ml", "duplicate field `units`"),
    ] {
        let response = get(&page(query)).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{query}");
        assert!(
            response.text().await.expect("body").contains(field),
            "{query}"
        );
    }
}

#[tokio::test]
async fn shelf_page_and_ingredients_api() {
    let server = Server::start(&[]);
    let list: Vec<Value> = api(&server.url("/api/ingredients")).await;
    let keys: Vec<&str> = list
        .iter()
        .map(|i| i["key"].as_str().expect("key"))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(keys, sorted, "sorted and distinct");
    let lime = list
        .iter()
        .find(|i| i["key"] == "lime juice")
        .expect("lime juice");
    let sample: Vec<Value> = serde_json::from_str(libations::recipes::SAMPLE_JSON).expect("sample");
    let uses = sample
        .iter()
        .filter(|r| {
            r["ingredients"].as_array().expect("list").iter().any(|i| {
                libations::ingredients::key(i["name"].as_str().expect("name")) == "lime juice"
            })
        })
        .count();
    assert!(uses > 1);
    assert_eq!(lime["recipes"].as_u64(), Some(uses as u64));
    let html = unescape(&text(&server.url("/shelf")).await);
    let mut once = 0;
    for i in &list {
        let key = i["key"].as_str().expect("key");
        let name = i["name"].as_str().expect("name");
        // Offered as a bottle of its own, or as the collection's spelling under the bottle
        // it means (the picker groups spellings: "as “Sugar Syrup”" under Simple syrup).
        let own = html.contains(&format!("value=\"{key}\""));
        let spelled = html.contains(&format!("“{name}”"));
        assert_eq!(
            own || spelled,
            i["staple"] == false,
            "{key}: staples are not offered, everything else is"
        );
        // A bottle no other spelling reads as says how many recipes use it, in words
        // that agree.
        let n = i["recipes"].as_u64().expect("recipes");
        let word = if n == 1 { "recipe" } else { "recipes" };
        let uses = format!("value=\"{key}\"> <span class=\"name\">");
        let line = html
            .split(&uses)
            .nth(1)
            .and_then(|rest| rest.split("</li>").next());
        if let Some(line) = line.filter(|l| !l.contains('“')) {
            assert!(
                line.contains(&format!("<span class=\"uses\">{n} {word}</span>")),
                "{key}: {line}"
            );
            once += usize::from(n == 1);
        }
    }
    assert!(once > 0, "the sample has ingredients one recipe uses");
    assert!(
        html.contains("<summary><span class=\"kind-name\">Spirits</span>"),
        "grouped by kind"
    );
    assert!(html.contains("30 ml = 1 oz"));
    let worker = text(&server.url("/sw.js")).await;
    assert!(worker.contains("\"/shelf\"") && worker.contains("\"/api/ingredients\""));
}

#[tokio::test]
async fn personal_terms_are_left_out_without_a_person() {
    let server = Server::start(&[]);
    let gin = api(&server.url("/api/recipes?q=gin")).await;
    let both = api(&server.url("/api/recipes?q=gin%20can:make%20is:fav")).await;
    assert_eq!(names(&both), names(&gin));
    let rated = api(&server.url("/api/recipes?q=gin%20rating:%3E%3D4%20made:never")).await;
    assert_eq!(names(&rated), names(&gin));
    let html = text(&server.url("/?q=gin+can:make+rating:<3")).await;
    let note = html.split("id=\"device-note\">").nth(1).unwrap_or("");
    assert!(
        note.starts_with("can:make rating:&#60;3 answers"),
        "the note names them: {note:.80}"
    );
    assert_eq!(page_names(&html).len(), gin.len());
    assert!(html.contains("id=\"device-note\""));
    assert!(
        !text(&server.url("/?q=gin"))
            .await
            .contains("id=\"device-note\"")
    );
}

#[tokio::test]
async fn whoami_with_a_local_identity_and_access_log() {
    // The default: a local user, no grants.
    let server = Server::start(&[]);
    let me: Value = get(&server.url("/api/whoami")).await.json().await.unwrap();
    assert_eq!(me["known"], true);
    assert_eq!(me["login"], "you@local");
    assert_eq!(me["capabilities"]["edit"], false);
    drop(server);

    let server = Server::start(&[
        "--local-identity",
        "alice@example.com",
        "--local-edit",
        "--access-log",
    ]);
    let response = get(&server.url("/api/whoami")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "private, no-store"
    );
    assert!(
        response.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .contains("script-src 'self'")
    );
    let me: Value = response.json().await.unwrap();
    assert_eq!(me["login"], "alice@example.com");
    assert_eq!(me["display_name"], "alice");
    assert_eq!(me["node"], "local");
    assert_eq!(me["label"], "alice \u{b7} local");
    assert_eq!(me["capabilities"]["edit"], true);
    // The page has the place the name goes (app.js fills it from /api/whoami).
    let page = text(&server.url("/")).await;
    assert!(page.contains(r#"<span class="who" id="who" hidden></span>"#));
    // One access-log line per request, with the login and without the query.
    let _ = get(&server.url("/?q=secret+gin")).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    let line = loop {
        let log = server.log();
        if let Some(line) = log
            .lines()
            .find(|l| l.contains("libations::access") && l.contains("path=/ "))
        {
            break line.to_owned();
        }
        assert!(Instant::now() < deadline, "no access-log line:\n{log}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(line.contains("login=alice@example.com"), "{line}");
    assert!(line.contains("status=200"), "{line}");
    assert!(line.contains("method=GET"), "{line}");
    assert!(!line.contains("secret"), "{line}");
    assert!(
        server.log().lines().any(|l| l.contains("path=/api/whoami")),
        "{}",
        server.log()
    );
}

#[test]
fn bad_identity_flags_are_refused_with_a_clear_error() {
    let out = Command::new(common::BIN)
        .args(["--local", "--addr", "127.0.0.1:0", "--local-identity", " "])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--local-identity"));
    let out = Command::new(common::BIN)
        .args([
            "--local",
            "--addr",
            "127.0.0.1:0",
            "--app-capability",
            "tailscale.com/cap/libations",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tailscale.com/cap/libations"), "{err}");
}
