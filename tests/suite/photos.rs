//! Photos of recipes (issue #44) against the real binary: a phone's JPEG goes in with its
//! location and a turn recorded, and comes out upright with neither; files are served
//! content-addressed; not-images and bombs are refused saying why, leaving nothing; who may
//! take a photo away or choose the cover (a deleted photo's files stay, shown only to who
//! may restore it: photos_restore.rs); no household, no photos. Under faults: killed
//! (-9) while uploads run, and a full disk (a small tmpfs): every acknowledged photo is
//! there, every row's files are, and no file is left that no row names.

use crate::common;

use common::faults::{Tmpfs, injectable};
use common::household::person;
use common::{Server, client, same_origin};
use image::ImageFormat;
use libations_photos::fixtures::{encoded, halves, phone_jpeg, png_bomb};
use reqwest::StatusCode;
use serde_json::Value;
use std::path::Path;

/// `POST /api/recipes/{recipe}/photos` with `bytes` (sent as `content_type`, which the
/// server does not trust): the status and the JSON answer.
pub(crate) async fn upload(
    server: &Server,
    recipe: u64,
    bytes: Vec<u8>,
    content_type: &str,
) -> (StatusCode, Value) {
    let (base, origin) = (server.base.clone(), same_origin(server));
    try_upload(base, origin, recipe, bytes, content_type)
        .await
        .expect("an answer with a JSON body")
}

/// As [`upload`], `None` when the connection fails (the server killed meanwhile).
async fn try_upload(
    base: String,
    origin: reqwest::header::HeaderMap,
    recipe: u64,
    bytes: Vec<u8>,
    content_type: &str,
) -> Option<(StatusCode, Value)> {
    let response = client()
        .post(format!("{base}/api/recipes/{recipe}/photos"))
        .headers(origin)
        .header("content-type", content_type)
        .body(bytes)
        .send()
        .await
        .ok()?;
    let status = response.status();
    Some((status, response.json().await.ok()?))
}

/// The status a photo upload announcing `length` bytes gets, sending none of them.
async fn announced(server: &Server, length: usize) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = server.base.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /api/recipes/1/photos HTTP/1.1\r\nHost: {address}\r\nOrigin: {}\r\n\
         Content-Type: image/jpeg\r\nContent-Length: {length}\r\n\r\n",
        server.base
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0; 64];
    let n = stream.read(&mut answer).await.unwrap();
    let line = String::from_utf8_lossy(&answer[..n]).into_owned();
    line.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

