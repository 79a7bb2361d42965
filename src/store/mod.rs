//! Changing the collection: add, edit, delete and undo, without ever losing a recipe.
//!
//! The recipes file stays the source of truth, in the same schema and still editable by
//! hand. Every change
//! 1. reads the file as it is now (so a hand edit made while the app runs is seen),
//! 2. checks the recipe's version against the one the editor started from (a stale one is
//!    a [`StoreError::Conflict`] carrying both versions, never a silent overwrite),
//! 3. validates the new recipe with the loader's own rules plus the size caps in [`caps`],
//! 4. appends the change to the [journal](journal) and syncs it, then
//! 5. replaces the file atomically ([`durable::replace`]).
//!
//! Only then is the change acknowledged. A crash between 4 and 5 leaves a journal line the
//! file does not reflect; [`Store::open`] drops it. Ids come from the highest id the file
//! or the journal has ever seen, so a deleted recipe's id is never given to another (a
//! favourite on a phone never points at a different drink).
//!
//! A step that fails leaves no trace: a failed file write takes its journal line back, and
//! a file renamed into place whose directory could not be synced is put back as it was.
//! When the cleanup itself fails, the store does not carry on as if it had worked: every
//! change first repairs the journal from what is on disk (as [`Store::open`] does), and is
//! refused with [`StoreError::Paused`] until that succeeds. The same repair runs when the
//! journal was deleted, replaced or changed in length under us ([`Journal::check`]).
//!
//! Changes are serialised by one lock; each runs on a blocking thread (the web layer calls
//! it through `spawn_blocking`).

pub mod caps;
mod document;
mod durable;
pub mod journal;
mod repair;

pub use document::version;
pub use journal::{Action, Entry, JournalError, Mark};

use crate::recipes::{LoadError, Origin, Recipe, Recipes, Stamp};
use document::{Document, Object, key_like};
use journal::Journal;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// One problem with a submitted recipe, named by its field path (`name`,
/// `ingredients[2].unit`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

/// Two versions of one recipe that disagree: what the store has now and what the editor
/// wanted it to become. Either may be absent (deleted, or a delete was asked for).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conflict {
    pub id: u64,
    /// The version the editor started from.
    pub expected: String,
    /// The recipe as it is now, and its version.
    pub current: Option<Recipe>,
    pub current_version: Option<String>,
    /// What the editor asked for.
    pub yours: Option<Value>,
}

/// Why a change was not made. Nothing was written in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "{path} cannot be written ({source}), so editing is off; make it writable, or point --recipes-file at a writable copy (the NixOS module does this with editing.enable)"
    )]
    NotWritable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is being edited by another process ({source}), so editing is off here; stop the other one or give this one its own file"
    )]
    Locked {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the recipes file no longer loads, so it cannot be changed until it is fixed: {0}")]
    FileInvalid(#[source] LoadError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A cleanup after a failed write did not work either, and the repair that must come
    /// before the next change cannot be made yet (the disk still fails).
    #[error("saving is paused until the change history can be repaired: {0}")]
    Paused(String),
    #[error("there is no recipe with id {0}")]
    NoRecipe(u64),
    #[error("change {0} is not in the journal (it may be older than the journal keeps)")]
    NoChange(u64),
    #[error("recipe {} changed since it was opened", .0.id)]
    Conflict(Box<Conflict>),
    #[error("the recipe has {} problem(s)", .0.len())]
    Invalid(Vec<FieldError>),
}

/// A change to make.
#[derive(Debug, Clone)]
pub enum Edit {
    /// A new recipe from its fields (without an id; one is given).
    Create(Value),
    /// Replaces recipe `id`, which must still be at version `expected`.
    Update {
        id: u64,
        expected: String,
        draft: Value,
    },
    /// Removes recipe `id`, which must still be at version `expected`.
    Delete { id: u64, expected: String },
    /// Undoes change `n` from the journal, if its recipe is still as that change left it.
    Undo(u64),
}

/// What a change left behind.
#[derive(Debug)]
pub struct Saved {
    /// The whole collection after the change, validated, to serve from now on.
    pub recipes: Recipes,
    /// The change as journaled; `None` when the edit changed nothing.
    pub entry: Option<Entry>,
    /// The stamp of the file this change wrote (`None` when nothing was written), for the
    /// reloader to know it has seen it.
    pub stamp: Option<Stamp>,
}

/// The recipes file and its journal, open for changes.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    max_bytes: u64,
    state: Mutex<State>,
}

