//! Search by bottle (issue #42) against the real binary over HTTP, over the shared
//! collections (`../shared/data`: iba and bar-assistant): "whisky" and "whiskey" find the
//! same recipes; "gin" finds no ginger drink; "margerita" finds nothing and the page names
//! Margarita first among its marked guesses; `has:bourbon` lists the recipes with a row a
//! bourbon meets (a Manhattan's or Old Fashioned's whiskey row).

use crate::common;

use common::{Server, client, shared_data};
use libations::ingredients::key;
use reqwest::StatusCode;
use serde_json::Value;

/// The names `/api/recipes?q=` answers, in order.
async fn names(server: &Server, q: &str) -> Vec<String> {
    let path = format!("/api/recipes?q={}", urlencode(q));
    let response = client().get(server.url(&path)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let list: Vec<Value> = response.json().await.unwrap();
    list.iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

fn urlencode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Each collection that is here, served by the real binary.
fn servers() -> Vec<(&'static str, Server)> {
    ["iba.json", "bar-assistant.json"]
        .into_iter()
        .filter_map(|file| {
            let path = shared_data(file)?;
            let server = Server::start(&["--recipes-file", path.to_str().unwrap()]);
            Some((file, server))
        })
        .collect()
}

#[tokio::test]
async fn whisky_and_whiskey_find_the_same_and_gin_no_ginger() {
    for (file, server) in servers() {
        let whisky = names(&server, "whisky").await;
        let whiskey = names(&server, "WHISKEY").await;
        assert_eq!(whisky, whiskey, "{file}");
        assert!(whisky.len() >= 5, "{file}: {whisky:?}");
        let gin = names(&server, "gin").await;
        assert!(!gin.is_empty(), "{file}");
        for name in ["Moscow Mule", "Dark 'n' Stormy", "Dark ‘n’ Stormy"] {
            assert!(!gin.iter().any(|n| n == name), "{file}: {name} in {gin:?}");
        }
        // Each gin drink says gin as a whole word somewhere; "ginger" alone is not enough.
        let ginger = names(&server, "ginger").await;
        let only_ginger: Vec<&String> = ginger
            .iter()
            .filter(|n| !gin.contains(n) && !key(n).contains("gin "))
            .collect();
        assert!(
            !only_ginger.is_empty(),
            "{file}: some drink has ginger, no gin"
        );
        for n in &only_ginger {
            assert!(!gin.contains(n), "{file}: {n}");
        }
        // Plurals fold: "limes" finds what "lime" finds.
        assert_eq!(
            names(&server, "limes").await,
            names(&server, "lime").await,
            "{file}"
        );
        server.stop();
    }
}

#[tokio::test]
async fn margerita_finds_nothing_and_guesses_margarita_first() {
    for (file, server) in servers() {
        assert!(names(&server, "margerita").await.is_empty(), "{file}");
        let response = client()
            .get(server.url("/?q=margerita"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let page = response.text().await.unwrap();
        let guesses = page
            .split("id=\"guesses\">Closest guesses, not exact matches: ")
            .nth(1)
            .unwrap_or_else(|| panic!("{file}: no marked guesses in the page"));
        let first = guesses.split("</a>").next().unwrap();
        assert!(first.ends_with(">Margarita"), "{file}: {first}");
        // A query that finds something shows no guesses.
        let found = client()
            .get(server.url("/?q=margarita"))
            .send()
            .await
            .unwrap();
        let found = found.text().await.unwrap();
        assert!(found.contains("id=\"guesses\" hidden"), "{file}");
        server.stop();
    }
}

#[tokio::test]
async fn has_bourbon_lists_what_a_bourbon_can_make() {
    for (file, server) in servers() {
        let has = names(&server, "has:bourbon").await;
        let any = |list: &[String], drink: &str| list.iter().any(|n| key(n) == key(drink));
        assert!(any(&has, "Old Fashioned"), "{file}: {has:?}");
        // A Manhattan's row is a whiskey a bourbon meets ("Bourbon or Rye Whiskey"), or
        // rye, which a bourbon does not (a sibling), but a rye does.
        let rye = names(&server, "has:rye").await;
        assert!(any(&has, "Manhattan") || any(&rye, "Manhattan"), "{file}");
        // A bourbon meets no gin row: no Negroni, no Martinez.
        for drink in ["Negroni", "Martinez"] {
            assert!(!has.iter().any(|n| key(n) == key(drink)), "{file}: {drink}");
        }
        // An unknown word after has: is an ingredient word.
        assert!(names(&server, "has:zzzunknown").await.is_empty(), "{file}");
        server.stop();
    }
}
