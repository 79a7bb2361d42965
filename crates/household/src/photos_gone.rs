//! Photos taken away, and brought back (issue #44; the brief: "every change can be
//! undone"). Deleting a photo moves its row, in the same transaction, to `photos_gone`,
//! its id kept, with when and by whom it went; its files stay in the store. Whoever could
//! have deleted it (who added it, or an editor: `any`) may restore it, under the same id,
//! for [`GONE_KEPT_MS`]; after that the row is purged at start ([`Household::purge_gone_photos`])
//! and the store's sweep takes its files, unless another row names them.
//!
//! Why a room of its own: deleting, restoring and purging are one rule, "a deleted photo
//! is kept a while", and its table's rows are read by no one else: a gone photo is not on
//! its recipe, not a cover, not in a backup (it was deleted), and its files are served
//! only to whoever may restore it ([`Household::may_see_photo_file`]).

use super::limits::{self, Person};
use super::photos::{COLUMNS, PHOTO_ROWS, PHOTOS_PER_RECIPE, Photo, count, one, row};
use super::{Household, HouseholdError, Result};
use rusqlite::{Connection, OptionalExtension, params};

/// How long a deleted photo can be restored: 30 days, in milliseconds. Long enough that a
/// photo deleted by mistake, or by someone else in the household, is missed and brought
/// back at the next look at its recipe, a holiday away included; short enough that a
/// photo a person meant to be rid of does not stay on the disk for ever.
pub const GONE_KEPT_MS: i64 = 30 * 24 * 60 * 60 * 1000;

/// The most deleted photos kept, all recipes together: past it the one deleted longest
/// ago goes at once (its files at the next start), so deleting and adding again and again
/// cannot fill the disk within the 30 days.
pub const GONE_ROWS: usize = PHOTO_ROWS;

/// A deleted photo, restorable: its row as it was (`cover`: whether it was the cover when
/// it went), and when and by whom it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GonePhoto {
    pub photo: Photo,
    pub gone_at: i64,
    pub gone_by: String,
}

/// The oldest `gone_at` still restorable, at `now`.
fn cutoff(now: i64) -> i64 {
    now.saturating_sub(GONE_KEPT_MS)
}

/// Deleted photo `id` of `recipe`, if still restorable.
fn gone_one(db: &Connection, recipe: i64, id: i64) -> Result<Option<Photo>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM photos_gone WHERE id = ?1 AND recipe = ?2 AND gone_at >= ?3"
    );
    Ok(db
        .prepare_cached(&sql)?
        .query_row(params![id, recipe, cutoff(limits::now_ms())], row)
        .optional()?)
}

fn not_yours(what: &str) -> HouseholdError {
    HouseholdError::NotYours(format!(
        "Only who added a photo, or someone who may edit recipes, can {what}."
    ))
}

