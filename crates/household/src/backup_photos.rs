//! The backup file's `photos` (version 5 on): the rows of the `photos` table, which
//! recipe each photo is of, its files' `hash` in the photo store, who added it and when,
//! and whether it is the recipe's cover, and (version 6 on) when it was chosen as cover
//! (`cover_at`). The images themselves are not in the JSON: the household archive (a zip,
//! `libations-photos`' `archive`) carries them beside it.
//!
//! Why a room of its own: the rows are checked (a hash the store could name, a cover per
//! recipe at most, the household's caps) and merged by their own rule. Merging is by
//! recipe and hash: a photo already stored is not doubled. The cover chosen last wins:
//! the file's cover replaces the stored one only when it was chosen later (its
//! `cover_at`; in a version 5 file, which has none, its photo's `at`, the best known); on
//! a tie the stored cover stays, as loading a file never changes what it need not. Each
//! recipe whose cover a file changed is named in what the load took ([`Taken`]'s
//! `covers_changed`), so no cover changes silently. A recipe left with photos and no
//! cover gets its oldest as cover, as the app does, chosen at that photo's `at` (no one
//! chose it: any real choice made since wins over it).
//!
//! Deleted photos (`photos_gone`, restorable for a while) are not in the file: they were
//! deleted, and a backup is what the household keeps. Loading a file leaves them as they
//! are; a row it brings takes an id past theirs, so each can still come back as itself.
//!
//! [`Taken`]: super::Taken

use super::limits;
use super::photos::{PHOTO_ROWS, PHOTOS_PER_RECIPE};
use super::{HouseholdError, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// The most pixels either side of a photo row may claim (the store's large variant is far
/// smaller; this only keeps nonsense out).
const SIDE: u32 = 100_000;

/// One photo row of a backup file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhotoRow {
    pub recipe: u64,
    /// Names its files in the photo store: `{hash}.jpg` and `{hash}.thumb.jpg`.
    pub hash: String,
    pub width: u32,
    pub height: u32,
    pub by: String,
    pub at: i64,
    pub cover: bool,
    /// When it became the cover (version 6 on; a cover row only). Absent: its `at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cover_at: Option<i64>,
}

impl PhotoRow {
    /// When the file says this cover was chosen.
    fn chosen(&self) -> i64 {
        self.cover_at.unwrap_or(self.at)
    }
}

