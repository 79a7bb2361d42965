//! The household's own rules over HTTP, against the real binary and the real collections:
//! a rule added ("Dry curaçao for Triple sec", "any bourbon for rye") changes what
//! `GET /api/bar` and `/?q=can:make` answer, says so in the household's words, and taken
//! back changes them back; missing one and best next bottle stop naming what a rule meets;
//! a person without the shelf grant is refused and nothing is written; a name the
//! vocabulary does not know is refused naming the field.

use crate::common;

use common::household::{person, shelf_over, write};
use common::{Server, client};
use libations::ingredients::key;
use libations::recipes::Recipes;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The binary over the shared collection `file`, as a shelf keeper who ticked `shelf`.
async fn keeper_over(file: &str, shelf: &[&str]) -> Option<(Server, Recipes, tempfile::TempDir)> {
    let (server, _, recipes, state) = shelf_over(file, "--local-shelf", shelf).await?;
    Some((server, recipes, state))
}

fn id_of(recipes: &Recipes, name: &str) -> u64 {
    let found = recipes.all().iter().find(|r| key(&r.name) == key(name));
    found
        .unwrap_or_else(|| panic!("{name} is in the collection"))
        .id
}

async fn rule(server: &Server, have: &str, wanted: &str, on: bool) -> (StatusCode, Value) {
    let body = json!({"have": have, "wanted": wanted, "on": on});
    write(server, "PUT", "/api/bar/rules", Some(body)).await
}

