//! How strong is it (issue #29), against the real binary over HTTP and over the shared
//! collections: the `strength` of the list JSON and of `GET /api/recipes/{id}`; the
//! recipe page's line and its working without JavaScript; `abv:`, `drinks:` and `sort:abv`
//! answered by the server; a row's own `abv`; the household's own strengths through
//! `/api/bar/strengths` (who may, origin, refusals naming the field). And every recipe of
//! `../shared/data/*.json`: a figure or a reason, nothing out of bounds, with the coverage
//! of the built-in table printed per collection.

use crate::common;

use common::household::{person, write};
use common::{Server, client, shared_data};
use libations::ingredients::key;
use libations::recipes::Recipes;
use libations::strength::table::Table;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeSet;

const FIELDS: [&str; 7] = [
    "abv",
    "volume_ml",
    "standard_drinks",
    "undiluted_abv",
    "dilution",
    "approximate",
    "not_counted",
];

async fn get_json(server: &Server, path: &str) -> Value {
    let response = client().get(server.url(path)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

async fn get_text(server: &Server, path: &str) -> String {
    let response = client().get(server.url(path)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.text().await.unwrap()
}

/// The ids of the rows a list page shows, in order.
fn row_ids(html: &str) -> Vec<u64> {
    html.split("<li data-id=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
        .collect()
}

fn abv(recipe: &Value) -> Option<f64> {
    recipe["strength"]["abv"].as_f64()
}

#[tokio::test]
async fn the_api_carries_the_strength_and_the_server_filters_and_sorts_by_it() {
    let server = Server::start(&[]);
    let all = get_json(&server, "/api/recipes").await;
    let all = all.as_array().unwrap();
    for r in all {
        for field in FIELDS {
            assert!(
                r["strength"].get(field).is_some(),
                "{}: the list's strength has {field}",
                r["name"]
            );
        }
    }
    // One recipe's answer carries the same strength.
    let first = &all[0];
    let one = get_json(&server, &format!("/api/recipes/{}", first["id"])).await;
    assert_eq!(one["strength"], first["strength"]);
    // The sample has a drink without alcohol, and strong ones.
    assert!(all.iter().any(|r| abv(r) == Some(0.0)));
    assert!(all.iter().any(|r| abv(r).is_some_and(|a| a >= 25.0)));

    // Without JavaScript: the search form's answers, filtered and sorted by the server.
    let light: Vec<u64> = all
        .iter()
        .filter(|r| abv(r).is_some_and(|a| a < 10.0))
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert!(!light.is_empty());
    let page = get_text(&server, "/?q=abv%3A%3C10").await;
    assert_eq!(row_ids(&page), light, "abv:<10 on the page");
    let strong: Vec<u64> = all
        .iter()
        .filter(|r| abv(r).is_some_and(|a| a >= 25.0))
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    let found = get_json(&server, "/api/recipes?q=abv%3A%3E%3D25").await;
    let found: Vec<u64> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(found, strong, "abv:>=25 from the API");
    let small = get_json(&server, "/api/recipes?q=drinks%3A%3C%3D1").await;
    for r in small.as_array().unwrap() {
        assert!(r["strength"]["standard_drinks"].as_f64().unwrap() <= 1.0);
    }
    let sorted = get_text(&server, "/?q=sort%3Aabv").await;
    let order: Vec<Option<f64>> = row_ids(&sorted)
        .iter()
        .map(|id| abv(all.iter().find(|r| r["id"] == json!(id)).unwrap()))
        .collect();
    assert_eq!(order.len(), all.len(), "sort:abv shows every recipe");
    assert!(
        order.windows(2).all(|w| match (w[0], w[1]) {
            (Some(a), Some(b)) => a <= b,
            (Some(_), None) | (None, None) => true,
            (None, Some(_)) => false,
        }),
        "lightest first: {order:?}"
    );
    // The quick filters are there, and Light is a link that works without JavaScript.
    let home = get_text(&server, "/").await;
    assert!(
        home.contains(
            r#"<a class="server" href="/?q=abv:%3C%3D10" data-term="abv:&lt;=10">Up to 10% ABV</a>"#
        ),
        "{home}"
    );

    // The recipe page: one line, and the working behind it in a <details>.
    let id = first["id"].as_u64().unwrap();
    let page = get_text(&server, &format!("/recipes/{id}")).await;
    assert!(page.contains("<details class=\"strength\""), "{page}");
    assert!(page.contains("<summary>≈ "), "the line: {page}");
    assert!(page.contains("% ABV · "));
    assert!(page.contains("An estimate, not a promise; pour responsibly."));
    // Servings scale the volume and the drinks, not the ABV.
    let summary = |page: &str| -> String {
        let at = page.find("<summary>≈ ").unwrap();
        page[at + "<summary>".len()..]
            .split("</summary>")
            .next()
            .unwrap()
            .to_owned()
    };
    let once = summary(&page);
    let twice = summary(&get_text(&server, &format!("/recipes/{id}?serves=2")).await);
    assert_eq!(
        once.split(" · ").next(),
        twice.split(" · ").next(),
        "the same ABV"
    );
    assert_ne!(once, twice, "more ml and drinks for two");
    // The standard is named, so "drinks" is never read as servings.
    assert!(
        once.ends_with(" (10 g)") && once.contains(" std drink"),
        "{once}"
    );
    server.stop();
}

#[tokio::test]
async fn a_row_s_own_abv_wins_over_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bar.json");
    std::fs::write(
        &path,
        r#"[{"id": 1, "name": "Strong Daiquiri", "method": ["Shake"], "ingredients": [
            {"name": "White Rum", "measure": "60", "unit": "ml", "abv": 63},
            {"name": "Lime Juice", "measure": "30", "unit": "ml"}]},
           {"id": 2, "name": "Daiquiri", "method": ["Shake"], "ingredients": [
            {"name": "White Rum", "measure": "60", "unit": "ml"},
            {"name": "Lime Juice", "measure": "30", "unit": "ml"}]}]"#,
    )
    .unwrap();
    let server = Server::start(&["--recipes-file", path.to_str().unwrap()]);
    let strong = get_json(&server, "/api/recipes/1").await;
    let plain = get_json(&server, "/api/recipes/2").await;
    // Rows from the built-in table are [ml, abv]; others say where their strength is from.
    assert_eq!(strong["strength"]["rows"][0], json!([60, 63, "recipe"]));
    assert_eq!(plain["strength"]["rows"][0], json!([60, 40]));
    assert!(abv(&strong).unwrap() > abv(&plain).unwrap());
    assert_eq!(
        strong["ingredients"][0]["abv"],
        json!(63.0),
        "the row keeps it"
    );
    server.stop();
}

