//! On Linux with glibc, links the binary with packed relative relocations
//! (`-z pack-relative-relocs`, DT_RELR): the position-independent binary's ~130,000
//! relative relocations then take a few KiB instead of 3 MiB of `.rela.dyn`, which the
//! loader reads in full at every start (3 MiB less resident, and a smaller file). It
//! needs glibc 2.36 or newer at run time and binutils 2.38 or lld 15 to link.
//! (The embedded sample's build time is recorded by `crates/model/build.rs`.)

fn main() {
    // Only this file decides what it prints. Without the line, cargo runs it again (and
    // relinks the binary) whenever any file of the package changes: the browser tests'
    // screenshots, `tests/browser/node_modules`, which made the suite's stages build the
    // same crate two and three times.
    println!("cargo:rerun-if-changed=build.rs");
    let target = |name| std::env::var(name).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
