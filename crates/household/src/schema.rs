//! The database file: opening it the way every write relies on, its numbered migrations,
//! and `libations check`'s look at it.
//!
//! Pragmas: WAL (readers never wait for the writer; a commit is one append), and
//! `synchronous=FULL`, so that a commit returns only after the WAL is fsynced: an
//! acknowledged change survives `kill -9` and power loss. The page cache is kept small
//! (the data is small, and the process's RSS budget is tight).
//!
//! Migrations run in order, each in its own transaction with `user_version` set to its
//! number; a file from a newer Libations (a higher number than we know) is refused rather
//! than guessed at.

use super::{HouseholdError, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// Each migration, in order; migration N (from 1) brings `user_version` to N.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: the shelf and each person's own. A row's `at` is when the change it holds was
    // made (ms since 1970): the change made last wins. Rows that say "off" (`on = 0`,
    // `have = 0`, `stars IS NULL`, `text IS NULL`) are kept so that an older change that
    // arrives later cannot bring back what was taken away.
    "CREATE TABLE people (
        login TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        seen INTEGER NOT NULL
     ) STRICT;
     CREATE TABLE favourites (
        login TEXT NOT NULL, recipe INTEGER NOT NULL,
        on_ INTEGER NOT NULL CHECK (on_ IN (0, 1)), at INTEGER NOT NULL,
        PRIMARY KEY (login, recipe)
     ) STRICT, WITHOUT ROWID;
     CREATE TABLE ratings (
        login TEXT NOT NULL, recipe INTEGER NOT NULL,
        stars INTEGER CHECK (stars BETWEEN 1 AND 5), at INTEGER NOT NULL,
        PRIMARY KEY (login, recipe)
     ) STRICT, WITHOUT ROWID;
     CREATE INDEX ratings_by_recipe ON ratings (recipe);
     CREATE TABLE notes (
        login TEXT NOT NULL, recipe INTEGER NOT NULL,
        text TEXT, conflicts TEXT NOT NULL DEFAULT '[]', at INTEGER NOT NULL,
        PRIMARY KEY (login, recipe)
     ) STRICT, WITHOUT ROWID;
     CREATE TABLE replaced_notes (
        login TEXT NOT NULL, recipe INTEGER NOT NULL,
        text TEXT NOT NULL, at INTEGER NOT NULL, replaced INTEGER NOT NULL
     ) STRICT;
     CREATE TABLE made (
        login TEXT NOT NULL, recipe INTEGER NOT NULL, at INTEGER NOT NULL,
        PRIMARY KEY (login, recipe, at)
     ) STRICT, WITHOUT ROWID;
     CREATE TABLE shelf (
        name TEXT PRIMARY KEY,
        have INTEGER NOT NULL CHECK (have IN (0, 1)), at INTEGER NOT NULL, by TEXT NOT NULL
     ) STRICT, WITHOUT ROWID;",
    // 2: menus for guests (docs/MENU.md). At most one is on: the partial unique index
    // makes a second "on" a constraint error rather than a state the guest page must guess
    // from. A menu's recipes are kept in their order by `position`.
    "CREATE TABLE menus (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        can_make_now INTEGER NOT NULL CHECK (can_make_now IN (0, 1)),
        show_ingredients INTEGER NOT NULL CHECK (show_ingredients IN (0, 1)),
        on_ INTEGER NOT NULL DEFAULT 0 CHECK (on_ IN (0, 1)),
        at INTEGER NOT NULL, by TEXT NOT NULL
     ) STRICT;
     CREATE UNIQUE INDEX menus_one_on ON menus (on_) WHERE on_ = 1;
     CREATE TABLE menu_recipes (
        menu INTEGER NOT NULL, position INTEGER NOT NULL, recipe INTEGER NOT NULL,
        description TEXT,
        PRIMARY KEY (menu, position)
     ) STRICT, WITHOUT ROWID;",
    // 3: the household's own ingredient strengths ("our overproof rum is 63%"), by shelf
    // name: they win over the built-in table (src/strength). A row's `abv` NULL: taken
    // back, kept so that an older change arriving later cannot bring it back.
    "CREATE TABLE strengths (
        name TEXT PRIMARY KEY,
        abv REAL CHECK (abv BETWEEN 0 AND 100),
        at INTEGER NOT NULL, by TEXT NOT NULL
     ) STRICT, WITHOUT ROWID;",
    // 4: the household's shopping list, one row per folded name (`key`). `on_ = 0`: taken
    // off the list (removed, or cleared once bought), kept so that an older change arriving
    // later cannot bring it back; `at` and `by` are the row's last change (it wins),
    // `added_by` and `added_at` who put it on the list and when.
    "CREATE TABLE shopping (
        key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        on_ INTEGER NOT NULL CHECK (on_ IN (0, 1)),
        got INTEGER NOT NULL CHECK (got IN (0, 1)),
        added_by TEXT NOT NULL, added_at INTEGER NOT NULL,
        at INTEGER NOT NULL, by TEXT NOT NULL
     ) STRICT, WITHOUT ROWID;",
    // 5: the household's own rules, one row per (have, wanted), both vocabulary entry ids:
    // `have` may stand in for `wanted`. `on_ = 0`: taken back, kept so that an older change
    // arriving later cannot bring it back; `at` and `by` are the row's last change.
    "CREATE TABLE rules (
        have TEXT NOT NULL, wanted TEXT NOT NULL,
        on_ INTEGER NOT NULL CHECK (on_ IN (0, 1)),
        at INTEGER NOT NULL, by TEXT NOT NULL,
        PRIMARY KEY (have, wanted)
     ) STRICT, WITHOUT ROWID;",
    // 6: photos of recipes (issue #44): the files are `hash` in the photo store
    // (`libations-photos`), written before the row; `by` added it, at `at`; at most one
    // `cover` per recipe (the photo shown first).
    "CREATE TABLE photos (
        id INTEGER PRIMARY KEY,
        recipe INTEGER NOT NULL,
        hash TEXT NOT NULL,
        width INTEGER NOT NULL, height INTEGER NOT NULL,
        by TEXT NOT NULL, at INTEGER NOT NULL,
        cover INTEGER NOT NULL CHECK (cover IN (0, 1))
     ) STRICT;
     CREATE INDEX photos_by_recipe ON photos (recipe);
     CREATE UNIQUE INDEX one_cover ON photos (recipe) WHERE cover = 1;",
    // 7: whether a guests' menu shows each drink's cover photo (issue #44); off for the
    // menus kept before.
    "ALTER TABLE menus ADD COLUMN show_photos INTEGER NOT NULL DEFAULT 0
        CHECK (show_photos IN (0, 1));",
    // 8: deleted photos, restorable for a while (issue #44, "every change can be undone";
    // `photos_gone`): a photo's row moves here when it is deleted, its id kept, with when
    // (`gone_at`) and by whom (`gone_by`) it went; `cover`, whether it was the cover then.
    // Its files stay in the store while the row is here. Photo ids are given past both
    // tables' highest, so a restored photo's id is still its own. `photos_by_hash`: the
    // files' address is their hash, and serving one asks whether a row names it.
    "CREATE TABLE photos_gone (
        id INTEGER PRIMARY KEY,
        recipe INTEGER NOT NULL,
        hash TEXT NOT NULL,
        width INTEGER NOT NULL, height INTEGER NOT NULL,
        by TEXT NOT NULL, at INTEGER NOT NULL,
        cover INTEGER NOT NULL CHECK (cover IN (0, 1)),
        gone_at INTEGER NOT NULL, gone_by TEXT NOT NULL
     ) STRICT;
     CREATE INDEX photos_gone_by_recipe ON photos_gone (recipe);
     CREATE INDEX photos_gone_by_hash ON photos_gone (hash);
     CREATE INDEX photos_by_hash ON photos (hash);",
    // 9: when each cover was chosen (`cover_at`, ms since 1970; NULL on a photo that is
    // not the cover), so that merging a backup keeps the cover chosen last, not the photo
    // added last. A cover kept before gets its photo's own `at`, the best time known.
    "ALTER TABLE photos ADD COLUMN cover_at INTEGER CHECK (cover = 1 OR cover_at IS NULL);
     UPDATE photos SET cover_at = at WHERE cover = 1;",
];