async fn send(server: &Server, method: reqwest::Method, path: &str) -> (StatusCode, String) {
    let response = client()
        .request(method, server.url(path))
        .headers(same_origin(server))
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

async fn take_away(server: &Server, recipe: u64, photo: i64) -> (StatusCode, String) {
    let path = format!("/api/recipes/{recipe}/photos/{photo}");
    send(server, reqwest::Method::DELETE, &path).await
}

pub(crate) async fn make_cover(server: &Server, recipe: u64, photo: i64) -> (StatusCode, String) {
    let path = format!("/api/recipes/{recipe}/photos/{photo}/cover");
    send(server, reqwest::Method::PUT, &path).await
}

pub(crate) async fn photos_of(server: &Server, recipe: u64) -> Vec<Value> {
    let url = server.url(&format!("/api/recipes/{recipe}"));
    let body: Value = client()
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["photos"].as_array().cloned().unwrap_or_default()
}

/// The photo files in the state directory.
pub(crate) fn files(state: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(state.join("photos"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Sets every file in the photo store two hours back, as a start an hour or more later
/// finds them: past what the start sweep spares (files in flight, written within the hour).
pub(crate) fn age_files(state: &Path) {
    let ago = std::time::Duration::from_secs(2 * 60 * 60);
    for name in files(state) {
        let file = std::fs::File::options()
            .write(true)
            .open(state.join("photos").join(name))
            .unwrap();
        file.set_modified(std::time::SystemTime::now() - ago)
            .unwrap();
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn a_phone_photo_comes_out_upright_without_its_location() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    // 400 × 200, turned 90° clockwise to view (EXIF orientation 6), with a GPS position.
    let phone = phone_jpeg(&halves(400, 200), 6);
    assert!(contains(&phone, b"Exif") && contains(&phone, b"my kitchen"));
    let (status, photo) = upload(&alice, 1, phone, "application/octet-stream").await;
    assert_eq!(status, StatusCode::CREATED, "{photo}");
    assert_eq!(
        (photo["width"].as_u64(), photo["height"].as_u64()),
        (Some(200), Some(400))
    );
    assert_eq!(photo["by"], "alice@example.com");
    assert_eq!(photo["cover"], true, "a recipe's first photo is its cover");

    for key in ["url", "thumb_url"] {
        let response = client()
            .get(alice.url(photo[key].as_str().unwrap()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "image/jpeg");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert!(
            headers["cache-control"]
                .to_str()
                .unwrap()
                .contains("immutable")
        );
        let bytes = response.bytes().await.unwrap();
        assert!(
            !contains(&bytes, b"Exif") && !contains(&bytes, b"my kitchen"),
            "{key}: nothing private"
        );
        let image = image::load_from_memory_with_format(&bytes, ImageFormat::Jpeg).unwrap();
        assert_eq!(
            (image.width(), image.height()),
            (200, 400),
            "{key}: upright"
        );
        let top = image.to_rgb8().get_pixel(100, 40).0;
        assert!(
            top[0] > 150 && top[2] < 80,
            "{key}: the red half on top: {top:?}"
        );
    }
    let listed = photos_of(&alice, 1).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], photo["id"]);
    assert_eq!(files(state.path()).len(), 2, "a large file and a thumbnail");

    // A PNG is taken too, whatever it is sent as, and made to fit 1600 px.
    let png = encoded(&halves(3000, 2000), ImageFormat::Png);
    let (status, big) = upload(&alice, 1, png, "image/jpeg").await;
    assert_eq!(status, StatusCode::CREATED, "{big}");
    assert_eq!(
        (big["width"].as_u64(), big["height"].as_u64()),
        (Some(1600), Some(1067))
    );
    assert_eq!(big["cover"], false);
}

#[tokio::test]
async fn not_images_and_bombs_are_refused_leaving_nothing() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".to_vec();
    let heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic".to_vec();
    let cases = [
        (
            svg,
            "image/svg+xml",
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "JPEG, PNG, WebP or GIF",
        ),
        (
            heic,
            "image/heic",
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "HEIC",
        ),
        (
            png_bomb(30_000),
            "image/png",
            StatusCode::UNPROCESSABLE_ENTITY,
            "50 MP",
        ),
        (
            b"\xFF\xD8\xFF\xE0 cut off".to_vec(),
            "image/jpeg",
            StatusCode::UNPROCESSABLE_ENTITY,
            "could not be read",
        ),
    ];
    for (bytes, sent_as, want, says) in cases {
        let (status, answer) = upload(&alice, 1, bytes, sent_as).await;
        assert_eq!(status, want, "{sent_as}: {answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(says), "{sent_as}: {error}");
    }
    assert!(photos_of(&alice, 1).await.is_empty());
    assert!(
        files(state.path()).is_empty(),
        "no file left: {:?}",
        files(state.path())
    );
    // Too many bytes: refused from the announced length, before a byte of it is read.
    assert_eq!(
        announced(&alice, libations_photos::MAX_BYTES + 1).await,
        413
    );
    let (status, answer) = upload(
        &alice,
        999_999,
        phone_jpeg(&halves(40, 20), 1),
        "image/jpeg",
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
}

#[tokio::test]
async fn who_may_take_a_photo_away_and_choose_the_cover() {
    let state = tempfile::tempdir().unwrap();
    let jpeg = |w| encoded(&halves(w, 100), ImageFormat::Jpeg);
    let alice = person(state.path(), "alice@example.com", &[]);
    let (_, first) = upload(&alice, 2, jpeg(300), "image/jpeg").await;
    let first_id = first["id"].as_i64().unwrap();
    drop(alice);

    // Bob, a person without grants: adds his own, may not take Alice's or choose a cover.
    let bob = person(state.path(), "bob@example.com", &[]);
    let (status, mine) = upload(&bob, 2, jpeg(310), "image/jpeg").await;
    assert_eq!(status, StatusCode::CREATED);
    let mine_id = mine["id"].as_i64().unwrap();
    let (status, body) = take_away(&bob, 2, first_id).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains("Only who added a photo"), "{body}");
    let (status, _) = make_cover(&bob, 2, mine_id).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = take_away(&bob, 2, mine_id).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "his own");
    assert_eq!(photos_of(&bob, 2).await.len(), 1);
    assert_eq!(
        files(state.path()).len(),
        4,
        "his photo's files stay while it may be restored"
    );
    let his = mine["thumb_url"].as_str().unwrap();
    let status = client().get(bob.url(his)).send().await.unwrap().status();
    assert_eq!(status, StatusCode::OK, "shown to him: he may restore it");
    drop(bob);

    // Carol, an editor: chooses the cover and takes any photo away.
    let carol = person(state.path(), "carol@example.com", &["--local-edit"]);
    let (_, second) = upload(&carol, 2, jpeg(320), "image/jpeg").await;
    let second_id = second["id"].as_i64().unwrap();
    let (status, body) = make_cover(&carol, 2, second_id).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let listed = photos_of(&carol, 2).await;
    assert_eq!(listed[0]["id"].as_i64(), Some(second_id), "the cover first");
    assert_eq!(listed[0]["cover"], true);
    let (status, _) = take_away(&carol, 2, first_id).await;
    assert_eq!(
        status,
        StatusCode::NO_CONTENT,
        "an editor takes anyone's away"
    );
    assert_eq!(photos_of(&carol, 2).await.len(), 1);
    drop(carol);

    // A visitor the tailnet does not name sees the photos, and cannot add one.
    let nobody = person(state.path(), "x", &["--local-nobody"]);
    let url = second["thumb_url"].as_str().unwrap();
    assert_eq!(
        client().get(nobody.url(url)).send().await.unwrap().status(),
        StatusCode::OK
    );
    let (status, _) = upload(&nobody, 2, jpeg(330), "image/jpeg").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // A deleted photo's files are not shown to whoever may not restore it.
    for key in ["url", "thumb_url"] {
        let status = client()
            .get(nobody.url(mine[key].as_str().unwrap()))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, StatusCode::NOT_FOUND, "{key} of a deleted photo");
    }
}

#[tokio::test]
async fn files_no_photo_names_are_swept_at_start() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let (_, kept) = upload(
        &alice,
        3,
        encoded(&halves(200, 100), ImageFormat::Png),
        "image/png",
    )
    .await;
    drop(alice);
    // As a crash between the files and the row would leave them, long ago.
    let stray = "0123456789abcdef0123456789abcdef";
    std::fs::write(state.path().join(format!("photos/{stray}.jpg")), b"x").unwrap();
    std::fs::write(state.path().join(format!("photos/{stray}.thumb.jpg")), b"x").unwrap();
    std::fs::write(state.path().join("photos/.tmp-1-0-half.jpg"), b"x").unwrap();
    age_files(state.path());
    // As an import (another process) leaves them between its files and its rows: fresh.
    let in_flight = "fedcba9876543210fedcba9876543210";
    for name in [format!("{in_flight}.jpg"), format!("{in_flight}.thumb.jpg")] {
        std::fs::write(state.path().join("photos").join(name), b"y").unwrap();
    }
    let alice = person(state.path(), "alice@example.com", &[]);
    let url = kept["url"].as_str().unwrap();
    assert_eq!(
        client().get(alice.url(url)).send().await.unwrap().status(),
        StatusCode::OK
    );
    let mut want = vec![format!("{in_flight}.jpg"), format!("{in_flight}.thumb.jpg")];
    for key in ["url", "thumb_url"] {
        want.push(
            kept[key]
                .as_str()
                .unwrap()
                .trim_start_matches("/photos/")
                .to_owned(),
        );
    }
    want.sort();
    assert_eq!(
        files(state.path()),
        want,
        "old strays swept, fresh ones spared"
    );
    let gone = client()
        .get(alice.url(&format!("/photos/{stray}.jpg")))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn without_a_household_there_are_no_photos() {
    let server = Server::start(&["--local-identity", "alice@example.com"]);
    let (status, answer) = upload(
        &server,
        1,
        encoded(&halves(40, 20), ImageFormat::Png),
        "image/png",
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("keeps no household"),
        "{answer}"
    );
    // Reading is answered all the same: no photos.
    let listed = client()
        .get(server.url("/api/recipes/1/photos"))
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), StatusCode::OK);
    assert_eq!(listed.json::<Value>().await.unwrap(), serde_json::json!([]));
}

