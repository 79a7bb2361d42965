//! The site's tests: search JSON copied from the JSON of all recipes, kept search answers,
//! and recipe pages (spliced or compressed whole) against the text rendered whole.

use super::recipe_page::LIST_MARK;
use super::*;
use crate::connections::PerRequest;
use crate::http::fixed::per_request_as;
use crate::http::recent::Kind;
use crate::recipes::Recipe;
use crate::search::SearchQuery;
use crate::units::AmountView;
use crate::units::Unit;
use crate::view::templates::{EditControls, EditOn, ListBody, Row};
use axum::body::Body;
use axum::http::header;
use axum::http::{HeaderMap, HeaderValue, Response};
use std::io::Read;

/// Recipes as the list JSON writes them: each with its strength.
fn listed<'a>(site: &Site, hits: impl IntoIterator<Item = &'a Recipe>) -> Vec<u8> {
    let all: Vec<prebuilt::Listed> = hits
        .into_iter()
        .map(|recipe| prebuilt::Listed {
            recipe,
            strength: site.strengths().of_id(recipe.id),
        })
        .collect();
    serde_json::to_vec(&all).expect("recipes serialise")
}

#[test]
fn search_json_is_the_serialised_hits() {
    let recipes = Recipes::sample().expect("the sample is valid");
    let site =
        Site::new(recipes.clone(), &Assets::load(), Default::default()).expect("the site builds");
    let all = listed(&site, recipes.all());
    assert_eq!(site.all_json().bytes().as_ref(), all.as_slice());
    for q in ["", "gin", "lime juice", "base:rum", "zzz", "e"] {
        let query = SearchQuery::parse(q);
        let hits = listed(&site, site.search(&query));
        let (found, len) = site.json_hits(&query, None);
        let mut copied = Vec::new();
        site.write_json_hits(&found, &mut copied)
            .expect("a Vec takes it");
        assert_eq!(copied, hits, "query {q:?}");
        assert_eq!(len, hits.len(), "query {q:?}");
    }
    let empty = Site::new(
        Recipes::parse(
            "[]",
            crate::recipes::Origin::Embedded,
            std::time::UNIX_EPOCH,
        )
        .expect("an empty list is valid"),
        &Assets::load(),
        Default::default(),
    )
    .expect("the site builds");
    assert_eq!(empty.all_json().bytes().as_ref(), b"[]");
}

/// The sample's recipes many times over, under other ids and names: a collection
/// whose searches answer with more than [`crate::http::compressing::STREAM_FROM`] bytes.
fn large_site(copies: u64) -> Site {
    let sample = Recipes::sample().expect("the sample is valid");
    let mut all = Vec::new();
    for n in 0..copies {
        for r in sample.all() {
            let mut v = serde_json::to_value(r).expect("a recipe serialises");
            v["id"] = serde_json::json!(n * 1000 + r.id);
            v["name"] = serde_json::json!(format!("{} {n}", r.name));
            all.push(v);
        }
    }
    let json = serde_json::to_string(&all).expect("recipes serialise");
    let recipes = Recipes::parse(
        &json,
        crate::recipes::Origin::Embedded,
        std::time::UNIX_EPOCH,
    )
    .expect("the copies are valid");
    Site::new(recipes, &Assets::load(), Default::default()).expect("the site builds")
}

async fn decoded(response: Response<Body>) -> Vec<u8> {
    let packed = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a body");
    let mut text = Vec::new();
    brotli::BrotliDecompress(&mut &packed[..], &mut text).expect("brotli");
    text
}

