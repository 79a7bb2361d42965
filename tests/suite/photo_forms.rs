//! Photos through the recipe page's plain forms (issue #44), against the real binary: the
//! upload form's multipart body takes the API's one path once its bytes are read, so a
//! phone's JPEG sent by the form comes back without its location, and the person is sent
//! back to the recipe (303), whose page then shows it; a file that is no photo gets a page
//! saying so (415) with the way back, and leaves nothing; a form from another page (a
//! wrong token) is refused the same way. Delete asks first, then deletes; the recipe then
//! says "Photo deleted." with an Undo, and lists it to restore (a form). A recipe page
//! kept for brotli clients follows its photos (never the page from before one came).

use crate::common;

use common::household::person;
use common::{Server, client, decode_brotli, hidden_inputs, same_origin};
use libations_photos::fixtures::{halves, phone_jpeg};
use reqwest::StatusCode;
use serde_json::Value;

/// The recipe page's form token for this person (the upload form's hidden `csrf`).
async fn token(server: &Server, recipe: u64) -> String {
    let page = client()
        .get(server.url(&format!("/recipes/{recipe}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(&format!("action=\"/recipes/{recipe}/photos\"")),
        "the upload form is on the page"
    );
    hidden_inputs(&page)
        .into_iter()
        .find(|(name, _)| name == "csrf")
        .map(|(_, value)| value)
        .expect("the form's token")
}

/// A `multipart/form-data` body as a browser sends the form: `csrf`, then the file.
fn form_body(csrf: &str, file: &[u8], file_name: &str, file_type: &str) -> (String, Vec<u8>) {
    let boundary = "----libations-test-7d3f";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{file_name}\"\r\n\
         Content-Type: {file_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The form posted: its status, `Location` and body.
async fn post_form(
    server: &Server,
    recipe: u64,
    body: (String, Vec<u8>),
) -> (StatusCode, String, String) {
    let response = client()
        .post(server.url(&format!("/recipes/{recipe}/photos")))
        .headers(same_origin(server))
        .header("content-type", body.0)
        .body(body.1)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let location = response
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, location, response.text().await.unwrap())
}

