//! A search over 5,000 recipes: parsing the query and scanning the index (server time of
//! `/api/recipes?q=` without the JSON), for typical and worst-case queries.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use criterion::Criterion;
use libations::recipes::{Origin, Recipes};
use libations::search::{Index, SearchQuery};
use std::hint::black_box;
use std::time::SystemTime;

fn search(c: &mut Criterion, text: &str) {
    let recipes = Recipes::parse(text, Origin::Embedded, SystemTime::UNIX_EPOCH).unwrap();
    let mut g = c.benchmark_group("search_5000");
    g.bench_function("index_build", |b| {
        b.iter(|| Index::new(black_box(&recipes)))
    });
    let index = Index::new(&recipes);
    for q in common::QUERIES {
        g.bench_function(q, |b| {
            b.iter(|| index.search(&SearchQuery::parse(black_box(q))).len())
        });
    }
    g.finish();
}

main_with_data!(search);
