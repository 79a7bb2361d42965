//! Adding, editing, deleting and undoing recipes over HTTP, against the real binary with a
//! recipes file in a temporary directory: the JSON API, the plain-HTML forms, who may
//! write, cross-site protection, limits, and the file on disk after every step.

use crate::common;

use common::{Server, client, collection, editor, same_origin};
use libations::recipes::Recipes;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::Path;

fn gimlet() -> Value {
    json!({
        "name": "Test Gimlet",
        "base": ["Gin"],
        "glass": ["Coupe"],
        "method": ["Shake"],
        "ingredients": [
            {"name": "Gin", "measure": "50", "unit": "ml"},
            {"name": "Lime Juice", "measure": "20", "unit": "ml"},
            {"name": "Sugar Syrup", "measure": "15", "unit": "ml"}
        ],
        "garnish": ["Lime wheel"],
        "notes": "Shake hard."
    })
}

async fn post(server: &Server, path: &str, body: &Value) -> reqwest::Response {
    client()
        .post(server.url(path))
        .headers(same_origin(server))
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn put(server: &Server, id: u64, etag: &str, body: &Value) -> reqwest::Response {
    client()
        .put(server.url(&format!("/api/recipes/{id}")))
        .headers(same_origin(server))
        .header("if-match", etag)
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn delete(server: &Server, id: u64, etag: &str) -> reqwest::Response {
    client()
        .delete(server.url(&format!("/api/recipes/{id}")))
        .headers(same_origin(server))
        .header("if-match", etag)
        .send()
        .await
        .unwrap()
}

async fn get(server: &Server, path: &str) -> reqwest::Response {
    client().get(server.url(path)).send().await.unwrap()
}

/// Posts an HTML form as a page of the app's own would.
async fn post_form(server: &Server, path: &str, fields: &[(String, String)]) -> reqwest::Response {
    client()
        .post(server.url(path))
        .headers(same_origin(server))
        .form(fields)
        .send()
        .await
        .unwrap()
}

fn etag(r: &reqwest::Response) -> String {
    r.headers()["etag"].to_str().unwrap().to_owned()
}

/// The file on disk loads, is pretty-printed with a final newline, and holds exactly the
/// recipes the API serves.
async fn disk_matches_api(server: &Server, path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.starts_with("[\n  {\n    \"id\": "),
        "not pretty: {}",
        &text[..40.min(text.len())]
    );
    assert!(text.ends_with("}\n]\n"), "no final newline");
    let on_disk = Recipes::from_file(path).expect("the file on disk loads");
    let served: Vec<Value> = get(server, "/api/recipes").await.json().await.unwrap();
    let mut disk: Vec<Value> = on_disk
        .all()
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    let mut api = served;
    // Each served recipe also carries its strength (tests/suite/strength.rs); the rest is the file's.
    for r in &mut api {
        assert!(r.as_object_mut().unwrap().remove("strength").is_some());
    }
    let by_id = |v: &Value| v["id"].as_u64().unwrap();
    disk.sort_by_key(by_id);
    api.sort_by_key(by_id);
    assert_eq!(disk, api, "the file on disk and /api/recipes differ");
}

#[tokio::test]
async fn create_edit_delete_and_undo_through_the_api_keep_the_file_true() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);

    // Create: 201, a new id, its ETag, and the search finds it at once.
    let r = post(&server, "/api/recipes", &gimlet()).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let created_tag = etag(&r);
    let body: Value = r.json().await.unwrap();
    let id = body["recipe"]["id"].as_u64().unwrap();
    assert_eq!(location, format!("/recipes/{id}"));
    let sample_max = Recipes::sample()
        .unwrap()
        .all()
        .iter()
        .map(|r| r.id)
        .max()
        .unwrap();
    assert_eq!(id, sample_max + 1);
    let found: Vec<Value> = get(&server, "/api/recipes?q=test+gimlet")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["ingredients"].as_array().unwrap().len(), 3);
    let page = get(&server, &location).await.text().await.unwrap();
    assert!(page.contains("Test Gimlet") && page.contains("Shake hard."));
    disk_matches_api(&server, &path).await;

    // The ETag of GET /api/recipes/{id} is the version to send back.
    let r = get(&server, &format!("/api/recipes/{id}")).await;
    assert_eq!(etag(&r), created_tag);

    // Edit with the right version: 200, a new version.
    let mut changed = gimlet();
    changed["notes"] = json!("Shake very hard.");
    let r = put(&server, id, &created_tag, &changed).await;
    assert_eq!(r.status(), StatusCode::OK);
    let edited_tag = etag(&r);
    assert_ne!(edited_tag, created_tag);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["change"]["fields"], json!(["notes"]));
    disk_matches_api(&server, &path).await;

    // Edit with the old version: 409 with both versions, nothing written.
    let before = std::fs::read(&path).unwrap();
    let mut stale = gimlet();
    stale["name"] = json!("Stale Gimlet");
    let r = put(&server, id, &created_tag, &stale).await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let conflict: Value = r.json().await.unwrap();
    assert_eq!(conflict["conflict"]["current"]["notes"], "Shake very hard.");
    assert_eq!(conflict["conflict"]["yours"]["name"], "Stale Gimlet");
    assert_eq!(
        format!(
            "\"{}\"",
            conflict["conflict"]["current_version"].as_str().unwrap()
        ),
        edited_tag
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // Stale and invalid: a 422 naming the problem, not the 409 (the recipe is checked
    // before its version; once fixed, the conflict above); nothing written.
    let mut both = stale.clone();
    both["name"] = json!(" ");
    let r = put(&server, id, &created_tag, &both).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused: Value = r.json().await.unwrap();
    assert_eq!(refused["problems"][0]["field"], "name", "{refused}");
    assert!(refused.get("conflict").is_none(), "{refused}");
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // Without If-Match: 428.
    let r = client()
        .put(server.url(&format!("/api/recipes/{id}")))
        .headers(same_origin(&server))
        .json(&changed)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PRECONDITION_REQUIRED);

    // Delete, then it is gone everywhere.
    let r = delete(&server, id, &edited_tag).await;
    assert_eq!(r.status(), StatusCode::OK);
    let deleted: Value = r.json().await.unwrap();
    let n = deleted["change"]["n"].as_u64().unwrap();
    assert_eq!(
        get(&server, &format!("/api/recipes/{id}")).await.status(),
        StatusCode::NOT_FOUND
    );
    let found: Vec<Value> = get(&server, "/api/recipes?q=test+gimlet")
        .await
        .json()
        .await
        .unwrap();
    assert!(found.is_empty());
    disk_matches_api(&server, &path).await;
    // Saving an edit of it now: a conflict saying it is gone, with what was sent.
    let r = put(&server, id, &edited_tag, &changed).await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let gone: Value = r.json().await.unwrap();
    assert!(gone["conflict"]["current"].is_null(), "{gone}");
    assert_eq!(gone["conflict"]["yours"]["notes"], "Shake very hard.");

    // The history, newest first, and undo of the delete brings it back with its id.
    let changes: Value = get(&server, "/api/changes").await.json().await.unwrap();
    let actions: Vec<&str> = changes["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["deleted", "changed", "created"]);
    assert_eq!(changes["changes"][0]["who"], "you@local");
    let r = post(&server, &format!("/api/changes/{n}/undo"), &json!({})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let back: Value = get(&server, &format!("/api/recipes/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(back["notes"], "Shake very hard.");
    disk_matches_api(&server, &path).await;

    // The download is the file.
    let r = get(&server, "/api/recipes/download").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("attachment")
    );
    assert_eq!(r.bytes().await.unwrap(), std::fs::read(&path).unwrap());
}

#[tokio::test]
async fn ids_are_never_reused_even_after_a_restart() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let r = post(&server, "/api/recipes", &gimlet()).await;
    let tag = etag(&r);
    let first: Value = r.json().await.unwrap();
    let first = first["recipe"]["id"].as_u64().unwrap();
    assert_eq!(delete(&server, first, &tag).await.status(), StatusCode::OK);
    drop(server);
    let server = editor(&path, &[]);
    let r = post(&server, "/api/recipes", &gimlet()).await;
    let second: Value = r.json().await.unwrap();
    assert_eq!(second["recipe"]["id"].as_u64().unwrap(), first + 1);
}

#[tokio::test]
async fn every_validation_problem_is_named_and_nothing_is_saved() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let before = std::fs::read(&path).unwrap();
    let bad = json!({
        "name": "",
        "colour": "red",
        "glass": "Coupe",
        "ingredients": [{"measure": "1"}],
        "notes": "n".repeat(5001),
    });
    let r = post(&server, "/api/recipes", &bad).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = r.json().await.unwrap();
    let fields: Vec<&str> = body["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect();
    for field in ["name", "colour", "glass", "ingredients[0].name"] {
        assert!(fields.contains(&field), "{field} not named: {body}");
    }
    let r = post(
        &server,
        "/api/recipes",
        &json!({"name": "Long notes", "notes": "n".repeat(5001)}),
    )
    .await;
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["problems"][0]["field"], "notes", "{body}");
    // A measure that is no amount is named by its row, never saved as nothing; amounts
    // by eye ("few") and ranges are amounts.
    let r = post(
        &server,
        "/api/recipes",
        &json!({"name": "Sixty Gin", "ingredients": [
            {"name": "Bitters", "measure": "few", "unit": "dash"},
            {"name": "Gin", "measure": "sixty", "unit": "ml"},
            {"name": "Lime", "measure": "1-2", "unit": "wedge"}]}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["problems"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(
        body["problems"][0]["field"], "ingredients[1].measure",
        "{body}"
    );
    assert!(
        body["problems"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("\u{201c}sixty\u{201d} is not an amount")
    );
    // Not JSON at all.
    let r = client()
        .post(server.url("/api/recipes"))
        .headers(same_origin(&server))
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(
        r.text().await.unwrap().contains("line 1"),
        "a JSON error names where"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn who_may_write_is_decided_by_the_capability_and_the_switch() {
    let (_dir, path) = collection();
    let file = path.to_str().unwrap();
    let before = std::fs::read(&path).unwrap();

    // --allow-edits, but this visitor has no edit grant: 403 with a reason, no controls.
    let server = Server::start(&["--recipes-file", file, "--allow-edits"]);
    let r = post(&server, "/api/recipes", &gimlet()).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let body: Value = r.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("edit"), "{body}");
    let page = get(&server, "/recipes/1").await.text().await.unwrap();
    assert!(
        !page.contains("/recipes/1/edit"),
        "edit controls shown to a non-editor"
    );
    assert_eq!(
        get(&server, "/recipes/new").await.status(),
        StatusCode::FORBIDDEN
    );
    let history = get(&server, "/changes").await.text().await.unwrap();
    assert!(
        history.contains("Only the people who may edit recipes can do that"),
        "the history says why, in words"
    );
    assert!(
        !history.contains("{&quot;") && !history.contains("under the app&#x27;s capability"),
        "not in the tailnet policy's JSON"
    );
    assert!(
        !history.contains("/undo"),
        "no undo buttons for a non-editor"
    );
    drop(server);

    // A grant, but editing not switched on: read-only, 405 as before, naming the flag.
    let server = Server::start(&["--recipes-file", file, "--local-edit"]);
    let r = post(&server, "/api/recipes", &gimlet()).await;
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("--allow-edits"),
        "{body}"
    );
    drop(server);

    // An editor sees the controls.
    let server = editor(&path, &[]);
    let page = get(&server, "/recipes/1").await.text().await.unwrap();
    assert!(
        page.contains("/recipes/1/edit"),
        "no edit link for an editor"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn a_file_that_cannot_be_written_turns_editing_off_and_says_how_to_fix_it() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path) = collection();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let server = editor(&path, &[]);
    let r = post(&server, "/api/recipes", &gimlet()).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let log = server.log();
    assert!(
        log.contains("editing is off") && log.contains("recipes.json"),
        "{log}"
    );
    // The page says it too, to the editor: not only the log.
    let page = get(&server, "/recipes/1").await.text().await.unwrap();
    let notice = page
        .split("<p class=\"notice editing-off\" role=\"note\">")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .unwrap_or_else(|| panic!("no notice on the page: {page}"));
    assert!(
        notice.starts_with("Editing is off: ") && notice.contains("recipes.json"),
        "{notice}"
    );
    assert!(!page.contains("href=\"/recipes/1/edit\""));
    // Not to a visitor who may not edit anyway.
    let file = path.to_str().unwrap();
    let reader = Server::start(&["--recipes-file", file, "--allow-edits"]);
    let page = get(&reader, "/recipes/1").await.text().await.unwrap();
    assert!(!page.contains("editing-off"), "{page}");

    // The embedded sample cannot be edited either, and the log says to give a file.
    let server = Server::start(&["--allow-edits", "--local-edit"]);
    assert_eq!(
        post(&server, "/api/recipes", &gimlet()).await.status(),
        StatusCode::FORBIDDEN
    );
    assert!(server.log().contains("--recipes-file"), "{}", server.log());
    let page = get(&server, "/recipes/1").await.text().await.unwrap();
    assert!(
        page.contains("Editing is off: ") && page.contains("--recipes-file"),
        "{page}"
    );
}

#[tokio::test]
async fn cross_site_writes_and_simple_requests_are_refused() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let before = std::fs::read(&path).unwrap();
    let attempt =
        |origin: Option<&'static str>, site: Option<&'static str>, ctype: &'static str| {
            let mut req = client()
                .post(server.url("/api/recipes"))
                .header("content-type", ctype);
            if let Some(o) = origin {
                req = req.header("origin", o);
            }
            if let Some(s) = site {
                req = req.header("sec-fetch-site", s);
            }
            req.body(gimlet().to_string()).send()
        };
    // Another site's page, by Origin or by Sec-Fetch-Site.
    let r = attempt(Some("https://evil.example"), None, "application/json")
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = attempt(None, Some("cross-site"), "application/json")
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = attempt(
        Some(Box::leak(server.base.clone().into_boxed_str())),
        Some("same-site"),
        "application/json",
    )
    .await
    .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::FORBIDDEN,
        "same-site is another origin"
    );
    // A simple (form-like) request to the JSON API: 415.
    let r = attempt(
        Some(Box::leak(server.base.clone().into_boxed_str())),
        Some("same-origin"),
        "text/plain",
    )
    .await
    .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // The HTML form without its token: 403.
    let r = client()
        .post(server.url("/recipes/new"))
        .headers(same_origin(&server))
        .form(&[("name", "Forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn write_bodies_have_their_own_limit() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let mut big = gimlet();
    big["notes"] = json!("n".repeat(300 * 1024));
    let r = post(&server, "/api/recipes", &big).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // A body far over the 1 KiB read limit but under 64 KiB is fine.
    let mut long = gimlet();
    long["notes"] = json!("n".repeat(4000));
    assert_eq!(
        post(&server, "/api/recipes", &long).await.status(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn writes_are_rate_limited_per_visitor() {
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "2"]);
    for n in 0..2 {
        let mut recipe = gimlet();
        recipe["name"] = json!(format!("Test Gimlet {n}"));
        assert_eq!(
            post(&server, "/api/recipes", &recipe).await.status(),
            StatusCode::CREATED
        );
    }
    let r = post(&server, "/api/recipes", &gimlet()).await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
}

#[tokio::test]
async fn the_plain_html_form_adds_edits_and_reports_problems_without_javascript() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let form = get(&server, "/recipes/new").await;
    assert_eq!(form.status(), StatusCode::OK);
    let html = form.text().await.unwrap();
    for field in [
        "name=\"name\"",
        "name=\"base\"",
        "name=\"glass\"",
        "name=\"ing-name\"",
        "name=\"ing-measure\"",
        "name=\"ing-unit\"",
        "name=\"notes\"",
    ] {
        assert!(html.contains(field), "{field} missing from the form");
    }
    let hidden = common::hidden_inputs(&html);
    assert!(
        hidden.iter().any(|(n, _)| n == "csrf"),
        "no token in {hidden:?}"
    );

    // A problem: the page comes back with the message next to the field, nothing saved.
    let mut fields = hidden.clone();
    fields.extend(
        [
            ("name", ""),
            ("base", "Gin"),
            ("ing-name", "Gin"),
            ("ing-measure", "50"),
            ("ing-unit", "ml"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned())),
    );
    let r = post_form(&server, "/recipes/new", &fields).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = r.text().await.unwrap();
    assert!(
        page.contains("id=\"name-error\""),
        "the name's problem is not next to it"
    );
    assert!(page.contains("value=\"50\""), "what was typed is kept");

    // Three ingredients, blank rows ignored, lists one per line: saved, then shown.
    let mut fields = hidden.clone();
    for (k, v) in [
        ("name", "Form Southside"),
        ("base", "Gin"),
        ("glass", "Coupe"),
        ("method", "Shake"),
        ("garnish", "Mint sprig\r\nLime wheel"),
        ("ing-name", "Gin"),
        ("ing-measure", "50"),
        ("ing-unit", "ml"),
        ("ing-name", "Lime Juice"),
        ("ing-measure", "25"),
        ("ing-unit", "ml"),
        ("ing-name", "Mint"),
        ("ing-measure", "6"),
        ("ing-unit", "leaves"),
        ("ing-name", ""),
        ("ing-measure", ""),
        ("ing-unit", ""),
        ("notes", "<b>not bold</b>"),
    ] {
        fields.push((k.to_owned(), v.to_owned()));
    }
    let r = post_form(&server, "/recipes/new", &fields).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let id: u64 = location
        .trim_start_matches("/recipes/")
        .split('?')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let recipe: Value = get(&server, &format!("/api/recipes/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(recipe["garnish"], json!(["Mint sprig", "Lime wheel"]));
    assert_eq!(recipe["ingredients"].as_array().unwrap().len(), 3);
    let page = get(&server, &location).await.text().await.unwrap();
    assert!(
        page.contains("not bold") && !page.contains("<b>not bold</b>"),
        "notes not escaped"
    );
    assert!(page.contains("Undo"), "no undo after a save");

    // Edit through the form: the version travels in a hidden field.
    let html = get(&server, &format!("/recipes/{id}/edit"))
        .await
        .text()
        .await
        .unwrap();
    let hidden = common::hidden_inputs(&html);
    assert!(hidden.iter().any(|(n, _)| n == "version"));
    let mut fields = hidden.clone();
    for (k, v) in [
        ("name", "Form Southside No. 2"),
        ("base", "Gin"),
        ("ing-name", "Gin"),
        ("ing-measure", "60"),
        ("ing-unit", "ml"),
    ] {
        fields.push((k.to_owned(), v.to_owned()));
    }
    let r = post_form(&server, &format!("/recipes/{id}/edit"), &fields).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    // The same stale form again: a conflict page showing both versions.
    let r = post_form(&server, &format!("/recipes/{id}/edit"), &fields).await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let page = r.text().await.unwrap();
    assert!(
        page.contains("Form Southside No. 2"),
        "the current version is shown"
    );
    // Stale with its name emptied: the problem first (422, the form as typed), no conflict.
    let mut blank = fields.clone();
    blank.retain(|(k, _)| k != "name");
    blank.push(("name".to_owned(), String::new()));
    let r = post_form(&server, &format!("/recipes/{id}/edit"), &blank).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = r.text().await.unwrap();
    assert!(
        page.contains("One thing to fix:") && !page.contains("while you were editing"),
        "the problem, not the conflict"
    );
    assert!(
        page.contains(r#"name="ing-measure" value="60""#),
        "as typed"
    );

    // Recent changes lists all of it, escaped, with undo buttons.
    let page = get(&server, "/changes").await.text().await.unwrap();
    assert!(
        page.contains("Form Southside No. 2") && page.contains("/undo"),
        "{page}"
    );
    disk_matches_api(&server, &path).await;
}

#[tokio::test]
async fn a_missing_file_is_seeded_once_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("recipes.json");
    std::fs::create_dir(path.parent().unwrap()).unwrap();
    let seed = dir.path().join("seed.json");
    std::fs::write(&seed, r#"[{"id": 9, "name": "Seeded Sour"}]"#).unwrap();
    let file = path.to_str().unwrap();
    let args = [
        "--recipes-file",
        file,
        "--allow-edits",
        "--local-edit",
        "--seed-recipes-file",
        seed.to_str().unwrap(),
    ];
    let server = Server::start(&args);
    let all: Vec<Value> = get(&server, "/api/recipes").await.json().await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(
        post(&server, "/api/recipes", &gimlet()).await.status(),
        StatusCode::CREATED
    );
    drop(server);
    // A restart (a later deploy) keeps the edited collection.
    let server = Server::start(&args);
    let all: Vec<Value> = get(&server, "/api/recipes").await.json().await.unwrap();
    assert_eq!(all.len(), 2);
}

#[test]
fn every_recipe_of_the_real_collections_fits_the_caps() {
    for name in ["iba.json", "bar-assistant.json", "scale-5000.json"] {
        // A missing file is logged as a skip; the others are still checked.
        let Some(path) = common::shared_data(name) else {
            continue;
        };
        let recipes = Recipes::from_file(&path).unwrap();
        for r in recipes.all() {
            let over = libations::store::caps::over_caps(r);
            assert!(over.is_empty(), "{name}: {} ({}) {over:?}", r.name, r.id);
        }
    }
}

/// A recipe page for `coding`, with `If-None-Match: tag` when given.
async fn page_in(
    server: &Server,
    path: &str,
    coding: &str,
    tag: Option<&str>,
) -> reqwest::Response {
    let mut request = client()
        .get(server.url(path))
        .header("accept-encoding", coding);
    if let Some(tag) = tag {
        request = request.header("if-none-match", tag);
    }
    request.send().await.unwrap()
}

/// A recipe page's ETag is made of its parts' hashes (the list's once per collection), not
/// of its whole text: it must still change with everything on the page. In every coding:
/// a 304 for the page as it is; a new ETag (and a 200) once another recipe is saved (the
/// list beside it changes), once the recipe itself is, and for other units and servings.
#[tokio::test]
async fn a_recipe_pages_etag_changes_when_the_list_or_the_recipe_is_saved() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let all: Vec<Value> = get(&server, "/api/recipes").await.json().await.unwrap();
    let (mine, other) = (
        all[0]["id"].as_u64().unwrap(),
        all[1]["id"].as_u64().unwrap(),
    );
    let page = format!("/recipes/{mine}");
    let codings = ["br", "gzip", "identity"];
    let mut tags = Vec::new();
    for coding in codings {
        let r = page_in(&server, &page, coding, None).await;
        assert_eq!(r.status(), StatusCode::OK);
        let tag = etag(&r);
        let again = page_in(&server, &page, coding, Some(&tag)).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{coding}");
        let scaled = page_in(&server, &format!("{page}?units=oz&serves=2"), coding, None).await;
        assert_ne!(etag(&scaled), tag, "{coding}: units and servings");
        let servings = page_in(&server, &format!("{page}?serves=3"), coding, None).await;
        assert_ne!(etag(&servings), tag, "{coding}: servings");
        tags.push(tag);
    }

    // Another recipe renamed: the list beside this recipe shows the new name.
    let r = get(&server, &format!("/api/recipes/{other}")).await;
    let version = etag(&r);
    let mut renamed: Value = r.json().await.unwrap();
    renamed["name"] = json!("Renamed Elsewhere");
    let r = put(&server, other, &version, &renamed).await;
    assert_eq!(r.status(), StatusCode::OK);
    for (coding, tag) in codings.iter().zip(&mut tags) {
        let r = page_in(&server, &page, coding, Some(tag)).await;
        assert_eq!(r.status(), StatusCode::OK, "{coding}: the list changed");
        assert_ne!(&etag(&r), tag, "{coding}");
        *tag = etag(&r);
    }
    let text = get(&server, &page).await.text().await.unwrap();
    assert!(text.contains("Renamed Elsewhere"));

    // The recipe itself changed.
    let r = get(&server, &format!("/api/recipes/{mine}")).await;
    let version = etag(&r);
    let mut changed: Value = r.json().await.unwrap();
    changed["notes"] = json!("Stirred, never shaken.");
    let r = put(&server, mine, &version, &changed).await;
    assert_eq!(r.status(), StatusCode::OK);
    for (coding, tag) in codings.iter().zip(&tags) {
        let r = page_in(&server, &page, coding, Some(tag)).await;
        assert_eq!(r.status(), StatusCode::OK, "{coding}: the recipe changed");
        assert_ne!(&etag(&r), tag, "{coding}");
    }
}

#[tokio::test]
async fn the_form_takes_a_list_as_an_input_per_entry_and_refuses_too_many() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let html = get(&server, "/recipes/new").await.text().await.unwrap();
    let hidden = common::hidden_inputs(&html);
    let with = |more: &[(&str, &str)]| {
        let mut fields = hidden.clone();
        fields.extend(more.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        fields
    };
    // The glass, a second one, and the blank one the form shows to add another.
    let fields = with(&[
        ("name", "Two Glass Sour"),
        ("glass", "Coupe"),
        ("glass-more", "Rocks"),
        ("glass-more", ""),
        ("method", "Shake"),
        ("method-more", ""),
        ("ing-name", "Gin"),
        ("ing-measure", "1 1/2"),
        ("ing-unit", "oz"),
    ]);
    let r = post_form(&server, "/recipes/new", &fields).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let id = location
        .trim_start_matches("/recipes/")
        .split('?')
        .next()
        .unwrap()
        .to_owned();
    let recipe: Value = get(&server, &format!("/api/recipes/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(recipe["glass"], json!(["Coupe", "Rocks"]), "both, in order");
    assert_eq!(recipe["method"], json!(["Shake"]), "one stays one");
    assert_eq!(recipe["ingredients"][0]["measure"], "1 1/2");
    let page = get(&server, &format!("/recipes/{id}/edit"))
        .await
        .text()
        .await
        .unwrap();
    for input in [
        r#"name="glass" value="Coupe""#,
        r#"name="glass-more" value="Rocks""#,
        r#"name="glass-more" value="""#,
        r#"name="method" value="Shake""#,
    ] {
        assert!(page.contains(input), "{input} missing from the form");
    }

    // More inputs for a list than a recipe has entries: refused, naming field and limit.
    let before = std::fs::read(&path).unwrap();
    let mut many = vec![("name", "Many Glasses"), ("glass", "Coupe")];
    let names: Vec<String> = (0..13).map(|i| format!("Glass {i}")).collect();
    many.extend(names.iter().map(|n| ("glass-more", n.as_str())));
    let r = post_form(&server, "/recipes/new", &with(&many)).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let text = r.text().await.unwrap();
    assert!(
        text.contains("14 glass fields") && text.contains("at most 12 glass entries"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a refused form wrote"
    );
}