#[tokio::test]
async fn the_household_sets_its_own_strengths_and_every_recipe_follows() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let empty = get_json(&alice, "/api/bar/strengths").await;
    assert_eq!(empty, json!({"strengths": [], "may_change": true}));
    let gin_drink = |all: &Value| -> Value {
        all.as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["ingredients"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|i| key(i["name"].as_str().unwrap()) == "gin")
            })
            .unwrap()
            .clone()
    };
    let before = gin_drink(&get_json(&alice, "/api/recipes").await);
    let (status, answer) = write(
        &alice,
        "PUT",
        "/api/bar/strengths",
        Some(json!({"name": "GIN", "abv": 57})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["strengths"], json!([{"name": "gin", "abv": 57.0}]));
    let after = gin_drink(&get_json(&alice, "/api/recipes").await);
    assert_eq!(before["id"], after["id"]);
    assert!(
        abv(&after).unwrap() > abv(&before).unwrap(),
        "{before} {after}"
    );
    let rows = after["strength"]["rows"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| r == &json!([r[0], 57, "household"])),
        "{rows:?}"
    );
    let one = get_json(&alice, &format!("/api/recipes/{}", after["id"])).await;
    assert_eq!(
        one["strength"], after["strength"],
        "the recipe's own answer too"
    );

    // Refusals name the field; nothing changes.
    for (body, field) in [
        (json!({"name": "Gin", "abv": 140}), "abv"),
        (json!({"name": "Gin", "abv": "strong"}), "abv"),
        (json!({"name": "  ", "abv": 40}), "name"),
        (json!({"name": "Gin", "abv": 40, "proof": 80}), ""),
    ] {
        let (status, answer) = write(&alice, "PUT", "/api/bar/strengths", Some(body.clone())).await;
        assert!(status.is_client_error(), "{body}: {status}");
        assert!(answer["error"].is_string(), "{body}: {answer}");
        if !field.is_empty() {
            assert_eq!(answer["field"], field, "{body}: {answer}");
        }
    }
    // Another site may not.
    let response = client()
        .put(alice.url("/api/bar/strengths"))
        .header("origin", "https://elsewhere.example")
        .header("sec-fetch-site", "cross-site")
        .json(&json!({"name": "Gin", "abv": 20}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        get_json(&alice, "/api/bar/strengths").await["strengths"],
        json!([{"name": "gin", "abv": 57.0}])
    );
    alice.stop();

    // Kept across a restart; a person without the shelf or edit grant may read, not change.
    let bob = person(state.path(), "bob@example.com", &[]);
    let seen = get_json(&bob, "/api/bar/strengths").await;
    assert_eq!(seen["strengths"], json!([{"name": "gin", "abv": 57.0}]));
    assert_eq!(seen["may_change"], json!(false));
    let (status, answer) = write(
        &bob,
        "PUT",
        "/api/bar/strengths",
        Some(json!({"name": "Gin", "abv": 20})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    let after_restart = gin_drink(&get_json(&bob, "/api/recipes").await);
    assert_eq!(
        after_restart["strength"], after["strength"],
        "worked out with it at start-up"
    );
    bob.stop();

    // Taken back by a keeper: the built-in figure again.
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let (status, _) = write(
        &alice,
        "PUT",
        "/api/bar/strengths",
        Some(json!({"name": "Gin", "abv": null})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let back = gin_drink(&get_json(&alice, "/api/recipes").await);
    assert_eq!(back["strength"], before["strength"]);
    alice.stop();
}

/// Every recipe of every shared collection: figures, or a reason for none; no NaN, nothing
/// negative, no ABV above the strongest row's; the rows of no known strength listed. Prints
/// how many of each collection's ingredient names the built-in table covers.
#[test]
fn every_shared_recipe_has_a_figure_or_a_reason() {
    let table = Table::built_in();
    for file in ["iba.json", "bar-assistant.json", "scale-5000.json"] {
        let Some(path) = shared_data(file) else {
            continue;
        };
        let recipes = Recipes::from_file(&path).unwrap();
        let mut figures = 0;
        let mut reasons = 0;
        let mut approximate = 0;
        let mut names = BTreeSet::new();
        let mut unknown = BTreeSet::new();
        let mut by_name = 0;
        for r in recipes.all() {
            for line in &r.ingredients {
                let k = key(&line.name);
                if names.contains(&k) {
                    continue;
                }
                match table.find(&k) {
                    None => {
                        unknown.insert(k.clone());
                    }
                    Some((name, _)) if key(name) == k => by_name += 1,
                    Some(_) => {}
                }
                names.insert(k);
            }
            let s = libations::strength::of_recipe(r);
            approximate += usize::from(s.approximate);
            let Some(abv) = s.abv else {
                assert!(s.reason.is_some(), "{}: no figures and no reason", r.name);
                reasons += 1;
                continue;
            };
            figures += 1;
            let volume = s.volume_ml.unwrap();
            let drinks = s.standard_drinks.unwrap();
            for x in [abv, volume, drinks, s.undiluted_abv.unwrap(), s.dilution] {
                assert!(x.is_finite() && x >= 0.0, "{}: {s:?}", r.name);
            }
            assert!(volume > 0.0, "{}: {s:?}", r.name);
            let strongest = s
                .rows
                .iter()
                .filter(|(ml, _, _)| ml.is_some_and(|ml| ml > 0.0))
                .filter_map(|(_, abv, _)| *abv)
                .fold(0.0, f64::max);
            assert!(
                abv <= strongest + 0.05,
                "{}: {abv}% above {strongest}%",
                r.name
            );
            for ((ml, row_abv, _), line) in s.rows.iter().zip(&r.ingredients) {
                if ml.is_some() && row_abv.is_none() {
                    assert!(
                        s.not_counted
                            .iter()
                            .any(|n| n.starts_with(line.name.as_str())),
                        "{}: {} of no known strength is listed",
                        r.name,
                        line.name
                    );
                }
            }
        }
        println!(
            "{file}: {} recipes, {figures} with figures, {reasons} with a reason instead, \
             {approximate} approximate; the table covers {} of {} ingredient names \
             ({by_name} by their own name, the rest by a part of it){}",
            recipes.len(),
            names.len() - unknown.len(),
            names.len(),
            if unknown.is_empty() {
                String::new()
            } else {
                format!(
                    " (not: {})",
                    unknown.into_iter().collect::<Vec<_>>().join(", ")
                )
            }
        );
    }
}
