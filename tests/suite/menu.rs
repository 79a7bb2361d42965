//! Guests' menus over HTTP, against the real binary (issue #27): composing, reordering
//! and switching menus through `/api/menus…`; who may (editors, `--editor` logins; the
//! `{"menu": true}` grant is proven in the identity unit tests) and the 403 for anyone
//! else; refusals naming the field, caps, another site, not JSON; `/menu`, the guest
//! view, shows exactly the drinks of the menu that is on and nothing that leads into the
//! rest of the app.

use crate::common;

use common::household::{person, write};
use common::{Server, client, same_origin};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn ok(server: &Server, method: &str, path: &str, body: Option<Value>) -> Value {
    let (status, answer) = write(server, method, path, body).await;
    assert!(status.is_success(), "{method} {path}: {status} {answer}");
    answer
}

async fn menus(server: &Server) -> Value {
    let response = client().get(server.url("/api/menus")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

fn ids(menu: &Value) -> Vec<u64> {
    menu["recipes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn an_editor_composes_reorders_and_switches_menus() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let (status, created) = write(
        &alice,
        "POST",
        "/api/menus",
        Some(json!({"title": "Friday", "recipes": [
            {"id": 1, "description": "bitter and strong"}, {"id": 2}, {"id": 6}
        ]})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let friday = created["id"].as_i64().unwrap();
    let brunch = ok(
        &alice,
        "POST",
        "/api/menus",
        Some(json!({"title": "Brunch", "recipes": [{"id": 9}], "show_ingredients": false})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let all = menus(&alice).await;
    assert_eq!(all["may_change"], true);
    let listed = all["menus"].as_array().unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["title"], "Friday");
    assert_eq!(ids(&listed[0]), [1, 2, 6]);
    assert_eq!(listed[0]["recipes"][0]["description"], "bitter and strong");
    assert_eq!(listed[0]["recipes"][1]["description"], Value::Null);
    assert_eq!(
        (&listed[0]["on"], &listed[1]["on"]),
        (&json!(false), &json!(false))
    );
    assert_eq!(listed[1]["show_ingredients"], false);

    // Reordered, replaced whole.
    let put = ok(
        &alice,
        "PUT",
        &format!("/api/menus/{friday}"),
        Some(json!({"title": "Friday night", "recipes": [{"id": 6}, {"id": 1}], "can_make_now": true})),
    )
    .await;
    assert_eq!(ids(&put), [6, 1]);
    assert_eq!(put["title"], "Friday night");
    assert_eq!(put["can_make_now"], true);

    // One on at a time.
    let on = ok(&alice, "POST", &format!("/api/menus/{friday}/on"), None).await;
    assert_eq!(on["on"], true);
    ok(&alice, "POST", &format!("/api/menus/{brunch}/on"), None).await;
    let all = menus(&alice).await;
    let on: Vec<bool> = all["menus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["on"].as_bool().unwrap())
        .collect();
    assert_eq!(on, [false, true]);
    ok(&alice, "POST", "/api/menus/off", None).await;
    assert!(
        menus(&alice).await["menus"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["on"] == false)
    );

    // Kept across a restart (the state database).
    alice.stop();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    assert_eq!(ids(&menus(&alice).await["menus"][0]), [6, 1]);
    let gone = ok(&alice, "DELETE", &format!("/api/menus/{brunch}"), None).await;
    assert_eq!(gone["deleted"], true);
    let (status, _) = write(&alice, "DELETE", &format!("/api/menus/{brunch}"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = write(&alice, "POST", "/api/menus/999/on", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = write(
        &alice,
        "PUT",
        "/api/menus/999",
        Some(json!({"title": "Nope"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(menus(&alice).await["menus"].as_array().unwrap().len(), 1);
    alice.stop();
}

#[tokio::test]
async fn only_editors_and_the_menu_grant_may_compose() {
    let state = tempfile::tempdir().unwrap();
    let bob = person(state.path(), "bob@example.com", &[]);
    assert_eq!(menus(&bob).await["may_change"], false);
    for (method, path, body) in [
        ("POST", "/api/menus", Some(json!({"title": "Mine"}))),
        ("PUT", "/api/menus/1", Some(json!({"title": "Mine"}))),
        ("DELETE", "/api/menus/1", None),
        ("POST", "/api/menus/1/on", None),
        ("POST", "/api/menus/off", None),
    ] {
        let (status, refusal) = write(&bob, method, path, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{method} {path}");
        assert!(
            refusal["error"]
                .as_str()
                .unwrap()
                .contains("Only the people who host can compose or switch on the guests' menu"),
            "{refusal}"
        );
    }
    assert_eq!(menus(&bob).await["menus"], json!([]));
    bob.stop();
    // Listed with --editor (which, as for the shelf, takes effect with --allow-edits):
    // allowed without a grant.
    let (_dir, file) = common::collection();
    let file = file.to_str().unwrap();
    let bob = person(
        state.path(),
        "bob@example.com",
        &[
            "--recipes-file",
            file,
            "--allow-edits",
            "--editor",
            "Bob@example.com",
        ],
    );
    assert_eq!(menus(&bob).await["may_change"], true);
    let (status, _) = write(&bob, "POST", "/api/menus", Some(json!({"title": "Bob's"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    bob.stop();
    // No household (no --state-dir): no menus, and it says why.
    let bare = Server::start(&["--local-edit"]);
    let (status, _) = write(&bare, "POST", "/api/menus", Some(json!({"title": "X"}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    bare.stop();
}

#[tokio::test]
async fn menu_writes_are_refused_naming_the_field_and_change_nothing() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let field = |(status, answer): (StatusCode, Value)| {
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        answer["field"].as_str().unwrap().to_owned()
    };
    let post = |body: Value| write(&alice, "POST", "/api/menus", Some(body));
    assert_eq!(field(post(json!({"title": ""})).await), "title");
    assert_eq!(field(post(json!({"title": "x".repeat(81)})).await), "title");
    assert_eq!(field(post(json!({"recipes": []})).await), "title");
    assert_eq!(
        field(post(json!({"title": "T", "colour": "red"})).await),
        "colour"
    );
    assert_eq!(
        field(post(json!({"title": "T", "recipes": [{"id": 1}, {"id": 9999}]})).await),
        "recipes[1].id"
    );
    assert_eq!(
        field(post(json!({"title": "T", "recipes": [{"id": 1}, {"id": 1}]})).await),
        "recipes[1].id"
    );
    assert_eq!(
        field(
            post(json!({"title": "T", "recipes": [{"id": 1, "description": "y".repeat(201)}]}))
                .await
        ),
        "recipes[0].description"
    );
    assert_eq!(
        field(post(json!({"title": "T", "can_make_now": "yes"})).await),
        "can_make_now"
    );
    let many: Vec<Value> = (0..101).map(|i| json!({"id": i % 28 + 1})).collect();
    assert_eq!(
        field(post(json!({"title": "T", "recipes": many})).await),
        "recipes"
    );
    // Another site, and not JSON.
    let response = client()
        .post(alice.url("/api/menus"))
        .header("origin", "https://evil.example")
        .header("sec-fetch-site", "cross-site")
        .json(&json!({"title": "Evil"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let response = client()
        .post(alice.url("/api/menus"))
        .headers(same_origin(&alice))
        .header("content-type", "text/plain")
        .body(r#"{"title": "Plain"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(menus(&alice).await["menus"], json!([]));
    // The 50-menu cap.
    for n in 0..50 {
        ok(
            &alice,
            "POST",
            "/api/menus",
            Some(json!({"title": format!("M{n}")})),
        )
        .await;
    }
    assert_eq!(field(post(json!({"title": "One more"})).await), "title");
    assert_eq!(menus(&alice).await["menus"].as_array().unwrap().len(), 50);
    alice.stop();
}

/// `/menu` as a guest's browser gets it: status 200, HTML.
pub(crate) async fn guest_page(server: &Server) -> String {
    let response = client().get(server.url("/menu")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    response.text().await.unwrap()
}

/// The drinks' names on the guest page, in order.
fn drinks(html: &str) -> Vec<String> {
    html.split("<h2>")
        .skip(1)
        .map(|part| {
            let name = part.split("<span>").nth(1).unwrap();
            let name = name.split("</span>").next().unwrap();
            name.replace("&amp;", "&").replace("&#39;", "'")
        })
        .collect()
}

/// Nothing on the guest page leads into the rest of the app: no link, form or field; one
/// script, the change feed's module; one button, "Keep screen on"; and every address it
/// names is one of its own files under `/menu/assets/` (or, a picture, a cover under
/// `/menu/photos/`).
pub(crate) fn nothing_leads_into_the_app(html: &str) {
    for bad in [
        "<a ", "<a\n", "<form", "<input", "<iframe", "<object", "<embed",
    ] {
        assert!(!html.contains(bad), "{bad} in {html}");
    }
    let scripts: Vec<&str> = html
        .match_indices("<script")
        .map(|(i, _)| &html[i..])
        .collect();
    assert_eq!(scripts.len(), 1, "one script: {html}");
    let script = scripts[0].split('>').next().unwrap();
    assert!(
        script.starts_with(r#"<script type="module" src="/menu/assets/js."#)
            && script.ends_with(r#"/menu.js""#),
        "{script}"
    );
    assert_eq!(html.matches("<button").count(), 1, "{html}");
    assert!(html.contains(r#"<button type="button" class="wake" aria-pressed="false" hidden>"#));
    for attr in ["href=\"", "src=\"", "action=\"", "formaction=\""] {
        for (i, _) in html.match_indices(attr) {
            let target = &html[i + attr.len()..];
            let photo = attr == "src=\"" && target.starts_with("/menu/photos/");
            assert!(
                target.starts_with("/menu/assets/") || photo,
                "{attr}{}",
                &target[..40.min(target.len())]
            );
        }
    }
}

#[tokio::test]
async fn the_guest_page_shows_exactly_the_menu_that_is_on_and_nothing_else() {
    // No household: no menu.
    let bare = Server::start(&[]);
    let html = guest_page(&bare).await;
    assert!(html.contains("No menu tonight"), "{html}");
    nothing_leads_into_the_app(&html);
    bare.stop();

    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let html = guest_page(&alice).await;
    assert!(html.contains("No menu tonight"), "{html}");
    assert_eq!(drinks(&html), Vec::<String>::new());

    let friday = ok(
        &alice,
        "POST",
        "/api/menus",
        Some(json!({"title": "Friday <night>", "recipes": [
            {"id": 6, "description": "very cold, very dry"}, {"id": 1}
        ]})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let brunch = ok(
        &alice,
        "POST",
        "/api/menus",
        Some(json!({"title": "Brunch", "recipes": [{"id": 9}, {"id": 2}], "show_ingredients": false})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    // Composed but not on: still none.
    assert!(guest_page(&alice).await.contains("No menu tonight"));

    ok(&alice, "POST", &format!("/api/menus/{friday}/on"), None).await;
    let html = guest_page(&alice).await;
    assert_eq!(drinks(&html), ["Martini", "Negroni"]);
    // How strong each is, as the recipe's own line says it (issue #29's figures).
    assert_eq!(
        html.matches(r#"<small class="menu-strength">≈ "#).count(),
        2,
        "{html}"
    );
    assert!(
        html.contains("<h1>Friday &#60;night&#62;</h1>")
            || html.contains("<h1>Friday &lt;night&gt;</h1>"),
        "{html}"
    );
    assert!(html.contains("very cold, very dry"));
    // Ingredients by name, without measures.
    assert!(
        html.contains(r#"<p class="menu-ingredients">Gin · Campari · Sweet Vermouth</p>"#),
        "{html}"
    );
    assert!(html.contains("#glass-martini"), "{html}");
    nothing_leads_into_the_app(&html);
    assert!(!html.contains("alice"), "no names on the guest page");

    // Switched to the other menu: its drinks only, ingredients hidden.
    ok(&alice, "POST", &format!("/api/menus/{brunch}/on"), None).await;
    let html = guest_page(&alice).await;
    assert_eq!(drinks(&html), ["Mojito", "Daiquiri"]);
    assert!(!html.contains("menu-ingredients"), "{html}");
    assert!(!html.contains("White Rum"), "{html}");
    nothing_leads_into_the_app(&html);

    // Reordered while on: the page follows.
    ok(
        &alice,
        "PUT",
        &format!("/api/menus/{brunch}"),
        Some(json!({"title": "Brunch", "recipes": [{"id": 2}, {"id": 9}]})),
    )
    .await;
    assert_eq!(drinks(&guest_page(&alice).await), ["Daiquiri", "Mojito"]);

    ok(&alice, "POST", "/api/menus/off", None).await;
    let html = guest_page(&alice).await;
    assert!(html.contains("No menu tonight"), "{html}");
    assert_eq!(drinks(&html), Vec::<String>::new());
    alice.stop();
}

#[tokio::test]
async fn a_can_make_now_menu_follows_the_shelf() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let id = ok(
        &alice,
        "POST",
        "/api/menus",
        Some(
            json!({"title": "Tonight", "can_make_now": true, "recipes": [
                {"id": 6, "description": "the house martini"}, {"id": 1}
            ]}),
        ),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    ok(&alice, "POST", &format!("/api/menus/{id}/on"), None).await;
    // An empty shelf makes nothing.
    let html = guest_page(&alice).await;
    assert_eq!(drinks(&html), Vec::<String>::new());
    assert!(html.contains("can be made right now"), "{html}");

    // What /api/bar says the shelf makes, the menu's own first in its order.
    let expected = |bar: &Value, listed: &[u64]| -> Vec<u64> {
        let makes: Vec<u64> = bar["can_make"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let mut ids: Vec<u64> = listed
            .iter()
            .copied()
            .filter(|i| makes.contains(i))
            .collect();
        ids.extend(makes.iter().filter(|i| !listed.contains(i)));
        ids
    };
    let bar = ok(
        &alice,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Gin", "Campari", "Sweet Vermouth"]})),
    )
    .await;
    let want = names(&alice, expected(&bar, &[6, 1])).await;
    assert_eq!(want[0], "Negroni", "{bar}");
    let html = guest_page(&alice).await;
    assert_eq!(drinks(&html), want);
    assert!(!html.contains("the house martini"));

    // Dry vermouth and orange bitters bought: the Martini comes first, described.
    let bar = ok(
        &alice,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Dry Vermouth", "Orange Bitters"]})),
    )
    .await;
    let want = names(&alice, expected(&bar, &[6, 1])).await;
    assert_eq!(&want[..2], ["Martini", "Negroni"]);
    let html = guest_page(&alice).await;
    assert_eq!(drinks(&html), want);
    assert!(html.contains("the house martini"));
    nothing_leads_into_the_app(&html);
    alice.stop();
}

/// The recipes' names, as the API gives them.
async fn names(server: &Server, ids: Vec<u64>) -> Vec<String> {
    let mut names = Vec::new();
    for id in ids {
        let recipe: Value = client()
            .get(server.url(&format!("/api/recipes/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        names.push(recipe["name"].as_str().unwrap().to_owned());
    }
    names
}

/// A menu of `recipes` switched on; its id.
async fn menu_on(server: &Server, body: Value) -> i64 {
    let id = ok(server, "POST", "/api/menus", Some(body)).await["id"]
        .as_i64()
        .unwrap();
    ok(server, "POST", &format!("/api/menus/{id}/on"), None).await;
    id
}

/// `/menu/feed` as the page's script asks it: with the version it shows, if any.
async fn feed(server: &Server, shown: Option<&str>) -> (StatusCode, Option<String>) {
    let mut request = client().get(server.url("/menu/feed"));
    if let Some(v) = shown {
        request = request.header("if-none-match", format!("\"{v}\""));
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    if status == StatusCode::NOT_MODIFIED {
        assert_eq!(response.bytes().await.unwrap().len(), 0);
        return (status, None);
    }
    assert_eq!(status, StatusCode::OK);
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    let body: Value = response.json().await.unwrap();
    let version = body["version"].as_str().unwrap().to_owned();
    assert_eq!(etag, format!("\"{version}\""));
    (status, Some(version))
}

/// The version the guest page says it shows (`data-version` on its `<main>`).
pub(crate) fn page_version(html: &str) -> String {
    let at = html.find("data-version=\"").unwrap() + 14;
    html[at..].split('"').next().unwrap().to_owned()
}

#[tokio::test]
async fn the_change_feed_says_not_modified_until_what_guests_see_changes() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    // No menu: a version all the same, and the page shows it.
    let (_, none) = feed(&alice, None).await;
    let none = none.unwrap();
    assert_eq!(page_version(&guest_page(&alice).await), none);
    assert_eq!(feed(&alice, Some(&none)).await.0, StatusCode::NOT_MODIFIED);

    let id = menu_on(
        &alice,
        json!({"title": "Friday", "recipes": [{"id": 1}, {"id": 6}]}),
    )
    .await;
    let (status, friday) = feed(&alice, Some(&none)).await;
    assert_eq!(status, StatusCode::OK, "switched on: changed");
    let friday = friday.unwrap();
    assert_ne!(friday, none);
    assert_eq!(page_version(&guest_page(&alice).await), friday);
    assert_eq!(
        feed(&alice, Some(&friday)).await.0,
        StatusCode::NOT_MODIFIED
    );

    // Saved unchanged: still the same; a description added: changed.
    let path = format!("/api/menus/{id}");
    let put = |body: Value| ok(&alice, "PUT", &path, Some(body));
    put(json!({"title": "Friday", "recipes": [{"id": 1}, {"id": 6}]})).await;
    assert_eq!(
        feed(&alice, Some(&friday)).await.0,
        StatusCode::NOT_MODIFIED
    );
    put(json!({"title": "Friday", "recipes": [{"id": 1}, {"id": 6, "description": "dry"}]})).await;
    let (_, described) = feed(&alice, Some(&friday)).await;
    let described = described.unwrap();
    // Reordered: changed.
    put(json!({"title": "Friday", "recipes": [{"id": 6, "description": "dry"}, {"id": 1}]})).await;
    let (_, reordered) = feed(&alice, Some(&described)).await;
    let reordered = reordered.unwrap();
    // A "can make now" menu: the shelf changing is a change.
    put(json!({"title": "Friday", "can_make_now": true, "recipes": [{"id": 1}]})).await;
    let (_, can_make) = feed(&alice, Some(&reordered)).await;
    let can_make = can_make.unwrap();
    ok(
        &alice,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Gin", "Campari", "Sweet Vermouth"]})),
    )
    .await;
    let (status, stocked) = feed(&alice, Some(&can_make)).await;
    assert_eq!(status, StatusCode::OK, "the shelf now makes a Negroni");
    assert_eq!(page_version(&guest_page(&alice).await), stocked.unwrap());
    // Switched off: changed, and back to the version of no menu.
    ok(&alice, "POST", "/api/menus/off", None).await;
    assert_eq!(feed(&alice, None).await.1.unwrap(), none);
    alice.stop();
}

#[tokio::test]
async fn the_guests_routes_serve_only_the_menus_own_files() {
    let server = Server::start(&[]);
    let html = guest_page(&server).await;
    let linked: Vec<String> = html
        .split("\"/menu/assets/")
        .skip(1)
        .map(|s| format!("/menu/assets/{}", s.split(['"', '#']).next().unwrap()))
        .collect();
    assert_eq!(linked.len(), 4, "{linked:?}");
    let mut linked = linked;
    // The glass sprite, which a menu with drinks links (by plain name here).
    linked.push("/menu/assets/glasses.svg".into());
    for url in &linked {
        let response = client().get(server.url(url)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{url}");
    }
    // The module the page loads imports its neighbour, served beside it.
    let js = linked.iter().find(|u| u.ends_with("/menu.js")).unwrap();
    let wake = js.replace("/menu.js", "/wake.js");
    let status = client()
        .get(server.url(&wake))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::OK, "{wake}");
    // The app's other files are not there, by hashed or plain name, nor anything above.
    let app_js = js.replace("/menu.js", "/app.js");
    for url in [
        app_js.as_str(),
        "/menu/assets/js/app.js",
        "/menu/assets/sw.js",
        "/menu/assets/icon-512.png",
        "/menu/assets/../api/recipes",
        "/menu/assets/%2e%2e/sw.js",
    ] {
        let response = client().get(server.url(url)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{url}");
        // The guests' route answers a short page, never the app's with its search box and
        // links (a path with `..`, or `%2e%2e`, is made `/menu/…` by the client: the
        // app's own 404).
        let body = response.text().await.unwrap();
        if !url.contains("..") && !url.contains("%2e") {
            assert!(
                !body.contains("<form") && !body.contains("href="),
                "{url}: {body}"
            );
        }
    }
    let status = client()
        .post(server.url("/menu"))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    server.stop();
}

/// The card's QR code, drawn to pixels (resvg) and read back (rqrr) as a phone would.
fn read_qr(html: &str) -> String {
    let start = html.find("<svg class=\"qr\"").expect("a QR code");
    let end = start + html[start..].find("</svg>").unwrap() + 6;
    let tree = resvg::usvg::Tree::from_str(&html[start..end], &resvg::usvg::Options::default())
        .expect("the QR code is SVG");
    let scale = 8.0;
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil() as u32,
        (size.height() * scale).ceil() as u32,
    );
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(w as usize, h as usize, |x, y| {
        let p = pixmap.pixel(x as u32, y as u32).unwrap();
        ((u16::from(p.red()) + u16::from(p.green()) + u16::from(p.blue())) / 3) as u8
    });
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code");
    grids[0].decode().expect("the QR code reads").1
}

#[tokio::test]
async fn the_printed_card_has_the_drinks_print_css_and_a_qr_code_of_the_guests_address() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    menu_on(
        &alice,
        json!({"title": "Friday", "recipes": [{"id": 6, "description": "very cold"}, {"id": 1}]}),
    )
    .await;
    let card = |query: &'static str, host: Option<String>| {
        let mut request = client().get(alice.url(&format!("/menu/print{query}")));
        if let Some(host) = host {
            request = request.header("host", host);
        }
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            response.text().await.unwrap()
        }
    };
    let html = card("", None).await;
    assert_eq!(drinks(&html), ["Martini", "Negroni"]);
    assert!(html.contains("very cold"));
    assert!(
        html.contains(r#"class="card card-a5 card-columns-1"#),
        "{html}"
    );
    // The guests' address: this app as the host reached it, over plain HTTP (--local).
    assert_eq!(read_qr(&html), alice.url("/menu"));
    let port = alice.base.rsplit(':').next().unwrap().to_owned();
    let other = card(
        "?size=letter&columns=2",
        Some(format!("bar.localhost:{port}")),
    )
    .await;
    assert_eq!(read_qr(&other), format!("http://bar.localhost:{port}/menu"));
    assert!(other.contains(r#"class="card card-letter card-columns-2"#));
    // Nonsense asks for the defaults.
    let odd = card("?size=a3&columns=9&menu=x", None).await;
    assert!(odd.contains(r#"class="card card-a5 card-columns-1"#));
    // No inline style or script: the strict CSP holds.
    for page in [&html, &other] {
        assert!(!page.contains("style="), "no style attribute");
        assert!(!page.contains("<style"), "no style element");
        assert!(!page.contains("<script"), "no script");
    }
    // The print CSS: one page of each paper size, named pages chosen by the card's class.
    let css_url = html
        .split("href=\"")
        .map(|s| s.split('"').next().unwrap())
        .find(|u| u.contains("/menu.") && u.ends_with(".css"))
        .unwrap();
    let css = client()
        .get(alice.url(css_url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for rule in [
        "@page card-a5 { size: A5",
        "@page card-a4 { size: A4",
        "@page card-letter { size: letter",
        ".card-on-a5 { page: card-a5; }",
        ".card-columns-2 .menu-drinks { columns: 2;",
        "@media print",
    ] {
        assert!(css.contains(rule), "{rule} in menu.css");
    }
    alice.stop();
}

/// A form's POST from the app's own page (with `csrf` as its token field, if any), and
/// its status and `Location`.
async fn post_form(
    server: &Server,
    path: &str,
    origin: Option<&str>,
    csrf: Option<&str>,
) -> (StatusCode, String) {
    let mut request = client().post(server.url(path));
    request = match origin {
        None => request.headers(same_origin(server)),
        Some(other) => request.header("origin", other),
    };
    if let Some(csrf) = csrf {
        request = request.form(&[("csrf", csrf)]);
    }
    let response = request.send().await.unwrap();
    let location = response
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (response.status(), location)
}

/// The token the page's switch forms carry.
fn csrf(html: &str) -> String {
    let at = html.find(r#"name="csrf" value=""#).expect("a form token") + 19;
    html[at..at + html[at..].find('"').unwrap()].to_owned()
}

async fn menus_page(server: &Server) -> String {
    let response = client().get(server.url("/menus")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "private, no-store");
    response.text().await.unwrap()
}

#[tokio::test]
async fn the_composing_page_lists_the_menus_and_switches_them_by_form_for_composers_only() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let id = ok(
        &alice,
        "POST",
        "/api/menus",
        Some(json!({"title": "Friday", "recipes": [{"id": 6}, {"id": 1}]})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let html = menus_page(&alice).await;
    assert!(html.contains("Friday"), "{html}");
    assert!(
        html.contains("<li>Martini</li><li>Negroni</li>"),
        "the drinks in order: {html}"
    );
    assert!(html.contains(&format!(r#"action="/menus/{id}/on""#)));
    assert!(html.contains(&format!(r#"href="/menu/print?menu={id}""#)));
    assert!(html.contains(r#"id="menu-editor""#), "the editor, for JS");

    // Switched on and off by the forms: a redirect back, and the menu as the API says.
    let token = csrf(&html);
    let token = Some(token.as_str());
    let (status, location) = post_form(&alice, &format!("/menus/{id}/on"), None, token).await;
    assert_eq!(
        (status, location.as_str()),
        (StatusCode::SEE_OTHER, "/menus")
    );
    assert_eq!(menus(&alice).await["menus"][0]["on"], true);
    assert!(menus_page(&alice).await.contains(r#"action="/menus/off""#));
    // From another site: refused, nothing changed.
    let (status, _) = post_form(&alice, "/menus/off", Some("http://evil.example"), token).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(menus(&alice).await["menus"][0]["on"], true);
    let (status, _) = post_form(&alice, "/menus/off", None, token).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(menus(&alice).await["menus"][0]["on"], false);
    let (status, _) = post_form(&alice, "/menus/999/on", None, token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    alice.stop();

    // Someone without the grant sees why they may not change the menus, and no draft
    // (none is on); the forms are not there and refuse if sent anyway.
    let bob = person(state.path(), "bob@example.com", &[]);
    let html = menus_page(&bob).await;
    assert!(
        !html.contains("Friday") && !html.contains("<li>Martini</li>"),
        "{html}"
    );
    assert!(!html.contains(r#"method="post""#), "{html}");
    assert!(!html.contains(r#"name="csrf""#), "{html}");
    assert!(!html.contains(r#"id="menu-editor""#));
    assert!(
        html.contains("Only the people who host can compose"),
        "{html}"
    );
    let (status, _) = post_form(&bob, &format!("/menus/{id}/on"), None, token).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    bob.stop();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    assert_eq!(menus(&alice).await["menus"][0]["on"], false);
    alice.stop();
}

#[tokio::test]
async fn the_switch_forms_need_the_token_of_their_page() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let id = ok(
        &alice,
        "POST",
        "/api/menus",
        Some(json!({"title": "Friday"})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let on = format!("/menus/{id}/on");
    let token = csrf(&menus_page(&alice).await);
    assert_eq!(token.len(), 32, "{token}");
    // The token with its last digit changed (never the same digit: the check must see
    // a token that differs, whatever the random key made).
    let last = if token.ends_with('0') { '1' } else { '0' };
    let wrong = format!("{}{last}", &token[..31]);
    assert_ne!(wrong, token);
    for sent in [None, Some(""), Some(wrong.as_str())] {
        let (status, _) = post_form(&alice, &on, None, sent).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{sent:?}");
        assert_eq!(menus(&alice).await["menus"][0]["on"], false, "{sent:?}");
    }
    let (status, _) = post_form(&alice, &on, None, Some(&token)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(menus(&alice).await["menus"][0]["on"], true);
    for sent in [None, Some(wrong.as_str())] {
        let (status, _) = post_form(&alice, "/menus/off", None, sent).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{sent:?}");
        assert_eq!(menus(&alice).await["menus"][0]["on"], true, "{sent:?}");
    }
    let (status, _) = post_form(&alice, "/menus/off", None, Some(&token)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(menus(&alice).await["menus"][0]["on"], false);
    alice.stop();
    // A token is the person's: bob, who may compose too, cannot send alice's.
    let bob = person(state.path(), "bob@example.com", &["--local-edit"]);
    let (status, _) = post_form(&bob, &on, None, Some(&token)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let bobs = csrf(&menus_page(&bob).await);
    assert_ne!(bobs, token);
    let (status, _) = post_form(&bob, &on, None, Some(&bobs)).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    bob.stop();
}

/// What `path` answers `server`: its status and its body as text.
async fn get(server: &Server, path: &str) -> (StatusCode, String) {
    let response = client().get(server.url(path)).send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

#[tokio::test]
async fn a_menu_that_is_off_is_shown_only_to_who_may_compose() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let draft = ok(
        &alice,
        "POST",
        "/api/menus",
        Some(json!({"title": "Secret Birthday Draft",
            "recipes": [{"id": 1, "description": "the surprise drink"}]})),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let tonight = menu_on(&alice, json!({"title": "Friday", "recipes": [{"id": 6}]})).await;
    let secret = ["Secret Birthday Draft", "the surprise drink"];
    let print = format!("/menu/print?menu={draft}");
    // The composer prints and lists the draft.
    let (status, card) = get(&alice, &print).await;
    assert_eq!(status, StatusCode::OK);
    assert!(secret.iter().all(|s| card.contains(s)), "{card}");
    let listed = menus(&alice).await.to_string();
    assert!(secret.iter().all(|s| listed.contains(s)), "{listed}");
    assert!(get(&alice, "/menus").await.1.contains(secret[0]));
    alice.stop();

    // Bob may not compose: the draft's title and description appear nowhere for him;
    // asked for by id, the card is the menu that is on.
    let bob = person(state.path(), "bob@example.com", &[]);
    let (status, card) = get(&bob, &print).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!secret.iter().any(|s| card.contains(s)), "{card}");
    assert!(card.contains("Friday"), "the menu that is on: {card}");
    assert_eq!(drinks(&card), ["Martini"]);
    let listed = menus(&bob).await;
    assert!(
        !secret.iter().any(|s| listed.to_string().contains(s)),
        "{listed}"
    );
    assert_eq!(listed["menus"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["menus"][0]["id"], tonight, "{listed}");
    assert_eq!(listed["may_change"], false);
    let (_, page) = get(&bob, "/menus").await;
    assert!(!secret.iter().any(|s| page.contains(s)), "{page}");
    assert!(page.contains("Friday"), "{page}");
    for path in ["/menu", "/menu/feed", "/menu/print"] {
        let (_, body) = get(&bob, path).await;
        assert!(!secret.iter().any(|s| body.contains(s)), "{path}: {body}");
    }
    bob.stop();
}
