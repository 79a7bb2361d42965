//! What editors (and anyone else) may send, against the real binary: hand-made forms and
//! API bodies that are odd, oversized, repeated, invisible or malformed, and the answers
//! they get — never a panic, never a huge page, never a Rust message, always the API's JSON
//! under `/api/`.

use crate::common;

use common::{Server, client, collection, editor, same_origin};
use reqwest::StatusCode;
use serde_json::{Value, json};

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

/// The hidden inputs (token, version) of the form page at `path`.
async fn hidden_fields(server: &Server, path: &str) -> Vec<(String, String)> {
    let r = get(server, path).await;
    assert_eq!(r.status(), StatusCode::OK, "{path}");
    let html = r.text().await.unwrap();
    let mut out = Vec::new();
    for input in html.split("<input").skip(1) {
        let tag = &input[..input.find('>').unwrap_or(input.len())];
        let attr = |name: &str| {
            tag.split(&format!("{name}=\""))
                .nth(1)
                .and_then(|v| v.split('"').next())
                .map(str::to_owned)
        };
        if attr("type").as_deref() == Some("hidden")
            && let (Some(n), Some(v)) = (attr("name"), attr("value"))
        {
            out.push((n, v));
        }
    }
    out
}

/// `fields` plus `(name, value)` pairs.
fn with(fields: &[(String, String)], more: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out = fields.to_vec();
    out.extend(more.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    out
}

/// The value of each `<input name="{name}">` in `html`, in order.
fn inputs(html: &str, name: &str) -> Vec<String> {
    html.split(&format!("name=\"{name}\" value=\""))
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default().to_owned())
        .collect()
}

/// An ingredient row of the form: (measure, unit, name).
type Row = (String, String, String);

/// The form's ingredient rows that are not blank.
fn rows(html: &str) -> Vec<Row> {
    let (m, u, n) = (
        inputs(html, "ing-measure"),
        inputs(html, "ing-unit"),
        inputs(html, "ing-name"),
    );
    assert!(m.len() == u.len() && u.len() == n.len(), "uneven rows");
    (0..n.len())
        .map(|i| (m[i].clone(), u[i].clone(), n[i].clone()))
        .filter(|(m, u, n)| !(m.is_empty() && u.is_empty() && n.is_empty()))
        .collect()
}

fn row(m: &str, u: &str, n: &str) -> Row {
    (m.to_owned(), u.to_owned(), n.to_owned())
}

/// A filled-in recipe form: name, lists, notes and three ingredient rows.
fn typed(hidden: &[(String, String)]) -> Vec<(String, String)> {
    with(
        hidden,
        &[
            ("name", "Typed Sour"),
            ("base", "Gin"),
            ("glass", "Coupe"),
            ("notes", "Typed notes"),
            ("ing-measure", "50"),
            ("ing-unit", "ml"),
            ("ing-name", "Gin"),
            ("ing-measure", "25"),
            ("ing-unit", "ml"),
            ("ing-name", "Lime"),
            ("ing-measure", "15"),
            ("ing-unit", "ml"),
            ("ing-name", "Syrup"),
        ],
    )
}

#[tokio::test]
async fn row_buttons_with_any_index_answer_the_form_with_everything_typed() {
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "1000"]);
    let before = std::fs::read(&path).unwrap();
    let (gin, lime, syrup) = (
        row("50", "ml", "Gin"),
        row("25", "ml", "Lime"),
        row("15", "ml", "Syrup"),
    );
    let as_typed = vec![gin.clone(), lime.clone(), syrup.clone()];
    let bad = [
        "3",
        "99",
        "-1",
        "x",
        "",
        "1.5",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999",
    ];
    let mut cases: Vec<(String, Vec<Row>)> = vec![
        ("remove:2".into(), vec![gin.clone(), lime.clone()]),
        (
            "up:2".into(),
            vec![gin.clone(), syrup.clone(), lime.clone()],
        ),
        ("down:2".into(), as_typed.clone()),
        ("up:0".into(), as_typed.clone()),
        (
            "down:0".into(),
            vec![lime.clone(), gin.clone(), syrup.clone()],
        ),
        ("add".into(), as_typed.clone()),
        ("down".into(), as_typed.clone()),
        ("sideways:1".into(), as_typed.clone()),
    ];
    for verb in ["add", "remove", "up", "down"] {
        for at in bad {
            cases.push((format!("{verb}:{at}"), as_typed.clone()));
        }
    }
    for id in [None, Some(1)] {
        let form = match id {
            None => "/recipes/new".to_owned(),
            Some(id) => format!("/recipes/{id}/edit"),
        };
        let hidden = hidden_fields(&server, &form).await;
        for (op, want) in &cases {
            let fields = with(&typed(&hidden), &[("op", op)]);
            let r = post_form(&server, &form, &fields).await;
            assert_eq!(r.status(), StatusCode::OK, "{form} op={op}");
            let html = r.text().await.unwrap();
            assert_eq!(&rows(&html), want, "{form} op={op}");
            assert_eq!(inputs(&html, "name"), ["Typed Sour"], "{form} op={op}");
            for kept in [
                r#"name="base" value="Gin""#,
                r#"name="glass" value="Coupe""#,
                ">Typed notes</textarea>",
            ] {
                assert!(html.contains(kept), "{form} op={op}: {kept} lost");
            }
        }
    }
    assert_eq!(std::fs::read(&path).unwrap(), before, "a row button saved");
}

