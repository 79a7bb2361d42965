//! `libations import-household ARCHIVE.zip`: a household archive (the backup file and its
//! photos, from `GET /api/household/download?photos=1`) merged into a state directory,
//! and the photo side of the household checks (`check --household`, `repair-household`).
//!
//! Why its own room: an archive touches two stores that must agree, the photo files and
//! the database's rows. The files come first, each checked and written durably through
//! the photo store (`libations_photos::archive::restore`); then every photo row must find
//! its files; then the rows merge in one transaction. A refusal at any step removes the
//! files this run wrote: a refused archive leaves no trace.

use crate::household::{BACKUP_BYTES, Backup, Household, Taken};
use crate::photos::PhotoStore;
use crate::photos::archive::{self, Restored};
use crate::photos::store::Variant;
use crate::recipes::Recipes;
use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

/// The first bytes of a zip (a local file header, or the end record of an empty one).
const ZIP_MAGIC: [&[u8; 4]; 2] = [b"PK\x03\x04", b"PK\x05\x06"];

/// Whether `file` is a zip, by its first bytes (never its name).
pub(super) fn is_zip(file: &Path) -> Result<bool, String> {
    let mut head = [0u8; 4];
    let mut f = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let n = f
        .read(&mut head)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(n == 4 && ZIP_MAGIC.iter().any(|m| **m == head))
}

/// Merges the archive `file` into the household in `dir` (see the module doc); `recipes`
/// name the recipes whose cover it changed. A state directory this run made is removed
/// again if the archive is refused: it holds only what the run made.
pub(super) fn archive(
    file: &Path,
    dir: &Path,
    highest: u64,
    recipes: &Recipes,
) -> Result<String, String> {
    let fresh = !dir.exists();
    let outcome = load(file, dir, highest, recipes);
    if outcome.is_err() && fresh {
        let _ = std::fs::remove_dir_all(dir);
    }
    outcome
}

fn load(file: &Path, dir: &Path, highest: u64, recipes: &Recipes) -> Result<String, String> {
    let name = file.display();
    let db = Household::open_in(dir).map_err(|e| e.to_string())?;
    let store = PhotoStore::open(&PhotoStore::dir_beside(db.path()))
        .map_err(|e| format!("the photo store: {e}"))?;
    let reader = std::fs::File::open(file).map_err(|e| format!("{name}: {e}"))?;
    let restored = archive::restore(std::io::BufReader::new(reader), &store, BACKUP_BYTES)
        .map_err(|e| format!("{name}: {e}; nothing was changed"))?;
    match merge(&db, &store, &restored, highest) {
        Ok((taken, rows)) => Ok(format!(
            "{}; {} photo file(s) written{}",
            said_taken(file, db.path(), &taken, recipes),
            restored.files_written(),
            unnamed(&restored, &rows)
        )),
        Err(why) => {
            let undone = match restored.undo() {
                Ok(()) => "nothing was changed".to_owned(),
                Err(e) => format!(
                    "no row was changed, but a photo file it wrote is left ({e}); the app's next start sweeps it"
                ),
            };
            Err(format!("{name}: {why}; {undone}"))
        }
    }
}

/// The archive's rows, once every photo row has its files, merged in one transaction;
/// and the hashes they name.
fn merge(
    db: &Household,
    store: &PhotoStore,
    restored: &Restored,
    highest: u64,
) -> Result<(Taken, HashSet<String>), String> {
    let backup =
        Backup::from_slice(&restored.json).map_err(|e| format!("{}: {e}", archive::JSON_NAME))?;
    for (i, row) in backup.photos.iter().enumerate() {
        if let Some(missing) = missing_file(store, &row.hash) {
            return Err(format!("photos[{i}]: {missing} is not in the archive"));
        }
    }
    let taken = db.import(&backup, highest).map_err(|e| e.to_string())?;
    Ok((taken, backup.photos.into_iter().map(|p| p.hash).collect()))
}

