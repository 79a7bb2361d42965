//! The write guard, walked whole: every write route the router registers
//! (`libations::web::registered`, built from the router's own table) × who asks (nobody
//! the tailnet names, a person without grants, a shelf keeper, an editor, and an editor's
//! request from another site's page), each cell's status checked against the real binary.
//! A write route added without a row here fails `every_write_route_has_a_row`.

use crate::common;

use common::{Server, client, collection, same_origin};
use reqwest::{Method, StatusCode};
use std::collections::BTreeSet;
use std::path::Path;

/// Who asks: the columns of the table.
#[derive(Debug, Clone, Copy)]
enum Who {
    Nobody,
    Person,
    ShelfKeeper,
    Editor,
    Foreign,
}

const WHO: [Who; 5] = [
    Who::Nobody,
    Who::Person,
    Who::ShelfKeeper,
    Who::Foreign,
    Who::Editor,
];

/// A body: JSON, a form (its `csrf` added from the page that gives it), or none.
#[derive(Debug, Clone, Copy)]
enum Body {
    None,
    Json(&'static str),
    Form(&'static str),
}

/// A row: the route as the router names it, the address asked, the body, and the status
/// for [nobody, a person, a shelf keeper, an editor]; from another site's page every
/// write is 403.
struct Row {
    method: Method,
    route: &'static str,
    at: &'static str,
    body: Body,
    status: [u16; 4],
}

const NO: u16 = 403;

fn row(method: Method, route: &'static str, at: &'static str, body: Body, status: [u16; 4]) -> Row {
    Row {
        method,
        route,
        at,
        body,
        status,
    }
}

/// Every write route. The admitted cells answer what the request asks for (a recipe
/// without a name is 422, a change without `If-Match` 428, a menu that is not there 404…):
/// anything but the guard's 403. The editor's cells run last, after everyone else's.
fn rows() -> Vec<Row> {
    use Body::{Form, Json};
    let (post, put, delete) = (Method::POST, Method::PUT, Method::DELETE);
    let edit = |ok| [NO, NO, NO, ok];
    let own = |ok| [NO, ok, ok, ok];
    let shelf = |ok| [NO, NO, ok, ok];
    vec![
        row(
            post.clone(),
            "/recipes/new",
            "/recipes/new",
            Form("op=save"),
            edit(422),
        ),
        row(
            post.clone(),
            "/recipes/{id}/edit",
            "/recipes/1/edit",
            // Stale and without a name: the problem (422) before the version (409).
            Form("op=save&version=x"),
            edit(422),
        ),
        row(
            post.clone(),
            "/recipes/{id}/delete",
            "/recipes/1/delete",
            Form("version=x"),
            edit(409),
        ),
        row(
            post.clone(),
            "/recipes/import",
            "/recipes/import",
            Form("source="),
            edit(422),
        ),
        row(
            post.clone(),
            "/recipes/import/save",
            "/recipes/import/save",
            Form("recipes=x"),
            edit(400),
        ),
        row(
            post.clone(),
            "/changes/{n}/undo",
            "/changes/999/undo",
            Form(""),
            edit(404),
        ),
        row(
            post.clone(),
            "/api/recipes",
            "/api/recipes",
            Json("{}"),
            edit(422),
        ),
        row(
            post.clone(),
            "/api/recipes/bulk",
            "/api/recipes/bulk",
            Json("{}"),
            edit(422),
        ),
        row(
            put.clone(),
            "/api/recipes/{id}",
            "/api/recipes/1",
            Json("{}"),
            edit(428),
        ),
        row(
            delete.clone(),
            "/api/recipes/{id}",
            "/api/recipes/1",
            Body::None,
            edit(428),
        ),
        row(
            post.clone(),
            "/api/import",
            "/api/import",
            Json("{\"html\": 1}"),
            edit(422),
        ),
        row(
            post.clone(),
            "/api/changes/{n}/undo",
            "/api/changes/999/undo",
            Json(""),
            edit(404),
        ),
        row(
            put.clone(),
            "/api/me/favourites/{id}",
            "/api/me/favourites/1",
            Body::None,
            own(200),
        ),
        row(
            delete.clone(),
            "/api/me/favourites/{id}",
            "/api/me/favourites/1",
            Body::None,
            own(200),
        ),
        row(
            put.clone(),
            "/api/me/ratings/{id}",
            "/api/me/ratings/1",
            Json("{\"stars\": 4}"),
            own(200),
        ),
        row(
            delete.clone(),
            "/api/me/ratings/{id}",
            "/api/me/ratings/1",
            Body::None,
            own(200),
        ),
        row(
            put.clone(),
            "/api/me/notes/{id}",
            "/api/me/notes/1",
            Json("{\"text\": \"x\"}"),
            own(200),
        ),
        row(
            delete.clone(),
            "/api/me/notes/{id}",
            "/api/me/notes/1",
            Body::None,
            own(200),
        ),
        row(
            post.clone(),
            "/api/me/made/{id}",
            "/api/me/made/1",
            Body::None,
            own(200),
        ),
        row(
            delete.clone(),
            "/api/me/made/{id}",
            "/api/me/made/1",
            Body::None,
            own(400),
        ),
        row(
            put.clone(),
            "/api/bar/shelf",
            "/api/bar/shelf",
            Json("{\"have\": [\"Gin\"]}"),
            shelf(200),
        ),
        row(
            put.clone(),
            "/api/bar/strengths",
            "/api/bar/strengths",
            Json("{\"name\": \"Gin\", \"abv\": 41}"),
            shelf(200),
        ),
        row(
            put.clone(),
            "/api/bar/rules",
            "/api/bar/rules",
            Json("{\"have\": \"Dry curaçao\", \"wanted\": \"Triple sec\"}"),
            shelf(200),
        ),
        row(
            put.clone(),
            "/api/bar/shopping",
            "/api/bar/shopping",
            Json("{\"add\": [\"Gin\"]}"),
            shelf(200),
        ),
        row(
            post.clone(),
            "/shopping",
            "/shopping",
            Form("op=add&name=Gin"),
            shelf(303),
        ),
        row(
            post.clone(),
            "/api/recipes/{id}/photos",
            "/api/recipes/1/photos",
            Body::None,
            own(415),
        ),
        row(
            delete.clone(),
            "/api/recipes/{id}/photos/{photo}",
            "/api/recipes/1/photos/999",
            Body::None,
            own(404),
        ),
        row(
            post.clone(),
            "/api/recipes/{id}/photos/{photo}/restore",
            "/api/recipes/1/photos/999/restore",
            Body::None,
            own(404),
        ),
        row(
            put.clone(),
            "/api/recipes/{id}/photos/{photo}/cover",
            "/api/recipes/1/photos/999/cover",
            Body::None,
            edit(404),
        ),
        row(
            post.clone(),
            "/recipes/{id}/photos",
            "/recipes/1/photos",
            Form(""),
            own(415),
        ),
        row(
            post.clone(),
            "/recipes/{id}/photos/{photo}/delete",
            "/recipes/1/photos/999/delete",
            Form("confirm=yes"),
            own(404),
        ),
        row(
            post.clone(),
            "/recipes/{id}/photos/{photo}/restore",
            "/recipes/1/photos/999/restore",
            Form(""),
            own(404),
        ),
        row(
            post.clone(),
            "/recipes/{id}/photos/{photo}/cover",
            "/recipes/1/photos/999/cover",
            Form(""),
            edit(404),
        ),
        row(
            post.clone(),
            "/api/household/upload",
            "/api/household/upload",
            Json("{}"),
            edit(422),
        ),
        row(
            post.clone(),
            "/api/menus",
            "/api/menus",
            Json("{\"title\": \"T\"}"),
            edit(201),
        ),
        row(
            post.clone(),
            "/api/menus/off",
            "/api/menus/off",
            Body::None,
            edit(200),
        ),
        row(
            put.clone(),
            "/api/menus/{id}",
            "/api/menus/999",
            Json("{\"title\": \"T\"}"),
            edit(404),
        ),
        row(
            delete.clone(),
            "/api/menus/{id}",
            "/api/menus/999",
            Body::None,
            edit(404),
        ),
        row(
            post.clone(),
            "/api/menus/{id}/on",
            "/api/menus/999/on",
            Body::None,
            edit(404),
        ),
        row(
            post.clone(),
            "/menus/off",
            "/menus/off",
            Form(""),
            edit(303),
        ),
        row(
            post.clone(),
            "/menus/{id}/on",
            "/menus/999/on",
            Form(""),
            edit(404),
        ),
    ]
}

/// The binary as `who` on the household in `state` and the collection at `recipes`,
/// editing on.
fn start(who: Who, state: &Path, recipes: &Path) -> Server {
    let mut args = vec![
        "--state-dir",
        state.to_str().unwrap(),
        "--recipes-file",
        recipes.to_str().unwrap(),
        "--allow-edits",
        "--edits-per-minute",
        "1000",
    ];
    args.extend_from_slice(match who {
        Who::Nobody => &["--local-nobody"][..],
        Who::Person => &["--local-identity", "bob@example.com"],
        Who::ShelfKeeper => &["--local-identity", "carol@example.com", "--local-shelf"],
        Who::Editor | Who::Foreign => &["--local-identity", "alice@example.com", "--local-edit"],
    });
    Server::start(&args)
}

/// The form token a page gives this visitor, or none when it gives them no form.
async fn token(server: &Server, page: &str) -> String {
    let html = client().get(server.url(page)).send().await.unwrap();
    let html = html.text().await.unwrap();
    html.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned()
}

async fn ask(server: &Server, who: Who, row: &Row) -> (StatusCode, String) {
    let mut request = client().request(row.method.clone(), server.url(row.at));
    request = match who {
        Who::Foreign => request.header("origin", "https://evil.example"),
        _ => request.headers(same_origin(server)),
    };
    request = match row.body {
        Body::None => request,
        Body::Json(json) => request
            .header("content-type", "application/json")
            .body(json),
        Body::Form(fields) => {
            // The token of the page that sends this form (`/menus` shows its forms only
            // once there is a menu: the rows before make one).
            let page = if row.at.starts_with("/menus") {
                "/menus"
            } else if row.at.starts_with("/shopping") {
                "/shopping"
            } else if row.at.starts_with("/recipes/1/photos") {
                // The recipe's page, which has the photo form for a person.
                "/recipes/1"
            } else {
                "/recipes/new"
            };
            let csrf = token(server, page).await;
            let body = format!("csrf={csrf}&{fields}");
            request
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body)
        }
    };
    let r = request.send().await.unwrap();
    let status = r.status();
    (status, r.text().await.unwrap())
}

#[test]
fn every_write_route_has_a_row() {
    let registered: BTreeSet<(String, String)> = libations::web::registered()
        .into_iter()
        .filter(|r| r.method != Method::GET)
        .map(|r| (r.method.to_string(), r.path.to_owned()))
        .collect();
    let covered: BTreeSet<(String, String)> = rows()
        .iter()
        .map(|r| (r.method.to_string(), r.route.to_owned()))
        .collect();
    assert!(!registered.is_empty());
    let missing: Vec<_> = registered.difference(&covered).collect();
    let extra: Vec<_> = covered.difference(&registered).collect();
    assert!(
        missing.is_empty(),
        "write routes without a row: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "rows for routes the router has not: {extra:?}"
    );
}

#[tokio::test]
async fn each_write_route_admits_exactly_who_may_write() {
    let (dir, recipes) = collection();
    let state = dir.path().join("state");
    let mut wrong = Vec::new();
    for who in WHO {
        let server = start(who, &state, &recipes);
        for row in rows() {
            let want = match who {
                Who::Nobody => row.status[0],
                Who::Person => row.status[1],
                Who::ShelfKeeper => row.status[2],
                Who::Editor => row.status[3],
                Who::Foreign => NO,
            };
            let (status, body) = ask(&server, who, &row).await;
            let what = format!("{who:?} {} {}", row.method, row.at);
            if status.as_u16() != want {
                wrong.push(format!("{what}: {status}, not {want}: {body:.200}"));
            } else if want == NO && row.at.starts_with("/api/") {
                // The guard's refusal under /api/ is the API's JSON, saying why.
                let json: serde_json::Value = serde_json::from_str(&body).unwrap();
                assert!(
                    json["error"].as_str().is_some_and(|e| !e.is_empty()),
                    "{what}"
                );
                // In words a person reads, not the tailnet policy's JSON.
                let said = json["error"].as_str().unwrap_or_default();
                if said.contains('{') {
                    wrong.push(format!("{what}: says why in policy JSON: {said}"));
                }
            }
        }
        server.stop();
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
