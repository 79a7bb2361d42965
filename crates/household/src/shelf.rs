//! What the household shares: the bar's shelf (one for the home; the tick made last wins,
//! per ingredient), and the ratings everyone gave a recipe (shown as an average with who
//! rated).

use super::limits::{self, Person, SHELF_CHANGE, SHELF_ROWS};
use super::{Household, HouseholdError, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::collections::BTreeSet;

/// A recipe's ratings across the household.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RecipeRatings {
    /// The mean of the stars given, to one decimal; `None` when nobody rated it.
    pub(crate) average: Option<f64>,
    pub(crate) count: usize,
    pub(crate) by: Vec<Rater>,
}

/// One person's rating, as the household sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rater {
    pub name: String,
    pub stars: u8,
}

impl Household {
    /// The ingredients on the shelf (their shelf names), in name order.
    pub fn shelf(&self) -> Result<BTreeSet<String>> {
        let db = self.db();
        let mut stmt = db.prepare_cached("SELECT name FROM shelf WHERE have = 1 ORDER BY name")?;
        let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(names.collect::<rusqlite::Result<_>>()?)
    }

    /// Ticks `have` and unticks `out` (names as written; the shelf folds them), as one
    /// change by `who`. A name in both, or one that is no ingredient name, refuses the
    /// whole change.
    pub fn change_shelf(
        &self,
        who: &Person,
        have: &[String],
        out: &[String],
        at: Option<i64>,
    ) -> Result<()> {
        let changes = shelf_changes(have, out)?;
        let at = limits::when(at, "at")?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            for (name, on) in &changes {
                tick(tx, name, *on, at, &who.login)?;
            }
            Ok(())
        })
    }

    /// How the household rated `recipe`.
    pub fn ratings_of(&self, recipe: u64) -> Result<RecipeRatings> {
        let recipe = limits::recipe(recipe, "id")?;
        let db = self.db();
        let mut stmt = db.prepare_cached(
            "SELECT coalesce(p.name, r.login), r.stars FROM ratings r LEFT JOIN people p ON p.login = r.login
             WHERE r.recipe = ?1 AND r.stars IS NOT NULL ORDER BY r.at, r.login",
        )?;
        let by = stmt
            .query_map([recipe], |r| {
                Ok(Rater {
                    name: r.get(0)?,
                    stars: r.get(1)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let count = by.len();
        let average = (count > 0).then(|| {
            let sum: u32 = by.iter().map(|r| u32::from(r.stars)).sum();
            (f64::from(sum) / count as f64 * 10.0).round() / 10.0
        });
        Ok(RecipeRatings { average, count, by })
    }
}

/// The folded names and whether each is ticked, checked whole before anything is written.
fn shelf_changes(have: &[String], out: &[String]) -> Result<Vec<(String, bool)>> {
    if have.len() + out.len() > SHELF_CHANGE {
        return Err(HouseholdError::refused(
            "have",
            format!(
                "one change can tick or untick at most {SHELF_CHANGE} ingredients; this one lists {}",
                have.len() + out.len()
            ),
        ));
    }
    let mut changes: Vec<(String, bool)> = Vec::new();
    let lists = [("have", have, true), ("out", out, false)];
    for (list, names, on) in lists {
        for (i, name) in names.iter().enumerate() {
            let field = format!("{list}[{i}]");
            let key = limits::shelf_name(name, &field)?;
            if let Some((_, other)) = changes.iter().find(|(k, _)| *k == key) {
                if *other != on {
                    return Err(HouseholdError::refused(
                        field,
                        format!("{key:?} is in both have and out"),
                    ));
                }
                continue;
            }
            changes.push((key, on));
        }
    }
    Ok(changes)
}

/// One tick; an older one than stored changes nothing.
pub(super) fn tick(db: &Connection, name: &str, have: bool, at: i64, by: &str) -> Result<bool> {
    let stored: Option<i64> = db
        .prepare_cached("SELECT at FROM shelf WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?;
    match stored {
        Some(was_at) if was_at > at => return Ok(false),
        None => {
            let rows: i64 = db
                .prepare_cached("SELECT count(*) FROM shelf")?
                .query_row([], |r| r.get(0))?;
            if usize::try_from(rows).unwrap_or(usize::MAX) >= SHELF_ROWS {
                return Err(HouseholdError::refused(
                    "have",
                    format!(
                        "the shelf already knows {SHELF_ROWS} ingredients, the most the app keeps"
                    ),
                ));
            }
        }
        Some(_) => {}
    }
    db.prepare_cached(
        "INSERT INTO shelf (name, have, at, by) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (name) DO UPDATE SET have = excluded.have, at = excluded.at, by = excluded.by",
    )?
    .execute(params![name, have, at, by])?;
    Ok(true)
}