/// The schema version this build writes.
pub(crate) const VERSION: i64 = MIGRATIONS.len() as i64;

/// Opens `path` (created with mode 0600 if absent), sets the pragmas and migrates.
pub(super) fn open(path: &Path) -> Result<Connection> {
    let err = |why: String| HouseholdError::Open {
        path: path.to_owned(),
        why,
    };
    create_private(path).map_err(|e| err(e.to_string()))?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut db = Connection::open_with_flags(path, flags).map_err(|e| err(e.to_string()))?;
    settings(&db).map_err(|e| err(e.to_string()))?;
    intact(&db).map_err(err)?;
    migrate(&mut db).map_err(|e| match e {
        HouseholdError::Db(e) | HouseholdError::Disk(e) => err(e.to_string()),
        other => other,
    })?;
    Ok(db)
}

/// Takes away what others may do with `path` (an existing file or directory) beyond
/// `mode`, saying so in the log: a database or state directory made by an older version,
/// by hand or by a restored archive may be readable by everyone, and it holds everyone's
/// private notes. A path that is absent, or whose mode cannot be changed (not ours), is
/// left to the open that follows, which names the problem.
pub(super) fn tighten(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    // A directory is tightened as one (0700), a file as one (0600); anything else (a
    // directory where the database should be, a link) is the open's to refuse.
    if meta.is_dir() != (mode & 0o100 != 0) || !(meta.is_dir() || meta.is_file()) {
        return;
    }
    let was = meta.permissions().mode() & 0o777;
    if was & !mode == 0 {
        return;
    }
    let now = was & mode;
    match std::fs::set_permissions(path, std::fs::Permissions::from_mode(now)) {
        Ok(()) => tracing::warn!(
            path = %path.display(),
            "{} was mode {was:o}, open to others; tightened to {now:o}",
            path.display()
        ),
        Err(e) => tracing::warn!(
            path = %path.display(),
            "{} is mode {was:o}, open to others, and could not be tightened: {e}",
            path.display()
        ),
    }
}