#[tokio::test]
async fn search_answers_are_kept_per_search_and_coding_and_sent_again_unchanged() {
    let site = large_site(60);
    let br = accept("br");
    for (kind, q) in [(Kind::Page, "gin"), (Kind::Json, "lime")] {
        assert!(site.recent_answer(kind, q, &br).is_none());
        let query = SearchQuery::parse(q);
        let made = match kind {
            Kind::Page => site.search_answer(q, query.clone(), None, &br),
            Kind::Json => site.search_json_answer(q, &query, None, &br),
        }
        .expect("an answer");
        let etag = made.headers()[axum::http::header::ETAG].clone();
        let kept = site.recent_answer(kind, q, &br).expect("kept");
        assert_eq!(kept.headers()[axum::http::header::ETAG], etag);
        let (made, kept) = (decoded(made).await, decoded(kept).await);
        assert_eq!(made, kept);
        let whole = match kind {
            Kind::Page => site.render_search(q, query).expect("renders").into_bytes(),
            Kind::Json => listed(&site, site.search(&query)),
        };
        assert!(
            whole.len() > crate::http::compressing::STREAM_FROM,
            "{q}: too small a test"
        );
        assert_eq!(kept, whole, "{q}");
        // Another search, another coding or the other kind of answer is not this one.
        assert!(site.recent_answer(kind, "gin lime", &br).is_none());
        assert!(site.recent_answer(kind, q, &accept("gzip")).is_none());
        assert!(site.recent_answer(kind, q, &HeaderMap::new()).is_none());
    }
    assert!(site.recent_answer(Kind::Json, "gin", &br).is_none());
    assert_eq!(site.recent.len(), 2);
    // A new collection starts with none kept.
    assert!(
        large_site(60)
            .recent_answer(Kind::Page, "gin", &br)
            .is_none()
    );
}

/// An answer too large to keep was made for its request alone: marked so that its bytes
/// count against the budget for unsent answers (a client that never reads could otherwise
/// hold any number of them); a kept one is shared, like a pre-rendered page, and is not.
#[tokio::test]
async fn an_answer_too_large_to_keep_counts_as_the_requests_own() {
    let site = large_site(200);
    let identity = accept("identity");
    let mut seen = Vec::new();
    for q in ["negroni 7", "gin"] {
        let query = SearchQuery::parse(q);
        let made = site
            .search_json_answer(q, &query, None, &identity)
            .expect("an answer");
        let own = made.extensions().get::<PerRequest>().is_some();
        let kept = site.recent_answer(Kind::Json, q, &identity).is_some();
        let size = body(made).await.len();
        assert_eq!(
            kept,
            size <= crate::http::recent::LARGEST,
            "{q}: {size} bytes"
        );
        assert_eq!(own, !kept, "{q}: {size} bytes");
        seen.push(kept);
    }
    assert_eq!(seen, [true, false], "one answer kept, one too large");
}

/// On a small collection a search's answer is small, made whole (and compressed whole
/// for its client): it is kept too, per coding, and sent again as it was made; a personal
/// search is never kept.
#[tokio::test]
async fn small_search_answers_are_kept_too_in_every_coding() {
    let site = Site::new(
        Recipes::sample().unwrap(),
        &Assets::load(),
        Default::default(),
    )
    .unwrap();
    for coding in ["br", "gzip", "identity"] {
        let request = accept(coding);
        for (kind, q) in [(Kind::Page, "lime"), (Kind::Json, "lime")] {
            assert!(site.recent_answer(kind, q, &request).is_none());
            let query = SearchQuery::parse(q);
            let made = match kind {
                Kind::Page => site.search_answer(q, query.clone(), None, &request),
                Kind::Json => site.search_json_answer(q, &query, None, &request),
            }
            .unwrap();
            let kept = site.recent_answer(kind, q, &request).expect("kept");
            assert_eq!(kept.headers()[header::ETAG], made.headers()[header::ETAG]);
            assert_eq!(
                kept.headers().get(header::CONTENT_ENCODING),
                made.headers().get(header::CONTENT_ENCODING)
            );
            assert_eq!(body(kept).await, body(made).await, "{q} {coding}");
        }
    }
    assert_eq!(site.recent.len(), 6);
    let personal = SearchQuery::parse("is:fav lime");
    assert!(!Site::is_kept(&personal));
    site.search_answer("is:fav lime", personal, None, &accept("br"))
        .unwrap();
    assert!(
        site.recent_answer(Kind::Page, "is:fav lime", &accept("br"))
            .is_none()
    );
}

