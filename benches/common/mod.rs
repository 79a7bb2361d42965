//! Shared by the benches, so that each says only what it measures: the collections from
//! `../shared/data` (here), the one timing loop and its percentiles ([`timing`]), and the
//! request loops against the real binary ([`http`]).

pub mod http;
pub mod timing;

use std::path::PathBuf;

/// Typical and worst-case queries, shared by the search benches (`search` and
/// `search_latency`); the other benches include this module without using them.
#[allow(dead_code)]
pub const QUERIES: [&str; 6] = [
    "lime",
    "gin",
    "mezcal margarita",
    "base:rum ingredient:lime",
    "glass:\"nick & nora\"",
    "zzzz no such thing",
];

/// `../shared/data/<name>`, where the shared data lives beside this clone.
fn shared(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", "shared", "data", name]
        .iter()
        .collect()
}

/// The text of `../shared/data/<name>`, or `None` (with a message) when it is not there.
#[allow(dead_code)] // the household bench takes the path only
pub fn shared_text(name: &str) -> Option<String> {
    let path = shared(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            skip(&path, &e.to_string());
            None
        }
    }
}

/// The path of `../shared/data/<name>`, for a bench that hands it to the binary, or `None`
/// (with a message) when it is not there.
#[allow(dead_code)] // the criterion benches read the text
pub fn shared_path(name: &str) -> Option<PathBuf> {
    let path = shared(name);
    if path.is_file() {
        return Some(path);
    }
    skip(&path, "no such file");
    None
}

/// Says why the bench does nothing, and fails instead under LIBATIONS_REQUIRE_SHARED_DATA=1.
fn skip(path: &std::path::Path, why: &str) {
    let reason = format!(
        "{} not readable ({why}); the shared data lives beside this clone in ../shared/data",
        path.display()
    );
    let required = std::env::var("LIBATIONS_REQUIRE_SHARED_DATA").is_ok_and(|v| v == "1");
    assert!(!required, "LIBATIONS_REQUIRE_SHARED_DATA=1 but {reason}");
    eprintln!("SKIPPED: {reason}");
    record_skip(&reason);
}

/// Runs the benches only when `scale-5000.json` is there.
#[macro_export]
macro_rules! main_with_data {
    ($($group:path),+ $(,)?) => {
        fn main() {
            let Some(text) = common::shared_text("scale-5000.json") else {
                return;
            };
            let mut c = criterion::Criterion::default().configure_from_args();
            $( $group(&mut c, &text); )+
            c.final_summary();
        }
    };
}

/// Adds a line to the file `$LIBATIONS_SKIP_LOG` names (scripts/test counts them at the
/// end): `cargo test --all-targets` runs each bench once, and one that finds no data returns
/// early, which cargo reports as a pass.
fn record_skip(reason: &str) {
    use std::io::Write;
    let Some(log) = std::env::var_os("LIBATIONS_SKIP_LOG") else {
        return;
    };
    let bench = std::env::args().next().unwrap_or_default();
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut file| writeln!(file, "bench {bench}: {reason}"));
    if let Err(e) = appended {
        eprintln!("cannot add to {}: {e}", log.to_string_lossy());
    }
}

/// A line of `/proc/PID/status` (`VmHWM`, `VmRSS`), in KiB.
#[allow(dead_code)] // the benches that read memory
pub fn status_kib(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/status"))
}
