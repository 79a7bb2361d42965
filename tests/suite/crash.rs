//! Crash safety: a client writes recipes as fast as it can while the server is killed with
//! SIGKILL at random moments, dozens of times over one file. After every kill the file
//! must load, and every write the server acknowledged must be in it (or be overtaken only
//! by the one request that was in flight when the process died). The journal must open
//! and hold the last acknowledged change. A bulk save of several recipes in one change
//! (`POST /api/recipes/bulk`) lands whole or not at all.
//!
//! `LIBATIONS_CRASH_ROUNDS` sets the number of rounds (default 40); the seed of the random
//! kill times is printed, and `LIBATIONS_CRASH_SEED` replays one.

use crate::common;

use common::faults::{Rng, env_number, seed};
use common::{Server, client};
use libations::recipes::Recipes;
use libations::store::Store;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

/// What the client knows: each recipe it wrote, as last acknowledged, with its ETag.
#[derive(Default)]
struct Acked {
    recipes: HashMap<u64, (Value, String)>,
    last_change: u64,
}

/// The request that was on the wire when the server died: it may or may not have landed.
#[derive(Debug)]
enum InFlight {
    Create(Value),
    Update(u64, Value),
    Bulk(Vec<Value>),
}

fn drink(round: usize, i: usize) -> Value {
    json!({
        "name": format!("Crash {round}-{i}"),
        "base": ["Gin"],
        "ingredients": [
            {"name": "Gin", "measure": format!("{}", 30 + i % 30), "unit": "ml"},
            {"name": "Lime Juice", "measure": "20", "unit": "ml"}
        ],
        "notes": format!("round {round}, write {i}")
    })
}

/// Writes until a request fails (the server was killed); returns what was in flight.
async fn write_until_killed(
    base: &str,
    round: usize,
    acked: &mut Acked,
    rng: &mut Rng,
) -> Option<InFlight> {
    let http = client();
    for i in 0.. {
        // Recipes acknowledged by a bulk save have no ETag yet (the next round gives them one).
        let ids: Vec<u64> = acked
            .recipes
            .iter()
            .filter(|(_, (_, tag))| !tag.is_empty())
            .map(|(id, _)| *id)
            .collect();
        let choice = rng.below(3);
        let update = !ids.is_empty() && choice == 0;
        let mut body = drink(round, i);
        let (request, in_flight) = if choice == 2 {
            let list: Vec<Value> = (0..4).map(|k| drink(round, i * 10 + 1000 + k)).collect();
            body = json!({ "recipes": list });
            (
                http.post(format!("{base}/api/recipes/bulk")),
                InFlight::Bulk(list),
            )
        } else if update {
            let id = ids[rng.below(ids.len() as u64) as usize];
            let tag = acked.recipes[&id].1.clone();
            let req = http
                .put(format!("{base}/api/recipes/{id}"))
                .header("if-match", tag);
            (req, InFlight::Update(id, body.clone()))
        } else {
            (
                http.post(format!("{base}/api/recipes")),
                InFlight::Create(body.clone()),
            )
        };
        let sent = request
            .header("origin", base)
            .header("sec-fetch-site", "same-origin")
            .json(&body)
            .send()
            .await;
        let Ok(response) = sent else {
            return Some(in_flight);
        };
        let status = response.status();
        let tag = response
            .headers()
            .get("etag")
            .and_then(|t| t.to_str().ok())
            .map(str::to_owned);
        let Ok(answer) = response.json::<Value>().await else {
            return Some(in_flight);
        };
        assert!(status.is_success(), "write refused: {status} {answer}");
        if let InFlight::Bulk(_) = in_flight {
            for recipe in answer["recipes"].as_array().expect("the recipes saved") {
                let id = recipe["id"].as_u64().unwrap();
                acked.recipes.insert(id, (recipe.clone(), String::new()));
            }
            acked.last_change = answer["change"]["n"].as_u64().unwrap();
            continue;
        }
        let id = answer["recipe"]["id"]
            .as_u64()
            .expect("the answer names the recipe");
        acked
            .recipes
            .insert(id, (answer["recipe"].clone(), tag.expect("an ETag")));
        acked.last_change = answer["change"]["n"]
            .as_u64()
            .expect("the answer names the change");
    }
    None
}

