//! What the household costs (issue #26, "Speed and memory"), each figure beside a peer run
//! on the same machine at the same time, because the machine is shared and only ratios
//! mean anything. Starts the real binary (`--local --local-identity … --state-dir …`) on
//! `../shared/data/scale-5000.json`, read in place, and prints:
//!
//! - `GET /api/me` for a person with 1,000 favourites, ratings and notes (seeded with
//!   `libations import-household`, as writes through the API are rate limited): p50/p99,
//!   against `GET /api/whoami` on the same server, requests taken in turn;
//! - `PUT /api/me/favourites/{id}`: p99 with the state directory on disk (the database
//!   commits with `synchronous=FULL`, so each one waits for an fsync) against the same on a
//!   tmpfs, where an fsync costs nothing: the difference is the fsync. One PUT per server
//!   every `PACE`, which is the limiter's refill rate, so none is ever refused;
//! - `GET /` requests/s with the household on (the seeded person) against off (no state
//!   directory), and a second "off" server as the control that says how large noise is;
//! - peak RSS (VmHWM) of the household on and seeded against off and the control.
//!
//! Each row has its target from the issue and says whether it is met; nothing is asserted
//! on a figure. Under `cargo test --all-targets` (no `--bench`) it only checks, on the
//! embedded sample, that the seeded person's things come back and a favourite is stored,
//! so that the bench keeps working without taking the CPU.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed run: it says where

mod common;
#[path = "../tests/common/mod.rs"]
mod server;

use common::http::{self, Readers};
use common::status_kib;
use common::timing::{Runs, timed};
use serde_json::{Value, json};
use server::{BIN, Server};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The person every server's visitor is, and whose things are seeded.
const PERSON: &str = "bench@local";
/// Favourites, ratings and notes seeded for [`PERSON`] (recipe ids 1..=SEEDED).
const SEEDED: u64 = 1_000;
/// `/api/me` and `/api/whoami` requests measured, one of each in turn.
const READS: usize = 1_000;
/// Favourite PUTs measured per server.
const PUTS: usize = 300;
/// One PUT per server this often: 240 a minute, the limiter's refill rate
/// (`WRITES_PER_MINUTE`), so the bucket never empties however long the run.
const PACE: Duration = Duration::from_millis(250);
/// `GET /` rounds; each round runs every server for `WINDOW`, in a rotating order.
const ROUNDS: usize = 8;
const WINDOW: Duration = Duration::from_secs(2);
const CONNECTIONS: usize = 4;
/// What a phone's browser sends.
const PHONE: &str = "gzip, deflate, br";

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    if !measuring {
        runtime.block_on(smoke());
        return;
    }
    let Some(recipes) = common::shared_path("scale-5000.json") else {
        return;
    };
    runtime.block_on(measure(&recipes));
}

/// A backup (docs/HOUSEHOLD.md, version 1) giving [`PERSON`] `n` favourites, ratings and
/// notes, on recipes 1..=n.
fn backup(n: u64) -> Value {
    let at = now_ms() - 86_400_000;
    let ids = 1..=n;
    json!({
        "format": "libations-household", "version": 1, "exported_at": now_ms(), "shelf": [],
        "people": [{
            "login": PERSON, "name": "Bench",
            "favourites": ids.clone().map(|id| json!({"id": id, "on": true, "at": at})).collect::<Vec<_>>(),
            "ratings": ids.clone().map(|id| json!({"id": id, "stars": id % 5 + 1, "at": at})).collect::<Vec<_>>(),
            "notes": ids.map(|id| json!({
                "id": id, "conflicts": [], "at": at,
                "text": format!("Recipe {id}: a little less sugar next time, and a longer shake."),
            })).collect::<Vec<_>>(),
            "made": [],
        }],
    })
}

/// A state directory under `root` holding a household seeded by `libations
/// import-household` with `n` of each for [`PERSON`].
fn seeded(root: &Path, n: u64) -> PathBuf {
    let file = root.join("backup.json");
    std::fs::write(&file, serde_json::to_vec(&backup(n)).unwrap()).unwrap();
    let state = root.join("state");
    let out = std::process::Command::new(BIN)
        .arg("import-household")
        .arg(&file)
        .arg("--state-dir")
        .arg(&state)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "import-household failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    state
}

