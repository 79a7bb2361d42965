//! A search over 5,000 recipes: parsing the query and scanning the index (server time of
//! `/api/recipes?q=` without the JSON), for typical and worst-case queries.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use criterion::Criterion;
use libations::ingredients::key;
use libations::makes::{Needs, analyse};
use libations::recipes::{Origin, Recipes};
use libations::search::{Asker, Index, SearchQuery};
use std::collections::{HashMap, HashSet};
use std::hint::black_box;
use std::time::SystemTime;

/// Personal terms over the same index, for someone with a well-stocked bar (the first two
/// ingredients of every 40th recipe), 500 favourites and ratings and 1,000 drinks logged;
/// and `GET /api/bar`'s analysis for that shelf.
fn personal(c: &mut Criterion, recipes: &Recipes, index: &Index) {
    let all = recipes.all();
    let shelf: HashSet<String> = all
        .iter()
        .step_by(40)
        .flat_map(|r| r.ingredients.iter().take(2))
        .map(|i| key(&i.name))
        .collect();
    let favourites: HashSet<u64> = all.iter().step_by(10).map(|r| r.id).collect();
    let ratings: HashMap<u64, u8> = all
        .iter()
        .step_by(10)
        .map(|r| (r.id, (r.id % 5 + 1) as u8))
        .collect();
    let now_ms = 1_764_700_000_000;
    let last_made: HashMap<u64, u64> = all
        .iter()
        .step_by(5)
        .map(|r| (r.id, now_ms - r.id * 3_600_000))
        .collect();
    let mine = Asker {
        favourites: &favourites,
        ratings: &ratings,
        last_made: &last_made,
        now_ms,
        shelf: Some(&shelf),
        rules: &[],
    };
    let mut g = c.benchmark_group("personal_5000");
    // Part of index_build: reading every recipe's needs once.
    g.bench_function("needs_build", |b| b.iter(|| Needs::new(black_box(recipes))));
    for q in [
        "can:make",
        "missing:one lime",
        "is:fav rating:>=4 made:recent",
    ] {
        g.bench_function(q, |b| {
            b.iter(|| {
                index
                    .search_for(&SearchQuery::parse(black_box(q)), Some(&mine))
                    .len()
            })
        });
    }
    g.bench_function("analyse", |b| {
        b.iter(|| {
            analyse(index.needs(), black_box(&shelf), &[])
                .next_bottles
                .len()
        })
    });
    g.finish();
}

/// Bottle terms, `has:` and typos (the last three find nothing and are guessed).
const BOTTLES_AND_TYPOS: [&str; 7] = [
    "whisky",
    "gin",
    "has:bourbon",
    "limes",
    "margerita",
    "negorni",
    "daquiri sour",
];

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
    // Words read as bottles, and typos forgiven (issue #42): the search, then, when it
    // finds nothing, the guesses, as the list page does.
    for q in BOTTLES_AND_TYPOS {
        g.bench_function(format!("guessing {q}"), |b| {
            b.iter(|| {
                let query = SearchQuery::parse(black_box(q));
                let hits = index.search(&query);
                match hits.is_empty() {
                    true => index.guesses(&query).len(),
                    false => hits.len(),
                }
            })
        });
    }
    g.finish();
    personal(c, &recipes, &index);
}

main_with_data!(search);