/// The file loads; every acknowledged recipe is in it as acknowledged, unless the request in
/// flight at the kill was about it and landed.
fn check_file(path: &std::path::Path, acked: &mut Acked, in_flight: Option<&InFlight>) {
    let recipes = Recipes::from_file(path)
        .unwrap_or_else(|e| panic!("the file does not load after a kill: {e}"));
    for (id, (want, _)) in &acked.recipes {
        let got = recipes
            .get(*id)
            .unwrap_or_else(|| panic!("acknowledged recipe {id} lost"));
        let got = serde_json::to_value(got).unwrap();
        let landed = match in_flight {
            Some(InFlight::Update(fid, body)) if fid == id => got["name"] == body["name"],
            _ => false,
        };
        assert!(
            got == *want || landed,
            "recipe {id} is not as acknowledged:\n got {got}\nwant {want}"
        );
    }
    let extra: Vec<&str> = recipes
        .all()
        .iter()
        .filter(|r| r.name.starts_with("Crash ") && !acked.recipes.contains_key(&r.id))
        .map(|r| r.name.as_str())
        .collect();
    match in_flight {
        Some(InFlight::Create(body)) => {
            assert!(
                extra.len() <= 1 && extra.iter().all(|n| *n == body["name"]),
                "unexpected recipes {extra:?}"
            )
        }
        Some(InFlight::Bulk(bodies)) => {
            // All of them or none: one change.
            let mut sent: Vec<&str> = bodies.iter().filter_map(|b| b["name"].as_str()).collect();
            let mut found = extra.clone();
            sent.sort_unstable();
            found.sort_unstable();
            assert!(
                found.is_empty() || found == sent,
                "a bulk save landed in part: {found:?} of {sent:?}"
            )
        }
        _ => assert!(extra.is_empty(), "recipes nobody wrote: {extra:?}"),
    }
    // The file is now known to hold what was acknowledged (or the write in flight, which
    // landed): it is what the next round edits, with the versions it has now.
    for r in recipes
        .all()
        .iter()
        .filter(|r| r.name.starts_with("Crash "))
    {
        let tag = format!("\"{}\"", libations::store::version(r));
        acked
            .recipes
            .insert(r.id, (serde_json::to_value(r).unwrap(), tag));
    }
}

#[tokio::test]
async fn acknowledged_writes_survive_sigkill_at_random_moments() {
    let rounds = env_number("LIBATIONS_CRASH_ROUNDS", 40) as usize;
    let seed = seed("LIBATIONS_CRASH_SEED");
    eprintln!("crash test: {rounds} rounds");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipes.json");
    std::fs::write(&path, libations::recipes::SAMPLE_JSON).unwrap();
    let file = path.to_str().unwrap().to_owned();
    let mut acked = Acked::default();
    let mut kills_mid_write = 0;
    for round in 0..rounds {
        let server = Server::start(&[
            "--recipes-file",
            &file,
            "--allow-edits",
            "--local-edit",
            "--edits-per-minute",
            "100000",
        ]);
        let pid = server.pid();
        let delay = Duration::from_millis(5 + rng.below(150));
        let killer = tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let status = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status()
                .unwrap();
            assert!(status.success());
        });
        let in_flight = write_until_killed(&server.base, round, &mut acked, &mut rng).await;
        killer.await.unwrap();
        drop(server);
        kills_mid_write += usize::from(in_flight.is_some());
        check_file(&path, &mut acked, in_flight.as_ref());
        let store = Store::open(&path, 64 << 20)
            .unwrap_or_else(|e| panic!("round {round}: the journal does not open: {e}"));
        if acked.last_change > 0 {
            let newest = store.changes().first().map_or(0, |c| c.n);
            assert!(
                newest >= acked.last_change,
                "round {round}: acknowledged change {} not in the journal (newest {newest})",
                acked.last_change
            );
        }
    }
    eprintln!(
        "crash test: {} recipes written and kept; {kills_mid_write} of {rounds} kills hit a request in flight",
        acked.recipes.len()
    );
    assert!(
        kills_mid_write * 2 >= rounds,
        "too few kills landed mid-request ({kills_mid_write}/{rounds}) for the test to mean much"
    );
}
