//! The household over HTTP, against the real binary: two people on one state directory
//! (a restart with another `--local-identity`) each see their own favourites, ratings,
//! notes and log, and the same shelf; who may change the shelf; the refusals (an unknown
//! visitor, another site, not JSON, caps, fields); a note written over another device's
//! change keeps both; the backup downloaded, refused when malformed, and merged back (by
//! the upload and by `libations import-household`); `libations check --household`.

use crate::common;

use common::household::write;
use common::{BIN, Server, client, same_origin};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// The binary as `login` on the household in `state`, `--local-edit` when `granted`.
fn person(state: &Path, login: &str, granted: bool) -> Server {
    let extra: &[&str] = if granted { &["--local-edit"] } else { &[] };
    common::household::person(state, login, extra)
}

async fn get(server: &Server, path: &str) -> Value {
    let response = client().get(server.url(path)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

async fn ok(server: &Server, method: &str, path: &str, body: Option<Value>) -> Value {
    let (status, answer) = write(server, method, path, body).await;
    assert_eq!(status, StatusCode::OK, "{method} {path}: {answer}");
    answer
}

#[tokio::test]
async fn two_people_see_their_own_things_and_the_same_shelf() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", true);
    ok(&alice, "PUT", "/api/me/favourites/3", None).await;
    ok(
        &alice,
        "PUT",
        "/api/me/ratings/3",
        Some(json!({"stars": 4})),
    )
    .await;
    ok(
        &alice,
        "PUT",
        "/api/me/notes/3",
        Some(json!({"text": "less agave", "was": null})),
    )
    .await;
    ok(&alice, "POST", "/api/me/made/3", Some(json!({"at": 1_000}))).await;
    let bar = ok(
        &alice,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Gin", "Campari", "Sweet Vermouth (Cocchi)"]})),
    )
    .await;
    assert_eq!(bar["shelf"], json!(["campari", "gin", "sweet vermouth"]));
    // The Negroni (1) needs exactly these three.
    assert!(
        bar["can_make"].as_array().unwrap().contains(&json!(1)),
        "{bar}"
    );
    let me = get(&alice, "/api/me").await;
    assert_eq!(me["login"], "alice@example.com");
    assert_eq!(me["favourites"], json!([3]));
    assert_eq!(me["ratings"], json!({"3": 4}));
    assert_eq!(me["notes"], json!({"3": "less agave"}));
    assert_eq!(me["made"], json!([{"id": 3, "at": 1_000}]));
    assert_eq!(me["may_shelf"], true);
    alice.stop();

    let bob = person(state.path(), "bob@example.com", false);
    let me = get(&bob, "/api/me").await;
    assert_eq!(me["login"], "bob@example.com");
    assert_eq!(
        (&me["favourites"], &me["notes"], &me["made"]),
        (&json!([]), &json!({}), &json!([]))
    );
    assert_eq!(me["may_shelf"], false);
    // The same shelf, read-only for him.
    let bar = get(&bob, "/api/bar").await;
    assert_eq!(bar["shelf"], json!(["campari", "gin", "sweet vermouth"]));
    assert_eq!(bar["may_change"], false);
    let (status, refusal) = write(
        &bob,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Rum"]})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        refusal["error"]
            .as_str()
            .unwrap()
            .contains("Only the people who keep the bar's shelf can change it"),
        "{refusal}"
    );
    ok(&bob, "PUT", "/api/me/favourites/5", None).await;
    ok(&bob, "PUT", "/api/me/ratings/3", Some(json!({"stars": 5}))).await;
    // Ratings show to the household: an average, with who rated.
    let recipe = get(&bob, "/api/recipes/3").await;
    assert_eq!(recipe["ratings"]["average"], json!(4.5));
    assert_eq!(recipe["ratings"]["count"], 2);
    let names: Vec<&str> = recipe["ratings"]["by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice", "bob"]);
    bob.stop();

    let alice = person(state.path(), "alice@example.com", true);
    let me = get(&alice, "/api/me").await;
    assert_eq!(me["favourites"], json!([3]), "bob's star is his");
    assert_eq!(me["notes"], json!({"3": "less agave"}));
}

