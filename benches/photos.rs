//! What a photo costs (issue #44, "Speed and memory"): a 12 MP phone JPEG (4000 × 3000,
//! a gradient with grain, as a camera's noise makes it, so that it compresses like a
//! photo) uploaded to the real binary, timed from the first byte sent to the 201 that
//! says both variants are on disk, one after another; and the process's peak RSS (VmHWM)
//! over its RSS when idle. The Go original has no photos, so there is no peer: each
//! figure is printed beside its target from the issue, and nothing is asserted on it.
//! Then pages with photos present: `/` and a recipe's page answered per second by the same
//! binary with a photo on every recipe and with none, run side by side in turns (the
//! machine is shared: only the ratio means anything; a page links its photo, never
//! inlines it, so the target is a ratio of about 1).
//!
//! `cargo bench --bench photos` (the release binary). Under `cargo test --all-targets` it
//! only checks, with a small JPEG, that an upload is answered 201 and its thumbnail
//! served, so that the bench keeps working without taking the CPU.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed run: it says where

mod common;
#[path = "../tests/common/mod.rs"]
mod server;

use common::http::{Readers, settled};
use common::status_kib;
use common::timing::Latencies;
use image::{Rgb, RgbImage};
use serde_json::Value;
use server::{Server, client, same_origin};
use std::time::{Duration, Instant};

/// Photos uploaded, one after another.
const UPLOADS: u32 = 6;

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let state = tempfile::tempdir().unwrap();
        let dir = state.path().to_str().unwrap();
        let app = Server::start(&["--state-dir", dir, "--local-identity", "bench@local"]);
        if !measuring {
            let (status, photo) = upload(&app, &jpeg(400, 300, 1)).await;
            assert_eq!(status, 201, "{photo}");
            let thumb = client()
                .get(app.url(photo["thumb_url"].as_str().unwrap()))
                .send()
                .await
                .unwrap();
            assert_eq!(thumb.status(), 200);
            return;
        }
        measure(&app).await;
        pages().await;
    });
}

/// `GET` rounds of pages; each runs both servers for [`WINDOW`], in turns.
const ROUNDS: usize = 6;
const WINDOW: Duration = Duration::from_secs(2);
const CONNECTIONS: usize = 4;
/// What a phone's browser sends.
const PHONE: &str = "gzip, deflate, br";

/// Pages per second with a photo on every sample recipe against the same binary with none.
async fn pages() {
    let (with, without) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let start = |dir: &tempfile::TempDir| {
        let dir = dir.path().to_str().unwrap().to_owned();
        Server::start(&["--state-dir", &dir, "--local-identity", "bench@local"])
    };
    let (pictured, bare) = (start(&with), start(&without));
    let recipes: Vec<Value> = client()
        .get(pictured.url("/api/recipes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for (n, recipe) in recipes.iter().enumerate() {
        let id = recipe["id"].as_u64().unwrap();
        let photo = jpeg(1200, 900, 100 + n as u32);
        let (status, answer) = upload_to(&pictured, id, &photo).await;
        assert_eq!(status, 201, "{answer}");
    }
    let client = server::client();
    for app in [&pictured, &bare] {
        settled(&client, &[app.url("/"), app.url("/api/recipes")]).await;
    }
    println!(
        "pages with a photo on each of {} recipes, against none ({CONNECTIONS} connections, \
         {ROUNDS} rounds of {} s, median ratio):",
        recipes.len(),
        WINDOW.as_secs()
    );
    for path in ["/", "/recipes/1"] {
        let mut ratios = Vec::new();
        for round in 0..ROUNDS {
            let order = if round % 2 == 0 {
                [&pictured, &bare]
            } else {
                [&bare, &pictured]
            };
            let mut rates = [0.0; 2];
            for app in order {
                let rate =
                    Readers::for_window(&app.url(path), CONNECTIONS, PHONE, server::client, WINDOW)
                        .await;
                rates[usize::from(std::ptr::eq(app, &bare))] = rate;
            }
            ratios.push(rates[0] / rates[1]);
        }
        ratios.sort_by(f64::total_cmp);
        let median = ratios[ratios.len() / 2];
        println!(
            "  {path}: {median:.2} of the requests/s without photos (target about 1: {})",
            met(median >= 0.9)
        );
    }
}

async fn measure(app: &Server) {
    let photos: Vec<Vec<u8>> = (0..UPLOADS).map(|n| jpeg(4000, 3000, n + 1)).collect();
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    // Idle: once the start's background compression is done.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let idle = status_kib(app.pid(), "VmRSS");
    let mut times = Vec::new();
    for bytes in &photos {
        let started = Instant::now();
        let (status, photo) = upload(app, bytes).await;
        times.push(started.elapsed());
        assert_eq!(status, 201, "{photo}");
    }
    let peak = status_kib(app.pid(), "VmHWM");
    let times = Latencies::new(times);
    let over = (peak.saturating_sub(idle)) as f64 / 1024.0;
    let p50 = times.ms(50.0);
    let worst = times.max_ms();
    println!(
        "12 MP phone JPEG ({:.1} MiB each), {UPLOADS} uploads in turn:",
        mib(photos[0].len())
    );
    println!(
        "  upload to 201, both variants on disk: p50 {p50:.0} ms, slowest {worst:.0} ms (target <= 1500 ms: {})",
        met(worst <= 1500.0)
    );
    println!(
        "  peak RSS {:.0} MiB, {over:.0} MiB over idle {:.0} MiB (target <= +150 MiB: {})",
        peak as f64 / 1024.0,
        idle as f64 / 1024.0,
        met(over <= 150.0)
    );
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "NOT met" }
}

async fn upload(app: &Server, bytes: &[u8]) -> (u16, Value) {
    upload_to(app, 1, bytes).await
}

async fn upload_to(app: &Server, recipe: u64, bytes: &[u8]) -> (u16, Value) {
    let response = client()
        .post(app.url(&format!("/api/recipes/{recipe}/photos")))
        .headers(same_origin(app))
        .header("content-type", "image/jpeg")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// A `width` × `height` JPEG (quality 90) of a gradient with grain; `seed` makes each
/// one different, so each is a photo of its own.
fn jpeg(width: u32, height: u32, seed: u32) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ u64::from(seed);
    let image = RgbImage::from_fn(width, height, |x, y| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let grain = (state % 24) as u8;
        let r = ((x * 200 / width) as u8).saturating_add(grain);
        let g = ((y * 180 / height) as u8).saturating_add(grain);
        let b = (((x + y) * 120 / (width + height)) as u8).saturating_add(grain);
        Rgb([r, g, b])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90);
    encoder.encode_image(&image).unwrap();
    out.into_inner()
}