async fn photos_of(server: &Server, recipe: u64) -> Vec<Value> {
    let url = server.url(&format!("/api/recipes/{recipe}/photos"));
    client()
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn a_phone_photo_sent_by_the_form_comes_back_without_its_location() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let phone = phone_jpeg(&halves(400, 200), 6);
    assert!(contains(&phone, b"Exif") && contains(&phone, b"my kitchen"));
    let csrf = token(&alice, 1).await;
    let (status, location, body) = post_form(
        &alice,
        1,
        form_body(&csrf, &phone, "IMG_0001.JPG", "image/jpeg"),
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER, "{body}");
    assert_eq!(location, "/recipes/1", "back to the recipe");

    let photos = photos_of(&alice, 1).await;
    assert_eq!(photos.len(), 1, "{photos:?}");
    assert_eq!(photos[0]["by"], "alice@example.com");
    assert_eq!(
        (photos[0]["width"].as_u64(), photos[0]["height"].as_u64()),
        (Some(200), Some(400)),
        "upright"
    );
    for key in ["url", "thumb_url"] {
        let url = photos[0][key].as_str().unwrap();
        let bytes = client()
            .get(alice.url(url))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert!(bytes.starts_with(b"\xFF\xD8"), "{key}: a JPEG");
        assert!(
            !contains(&bytes, b"Exif") && !contains(&bytes, b"my kitchen"),
            "{key}: no location"
        );
    }
    // The recipe's page shows it beside the name, a link to its own page, saying whose.
    let page = client()
        .get(alice.url("/recipes/1"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let thumb = photos[0]["thumb_url"].as_str().unwrap();
    assert!(
        page.contains(&format!(
            "<img src=\"{thumb}\" alt=\"Photo of Negroni, taken by alice@example.com\""
        )),
        "{page}"
    );
    assert!(page.contains(&format!("href=\"/recipes/1/photos/{}\"", photos[0]["id"])));
}

#[tokio::test]
async fn a_file_that_is_no_photo_gets_a_page_saying_so_and_leaves_nothing() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let csrf = token(&alice, 1).await;
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>";
    let (status, _, page) =
        post_form(&alice, 1, form_body(&csrf, svg, "a.jpg", "image/jpeg")).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(page.contains("<h1>Unsupported media type</h1>"), "{page}");
    assert!(
        page.contains("JPEG, PNG, WebP or GIF"),
        "names the formats: {page}"
    );
    assert!(
        page.contains("<a href=\"/recipes/1\">Back to Negroni</a>"),
        "the way back: {page}"
    );

    // A form another page made (its token is not this person's): refused, said the same way.
    let jpeg = phone_jpeg(&halves(40, 20), 1);
    let (status, _, page) = post_form(
        &alice,
        1,
        form_body("not-the-token", &jpeg, "a.jpg", "image/jpeg"),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(page.contains("Back to Negroni"), "{page}");

    assert!(photos_of(&alice, 1).await.is_empty(), "no photo row");
    let files = std::fs::read_dir(state.path().join("photos")).map_or(0, |d| d.count());
    assert_eq!(files, 0, "no photo file");
}

/// A form announcing a photo over 25 MiB gets the photo's page saying how large it is and
/// what is taken, with the way back, at once: the guard does not answer it with its line of
/// text, and the rest of the body is not waited for. Nothing is kept. (The API's 413 is
/// `photos::` own test.)
#[tokio::test]
async fn a_photo_over_the_limit_gets_a_page_saying_so_at_once() {
    use std::io::{Read, Write};
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let csrf = token(&alice, 1).await;
    let (kind, start) = form_body(&csrf, b"", "big.jpg", "image/jpeg");
    let announced = 30 << 20;
    let port = alice.base.rsplit(':').next().unwrap().trim_end_matches('/');
    let mut stream = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST /recipes/1/photos HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {}\r\n\
         Sec-Fetch-Site: same-origin\r\nContent-Type: {kind}\r\nContent-Length: {announced}\r\n\r\n",
        alice.base
    );
    stream.write_all(head.as_bytes()).unwrap();
    // The form's fields and the first bytes of the photo; the rest never comes.
    stream.write_all(&start[..start.len() - 40]).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 422 "),
        "refused as the photo rules refuse: {answer}"
    );
    assert!(answer.contains("text/html"), "a page: {answer}");
    assert!(
        answer.contains(&format!("the photo is {announced} bytes")) && answer.contains("25 MiB"),
        "says how large and what is taken: {answer}"
    );
    assert!(
        answer.contains("<a href=\"/recipes/1\">Back to Negroni</a>"),
        "the way back: {answer}"
    );
    assert!(photos_of(&alice, 1).await.is_empty(), "no photo row");
}

#[tokio::test]
async fn deleting_by_the_form_asks_first() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    let csrf = token(&alice, 1).await;
    let jpeg = phone_jpeg(&halves(40, 20), 1);
    let (status, _, _) = post_form(&alice, 1, form_body(&csrf, &jpeg, "a.jpg", "image/jpeg")).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let id = photos_of(&alice, 1).await[0]["id"].as_i64().unwrap();
    let delete = |fields: Vec<(&'static str, String)>| {
        client()
            .post(alice.url(&format!("/recipes/1/photos/{id}/delete")))
            .headers(same_origin(&alice))
            .form(&fields)
            .send()
    };
    let asked = delete(vec![("csrf", csrf.clone())]).await.unwrap();
    assert_eq!(asked.status(), StatusCode::OK);
    let page = asked.text().await.unwrap();
    assert!(
        page.contains("Delete this photo of Negroni?")
            && page.contains("You can restore it")
            && !page.contains("cannot be undone"),
        "{page}"
    );
    assert_eq!(
        photos_of(&alice, 1).await.len(),
        1,
        "asking deletes nothing"
    );
    let done = delete(vec![("csrf", csrf.clone()), ("confirm", "yes".into())])
        .await
        .unwrap();
    assert_eq!(done.status(), StatusCode::SEE_OTHER);
    let back = done.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(back, format!("/recipes/1?photo_deleted={id}"));
    assert!(photos_of(&alice, 1).await.is_empty());

    // Back on the recipe: "Photo deleted." with its Undo, a form that restores it.
    let restore = format!("action=\"/recipes/1/photos/{id}/restore\"");
    let page = |path: String| {
        let url = alice.url(&path);
        async move {
            client()
                .get(url)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };
    let said = page(back).await;
    assert!(
        said.contains("Photo deleted.") && said.contains(&restore),
        "{said}"
    );
    let listed = page("/recipes/1".into()).await;
    assert!(
        !listed.contains("Photo deleted."),
        "said once, after the delete"
    );
    assert!(
        listed.contains("Recently deleted photos (1)") && listed.contains(&restore),
        "the recipe lists it to restore"
    );
    let undone = client()
        .post(alice.url(&format!("/recipes/1/photos/{id}/restore")))
        .headers(same_origin(&alice))
        .form(&[("csrf", csrf)])
        .send()
        .await
        .unwrap();
    assert_eq!(undone.status(), StatusCode::SEE_OTHER);
    assert_eq!(undone.headers()["location"], "/recipes/1");
    let back_again = photos_of(&alice, 1).await;
    assert_eq!(back_again.len(), 1);
    assert_eq!(back_again[0]["id"].as_i64(), Some(id), "the same photo");
    assert!(!page("/recipes/1".into()).await.contains("Recently deleted"));
}