#[tokio::test]
async fn the_recipe_etag_is_still_its_version_whatever_the_ratings() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", true);
    let tag = |r: &reqwest::Response| r.headers()["etag"].to_str().unwrap().to_owned();
    let before = client()
        .get(alice.url("/api/recipes/1"))
        .send()
        .await
        .unwrap();
    let before_tag = tag(&before);
    ok(
        &alice,
        "PUT",
        "/api/me/ratings/1",
        Some(json!({"stars": 3})),
    )
    .await;
    let after = client()
        .get(alice.url("/api/recipes/1"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        tag(&after),
        before_tag,
        "editing's If-Match must keep working"
    );
    let body: Value = after.json().await.unwrap();
    assert_eq!(body["ratings"]["count"], 1);
    // Sent whole every time: a 304 would show old ratings.
    let again = client()
        .get(alice.url("/api/recipes/1"))
        .header("if-none-match", &before_tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_unknown_visitor_is_told_why_nothing_follows_them() {
    // --local without --state-dir keeps no household.
    let server = Server::start(&[]);
    let me = get(&server, "/api/me").await;
    assert_eq!(me["login"], Value::Null);
    assert_eq!(me["favourites"], json!([]));
    assert!(me["why"].as_str().unwrap().contains("--state-dir"), "{me}");
    let (status, refusal) = write(&server, "PUT", "/api/me/favourites/3", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        refusal["error"].as_str().unwrap().contains("no household"),
        "{refusal}"
    );
    let (status, _) = write(
        &server,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Gin"]})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // No household, no ratings in the recipe's JSON.
    assert_eq!(get(&server, "/api/recipes/3").await.get("ratings"), None);
}

#[tokio::test]
async fn writes_are_refused_naming_what_is_wrong_and_change_nothing() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", true);
    let refused = |status: StatusCode, field: &'static str| {
        move |(got, answer): (StatusCode, Value)| {
            assert_eq!(got, status, "{answer}");
            if !field.is_empty() {
                assert_eq!(answer["field"], field, "{answer}");
            }
            answer
        }
    };
    refused(StatusCode::UNPROCESSABLE_ENTITY, "stars")(
        write(
            &alice,
            "PUT",
            "/api/me/ratings/3",
            Some(json!({"stars": 6})),
        )
        .await,
    );
    refused(StatusCode::UNPROCESSABLE_ENTITY, "stars")(
        write(
            &alice,
            "PUT",
            "/api/me/ratings/3",
            Some(json!({"stars": "4"})),
        )
        .await,
    );
    refused(StatusCode::UNPROCESSABLE_ENTITY, "text")(
        write(
            &alice,
            "PUT",
            "/api/me/notes/3",
            Some(json!({"text": "x".repeat(2_001)})),
        )
        .await,
    );
    refused(StatusCode::UNPROCESSABLE_ENTITY, "colour")(
        write(
            &alice,
            "PUT",
            "/api/me/favourites/3",
            Some(json!({"colour": "red"})),
        )
        .await,
    );
    refused(StatusCode::UNPROCESSABLE_ENTITY, "have[1]")(
        write(
            &alice,
            "PUT",
            "/api/bar/shelf",
            Some(json!({"have": ["Gin", "()"]})),
        )
        .await,
    );
    refused(StatusCode::UNPROCESSABLE_ENTITY, "at")(
        write(
            &alice,
            "PUT",
            "/api/me/favourites/3",
            Some(json!({"at": -5})),
        )
        .await,
    );
    let many: Vec<String> = (0..501).map(|i| format!("bottle {i}")).collect();
    refused(StatusCode::UNPROCESSABLE_ENTITY, "have")(
        write(&alice, "PUT", "/api/bar/shelf", Some(json!({"have": many}))).await,
    );
    refused(StatusCode::NOT_FOUND, "")(
        write(&alice, "PUT", "/api/me/favourites/99999", None).await,
    );
    // Not JSON, from another site: refused before anything is read.
    let response = client()
        .put(alice.url("/api/me/notes/3"))
        .headers(same_origin(&alice))
        .header("content-type", "text/plain")
        .body("{\"text\": \"sneaky\"}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let response = client()
        .put(alice.url("/api/me/favourites/3"))
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // Nothing of it was kept: the shelf holds no gin, no favourite, no note, no rating.
    let me = get(&alice, "/api/me").await;
    assert_eq!(
        (&me["favourites"], &me["notes"], &me["ratings"]),
        (&json!([]), &json!({}), &json!({}))
    );
    assert_eq!(get(&alice, "/api/bar").await["shelf"], json!([]));
}

#[tokio::test]
async fn writes_beyond_the_per_person_rate_get_429_with_retry_after() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", false);
    // A burst of 240, then 4 more a second: after the burst, the writes the tokens refilled
    // while it ran. Counted from the clock, so a slow machine allows exactly what it should.
    let started = Instant::now();
    let allowed = |elapsed: Duration| 240 + (elapsed.as_secs_f64() * 4.0).ceil() as usize;
    let mut limited = None;
    let mut i = 0;
    while i <= allowed(started.elapsed()) {
        let on = if i % 2 == 0 { "PUT" } else { "DELETE" };
        let response = client()
            .request(
                reqwest::Method::from_bytes(on.as_bytes()).unwrap(),
                alice.url("/api/me/favourites/1"),
            )
            .headers(same_origin(&alice))
            .send()
            .await
            .unwrap();
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            assert!(response.headers().contains_key("retry-after"));
            limited = Some(i);
            break;
        }
        assert_eq!(response.status(), StatusCode::OK, "write {i}");
        i += 1;
    }
    let elapsed = started.elapsed();
    let limited = limited.unwrap_or_else(|| panic!("no 429 in {i} writes over {elapsed:?}"));
    assert!(
        (240..=allowed(elapsed)).contains(&limited),
        "429 after {limited} writes over {elapsed:?}"
    );
}