/// `n` ingredient rows of a form as short as they come: an empty name each (the page
/// makes a row of every name, measure or unit).
fn many_rows(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|_| ("ing-name".to_owned(), String::new()))
        .collect()
}

#[tokio::test]
async fn a_form_with_more_rows_than_a_recipe_has_is_refused_without_rendering_them() {
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "1000"]);
    let before = std::fs::read(&path).unwrap();
    let hidden = hidden_fields(&server, "/recipes/new").await;
    let name = [("name", "Many Rows")];

    // Thousands of rows, on a row button or a save, new or edit: a short 422 saying the cap.
    for (form, op, n) in [
        ("/recipes/new", "add", 26_000),
        ("/recipes/new", "save", 23_000),
        ("/recipes/1/edit", "down:0", 5_000),
        ("/recipes/new", "add", 42),
    ] {
        let hidden = hidden_fields(&server, form).await;
        let mut fields = with(&hidden, &name);
        fields.extend(many_rows(n));
        fields.push(("op".into(), op.into()));
        let r = post_form(&server, form, &fields).await;
        assert_eq!(
            r.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{form} {op} {n}"
        );
        let page = r.text().await.unwrap();
        assert!(
            page.len() < 8_000,
            "{form} {op} {n}: a {} byte answer",
            page.len()
        );
        assert!(
            page.contains(&format!("sent {n} ingredient rows"))
                && page.contains("at most 40 ingredients"),
            "{page}"
        );
        assert!(!page.contains("name=\"ing-name\""), "rows rendered");
    }
    // Just the blank row too many for a recipe at the cap; the store says what is wrong
    // with the rows, and the page shows them.
    let mut fields = with(&hidden, &name);
    fields.extend(many_rows(41));
    fields.push(("op".into(), "add".into()));
    let r = post_form(&server, "/recipes/new", &fields).await;
    assert_eq!(r.status(), StatusCode::OK);
    let page = r.text().await.unwrap();
    assert_eq!(
        inputs(&page, "ing-name").len(),
        41,
        "a row was added at the cap"
    );
    assert!(
        page.contains("at most 40 ingredients, so no row was added"),
        "the page does not say why"
    );
    // Below the cap, a row is added; at the cap, the page adds no blank row past 41.
    let mut fields = with(&hidden, &name);
    fields.extend(many_rows(39));
    fields.push(("op".into(), "add".into()));
    let page = post_form(&server, "/recipes/new", &fields)
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(inputs(&page, "ing-name").len(), 40);
    let filled: Vec<(String, String)> = (0..41)
        .flat_map(|i| [("ing-name".to_owned(), format!("Thing {i}"))])
        .collect();
    let mut fields = with(&hidden, &name);
    fields.extend(filled);
    fields.push(("op".into(), "save".into()));
    let r = post_form(&server, "/recipes/new", &fields).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = r.text().await.unwrap();
    assert!(page.contains("at most 40 ingredients, found 41"), "{page}");
    assert_eq!(
        inputs(&page, "ing-name").len(),
        41,
        "the form it shows can be posted back"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "something was saved");
}

#[tokio::test]
async fn the_api_refuses_overlong_lists_with_one_short_problem() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let before = std::fs::read(&path).unwrap();
    let blank_rows: Vec<Value> = (0..60_000).map(|_| json!({})).collect();
    let blank_entries: Vec<Value> = (0..60_000).map(|_| json!("")).collect();
    let numbers: Vec<Value> = (0..30_000).map(|i| json!(i)).collect();
    let mut unknown = serde_json::Map::new();
    unknown.insert("name".into(), json!("Unknown Keys"));
    for i in 0..20_000 {
        unknown.insert(format!("k{i}"), json!(0));
    }
    for (body, field) in [
        (
            json!({"name": "Rows", "ingredients": blank_rows}),
            "ingredients",
        ),
        (
            json!({"name": "Entries", "garnish": blank_entries}),
            "garnish",
        ),
        (json!({"name": "Numbers", "Base": numbers}), "Base"),
        (Value::Object(unknown), "k0"),
    ] {
        let r = client()
            .post(server.url("/api/recipes"))
            .headers(same_origin(&server))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{field}");
        let text = r.text().await.unwrap();
        assert!(text.len() < 16_000, "{field}: a {} byte answer", text.len());
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["problems"][0]["field"], field, "{answer}");
        assert!(answer["problems"].as_array().unwrap().len() <= 100);
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn row_buttons_count_towards_the_rate_limit() {
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "2"]);
    let hidden = hidden_fields(&server, "/recipes/new").await;
    for _ in 0..2 {
        let r = post_form(
            &server,
            "/recipes/new",
            &with(&typed(&hidden), &[("op", "add")]),
        )
        .await;
        assert_eq!(r.status(), StatusCode::OK);
    }
    for op in ["down:0", "save"] {
        let r = post_form(
            &server,
            "/recipes/new",
            &with(&typed(&hidden), &[("op", op)]),
        )
        .await;
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS, "{op}");
        let wait: u64 = r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&wait), "Retry-After {wait}");
    }
}