/// The recipe's page as a brotli client gets it (the kept, spliced page once asked for):
/// its text and `Cache-Control`.
async fn brotli_page(server: &Server, recipe: u64) -> (String, String) {
    let response = client()
        .get(server.url(&format!("/recipes/{recipe}")))
        .header("accept-encoding", "br")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "br");
    let cache = response.headers()["cache-control"]
        .to_str()
        .unwrap()
        .to_owned();
    let text = String::from_utf8(decode_brotli(&response.bytes().await.unwrap())).unwrap();
    (text, cache)
}

/// Waits until the list is compressed in the background after start (the list page comes
/// with brotli), and a moment more for the list inside recipe pages, compressed next:
/// recipe pages are only kept from then on.
async fn list_compressed(server: &Server) {
    let started = std::time::Instant::now();
    loop {
        let response = client()
            .get(server.url("/"))
            .header("accept-encoding", "br")
            .send()
            .await
            .unwrap();
        if response
            .headers()
            .get("content-encoding")
            .is_some_and(|e| e == "br")
        {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 60,
            "the list was never compressed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
}

#[tokio::test]
async fn a_kept_recipe_page_follows_its_photos() {
    let state = tempfile::tempdir().unwrap();
    let alice = person(state.path(), "alice@example.com", &[]);
    list_compressed(&alice).await;
    for _ in 0..2 {
        let (page, cache) = brotli_page(&alice, 1).await;
        assert!(!page.contains("photo-thumb"), "no photo yet");
        assert!(
            cache.starts_with("private"),
            "the form's token is alice's: {cache}"
        );
    }
    let api = |method: reqwest::Method, path: String| {
        client()
            .request(method, alice.url(&path))
            .headers(same_origin(&alice))
    };
    let jpeg = phone_jpeg(&halves(40, 20), 1);
    let added: Value = api(reqwest::Method::POST, "/api/recipes/1/photos".into())
        .header("content-type", "image/jpeg")
        .body(jpeg)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let thumb = added["thumb_url"].as_str().unwrap().to_owned();
    for _ in 0..2 {
        let (page, _) = brotli_page(&alice, 1).await;
        assert!(
            page.contains(&thumb),
            "the new photo, not the page kept before it"
        );
    }
    let gone = api(
        reqwest::Method::DELETE,
        format!("/api/recipes/1/photos/{}", added["id"]),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(gone.status(), StatusCode::NO_CONTENT);
    let (page, _) = brotli_page(&alice, 1).await;
    assert!(
        !page.contains(&format!("href=\"/recipes/1/photos/{}\"", added["id"])),
        "taken away, not the page kept with it"
    );
    assert!(
        page.contains("Recently deleted photos (1)") && page.contains(&thumb),
        "listed to restore"
    );
}