#[test]
fn recipe_pages_carry_the_list_as_rendered_alone() {
    let recipes = Recipes::sample().expect("the sample is valid");
    let site =
        Site::new(recipes.clone(), &Assets::load(), Default::default()).expect("the site builds");
    let alone = render(
        "recipe list",
        &ListBody {
            urls: &site.urls,
            q: "",
            total: recipes.len(),
            rows: recipes.all().iter().map(Row::new).collect(),
            personal: Vec::new(),
            guesses: Vec::new(),
            misread: None,
        },
    )
    .expect("the list renders");
    assert_eq!(site.list_body().expect("the list is in the page"), alone);
    let page = site
        .render_recipe(&recipes.all()[0], AmountView::default(), None)
        .expect("the page renders");
    assert!(page.contains(&alone));
}

fn accept(coding: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        header::ACCEPT_ENCODING,
        HeaderValue::from_str(coding).unwrap(),
    );
    h
}

async fn body(response: Response<Body>) -> Vec<u8> {
    axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap()
        .to_vec()
}

fn decode(coding: &str, packed: &[u8]) -> Vec<u8> {
    let mut text = Vec::new();
    match coding {
        "br" => brotli::BrotliDecompress(&mut &packed[..], &mut text).unwrap(),
        "gzip" => {
            flate2::read::GzDecoder::new(packed)
                .read_to_end(&mut text)
                .unwrap();
        }
        _ => text = packed.to_vec(),
    }
    text
}

/// `recipes` as JSON: `n` generated recipes, their names starting with `name`.
fn generated(n: usize, name: &str) -> Recipes {
    let all: Vec<serde_json::Value> = (1..=n)
        .map(|id| {
            serde_json::json!({
                "id": id,
                "name": format!("{name} {id}"),
                "base": ["Gin"],
                "glass": ["Coupe"],
                "ingredients": [
                    {"name": "Gin", "measure": "45", "unit": "ml"},
                    {"name": format!("Syrup no. {}", id * 7919 % 1000), "measure": "15", "unit": "ml"}
                ],
                "notes": format!("Shake {id} times with ice. See https://example.com/{id}")
            })
        })
        .collect();
    let text = serde_json::to_string(&all).unwrap();
    Recipes::parse(
        &text,
        crate::recipes::Origin::Embedded,
        std::time::UNIX_EPOCH,
    )
    .unwrap()
}

/// Every way a recipe page is asked for: amounts as in the file or converted and
/// scaled, with and without the edit controls (which change the part after the list).
const VIEWS: [(AmountView, bool); 3] = [
    (
        AmountView {
            unit: None,
            servings: 1,
        },
        false,
    ),
    (
        AmountView {
            unit: Some(Unit::Oz),
            servings: 3,
        },
        false,
    ),
    (
        AmountView {
            unit: None,
            servings: 1,
        },
        true,
    ),
];

fn controls(shown: bool) -> Option<EditControls> {
    shown.then(|| {
        EditControls::On(EditOn {
            csrf: "token".into(),
            version: "v1".into(),
            saved: Some(4),
        })
    })
}

/// The hash a recipe page's ETag is made of, from its whole text: of its parts (its own
/// head and tail, and the list's hash) when the list is in it once and no mark is;
/// else of the whole text.
fn expected_hash(site: &Site, text: &str) -> String {
    let list = site.list_body().unwrap();
    match text.split_once(list) {
        Some((head, tail)) if !text.contains(LIST_MARK) => site.recipe_hash(head, tail),
        _ => crate::http::representation::content_hash(text.as_bytes()),
    }
}

