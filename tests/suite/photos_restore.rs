//! A deleted photo brought back (issue #44, "every change can be undone"), against the
//! real binary: restored under its own id and listed again, the cover rule; the deleted
//! photos listed to whoever may restore them (`GET …/photos/gone`); who may
//! restore (its adder, an editor; not another person) and see its files meanwhile; past
//! the recipe's cap it is refused and nothing changes; a restart (the start sweep) keeps
//! its files, and one deleted over 30 days ago is purged at start, row and files; `check
//! --household` names a deleted photo whose files are missing.

use crate::common;

use super::photos::{files, photos_of, upload};
use common::household::person;
use common::{Server, client, same_origin};
use image::ImageFormat;
use libations_photos::fixtures::{encoded, halves};
use reqwest::StatusCode;
use serde_json::Value;
use std::path::Path;

fn jpeg(width: u32) -> Vec<u8> {
    encoded(&halves(width, 100), ImageFormat::Jpeg)
}

async fn send(server: &Server, method: reqwest::Method, path: &str) -> (StatusCode, Value) {
    let response = client()
        .request(method, server.url(path))
        .headers(same_origin(server))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

async fn delete(server: &Server, recipe: u64, photo: i64) -> StatusCode {
    let path = format!("/api/recipes/{recipe}/photos/{photo}");
    send(server, reqwest::Method::DELETE, &path).await.0
}

async fn restore(server: &Server, recipe: u64, photo: i64) -> (StatusCode, Value) {
    let path = format!("/api/recipes/{recipe}/photos/{photo}/restore");
    send(server, reqwest::Method::POST, &path).await
}

async fn added(server: &Server, recipe: u64, bytes: Vec<u8>) -> Value {
    let (status, photo) = upload(server, recipe, bytes, "image/jpeg").await;
    assert_eq!(status, StatusCode::CREATED, "{photo}");
    photo
}

fn id(photo: &Value) -> i64 {
    photo["id"].as_i64().unwrap()
}

/// Recipe `recipe`'s photos as `(id, cover)`, the cover first.
async fn listed(server: &Server, recipe: u64) -> Vec<(i64, bool)> {
    photos_of(server, recipe)
        .await
        .iter()
        .map(|p| (id(p), p["cover"] == true))
        .collect()
}

async fn status_of(server: &Server, path: &str) -> StatusCode {
    client()
        .get(server.url(path))
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn a_deleted_photo_comes_back_as_itself_for_who_may() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let first = added(&alice, 2, jpeg(300)).await;
    let second = added(&alice, 2, jpeg(310)).await;
    assert_eq!(delete(&alice, 2, id(&first)).await, StatusCode::NO_CONTENT);
    assert_eq!(
        listed(&alice, 2).await,
        [(id(&second), true)],
        "the cover moved on"
    );
    assert_eq!(files(state.path()).len(), 4, "its files stay");
    let url = first["thumb_url"].as_str().unwrap();
    assert_eq!(status_of(&alice, url).await, StatusCode::OK, "to its adder");

    let (status, back) = restore(&alice, 2, id(&first)).await;
    assert_eq!(status, StatusCode::CREATED, "{back}");
    assert_eq!(back["id"], first["id"], "its own id");
    assert_eq!(back["url"], first["url"]);
    assert_eq!(back["cover"], false, "the recipe has a cover: it keeps it");
    assert_eq!(
        listed(&alice, 2).await,
        [(id(&second), true), (id(&first), false)]
    );
    let (status, again) = restore(&alice, 2, id(&first)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{again}");
    assert!(again["error"].as_str().is_some(), "a JSON error: {again}");

    // Both deleted: the one restored is the cover of a recipe with none.
    delete(&alice, 2, id(&first)).await;
    delete(&alice, 2, id(&second)).await;
    let (_, back) = restore(&alice, 2, id(&second)).await;
    assert_eq!(back["cover"], true);
    delete(&alice, 2, id(&second)).await;
    drop(alice);

    // Bob, no grants: neither restores Alice's photo nor sees its files.
    let bob = person(state.path(), "bob@example.com", &[]);
    let (status, said) = restore(&bob, 2, id(&first)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{said}");
    assert!(
        said["error"]
            .as_str()
            .unwrap()
            .contains("Only who added a photo")
    );
    assert_eq!(status_of(&bob, url).await, StatusCode::NOT_FOUND);
    assert!(listed(&bob, 2).await.is_empty(), "nothing came back");
    drop(bob);

    // Carol, an editor: sees and restores anyone's.
    let carol = person(state.path(), "carol@example.com", &["--local-edit"]);
    assert_eq!(status_of(&carol, url).await, StatusCode::OK);
    let page = client().get(carol.url("/recipes/2")).send().await.unwrap();
    let page = page.text().await.unwrap();
    assert!(
        page.contains("Recently deleted photos (2)"),
        "both listed to her"
    );
    let (status, back) = restore(&carol, 2, id(&first)).await;
    assert_eq!(status, StatusCode::CREATED, "{back}");
    assert_eq!(listed(&carol, 2).await, [(id(&first), true)]);
}

/// `GET /api/recipes/{recipe}/photos/gone` as `server`'s visitor: its status, its
/// `Cache-Control`, and its answer.
async fn gone(server: &Server, recipe: u64) -> (StatusCode, String, Value) {
    let path = format!("/api/recipes/{recipe}/photos/gone");
    let response = client().get(server.url(&path)).send().await.unwrap();
    let status = response.status();
    let cache = response
        .headers()
        .get("cache-control")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, cache, response.json().await.unwrap())
}

/// The ids listed as restorable to `server`'s visitor, in order.
async fn gone_ids(server: &Server, recipe: u64) -> Vec<i64> {
    let (status, _, listed) = gone(server, recipe).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    listed.as_array().unwrap().iter().map(id).collect()
}

#[tokio::test]
async fn the_deleted_photos_are_listed_to_who_may_restore_them() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let older = added(&alice, 2, jpeg(300)).await;
    let newer = added(&alice, 2, jpeg(310)).await;
    let kept = added(&alice, 2, jpeg(320)).await;
    assert_eq!(gone_ids(&alice, 2).await, Vec::<i64>::new(), "none yet");
    delete(&alice, 2, id(&older)).await;
    delete(&alice, 2, id(&newer)).await;
    let (status, cache, listed) = gone(&alice, 2).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert!(cache.contains("private"), "a person's own answer: {cache}");
    let listed = listed.as_array().unwrap();
    assert_eq!(
        listed.iter().map(id).collect::<Vec<_>>(),
        [id(&newer), id(&older)],
        "the one deleted last first"
    );
    let first = &listed[0];
    for key in ["url", "thumb_url", "width", "height", "by"] {
        assert_eq!(first[key], newer[key], "{key}, as the photo was");
    }
    assert_eq!(first["gone_by"], "alice@example.com");
    let (then, now) = (listed[1]["gone_at"].as_i64(), first["gone_at"].as_i64());
    assert!(then.is_some() && then <= now, "{listed:?}");
    assert_eq!(
        gone_ids(&alice, 1).await,
        Vec::<i64>::new(),
        "another recipe's"
    );
    let (status, _) = restore(&alice, 2, id(&newer)).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        gone_ids(&alice, 2).await,
        [id(&older)],
        "restored: not listed"
    );
    drop(alice);

    // Bob, no grants: his own deleted photo, none of Alice's.
    let bob = person(state.path(), "bob@example.com", &[]);
    let his = added(&bob, 2, jpeg(330)).await;
    delete(&bob, 2, id(&his)).await;
    assert_eq!(gone_ids(&bob, 2).await, [id(&his)]);
    drop(bob);

    // Carol, an editor: all of them, whoever deleted them.
    let carol = person(state.path(), "carol@example.com", &["--local-edit"]);
    delete(&carol, 2, id(&kept)).await;
    let (_, _, all) = gone(&carol, 2).await;
    let all = all.as_array().unwrap();
    assert_eq!(
        all.iter().map(id).collect::<Vec<_>>(),
        [id(&kept), id(&his), id(&older)]
    );
    assert_eq!(all[0]["gone_by"], "carol@example.com");
    assert_eq!(all[0]["by"], "alice@example.com");
    let (status, _, unknown) = gone(&carol, 9999).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{unknown}");
    assert!(
        unknown["error"].as_str().is_some(),
        "a JSON error: {unknown}"
    );
    drop(carol);

    // A visitor the tailnet does not name: nothing to restore, so nothing listed.
    let nobody = person(state.path(), "x", &["--local-nobody"]);
    let (status, cache, listed) = gone(&nobody, 2).await;
    assert_eq!((status, listed), (StatusCode::OK, serde_json::json!([])));
    assert!(cache.contains("private"), "{cache}");
}