/// Sends `body` as it is (JSON with keys twice cannot be made from a `Value`).
async fn send_raw(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    body: &str,
) -> reqwest::Response {
    let mut request = client()
        .request(method, server.url(path))
        .headers(same_origin(server))
        .header("content-type", "application/json")
        .body(body.to_owned());
    if path.starts_with("/api/recipes/") {
        let tag = get(server, path).await.headers()["etag"].clone();
        request = request.header("if-match", tag);
    }
    request.send().await.unwrap()
}

fn fields_at_fault(answer: &Value) -> Vec<&str> {
    answer["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("no problems in {answer}"))
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_api_refuses_a_key_sent_twice_naming_it() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let before = std::fs::read(&path).unwrap();
    let cases = [
        (r#"{"name": "first", "name": "second"}"#, vec!["name"]),
        (
            r#"{"name": "x", "ingredients": [{"name": "Gin", "unit": "ml", "unit": "cl"}]}"#,
            vec!["ingredients[0].unit"],
        ),
        (r#"{"name": "first", "Name": "second"}"#, vec!["Name"]),
        (
            r#"{"name": "x", "notes": "a", "ingredients": [{"name": "g"}, {"name": "h", "NAME": "i"}], "notes": "b"}"#,
            vec!["ingredients[1].NAME", "notes"],
        ),
    ];
    for (method, at) in [
        (reqwest::Method::POST, "/api/recipes"),
        (reqwest::Method::PUT, "/api/recipes/1"),
    ] {
        for (body, fields) in &cases {
            let r = send_raw(&server, method.clone(), at, body).await;
            assert_eq!(
                r.status(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "{method} {body}"
            );
            let answer: Value = r.json().await.unwrap();
            assert_eq!(&fields_at_fault(&answer), fields, "{method} {body}");
            assert!(
                answer["problems"][0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("more than once"),
                "{answer}"
            );
        }
        // Invalid JSON still says where.
        let r = send_raw(&server, method.clone(), at, r#"{"name": "x",, }"#).await;
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let answer: Value = r.json().await.unwrap();
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.starts_with("The body is not JSON") && error.contains("(line 1, column 14)"),
            "{error}"
        );
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a repeated key was saved"
    );
}

#[tokio::test]
async fn a_form_with_a_single_field_twice_comes_back_naming_it() {
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "1000"]);
    let before = std::fs::read(&path).unwrap();
    for form in ["/recipes/new", "/recipes/1/edit"] {
        let hidden = hidden_fields(&server, form).await;
        let token = hidden.iter().find(|(k, _)| k == "csrf").unwrap().1.clone();
        let version = hidden
            .iter()
            .find(|(k, _)| k == "version")
            .unwrap()
            .1
            .clone();
        for (name, again) in [
            ("name", "Second Name"),
            ("notes", "second notes"),
            ("base", "Rum"),
            ("glass", "Flute"),
            ("method", "Stir"),
            ("ice", "Cubed"),
            ("garnish", "Olive"),
            ("version", version.as_str()),
            ("csrf", token.as_str()),
            ("op", "add"),
        ] {
            // The field once as typed (or as "first"), then again.
            let mut fields = typed(&hidden);
            if !fields.iter().any(|(k, _)| k == name) {
                fields.push((name.into(), "first".into()));
            }
            fields.push((name.into(), again.into()));
            if name != "op" {
                fields.push(("op".into(), "save".into()));
            }
            let r = post_form(&server, form, &fields).await;
            assert_eq!(
                r.status(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "{form} {name}"
            );
            let page = r.text().await.unwrap();
            assert!(
                page.contains(&format!("{name}: was sent more than once")),
                "{form} {name}: the field is not named"
            );
            assert_eq!(inputs(&page, "name"), ["Typed Sour"], "{form} {name}");
            assert!(page.contains(">Typed notes</textarea>"), "{form} {name}");
            assert_eq!(rows(&page).len(), 3, "{form} {name}: rows lost");
        }
    }
    // Delete and undo take their fields once too.
    let hidden = hidden_fields(&server, "/recipes/1/edit").await;
    let twice: Vec<(String, String)> = hidden.iter().chain(hidden.iter()).cloned().collect();
    for at in ["/recipes/1/delete", "/changes/1/undo"] {
        let r = post_form(&server, at, &twice).await;
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{at}");
        let page = r.text().await.unwrap();
        assert!(
            page.contains("more than once; nothing was changed"),
            "{at}: {page}"
        );
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a form with a field twice was saved"
    );
}

/// Characters no recipe text may hold, with the code point a refusal names.
const INVISIBLE: [(&str, &str); 14] = [
    ("\u{0}", "U+0000"),
    ("\u{1b}", "U+001B"),
    ("\u{7}", "U+0007"),
    ("\u{1}", "U+0001"),
    ("\r", "U+000D"),
    ("\u{7f}", "U+007F"),
    ("\u{85}", "U+0085"),
    ("\u{9f}", "U+009F"),
    ("\u{202e}", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("\u{2067}", "U+2067 RIGHT-TO-LEFT ISOLATE"),
    ("\u{200f}", "U+200F RIGHT-TO-LEFT MARK"),
    ("\u{61c}", "U+061C ARABIC LETTER MARK"),
    ("\u{feff}", "U+FEFF"),
    ("\u{e0041}", "U+E0041"),
];

#[tokio::test]
async fn control_and_invisible_characters_are_refused_naming_field_and_character() {
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "1000"]);
    let before = std::fs::read(&path).unwrap();
    let recipe = |field: &str, text: &str| {
        let mut r = json!({
            "name": "Clean", "glass": ["Coupe"], "notes": "Shake.",
            "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml"}],
        });
        let at = match field {
            "name" | "notes" => &mut r[field],
            "glass[0]" => &mut r["glass"][0],
            other => &mut r["ingredients"][0][other.trim_start_matches("ingredients[0].")],
        };
        *at = json!(format!("a{text}b"));
        r
    };
    let fields = [
        "name",
        "glass[0]",
        "ingredients[0].name",
        "ingredients[0].measure",
        "ingredients[0].unit",
        "notes",
    ];
    for (text, named) in INVISIBLE
        .iter()
        .chain(&[("\t", "U+0009"), ("\n", "U+000A")])
    {
        for field in fields {
            if field == "notes" && (*text == "\t" || *text == "\n") {
                continue;
            }
            let r = client()
                .post(server.url("/api/recipes"))
                .headers(same_origin(&server))
                .json(&recipe(field, text))
                .send()
                .await
                .unwrap();
            assert_eq!(
                r.status(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "{named} in {field}"
            );
            let answer: Value = r.json().await.unwrap();
            assert_eq!(fields_at_fault(&answer), [field], "{named} in {field}");
            let message = answer["problems"][0]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("contains {named}"))
                    && message.contains("at character 2"),
                "{named} in {field}: {message}"
            );
        }
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "an invisible character was saved"
    );

    // Lines and tabs are fine in notes, and only there.
    let r = client()
        .post(server.url("/api/recipes"))
        .headers(same_origin(&server))
        .json(&recipe("notes", "\n\tc"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let saved: Value = r.json().await.unwrap();
    assert_eq!(saved["recipe"]["notes"], "a\n\tcb");

    // The forms pass the same check: the page comes back with the field's problem.
    let hidden = hidden_fields(&server, "/recipes/new").await;
    let mut fields = typed(&hidden);
    fields.retain(|(k, _)| k != "name");
    fields.push(("name".into(), "Sour \u{202e}ruoS".into()));
    fields.push(("op".into(), "save".into()));
    let r = post_form(&server, "/recipes/new", &fields).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = r.text().await.unwrap();
    assert!(
        page.contains("id=\"name-error\""),
        "the problem is not at its field"
    );
    assert!(
        page.contains("U+202E RIGHT-TO-LEFT OVERRIDE at character 6"),
        "{page}"
    );
    // A browser sends a textarea's lines as CRLF; they are saved as lines.
    let mut fields = typed(&hidden);
    fields.retain(|(k, _)| k != "notes");
    fields.push(("notes".into(), "Shake.\r\n\tHard.".into()));
    fields.push(("op".into(), "save".into()));
    let r = post_form(&server, "/recipes/new", &fields).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
}

#[test]
fn the_loader_and_check_only_warn_about_invisible_characters() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bar.json");
    std::fs::write(
        &file,
        "[{\"id\": 1, \"name\": \"Gin\"},\n {\"id\": 2, \"name\": \"Sour \\u202eruoS\",\n  \"ingredients\": [{\"name\": \"Lime\\u0000\"}]}]\n",
    )
    .unwrap();
    let out = std::process::Command::new(common::BIN)
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("OK, 2 recipes") && stdout.contains("2 warning(s)"),
        "{stdout}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    let place = format!("warning: {}:2: recipe index 1 (id 2, ", file.display());
    assert!(lines[0].starts_with(&place), "{}", lines[0]);
    assert!(
        lines[0].contains("field \"name\": contains U+202E RIGHT-TO-LEFT OVERRIDE at character 6"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("field \"ingredients[0].name\": contains U+0000 NULL at character 5"),
        "{}",
        lines[1]
    );
    // The app loads it, and logs the warnings.
    let server = Server::start(&["--recipes-file", file.to_str().unwrap()]);
    let log = server.log();
    assert!(
        log.contains("U+202E RIGHT-TO-LEFT OVERRIDE"),
        "not logged: {log}"
    );
}

/// Checks that `r` is the API's JSON error with `status`, in words (no Rust types), and
/// returns its message.
async fn api_error(r: reqwest::Response, status: StatusCode, what: &str) -> String {
    assert_eq!(r.status(), status, "{what}");
    let kind = r.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(kind.starts_with("application/json"), "{what}: {kind}");
    let text = r.text().await.unwrap();
    for rust in ["u64", "Cannot parse", "Invalid URL", "<html", "`"] {
        assert!(!text.contains(rust), "{what}: {rust} in {text}");
    }
    let answer: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}: {text}"));
    answer["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: {text}"))
        .to_owned()
}

#[tokio::test]
async fn every_refusal_under_api_is_the_apis_json_in_words() {
    let (_dir, path) = collection();
    let file = path.to_str().unwrap().to_owned();
    for (server, editing) in [
        (editor(&path, &["--body-timeout", "1"]), true),
        (
            Server::start(&["--recipes-file", &file, "--body-timeout", "1"]),
            false,
        ),
    ] {
        use reqwest::Method;
        let send = |method: Method, at: &str| {
            client()
                .request(method, server.url(at))
                .headers(same_origin(&server))
                .header("content-type", "application/json")
                .header("if-match", "\"0123456789abcdef\"")
        };
        // Path segments that are no id: 404, saying so.
        for id in ["abc", "-1", "1.5", "18446744073709551616", "%20", "1e3"] {
            for method in [Method::GET, Method::PUT, Method::DELETE] {
                let body = if method == Method::GET { "" } else { "{}" };
                let r = send(method.clone(), &format!("/api/recipes/{id}"))
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                let message = api_error(r, StatusCode::NOT_FOUND, &format!("{method} {id}")).await;
                let shown = id.replace("%20", " ");
                assert_eq!(
                    message,
                    format!("\"{shown}\" is not a recipe id (a whole number).")
                );
            }
            let r = send(Method::POST, &format!("/api/changes/{id}/undo"))
                .body("{}")
                .send()
                .await
                .unwrap();
            let message = api_error(r, StatusCode::NOT_FOUND, id).await;
            assert!(
                message.contains("is not a change number (a whole number)"),
                "{message}"
            );
        }
        let r = send(Method::PUT, "/api/recipes/%ff")
            .body("{}")
            .send()
            .await
            .unwrap();
        let message = api_error(r, StatusCode::NOT_FOUND, "%ff").await;
        assert!(
            message.contains("no recipe id where one belongs"),
            "{message}"
        );
        // No such address, no such method.
        for at in ["/api/nosuch", "/api", "/api/recipes/1/edit"] {
            let r = send(Method::GET, at).send().await.unwrap();
            let message = api_error(r, StatusCode::NOT_FOUND, at).await;
            assert_eq!(message, "The API has nothing at this address.");
        }
        for (method, at) in [
            (Method::PATCH, "/api/recipes/1"),
            (Method::OPTIONS, "/api/recipes"),
            (Method::POST, "/api/ingredients"),
            (Method::DELETE, "/api/changes"),
        ] {
            let r = send(method.clone(), at).send().await.unwrap();
            api_error(r, StatusCode::METHOD_NOT_ALLOWED, &format!("{method} {at}")).await;
        }
        // The guard's refusals: a smuggled separator, a long target, bodies too large.
        let r = send(Method::GET, "/api/recipes/1%2f2")
            .send()
            .await
            .unwrap();
        api_error(r, StatusCode::BAD_REQUEST, "%2f").await;
        let long = format!("/api/recipes?q={}", "a".repeat(9000));
        let r = send(Method::GET, &long).send().await.unwrap();
        api_error(r, StatusCode::URI_TOO_LONG, "long").await;
        let r = send(Method::GET, "/api/recipes")
            .body("x".repeat(5000))
            .send()
            .await
            .unwrap();
        let message = api_error(r, StatusCode::PAYLOAD_TOO_LARGE, "body on GET").await;
        assert!(message.contains("carries no body"), "{message}");
        let r = send(Method::POST, "/api/recipes")
            .body("x".repeat(300 * 1024))
            .send()
            .await
            .unwrap();
        let message = api_error(r, StatusCode::PAYLOAD_TOO_LARGE, "large").await;
        assert!(message.contains("262144 bytes"), "{message}");
        // A body announced and never sent: 408 after --body-timeout.
        {
            use std::io::{Read, Write};
            let mut stream =
                std::net::TcpStream::connect(server.base.trim_start_matches("http://")).unwrap();
            stream
                .write_all(b"POST /api/recipes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{")
                .unwrap();
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            let mut reply = vec![0; 4096];
            let n = stream.read(&mut reply).unwrap();
            let reply = String::from_utf8_lossy(&reply[..n]);
            assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
            assert!(
                reply.contains("application/json")
                    && reply.contains("{\"error\":\"The request body was not sent in time.\"}"),
                "{reply}"
            );
        }
        // Not JSON: 415.
        let r = client()
            .post(server.url("/api/recipes"))
            .headers(same_origin(&server))
            .header("content-type", "text/plain")
            .body("{}")
            .send()
            .await
            .unwrap();
        let (status, why) = if editing {
            (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Content-Type: application/json",
            )
        } else {
            (StatusCode::METHOD_NOT_ALLOWED, "--allow-edits")
        };
        let message = api_error(r, status, "text/plain").await;
        assert!(message.contains(why), "{message}");
    }
}

#[tokio::test]
async fn html_addresses_keep_the_page_and_say_in_words_what_is_wrong() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let hidden = hidden_fields(&server, "/recipes/new").await;
    for (post, at, says) in [
        (
            false,
            "/recipes/abc/edit",
            "&#34;abc&#34; is not a recipe id (a whole number).",
        ),
        (
            false,
            "/recipes/-1",
            "&#34;-1&#34; is not a recipe id (a whole number).",
        ),
        (
            true,
            "/recipes/18446744073709551616/edit",
            "&#34;18446744073709551616&#34; is not a recipe id",
        ),
        (
            true,
            "/recipes/1.5/delete",
            "&#34;1.5&#34; is not a recipe id",
        ),
        (
            true,
            "/changes/x/undo",
            "&#34;x&#34; is not a change number",
        ),
        (false, "/recipes/%ff", "no recipe id where one belongs"),
        (false, "/no/such/page", "There is no page at this address."),
    ] {
        let r = if post {
            post_form(&server, at, &hidden).await
        } else {
            get(&server, at).await
        };
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{at}");
        assert_eq!(
            r.headers()["content-type"],
            "text/html; charset=utf-8",
            "{at}"
        );
        let page = r.text().await.unwrap();
        assert!(
            page.contains("<h1>Not found</h1>") && page.contains(says),
            "{at}: {page}"
        );
        assert!(
            !page.contains("u64") && !page.contains("Cannot parse"),
            "{at}"
        );
    }
    // The guard's refusals outside the API stay one line of text.
    let r = get(&server, "/static/a%2fb").await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(r.headers()["content-type"], "text/plain; charset=utf-8");
    assert!(r.text().await.unwrap().contains("encoded slash"));
}

