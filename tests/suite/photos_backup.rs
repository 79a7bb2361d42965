//! Photos in the household's backup (issue #44) against the real binary: two people's
//! photos and the cover go out in the archive (`GET /api/household/download?photos=1`)
//! and come back through `libations import-household` byte for byte; the upload refuses
//! the archive naming the command; a hostile archive is refused naming its entry and
//! leaves the state directory as it was; `check --household` and `repair-household` find
//! and drop a photo of a recipe never had, and find a photo whose files are gone.

use crate::common;
use crate::photos::{files, make_cover, photos_of, upload};

use common::household::person;
use common::{BIN, client, collection, same_origin};
use image::ImageFormat;
use libations::photos::PhotoStore;
use libations_photos::fixtures::{encoded, halves, png_bomb};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::io::{Cursor, Write};
use std::path::Path;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    std::process::Command::new(BIN).args(args).output().unwrap()
}

fn import(file: &Path, state: &Path) -> Output {
    run(&[
        "import-household",
        file.to_str().unwrap(),
        "--state-dir",
        state.to_str().unwrap(),
    ])
}

async fn bytes(url: String) -> Vec<u8> {
    let response = client().get(url).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.bytes().await.unwrap().to_vec()
}

/// A photo as the API shows it, less its id (a new household numbers its own).
fn without_id(photo: &Value) -> Value {
    let mut photo = photo.clone();
    photo.as_object_mut().unwrap().remove("id");
    photo
}