/// The binary on `recipes` (the embedded sample when `None`) as [`PERSON`], keeping the
/// household in `state` (none when `None`).
fn start(recipes: Option<&Path>, state: Option<&Path>) -> Server {
    let mut args = vec!["--local-identity", PERSON];
    if let Some(file) = recipes {
        args.extend(["--recipes-file", file.to_str().unwrap()]);
    }
    if let Some(dir) = state {
        args.extend(["--state-dir", dir.to_str().unwrap()]);
    }
    Server::start(&args)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// `GET url` with a phone's Accept-Encoding: the time until the whole body is read, and
/// its length on the wire.
async fn get(client: &reqwest::Client, url: &str) -> (Duration, usize) {
    timed(http::get(client, url, PHONE)).await
}

/// `PUT /api/me/favourites/{id}` as the page sends it, and the time until it is answered
/// (committed).
async fn put_favourite(client: &reqwest::Client, app: &Server, id: u64) -> Duration {
    let (took, (status, answer)) = timed(async {
        let r = client
            .put(app.url(&format!("/api/me/favourites/{id}")))
            .headers(server::same_origin(app))
            .json(&json!({"at": now_ms()}))
            .send()
            .await
            .unwrap();
        (r.status(), r.json::<Value>().await.unwrap())
    })
    .await;
    assert_eq!(status, reqwest::StatusCode::OK, "favourite {id}: {answer}");
    assert_eq!(answer["favourite"], true, "{answer}");
    took
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The type of the filesystem holding `path` (the longest mount point above it).
fn fs_type(path: &Path) -> String {
    let path = path.canonicalize().unwrap();
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, point, kind) = (f.next()?, f.next()?, f.next()?);
            path.starts_with(point)
                .then(|| (point.len(), kind.to_owned()))
        })
        .max()
        .map_or_else(|| "unknown".into(), |(_, kind)| kind)
}

/// Waits until start-up's background compression is over (the list page and the JSON of
/// all recipes come compressed), so that no measurement shares the CPU with it.
async fn settled(client: &reqwest::Client, app: &Server) {
    http::settled(client, &[app.url("/"), app.url("/api/recipes")]).await;
}

/// `GET /` from [`CONNECTIONS`] clients for [`WINDOW`]: answers per second.
async fn throughput(url: String) -> f64 {
    Readers::for_window(&url, CONNECTIONS, PHONE, server::client, WINDOW).await
}

/// Under `cargo test --all-targets`: the bench's paths work, on the embedded sample.
async fn smoke() {
    let root = tempfile::tempdir().unwrap();
    let state = seeded(root.path(), 5);
    let app = start(None, Some(&state));
    let client = server::client();
    let me: Value = client
        .get(app.url("/api/me"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["login"], PERSON, "{me}");
    assert_eq!(me["favourites"].as_array().map(Vec::len), Some(5), "{me}");
    assert_eq!(me["notes"].as_object().map(|n| n.len()), Some(5), "{me}");
    put_favourite(&client, &app, 6).await;
    get(&client, &app.url("/api/whoami")).await;
    get(&client, &app.url("/")).await;
    assert!(status_kib(app.pid(), "VmHWM") > 0);
    println!(
        "household: the seeded person's things came back and a favourite was stored \
         (run `cargo bench --bench household` to measure)"
    );
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{cores} × {cpu}; load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    )
}

fn yes(met: bool) -> &'static str {
    if met { "yes" } else { "**no**" }
}

