//! Records when the embedded sample was built, shown as its "last updated" time.
//! Honours SOURCE_DATE_EPOCH so that reproducible (Nix) builds stay reproducible.
//!
//! On Linux with glibc it also links the binary with packed relative relocations
//! (`-z pack-relative-relocs`, DT_RELR): the position-independent binary's ~130,000
//! relative relocations then take a few KiB instead of 3 MiB of `.rela.dyn`, which the
//! loader reads in full at every start (3 MiB less resident, and a smaller file). It
//! needs glibc 2.36 or newer at run time and binutils 2.38 or lld 15 to link.
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    println!("cargo:rerun-if-changed=recipes/sample.json");
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
    let target = |name| std::env::var(name).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
