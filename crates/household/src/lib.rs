//! The household's state: the bar's shelf, and each person's favourites, ratings, notes
//! and "made one" log, in one SQLite database in the state directory
//! (`household.sqlite`). The recipes file stays the household's document; this is what
//! people do with it (docs/HOUSEHOLD.md has the model, the rules and the backup format).
//!
//! A write is acknowledged only once committed: the database runs in WAL mode with
//! `synchronous=FULL`, so a commit has reached the disk (the WAL fsynced) when
//! [`Household`]'s method returns. A write that fails is rolled back whole: nothing of it
//! stays, history included, not even after a crash, because a commit that failed is
//! sealed off in the WAL before the next write (see [`Household::write`] and
//! [`schema::seal`]; docs/HOUSEHOLD.md, "Durability", says what each fault does).
//!
//! - [`schema`]: opening the file (pragmas, mode 0600), numbered migrations, `check`.
//! - [`mine`]: one person's favourites, ratings, notes and log; the change made last wins,
//!   and a note is never overwritten unseen (a conflict keeps both).
//! - [`shelf`]: the household's shelf, and the ratings every person gave a recipe.
//! - [`shopping`]: the household's shopping list; buying an item ticks it on the shelf.
//! - [`rules`]: the household's own rules, "Dry curaçao for Triple sec", for "can make".
//! - [`menus`]: menus for guests, at most one of them on.
//! - [`strengths`]: the household's own ingredient strengths ("our overproof rum is 63%").
//! - [`photos`]: which photo belongs to which recipe, who added it, each recipe's cover.
//! - [`photos_gone`]: a deleted photo kept 30 days, restorable under its own id, then purged.
//! - [`backup`]: the whole database as a versioned JSON file, and merging one back.
//! - [`backup_photos`]: the file's photo rows (version 5), checked and merged by hash.
//! - [`limits`]: caps, times, names: what every write is checked against first.
//! - [`budget`]: the household-wide budget, the most its backup file may take, checked
//!   after every write, before its commit.
//! - [`strays`]: rows for recipe ids the collection never had, found and dropped.
//!
//! Two connections, each behind a mutex and used from blocking threads (the web layer
//! calls in through `spawn_blocking`): one writes (SQLite allows one writer at a time
//! anyway), the other only reads, so that reads never wait behind a write. A write that
//! another process holds the database for (`libations import-household` beside the app)
//! waits up to the busy timeout and is then refused as [`HouseholdError::Busy`] (503).
//!
//! Crate `libations-household`: it may use libations-model (the `use`s below name the rooms).

// The rooms of other crates this one uses, under the names the code knows them by.
use libations_model::{ingredients, search, strength, strict_json, text, vocabulary};

mod backup;
mod backup_photos;
#[cfg(test)]
mod backup_photos_tests;
mod budget;
#[cfg(test)]
mod budget_tests;
mod limits;
mod menus;
#[cfg(test)]
mod menus_tests;
mod mine;
mod photos;
mod photos_gone;
#[cfg(test)]
mod photos_gone_tests;
#[cfg(test)]
mod photos_tests;
mod rules;
#[cfg(test)]
mod rules_tests;
mod schema;
mod shelf;
mod shopping;
#[cfg(test)]
mod shopping_tests;
mod strays;
mod strengths;
#[cfg(test)]
mod strengths_tests;
#[cfg(test)]
mod tests;

pub use backup::{Backup, Taken};
pub use backup_photos::{PhotoRow, is_photo_hash};
pub use budget::HOUSEHOLD_BYTES;
pub use limits::{BACKUP_BYTES, Person, now_ms};
pub use menus::{DESCRIPTION_CHARS, MENU_RECIPES, MENUS, Menu, MenuDraft, MenuRecipe, TITLE_CHARS};
pub use mine::{
    Asking, NoteChange, NoteState, PersonData, REPLACED_SHOWN, RatingState, Replaced, Toggle,
};
pub use photos::{PHOTO_ROWS, PHOTOS_PER_RECIPE, Photo, gone_photos_in, photos_in};
pub use photos_gone::{GONE_KEPT_MS, GONE_ROWS, GonePhoto};
pub use rules::{RULE_ROWS, RULES, RuleChange, RuleRow};
pub use schema::check_file;
pub use shelf::{Rater, RecipeRatings};
pub use shopping::{
    SHOPPING_CHANGE, SHOPPING_ITEMS, SHOPPING_ROWS, ShoppingChange, ShoppingItem, ShoppingRow,
};
pub use strays::Stray;
pub use strengths::{OwnStrength, STRENGTH_ROWS};

use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The file's name in the state directory.
pub const FILE_NAME: &str = "household.sqlite";

/// What went wrong with the household's state.
#[derive(Debug, thiserror::Error)]
pub enum HouseholdError {
    /// The request is refused as a whole, naming the field at fault; nothing changed.
    #[error("{field}: {message}")]
    Refused { field: String, message: String },
    /// The database file could not be opened or is not ours.
    #[error("{path}: {why}")]
    Open { path: PathBuf, why: String },
    /// Nothing is stored to take away (`DELETE` of a favourite, rating or note there is
    /// not): nothing was written.
    #[error("{0}")]
    Nothing(String),
    /// Not this person's to change (another person's photo), and no grant lets them: the
    /// message says who may. Nothing was written.
    #[error("{0}")]
    NotYours(String),
    /// Another writer (`libations import-household` while the app runs) held the database
    /// longer than a write waits: nothing was saved; trying again shortly works.
    #[error("the household database is busy with another change")]
    Busy,
    /// The disk would not take the change (full, failing, read-only): nothing was saved.
    #[error("the household database could not save the change: {0}")]
    Disk(rusqlite::Error),
    /// Anything else SQLite said.
    #[error("the household database failed: {0}")]
    Db(rusqlite::Error),
}