#[tokio::test]
async fn allow_lists_what_each_address_takes_with_editing_on_and_off() {
    use reqwest::Method;
    let (_dir, path) = collection();
    let file = path.to_str().unwrap().to_owned();
    let methods = [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::OPTIONS,
    ];
    for (server, editing) in [
        (editor(&path, &["--edits-per-minute", "1000"]), true),
        (Server::start(&["--recipes-file", &file]), false),
    ] {
        let writes = |all: &'static str, reads: &'static str| if editing { all } else { reads };
        let routes = [
            (
                "/api/recipes/1",
                writes("GET, HEAD, PUT, DELETE", "GET, HEAD"),
            ),
            ("/api/recipes", writes("GET, HEAD, POST", "GET, HEAD")),
            ("/recipes/new", writes("GET, HEAD, POST", "GET, HEAD")),
            ("/recipes/1/edit", writes("GET, HEAD, POST", "GET, HEAD")),
            ("/recipes/1/delete", writes("POST", "")),
            ("/changes/1/undo", writes("POST", "")),
            ("/api/changes/1/undo", writes("POST", "")),
            ("/recipes/import", writes("GET, HEAD, POST", "GET, HEAD")),
            ("/recipes/import/save", writes("POST", "")),
            ("/api/recipes/bulk", writes("POST", "")),
            ("/api/import", writes("POST", "")),
            // The household's and the menus' writes do not depend on --allow-edits.
            ("/api/me/favourites/1", "PUT, DELETE"),
            ("/api/me/ratings/1", "PUT, DELETE"),
            ("/api/me/notes/1", "PUT, DELETE"),
            ("/api/me/made/1", "POST, DELETE"),
            ("/api/bar/shelf", "PUT"),
            ("/api/bar/rules", "PUT"),
            ("/api/bar/shopping", "GET, HEAD, PUT"),
            ("/shopping", "GET, HEAD, POST"),
            ("/api/bar/strengths", "GET, HEAD, PUT"),
            ("/api/household/upload", "POST"),
            ("/api/recipes/1/photos", "GET, HEAD, POST"),
            ("/api/recipes/1/photos/1", "DELETE"),
            ("/api/recipes/1/photos/1/restore", "POST"),
            ("/api/recipes/1/photos/1/cover", "PUT"),
            ("/api/recipes/1/photos/gone", "GET, HEAD"),
            ("/api/photos/covers", "GET, HEAD"),
            ("/recipes/1/photos", "POST"),
            ("/recipes/1/photos/1/delete", "POST"),
            ("/recipes/1/photos/1/restore", "POST"),
            ("/recipes/1/photos/1/cover", "POST"),
            ("/api/menus", "GET, HEAD, POST"),
            ("/api/menus/1", "PUT, DELETE"),
            ("/api/menus/1/on", "POST"),
            ("/api/menus/off", "POST"),
            ("/menus/1/on", "POST"),
            ("/menus/off", "POST"),
            ("/", "GET, HEAD"),
            ("/recipes/1", "GET, HEAD"),
            ("/changes", "GET, HEAD"),
            ("/api/changes", "GET, HEAD"),
            ("/api/recipes/download", "GET, HEAD"),
            ("/api/ingredients", "GET, HEAD"),
            ("/shelf", "GET, HEAD"),
        ];
        // Every route that takes more than GET and HEAD, as the router registers it, has a
        // row above (a route added without one fails here).
        for route in libations::web::registered() {
            if route.method != Method::GET {
                let at = route
                    .path
                    .replace("{id}", "1")
                    .replace("{n}", "1")
                    .replace("{photo}", "1");
                assert!(
                    routes.iter().any(|(listed, _)| *listed == at),
                    "{} {} has no row here",
                    route.method,
                    route.path
                );
            }
        }
        for (at, allow) in routes {
            for method in &methods {
                // A body (which GET and HEAD must not have) only where one may come.
                let mut request = client()
                    .request(method.clone(), server.url(at))
                    .headers(same_origin(&server));
                if ![Method::GET, Method::HEAD].contains(method) {
                    request = request
                        .header("content-type", "application/json")
                        .body("{}");
                }
                let r = request.send().await.unwrap();
                let what = format!("{method} {at} (editing {editing})");
                let taken = allow.split(", ").any(|m| m == method.as_str());
                if taken {
                    assert_ne!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{what}");
                    continue;
                }
                assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{what}");
                assert_eq!(r.headers()["allow"], allow, "{what}");
                if at.starts_with("/api/") && *method != Method::HEAD {
                    let message = api_error(r, StatusCode::METHOD_NOT_ALLOWED, &what).await;
                    assert!(!message.is_empty(), "{what}");
                }
            }
        }
    }
}