async fn bar(server: &Server) -> Value {
    let response = client().get(server.url("/api/bar")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

fn makes(bar: &Value, id: u64) -> bool {
    bar["can_make"].as_array().unwrap().contains(&json!(id))
}

fn how(bar: &Value, id: u64) -> Vec<String> {
    let made = bar["how"].as_array().unwrap();
    made.iter()
        .find(|m| m["id"] == json!(id))
        .map_or_else(Vec::new, |m| {
            serde_json::from_value(m["how"].clone()).unwrap()
        })
}

/// The names `missing_one` and `next_bottles` give.
fn named(bar: &Value) -> Vec<String> {
    let missing = bar["missing_one"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["missing"]);
    let next = bar["next_bottles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["name"]);
    missing
        .chain(next)
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

/// The server's own `can:make` page, without JavaScript.
async fn can_make_page(server: &Server) -> String {
    let response = client()
        .get(server.url("/?q=can:make"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.unwrap()
}

#[tokio::test]
async fn a_rule_added_and_taken_back_changes_what_iba_can_make() {
    let shelf = ["Tequila blanco", "Limes", "Dry curaçao", "Cognac", "Lemons"];
    let Some((server, recipes, _state)) = keeper_over("iba.json", &shelf).await else {
        return;
    };
    let (margarita, sidecar) = (id_of(&recipes, "Margarita"), id_of(&recipes, "Sidecar"));
    let before = bar(&server).await;
    assert!(
        !makes(&before, margarita) && !makes(&before, sidecar),
        "{before}"
    );
    assert!(
        named(&before).contains(&"Triple sec".to_owned()),
        "{before}"
    );
    assert!(!can_make_page(&server).await.contains(">Margarita<"));

    let (status, after) = rule(&server, "Dry Curaçao", "Triple Sec", true).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(
        after["rules"],
        json!([{"have": "Dry curaçao", "wanted": "Triple sec"}])
    );
    assert!(
        makes(&after, margarita) && makes(&after, sidecar),
        "{after}"
    );
    let words = "Dry curaçao for Triple sec (the household's rule)";
    assert!(
        how(&after, margarita).contains(&words.to_owned()),
        "{after}"
    );
    assert!(!named(&after).contains(&"Triple sec".to_owned()), "{after}");
    assert_eq!(bar(&server).await["can_make"], after["can_make"], "kept");
    let page = can_make_page(&server).await;
    assert!(page.contains(">Margarita<"), "{page}");
    assert!(
        page.contains("Dry curaçao for Triple sec (the household"),
        "{page}"
    );

    let (status, back) = rule(&server, "dry curacao", "triple sec", false).await;
    assert_eq!(status, StatusCode::OK, "{back}");
    assert_eq!(back["rules"], json!([]));
    assert_eq!(back["can_make"], before["can_make"]);
    assert!(!can_make_page(&server).await.contains(">Margarita<"));
}

#[tokio::test]
async fn any_rye_for_bourbon_over_bar_assistant() {
    let shelf = ["Rye whiskey", "Sugar", "Angostura bitters"];
    let Some((server, recipes, _state)) = keeper_over("bar-assistant.json", &shelf).await else {
        return;
    };
    let old_fashioned = id_of(&recipes, "Old Fashioned");
    let before = bar(&server).await;
    assert!(!makes(&before, old_fashioned), "{before}");
    assert!(named(&before).contains(&"Bourbon".to_owned()), "{before}");
    // A rule the other way round does nothing for it.
    let (status, _) = rule(&server, "Bourbon", "Rye whiskey", true).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!makes(&bar(&server).await, old_fashioned));
    let (status, after) = rule(&server, "Rye whiskey", "Bourbon", true).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert!(makes(&after, old_fashioned), "{after}");
    let words = "Rye whiskey for Bourbon (the household's rule)";
    assert!(
        how(&after, old_fashioned).contains(&words.to_owned()),
        "{after}"
    );
    assert!(!named(&after).contains(&"Bourbon".to_owned()), "{after}");
    // The Manhattan needs no rule: rye is rye.
    assert!(
        how(&after, id_of(&recipes, "Manhattan")).is_empty(),
        "{after}"
    );
    assert_eq!(after["rules"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn without_the_shelf_grant_or_with_an_unknown_name_nothing_is_written() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-shelf"]);
    let (status, answer) = rule(&alice, "House hooch", "Gin", true).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    let why = answer["error"].as_str().unwrap();
    assert!(why.contains("have") && why.contains("House hooch"), "{why}");
    let (status, answer) = rule(&alice, "Gin", "Bourbon or Rye", true).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("wanted"),
        "{answer}"
    );
    assert_eq!(bar(&alice).await["rules"], json!([]));
    drop(alice);
    let carol = person(state.path(), "carol@example.com", &[]);
    let (status, answer) = rule(&carol, "Dry curaçao", "Triple sec", true).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("shelf"),
        "{answer}"
    );
    let seen = bar(&carol).await;
    assert_eq!(seen["rules"], json!([]), "{seen}");
    assert_eq!(seen["may_change"], false);
}

/// A Bar Assistant file whose Absinthe row lists Ouzo as a substitute: the import keeps it
/// (preview, saved file), and a shelf with Ouzo and no absinthe then makes the drink,
/// saying so.
#[tokio::test]
async fn a_bar_assistant_import_keeps_a_rows_substitutes_and_can_make_uses_them() {
    let Some(file) = common::shared_data("import/bar-assistant/greta-garbo.json") else {
        return;
    };
    let (dir, path) = common::collection();
    let state = dir.path().to_str().unwrap().to_owned();
    let identity = [
        "--state-dir",
        &state,
        "--local-identity",
        "alice@example.com",
    ];
    let server = common::editor(&path, &identity);
    let bytes = std::fs::read(&file).unwrap();
    let response = client()
        .post(server.url("/api/import"))
        .headers(common::same_origin(&server))
        .header("content-type", "application/json")
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let preview: Value = response.json().await.unwrap();
    let item = &preview["recipes"][0];
    let recipe = if item["recipe"].is_object() {
        item["recipe"].clone()
    } else {
        item.clone()
    };
    let rows = recipe["ingredients"].as_array().expect("rows");
    let absinthe = rows
        .iter()
        .find(|r| r["name"] == "Absinthe")
        .expect("{recipe}");
    assert_eq!(absinthe["substitutes"], json!(["Ouzo"]), "{recipe}");
    assert!(
        rows.iter()
            .filter(|r| r["name"] != "Absinthe")
            .all(|r| r.get("substitutes").is_none())
    );
    let response = client()
        .post(server.url("/api/recipes/bulk"))
        .headers(common::same_origin(&server))
        .json(&json!({"recipes": [recipe]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let on_disk = Recipes::from_file(&path).unwrap();
    let saved = on_disk
        .all()
        .iter()
        .find(|r| r.name == "Greta Garbo")
        .expect("saved");
    let row = saved
        .ingredients
        .iter()
        .find(|l| l.name == "Absinthe")
        .unwrap();
    assert_eq!(row.substitutes, ["Ouzo"]);

    let shelf = ["White rum", "Limes", "Sugar", "Maraschino", "Ouzo"];
    let (status, bar) = write(
        &server,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": shelf})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{bar}");
    assert!(makes(&bar, saved.id), "{bar}");
    let words = how(&bar, saved.id);
    assert!(
        words
            .iter()
            .any(|w| w.ends_with("for Absinthe (the recipe's substitute)")),
        "{words:?}"
    );
}
