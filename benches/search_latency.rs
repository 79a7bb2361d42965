//! Percentiles of the server time of a search over 5,000 recipes.
//!
//! Criterion reports means; the target is a p99, so this times every single run and
//! prints p50, p99 and the maximum for each query, twice:
//!
//! - `index`: parsing the query and scanning the index (what `Site::search` costs);
//! - `guessing`: words read as bottles and typos (issue #42): the search and, when it finds
//!   nothing, the guesses, as the list page does (`Index::search`, then `Index::guesses`);
//! - `can make`: a 60-bottle shelf (the 60 bottles the collection's rows name most often,
//!   by the vocabulary's names) against the collection: `makes::analyse` (what
//!   `GET /api/bar` answers) and the `can:make` and `missing:one` searches for it;
//! - `/api/recipes?q=` and `/?q=`: the whole request through the app's router, in process,
//!   with a phone's `Accept-Encoding`: search, JSON or HTML, compression, headers and
//!   reading the body. No sockets, so this is server time only.
//!
//! `cargo bench --bench search_latency` (add `-- --json` for one JSON object on stdout,
//! `-- --runs N` for another number of runs). Under `cargo test` it runs each case a few
//! times as a smoke test.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use arc_swap::ArcSwap;
use axum::body::Body;
use axum::http::{Request, header};
use common::timing::{Latencies, Runs, timed};
use libations::ingredients::key;
use libations::makes::analyse;
use libations::metrics::Metrics;
use libations::recipes::{Origin, Recipes};
use libations::search::{Asker, Index, SearchQuery};
use libations::vocabulary::{Reading, Vocabulary};
use libations::web::{self, AppState, Assets, RequestLimits, Site};
use std::collections::{HashMap, HashSet};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Instant, SystemTime};
use tower::ServiceExt;

const PHONE: &str = "gzip, deflate, br";

