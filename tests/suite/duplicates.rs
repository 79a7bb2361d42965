//! No silent duplicates: a second recipe of a name the collection has (folded: case,
//! accents and spaces do not matter) is asked about first, through the API, a change of
//! several and the plain-HTML form, and saved only when the editor says so.

use crate::common;

use common::{Server, client, collection, editor, same_origin};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::Path;

fn drink(name: &str) -> Value {
    json!({"name": name, "glass": ["Rocks"], "ingredients": [
        {"name": "Gin", "measure": "30", "unit": "ml"},
        {"name": "Campari", "measure": "30", "unit": "ml"},
        {"name": "Sweet Vermouth", "measure": "30", "unit": "ml"}]})
}

async fn send(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    body: &Value,
) -> reqwest::Response {
    common::send_change(server, method, path, Some(body)).await
}

/// The id of the sample's recipe of this name.
async fn id_of(server: &Server, name: &str) -> u64 {
    let all: Vec<Value> = client()
        .get(server.url("/api/recipes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    all.iter()
        .find(|r| r["name"] == name)
        .and_then(|r| r["id"].as_u64())
        .expect("in the sample")
}

fn files(path: &Path) -> (Vec<u8>, Vec<u8>) {
    let journal = path.with_extension("json.journal");
    (
        std::fs::read(path).unwrap(),
        std::fs::read(journal).unwrap_or_default(),
    )
}

#[tokio::test]
async fn a_second_recipe_of_a_name_is_asked_about_and_saved_only_when_meant() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let negroni = id_of(&server, "Negroni").await;
    let before = files(&path);

    let refused = send(
        &server,
        reqwest::Method::POST,
        "/api/recipes",
        &drink("  negroni "),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(
        body["duplicates"],
        json!([{"field": "name", "name": "negroni", "existing_id": negroni}])
    );
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("already here (recipe"),
        "{body}"
    );
    assert_eq!(
        files(&path),
        before,
        "a refused save leaves no trace, history included"
    );

    let odd = send(
        &server,
        reqwest::Method::POST,
        "/api/recipes",
        &json!({"duplicate": "yes", "name": "Negroni"}),
    )
    .await;
    assert_eq!(odd.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let odd: Value = odd.json().await.unwrap();
    assert_eq!(odd["problems"][0]["field"], "duplicate");

    let mut meant = drink("Negroni");
    meant["duplicate"] = json!(true);
    let saved = send(&server, reqwest::Method::POST, "/api/recipes", &meant).await;
    assert_eq!(saved.status(), StatusCode::CREATED);
    let saved: Value = saved.json().await.unwrap();
    assert_ne!(saved["recipe"]["id"].as_u64(), Some(negroni));
    assert!(
        saved["recipe"].get("duplicate").is_none(),
        "the flag is not a field of the recipe"
    );
}

#[tokio::test]
async fn a_rename_onto_another_recipes_name_is_asked_about_too() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let negroni = id_of(&server, "Negroni").await;
    let daiquiri = id_of(&server, "Daiquiri").await;
    let path_of = |id: u64| format!("/api/recipes/{id}");
    let onto = send(
        &server,
        reqwest::Method::PUT,
        &path_of(daiquiri),
        &drink("NEGRONI"),
    )
    .await;
    assert_eq!(onto.status(), StatusCode::CONFLICT);
    let body: Value = onto.json().await.unwrap();
    assert_eq!(body["duplicates"][0]["existing_id"], negroni);
    // Its own name is no duplicate of itself.
    let own = send(
        &server,
        reqwest::Method::PUT,
        &path_of(negroni),
        &drink("Negroni"),
    )
    .await;
    assert_eq!(own.status(), StatusCode::OK);
}

#[tokio::test]
async fn in_a_change_of_several_each_duplicate_is_named_and_none_is_saved() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let negroni = id_of(&server, "Negroni").await;
    let before = files(&path);
    let batch = json!({"recipes": [drink("House Spritz"), drink("Negroni")]});
    let refused = send(&server, reqwest::Method::POST, "/api/recipes/bulk", &batch).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(
        body["duplicates"],
        json!([{"field": "recipes[1].name", "name": "Negroni", "existing_id": negroni}])
    );
    assert_eq!(files(&path), before);
    let mut meant = batch.clone();
    meant["duplicate"] = json!(true);
    let saved = send(&server, reqwest::Method::POST, "/api/recipes/bulk", &meant).await;
    assert_eq!(saved.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn the_form_without_javascript_asks_and_saves_once_ticked() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let negroni = id_of(&server, "Negroni").await;
    let page = client()
        .get(server.url("/recipes/new"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut fields = common::hidden_inputs(&page);
    for (name, value) in [
        ("name", "Négroni"),
        ("glass", "Rocks"),
        ("ing-measure", "30"),
        ("ing-unit", "ml"),
        ("ing-name", "Gin"),
        ("op", "save"),
    ] {
        fields.push((name.into(), value.into()));
    }
    let post = |fields: Vec<(String, String)>| {
        client()
            .post(server.url("/recipes/new"))
            .headers(same_origin(&server))
            .form(&fields)
            .send()
    };
    let asked = post(fields.clone()).await.unwrap();
    assert_eq!(asked.status(), StatusCode::CONFLICT);
    let html = asked.text().await.unwrap();
    assert!(
        html.contains("is already here: <a href=\"/recipes/"),
        "{html}"
    );
    assert!(html.contains(&format!("href=\"/recipes/{negroni}\"")));
    assert!(
        html.contains("name=\"duplicate\" value=\"1\""),
        "the box to tick"
    );
    assert!(html.contains("value=\"Négroni\""), "what was typed is kept");
    let count = || {
        std::fs::read_to_string(&path)
            .unwrap()
            .matches("\"Négroni\"")
            .count()
    };
    assert_eq!(count(), 0);
    fields.push(("duplicate".into(), "1".into()));
    let saved = post(fields).await.unwrap();
    assert_eq!(
        saved.status(),
        StatusCode::SEE_OTHER,
        "{}",
        saved.text().await.unwrap_or_default()
    );
    assert_eq!(count(), 1);
}