#[tokio::test]
async fn a_restore_past_the_recipes_cap_is_refused_and_changes_nothing() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let gone = added(&alice, 4, jpeg(300)).await;
    delete(&alice, 4, id(&gone)).await;
    let cap = libations::household::PHOTOS_PER_RECIPE;
    let mut kept = Vec::new();
    for _ in 0..cap {
        kept.push(added(&alice, 4, jpeg(200)).await);
    }
    let before = listed(&alice, 4).await;
    let db = state.path().join("household.sqlite");
    let rows_before = rows(&db);
    let (status, said) = restore(&alice, 4, id(&gone)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{said}");
    assert!(
        said["error"].as_str().unwrap().contains(&cap.to_string()),
        "{said}"
    );
    assert_eq!(listed(&alice, 4).await, before);
    assert_eq!(rows(&db), rows_before, "the database is as it was");
    // Room made: it comes back.
    delete(&alice, 4, id(&kept[0])).await;
    let (status, back) = restore(&alice, 4, id(&gone)).await;
    assert_eq!(status, StatusCode::CREATED, "{back}");
}

/// Every row of `photos` and `photos_gone`, read beside the running app (WAL).
fn rows(db: &Path) -> Vec<String> {
    let db = rusqlite::Connection::open(db).unwrap();
    let mut all = Vec::new();
    for table in ["photos", "photos_gone"] {
        let sql = format!("SELECT * FROM {table} ORDER BY id");
        let mut stmt = db.prepare(&sql).unwrap();
        let width = stmt.column_count();
        let found = stmt
            .query_map([], |r| {
                let cells: Vec<String> = (0..width)
                    .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                    .collect();
                Ok(format!("{table}: {}", cells.join(" ")))
            })
            .unwrap();
        all.extend(found.map(Result::unwrap));
    }
    all
}