/// A read-only connection to the database [`open`] made ready: it reads in WAL mode
/// beside the writer, never waiting for it.
pub(super) fn open_reader(path: &Path) -> Result<Connection> {
    let err = |e: rusqlite::Error| HouseholdError::Open {
        path: path.to_owned(),
        why: e.to_string(),
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags).map_err(err)?;
    db.execute_batch(
        "PRAGMA cache_size = -256;
         PRAGMA busy_timeout = 5000;
         PRAGMA trusted_schema = OFF;
         PRAGMA query_only = ON;",
    )
    .map_err(err)?;
    Ok(db)
}

/// The file only its owner reads: it holds everyone's private notes. SQLite gives the
/// `-wal` and `-shm` files the database file's mode; files made earlier with a looser
/// mode are tightened ([`tighten`]).
fn create_private(path: &Path) -> std::io::Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        tighten(Path::new(&name), 0o600);
    }
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(file) => file.sync_all(),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// SQLite's quick check of every page (a few milliseconds for a household's database):
/// a truncated or damaged file is refused at the start, naming the damage, rather than
/// failing one request at a time later.
fn intact(db: &Connection) -> std::result::Result<(), String> {
    let damaged = |e: rusqlite::Error| format!("damaged: {e}");
    let mut stmt = db.prepare("PRAGMA quick_check").map_err(damaged)?;
    let found: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(damaged)?
        .collect::<rusqlite::Result<_>>()
        .map_err(damaged)?;
    match found.as_slice() {
        [ok] if ok == "ok" => Ok(()),
        problems => Err(format!("damaged: {}", problems.join("; "))),
    }
}

fn settings(db: &Connection) -> rusqlite::Result<()> {
    let mode: String = db.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "journal_mode is {mode}, not wal"
        )));
    }
    db.execute_batch(
        "PRAGMA synchronous = FULL;
         PRAGMA cache_size = -256;
         PRAGMA busy_timeout = 5000;
         PRAGMA trusted_schema = OFF;",
    )
}