impl From<rusqlite::Error> for HouseholdError {
    fn from(e: rusqlite::Error) -> HouseholdError {
        use rusqlite::ErrorCode::{
            CannotOpen, DatabaseBusy, DatabaseLocked, DiskFull, ReadOnly, SystemIoFailure,
        };
        match e.sqlite_error_code() {
            Some(DiskFull | SystemIoFailure | ReadOnly | CannotOpen) => HouseholdError::Disk(e),
            Some(DatabaseBusy | DatabaseLocked) => HouseholdError::Busy,
            _ => HouseholdError::Db(e),
        }
    }
}

impl HouseholdError {
    pub fn refused(field: impl Into<String>, message: impl Into<String>) -> Self {
        HouseholdError::Refused {
            field: field.into(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = HouseholdError> = std::result::Result<T, E>;

/// The household's database, open. One per process.
pub struct Household {
    /// A read-only connection for every read: in WAL mode it reads the last commit without
    /// waiting for the writer, so a guest's `/menu` or a person's `/api/me` never waits
    /// behind a long write (a backup merged by the web or the CLI). Declared first, so
    /// dropped first: the writer, closing last, checkpoints the WAL and removes it.
    reader: Mutex<Connection>,
    /// The one connection that writes ([`Household::write`]).
    writer: Mutex<Connection>,
    path: PathBuf,
    /// A commit failed and no seal has committed since: the WAL may end in the failed
    /// commit's frames, so no write is taken before a seal commits. Changed only with
    /// the connection's lock held.
    unsealed: AtomicBool,
}

impl std::fmt::Debug for Household {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Household")
            .field("path", &self.path)
            .finish()
    }
}

impl Household {
    /// Opens (or creates) `household.sqlite` in `dir`, bringing its schema up to date.
    /// A missing `dir` is created with mode 0700: it holds everyone's private notes (and
    /// on the tailnet the node's keys).
    pub fn open_in(dir: &Path) -> Result<Household> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| HouseholdError::Open {
                path: dir.to_owned(),
                why: format!("cannot create the state directory: {e}"),
            })?;
        schema::tighten(dir, 0o700);
        Household::open(&dir.join(FILE_NAME))
    }

    /// Opens (or creates) the database at `path`.
    pub fn open(path: &Path) -> Result<Household> {
        let writer = schema::open(path)?;
        let reader = schema::open_reader(path)?;
        Ok(Household {
            writer: Mutex::new(writer),
            reader: Mutex::new(reader),
            path: path.to_owned(),
            unsealed: AtomicBool::new(false),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection for reads. A panic while it was held leaves nothing half-done, so
    /// the lock is taken again even if poisoned.
    fn db(&self) -> MutexGuard<'_, Connection> {
        self.reader
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The connection that writes. A panic while it was held leaves no half-done
    /// transaction (SQLite rolls back an unfinished one when its `Transaction` is
    /// dropped), so the lock is taken again even if poisoned.
    fn writer(&self) -> MutexGuard<'_, Connection> {
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` in one transaction, committed only if it returns `Ok` and the household
    /// stays within its budget ([`budget::keep`]: a write that grows it past
    /// [`HOUSEHOLD_BYTES`] is refused, rolled back whole). The budget as it was before is
    /// read on the read connection, which sees the last commit: this transaction holds the
    /// write lock from its start, so no other commit comes between.
    ///
    /// A commit that fails on the disk (its WAL append or fsync) is refused, but SQLite
    /// may have appended its frames, commit frame included, to the WAL before the fsync
    /// failed: this process no longer counts them, yet the next start's recovery would
    /// replay them, bringing back a write the person was told was not saved. So a failed
    /// commit is sealed off at once ([`schema::seal`]: one more commit, written where the
    /// failed one began). Until a seal has committed, fsync and all, every write is refused
    /// (after an fsync error what reached the disk is unknown); the connection is kept,
    /// not reopened: SQLite drops its own cache after an I/O error, and a close would
    /// checkpoint and a reopen run recovery over the very frames to be kept out.
    fn write<T>(&self, f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut db = self.writer();
        if self.unsealed.load(Ordering::Relaxed) {
            schema::seal(&mut db)?;
            self.unsealed.store(false, Ordering::Relaxed);
            tracing::info!("the household database takes writes again");
        }
        let tx = db.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        budget::keep(&tx, || budget::bound(&self.db()))?;
        if let Err(failed) = tx.commit() {
            self.unsealed.store(true, Ordering::Relaxed);
            match schema::seal(&mut db) {
                Ok(()) => self.unsealed.store(false, Ordering::Relaxed),
                Err(e) => tracing::warn!(
                    error = %e,
                    "a failed household write could not be sealed off yet; writes are refused until it can"
                ),
            }
            return Err(failed.into());
        }
        Ok(value)
    }
}