/// Whether `hash` is one the photo store could have made (32 lowercase hex digits): no
/// other text ever becomes part of a file's name.
pub fn is_photo_hash(hash: &str) -> bool {
    hash.len() == 32 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The rows' own rules in a file of `version`, each problem named by its path
/// (`photos[3].hash`).
pub(crate) fn check(rows: &[PhotoRow], version: u32) -> Result<()> {
    if rows.len() > PHOTO_ROWS {
        return Err(HouseholdError::refused(
            "photos",
            format!(
                "at most {PHOTO_ROWS} photos are kept; this lists {}",
                rows.len()
            ),
        ));
    }
    let mut covers = HashSet::new();
    for (i, row) in rows.iter().enumerate() {
        let at = format!("photos[{i}]");
        limits::recipe(row.recipe, &format!("{at}.recipe"))?;
        if !is_photo_hash(&row.hash) {
            return Err(HouseholdError::refused(
                format!("{at}.hash"),
                "must be the photo's 32 lowercase hex digits, as the app names its files",
            ));
        }
        for (side, field) in [(row.width, "width"), (row.height, "height")] {
            if !(1..=SIDE).contains(&side) {
                return Err(HouseholdError::refused(
                    format!("{at}.{field}"),
                    format!("must be 1 to {SIDE} pixels, not {side}"),
                ));
            }
        }
        limits::login(&row.by, &format!("{at}.by"), true)?;
        if row.at < 0 {
            return Err(HouseholdError::refused(
                format!("{at}.at"),
                "must be a time in milliseconds since 1970, not negative",
            ));
        }
        check_cover_at(row, version, &at)?;
        if row.cover && !covers.insert(row.recipe) {
            return Err(HouseholdError::refused(
                format!("{at}.cover"),
                format!(
                    "recipe {} has another cover earlier in the file; a recipe has one",
                    row.recipe
                ),
            ));
        }
    }
    Ok(())
}

/// `cover_at`: in a version 6 file on, on a cover row, a time.
fn check_cover_at(row: &PhotoRow, version: u32, at: &str) -> Result<()> {
    let Some(chosen) = row.cover_at else {
        return Ok(());
    };
    let why = if version < 6 {
        "is not in a version 5 file (version 6 on carries it)"
    } else if !row.cover {
        "is a cover's only: this photo is not the cover"
    } else if chosen < 0 {
        "must be a time in milliseconds since 1970, not negative"
    } else {
        return Ok(());
    };
    Err(HouseholdError::refused(format!("{at}.cover_at"), why))
}

/// Every row's recipe is one the collection has or had (up to `highest`).
pub(crate) fn check_ids(rows: &[PhotoRow], highest: u64) -> Result<()> {
    for (i, row) in rows.iter().enumerate() {
        limits::known_recipe(row.recipe, highest, &format!("photos[{i}].recipe"))?;
    }
    Ok(())
}

/// Every photo row, by recipe, oldest first.
pub(crate) fn export(db: &Connection) -> Result<Vec<PhotoRow>> {
    let mut stmt = db.prepare(
        "SELECT recipe, hash, width, height, by, at, cover, cover_at FROM photos
         ORDER BY recipe, at, id",
    )?;
    let rows = stmt.query_map([], |r| {
        let recipe: i64 = r.get(0)?;
        Ok(PhotoRow {
            recipe: recipe.unsigned_abs(),
            hash: r.get(1)?,
            width: r.get(2)?,
            height: r.get(3)?,
            by: r.get(4)?,
            at: r.get(5)?,
            cover: r.get(6)?,
            cover_at: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Merges the rows in (see the module doc): how many were taken, doubled ones included,
/// and the recipes whose cover the file changed.
pub(crate) fn merge(tx: &Connection, rows: &[PhotoRow]) -> Result<(usize, Vec<u64>)> {
    let now = limits::now_ms();
    let mut changed = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let at = format!("photos[{i}]");
        let recipe = limits::recipe(row.recipe, &format!("{at}.recipe"))?;
        let id = match stored(tx, recipe, &row.hash)? {
            Some(id) => id,
            None => insert(tx, recipe, row, row.at.min(now), &at)?,
        };
        if row.cover && cover(tx, recipe, id, row.chosen().min(now))? {
            changed.push(row.recipe);
        }
    }
    tx.execute(
        "UPDATE photos SET cover = 1, cover_at = at WHERE id IN (
           SELECT (SELECT q.id FROM photos q WHERE q.recipe = p.recipe ORDER BY q.at, q.id LIMIT 1)
           FROM photos p GROUP BY p.recipe HAVING max(p.cover) = 0)",
        [],
    )?;
    Ok((rows.len(), changed))
}

/// The id of `recipe`'s photo `hash`, if stored.
fn stored(tx: &Connection, recipe: i64, hash: &str) -> Result<Option<i64>> {
    Ok(tx
        .prepare_cached("SELECT id FROM photos WHERE recipe = ?1 AND hash = ?2")?
        .query_row(params![recipe, hash], |r| r.get(0))
        .optional()?)
}

fn insert(tx: &Connection, recipe: i64, row: &PhotoRow, at: i64, field: &str) -> Result<i64> {
    let count = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<i64> {
        Ok(tx.prepare_cached(sql)?.query_row(args, |r| r.get(0))?)
    };
    let here = count("SELECT count(*) FROM photos WHERE recipe = ?1", &[&recipe])?;
    limits::room(here, PHOTOS_PER_RECIPE, "photos of this recipe", field)?;
    let all = count("SELECT count(*) FROM photos", &[])?;
    limits::room(all, PHOTO_ROWS, "photos", field)?;
    let id = super::photos::next_id(tx)?;
    tx.prepare_cached(
        "INSERT INTO photos (id, recipe, hash, width, height, by, at, cover)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0)",
    )?
    .execute(params![
        id, recipe, row.hash, row.width, row.height, row.by, at
    ])?;
    Ok(id)
}

/// Makes photo `id` the cover of `recipe`, chosen at `chosen`, unless the stored cover
/// was chosen at the same time or later; whether another stored cover was replaced. The
/// same photo, already the cover, keeps the later of the two times.
fn cover(tx: &Connection, recipe: i64, id: i64, chosen: i64) -> Result<bool> {
    let current: Option<(i64, i64)> = tx
        .prepare_cached(
            "SELECT id, coalesce(cover_at, at) FROM photos WHERE recipe = ?1 AND cover = 1",
        )?
        .query_row([recipe], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    match current {
        Some((current, stored)) if current == id => {
            super::photos::make_cover(tx, recipe, id, stored.max(chosen))?;
            Ok(false)
        }
        Some((_, stored)) if stored >= chosen => Ok(false),
        replaced => {
            super::photos::make_cover(tx, recipe, id, chosen)?;
            Ok(replaced.is_some())
        }
    }
}
