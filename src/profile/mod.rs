//! CPU profiles on demand, in pprof's protobuf format, for the metrics listener only
//! (`GET /debug/pprof/profile?seconds=N`): what `go tool pprof`, pprof.me and Parca's
//! scraper read, so the owner can see where the server spends its time under real load.
//!
//! - [`sampler`]: `SIGPROF` sampling of every thread's stack, safe next to Go's runtime.
//! - [`encode`]: symbols, counts and the protobuf.
//!
//! One profile at a time (the timer and the handler are process-wide): a second request
//! while one runs gets 429. Memory: the sample buffer exists only while a profile is
//! taken (at most [`MAX_SAMPLES`] samples, 8.5 MB, resident only as samples fill it),
//! and the symbol tables are dropped once the profile is encoded.
//!
//! Heap profiles are not offered: glibc's allocator, which we use, has no cheap sampling
//! heap profiler (see README).

pub mod encode;
pub mod sampler;

use axum::extract::Query;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use std::time::SystemTime;

/// The longest profile one request may ask for, in seconds. Longer would hold the only
/// profiling slot for minutes; Parca and `go tool pprof` ask for 10–30 s.
pub const MAX_SECONDS: u64 = 60;
/// What `seconds` defaults to, as in Go's `net/http/pprof`.
pub const DEFAULT_SECONDS: u64 = 30;
/// Samples per second of CPU time, as in Go's profiler.
const FREQUENCY: u32 = 100;
/// The most samples one profile keeps (8.5 MB of buffer): 60 s of two busy cores with
/// room to spare. On more cores a long profile drops what does not fit, and says so in
/// the log, rather than growing with the machine.
pub const MAX_SAMPLES: usize = 16_384;

/// Why no profile was returned.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("seconds must be a whole number from 1 to {MAX_SECONDS}, got {0:?}")]
    Seconds(String),
    #[error("unknown query parameter {0:?}; the only one is seconds")]
    Parameter(String),
    #[error("a profile is already being taken; try again when it is done")]
    Busy,
    #[error("cannot take a profile: {0}")]
    Profiler(String),
}

impl IntoResponse for ProfileError {
    fn into_response(self) -> Response {
        let status = match self {
            ProfileError::Seconds(_) | ProfileError::Parameter(_) => StatusCode::BAD_REQUEST,
            ProfileError::Busy => StatusCode::TOO_MANY_REQUESTS,
            ProfileError::Profiler(_) => {
                // The details are for the log, not for the client.
                tracing::error!(error = %self, "profile failed");
                return (StatusCode::INTERNAL_SERVER_ERROR, "profile failed\n").into_response();
            }
        };
        (status, format!("{self}\n")).into_response()
    }
}

/// Whether a profile is being taken now.
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Holds the only profiling slot; frees it when dropped, however the profile ends.
struct Slot;

impl Slot {
    fn take() -> Result<Slot, ProfileError> {
        RUNNING
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| Slot)
            .map_err(|_| ProfileError::Busy)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        RUNNING.store(false, Ordering::Release);
    }
}

/// `GET /debug/pprof/profile?seconds=N`: samples for N seconds, then answers with the
/// profile (gzip-compressed protobuf, as pprof expects).
pub async fn cpu(Query(query): Query<HashMap<String, String>>) -> Response {
    match profile(query).await {
        Ok(body) => (
            [
                (header::CONTENT_TYPE, "application/octet-stream"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"profile\"",
                ),
            ],
            body,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

async fn profile(query: HashMap<String, String>) -> Result<Vec<u8>, ProfileError> {
    let seconds = seconds(&query)?;
    let slot = Slot::take()?;
    // Resolving every sampled address to a name is blocking work, kept off the async
    // workers, and so is the wait (a blocking thread sleeping is cheaper than a timer
    // plus two hand-offs). The slot is freed when the profile is done, even if the
    // client has gone.
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        sample(Duration::from_secs(seconds))
    })
    .await
    .map_err(|e| ProfileError::Profiler(e.to_string()))?
}

/// Reads `seconds` (default [`DEFAULT_SECONDS`]); anything else in the query is an error,
/// so that a misspelt parameter is not silently a 30-second profile.
pub fn seconds(query: &HashMap<String, String>) -> Result<u64, ProfileError> {
    if let Some(other) = query.keys().find(|k| k.as_str() != "seconds") {
        return Err(ProfileError::Parameter(other.clone()));
    }
    match query.get("seconds") {
        None => Ok(DEFAULT_SECONDS),
        Some(text) => match text.parse::<u64>() {
            Ok(n) if (1..=MAX_SECONDS).contains(&n) => Ok(n),
            _ => Err(ProfileError::Seconds(text.clone())),
        },
    }
}

/// Samples the whole process for `length` and encodes the profile.
fn sample(length: Duration) -> Result<Vec<u8>, ProfileError> {
    // The timer ticks per CPU second of the whole process, so all cores together can
    // take FREQUENCY samples per second each; room for twice that, up to a bound.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let capacity = (length.as_secs() as usize * FREQUENCY as usize * cores * 2).min(MAX_SAMPLES);
    let started = SystemTime::now();
    let sampler = sampler::Sampler::start(FREQUENCY, capacity)
        .map_err(|e| ProfileError::Profiler(format!("cannot start sampling: {e}")))?;
    std::thread::sleep(length);
    let samples = sampler.finish();
    if samples.dropped > 0 {
        tracing::warn!(
            dropped = samples.dropped,
            "profile buffer full; samples dropped"
        );
    }
    let raw = encode::encode(&encode::Profile {
        stacks: &samples.stacks,
        period: Duration::from_secs(1) / FREQUENCY,
        started,
        duration: started.elapsed().unwrap_or(length),
    });
    // The symbol table read for this profile would otherwise stay for the life of the
    // process (MiBs); reading it again next time costs milliseconds.
    backtrace::clear_symbol_cache();
    drop(samples);
    crate::memory::release();
    gzip(&raw).map_err(|e| ProfileError::Profiler(e.to_string()))
}

fn gzip(raw: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut out = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    out.write_all(raw)?;
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn seconds_defaults_and_bounds() {
        assert_eq!(seconds(&query(&[])).unwrap(), DEFAULT_SECONDS);
        assert_eq!(seconds(&query(&[("seconds", "1")])).unwrap(), 1);
        assert_eq!(seconds(&query(&[("seconds", "60")])).unwrap(), MAX_SECONDS);
        for bad in ["0", "61", "-1", "2.5", "", "ten"] {
            let err = seconds(&query(&[("seconds", bad)])).unwrap_err();
            assert!(err.to_string().contains("from 1 to 60"), "{bad:?}: {err}");
        }
        let err = seconds(&query(&[("second", "5")])).unwrap_err();
        assert!(err.to_string().contains("\"second\""), "{err}");
    }

    #[test]
    fn one_profile_at_a_time() {
        let first = Slot::take().unwrap();
        assert!(matches!(Slot::take(), Err(ProfileError::Busy)));
        drop(first);
        assert!(Slot::take().is_ok());
    }
}
