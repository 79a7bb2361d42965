//! Saving on 5,000 recipes: how long until a saved recipe is found by search (the save
//! acknowledged, the file synced, the site rebuilt and swapped in), and how fast the
//! server keeps answering searches meanwhile, as a ratio against the same readers with
//! no saves. Runs the real release binary on a copy of `../shared/data/scale-5000.json`.
//!
//! `cargo bench --bench save` measures 20 saves, two a second at most; under `cargo test --all-targets` it
//! makes one save and checks it becomes visible, so that the bench itself keeps working.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;
#[path = "../tests/common/mod.rs"]
mod server;

use common::http::{self, Readers};
use common::timing::{Latencies, Runs};
use std::time::{Duration, Instant};

const READERS: usize = 2;
/// Saves measured, one every `PACE` at most: a brisk person, faster than anyone types a
/// recipe, so that the searches' rate shows what saving costs everyone else.
const SAVES: usize = 20;
const PACE: Duration = Duration::from_millis(500);
const QUERY: &str = "/api/recipes?q=lime";

/// `READERS` clients searching as fast as they can until stopped.
fn readers(base: &str) -> Readers {
    Readers::start(
        &format!("{base}{QUERY}"),
        READERS,
        "br",
        reqwest::Client::new,
    )
}

/// One save: the time until it is acknowledged, and until `/api/recipes?q=<its name>`
/// finds it.
async fn save_until_visible(client: &reqwest::Client, base: &str, n: usize) -> [Duration; 2] {
    let name = format!("Benchmark Fizz {n}");
    let body = serde_json::json!({
        "name": name,
        "base": ["Gin"],
        "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml"}, {"name": "Soda", "measure": "100", "unit": "ml"}]
    });
    let started = Instant::now();
    let r = client
        .post(format!("{base}/api/recipes"))
        .header("sec-fetch-site", "same-origin")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::CREATED);
    let acked = started.elapsed();
    let search = format!("{base}/api/recipes?q=%22benchmark+fizz+{n}%22");
    let (search, name) = (search.as_str(), name.as_str());
    let never = format!("{name} never became visible");
    let limit = Duration::from_secs(30);
    http::until(
        &never,
        limit,
        Duration::from_millis(2),
        move || async move {
            let found: Vec<serde_json::Value> = client
                .get(search)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            found.iter().any(|r| r["name"] == name)
        },
    )
    .await;
    [acked, started.elapsed()]
}

/// `median … p90 … max …` of `times`, as the figures have always been printed.
fn spread(times: &Latencies) -> String {
    format!(
        "median {:>6.1} ms  p90 {:>6.1} ms  max {:>6.1} ms",
        times.ms(0.5),
        times.ms(0.9),
        times.max_ms()
    )
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    // Under `cargo test` a smoke run: one save on a collection that starts in seconds
    // (a debug build compresses 5,000 recipes for over a minute first).
    let collection = if measuring {
        "scale-5000.json"
    } else {
        "bar-assistant.json"
    };
    let Some(text) = common::shared_text(collection) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("recipes.json");
    std::fs::write(&file, text).unwrap();
    let file = file.to_str().unwrap();
    let app = server::Server::start(&[
        "--allow-edits",
        "--local-edit",
        "--edits-per-minute",
        "100000",
        "--recipes-file",
        file,
    ]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = reqwest::Client::new();
        // Start-up compresses the collection at the best effort for seconds of a core:
        // wait for it (the JSON of all recipes comes compressed), or the window without
        // saves would be the slow one.
        http::settled(&client, &[app.url("/api/recipes")]).await;
        // Warm up: the first save and searches settle the allocator.
        save_until_visible(&client, &app.base, 0).await;
        if !measuring {
            println!("save: one save became visible (run `cargo bench --bench save` to measure)");
            return;
        }
        let window = Duration::from_secs(5);
        let quiet = readers(&app.base);
        tokio::time::sleep(window).await;
        let quiet = quiet.stop().await;

        let busy = readers(&app.base);
        let started = Instant::now();
        let (client, base) = (&client, app.base.as_str());
        let [acks, visible] = Runs::of(SAVES)
            .paced(PACE)
            .time(move |i| save_until_visible(client, base, i + 1))
            .await;
        if started.elapsed() < window {
            tokio::time::sleep(window - started.elapsed()).await;
        }
        let busy = busy.stop().await;
        println!(
            "save on 5,000 recipes, {SAVES} saves (one per {} ms at most) while {READERS} clients search {QUERY}:",
            PACE.as_millis()
        );
        println!("  acknowledged  {}", spread(&acks));
        println!("  visible       {}  (target: 300 ms)", spread(&visible));
        println!(
            "  searches/s    without saves {quiet:.0}, during saves {busy:.0}: ratio {:.2}",
            busy / quiet
        );
    });
}
