//! Changing the collection: add, edit, delete and undo, without ever losing a recipe.
//!
//! The recipes file stays the source of truth, in the same schema and still editable by
//! hand. Every change
//! 1. reads the file as it is now (so a hand edit made while the app runs is seen),
//! 2. checks the recipe's version against the one the editor started from (a stale one is
//!    a [`StoreError::Conflict`] carrying both versions, never a silent overwrite),
//! 3. gives the new recipe ([`Submitted`]: already checked by the loader's rules and the
//!    caps where it arrived, so an invalid one is refused before its version is looked
//!    at) its id, keeping the keys the file had for it that we do not know ([`caps`]),
//! 4. appends the change to the [journal](journal) and syncs it, then
//! 5. replaces the file atomically ([`durable::replace`]).
//!
//! A change may make several recipes at once ([`Edit::CreateMany`]): it is still one
//! journal line ([`Entry::more`]), one file write and one undo.
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
//!
//! Crate `libations-store`: it may use libations-model (the `use`s below name the rooms).

// The rooms of other crates this one uses, under the names the code knows them by.
use libations_model::{digest, recipes, text};

pub mod caps;
mod document;
mod durable;
pub mod journal;
mod names;
#[cfg(test)]
mod names_tests;
mod plan;
mod record;
mod recover;
mod repair;

pub use crate::recipes::FieldError;
pub use document::version;
pub use journal::{Action, Entry, JournalError, Mark, Part};
pub use names::{Duplicate, Names};

use crate::recipes::{LoadError, Origin, Recipe, Recipes, Stamp, Submitted};
use document::Document;
use journal::Journal;
use plan::{changed_fields, name_of, plan};
use recover::{Suspect, open_journal};
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

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
    pub yours: Option<Submitted>,
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
    /// A failed write could be neither taken back nor written down as refused: the
    /// recipes file may still hold the change after a restart. The editor is told so.
    #[error("cannot write {path}, and the change could not be taken back: {source}")]
    Unconfirmed {
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
    /// The change would give a recipe a name the collection already has, and the editor
    /// did not say they want another ([`Names::Unique`]).
    #[error("a recipe of that name is already in the collection")]
    Duplicate(Vec<Duplicate>),
}

/// A change to make.
#[derive(Debug, Clone)]
pub enum Edit {
    /// A new recipe (it is given an id).
    Create(Submitted),
    /// Replaces recipe `id`, which must still be at version `expected`.
    Update {
        id: u64,
        expected: String,
        draft: Submitted,
    },
    /// Removes recipe `id`, which must still be at version `expected`.
    Delete { id: u64, expected: String },
    /// New recipes, all in one change (one journal line, one undo): an import. Each
    /// problem is named `recipes[i].field`; one bad recipe refuses them all.
    CreateMany(Vec<Submitted>),
    /// Undoes change `n` from the journal, if its recipes are still as that change left
    /// them.
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

#[derive(Debug)]
struct Written {
    hash: String,
    recipes: Recipes,
    doc: Document,
}

/// The hex SHA-256 of a file's bytes, as journal entries record it.
fn file_hash(bytes: &[u8]) -> String {
    crate::digest::full_hash(bytes)
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
        let journal = open_journal(journal_path, path, doc, hash)?;
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
        self.lock()
            .journal
            .mark()
            .filter(|m| m.restarted.is_some())
            .cloned()
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
        self.apply_as(edit, who, Names::MayRepeat)
    }