/// Checks `site`'s answers for `r` for every coding against the whole text and its
/// ETag (asked twice: the second may be a kept page), and the 304 for that ETag; whether
/// the brotli answer was `spliced` around the list compressed once.
async fn check_answers(site: &Site, r: &Recipe, spliced: bool) {
    for (display, edit) in VIEWS.into_iter().chain(VIEWS) {
        let text = site.render_recipe(r, display, controls(edit)).unwrap();
        let hash = expected_hash(site, &text);
        for coding in ["br", "gzip", "identity"] {
            let request = accept(coding);
            let whole = per_request_as(text.clone(), HTML, &request, None);
            let answer = site
                .recipe_answer(r, display, controls(edit), &request)
                .unwrap();
            let what = format!("{} {display:?} {coding}", r.name);
            let whole_hash = crate::http::representation::content_hash(text.as_bytes());
            let etag = whole.headers()[header::ETAG]
                .to_str()
                .unwrap()
                .replace(&whole_hash, &hash);
            assert_eq!(answer.headers()[header::ETAG], etag.as_str(), "{what}");
            let mut again = request.clone();
            again.insert(header::IF_NONE_MATCH, HeaderValue::from_str(&etag).unwrap());
            let not_modified = site
                .recipe_answer(r, display, controls(edit), &again)
                .unwrap();
            assert_eq!(not_modified.status(), 304, "{what}");
            assert_eq!(
                not_modified.headers()[header::ETAG],
                etag.as_str(),
                "{what}"
            );
            let was_spliced = answer.extensions().get::<PerRequest>().is_none();
            assert_eq!(was_spliced, spliced && coding == "br", "{what}");
            let length = answer.headers().get(header::CONTENT_LENGTH).cloned();
            let sent = answer.headers().get(header::CONTENT_ENCODING).cloned();
            let packed = body(answer).await;
            if was_spliced {
                let middle = site.list_middle.get().unwrap().as_ref().unwrap().bytes();
                assert!(memchr::memmem::find(&packed, middle).is_some(), "{what}");
                assert!(length.is_none_or(|l| l == packed.len().to_string().as_str()));
            }
            let sent = sent.map(|s| s.to_str().unwrap().to_owned());
            assert_eq!(
                decode(sent.as_deref().unwrap_or(""), &packed),
                text.as_bytes(),
                "{what}"
            );
        }
    }
}

#[tokio::test]
async fn brotli_recipe_pages_are_spliced_around_the_list_once_it_is_compressed() {
    let recipes = Recipes::sample().unwrap();
    let site = Site::new(recipes.clone(), &Assets::load(), Default::default()).unwrap();
    check_answers(&site, &recipes.all()[0], false).await;
    site.compress_with(Effort::Best);
    for r in recipes.all() {
        check_answers(&site, r, true).await;
    }
}

#[tokio::test]
async fn a_list_past_the_streaming_size_is_spliced_too() {
    let recipes = generated(400, "Generated");
    let site = Site::new(recipes.clone(), &Assets::load(), Default::default()).unwrap();
    let list = site.list_body().unwrap().len();
    assert!(
        list > crate::http::compressing::STREAM_FROM,
        "list of {list} bytes"
    );
    check_answers(&site, &recipes.all()[7], false).await;
    site.compress_quickly();
    for r in [&recipes.all()[0], &recipes.all()[123], &recipes.all()[399]] {
        check_answers(&site, r, true).await;
    }
}

#[tokio::test]
async fn a_page_holding_the_mark_is_compressed_whole() {
    let recipes = generated(3, &format!("Odd{LIST_MARK}"));
    let site = Site::new(recipes.clone(), &Assets::load(), Default::default()).unwrap();
    site.compress_with(Effort::Best);
    let page = site
        .render_recipe(&recipes.all()[1], AmountView::default(), None)
        .unwrap();
    assert!(
        page.matches(LIST_MARK).count() > 1,
        "the name shows the mark"
    );
    check_answers(&site, &recipes.all()[1], false).await;
}

