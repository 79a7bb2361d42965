//! The household's shopping list over HTTP, against the real binary: two people on one
//! state directory (a restart with another `--local-identity`) share one list; buying an
//! item puts it on the shelf; a person without the shelf grant reads it but is refused a
//! change (JSON naming why, nothing written); an older change from a phone that was
//! offline cannot bring back an item removed since; refusals name the field and the limit;
//! `/shopping` without JavaScript changes it through its forms.

use crate::common;

use common::household::{person, write};
use common::{Server, client, same_origin};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::Path;

fn keeper(state: &Path, login: &str) -> Server {
    person(state, login, &["--local-shelf"])
}

async fn get(server: &Server, path: &str) -> Value {
    let response = client().get(server.url(path)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

fn names(list: &Value) -> Vec<(String, bool)> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["name"].as_str().unwrap().to_owned(), i["got"] == true))
        .collect()
}

#[tokio::test]
async fn two_people_share_one_list_and_bought_puts_it_on_the_shelf() {
    let state = tempfile::tempdir().unwrap();
    let alice = keeper(state.path(), "alice@example.com");
    let (status, answer) = write(
        &alice,
        "PUT",
        "/api/bar/shopping",
        Some(json!({"add": ["Maraschino Liqueur", " campari "]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    drop(alice);
    let bob = keeper(state.path(), "bob@example.com");
    let list = get(&bob, "/api/bar/shopping").await;
    assert_eq!(
        names(&list),
        // Added in one change: by name.
        [
            ("campari".into(), false),
            ("Maraschino Liqueur".into(), false)
        ]
    );
    assert_eq!(list["items"][0]["added_by"], "alice");
    assert_eq!(list["may_change"], true);
    let shelf = get(&bob, "/api/bar").await;
    assert!(
        !shelf["shelf"]
            .as_array()
            .unwrap()
            .contains(&json!("maraschino liqueur"))
    );
    let (status, answer) = write(
        &bob,
        "PUT",
        "/api/bar/shopping",
        Some(json!({"bought": ["MARASCHINO LIQUEUR"], "add": ["Campari"]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        names(&answer),
        [
            ("campari".into(), false),
            ("Maraschino Liqueur".into(), true)
        ]
    );
    let shelf = get(&bob, "/api/bar").await;
    assert!(
        shelf["shelf"]
            .as_array()
            .unwrap()
            .contains(&json!("maraschino liqueur")),
        "{shelf}"
    );
    drop(bob);
    // Alice again: she sees Bob's purchase, and the shelf has it.
    let alice = keeper(state.path(), "alice@example.com");
    let list = get(&alice, "/api/bar/shopping").await;
    assert_eq!(names(&list)[1], ("Maraschino Liqueur".into(), true));
}

#[tokio::test]
async fn a_person_without_the_shelf_grant_reads_but_is_refused_and_nothing_is_written() {
    let state = tempfile::tempdir().unwrap();
    let alice = keeper(state.path(), "alice@example.com");
    write(
        &alice,
        "PUT",
        "/api/bar/shopping",
        Some(json!({"add": ["Gin"]})),
    )
    .await;
    drop(alice);
    let carol = person(state.path(), "carol@example.com", &[]);
    let list = get(&carol, "/api/bar/shopping").await;
    assert_eq!(names(&list), [("Gin".into(), false)]);
    assert_eq!(list["may_change"], false);
    let (status, answer) = write(
        &carol,
        "PUT",
        "/api/bar/shopping",
        Some(json!({"bought": ["Gin"], "add": ["Rum"]})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("shelf"),
        "{answer}"
    );
    assert_eq!(
        names(&get(&carol, "/api/bar/shopping").await),
        [("Gin".into(), false)]
    );
    assert!(
        get(&carol, "/api/bar").await["shelf"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Without JavaScript: the list is there, and no form to change it.
    let page = client().get(carol.url("/shopping")).send().await.unwrap();
    let html = page.text().await.unwrap();
    assert!(
        html.contains(">Gin<") && !html.contains("name=\"csrf\""),
        "{html}"
    );
}

#[tokio::test]
async fn an_older_offline_change_cannot_bring_back_a_removed_item() {
    let state = tempfile::tempdir().unwrap();
    let alice = keeper(state.path(), "alice@example.com");
    let now = libations::household::now_ms();
    let put = |body: Value| write(&alice, "PUT", "/api/bar/shopping", Some(body));
    assert_eq!(
        put(json!({"add": ["Orgeat"], "at": now - 60_000})).await.0,
        StatusCode::OK
    );
    assert_eq!(
        put(json!({"remove": ["orgeat"], "at": now - 10_000}))
            .await
            .0,
        StatusCode::OK
    );
    // Bob's phone was offline: his add (and his "bought") were made before the removal.
    let (status, answer) =
        put(json!({"add": ["Orgeat"], "got": ["Orgeat"], "at": now - 30_000})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert!(names(&answer).is_empty(), "{answer}");
    // A change made after the removal does bring it back.
    let (_, answer) = put(json!({"add": ["Orgeat"]})).await;
    assert_eq!(names(&answer), [("Orgeat".into(), false)]);
}

#[tokio::test]
async fn refusals_name_the_field_and_the_limit_and_leave_no_trace() {
    let state = tempfile::tempdir().unwrap();
    let alice = keeper(state.path(), "alice@example.com");
    let long = "x".repeat(201);
    let (status, answer) = write(
        &alice,
        "PUT",
        "/api/bar/shopping",
        Some(json!({"add": ["Gin", long]})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["field"], "add[1]", "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("200"),
        "{answer}"
    );
    let many: Vec<String> = (0..201).map(|i| format!("Bottle {i}")).collect();
    let (status, answer) = write(
        &alice,
        "PUT",
        "/api/bar/shopping",
        Some(json!({ "add": many })),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("200 items"),
        "{answer}"
    );
    let (status, answer) = write(
        &alice,
        "PUT",
        "/api/bar/shopping",
        Some(json!({"buy": ["Gin"]})),
    )
    .await;
    assert_eq!(status.as_u16() / 100, 4, "{answer}");
    assert!(answer["error"].is_string(), "{answer}");
    assert!(names(&get(&alice, "/api/bar/shopping").await).is_empty());
}

#[tokio::test]
async fn without_javascript_the_forms_add_buy_and_remove() {
    let state = tempfile::tempdir().unwrap();
    let alice = keeper(state.path(), "alice@example.com");
    let html = client().get(alice.url("/shopping")).send().await.unwrap();
    let html = html.text().await.unwrap();
    let csrf = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let post = |fields: String| {
        client()
            .post(alice.url("/shopping"))
            .headers(same_origin(&alice))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("csrf={csrf}&{fields}"))
            .send()
    };
    assert_eq!(
        post("op=add&name=Lemons".into()).await.unwrap().status(),
        StatusCode::SEE_OTHER
    );
    assert_eq!(
        post("op=add&name=Limes".into()).await.unwrap().status(),
        StatusCode::SEE_OTHER
    );
    assert_eq!(
        post("op=bought&name=Lemons".into()).await.unwrap().status(),
        StatusCode::SEE_OTHER
    );
    assert_eq!(
        post("op=remove&name=Limes".into()).await.unwrap().status(),
        StatusCode::SEE_OTHER
    );
    let list = get(&alice, "/api/bar/shopping").await;
    assert_eq!(names(&list), [("Lemons".into(), true)]);
    assert!(
        get(&alice, "/api/bar").await["shelf"]
            .as_array()
            .unwrap()
            .contains(&json!("lemons"))
    );
    let page = client()
        .get(alice.url("/shopping"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(">Lemons<") && page.contains("Remove bought"),
        "{page}"
    );
    // A form from another page (no token) is refused; nothing changes.
    let refused = client()
        .post(alice.url("/shopping"))
        .headers(same_origin(&alice))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("op=clear")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        post("op=clear".into()).await.unwrap().status(),
        StatusCode::SEE_OTHER
    );
    assert!(names(&get(&alice, "/api/bar/shopping").await).is_empty());
}