    /// [`Store::apply`], refusing a new name another recipe has when `names` says so.
    pub fn apply_as(&self, edit: Edit, who: &str, names: Names) -> Result<Saved, StoreError> {
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
        if names == Names::Unique {
            let several = matches!(edit, Edit::CreateMany(_));
            let found = names::duplicates(&planned, &recipes, several);
            if !found.is_empty() {
                return Err(StoreError::Duplicate(found));
            }
        }
        let first = &planned[0];
        let fields = changed_fields(first.before.as_ref(), first.after.as_ref());
        if planned.len() == 1
            && fields.is_empty()
            && first.before.is_some()
            && first.after.is_some()
        {
            return Ok(Saved {
                recipes,
                entry: None,
                stamp: None,
            });
        }
        for p in &planned {
            match &p.after {
                Some(object) => doc.put(object.clone()),
                None => drop(doc.remove(p.id)),
            }
        }
        let bytes = doc.to_pretty();
        if bytes.len() as u64 > self.max_bytes {
            return Err(StoreError::Invalid(vec![FieldError {
                field: String::new(),
                message: format!(
                    "the recipes file would be {} bytes, over the {} allowed (--max-recipes-bytes)",
                    bytes.len(),
                    self.max_bytes
                ),
            }]));
        }
        let now = SystemTime::now();
        let recipes = match (&first.before, &first.recipe) {
            // Several recipes at once: load the whole file as written.
            _ if planned.len() > 1 => self.validate_whole(&bytes)?,
            // A new or replaced recipe the store validated, or a delete: the collection
            // changes by one recipe.
            (_, Some(recipe)) => recipes.changed(Some(recipe.id), Some(recipe.clone()), now),
            (Some(_), None) if first.after.is_none() => recipes.changed(Some(first.id), None, now),
            // An undo puts back a recipe as the file had it: load the whole file as written.
            _ => self.validate_whole(&bytes)?,
        };
        let mut planned = planned.into_iter();
        let Some(first) = planned.next() else {
            return Err(StoreError::Paused("a change of no recipe".into()));
        };
        let more: Vec<Part> = planned
            .map(|p| Part {
                id: p.id,
                name: name_of(p.after.as_ref().or(p.before.as_ref())),
                before: p.before,
                after: p.after,
            })
            .collect();
        let name = name_of(first.after.as_ref().or(first.before.as_ref()));
        let entry = Entry {
            n: journal.next_n(),
            at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            who: who.to_owned(),
            action: match (&first.before, &first.after) {
                (None, _) => Action::Created,
                (_, None) => Action::Deleted,
                _ => Action::Changed,
            },
            id: first.id,
            name: match more.len() {
                0 => name,
                n => format!("{name} and {n} more"),
            },
            fields,
            undoes: first.undoes,
            max_id: journal
                .max_id()
                .max(doc.max_id())
                .max(first.id)
                .max(more.iter().map(|p| p.id).max().unwrap_or(0))
                .max(floor_id),
            file_before: Some(file_before),
            before: first.before,
            after: first.after,
            more,
        };
        state.floor_id = state.floor_id.max(entry.max_id);
        if let Err(e) = state.journal.append(entry.clone()) {
            if !matches!(e, JournalError::Write { .. }) {
                state.suspect = Some(Suspect {
                    why: e.to_string(),
                    put_back: None,
                    refused: Some(entry.n),
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

    /// The changes among `entries` an undo would refuse now, because a recipe of theirs is
    /// no longer as they left it (changed again since, or put back by another undo): the
    /// same test [`Edit::Undo`] makes, so the history can say why instead of offering a
    /// button that fails.
    pub fn moved_on(&self, entries: &[Entry]) -> Result<HashSet<u64>, StoreError> {
        let mut state = self.lock();
        let (recipes, doc, hash, _) = self.current(state.written.take())?;
        let moved = entries
            .iter()
            .filter(|e| e.parts().any(|(id, _, after)| doc.get(id) != after))
            .map(|e| e.n)
            .collect();
        state.written = Some(Written { hash, recipes, doc });
        Ok(moved)
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

/// The highest recipe id `recipes` and, for a file, its journal have ever had: every id
/// up to it exists or existed, and no id is given twice. The household keeps rows only
/// for such ids (a favourite of a deleted recipe stays; one of an id never given does not).
pub fn highest_id_ever(recipes: &Recipes) -> Result<u64, JournalError> {
    let own = recipes.all().iter().map(|r| r.id).max().unwrap_or(0);
    match recipes.origin() {
        Origin::File(path) => Ok(own.max(Journal::highest_id_of(path)?)),
        Origin::Embedded => Ok(own),
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

#[cfg(test)]
mod bulk_tests;
#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod repair_tests;
#[cfg(test)]
mod tests;
