//! What editors (and anyone else) may send, against the real binary: hand-made forms and
//! API bodies that are odd, oversized, repeated, invisible or malformed, and the answers
//! they get — never a panic, never a huge page, never a Rust message, always the API's JSON
//! under `/api/`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use common::{Server, client};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue};
use std::path::{Path, PathBuf};

/// A temporary copy of the sample collection.
fn collection() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipes.json");
    std::fs::write(&path, libations::recipes::SAMPLE_JSON).unwrap();
    (dir, path)
}

fn editor(path: &Path, extra: &[&str]) -> Server {
    let file = path.to_str().unwrap();
    let mut args = vec!["--recipes-file", file, "--allow-edits", "--local-edit"];
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// Headers a same-origin `fetch` from the app's own page sends.
fn same_origin(server: &Server) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("origin", HeaderValue::from_str(&server.base).unwrap());
    h.insert("sec-fetch-site", HeaderValue::from_static("same-origin"));
    h
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

/// The form's ingredient rows that are not blank, as (measure, unit, name).
fn rows(html: &str) -> Vec<(String, String, String)> {
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

fn row(m: &str, u: &str, n: &str) -> (String, String, String) {
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
    let mut cases: Vec<(String, Vec<(String, String, String)>)> = vec![
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
                ">Gin</textarea>",
                ">Coupe</textarea>",
                ">Typed notes</textarea>",
            ] {
                assert!(html.contains(kept), "{form} op={op}: {kept} lost");
            }
        }
    }
    assert_eq!(std::fs::read(&path).unwrap(), before, "a row button saved");
}