/// The tables and indexes in `db` (name and the statement that made it), in name order.
fn objects(db: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = db.prepare(
        "SELECT name, coalesce(sql, '') FROM sqlite_master
         WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// Whether `db` holds exactly the tables and indexes migrations 1 to `version` make, and
/// if not, what differs: a file with our `user_version` but another schema (a hand-made
/// one, another app's) is not ours to write into.
pub(super) fn verify(db: &Connection, version: i64) -> std::result::Result<(), String> {
    let read = |e: rusqlite::Error| format!("its schema cannot be read: {e}");
    let expected = Connection::open_in_memory().map_err(read)?;
    for sql in MIGRATIONS
        .iter()
        .take(usize::try_from(version).unwrap_or(0))
    {
        expected.execute_batch(sql).map_err(read)?;
    }
    let (want, have) = (
        objects(&expected).map_err(read)?,
        objects(db).map_err(read)?,
    );
    let mut problems = Vec::new();
    for (name, sql) in &want {
        match have.iter().find(|(n, _)| n == name) {
            None => problems.push(format!("{name} is missing")),
            Some((_, other)) if other != sql => problems.push(format!("{name} is not as made")),
            Some(_) => {}
        }
    }
    for (name, _) in &have {
        if !want.iter().any(|(n, _)| n == name) {
            problems.push(format!("{name} is not ours"));
        }
    }
    match (problems.is_empty(), version) {
        (true, _) => Ok(()),
        (false, 0) => Err(format!(
            "not a household database: it holds tables of another kind ({})",
            problems.join(", ")
        )),
        (false, _) => Err(format!(
            "schema version {version}, but not the schema it names: {}",
            problems.join(", ")
        )),
    }
}

fn migrate(db: &mut Connection) -> Result<()> {
    let at: i64 = db.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if at > VERSION {
        return Err(HouseholdError::Open {
            path: db.path().unwrap_or_default().into(),
            why: format!(
                "schema version {at} was written by a newer Libations (this one knows up to {VERSION}); nothing was changed"
            ),
        });
    }
    verify(db, at).map_err(|why| HouseholdError::Open {
        path: db.path().unwrap_or_default().into(),
        why: format!("{why}; nothing was changed"),
    })?;
    for (n, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(at).unwrap_or(0))
    {
        let tx = db.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", n as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

/// Seals off whatever a failed commit left at the end of the WAL.
///
/// Recovery (at the next open after a crash) replays the WAL's frames from its start for
/// as long as each frame carries the header's salt and a checksum that chains from the
/// frame before, up to the last frame that marks a commit. A commit whose fsync failed
/// has its frames, commit frame included, in the file already (`pwrite`, then `fsync`)
/// though SQLite counts them no more: on their own they would be replayed. This commit is
/// appended where the failed one began (SQLite writes after the last frame it counts),
/// so its commit frame chains from the last good one and every frame after it fails the
/// chain: recovery stops there. It must write a frame, and change nothing of ours:
/// setting `user_version` to what it is rewrites the database header's page, unchanged
/// but for SQLite's change counter. Once it has committed (fsynced), the failed frames
/// are cut off on the disk too; if only its `pwrite` worked, they are cut off in the
/// page cache, which is what a restart after a crash of this process reads. A failed
/// `pwrite` leaves no commit frame behind and needs nothing, but sealing does no harm.
pub(super) fn seal(db: &mut Connection) -> rusqlite::Result<()> {
    let tx = db.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    tx.pragma_update(None, "user_version", version)?;
    tx.commit()
}

/// `libations check --household FILE`: SQLite's integrity check, the schema version and
/// the schema itself, and (given `highest`, the highest recipe id the collection ever had)
/// rows for recipe ids it never had; read without changing anything (the file is opened
/// read-only, never migrated).
pub fn check_file(path: &Path, highest: Option<u64>) -> std::result::Result<String, String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db =
        Connection::open_with_flags(path, flags).map_err(|e| format!("{}: {e}", path.display()))?;
    let failed =
        |e: rusqlite::Error| format!("{}: not a database this app can read: {e}", path.display());
    let version: i64 = db
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(failed)?;
    let mut problems = Vec::new();
    let mut stmt = db.prepare("PRAGMA integrity_check").map_err(failed)?;
    let rows = stmt
        .query_map([], |row| row.get::<_, String>(0))
        .map_err(failed)?;
    for row in rows {
        let line = row.map_err(failed)?;
        if line != "ok" {
            problems.push(line);
        }
    }
    if !problems.is_empty() {
        return Err(format!(
            "{}: the integrity check found {} problem(s):\n  {}",
            path.display(),
            problems.len(),
            problems.join("\n  ")
        ));
    }
    match version {
        0 => Err(format!(
            "{}: not a household database (schema version 0: no tables of ours)",
            path.display()
        )),
        v if v > VERSION => Err(format!(
            "{}: schema version {v} is newer than this Libations knows ({VERSION})",
            path.display()
        )),
        v => {
            verify(&db, v).map_err(|why| format!("{}: {why}", path.display()))?;
            if let Some(highest) = highest {
                strays_named(&db, path, highest)?;
            }
            let count = |table: &str| -> i64 {
                db.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
                    row.get(0)
                })
                .unwrap_or(0)
            };
            Ok(format!(
                "{}: OK, schema version {v}{}, {} people, {} ingredients on the shelf, {} on the shopping list",
                path.display(),
                if v < VERSION {
                    " (migrated to the latest when the app next opens it)"
                } else {
                    ""
                },
                count("people"),
                count("shelf WHERE have = 1"),
                if v >= 4 {
                    count("shopping WHERE on_ = 1")
                } else {
                    0
                },
            ))
        }
    }
}

/// Fails naming every row for a recipe id the collection never had, and how to drop them.
fn strays_named(db: &Connection, path: &Path, highest: u64) -> std::result::Result<(), String> {
    let strays = super::strays::find(db, highest)
        .map_err(|e| format!("{}: its rows cannot be read: {e}", path.display()))?;
    if strays.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = strays.iter().map(ToString::to_string).collect();
    Err(format!(
        "{}: {} row(s) for recipe ids the collection never had (it had 1 to {highest}); `libations repair-household` drops them:\n  {}",
        path.display(),
        strays.len(),
        list.join("\n  ")
    ))
}
