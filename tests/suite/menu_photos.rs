//! The guests' menu with its drinks' cover photos (issues #27 and #44), against the real
//! binary: off by default; with the menu's `show_photos` on, `/menu` shows each drink's
//! cover beside it through `/menu/photos/`, which serves those covers and no other photo
//! (the Funnel's listener serves the same routes to the internet); the printed card
//! shows them too; the change feed's version follows the switch.

use crate::common;
use crate::menu::{guest_page, nothing_leads_into_the_app, page_version};

use common::household::{person, write};
use common::{Server, client, same_origin};
use image::ImageFormat;
use libations_photos::fixtures::{encoded, halves};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Uploads a small JPEG (`width` px wide, so each is another photo) to `recipe`: its hash.
async fn photo(server: &Server, recipe: u64, width: u32) -> String {
    let response = client()
        .post(server.url(&format!("/api/recipes/{recipe}/photos")))
        .headers(same_origin(server))
        .header("content-type", "image/jpeg")
        .body(encoded(&halves(width, 100), ImageFormat::Jpeg))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    let url = body["url"].as_str().unwrap();
    let hash = url.trim_start_matches("/photos/").trim_end_matches(".jpg");
    hash.to_owned()
}

async fn get(server: &Server, path: &str) -> (StatusCode, Vec<u8>) {
    let response = client().get(server.url(path)).send().await.unwrap();
    let status = response.status();
    (status, response.bytes().await.unwrap().to_vec())
}

/// The `src` of every cover photo on a page, in order.
fn covers(html: &str) -> Vec<String> {
    html.split("class=\"menu-photo\" src=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_owned())
        .collect()
}

async fn ok(server: &Server, method: &str, path: &str, body: Option<Value>) -> Value {
    let (status, answer) = write(server, method, path, body).await;
    assert!(status.is_success(), "{method} {path}: {status} {answer}");
    answer
}

#[tokio::test]
async fn a_menu_shows_its_drinks_covers_only_when_asked_and_serves_no_other_photo() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &["--local-edit"]);
    let margarita = photo(&alice, 3, 300).await;
    let gimlet = photo(&alice, 10, 310).await;
    let elsewhere = photo(&alice, 5, 320).await;
    let menu = json!({"title": "Friday", "recipes": [{"id": 10}, {"id": 3}, {"id": 7}]});
    let id = ok(&alice, "POST", "/api/menus", Some(menu.clone())).await["id"]
        .as_i64()
        .unwrap();
    ok(&alice, "POST", &format!("/api/menus/{id}/on"), None).await;

    // Off by default: no picture on the page, and none served to guests.
    let plain = guest_page(&alice).await;
    assert_eq!(covers(&plain), Vec::<String>::new(), "{plain}");
    let guests_url = |hash: &str| format!("/menu/photos/{hash}.jpg");
    assert_eq!(
        get(&alice, &guests_url(&margarita)).await.0,
        StatusCode::NOT_FOUND
    );

    // On: each drink with a cover shows it (recipe 7 has none), in the menu's order, and
    // the page says it has changed.
    let mut shown = menu.clone();
    shown["show_photos"] = json!(true);
    let kept = ok(&alice, "PUT", &format!("/api/menus/{id}"), Some(shown)).await;
    assert_eq!(kept["show_photos"], true, "{kept}");
    let html = guest_page(&alice).await;
    assert_eq!(covers(&html), [guests_url(&gimlet), guests_url(&margarita)]);
    assert_ne!(page_version(&html), page_version(&plain));
    nothing_leads_into_the_app(&html);
    let (status, served) = get(&alice, &guests_url(&gimlet)).await;
    assert_eq!(status, StatusCode::OK);
    let thumb = get(&alice, &format!("/photos/{gimlet}.thumb.jpg")).await.1;
    assert!(served == thumb, "the guests get the thumbnail");

    // No other photo, however named, through the guests' address.
    for path in [
        guests_url(&elsewhere),
        format!("/menu/photos/{gimlet}.thumb.jpg"),
        format!("/menu/photos/{gimlet}"),
    ] {
        assert_eq!(get(&alice, &path).await.0, StatusCode::NOT_FOUND, "{path}");
    }
    let (status, _) = get(&alice, "/menu/photos/..%2f..%2fhousehold.sqlite").await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a slash in a name is refused"
    );

    // The printed card shows them too, from the app's own address.
    let (status, card) = get(&alice, "/menu/print").await;
    assert_eq!(status, StatusCode::OK);
    let card = String::from_utf8(card).unwrap();
    let app_url = |hash: &str| format!("/photos/{hash}.thumb.jpg");
    assert_eq!(covers(&card), [app_url(&gimlet), app_url(&margarita)]);

    // Once no menu is on, guests get no photo at all.
    ok(&alice, "POST", "/api/menus/off", None).await;
    assert_eq!(
        get(&alice, &guests_url(&gimlet)).await.0,
        StatusCode::NOT_FOUND
    );
    alice.stop();
}
