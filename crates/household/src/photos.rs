//! Photos of the household's recipes: which photo (its files named by `hash` in the photo
//! store, `libations-photos`) belongs to which recipe, who added it, and each recipe's
//! cover, the one shown first.
//!
//! Who may do what (issue #44): any person may add a photo to any recipe and take away
//! their own; an editor (`any`, the web layer's grant) chooses the cover and may take any
//! away. The files are written before the row: a crash leaves at worst files no row
//! names, which the store sweeps at a start an hour or more later. A cover records when
//! it was chosen (`cover_at`), so that a merged backup keeps the cover chosen last
//! ([`super::backup_photos`]). A photo taken away is kept a while, restorable
//! ([`super::photos_gone`]), and its files with it.

use super::limits::{self, Person};
use super::{Household, HouseholdError, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::collections::HashSet;

/// The most photos one recipe keeps.
pub const PHOTOS_PER_RECIPE: usize = 24;
/// The most photos the household keeps, all recipes together.
pub const PHOTO_ROWS: usize = 5_000;

/// A photo of a recipe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Photo {
    pub id: i64,
    pub recipe: u64,
    /// Names its files in the photo store.
    #[serde(skip)]
    pub hash: String,
    /// The large variant's size, in pixels.
    pub width: u32,
    pub height: u32,
    /// The login of whoever added it.
    pub by: String,
    pub at: i64,
    pub cover: bool,
}

pub(crate) const COLUMNS: &str = "id, recipe, hash, width, height, by, at, cover";

pub(crate) fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Photo> {
    let recipe: i64 = r.get(1)?;
    Ok(Photo {
        id: r.get(0)?,
        recipe: recipe.unsigned_abs(),
        hash: r.get(2)?,
        width: r.get(3)?,
        height: r.get(4)?,
        by: r.get(5)?,
        at: r.get(6)?,
        cover: r.get(7)?,
    })
}

pub(crate) fn count(tx: &Connection, sql: &str, args: impl rusqlite::Params) -> Result<i64> {
    Ok(tx.prepare_cached(sql)?.query_row(args, |r| r.get(0))?)
}

pub(crate) fn one(db: &Connection, recipe: u64, id: i64) -> Result<Photo> {
    let key = limits::recipe(recipe, "recipe")?;
    let sql = format!("SELECT {COLUMNS} FROM photos WHERE id = ?1 AND recipe = ?2");
    db.prepare_cached(&sql)?
        .query_row(params![id, key], row)
        .optional()?
        .ok_or_else(|| HouseholdError::Nothing(format!("recipe {recipe} has no photo {id}")))
}

/// The id a new photo row takes: past every id in `photos` and `photos_gone`, so that a
/// deleted photo, restored, comes back under its own id and no other photo has had it.
pub(crate) fn next_id(tx: &Connection) -> Result<i64> {
    let highest = count(
        tx,
        "SELECT max(coalesce((SELECT max(id) FROM photos), 0),
                    coalesce((SELECT max(id) FROM photos_gone), 0))",
        [],
    )?;
    Ok(highest.saturating_add(1))
}

/// Makes photo `id` the only cover of `recipe`, chosen at `at`.
pub(crate) fn make_cover(tx: &Connection, recipe: i64, id: i64, at: i64) -> Result<()> {
    tx.prepare_cached(
        "UPDATE photos SET cover = 0, cover_at = NULL WHERE recipe = ?1 AND cover = 1",
    )?
    .execute([recipe])?;
    tx.prepare_cached("UPDATE photos SET cover = 1, cover_at = ?2 WHERE id = ?1")?
        .execute([id, at])?;
    Ok(())
}

impl Household {
    /// Adds the photo whose files are `hash` to `recipe`, by `who`; the recipe's first
    /// photo becomes its cover.
    pub fn add_photo(
        &self,
        who: &Person,
        recipe: u64,
        hash: &str,
        (width, height): (u32, u32),
    ) -> Result<Photo> {
        let at = limits::when(None, "at")?;
        let key = limits::recipe(recipe, "recipe")?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            let here = count(tx, "SELECT count(*) FROM photos WHERE recipe = ?1", [key])?;
            limits::room(here, PHOTOS_PER_RECIPE, "photos of this recipe", "photo")?;
            let all = count(tx, "SELECT count(*) FROM photos", [])?;
            limits::room(all, PHOTO_ROWS, "photos", "photo")?;
            let id = next_id(tx)?;
            tx.prepare_cached(
                "INSERT INTO photos (id, recipe, hash, width, height, by, at, cover, cover_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, CASE WHEN ?8 THEN ?7 END)",
            )?
            .execute(params![
                id,
                key,
                hash,
                width,
                height,
                who.login,
                at,
                here == 0
            ])?;
            one(tx, recipe, id)
        })
    }

    /// The photos of `recipe`, the cover first, then oldest first.
    pub fn photos(&self, recipe: u64) -> Result<Vec<Photo>> {
        let key = limits::recipe(recipe, "recipe")?;
        let db = self.db();
        let sql =
            format!("SELECT {COLUMNS} FROM photos WHERE recipe = ?1 ORDER BY cover DESC, at, id");
        let mut stmt = db.prepare_cached(&sql)?;
        let rows = stmt.query_map([key], row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every recipe's cover, by recipe id (for the list and the guests' menu).
    pub fn covers(&self) -> Result<Vec<Photo>> {
        let db = self.db();
        let sql = format!("SELECT {COLUMNS} FROM photos WHERE cover = 1 ORDER BY recipe");
        let mut stmt = db.prepare_cached(&sql)?;
        let rows = stmt.query_map([], row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Makes photo `id` the cover of `recipe` (the web layer lets editors only), chosen
    /// now (`cover_at`), even if it was the cover already: the choice made last is the
    /// one a merged backup must beat.
    pub fn set_cover(&self, who: &Person, recipe: u64, id: i64) -> Result<Photo> {
        let key = limits::recipe(recipe, "recipe")?;
        let now = limits::now_ms();
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            one(tx, recipe, id)?;
            make_cover(tx, key, id, now)?;
            one(tx, recipe, id)
        })
    }

    /// The hashes some photo row names, a deleted photo's kept to be restored included:
    /// the files the store keeps when it sweeps.
    pub fn photo_hashes(&self) -> Result<HashSet<String>> {
        let db = self.db();
        let mut stmt =
            db.prepare_cached("SELECT hash FROM photos UNION SELECT hash FROM photos_gone")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// Every photo row of the database at `path`, read-only, by recipe (for `libations check
/// --household`, which then looks for each row's files); none before the schema had
/// photos.
pub fn photos_in(path: &std::path::Path) -> Result<Vec<Photo>> {
    rows_in(path, "photos")
}

/// Every deleted photo's row kept to be restored (`photos_gone`) of the database at
/// `path`, read-only, as [`photos_in`]: their files must be there too.
pub fn gone_photos_in(path: &std::path::Path) -> Result<Vec<Photo>> {
    rows_in(path, "photos_gone")
}

fn rows_in(path: &std::path::Path, table: &str) -> Result<Vec<Photo>> {
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags)?;
    let tables: i64 = db.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [table],
        |r| r.get(0),
    )?;
    if tables == 0 {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT {COLUMNS} FROM {table} ORDER BY recipe, at, id");
    let mut stmt = db.prepare(&sql)?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
