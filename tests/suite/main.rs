//! The HTTP suites, one binary: each module starts the real binary (`tests/common`'s
//! `Server`) and speaks to it over HTTP on 127.0.0.1, as a browser or script would; a few
//! also run its subcommands (`check`, `import`, `import-household`). One binary links the
//! Go-built Tailscale node once, where a binary per file linked it twenty times.
//!
//! `cargo test --test suite MODULE::` runs one module (`cargo test --test suite http::`).
//! The tailnet's end-to-end tests are their own binary (`tests/tailnet.rs`), as are the
//! browser suites (`tests/browser`, Node).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

#[path = "../common/mod.rs"]
mod common;

mod abuse;
mod bodies;
mod crash;
mod dropin;
mod duplicates;
mod edge;
mod edit;
mod faults;
mod funnel;
mod history;
mod household;
mod household_probe;
mod household_safety;
mod http;
mod import;
mod import_formats;
mod import_hostile;
mod input;
mod menu;
mod menu_photos;
mod photo_forms;
mod photos;
mod photos_backup;
mod photos_restore;
mod profile;
mod rules;
mod search_bottle;
mod shelf;
mod shopping;
mod story;
mod strength;
mod vocabulary;
mod working;
mod write_guard;