#[tokio::test]
async fn photos_come_back_from_the_archive_with_their_bytes_cover_and_owner() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let png = encoded(&halves(640, 480), ImageFormat::Png);
    let (status, first) = upload(&alice, 1, png, "image/png").await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    alice.stop();
    let bob = person(state.path(), "bob@example.com", &["--local-edit"]);
    let jpeg = encoded(&halves(480, 640), ImageFormat::Jpeg);
    let (status, second) = upload(&bob, 1, jpeg, "image/jpeg").await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    let (status, said) = make_cover(&bob, 1, second["id"].as_i64().unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{said}");
    let before = photos_of(&bob, 1).await;
    assert_eq!(before[0]["by"], "bob@example.com");
    assert_eq!(before[1]["by"], "alice@example.com");
    let mut originals = Vec::new();
    for photo in &before {
        for key in ["url", "thumb_url"] {
            originals.push(bytes(bob.url(photo[key].as_str().unwrap())).await);
        }
    }

    // The plain download stays JSON: version 6, the photos' rows, no image.
    let plain: Value = client()
        .get(bob.url("/api/household/download?t=1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(plain["version"], 6);
    let rows = plain["photos"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter().any(|r| r["by"] == "bob@example.com"
            && r["cover"] == true
            && r["cover_at"].as_i64() >= r["at"].as_i64()),
        "{plain}"
    );

    let bad = client()
        .get(bob.url("/api/household/download?photos=yes"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);

    // The archive.
    let response = client()
        .get(bob.url("/api/household/download?photos=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/zip");
    let archive = response.bytes().await.unwrap().to_vec();
    let mut zip = zip::ZipArchive::new(Cursor::new(&archive)).unwrap();
    assert_eq!(zip.len(), 5, "household.json and two files per photo");
    for i in 0..zip.len() {
        let entry = zip.by_index(i).unwrap();
        let name = entry.name().unwrap().into_owned();
        if name.ends_with(".jpg") {
            assert_eq!(
                entry.compression(),
                zip::CompressionMethod::Stored,
                "{name}"
            );
        }
    }

    // The upload does not take it, and says what does.
    for kind in ["application/zip", "application/json"] {
        let refused = client()
            .post(bob.url("/api/household/upload"))
            .headers(same_origin(&bob))
            .header("content-type", kind)
            .body(archive.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(
            refused.status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{kind}"
        );
        let said: Value = refused.json().await.unwrap();
        assert!(
            said["error"]
                .as_str()
                .unwrap()
                .contains("libations import-household"),
            "{said}"
        );
    }
    bob.stop();

    // Into a fresh state directory with the command line (told a zip by its bytes).
    let fresh = tempfile::tempdir().unwrap();
    let file = fresh.path().join("household-backup");
    std::fs::write(&file, &archive).unwrap();
    let dir = fresh.path().join("state");
    let imported = import(&file, &dir);
    let out = String::from_utf8_lossy(&imported.stdout);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    assert!(
        out.contains("2 photos") && out.contains("4 photo file(s) written"),
        "{out}"
    );

    let carol = person(&dir, "carol@example.com", &[]);
    let after = photos_of(&carol, 1).await;
    let shown = |list: &[Value]| list.iter().map(without_id).collect::<Vec<_>>();
    assert_eq!(
        shown(&after),
        shown(&before),
        "same photos, owners, sizes and cover"
    );
    let mut served = Vec::new();
    for photo in &after {
        for key in ["url", "thumb_url"] {
            served.push(bytes(carol.url(photo[key].as_str().unwrap())).await);
        }
    }
    assert!(served == originals, "the same bytes");
    carol.stop();

    // Loaded again: nothing doubled.
    assert!(import(&file, &dir).status.success());
    let carol = person(&dir, "carol@example.com", &[]);
    assert_eq!(photos_of(&carol, 1).await.len(), 2);
    carol.stop();
    the_cover_chosen_last_wins(&file, &dir, &plain).await;
    checks_find_stray_and_missing_photos(&dir);
    the_json_file_alone_takes_no_row_without_its_files(&plain).await;
}

/// In `dir` (recipe 1: Alice's photo, and Bob's newer one, its cover since Bob chose it),
/// Alice's is chosen as cover now: the archive `file` loaded again keeps it, its cover
/// chosen before; the backup `plain` with its cover chosen later still changes it back,
/// and the command names the recipe.
async fn the_cover_chosen_last_wins(file: &Path, dir: &Path, plain: &Value) {
    let dan = person(dir, "dan@example.com", &["--local-edit"]);
    let before = photos_of(&dan, 1).await;
    assert_eq!(before[1]["by"], "alice@example.com");
    let (status, said) = make_cover(&dan, 1, before[1]["id"].as_i64().unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{said}");
    let recipe: Value = client()
        .get(dan.url("/api/recipes/1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let name = recipe["name"].as_str().unwrap().to_owned();
    dan.stop();

    let again = import(file, dir);
    let out = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success() && !out.contains("cover of"), "{out}");
    let dan = person(dir, "dan@example.com", &[]);
    let shown: Value = client()
        .get(dan.url("/api/recipes/1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        shown["photos"][0]["by"], "alice@example.com",
        "the cover chosen last, first: {shown}"
    );
    dan.stop();

    // The backup's cover (Bob's) chosen later than Alice's was: it wins, and is named.
    let mut later = plain.clone();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for row in later["photos"].as_array_mut().unwrap() {
        if row["cover"] == true {
            row["cover_at"] = json!(now);
        }
    }
    let path = dir.join("later.json");
    std::fs::write(&path, serde_json::to_vec(&later).unwrap()).unwrap();
    let loaded = import(&path, dir);
    let out = String::from_utf8_lossy(&loaded.stdout);
    assert!(
        loaded.status.success()
            && out.contains(&format!(
                "the cover of 1 recipe(s) changed, the file's chosen later: {name} (1)"
            )),
        "{out}{}",
        String::from_utf8_lossy(&loaded.stderr)
    );
    let dan = person(dir, "dan@example.com", &[]);
    let shown = photos_of(&dan, 1).await;
    assert_eq!(
        (shown.len(), &shown[0]["by"]),
        (2, &json!("bob@example.com"))
    );
    dan.stop();
    std::fs::remove_file(path).unwrap();
}

/// The plain backup (`plain`, two photo rows) loaded where their files are not: by the
/// upload and the command line, the rows are left out and said so; no row without files.
async fn the_json_file_alone_takes_no_row_without_its_files(plain: &Value) {
    let fresh = tempfile::tempdir().unwrap();
    let dave = person(fresh.path(), "dave@example.com", &["--local-edit"]);
    let (status, taken) =
        common::household::write(&dave, "POST", "/api/household/upload", Some(plain.clone())).await;
    assert_eq!(status, StatusCode::OK, "{taken}");
    assert_eq!(
        (
            taken["photos"].as_u64(),
            taken["photos_without_files"].as_u64()
        ),
        (Some(0), Some(2)),
        "{taken}"
    );
    assert!(photos_of(&dave, 1).await.is_empty());
    dave.stop();

    let file = fresh.path().join("plain.json");
    std::fs::write(&file, serde_json::to_vec(plain).unwrap()).unwrap();
    let dir = fresh.path().join("cli");
    let imported = import(&file, &dir);
    let out = String::from_utf8_lossy(&imported.stdout);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    assert!(out.contains("0 photos; 2 photo row(s) left out"), "{out}");
    let c = rusqlite::Connection::open(dir.join("household.sqlite")).unwrap();
    let rows: i64 = c
        .query_row("SELECT count(*) FROM photos", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0);
}

/// `check --household` and `repair-household` on the household in `dir` (two photos of
/// recipe 1): a row for a recipe never had, its files, then a file gone.
fn checks_find_stray_and_missing_photos(dir: &Path) {
    let db = dir.join("household.sqlite");
    let (_recipes_dir, recipes) = collection();
    let photos = dir.join("photos");
    let stray = "5757575757575757575757575757575a";
    let some = files(dir)[0].clone();
    for name in [format!("{stray}.jpg"), format!("{stray}.thumb.jpg")] {
        std::fs::copy(photos.join(&some), photos.join(&name)).unwrap();
        // Past the hour the sweep spares files in flight: a stray of long ago.
        let file = std::fs::File::options()
            .write(true)
            .open(photos.join(&name))
            .unwrap();
        let ago = std::time::Duration::from_secs(2 * 60 * 60);
        file.set_modified(std::time::SystemTime::now() - ago)
            .unwrap();
    }
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute(
        "INSERT INTO photos (recipe, hash, width, height, by, at, cover) VALUES (9999, ?1, 10, 10, 'mallory', 0, 1)",
        [stray],
    )
    .unwrap();
    drop(c);
    let (db_arg, recipes_arg) = (db.to_str().unwrap(), recipes.to_str().unwrap());
    let checked = run(&["check", recipes_arg, "--household", db_arg]);
    let said = String::from_utf8_lossy(&checked.stderr);
    assert!(!checked.status.success());
    assert!(said.contains("photos: recipe 9999 (mallory)"), "{said}");
    let repaired = run(&[
        "repair-household",
        "--recipes-file",
        recipes_arg,
        "--state-dir",
        dir.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&repaired.stdout);
    assert!(
        repaired.status.success(),
        "{}",
        String::from_utf8_lossy(&repaired.stderr)
    );
    assert!(
        said.contains("photos: recipe 9999") && said.contains("2 photo file(s)"),
        "{said}"
    );
    assert!(
        !files(dir).iter().any(|f| f.starts_with(stray)),
        "its files swept"
    );
    assert_eq!(files(dir).len(), 4, "the others kept");
    assert!(
        run(&["check", recipes_arg, "--household", db_arg])
            .status
            .success()
    );

    let gone = files(dir)[0].clone();
    std::fs::remove_file(photos.join(&gone)).unwrap();
    let checked = run(&["check", "--household", db_arg]);
    let said = String::from_utf8_lossy(&checked.stderr);
    assert!(!checked.status.success());
    assert!(
        said.contains(&format!("photos/{gone} is missing")),
        "{said}"
    );
}

/// An archive's entry: its name, its bytes, and whether deflated (else stored).
type Entry = (String, Vec<u8>, bool);

/// A zip of `entries`.
fn zip_of(entries: &[Entry]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes, deflated) in entries {
        let method = match deflated {
            true => zip::CompressionMethod::Deflated,
            false => zip::CompressionMethod::Stored,
        };
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        zip.start_file(name.as_str(), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A version 5 backup naming a photo of recipe 1 for each hash, the first the cover.
fn backup_naming(hashes: &[&str]) -> Vec<u8> {
    let photos: Vec<Value> = hashes
        .iter()
        .enumerate()
        .map(|(i, hash)| {
            json!({"recipe": 1, "hash": hash, "width": 64, "height": 48,
                   "by": "eve@example.com", "at": 1000 + i, "cover": i == 0})
        })
        .collect();
    let backup = json!({"format": "libations-household", "version": 5, "exported_at": 0,
                        "shelf": [], "people": [], "photos": photos});
    serde_json::to_vec(&backup).unwrap()
}

/// Every file under `dir` with its size, and the database's photo rows.
fn snapshot(dir: &Path) -> (Vec<(String, u64)>, Vec<String>) {
    let mut listing = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            }
            let name = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string();
            listing.push((name, if meta.is_dir() { 0 } else { meta.len() }));
        }
    }
    listing.sort();
    let c = rusqlite::Connection::open(dir.join("household.sqlite")).unwrap();
    let mut stmt = c
        .prepare("SELECT id, recipe, hash, by, at, cover FROM photos ORDER BY id")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok(format!(
                "{} {} {} {} {} {}",
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, i64>(5)?
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (listing, rows)
}

#[tokio::test]
async fn a_hostile_archive_is_refused_naming_its_entry_and_leaves_no_trace() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let (status, photo) = upload(
        &alice,
        1,
        encoded(&halves(320, 240), ImageFormat::Png),
        "image/png",
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{photo}");
    alice.stop();
    let before = snapshot(state.path());
    assert_eq!(before.1.len(), 1);

    // A good photo, written first each time: the refusal must take it away again.
    let large = encoded(&halves(64, 48), ImageFormat::Jpeg);
    let good = PhotoStore::hash_of(&large);
    let pair = |hash: &str, large: &[u8], thumb: &[u8]| {
        vec![
            (format!("photos/{hash}.jpg"), large.to_vec(), false),
            (format!("photos/{hash}.thumb.jpg"), thumb.to_vec(), false),
        ]
    };
    let thumb = encoded(&halves(32, 24), ImageFormat::Jpeg);
    let other = encoded(&halves(80, 60), ImageFormat::Jpeg);
    let lying = "0badbadbadbadbadbadbadbadbadbad0";
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".to_vec();
    let giant = png_bomb(30_000);
    let zeros = vec![0u8; 40 << 20];
    let absent = "0123456789abcdef0123456789abcdef";
    let cases: Vec<(&str, String, Vec<Entry>, String)> = vec![
        (
            "hash ≠ name",
            lying.into(),
            pair(lying, &other, &thumb),
            format!("photos/{lying}.jpg: its content's hash is"),
        ),
        (
            "an SVG",
            PhotoStore::hash_of(&svg),
            pair(&PhotoStore::hash_of(&svg), &svg, &thumb),
            "not a photo this app reads".into(),
        ),
        (
            "a 30,000 × 30,000 PNG",
            PhotoStore::hash_of(&giant),
            pair(&PhotoStore::hash_of(&giant), &giant, &thumb),
            "30000 × 30000 pixels".into(),
        ),
        (
            "a zip bomb",
            PhotoStore::hash_of(&zeros),
            vec![(
                format!("photos/{}.jpg", PhotoStore::hash_of(&zeros)),
                zeros.clone(),
                true,
            )],
            "is larger than".into(),
        ),
        (
            "a path out",
            good.clone(),
            vec![("../x.jpg".into(), large.clone(), false)],
            "../x.jpg: is not a file a household archive holds".into(),
        ),
        (
            "a row without its files",
            absent.into(),
            Vec::new(),
            format!("photos[1]: photos/{absent}.jpg is not in the archive"),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (case, hash, entries, expected) in cases {
        let mut all = vec![(
            "household.json".to_owned(),
            backup_naming(&[&good, &hash]),
            true,
        )];
        all.extend(pair(&good, &large, &thumb));
        all.extend(entries);
        let file = dir.path().join("archive.zip");
        std::fs::write(&file, zip_of(&all)).unwrap();
        let started = std::time::Instant::now();
        let refused = import(&file, state.path());
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{case}: taken");
        assert!(
            said.contains(&expected) && said.contains("nothing was changed"),
            "{case}: {said}"
        );
        assert!(
            started.elapsed().as_secs() < 20,
            "{case}: {:?}",
            started.elapsed()
        );
        assert_eq!(
            snapshot(state.path()),
            before,
            "{case}: the state directory changed"
        );
    }

    // Refused into a state directory that was not there: none is left.
    let new = dir.path().join("new-state");
    assert!(
        !import(&dir.path().join("archive.zip"), &new)
            .status
            .success()
    );
    assert!(
        !new.exists(),
        "a state directory made for a refused archive stays"
    );

    // A version 4 file (no photos) still loads, and takes no photo away.
    let v4 = dir.path().join("v4.json");
    std::fs::write(&v4, br#"{"format":"libations-household","version":4,"exported_at":0,"shelf":[],"people":[],"rules":[]}"#).unwrap();
    let loaded = import(&v4, state.path());
    assert!(
        loaded.status.success(),
        "{}",
        String::from_utf8_lossy(&loaded.stderr)
    );
    assert_eq!(snapshot(state.path()).1, before.1);
}
