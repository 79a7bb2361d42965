//! Records when the embedded sample was built, shown as its "last updated" time.
//! Honours SOURCE_DATE_EPOCH so that reproducible (Nix) builds stay reproducible.
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    println!("cargo:rerun-if-changed=../../recipes/sample.json");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        });
    println!("cargo:rustc-env=LIBATIONS_SAMPLE_BUILT={secs}");
}