struct Stats {
    what: String,
    query: &'static str,
    hits: usize,
    runs: usize,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

fn stats(what: &str, query: &'static str, hits: usize, times: &Latencies) -> Stats {
    Stats {
        what: what.to_owned(),
        query,
        hits,
        runs: times.len(),
        p50_ms: times.ms(0.50),
        p99_ms: times.ms(0.99),
        max_ms: times.max_ms(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let benching = args.iter().any(|a| a == "--bench");
    let json = args.iter().any(|a| a == "--json");
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(if benching { 300 } else { 3 });
    // Under `cargo test` a smoke run (three of each, on 306 recipes, in seconds); the
    // figures are taken at 5,000 with `cargo bench`.
    let collection = if benching {
        "scale-5000.json"
    } else {
        "bar-assistant.json"
    };
    let Some(text) = common::shared_text(collection) else {
        return;
    };
    let recipes = Recipes::parse(&text, Origin::Embedded, SystemTime::UNIX_EPOCH)
        .expect("the collection is valid");
    let mut results = index_figures(&recipes, runs);
    let assets = Arc::new(Assets::load());
    let site = Site::new(recipes, &assets, Default::default()).expect("the site builds");
    // As in a server that has finished starting: the background compression is done.
    site.compress();
    let site = Arc::new(site);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    // The first tenth and one more are a warm-up.
    let each = Runs::of(runs).after_warmup(runs / 10 + 1);

    for q in common::QUERIES {
        let hits = site.search(&SearchQuery::parse(q)).len();
        let site = &site;
        let [times] = runtime.block_on(each.time(move |_| async move {
            let (took, found) =
                timed(async { site.search(&SearchQuery::parse(black_box(q))).len() }).await;
            black_box(found);
            [took]
        }));
        results.push(stats("index", q, hits, &times));
    }

    let metrics = Arc::new(Metrics::new());
    let served = Arc::new(ArcSwap::new(site.clone()));
    let publisher = web::Publisher::new(served.clone(), assets.clone(), metrics.clone());
    let state = AppState {
        site: served,
        assets,
        publisher,
        metrics,
        limits: RequestLimits::default(),
        heavy: web::HeavyGate::for_this_machine(),
        who: Arc::new(web::identity::Fixed::default()),
        access_log: false,
        editing: Arc::new(web::Editing::read_only()),
        home: Arc::new(web::HouseholdDoor::off("no household in the bench")),
        guest_url: None,
        https: false,
    };
    let app = &web::app(state);
    for (what, path) in [("/api/recipes?q=", "/api/recipes"), ("/?q=", "/")] {
        let more = BOTTLES_AND_TYPOS
            .into_iter()
            .filter(|q| !common::QUERIES.contains(q));
        for q in common::QUERIES.into_iter().chain(more) {
            let uri = &format!("{path}?q={}", encode(q));
            let hits = site.search(&SearchQuery::parse(q)).len();
            let [times] = runtime.block_on(each.time(move |_| async move {
                let request = Request::get(uri)
                    .header(header::ACCEPT_ENCODING, PHONE)
                    .body(Body::empty())
                    .expect("a valid request");
                let (elapsed, bytes) = timed(async {
                    let response = app.clone().oneshot(request).await.expect("infallible");
                    assert!(
                        response.status().is_success(),
                        "{uri}: {}",
                        response.status()
                    );
                    axum::body::to_bytes(response.into_body(), usize::MAX)
                        .await
                        .expect("a body")
                })
                .await;
                black_box(bytes.len());
                [elapsed]
            }));
            results.push(stats(what, q, hits, &times));
        }
    }

    if json {
        let rows: Vec<serde_json::Value> = results
            .iter()
            .map(|s| {
                serde_json::json!({
                    "what": s.what, "query": s.query, "hits": s.hits, "runs": s.runs,
                    "p50_ms": s.p50_ms, "p99_ms": s.p99_ms, "max_ms": s.max_ms,
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(rows));
        return;
    }
    println!(
        "{:<16} {:<26} {:>5} {:>5} {:>9} {:>9} {:>9}",
        "what", "query", "hits", "runs", "p50 ms", "p99 ms", "max ms"
    );
    for s in &results {
        println!(
            "{:<16} {:<26} {:>5} {:>5} {:>9.3} {:>9.3} {:>9.3}",
            s.what,
            format!("{:?}", s.query),
            s.hits,
            s.runs,
            s.p50_ms,
            s.p99_ms,
            s.max_ms
        );
    }
}

/// Bottle terms, `has:` and typos (the last three find nothing and are guessed); the same
/// as `benches/search.rs`'s.
const BOTTLES_AND_TYPOS: [&str; 7] = [
    "whisky",
    "gin",
    "has:bourbon",
    "limes",
    "margerita",
    "negorni",
    "daquiri sour",
];

/// How many bottles the shelf "can make" is timed with has (issue #42's figure).
const SHELF: usize = 60;

/// Times `f` `runs` times after a warm-up (the first tenth and one more), one after another.
fn time_each<T>(runs: usize, mut f: impl FnMut() -> T) -> Latencies {
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs + runs / 10 + 1 {
        let started = Instant::now();
        black_box(f());
        if i > runs / 10 {
            times.push(started.elapsed());
        }
    }
    Latencies::new(times)
}

/// The [`SHELF`] bottles the collection's rows name most often, by the vocabulary's names
/// (the first of "X or Y"; a name it does not know as written), ties by name.
fn common_bottles(recipes: &Recipes) -> HashSet<String> {
    let vocabulary = Vocabulary::built_in();
    let mut counts: HashMap<String, usize> = HashMap::new();
    for line in recipes.all().iter().flat_map(|r| r.ingredients.iter()) {
        let name = match vocabulary.read(&line.name) {
            Reading::Entry(at) => vocabulary.entry(at).name.clone(),
            Reading::Either(alternatives) => match alternatives.first() {
                Some(&at) => vocabulary.entry(at).name.clone(),
                None => line.name.to_string(),
            },
            Reading::Unknown(_) => line.name.to_string(),
        };
        *counts.entry(key(&name)).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.into_iter().take(SHELF).map(|(k, _)| k).collect()
}

/// The in-process figures of issue #42: bottle words and typos, and "can make".
fn index_figures(recipes: &Recipes, runs: usize) -> Vec<Stats> {
    let index = Index::new(recipes);
    let mut out = Vec::new();
    for q in BOTTLES_AND_TYPOS {
        let guess = || {
            let query = SearchQuery::parse(black_box(q));
            let hits = index.search(&query);
            match hits.is_empty() {
                true => index.guesses(&query),
                false => hits,
            }
        };
        let hits = guess().len();
        out.push(stats("guessing", q, hits, &time_each(runs, guess)));
    }
    let shelf = common_bottles(recipes);
    let none = (HashSet::new(), HashMap::new(), HashMap::new());
    let mine = Asker {
        favourites: &none.0,
        ratings: &none.1,
        last_made: &none.2,
        now_ms: 0,
        shelf: Some(&shelf),
        rules: &[],
    };
    let made = || analyse(index.needs(), black_box(&shelf), &[]);
    let hits = made().can_make.len();
    out.push(stats("can make", "analyse", hits, &time_each(runs, made)));
    for q in ["can:make", "missing:one"] {
        let search = || index.search_for(&SearchQuery::parse(black_box(q)), Some(&mine));
        let hits = search().len();
        out.push(stats("can make", q, hits, &time_each(runs, search)));
    }
    out
}

/// Percent-encodes a query for a URL (everything but unreserved characters).
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
