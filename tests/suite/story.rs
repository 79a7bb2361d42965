//! The history tells the story (/changes): what changed field by field, every name of a
//! change of several (the rest folded after five), and no Undo where an undo would be
//! refused (undone already, or changed again since), with why instead.

use crate::common;

use common::{Server, client, collection, editor};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A change that must succeed; its JSON answer.
async fn send(server: &Server, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
    let response = common::send_change(server, method.clone(), path, body.as_ref()).await;
    assert!(
        response.status().is_success(),
        "{method} {path}: {}",
        response.status()
    );
    response.json().await.unwrap_or(Value::Null)
}

async fn recipe(server: &Server, id: u64) -> Value {
    let mut r: Value = client()
        .get(server.url(&format!("/api/recipes/{id}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let o = r.as_object_mut().unwrap();
    for read_only in ["id", "strength", "ratings"] {
        o.remove(read_only);
    }
    r
}

async fn history(server: &Server) -> String {
    let page = client().get(server.url("/changes")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    page.text().await.unwrap()
}

/// The `<li>` of change `n` on the history page.
fn item(html: &str, n: u64) -> String {
    let start = html
        .find(&format!("<li data-n=\"{n}\">"))
        .unwrap_or_else(|| panic!("change {n} not on the page"));
    let rest = &html[start + 1..];
    let end = rest
        .find("<li data-n=")
        .or_else(|| rest.find("</ol>"))
        .unwrap();
    html[start..start + 1 + end].to_owned()
}

#[tokio::test]
async fn a_change_says_what_it_changed_and_undo_is_offered_only_where_it_works() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    // Margarita (3): lime juice 15 → 25 ml, and a row added.
    let mut margarita = recipe(&server, 3).await;
    let rows = margarita["ingredients"].as_array_mut().unwrap();
    let lime = rows
        .iter_mut()
        .find(|r| r["name"].as_str().unwrap().to_lowercase().contains("lime"))
        .unwrap();
    let lime_name = lime["name"].as_str().unwrap().to_owned();
    let old_measure = lime["measure"].as_str().unwrap().to_owned();
    lime["measure"] = json!("40");
    rows.push(json!({"name": "Orange Bitters", "measure": "2", "unit": "dash"}));
    let first = send(
        &server,
        reqwest::Method::PUT,
        "/api/recipes/3",
        Some(margarita.clone()),
    )
    .await;
    let first_n = first["change"]["n"].as_u64().unwrap();
    let html = history(&server).await;
    let told = item(&html, first_n);
    assert!(
        told.contains(&format!("<li>{lime_name}: {old_measure} ml → 40 ml</li>")),
        "{told}"
    );
    assert!(
        told.contains("<li>Added Orange Bitters 2 dash</li>"),
        "{told}"
    );
    assert!(
        told.contains(">Undo</button>"),
        "the newest change of Margarita can be undone"
    );

    // Changed again: the first change cannot be undone now, and says why.
    margarita["notes"] = json!("Salt half the rim.");
    let second = send(
        &server,
        reqwest::Method::PUT,
        "/api/recipes/3",
        Some(margarita),
    )
    .await;
    let second_n = second["change"]["n"].as_u64().unwrap();
    let html = history(&server).await;
    let told = item(&html, first_n);
    assert!(!told.contains(">Undo</button>"), "{told}");
    assert!(
        told.contains(&format!(
            "Changed again since (change {second_n}): undo that first."
        )),
        "{told}"
    );
    assert!(item(&html, second_n).contains("<li>Notes changed</li>"));

    // Undone: the second says by which change, and has no Undo; the first works again.
    let undo = send(
        &server,
        reqwest::Method::POST,
        &format!("/api/changes/{second_n}/undo"),
        Some(json!({})),
    )
    .await;
    let undo_n = undo["change"]["n"].as_u64().unwrap();
    let html = history(&server).await;
    let told = item(&html, second_n);
    assert!(
        told.contains(&format!("Undone by change {undo_n}.")),
        "{told}"
    );
    assert!(!told.contains(">Undo</button>"), "{told}");
    assert!(
        item(&html, first_n).contains(">Undo</button>"),
        "back as the first left it"
    );
}

#[tokio::test]
async fn a_change_of_several_names_them_all_and_folds_after_five() {
    let (_dir, path) = collection();
    let server = editor(&path, &[]);
    let names: Vec<String> = (1..=8).map(|i| format!("House Sour {i}")).collect();
    let recipes: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "glass": ["Coupe"]}))
        .collect();
    let saved = send(
        &server,
        reqwest::Method::POST,
        "/api/recipes/bulk",
        Some(json!({"recipes": recipes})),
    )
    .await;
    let n = saved["change"]["n"].as_u64().unwrap();
    let told = item(&history(&server).await, n);
    assert!(
        told.contains(">House Sour 1</a>, House Sour 2, House Sour 3, House Sour 4, House Sour 5 and 3 more</p>"),
        "{told}"
    );
    assert!(
        told.contains(
            "<summary>The other 3</summary><p>House Sour 6, House Sour 7, House Sour 8</p>"
        ),
        "{told}"
    );
}
