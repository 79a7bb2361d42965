//! Building a site from 5,000 recipes (index, list page, JSON) and rendering the list page
//! on its own, plus the static assets (hash + brotli/gzip).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use criterion::Criterion;
use libations::recipes::{Origin, Recipes};
use libations::web::{Assets, Site};
use std::hint::black_box;
use std::time::SystemTime;

fn render(c: &mut Criterion, text: &str) {
    let recipes = Recipes::parse(text, Origin::Embedded, SystemTime::UNIX_EPOCH).unwrap();
    let assets = Assets::load();
    let site = Site::new(recipes.clone(), &assets, Default::default()).unwrap();
    let mut g = c.benchmark_group("render");
    g.sample_size(20);
    g.bench_function("list_page_5000", |b| {
        b.iter(|| {
            site.render_search(black_box(""), libations::search::SearchQuery::parse(""))
                .unwrap()
        })
    });
    g.bench_function("site_new_5000", |b| {
        b.iter(|| Site::new(black_box(recipes.clone()), &assets, Default::default()).unwrap())
    });
    g.bench_function("assets_load", |b| b.iter(Assets::load));
    g.finish();
}

main_with_data!(render);
