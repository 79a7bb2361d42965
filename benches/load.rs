//! Loading and validating 5,000 recipes (`Recipes::parse`: JSON, validation, sort).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use criterion::Criterion;
use libations::recipes::{Origin, Recipes};
use std::hint::black_box;
use std::time::SystemTime;

fn load(c: &mut Criterion, text: &str) {
    let mut g = c.benchmark_group("load");
    g.sample_size(20);
    g.bench_function("parse_validate_sort_5000", |b| {
        b.iter(|| {
            Recipes::parse(black_box(text), Origin::Embedded, SystemTime::UNIX_EPOCH).unwrap()
        })
    });
    g.finish();
}

main_with_data!(load);