#[tokio::test]
async fn a_restart_keeps_a_deleted_photo_and_purges_one_deleted_long_ago() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let old = added(&alice, 3, jpeg(300)).await;
    let recent = added(&alice, 3, jpeg(310)).await;
    delete(&alice, 3, id(&old)).await;
    delete(&alice, 3, id(&recent)).await;
    drop(alice);

    let alice = person(state.path(), "alice@example.com", &[]);
    assert_eq!(files(state.path()).len(), 4, "the start sweep kept them");
    let (status, back) = restore(&alice, 3, id(&old)).await;
    assert_eq!(status, StatusCode::CREATED, "{back}");
    let url = back["url"].as_str().unwrap();
    assert_eq!(status_of(&alice, url).await, StatusCode::OK);
    delete(&alice, 3, id(&old)).await;
    drop(alice);

    // `old` deleted 31 days ago, as the database would say a month on.
    let month = libations::household::GONE_KEPT_MS + 24 * 60 * 60 * 1000;
    let db = rusqlite::Connection::open(state.path().join("household.sqlite")).unwrap();
    let changed = db
        .execute(
            "UPDATE photos_gone SET gone_at = gone_at - ?1 WHERE id = ?2",
            rusqlite::params![month, id(&old)],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(db);
    crate::photos::age_files(state.path());

    let alice = person(state.path(), "alice@example.com", &[]);
    let name = |photo: &Value, key: &str| {
        photo[key]
            .as_str()
            .unwrap()
            .trim_start_matches("/photos/")
            .to_owned()
    };
    let mut want = vec![name(&recent, "url"), name(&recent, "thumb_url")];
    want.sort();
    assert_eq!(
        files(state.path()),
        want,
        "old's files purged, recent's kept"
    );
    let (status, _) = restore(&alice, 3, id(&old)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "purged");
    drop(alice);

    // `check --household` looks for a deleted photo's files too.
    let db = state.path().join("household.sqlite");
    let check = || {
        std::process::Command::new(common::BIN)
            .args(["check", "--household", db.to_str().unwrap()])
            .output()
            .unwrap()
    };
    assert!(check().status.success(), "all its files are there");
    std::fs::remove_file(state.path().join("photos").join(&want[0])).unwrap();
    let checked = check();
    let said = String::from_utf8_lossy(&checked.stderr);
    assert!(!checked.status.success());
    let named = format!("deleted photo {} of recipe 3", id(&recent));
    assert!(
        said.contains(&named) && said.contains("is missing"),
        "{said}"
    );
}