/// What the lock guards: the journal, and the file as this store last wrote it.
#[derive(Debug)]
struct State {
    journal: Journal,
    /// The collection as our last write left it, with the hash of the bytes written: the
    /// next change starts from it without parsing thousands of recipes again, as long as
    /// the file on disk still holds exactly those bytes (any hand edit changes them; a
    /// size and time check alone could miss one made within a timestamp tick).
    written: Option<Written>,
    /// Why the files on disk may not be what memory says (a cleanup that failed): the
    /// next change repairs first.
    suspect: Option<Suspect>,
    /// The highest id this process has handed to a change, failed ones included: an id
    /// that may have been seen is never given to another recipe.
    floor_id: u64,
    /// Held for as long as the store is open: a second process editing the same file
    /// would interleave journal numbers and ids.
    _lock: std::fs::File,
}

/// A failed change whose traces could not all be removed yet.
#[derive(Debug)]
struct Suspect {
    why: String,
    /// The file a failed change replaced but could not put back: its text before the
    /// change, and the hash of what the change wrote. The repair puts it back, unless the
    /// file has been changed by hand meanwhile.
    put_back: Option<(String, String)>,
}

#[derive(Debug)]
struct Written {
    hash: String,
    recipes: Recipes,
    doc: Document,
}

/// The hex SHA-256 of a file's bytes, as journal entries record it.
fn file_hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Store {
    /// Opens the file at `path` for editing: it must be writable in place (not a Nix store
    /// path or a systemd credential), and its journal readable. Drops a journal line that
    /// a crash left unapplied.
    pub fn open(path: &Path, max_bytes: u64) -> Result<Store, StoreError> {
        let not_writable = |source| StoreError::NotWritable {
            path: path.to_owned(),
            source,
        };
        // A link is followed: edits go to the file it names, and replacing the file
        // replaces that file, not the link.
        let path = &std::fs::canonicalize(path).map_err(not_writable)?;
        durable::check_writable(path).map_err(not_writable)?;
        let journal_path = Journal::path_for(path);
        let lock = durable::lock_beside(&journal_path).map_err(|source| StoreError::Locked {
            path: path.to_owned(),
            source,
        })?;
        let (_, doc, hash) = read(path, max_bytes)?;
        let journal = open_journal(journal_path, &doc, &hash)?;
        Ok(Store {
            path: path.to_owned(),
            max_bytes,
            state: Mutex::new(State {
                journal,
                written: None,
                suspect: None,
                floor_id: 0,
                _lock: lock,
            }),
        })
    }

    /// The latest restart of the history (set aside, or written again), for the history
    /// page to say so.
    pub fn history_restarted(&self) -> Option<Mark> {
        self.lock().journal.mark().cloned()
    }

    /// The file being edited.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The journaled changes, newest first.
    pub fn changes(&self) -> Vec<Entry> {
        self.lock()
            .journal
            .entries()
            .iter()
            .rev()
            .cloned()
            .collect()
    }

    /// One journaled change.
    pub fn change(&self, n: u64) -> Option<Entry> {
        self.lock().journal.get(n).cloned()
    }

    /// Makes a change on behalf of `who`; see the module docs for the steps.
    pub fn apply(&self, edit: Edit, who: &str) -> Result<Saved, StoreError> {
        let mut state = self.lock();
        self.ready(&mut state)?;
        let (recipes, mut doc, file_before, old_text) = self.current(state.written.take())?;
        let floor_id = state.floor_id;
        let journal = &mut state.journal;
        let planned = plan(
            &edit,
            &recipes,
            &doc,
            journal,
            journal.max_id().max(floor_id),
        )?;
        let fields = changed_fields(planned.before.as_ref(), planned.after.as_ref());
        if fields.is_empty() && planned.before.is_some() && planned.after.is_some() {
            return Ok(Saved {
                recipes,
                entry: None,
                stamp: None,
            });
        }
        match &planned.after {
            Some(object) => doc.put(object.clone()),
            None => {
                doc.remove(planned.id);
            }
        }
        let bytes = doc.to_pretty();
        let now = SystemTime::now();
        let recipes = match (&planned.before, &planned.recipe) {
            // A new or replaced recipe the store validated, or a delete: the collection
            // changes by one recipe.
            (_, Some(recipe)) => recipes.changed(Some(recipe.id), Some(recipe.clone()), now),
            (Some(_), None) if planned.after.is_none() => {
                recipes.changed(Some(planned.id), None, now)
            }
            // An undo puts back a recipe as the file had it: load the whole file as written.
            _ => self.validate_whole(&bytes)?,
        };
        let entry = Entry {
            n: journal.next_n(),
            at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            who: who.to_owned(),
            action: match (&planned.before, &planned.after) {
                (None, _) => Action::Created,
                (_, None) => Action::Deleted,
                _ => Action::Changed,
            },
            id: planned.id,
            name: name_of(planned.after.as_ref().or(planned.before.as_ref())),
            fields,
            undoes: planned.undoes,
            max_id: journal
                .max_id()
                .max(doc.max_id())
                .max(planned.id)
                .max(floor_id),
            file_before: Some(file_before),
            before: planned.before,
            after: planned.after,
        };
        state.floor_id = state.floor_id.max(entry.max_id);
        if let Err(e) = state.journal.append(entry.clone()) {
            if !matches!(e, JournalError::Write { .. }) {
                state.suspect = Some(Suspect {
                    why: e.to_string(),
                    put_back: None,
                });
            }
            return Err(e.into());
        }
        let written = match durable::replace(&self.path, &bytes) {
            Ok(meta) => meta,
            Err(e) => return Err(self.unmake(&mut state, e, old_text, file_hash(&bytes))),
        };
        state.written = Some(Written {
            hash: file_hash(&bytes),
            recipes: recipes.clone(),
            doc,
        });
        Ok(Saved {
            recipes,
            entry: Some(entry),
            stamp: Some(Stamp::from(&written)),
        })
    }

    /// After a failed file write: puts the file back if it was replaced, and takes the
    /// change's journal line back, so that nothing of the change is left. What cannot be
    /// undone makes the store suspect, and the next change repairs first.
    fn unmake(
        &self,
        state: &mut State,
        failed: durable::ReplaceError,
        old: String,
        new_hash: String,
    ) -> StoreError {
        let put_back = match &failed {
            durable::ReplaceError::Untouched(_) => Ok(()),
            durable::ReplaceError::Unsynced(_) => durable::replace(&self.path, old.as_bytes())
                .map(drop)
                .map_err(|e| (e.into_io(), old, new_hash)),
        };
        let source = failed.into_io();
        let cleaned = match put_back {
            Ok(()) => state.journal.take_back().map_err(|e| Suspect {
                why: e.to_string(),
                put_back: None,
            }),
            Err((e, old, new_hash)) => Err({
                state.journal.forget_last();
                Suspect {
                    why: format!(
                        "{} was replaced but not synced, and putting the old file back failed: {e}",
                        self.path.display()
                    ),
                    put_back: Some((old, new_hash)),
                }
            }),
        };
        if let Err(suspect) = cleaned {
            tracing::error!(error = %suspect.why, "a failed save could not be cleaned up; the next change repairs first");
            state.suspect = Some(suspect);
        }
        StoreError::Write {
            path: self.path.clone(),
            source,
        }
    }

    /// Before a change: the file may still be written, and the journal is what this
    /// process last left (else it is repaired first, or the change refused).
    fn ready(&self, state: &mut State) -> Result<(), StoreError> {
        if let Ok(meta) = std::fs::metadata(&self.path)
            && meta.permissions().readonly()
        {
            return Err(StoreError::NotWritable {
                path: self.path.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    "the file was made read-only",
                ),
            });
        }
        let drift = state.journal.check();
        if state.suspect.is_none() && drift.is_ok() {
            return Ok(());
        }
        let why = match (&state.suspect, &drift) {
            (Some(suspect), _) => suspect.why.clone(),
            (None, Err(e)) => e.to_string(),
            (None, Ok(())) => String::new(),
        };
        tracing::warn!(reason = %why, "repairing the change journal before the next change");
        match self.repair(state, &drift) {
            Ok(()) => {
                state.suspect = None;
                Ok(())
            }
            Err(e) => {
                let reason = format!("{why}; repairing it failed: {e}");
                let put_back = state.suspect.take().and_then(|s| s.put_back);
                state.suspect = Some(Suspect {
                    why: reason.clone(),
                    put_back,
                });
                Err(StoreError::Paused(reason))
            }
        }
    }

    /// Makes the journal agree with the disk again: written again from memory if it was
    /// deleted, else read again as [`Store::open`] reads it, keeping every number this
    /// process gave out.
    fn repair(
        &self,
        state: &mut State,
        drift: &Result<(), JournalError>,
    ) -> Result<(), StoreError> {
        state.written = None;
        if let Some((old, new_hash)) = state.suspect.as_ref().and_then(|s| s.put_back.as_ref()) {
            let (text, _) = crate::recipes::read_at_most(&self.path, self.max_bytes)
                .map_err(StoreError::FileInvalid)?;
            // Only what the failed change wrote is taken back, never a hand edit.
            if file_hash(text.as_bytes()) == *new_hash {
                durable::replace(&self.path, old.as_bytes()).map_err(|e| StoreError::Write {
                    path: self.path.clone(),
                    source: e.into_io(),
                })?;
            }
            if let Some(s) = state.suspect.as_mut() {
                s.put_back = None;
            }
        }
        let deleted = matches!(drift, Err(JournalError::Changed { what, .. }) if what == "deleted");
        if deleted && !state.journal.path().exists() {
            state.journal.restore(
                "The change history file was deleted while the app ran; it was written again from the app's memory.",
            )?;
            return Ok(());
        }
        let (_, doc, hash) = read(&self.path, self.max_bytes)?;
        let (max_id, next_n) = (state.journal.max_id(), state.journal.next_n());
        let mut journal = open_journal(state.journal.path().to_owned(), &doc, &hash)?;
        if journal.max_id() < max_id || journal.next_n() < next_n {
            journal.raise_floor(max_id, next_n - 1);
            journal.restore(
                "The change history file was replaced or cut while the app ran; the app kept counting from where it was.",
            )?;
        }
        state.journal = journal;
        Ok(())
    }

    /// The whole file as it is on disk now (for `/api/recipes/download`).
    pub fn download(&self) -> Result<Vec<u8>, StoreError> {
        let _journal = self.lock();
        std::fs::read(&self.path).map_err(|source| {
            StoreError::FileInvalid(LoadError::Read {
                path: self.path.clone(),
                source,
            })
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock left the journal as it was on disk before the
        // failed change (appends happen last), and took the written state out, so what
        // is left is still good to use.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The collection as the file holds it now, and the hash of its bytes: what the last
    /// write left when the bytes are still those, else read and validated afresh.
    fn current(
        &self,
        written: Option<Written>,
    ) -> Result<(Recipes, Document, String, String), StoreError> {
        let (text, updated) = crate::recipes::read_at_most(&self.path, self.max_bytes)
            .map_err(StoreError::FileInvalid)?;
        let hash = file_hash(text.as_bytes());
        match written {
            Some(w) if w.hash == hash => Ok((w.recipes, w.doc, hash, text)),
            _ => parse(&self.path, &text, updated).map(|(r, d)| (r, d, hash, text)),
        }
    }

    /// Runs the loader over the file about to be written: what the app writes must load.
    fn validate_whole(&self, bytes: &[u8]) -> Result<Recipes, StoreError> {
        let text = String::from_utf8_lossy(bytes);
        Recipes::parse(&text, Origin::File(self.path.clone()), SystemTime::now()).map_err(|e| {
            StoreError::Invalid(vec![FieldError {
                field: String::new(),
                message: e.to_string(),
            }])
        })
    }
}

/// Creates the recipes file at `path` from `text`, which must load: the first start of an
/// editable collection. The file is written like every other change (temporary file,
/// sync, rename, sync of the directory).
pub fn seed(path: &Path, text: &str) -> Result<(), StoreError> {
    Recipes::parse(text, Origin::File(path.to_owned()), SystemTime::now())
        .map_err(StoreError::FileInvalid)?;
    durable::replace(path, text.as_bytes())
        .map(drop)
        .map_err(|e| StoreError::Write {
            path: path.to_owned(),
            source: e.into_io(),
        })
}

/// Opens the journal, repaired, and drops its last change if the recipes file (whose
/// objects and hash are given) never got it; logs what was done.
fn open_journal(path: PathBuf, doc: &Document, hash: &str) -> Result<Journal, StoreError> {
    let (mut journal, opened) = Journal::open(path)?;
    for note in &opened.notes {
        tracing::warn!(journal = %journal.path().display(), "{note}");
    }
    if let Some(last) = journal.last()
        && unapplied(last, doc, hash)
    {
        tracing::warn!(
            change = last.n,
            "dropping the last journaled change: the recipes file never got it (a crash or a failed write came first), so it was never made"
        );
        journal.take_back()?;
    }
    Ok(journal)
}

/// The file as it is now: validated, and as written.
fn read(path: &Path, max_bytes: u64) -> Result<(Recipes, Document, String), StoreError> {
    let (text, updated) =
        crate::recipes::read_at_most(path, max_bytes).map_err(StoreError::FileInvalid)?;
    let (recipes, doc) = parse(path, &text, updated)?;
    Ok((recipes, doc, file_hash(text.as_bytes())))
}

/// `text`, the file at `path`, validated and as written.
fn parse(path: &Path, text: &str, updated: SystemTime) -> Result<(Recipes, Document), StoreError> {
    let origin = Origin::File(path.to_owned());
    let recipes = Recipes::parse(text, origin.clone(), updated).map_err(StoreError::FileInvalid)?;
    let doc = Document::parse(text).map_err(|e| {
        StoreError::FileInvalid(LoadError::Syntax {
            origin,
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
    })?;
    Ok((recipes, doc))
}

/// Whether the journal's last change never reached the file: a crash came between its
/// line and the file's replacement. Then the file still holds the very bytes the change
/// started from. (Comparing only the recipe would take a recipe created and later
/// removed by hand for a change never made, and give its id out again.)
fn unapplied(last: &Entry, doc: &Document, hash: &str) -> bool {
    match &last.file_before {
        Some(before) => before == hash,
        // Written before entries carried the hash: the recipe tells.
        None => doc.get(last.id) != last.after.as_ref() && doc.get(last.id) == last.before.as_ref(),
    }
}

/// What a change will do to one recipe.
struct Planned {
    id: u64,
    before: Option<Object>,
    after: Option<Object>,
    /// `after` as the validated recipe, when the store checked it itself.
    recipe: Option<Recipe>,
    undoes: Option<u64>,
}

fn plan(
    edit: &Edit,
    recipes: &Recipes,
    doc: &Document,
    journal: &Journal,
    max_id: u64,
) -> Result<Planned, StoreError> {
    let planned = |id, after: Option<(Object, Recipe)>, undoes| {
        let (after, recipe) = after.map_or((None, None), |(o, r)| (Some(o), Some(r)));
        Planned {
            id,
            before: doc.get(id).cloned(),
            after,
            recipe,
            undoes,
        }
    };
    match edit {
        Edit::Create(draft) => {
            let id = max_id.max(doc.max_id()) + 1;
            let after = caps::checked(draft, id, None)?;
            Ok(planned(id, Some(after), None))
        }
        Edit::Update {
            id,
            expected,
            draft,
        } => {
            current_at(recipes, *id, expected, Some(draft))?;
            let after = caps::checked(draft, *id, doc.get(*id))?;
            Ok(planned(*id, Some(after), None))
        }
        Edit::Delete { id, expected } => {
            current_at(recipes, *id, expected, None)?;
            Ok(planned(*id, None, None))
        }
        Edit::Undo(n) => {
            let entry = journal.get(*n).ok_or(StoreError::NoChange(*n))?;
            if doc.get(entry.id) != entry.after.as_ref() {
                let current = recipes.get(entry.id).cloned();
                return Err(StoreError::Conflict(Box::new(Conflict {
                    id: entry.id,
                    expected: String::new(),
                    current_version: current.as_ref().map(version),
                    current,
                    yours: entry.before.clone().map(Value::Object),
                })));
            }
            let mut undo = planned(entry.id, None, Some(*n));
            undo.after = entry.before.clone();
            Ok(undo)
        }
    }
}

/// Checks that recipe `id` exists and is still at version `expected`.
fn current_at(
    recipes: &Recipes,
    id: u64,
    expected: &str,
    yours: Option<&Value>,
) -> Result<(), StoreError> {
    let Some(current) = recipes.get(id) else {
        // Deleted while someone edited it: a conflict they can resolve (save theirs as a
        // new recipe), not a "not found" that loses what they typed.
        return Err(match yours {
            Some(yours) if !expected.is_empty() => StoreError::Conflict(Box::new(Conflict {
                id,
                expected: expected.to_owned(),
                current: None,
                current_version: None,
                yours: Some(yours.clone()),
            })),
            _ => StoreError::NoRecipe(id),
        });
    };
    let now = version(current);
    if now == expected.trim_matches('"') {
        return Ok(());
    }
    Err(StoreError::Conflict(Box::new(Conflict {
        id,
        expected: expected.to_owned(),
        current: Some(current.clone()),
        current_version: Some(now),
        yours: yours.cloned(),
    })))
}

fn name_of(object: Option<&Object>) -> String {
    object
        .and_then(|o| key_like(o, "name"))
        .and_then(|(_, v)| v.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The schema fields whose values differ between two versions of a recipe. A missing key,
/// `null`, `[]` and `""` are all "empty", as the loader reads them.
fn changed_fields(before: Option<&Object>, after: Option<&Object>) -> Vec<String> {
    let value = |o: Option<&Object>, f: &str| match o.and_then(|o| key_like(o, f)).map(|(_, v)| v) {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if a.is_empty() => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(v) => Some(v.clone()),
    };
    crate::recipes::RECIPE_FIELDS
        .iter()
        .filter(|f| **f != "id" && value(before, f) != value(after, f))
        .map(|f| (*f).to_owned())
        .collect()
}

#[cfg(test)]
mod tests;