#[tokio::test]
async fn a_note_changed_on_two_devices_keeps_both_until_settled() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", false);
    ok(
        &alice,
        "PUT",
        "/api/me/notes/2",
        Some(json!({"text": "more lime", "was": null})),
    )
    .await;
    ok(
        &alice,
        "PUT",
        "/api/me/notes/2",
        Some(json!({"text": "more lime, less sugar", "was": "more lime"})),
    )
    .await;
    // The phone was offline and wrote over "more lime" too.
    let answer = ok(
        &alice,
        "PUT",
        "/api/me/notes/2",
        Some(json!({"text": "try demerara", "was": "more lime"})),
    )
    .await;
    assert_eq!(answer["text"], "try demerara");
    assert_eq!(answer["conflicts"], json!(["more lime, less sugar"]));
    let me = get(&alice, "/api/me").await;
    assert_eq!(
        me["note_conflicts"],
        json!({"2": ["more lime, less sugar"]})
    );
    // An older star arriving after a newer un-star changes nothing, and says so.
    ok(
        &alice,
        "PUT",
        "/api/me/favourites/2",
        Some(json!({"at": 500})),
    )
    .await;
    ok(
        &alice,
        "DELETE",
        "/api/me/favourites/2",
        Some(json!({"at": 2_000})),
    )
    .await;
    let late = ok(
        &alice,
        "PUT",
        "/api/me/favourites/2",
        Some(json!({"at": 1_000})),
    )
    .await;
    assert_eq!(
        (&late["applied"], &late["favourite"]),
        (&json!(false), &json!(false))
    );
    let settled = ok(&alice, "PUT", "/api/me/notes/2", Some(json!({"text": "demerara, more lime", "was": "try demerara", "settles": ["more lime, less sugar"]}))).await;
    assert_eq!(settled["conflicts"], json!([]));
    // The log: one entry per time, taken back by its time.
    ok(&alice, "POST", "/api/me/made/2", Some(json!({"at": 5_000}))).await;
    ok(&alice, "POST", "/api/me/made/2", Some(json!({"at": 5_000}))).await;
    assert_eq!(
        get(&alice, "/api/me").await["made"],
        json!([{"id": 2, "at": 5_000}])
    );
    ok(&alice, "DELETE", "/api/me/made/2?at=5000", None).await;
    let (status, _) = write(&alice, "DELETE", "/api/me/made/2?at=5000", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_backup_downloads_is_refused_when_malformed_and_merges_back() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", true);
    ok(&alice, "PUT", "/api/me/favourites/4", None).await;
    ok(
        &alice,
        "PUT",
        "/api/me/notes/4",
        Some(json!({"text": "smoky"})),
    )
    .await;
    ok(
        &alice,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Mezcal"]})),
    )
    .await;
    let response = client()
        .get(alice.url("/api/household/download"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("libations-household.json")
    );
    let backup: Value = response.json().await.unwrap();
    assert_eq!(backup["format"], "libations-household");
    assert_eq!(backup["version"], 6);
    alice.stop();

    // Another household: a malformed file is refused whole, naming the field.
    let other = tempfile::tempdir().unwrap();
    let carol = person(other.path(), "carol@example.com", true);
    let mut broken = backup.clone();
    broken["people"][0]["notes"][0]["text"] = json!(7);
    let (status, refusal) = write(&carol, "POST", "/api/household/upload", Some(broken)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refusal["field"], "people[0].notes[0].text", "{refusal}");
    assert_eq!(
        get(&carol, "/api/bar").await["shelf"],
        json!([]),
        "nothing was taken"
    );
    let taken = ok(
        &carol,
        "POST",
        "/api/household/upload",
        Some(backup.clone()),
    )
    .await;
    assert_eq!(
        (&taken["people"], &taken["favourites"], &taken["notes"]),
        (&json!(1), &json!(1), &json!(1))
    );
    assert_eq!(get(&carol, "/api/bar").await["shelf"], json!(["mezcal"]));
    carol.stop();

    // A person without the grant may not download it.
    let dave = person(other.path(), "dave@example.com", false);
    let response = client()
        .get(dave.url("/api/household/download"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    dave.stop();

    // The command line merges it too, and check reads the database.
    let third = tempfile::tempdir().unwrap();
    let file = third.path().join("backup.json");
    std::fs::write(&file, serde_json::to_vec(&backup).unwrap()).unwrap();
    let dir = third.path().join("state");
    let run = |args: &[&str]| std::process::Command::new(BIN).args(args).output().unwrap();
    let imported = run(&[
        "import-household",
        file.to_str().unwrap(),
        "--state-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    assert!(String::from_utf8_lossy(&imported.stdout).contains("1 favourites"));
    let db = dir.join("household.sqlite");
    let checked = run(&["check", "--household", db.to_str().unwrap()]);
    assert!(checked.status.success());
    assert!(String::from_utf8_lossy(&checked.stdout).contains("OK, schema version 9"));
    std::fs::write(&file, br#"{"format": "libations-household", "version": 1}"#).unwrap();
    let refused = run(&[
        "import-household",
        file.to_str().unwrap(),
        "--state-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("backup.json") && said.contains("nothing was changed"),
        "{said}"
    );
    std::fs::write(
        &db,
        b"this is not a database, it is a text file of some length",
    )
    .unwrap();
    let broken = run(&["check", "--household", db.to_str().unwrap()]);
    assert!(!broken.status.success());
    assert!(String::from_utf8_lossy(&broken.stderr).contains("household.sqlite"));
}

#[tokio::test]
async fn the_server_answers_personal_terms_for_a_person_with_and_without_javascript() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", true);
    ok(&alice, "PUT", "/api/me/favourites/3", None).await;
    ok(
        &alice,
        "PUT",
        "/api/me/ratings/6",
        Some(json!({"stars": 5})),
    )
    .await;
    ok(
        &alice,
        "PUT",
        "/api/me/ratings/1",
        Some(json!({"stars": 2})),
    )
    .await;
    ok(&alice, "POST", "/api/me/made/1", None).await;
    ok(
        &alice,
        "PUT",
        "/api/bar/shelf",
        Some(json!({"have": ["Gin", "Campari", "Sweet Vermouth"]})),
    )
    .await;
    let ids = |v: Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(ids(get(&alice, "/api/recipes?q=is:fav").await), [3]);
    assert_eq!(ids(get(&alice, "/api/recipes?q=rating:%3E%3D4").await), [6]);
    assert_eq!(ids(get(&alice, "/api/recipes?q=can:make").await), [1]);
    let recent = ids(get(&alice, "/api/recipes?q=made:recent").await);
    assert_eq!(recent, [1]);
    let never = ids(get(&alice, "/api/recipes?q=made:never").await);
    assert!(!never.contains(&1) && never.contains(&3), "{never:?}");
    // Combined with a plain term; and the page without JavaScript, with no note.
    assert_eq!(
        ids(get(&alice, "/api/recipes?q=tequila%20is:fav").await),
        [3]
    );
    let page = client().get(alice.url("/?q=is:fav")).send().await.unwrap();
    assert_eq!(
        page.headers()["cache-control"].to_str().unwrap(),
        "private, no-cache"
    );
    let page = page.text().await.unwrap();
    assert!(
        page.contains("Margarita") && !page.contains("Negroni"),
        "only the favourite"
    );
    assert!(
        !page.contains("device-note"),
        "answered: no note that it needs JavaScript"
    );
    // A change shows at once: the answer is not kept for the next asker.
    ok(&alice, "DELETE", "/api/me/favourites/3", None).await;
    assert_eq!(
        ids(get(&alice, "/api/recipes?q=is:fav").await),
        Vec::<u64>::new()
    );

    // Without a household the terms are left to the device, and the page says so.
    let nobody = Server::start(&[]);
    let page = client()
        .get(nobody.url("/?q=is:fav"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("device-note"),
        "the note for an unknown visitor"
    );
}

#[tokio::test]
async fn a_new_recipe_never_takes_the_id_of_one_deleted_with_a_note() {
    let state = tempfile::tempdir().unwrap();
    let (_dir, file) = common::collection();
    let dir = state.path().to_str().unwrap();
    let server = common::editor(&file, &["--state-dir", dir]);
    ok(
        &server,
        "PUT",
        "/api/me/notes/28",
        Some(json!({"text": "the last one"})),
    )
    .await;
    // Recipe 28, the highest, is deleted: its id stays given (the journal keeps it).
    let read = client()
        .get(server.url("/api/recipes/28"))
        .send()
        .await
        .unwrap();
    let etag = read.headers()["etag"].clone();
    let deleted = client()
        .delete(server.url("/api/recipes/28"))
        .headers(common::same_origin(&server))
        .header("if-match", etag)
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    server.stop();
    let server = common::editor(&file, &["--state-dir", dir]);
    let drink = json!({"name": "Newcomer", "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml"}]});
    let (status, answer) = write(&server, "POST", "/api/recipes", Some(drink)).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    assert_eq!(answer["recipe"]["id"], 29, "28 was given once");
    // The note of the deleted recipe is kept, and can still be taken away.
    assert_eq!(get(&server, "/api/me").await["notes"]["28"], "the last one");
    ok(&server, "DELETE", "/api/me/notes/28", None).await;
}

#[tokio::test]
async fn a_note_changed_or_deleted_by_mistake_can_be_brought_back() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", false);
    let note = |text: &str, was: Value| Some(json!({"text": text, "was": was, "at": 0}));
    ok(
        &alice,
        "PUT",
        "/api/me/notes/3",
        note("less agave", json!(null)),
    )
    .await;
    ok(
        &alice,
        "PUT",
        "/api/me/notes/3",
        note("no agave", json!("less agave")),
    )
    .await;
    ok(
        &alice,
        "DELETE",
        "/api/me/notes/3",
        Some(json!({"was": "no agave"})),
    )
    .await;
    // Both lost texts are listed, newest first; the note itself is gone.
    let replaced = get(&alice, "/api/me/notes/3/replaced").await;
    let texts: Vec<&str> = replaced["replaced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["no agave", "less agave"], "{replaced}");
    assert!(replaced["replaced"][0]["replaced"].as_i64().unwrap() > 0);
    assert_eq!(get(&alice, "/api/me").await["notes"], json!({}));
    // Writing one back is the undo.
    ok(
        &alice,
        "PUT",
        "/api/me/notes/3",
        note("no agave", json!(null)),
    )
    .await;
    assert_eq!(
        get(&alice, "/api/me").await["notes"],
        json!({"3": "no agave"})
    );
    // Another person sees none of Alice's texts; an unknown visitor is refused in JSON.
    drop(alice);
    let bob = person(state.path(), "bob@example.com", false);
    assert_eq!(
        get(&bob, "/api/me/notes/3/replaced").await["replaced"],
        json!([])
    );
    drop(bob);
    // --local without --state-dir keeps no household: nobody is known.
    let nobody = Server::start(&[]);
    let r = client()
        .get(nobody.url("/api/me/notes/3/replaced"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert!(r.json::<Value>().await.unwrap()["error"].is_string());
}

#[tokio::test]
async fn a_persons_answer_is_compressed_private_and_revalidated_with_a_304() {
    use std::io::Read;
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", false);
    let text = "stir longer, less sugar next time; ".repeat(50);
    for id in 1..=3 {
        ok(
            &alice,
            "PUT",
            &format!("/api/me/notes/{id}"),
            Some(json!({"text": text})),
        )
        .await;
    }
    let plain = get(&alice, "/api/me").await;
    let r = client()
        .get(alice.url("/api/me"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert_eq!(r.headers()["cache-control"], "private, no-cache");
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let squeezed = r.bytes().await.unwrap();
    let mut json = String::new();
    flate2::read::GzDecoder::new(&squeezed[..])
        .read_to_string(&mut json)
        .unwrap();
    assert!(
        squeezed.len() * 4 < json.len(),
        "{} of {}",
        squeezed.len(),
        json.len()
    );
    assert_eq!(serde_json::from_str::<Value>(&json).unwrap(), plain);
    // Unchanged: a 304. Changed (another favourite): the whole answer again.
    let again = |etag: String| {
        let url = alice.url("/api/me");
        async move {
            client()
                .get(url)
                .header("if-none-match", etag)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(again(etag.clone()).await, StatusCode::NOT_MODIFIED);
    ok(&alice, "PUT", "/api/me/favourites/2", None).await;
    assert_eq!(again(etag).await, StatusCode::OK);
}
