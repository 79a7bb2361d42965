//! The household's own ingredient strengths: "our overproof rum is 63%". Kept by shelf
//! name ([`crate::ingredients::key`]); they win over the built-in table and lose to a
//! recipe row's own `abv` (`libations_model::strength`). The change made last wins, per name.

use super::limits::{self, Person};
use super::{Household, HouseholdError, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

/// The most names the household's table keeps.
pub const STRENGTH_ROWS: usize = 1_000;

/// One of the household's strengths.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnStrength {
    /// The shelf name it is for.
    pub name: String,
    /// % alcohol by volume.
    pub(crate) abv: f64,
}

/// One name of the household's table as the backup file holds it: taken-back ones too
/// (`abv` null), so that the change made last still wins when it is merged back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrengthRow {
    pub name: String,
    pub(crate) abv: Option<f64>,
    pub at: i64,
    pub(crate) by: String,
}

impl StrengthRow {
    /// The rules a row must keep, `field` naming it (`strengths[3]`).
    pub(super) fn check(&self, field: &str) -> Result<()> {
        limits::shelf_name(&self.name, &format!("{field}.name"))?;
        abv_in_range(self.abv, &format!("{field}.abv"))
    }
}

fn abv_in_range(abv: Option<f64>, field: &str) -> Result<()> {
    match abv {
        Some(v) if !(v.is_finite() && (0.0..=100.0).contains(&v)) => Err(HouseholdError::refused(
            field,
            format!("must be a number from 0 to 100 (% alcohol by volume), not {v}"),
        )),
        _ => Ok(()),
    }
}

/// Every row of the table, by name, for the backup file.
pub fn export(db: &Connection) -> Result<Vec<StrengthRow>> {
    let mut stmt = db.prepare("SELECT name, abv, at, by FROM strengths ORDER BY name")?;
    let rows = stmt.query_map([], |r| {
        Ok(StrengthRow {
            name: r.get(0)?,
            abv: r.get(1)?,
            at: r.get(2)?,
            by: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Sets `key` (a shelf name) to `abv` at `at` by `by`, unless a later change is kept;
/// `field` names the row for the cap's refusal.
pub(super) fn put(
    tx: &Connection,
    key: &str,
    abv: Option<f64>,
    at: i64,
    by: &str,
    field: &str,
) -> Result<()> {
    let stored: Option<i64> = tx
        .prepare_cached("SELECT at FROM strengths WHERE name = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?;
    match stored {
        Some(was) if was > at => return Ok(()),
        Some(_) => {}
        None => {
            let rows: i64 = tx
                .prepare_cached("SELECT count(*) FROM strengths")?
                .query_row([], |r| r.get(0))?;
            limits::room(rows, STRENGTH_ROWS, "strengths", field)?;
        }
    }
    tx.prepare_cached(
        "INSERT INTO strengths (name, abv, at, by) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (name) DO UPDATE SET abv = excluded.abv, at = excluded.at, by = excluded.by",
    )?
    .execute(params![key, abv, at, by])?;
    Ok(())
}

impl Household {
    /// The household's strengths, by name.
    /// The household's own strengths as a collection is worked out with them: shelf name →
    /// % ABV (`web::Site::new` takes it).
    pub fn strength_table(&self) -> Result<crate::strength::Household> {
        Ok(self
            .strengths()?
            .into_iter()
            .map(|s| (s.name, s.abv))
            .collect())
    }

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
        let key = limits::shelf_name(name, "name")?;
        abv_in_range(abv, "abv")?;
        let at = limits::when(at, "at")?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            put(tx, &key, abv, at, &who.login, "name")
        })
    }
}
