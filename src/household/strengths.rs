//! The household's own ingredient strengths: "our overproof rum is 63%". Kept by shelf
//! name ([`crate::ingredients::key`]); they win over the built-in table and lose to a
//! recipe row's own `abv` ([`crate::strength`]). The change made last wins, per name.

use super::rules::{self, Person};
use super::{Household, HouseholdError, Result};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

/// The most names the household's table keeps.
pub const STRENGTH_ROWS: usize = 1_000;

/// One of the household's strengths.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnStrength {
    /// The shelf name it is for.
    pub name: String,
    /// % alcohol by volume.
    pub abv: f64,
}

impl Household {
    /// The household's strengths, by name.
    pub fn strengths(&self) -> Result<Vec<OwnStrength>> {
        let db = self.db();
        let mut stmt = db.prepare_cached(
            "SELECT name, abv FROM strengths WHERE abv IS NOT NULL ORDER BY name",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(OwnStrength {
                name: r.get(0)?,
                abv: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Sets the strength of `name` (as written; folded to its shelf name) to `abv`, or
    /// takes it back (`None`), as a change by `who`.
    pub fn set_strength(
        &self,
        who: &Person,
        name: &str,
        abv: Option<f64>,
        at: Option<i64>,
    ) -> Result<()> {
        let key = rules::shelf_name(name, "name")?;
        if let Some(v) = abv
            && !(v.is_finite() && (0.0..=100.0).contains(&v))
        {
            return Err(HouseholdError::refused(
                "abv",
                format!("must be a number from 0 to 100 (% alcohol by volume), not {v}"),
            ));
        }
        let at = rules::when(at, "at")?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            let stored: Option<i64> = tx
                .prepare_cached("SELECT at FROM strengths WHERE name = ?1")?
                .query_row([&key], |r| r.get(0))
                .optional()?;
            match stored {
                Some(was) if was > at => return Ok(()),
                Some(_) => {}
                None => {
                    let rows: i64 = tx
                        .prepare_cached("SELECT count(*) FROM strengths")?
                        .query_row([], |r| r.get(0))?;
                    rules::room(rows, STRENGTH_ROWS, "strengths", "name")?;
                }
            }
            tx.prepare_cached(
                "INSERT INTO strengths (name, abv, at, by) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (name) DO UPDATE SET abv = excluded.abv, at = excluded.at, by = excluded.by",
            )?
            .execute(params![key, abv, at, who.login])?;
            Ok(())
        })
    }
}