/// Removes the files the archive brought that no row of it names (nothing refers to
/// them); says how many, if any.
fn unnamed(restored: &Restored, rows: &HashSet<String>) -> String {
    let mut gone = 0;
    for path in restored.written() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let named = name
            .and_then(|n| PhotoStore::parse_name(&n))
            .is_some_and(|(hash, _)| rows.contains(&hash));
        if !named && std::fs::remove_file(path).is_ok() {
            gone += 1;
        }
    }
    match gone {
        0 => String::new(),
        n => format!(" ({n} that no photo row names removed again)"),
    }
}

/// The archive name of the first file of `hash` the store lacks, if any.
fn missing_file(store: &PhotoStore, hash: &str) -> Option<String> {
    [Variant::Large, Variant::Thumb].into_iter().find_map(|v| {
        let path = store.path(hash, v);
        let file = path.file_name()?.to_string_lossy().into_owned();
        (!path.is_file()).then(|| format!("{}{file}", archive::PHOTOS_DIR))
    })
}

/// What a merge took, as the command says it: each recipe whose cover the file changed
/// named (`recipes` give their names), so that no cover changes silently.
pub(super) fn said_taken(file: &Path, db: &Path, taken: &Taken, recipes: &Recipes) -> String {
    format!(
        "{}: merged into {}: {} people, {} shelf rows, {} favourites, {} ratings, {} notes, {} made, {} menus, {} strengths, {} shopping rows, {} rules, {} photos",
        file.display(),
        db.display(),
        taken.people,
        taken.shelf,
        taken.favourites,
        taken.ratings,
        taken.notes,
        taken.made,
        taken.menus,
        taken.strengths,
        taken.shopping,
        taken.rules,
        taken.photos
    ) + &match taken.photos_without_files {
        0 => String::new(),
        n => format!(
            "; {n} photo row(s) left out: their files are not in the photo store (the household archive, ?photos=1, brings them)"
        ),
    } + &covers_changed(&taken.covers_changed, recipes)
}

/// `; the cover of 2 recipe(s) changed, the file's chosen later: Negroni (1), recipe 9`.
fn covers_changed(ids: &[u64], recipes: &Recipes) -> String {
    if ids.is_empty() {
        return String::new();
    }
    let named: Vec<String> = ids
        .iter()
        .map(|&id| match recipes.get(id) {
            Some(recipe) => format!("{} ({id})", recipe.name),
            None => format!("recipe {id}"),
        })
        .collect();
    format!(
        "; the cover of {} recipe(s) changed, the file's chosen later: {}",
        ids.len(),
        named.join(", ")
    )
}

/// Each photo row of the database at `db` whose files are not in the photo store beside
/// it, one line each (`photo 3 of recipe 12 (by ann): photos/ab….jpg is missing`); a
/// deleted photo kept to be restored is said as such (`deleted photo 4 …`).
pub(super) fn missing_photos(db: &Path) -> Result<Vec<String>, String> {
    let read = |e: crate::household::HouseholdError| format!("{}: {e}", db.display());
    let live = crate::household::photos_in(db).map_err(read)?;
    let gone = crate::household::gone_photos_in(db).map_err(read)?;
    let store = PhotoStore::existing(&PhotoStore::dir_beside(db));
    let rows = live.iter().map(|p| ("photo", p));
    Ok(rows
        .chain(gone.iter().map(|p| ("deleted photo", p)))
        .filter_map(|(kind, p)| {
            let missing = missing_file(&store, &p.hash)?;
            Some(format!(
                "{kind} {} of recipe {} (by {}): {missing} is missing from {}",
                p.id,
                p.recipe,
                p.by,
                PhotoStore::dir_beside(db).display()
            ))
        })
        .collect())
}

/// After `repair-household` dropped rows: the files no row names any more, swept (those
/// written within the hour spared, as at start: an import may be between files and rows).
pub(super) fn sweep(db: &Household) -> Result<usize, String> {
    let store = PhotoStore::open(&PhotoStore::dir_beside(db.path()))
        .map_err(|e| format!("the photo store: {e}"))?;
    let keep = db.photo_hashes().map_err(|e| e.to_string())?;
    store
        .sweep(&keep)
        .map_err(|e| format!("the photo files could not be swept: {e}"))
}
