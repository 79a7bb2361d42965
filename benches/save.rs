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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const READERS: usize = 2;
/// Saves measured, one every `PACE` at most: a brisk person, faster than anyone types a
/// recipe, so that the searches' rate shows what saving costs everyone else.
const SAVES: usize = 20;
const PACE: Duration = Duration::from_millis(500);
const QUERY: &str = "/api/recipes?q=lime";

/// Searches as fast as `READERS` clients can until `stop`; returns answers per second.
async fn readers(base: String, stop: Arc<AtomicBool>) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..READERS)
        .map(|_| {
            let (url, stop, done) = (format!("{base}{QUERY}"), stop.clone(), done.clone());
            tokio::spawn(async move {
                let client = reqwest::Client::new();
                while !stop.load(Ordering::Relaxed) {
                    let r = client
                        .get(&url)
                        .header("accept-encoding", "br")
                        .send()
                        .await
                        .unwrap();
                    assert!(r.status().is_success());
                    r.bytes().await.unwrap();
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

/// One save, and the time until `/api/recipes?q=<its name>` finds it.
async fn save_until_visible(
    client: &reqwest::Client,
    base: &str,
    n: usize,
) -> (Duration, Duration) {
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
    loop {
        let found: Vec<serde_json::Value> = client
            .get(&search)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if found.iter().any(|r| r["name"] == name.as_str()) {
            return (acked, started.elapsed());
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{name} never became visible"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
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
        let started = Instant::now();
        loop {
            let r = client
                .get(format!("{}/api/recipes", app.base))
                .header("accept-encoding", "br")
                .send()
                .await
                .unwrap();
            if r.headers().contains_key("content-encoding") {
                break;
            }
            // A debug build on a loaded 2-core machine can take minutes here.
            assert!(started.elapsed() < Duration::from_secs(600), "start-up compression never ended");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Warm up: the first save and searches settle the allocator.
        save_until_visible(&client, &app.base, 0).await;
        if !measuring {
            println!("save: one save became visible (run `cargo bench --bench save` to measure)");
            return;
        }
        let window = Duration::from_secs(5);
        let stop = Arc::new(AtomicBool::new(false));
        let quiet = tokio::spawn(readers(app.base.clone(), stop.clone()));
        tokio::time::sleep(window).await;
        stop.store(true, Ordering::Relaxed);
        let quiet = quiet.await.unwrap();

        let stop = Arc::new(AtomicBool::new(false));
        let busy = tokio::spawn(readers(app.base.clone(), stop.clone()));
        let (mut acks, mut visible) = (Vec::new(), Vec::new());
        let started = Instant::now();
        for n in 1..=SAVES {
            let began = Instant::now();
            let (ack, seen) = save_until_visible(&client, &app.base, n).await;
            acks.push(ack);
            visible.push(seen);
            if let Some(rest) = PACE.checked_sub(began.elapsed()) {
                tokio::time::sleep(rest).await;
            }
        }
        if started.elapsed() < window {
            tokio::time::sleep(window - started.elapsed()).await;
        }
        stop.store(true, Ordering::Relaxed);
        let busy = busy.await.unwrap();
        acks.sort();
        visible.sort();
        println!(
            "save on 5,000 recipes, {SAVES} saves (one per {} ms at most) while {READERS} clients search {QUERY}:",
            PACE.as_millis()
        );
        println!(
            "  acknowledged  median {:>6.1} ms  p90 {:>6.1} ms  max {:>6.1} ms",
            ms(percentile(&acks, 0.5)),
            ms(percentile(&acks, 0.9)),
            ms(*acks.last().unwrap())
        );
        println!(
            "  visible       median {:>6.1} ms  p90 {:>6.1} ms  max {:>6.1} ms  (target: 300 ms)",
            ms(percentile(&visible, 0.5)),
            ms(percentile(&visible, 0.9)),
            ms(*visible.last().unwrap())
        );
        println!(
            "  searches/s    without saves {quiet:.0}, during saves {busy:.0}: ratio {:.2}",
            busy / quiet
        );
    });
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
