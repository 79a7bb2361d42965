//! The request loops of the benches that talk to the real binary over HTTP, written once:
//! clients that send the same `GET` as fast as they can (answers per second), and asking
//! again until something is so (start-up's compression over, a saved recipe found).
#![allow(dead_code)] // the benches without a server use none of it

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// `clients` tasks, each with a client of its own (so a connection of its own), sending
/// `GET url` with `Accept-Encoding: encoding` and reading the whole answer, until stopped.
pub struct Readers {
    stop: Arc<AtomicBool>,
    done: Arc<AtomicU64>,
    started: Instant,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Readers {
    pub fn start(
        url: &str,
        clients: usize,
        encoding: &'static str,
        client: fn() -> reqwest::Client,
    ) -> Readers {
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicU64::new(0));
        let started = Instant::now();
        let tasks = (0..clients)
            .map(|_| {
                let (url, stop, done) = (url.to_owned(), stop.clone(), done.clone());
                tokio::spawn(async move {
                    let client = client();
                    while !stop.load(Ordering::Relaxed) {
                        get(&client, &url, encoding).await;
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        Readers {
            stop,
            done,
            started,
            tasks,
        }
    }

    /// Stops them (each finishes the request in flight): answers per second since the start.
    pub async fn stop(self) -> f64 {
        self.stop.store(true, Ordering::Relaxed);
        for task in self.tasks {
            task.await.unwrap();
        }
        self.done.load(Ordering::Relaxed) as f64 / self.started.elapsed().as_secs_f64()
    }

    /// Started, run for `window`, stopped: answers per second.
    pub async fn for_window(
        url: &str,
        clients: usize,
        encoding: &'static str,
        client: fn() -> reqwest::Client,
        window: Duration,
    ) -> f64 {
        let readers = Readers::start(url, clients, encoding, client);
        tokio::time::sleep(window).await;
        readers.stop().await
    }
}

/// `GET url` with `Accept-Encoding: encoding`, which must answer 200: the length of the
/// body on the wire, read whole.
pub async fn get(client: &reqwest::Client, url: &str, encoding: &str) -> usize {
    let r = client
        .get(url)
        .header("accept-encoding", encoding)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK, "{url}");
    r.bytes().await.unwrap().len()
}

/// Asks `check` now and then every `every` until it says yes; fails naming `what` once
/// `limit` has passed.
pub async fn until<F, Fut>(what: &str, limit: Duration, every: Duration, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(started.elapsed() < limit, "{what}");
        tokio::time::sleep(every).await;
    }
}

/// Waits until start-up's background compression is over at each of `urls` (the answer
/// comes compressed), so that no measurement shares the CPU with it.
pub async fn settled(client: &reqwest::Client, urls: &[String]) {
    for url in urls {
        // A debug build on a loaded 2-core machine can take minutes at 5,000 recipes.
        let limit = Duration::from_secs(600);
        until(
            "start-up compression never ended",
            limit,
            Duration::from_millis(100),
            move || async move {
                let r = client
                    .get(url)
                    .header("accept-encoding", "br")
                    .send()
                    .await
                    .unwrap();
                r.headers().contains_key("content-encoding")
            },
        )
        .await;
    }
}