impl Household {
    /// Takes photo `id` of `recipe` away: `who`'s own, or any with `any` (an editor). Its
    /// row is kept in `photos_gone`, restorable for [`GONE_KEPT_MS`]; its files stay. If it
    /// was the cover, the oldest photo left becomes the cover. Returns the photo.
    pub fn delete_photo(&self, who: &Person, any: bool, recipe: u64, id: i64) -> Result<Photo> {
        let key = limits::recipe(recipe, "recipe")?;
        let now = limits::now_ms();
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            let photo = one(tx, recipe, id)?;
            if photo.by != who.login && !any {
                return Err(not_yours("take it away"));
            }
            tx.prepare_cached(&format!(
                "INSERT INTO photos_gone ({COLUMNS}, gone_at, gone_by)
                 SELECT {COLUMNS}, ?2, ?3 FROM photos WHERE id = ?1"
            ))?
            .execute(params![id, now, who.login])?;
            tx.prepare_cached("DELETE FROM photos WHERE id = ?1")?
                .execute([id])?;
            if photo.cover {
                tx.prepare_cached(
                    "UPDATE photos SET cover = 1, cover_at = ?2 WHERE id =
                     (SELECT id FROM photos WHERE recipe = ?1 ORDER BY at, id LIMIT 1)",
                )?
                .execute([key, now])?;
            }
            forget_old(tx, now)?;
            Ok(photo)
        })
    }

    /// Brings deleted photo `id` of `recipe` back under its own id: `who`'s own, or any
    /// with `any` (an editor), as deleting it. Refused while the recipe holds
    /// [`PHOTOS_PER_RECIPE`] or the household [`PHOTO_ROWS`], or if the same picture is on
    /// the recipe again; it becomes the cover if the recipe has none now.
    pub fn restore_photo(&self, who: &Person, any: bool, recipe: u64, id: i64) -> Result<Photo> {
        let key = limits::recipe(recipe, "recipe")?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            let gone = gone_one(tx, key, id)?.ok_or_else(|| {
                HouseholdError::Nothing(format!(
                    "Recipe {recipe} has no deleted photo {id} to restore (restored already, or deleted over 30 days ago)."
                ))
            })?;
            if gone.by != who.login && !any {
                return Err(not_yours("restore it"));
            }
            let here = count(tx, "SELECT count(*) FROM photos WHERE recipe = ?1", [key])?;
            limits::room(here, PHOTOS_PER_RECIPE, "photos of this recipe", "photo")?;
            let all = count(tx, "SELECT count(*) FROM photos", [])?;
            limits::room(all, PHOTO_ROWS, "photos", "photo")?;
            let twice = "SELECT count(*) FROM photos WHERE recipe = ?1 AND hash = ?2";
            if count(tx, twice, params![key, gone.hash])? > 0 {
                return Err(HouseholdError::refused(
                    "photo",
                    "the same picture is on this recipe again already",
                ));
            }
            let covered = count(
                tx,
                "SELECT count(*) FROM photos WHERE recipe = ?1 AND cover = 1",
                [key],
            )?;
            tx.prepare_cached(
                "INSERT INTO photos (id, recipe, hash, width, height, by, at, cover, cover_at)
                 SELECT id, recipe, hash, width, height, by, at, ?2, CASE WHEN ?2 THEN ?3 END
                 FROM photos_gone WHERE id = ?1",
            )?
            .execute(params![id, covered == 0, limits::now_ms()])?;
            tx.prepare_cached("DELETE FROM photos_gone WHERE id = ?1")?
                .execute([id])?;
            one(tx, recipe, id)
        })
    }

    /// The deleted photos of `recipe` that `who` may restore (their own, or all with
    /// `any`), the one deleted last first.
    pub fn gone_photos(&self, who: &Person, any: bool, recipe: u64) -> Result<Vec<GonePhoto>> {
        let key = limits::recipe(recipe, "recipe")?;
        let db = self.db();
        let sql = format!(
            "SELECT {COLUMNS}, gone_at, gone_by FROM photos_gone
             WHERE recipe = ?1 AND gone_at >= ?2 AND (?3 OR by = ?4)
             ORDER BY gone_at DESC, id DESC"
        );
        let mut stmt = db.prepare_cached(&sql)?;
        let cut = cutoff(limits::now_ms());
        let rows = stmt.query_map(params![key, cut, any, who.login], |r| {
            Ok(GonePhoto {
                photo: row(r)?,
                gone_at: r.get(8)?,
                gone_by: r.get(9)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Whether the files of `hash` may be served to `login` (none: a visitor the household
    /// does not know; `any`: an editor): to everyone while a photo names them, else only
    /// to whoever may restore a deleted photo that does.
    pub fn may_see_photo_file(&self, hash: &str, login: Option<&str>, any: bool) -> Result<bool> {
        let db = self.db();
        let live = count(&db, "SELECT count(*) FROM photos WHERE hash = ?1", [hash])?;
        if live > 0 {
            return Ok(true);
        }
        let Some(login) = login else {
            return Ok(false);
        };
        let gone = count(
            &db,
            "SELECT count(*) FROM photos_gone WHERE hash = ?1 AND gone_at >= ?2 AND (?3 OR by = ?4)",
            params![hash, cutoff(limits::now_ms()), any, login],
        )?;
        Ok(gone > 0)
    }

    /// Forgets the deleted photos past [`GONE_KEPT_MS`] (at start, before the photo store
    /// sweeps the files no row names); how many.
    pub fn purge_gone_photos(&self) -> Result<usize> {
        let now = limits::now_ms();
        self.write(|tx| forget_old(tx, now))
    }
}

/// Drops the deleted photos' rows past [`GONE_KEPT_MS`] at `now`, and past the
/// [`GONE_ROWS`] deleted last; how many. Their files go at the next sweep.
fn forget_old(tx: &Connection, now: i64) -> Result<usize> {
    let old = tx
        .prepare_cached("DELETE FROM photos_gone WHERE gone_at < ?1")?
        .execute([cutoff(now)])?;
    let over = tx
        .prepare_cached(
            "DELETE FROM photos_gone WHERE id IN
             (SELECT id FROM photos_gone ORDER BY gone_at DESC, id DESC LIMIT -1 OFFSET ?1)",
        )?
        .execute([i64::try_from(GONE_ROWS).unwrap_or(i64::MAX)])?;
    Ok(old + over)
}
