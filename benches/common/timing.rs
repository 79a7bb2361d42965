//! The one timing loop of the benches: repeat a step N times (after a warm-up, at most one
//! every so often), keep the time of each request it makes, and give their percentiles.
//! The benches differ in what a step sends, not in how it is counted, so no bench writes a
//! loop of its own and every figure means the same.
#![allow(dead_code)] // each bench uses a part

use std::future::Future;
use std::time::{Duration, Instant};

/// The times one kind of request took, sorted.
pub struct Latencies(Vec<Duration>);

impl Latencies {
    pub fn new(mut times: Vec<Duration>) -> Latencies {
        times.sort_unstable();
        Latencies(times)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The `p` quantile (0..=1) in ms, nearest rank: the smallest time that at least `p`
    /// of the runs do not exceed.
    pub fn ms(&self, p: f64) -> f64 {
        let n = self.0.len();
        ms(self.0[((p * n as f64).ceil() as usize).clamp(1, n) - 1])
    }

    pub fn max_ms(&self) -> f64 {
        self.ms(1.0)
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `what`, awaited, and how long it took.
pub async fn timed<T>(what: impl Future<Output = T>) -> (Duration, T) {
    let started = Instant::now();
    let out = what.await;
    (started.elapsed(), out)
}

/// How a step is repeated: `warmup` times whose figures are dropped, then `runs` times
/// kept, each starting at least `pace` after the one before.
#[derive(Clone, Copy)]
pub struct Runs {
    runs: usize,
    warmup: usize,
    pace: Duration,
}

impl Runs {
    /// `runs` kept, no warm-up, one straight after another.
    pub fn of(runs: usize) -> Runs {
        Runs {
            runs,
            warmup: 0,
            pace: Duration::ZERO,
        }
    }

    pub fn after_warmup(self, warmup: usize) -> Runs {
        Runs { warmup, ..self }
    }

    pub fn paced(self, pace: Duration) -> Runs {
        Runs { pace, ..self }
    }

    /// Calls `step(i)` for `i` in `0..warmup + runs`, one after another. A step sends one
    /// request of each of `K` kinds (in turn, so drift falls on all alike) and returns the
    /// time of each, taken with [`timed`]; returns each kind's kept times.
    pub async fn time<const K: usize, F, Fut>(self, mut step: F) -> [Latencies; K]
    where
        F: FnMut(usize) -> Fut,
        Fut: Future<Output = [Duration; K]>,
    {
        let mut kept: [Vec<Duration>; K] = std::array::from_fn(|_| Vec::with_capacity(self.runs));
        for i in 0..self.warmup + self.runs {
            let began = Instant::now();
            let took = step(i).await;
            if i >= self.warmup {
                for (times, t) in kept.iter_mut().zip(took) {
                    times.push(t);
                }
            }
            let rest = self.pace.saturating_sub(began.elapsed());
            if !rest.is_zero() {
                tokio::time::sleep(rest).await;
            }
        }
        kept.map(Latencies::new)
    }
}