#[tokio::test]
async fn if_match_takes_one_strong_etag_and_refuses_anything_else_with_412() {
    let (_dir, path) = collection();
    let server = editor(&path, &["--edits-per-minute", "1000"]);
    let r = get(&server, "/api/recipes/1").await;
    let tag = r.headers()["etag"].to_str().unwrap().to_owned();
    let recipe: Value = r.json().await.unwrap();
    let bare = tag.trim_matches('"').to_owned();
    // What the app's own form sends (static/js/edit.js): its data-version in quotes.
    let page = get(&server, "/recipes/1/edit").await.text().await.unwrap();
    assert!(
        page.contains(&format!("data-version=\"{bare}\"")),
        "the form's version is not the ETag's"
    );
    let br = client()
        .get(server.url("/api/recipes/1"))
        .header("accept-encoding", "br")
        .send()
        .await
        .unwrap();
    let br_tag = br.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(
        br_tag,
        format!("\"{bare}-br\""),
        "a compressed answer's ETag"
    );
    let before = std::fs::read(&path).unwrap();
    let put = |value: Option<&str>| {
        let mut request = client()
            .put(server.url("/api/recipes/1"))
            .headers(same_origin(&server))
            .json(&recipe);
        if let Some(value) = value {
            request = request.header("if-match", value);
        }
        request.send()
    };
    let delete = |value: &str| {
        client()
            .delete(server.url("/api/recipes/1"))
            .headers(same_origin(&server))
            .header("if-match", value)
            .send()
    };
    let weak = format!("W/{tag}");
    let unbalanced = format!("\"{bare}");
    let doubled = format!("\"{tag}\"");
    let listed = format!("{tag}, \"0000000000000000\"");
    let spaced = format!("\"{bare} \"");
    for refused in [
        weak.as_str(),
        &format!("w/{tag}"),
        &bare,
        &unbalanced,
        &format!("{bare}\""),
        &doubled,
        "*",
        &listed,
        &spaced,
        "\"\u{e9}\"",
        "",
    ] {
        for r in [
            put(Some(refused)).await.unwrap(),
            delete(refused).await.unwrap(),
        ] {
            let message = api_error(r, StatusCode::PRECONDITION_FAILED, refused).await;
            assert!(
                message.contains("one strong ETag, in quotes"),
                "{refused}: {message}"
            );
        }
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a refused If-Match changed the file"
    );
    // Without one: 428. Another version, well-formed: 409 with both.
    let r = put(None).await.unwrap();
    api_error(r, StatusCode::PRECONDITION_REQUIRED, "none").await;
    let r = put(Some("\"0000000000000000\"")).await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    // Taken: the tag as sent, compressed or not, with white space around it.
    for taken in [
        tag.clone(),
        br_tag,
        format!("\"{bare}-gzip\""),
        format!("  {tag} "),
    ] {
        let r = put(Some(&taken)).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{taken}");
        assert_eq!(
            r.headers()["etag"].to_str().unwrap(),
            tag,
            "{taken}: the recipe is unchanged"
        );
    }
    let r = delete(&tag).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_file_broken_by_hand_is_named_from_its_directory_not_by_its_server_path() {
    let (dir, path) = collection();
    let server = editor(&path, &[]);
    let hidden = hidden_fields(&server, "/recipes/new").await;
    let secret = dir.path().display().to_string();
    for (broken, at) in [
        ("[{\"id\": 1, \"name\": \"A\",,}]\n", "recipes.json:1:"),
        (
            "[{\"id\": 1, \"name\": \"A\"},\n {\"id\": 1, \"name\": \"B\"}]\n",
            "recipes.json:2: recipe index 1",
        ),
    ] {
        std::fs::write(&path, broken).unwrap();
        let r = client()
            .post(server.url("/api/recipes"))
            .headers(same_origin(&server))
            .json(&json!({"name": "After the break"}))
            .send()
            .await
            .unwrap();
        let message = api_error(r, StatusCode::SERVICE_UNAVAILABLE, broken).await;
        assert!(message.contains(at), "{message}");
        assert!(!message.contains(&secret), "the server's path in {message}");
        let r = post_form(
            &server,
            "/recipes/new",
            &with(&typed(&hidden), &[("op", "save")]),
        )
        .await;
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        let page = r.text().await.unwrap();
        assert!(
            page.contains(at) && page.contains("Recipes file broken"),
            "{page}"
        );
        assert!(!page.contains(&secret), "the server's path in the page");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            broken,
            "the broken file was replaced"
        );
    }
    server
        .log_once(
            &format!("{}:2: recipe index 1", path.display()),
            "the log lost the full path",
        )
        .await;
}