/// The ETags of one recipe's page in every coding, for `display` and edit controls.
fn etags(site: &Site, r: &Recipe, display: AmountView, token: Option<&str>) -> Vec<String> {
    let edit = || {
        token.map(|t| {
            EditControls::On(EditOn {
                csrf: t.into(),
                version: "v1".into(),
                saved: None,
            })
        })
    };
    ["br", "gzip", "identity"]
        .into_iter()
        .map(|coding| {
            let answer = site
                .recipe_answer(r, display, edit(), &accept(coding))
                .unwrap();
            answer.headers()[header::ETAG].to_str().unwrap().to_owned()
        })
        .collect()
}

/// The ETag is made of the parts' hashes, not the whole text's: it must still change with
/// everything the page shows. Another recipe saved (the list), the recipe itself, the
/// units, the servings, the edit controls (and the editor's token): each a new ETag in
/// every coding, spliced and kept or not.
#[tokio::test]
async fn a_recipe_pages_etag_changes_with_everything_on_it() {
    let recipes = generated(40, "Generated");
    let json = |rename: Option<(usize, &str)>| {
        let mut all: Vec<serde_json::Value> = recipes
            .all()
            .iter()
            .map(|r| serde_json::to_value(r).unwrap())
            .collect();
        if let Some((i, name)) = rename {
            all[i]["name"] = serde_json::json!(name);
        }
        let text = serde_json::to_string(&all).unwrap();
        let parsed = Recipes::parse(
            &text,
            crate::recipes::Origin::Embedded,
            std::time::UNIX_EPOCH,
        );
        let site = Site::new(parsed.unwrap(), &Assets::load(), Default::default()).unwrap();
        site.compress_quickly();
        site
    };
    let site = json(None);
    let other = json(Some((30, "Another name")));
    let itself = json(Some((3, "Its new name")));
    let r = |site: &Site| site.recipes().all()[3].clone();
    let plain = AmountView::default();
    let base = etags(&site, &r(&site), plain, None);
    // Asked again, kept or not: the same.
    assert_eq!(etags(&site, &r(&site), plain, None), base);
    let token = Some;
    let changed = [
        (
            "another recipe saved",
            etags(&other, &r(&other), plain, None),
        ),
        ("the recipe saved", etags(&itself, &r(&itself), plain, None)),
        (
            "units",
            etags(
                &site,
                &r(&site),
                AmountView {
                    unit: Some(Unit::Oz),
                    servings: 1,
                },
                None,
            ),
        ),
        (
            "servings",
            etags(
                &site,
                &r(&site),
                AmountView {
                    unit: None,
                    servings: 2,
                },
                None,
            ),
        ),
        ("edit controls", etags(&site, &r(&site), plain, token("a"))),
    ];
    for (what, tags) in &changed {
        for (coding, (tag, before)) in tags.iter().zip(&base).enumerate() {
            assert_ne!(tag, before, "{what}, coding {coding}");
        }
    }
    let other_token = etags(&site, &r(&site), plain, token("b"));
    assert_ne!(other_token, changed[4].1, "another editor's token");
    // Only brotli pages without edit controls are kept: one per display asked for, sent
    // as they were made; none for other codings.
    assert_eq!(site.recipe_pages.len(), 3);
    let id = r(&site).id;
    let kept = site
        .kept_recipe_page(id, plain, 0, &accept("br"))
        .expect("kept");
    assert_eq!(kept.headers()[header::ETAG], base[0].as_str());
    assert!(
        site.kept_recipe_page(id, plain, 0, &accept("gzip"))
            .is_none()
    );
    let unasked = AmountView {
        unit: None,
        servings: 5,
    };
    assert!(
        site.kept_recipe_page(id, unasked, 0, &accept("br"))
            .is_none()
    );
    assert!(
        other
            .kept_recipe_page(r(&other).id, plain, 0, &accept("br"))
            .is_some()
    );
    assert!(
        json(None)
            .kept_recipe_page(id, plain, 0, &accept("br"))
            .is_none(),
        "a new collection keeps none"
    );
}