async fn measure(recipes: &Path) {
    println!("household bench, {}", machine());
    // On disk: the target directory (ext4 here); on a tmpfs: /dev/shm.
    let disk = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let (disk_fs, shm_fs) = (fs_type(disk.path()), fs_type(shm.path()));
    println!(
        "state on disk: {} ({disk_fs}); on tmpfs: {} ({shm_fs})",
        disk.path().display(),
        shm.path().display()
    );
    let started = Instant::now();
    let on = start(Some(recipes), Some(&seeded(disk.path(), SEEDED)));
    let on_shm = start(Some(recipes), Some(&seeded(shm.path(), SEEDED)));
    let off = start(Some(recipes), None);
    let control = start(Some(recipes), None);
    let client = server::client();
    for app in [&on, &on_shm, &off, &control] {
        settled(&client, app).await;
    }
    println!(
        "4 servers on {} started and settled in {:.1} s",
        recipes.display(),
        started.elapsed().as_secs_f64()
    );
    let after_start: Vec<u64> = [&on, &off, &control]
        .iter()
        .map(|a| status_kib(a.pid(), "VmHWM"))
        .collect();

    // /api/me against /api/whoami, one of each in turn on one connection.
    let me_url = on.url("/api/me");
    let who_url = on.url("/api/whoami");
    let me: Value = client
        .get(&me_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        me["favourites"].as_array().map(Vec::len),
        Some(SEEDED as usize),
        "seeded"
    );
    assert_eq!(
        me["notes"].as_object().map(|n| n.len()),
        Some(SEEDED as usize),
        "seeded"
    );
    let me_coding = client
        .get(&me_url)
        .header("accept-encoding", PHONE)
        .send()
        .await
        .unwrap()
        .headers()
        .get("content-encoding")
        .map_or("identity".to_owned(), |v| {
            v.to_str().unwrap_or("?").to_owned()
        });
    let bytes = Cell::new((0, 0));
    let [mine, whoami] = {
        let (client, me_url, who_url, bytes) = (&client, me_url.as_str(), who_url.as_str(), &bytes);
        Runs::of(READS)
            .after_warmup(20)
            .time(move |_| async move {
                let (me, me_bytes) = get(client, me_url).await;
                let (who, who_bytes) = get(client, who_url).await;
                bytes.set((me_bytes, who_bytes));
                [me, who]
            })
            .await
    };
    let (me_bytes, who_bytes) = bytes.get();

    // Favourite PUTs, disk and tmpfs in turn, each server one per PACE.
    let puts_started = Instant::now();
    let [on_disk, on_tmpfs] = {
        let (client, on, on_shm) = (&client, &on, &on_shm);
        Runs::of(PUTS)
            .paced(PACE)
            .time(move |n| async move {
                // Recipes the seed left alone, so every PUT stores a new row.
                let id = 2_001 + n as u64;
                [
                    put_favourite(client, on, id).await,
                    put_favourite(client, on_shm, id).await,
                ]
            })
            .await
    };
    let puts_took = puts_started.elapsed().as_secs_f64();

    // GET /: every server in each round, the order rotating, so that drift in the
    // machine's load falls on all alike.
    let servers = [("on", &on), ("off", &off), ("control", &control)];
    let mut rates = [Vec::new(), Vec::new(), Vec::new()];
    let (_, page_bytes) = get(&client, &on.url("/")).await;
    for round in 0..ROUNDS {
        for k in 0..servers.len() {
            let i = (round + k) % servers.len();
            rates[i].push(throughput(servers[i].1.url("/")).await);
        }
    }
    let mut on_off: Vec<f64> = (0..ROUNDS).map(|r| rates[0][r] / rates[1][r]).collect();
    let mut noise: Vec<f64> = (0..ROUNDS).map(|r| rates[2][r] / rates[1][r]).collect();
    let on_off_median = median(&mut on_off);
    let noise_median = median(&mut noise);
    let (noise_lo, noise_hi) = (noise[0], noise[ROUNDS - 1]);
    let [rate_on, rate_off, rate_control] = rates.map(|mut r| median(&mut r));

    let peak: Vec<u64> = [&on, &off, &control]
        .iter()
        .map(|a| status_kib(a.pid(), "VmHWM"))
        .collect();
    let rss: Vec<u64> = [&on, &off, &control]
        .iter()
        .map(|a| status_kib(a.pid(), "VmRSS"))
        .collect();
    // Where the difference lies: the heap and stacks, or pages of the binary's file.
    let split: Vec<(u64, u64)> = [&on, &off]
        .iter()
        .map(|a| {
            (
                status_kib(a.pid(), "RssAnon"),
                status_kib(a.pid(), "RssFile"),
            )
        })
        .collect();
    let mib = |kib: i64| kib as f64 / 1024.0;
    let rss_delta = mib(peak[0] as i64 - peak[1] as i64);
    let rss_noise = mib(peak[2] as i64 - peak[1] as i64);

    let (me50, me99) = (mine.ms(0.5), mine.ms(0.99));
    let (who50, who99) = (whoami.ms(0.5), whoami.ms(0.99));
    let (disk50, disk99) = (on_disk.ms(0.5), on_disk.ms(0.99));
    let (shm50, shm99) = (on_tmpfs.ms(0.5), on_tmpfs.ms(0.99));
    // Within noise: no further from 1 than the control ever was from the same server.
    let spread = (noise_lo - 1.0).abs().max((noise_hi - 1.0).abs());
    let within = (on_off_median - 1.0).abs() <= spread;

    println!();
    println!("| measure | household | peer | ratio / difference | target | met |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| `GET /api/me`, {SEEDED} favourites + ratings + notes ({me_bytes} B, {me_coding}), p50 | {me50:.2} ms | \
         `/api/whoami` ({who_bytes} B) {who50:.2} ms | {:.1}× | | |",
        me50 / who50
    );
    println!(
        "| `GET /api/me`, p99 of {READS} | {me99:.2} ms | `/api/whoami` {who99:.2} ms | {:.1}× | ≤ 5 ms | {} |",
        me99 / who99,
        yes(me99 <= 5.0)
    );
    println!(
        "| favourite `PUT`, p50 of {PUTS} | {disk50:.2} ms on disk ({disk_fs}) | {shm50:.2} ms on {shm_fs} | \
         +{:.2} ms (fsync) | | |",
        disk50 - shm50
    );
    println!(
        "| favourite `PUT`, p90 / max | {:.2} / {:.2} ms on disk | {:.2} / {:.2} ms on {shm_fs} | | | |",
        on_disk.ms(0.9),
        on_disk.max_ms(),
        on_tmpfs.ms(0.9),
        on_tmpfs.max_ms()
    );
    println!(
        "| favourite `PUT`, p99 of {PUTS} | {disk99:.2} ms on disk | {shm99:.2} ms on {shm_fs} | \
         +{:.2} ms (fsync) | ≤ 20 ms | {} |",
        disk99 - shm99,
        yes(disk99 <= 20.0)
    );
    println!(
        "| `GET /` ({page_bytes} B), {CONNECTIONS} connections, median of {ROUNDS} × {} s: req/s | \
         {rate_on:.0} (on) | {rate_off:.0} (off) | {on_off_median:.3}× (control/off: median \
         {noise_median:.3}×, {noise_lo:.3}–{noise_hi:.3}×; control {rate_control:.0}) | within noise | {} |",
        WINDOW.as_secs(),
        yes(within)
    );
    println!(
        "| peak RSS (VmHWM) at 5,000 recipes, after the run | {} KiB (on, seeded) | {} KiB (off) | \
         {rss_delta:+.2} MiB (control − off: {rss_noise:+.2} MiB) | ≤ +3 MiB | {} |",
        peak[0],
        peak[1],
        yes(rss_delta <= 3.0)
    );
    println!(
        "| peak RSS right after start-up | {} KiB | {} KiB | {:+.2} MiB (control − off: {:+.2} MiB) | | |",
        after_start[0],
        after_start[1],
        mib(after_start[0] as i64 - after_start[1] as i64),
        mib(after_start[2] as i64 - after_start[1] as i64)
    );
    println!(
        "| RSS (VmRSS) at the end | {} KiB | {} KiB | {:+.2} MiB | | |",
        rss[0],
        rss[1],
        mib(rss[0] as i64 - rss[1] as i64)
    );
    println!(
        "| of which anonymous / file pages | {} / {} KiB | {} / {} KiB | {:+.2} / {:+.2} MiB | | |",
        split[0].0,
        split[0].1,
        split[1].0,
        split[1].1,
        mib(split[0].0 as i64 - split[1].0 as i64),
        mib(split[0].1 as i64 - split[1].1 as i64)
    );
    println!();
    println!(
        "{PUTS} PUTs per server took {puts_took:.1} s: one per {} ms each, the limiter's refill \
         rate, so none waited for a token. {}",
        PACE.as_millis(),
        machine()
    );
}
