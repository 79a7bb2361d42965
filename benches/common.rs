//! Shared by the criterion benches: the 5,000-recipe collection from `../shared/data`.

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

/// The text of `../shared/data/<name>`, or `None` (with a message) when it is not there.
pub fn shared_text(name: &str) -> Option<String> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "shared", "data", name]
        .iter()
        .collect();
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!(
                "SKIPPED: {} not readable ({e}); the shared data lives beside this clone in ../shared/data",
                path.display()
            );
            None
        }
    }
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
