//! Rows for recipe ids the collection never had: finding them (`libations check
//! --household`) and dropping them (`libations repair-household`).
//!
//! Why: such a row points at no drink, and before ids were checked a person without
//! grants could plant one (a `DELETE /api/me/favourites/9007199254740991`); the store
//! then kept every later id above it, so no recipe could be added. The web and backups
//! take no such row any more; these are for databases written before.

use super::{Household, Result};
use rusqlite::{Connection, params};

/// The tables that hold a recipe id, and who each row is for.
const TABLES: [(&str, &str); 8] = [
    ("favourites", "login"),
    ("ratings", "login"),
    ("notes", "login"),
    ("replaced_notes", "login"),
    ("made", "login"),
    ("menu_recipes", "'menu ' || menu"),
    // A photo's files go with its row: `libations repair-household` sweeps them after.
    ("photos", "by"),
    // A deleted photo kept to be restored: the same.
    ("photos_gone", "by"),
];

/// One row for a recipe id past the highest the collection ever gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stray {
    pub(crate) table: &'static str,
    /// Whose row it is (a login, or `menu N`).
    pub(crate) owner: String,
    pub(crate) recipe: i64,
}

impl std::fmt::Display for Stray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: recipe {} ({})", self.table, self.recipe, self.owner)
    }
}

/// Every row in `db` for a recipe id outside 1..=`highest`.
pub(super) fn find(db: &Connection, highest: u64) -> Result<Vec<Stray>> {
    let highest = i64::try_from(highest).unwrap_or(i64::MAX);
    let mut strays = Vec::new();
    for (table, owner) in TABLES {
        if !has_table(db, table)? {
            continue; // an older schema, checked read-only before it is migrated
        }
        let sql = format!(
            "SELECT {owner}, recipe FROM {table} WHERE recipe < 1 OR recipe > ?1 ORDER BY 1, 2"
        );
        let mut stmt = db.prepare(&sql)?;
        let rows = stmt.query_map(params![highest], |r| {
            Ok(Stray {
                table,
                owner: r.get(0)?,
                recipe: r.get(1)?,
            })
        })?;
        for row in rows {
            strays.push(row?);
        }
    }
    Ok(strays)
}

fn has_table(db: &Connection, table: &str) -> Result<bool> {
    let n: i64 = db.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [table],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

impl Household {
    /// Drops the rows for recipe ids the collection never had (see the module doc), in one
    /// write; says which they were.
    pub fn drop_strays(&self, highest: u64) -> Result<Vec<Stray>> {
        let limit = i64::try_from(highest).unwrap_or(i64::MAX);
        self.write(|tx| {
            let strays = find(tx, highest)?;
            for (table, _) in TABLES {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE recipe < 1 OR recipe > ?1"),
                    params![limit],
                )?;
            }
            Ok(strays)
        })
    }
}