/// After a restart (which sweeps): every acknowledged photo of recipes 1–3 is listed, every
/// listed photo's files are served, and the photo directory holds exactly those files.
async fn consistent(server: &Server, state: &Path, acked: &[Value], case: &str) {
    let mut listed = Vec::new();
    for recipe in 1..=3 {
        let url = server.url(&format!("/api/recipes/{recipe}/photos"));
        let photos: Vec<Value> = client()
            .get(url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        listed.extend(photos);
    }
    for photo in acked {
        assert!(
            listed.iter().any(|p| p["id"] == photo["id"]),
            "{case}: acknowledged {photo} is listed"
        );
    }
    let mut want = Vec::new();
    for photo in &listed {
        for key in ["url", "thumb_url"] {
            let path = photo[key].as_str().unwrap();
            let status = client()
                .get(server.url(path))
                .send()
                .await
                .unwrap()
                .status();
            assert_eq!(status, StatusCode::OK, "{case}: {path} of a listed photo");
            want.push(path.trim_start_matches("/photos/").to_owned());
        }
    }
    want.sort();
    want.dedup();
    assert_eq!(
        files(state),
        want,
        "{case}: the files are exactly the rows'"
    );
}

/// Distinct pictures (so distinct files), each some tens of milliseconds of work.
fn picture(n: u32) -> Vec<u8> {
    encoded(&halves(1000 + n, 700), ImageFormat::Png)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_while_uploading_keeps_every_acknowledged_photo_and_leaves_no_stray() {
    let state = tempfile::tempdir().unwrap();
    let mut acked = Vec::new();
    for round in 0..3u32 {
        // Two streams of uploads, one after another in each, cut by the kill: some done,
        // one or two in flight.
        let pictures: Vec<Vec<u8>> = (0..12).map(|n| picture(round * 20 + n)).collect();
        let server = person(state.path(), "alice@example.com", &[]);
        let (base, origin) = (server.base.clone(), same_origin(&server));
        let streams: Vec<_> = pictures
            .chunks(6)
            .map(|chunk| {
                let (chunk, base, origin) = (chunk.to_vec(), base.clone(), origin.clone());
                tokio::spawn(async move {
                    let mut done = Vec::new();
                    for (n, bytes) in (0u64..).zip(chunk) {
                        match try_upload(
                            base.clone(),
                            origin.clone(),
                            n % 3 + 1,
                            bytes,
                            "image/png",
                        )
                        .await
                        {
                            Some((StatusCode::CREATED, photo)) => done.push(photo),
                            _ => break,
                        }
                    }
                    done
                })
            })
            .collect();
        let after = 400 + 500 * u64::from(round);
        tokio::time::sleep(std::time::Duration::from_millis(after)).await;
        drop(server); // kill -9, uploads in flight
        for stream in streams {
            acked.extend(stream.await.unwrap());
        }
        eprintln!("round {round}: {} photos acknowledged in all", acked.len());
        age_files(state.path());
        let server = person(state.path(), "alice@example.com", &[]);
        consistent(&server, state.path(), &acked, &format!("round {round}")).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_a_photo_leaving_no_trace_and_recovers() {
    if !injectable("the photos' full-disk test") {
        return;
    }
    let disk = Tmpfs::mount("8m");
    let state = disk.path().join("state");
    let server = person(&state, "alice@example.com", &[]);
    let (status, first) = upload(&server, 1, picture(1), "image/png").await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let acked = vec![first];
    let filler = disk.fill(0);
    for n in 2..5 {
        let (status, answer) = upload(&server, 1, picture(n), "image/png").await;
        assert_eq!(
            status,
            StatusCode::SERVICE_UNAVAILABLE,
            "a full disk: {answer}"
        );
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .starts_with("Nothing was saved"),
            "{answer}"
        );
    }
    consistent(&server, &state, &acked, "disk full").await;
    std::fs::remove_file(filler).unwrap();
    let (status, again) = upload(&server, 1, picture(9), "image/png").await;
    assert_eq!(status, StatusCode::CREATED, "space freed: {again}");
    drop(server);
    let server = person(&state, "alice@example.com", &[]);
    consistent(&server, &state, &[acked[0].clone(), again], "after a kill").await;
}