#[test]
fn help_says_what_holds_and_the_deploying_doc_shows_it_as_it_is() {
    let out = std::process::Command::new(common::BIN)
        .arg("--help")
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        !flat.contains("only answers GET and HEAD"),
        "an old claim: {help}"
    );
    for holds in [
        "for a request that changes nothing (GET and HEAD may carry none at all; a change, POST, PUT or DELETE, may send 256 KiB)",
        "the form's row buttons (add, remove, move) count too",
        "and by a save while editing",
    ] {
        assert!(flat.contains(holds), "{holds:?} not in --help");
    }
    let deploying =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/DEPLOYING.md")).unwrap();
    let flags = &deploying[deploying.find("\n## Flags\n").unwrap()..];
    let block = flags
        .split("```text\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    assert_eq!(
        block, help,
        "docs/DEPLOYING.md's --help is not the binary's: regenerate it"
    );
}

#[test]
fn the_readme_is_short_and_every_link_in_the_docs_leads_somewhere() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 400,
        "README.md has {lines} lines, more than 400: move a section to docs/"
    );
    // The checker itself finds each kind of broken link (so an empty answer below means
    // something): a missing file, a missing heading in another file and in the same one.
    let bad =
        "[a](docs/NOPE.md) [b](docs/USING.md#no-such-heading) <img src=\"nope.png\"> [c](#nope)";
    assert_eq!(
        markdown::broken(root, &root.join("README.md"), bad).len(),
        4,
        "the link checker misses broken links"
    );
    let (mut broken, mut checked) = (Vec::new(), 0);
    for file in markdown::ours(root) {
        let text = std::fs::read_to_string(&file).unwrap();
        checked += markdown::links(&text).len();
        broken.extend(markdown::broken(root, &file, &text));
    }
    assert!(
        checked > 100,
        "only {checked} links found: is the parser right?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Relative links in our markdown, read the way GitHub renders them.
mod markdown {
    use std::collections::HashSet;
    use std::path::{Path, PathBuf};

    /// README.md and every `.md` under docs/.
    pub fn ours(root: &Path) -> Vec<PathBuf> {
        let mut files = vec![root.join("README.md")];
        let mut dirs = vec![root.join("docs")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    files.push(path);
                }
            }
        }
        files
    }

    /// The lines outside fenced code blocks; inline code spans taken out (`keep_code`:
    /// only their backticks, as a heading's anchor keeps the code's text).
    fn prose(text: &str, keep_code: bool) -> Vec<String> {
        let mut fenced = false;
        let mut out = Vec::new();
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            } else if !fenced {
                let step = if keep_code { 1 } else { 2 };
                out.push(line.split('`').step_by(step).collect());
            }
        }
        out
    }

    /// Every link target: `[text](target)`, and `src="…"`/`href="…"` of inline HTML.
    pub fn links(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for line in prose(text, false) {
            for opener in ["](", "src=\"", "href=\""] {
                let close: &[char] = if opener == "](" { &[')', ' '] } else { &['"'] };
                for rest in line.split(opener).skip(1) {
                    out.push(rest.split(close).next().unwrap_or("").to_owned());
                }
            }
        }
        out
    }

    /// GitHub's anchor for a heading: lower case, spaces to '-', punctuation dropped.
    fn slug(heading: &str) -> String {
        heading
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect()
    }

    /// The anchors of a file's headings (a repeated one gets `-1`, `-2`, …).
    fn anchors(text: &str) -> HashSet<String> {
        let mut out = HashSet::new();
        for line in prose(text, true) {
            let hashes = line.chars().take_while(|&c| c == '#').count();
            if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
                continue;
            }
            let base = slug(line[hashes..].trim());
            let mut anchor = base.clone();
            for n in 1.. {
                if !out.contains(&anchor) {
                    break;
                }
                anchor = format!("{base}-{n}");
            }
            out.insert(anchor);
        }
        out
    }

    /// What is wrong with the relative links in `text`, the contents of `file`.
    pub fn broken(root: &Path, file: &Path, text: &str) -> Vec<String> {
        let name = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        let mut out = Vec::new();
        for link in links(text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                file.to_path_buf()
            } else {
                file.parent().unwrap().join(path)
            };
            if !target.exists() {
                out.push(format!("{name}: {link}: no file {}", target.display()));
            } else if !anchor.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let heads = if path.is_empty() {
                    anchors(text)
                } else {
                    anchors(&std::fs::read_to_string(&target).unwrap())
                };
                if !heads.contains(anchor) {
                    out.push(format!("{name}: {link}: no heading #{anchor}"));
                }
            }
        }
        out
    }
}
