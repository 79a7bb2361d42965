//! CPU-heavy request work (searches, recipe pages of a large collection) off the async
//! workers, a few at a time.
//!
//! A search scans every recipe and its answer is rendered and compressed per request, and
//! a recipe page carries the whole list: for a large collection that is milliseconds of
//! CPU. On the async workers a handful of those at once would stall every other connection
//! (pages, assets, health checks), so they run on the blocking pool instead, at most one per
//! core. A bounded number more may wait; beyond that the server is saturated and says so at
//! once (503 with `Retry-After`) rather than queueing without end. One connection's heavy
//! work first queues behind its own ([`Share`]), so that a client with dozens of HTTP/2
//! streams cannot fill the queue alone.
//!
//! Small work runs where it is, on the async worker: for a few hundred recipes a search or
//! a recipe page is a fraction of a millisecond, less than handing it to another thread
//! costs (the numbers: `docs/bench/notes-web.md`).

use crate::connections::Share;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Why a search could not be run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GateError {
    #[error("too many searches are running; try again in a moment")]
    Busy,
    #[error("a search task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// The largest work run on the async worker itself, in recipe scans: about a millisecond.
pub(crate) const INLINE_COST: usize = 2048;

/// Admission for CPU-heavy request work.
#[derive(Debug, Clone)]
pub struct HeavyGate {
    /// Running plus waiting; a request that finds none left is shed.
    admitted: Arc<Semaphore>,
    /// Running at once.
    running: Arc<Semaphore>,
}

impl HeavyGate {
    /// `running` searches at once, and up to `waiting` more queued behind them.
    pub(crate) fn new(running: usize, waiting: usize) -> HeavyGate {
        let running = running.max(1);
        HeavyGate {
            admitted: Arc::new(Semaphore::new(running + waiting)),
            running: Arc::new(Semaphore::new(running)),
        }
    }

    /// One search per core, and 64 waiting.
    pub fn for_this_machine() -> HeavyGate {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        HeavyGate::new(cores, 64)
    }

    /// Runs `work`, whose size is `cost` recipe scans (recipes × terms for a search,
    /// recipes for a page that lists them all): at once when that is at most
    /// [`INLINE_COST`], else on the blocking pool once a slot is free, or refused at once
    /// when the queue is full.
    pub(crate) async fn run<T, F>(
        &self,
        cost: usize,
        share: Option<&Share>,
        work: F,
    ) -> Result<T, GateError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        if cost <= INLINE_COST {
            return Ok(work());
        }
        // The semaphores are never closed, so acquiring can only fail if they were.
        let connection = match share {
            Some(share) => match share.heavy.clone().acquire_owned().await {
                Ok(permit) => Some(permit),
                Err(_) => return Err(GateError::Busy),
            },
            None => None,
        };
        let Ok(admitted) = self.admitted.clone().try_acquire_owned() else {
            return Err(GateError::Busy);
        };
        let Ok(running) = self.running.clone().acquire_owned().await else {
            return Err(GateError::Busy);
        };
        // The permits go with the work, not with this future: a client that resets its
        // request drops the future, but the search runs on to the end and must keep its
        // slot until then.
        let permits = (connection, admitted, running);
        Ok(tokio::task::spawn_blocking(move || {
            let _permits = permits;
            work()
        })
        .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[tokio::test]
    async fn runs_a_few_at_once_and_sheds_beyond_the_queue() {
        let gate = HeavyGate::new(2, 3);
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(std::sync::Mutex::new(wait));
        let mut tasks = Vec::new();
        for _ in 0..5 {
            let (gate, now, most, wait) = (gate.clone(), now.clone(), most.clone(), wait.clone());
            tasks.push(tokio::spawn(async move {
                gate.run(usize::MAX, None, move || {
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(n, Ordering::SeqCst);
                    let _ = wait.lock().map(|w| w.recv());
                    now.fetch_sub(1, Ordering::SeqCst);
                })
                .await
            }));
        }
        until("five searches admitted", || {
            gate.admitted.available_permits() == 0
        })
        .await;
        until("two of them running", || now.load(Ordering::SeqCst) == 2).await;
        // Two run, three wait: a sixth is refused.
        assert!(matches!(
            gate.run(usize::MAX, None, || ()).await,
            Err(GateError::Busy)
        ));
        for _ in 0..5 {
            release.send(()).expect("a search is waiting");
        }
        for task in tasks {
            task.await.expect("join").expect("admitted");
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert!(gate.run(usize::MAX, None, || 7).await.is_ok_and(|n| n == 7));
    }

    /// Starts a search on `gate` that runs until the returned sender says so.
    async fn hold(
        gate: &HeavyGate,
    ) -> (
        std::sync::mpsc::Sender<()>,
        tokio::task::JoinHandle<Result<(), GateError>>,
    ) {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let running = gate.clone();
        let task = tokio::spawn(async move {
            running
                .run(usize::MAX, None, move || {
                    let _ = wait.recv();
                })
                .await
        });
        until("the search holds its slot", || {
            gate.running.available_permits() == 0
        })
        .await;
        (release, task)
    }

    /// Waits until `done` holds: polled, since a loaded machine (CI runs the browser tests
    /// beside these) may start a thread hundreds of milliseconds late. Fails after 10 s.
    async fn until(what: &str, done: impl Fn() -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !done() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "not within 10 s: {what}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn small_work_runs_at_once_even_when_the_gate_is_full() {
        let gate = HeavyGate::new(1, 0);
        let (release, busy) = hold(&gate).await;
        assert!(matches!(
            gate.run(INLINE_COST + 1, None, || ()).await,
            Err(GateError::Busy)
        ));
        assert!(
            gate.run(INLINE_COST, None, || 3)
                .await
                .is_ok_and(|n| n == 3)
        );
        release.send(()).expect("the search is running");
        busy.await.expect("join").expect("admitted");
    }

    #[tokio::test]
    async fn a_dropped_request_keeps_its_slot_until_its_search_ends() {
        let gate = HeavyGate::new(1, 0);
        let (release, running) = hold(&gate).await;
        // The client went away: its request future is dropped, the search runs on.
        running.abort();
        assert!(running.await.is_err_and(|e| e.is_cancelled()));
        assert!(matches!(
            gate.run(usize::MAX, None, || ()).await,
            Err(GateError::Busy)
        ));
        release.send(()).expect("the search is still running");
        until("the ended search's slot is free", || {
            gate.admitted.available_permits() == 1
        })
        .await;
        assert!(gate.run(usize::MAX, None, || ()).await.is_ok());
    }

    #[tokio::test]
    async fn one_connection_waits_for_its_own_searches_instead_of_filling_the_queue() {
        let gate = HeavyGate::new(4, 0);
        let share = Share::new();
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(std::sync::Mutex::new(wait));
        let mut tasks = Vec::new();
        for _ in 0..Share::HEAVY + 3 {
            let (gate, share, wait) = (gate.clone(), share.clone(), wait.clone());
            tasks.push(tokio::spawn(async move {
                gate.run(usize::MAX, Some(&share), move || {
                    let _ = wait.lock().map(|w| w.recv());
                })
                .await
            }));
        }
        until("the connection's share running", || {
            share.heavy.available_permits() == 0
                && gate.running.available_permits() == 4 - Share::HEAVY
        })
        .await;
        // This connection holds only its share of the four slots: another is still served.
        assert!(
            gate.run(usize::MAX, Some(&Share::new()), || ())
                .await
                .is_ok()
        );
        for _ in 0..Share::HEAVY + 3 {
            release.send(()).expect("a search is waiting");
        }
        for task in tasks {
            task.await.expect("join").expect("admitted, none shed");
        }
    }
}
