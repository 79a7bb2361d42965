//! Taking a failed change back, and repairing the journal before the next one.
//!
//! A failed file write leaves no trace: [`Store::unmake`] puts a replaced file back and
//! cuts the change's journal line. Should that fail too, the store is *suspect*: before the
//! next change, [`Store::ready`] repairs from what is on disk (the same steps as
//! [`Store::open`], through [`open_journal`]), and refuses the change with
//! [`StoreError::Paused`] while that still fails. The same repair runs when the journal
//! was deleted, replaced or changed in length under us.

use super::document::Document;
use super::journal::{Entry, Journal, JournalError};
use super::{State, Store, StoreError, durable, file_hash, read};
use std::path::{Path, PathBuf};

/// A failed change whose traces could not all be removed yet.
#[derive(Debug)]
pub(super) struct Suspect {
    pub(super) why: String,
    /// The file a failed change replaced but could not put back: its text before the
    /// change, and the hash of what the change wrote. The repair puts it back, unless the
    /// file has been changed by hand meanwhile.
    pub(super) put_back: Option<(String, String)>,
    /// The number of the refused change whose journal line may still be on disk: the
    /// repair drops exactly that line, whatever the file holds by then.
    pub(super) refused: Option<u64>,
}

impl Store {
    /// After a failed file write: puts the file back if it was replaced, and takes the
    /// change's journal line back, so that nothing of the change is left. What cannot be
    /// undone makes the store suspect, and the next change repairs first.
    pub(super) fn unmake(
        &self,
        state: &mut State,
        failed: durable::ReplaceError,
        old: String,
        new_hash: String,
    ) -> StoreError {
        let put_back = match &failed {
            durable::ReplaceError::Untouched(_) => Ok(()),
            durable::ReplaceError::Unsynced(_) => retried(|| {
                durable::replace(&self.path, old.as_bytes()).map_err(durable::ReplaceError::into_io)
            })
            .map(drop)
            .map_err(|e| (e, old, new_hash)),
        };
        let mut unconfirmed = false;
        // A file renamed into place may have been read (the reloader serves it): its id
        // and number stay given out.
        let seen = matches!(failed, durable::ReplaceError::Unsynced(_));
        let source = failed.into_io();
        let refused = state.journal.last().map(|e| e.n);
        let cleaned = match put_back {
            Ok(()) => match seen {
                true => state.journal.drop_last_keeping_numbers(),
                false => state.journal.take_back(),
            }
            .map_err(|e| Suspect {
                why: e.to_string(),
                put_back: None,
                refused,
            }),
            Err((e, old, new_hash)) => Err({
                // Written down, the refusal outlives this process: whoever opens the
                // journal next puts the file back, even after a restart.
                if let Some(entry) = state.journal.forget_last()
                    && let Err(e) = retried(|| state.journal.write_refusal(&entry))
                {
                    tracing::error!(error = %e, change = entry.n, "cannot write down that a change was refused");
                    unconfirmed = true;
                }
                Suspect {
                    why: format!(
                        "{} was replaced but not synced, and putting the old file back failed: {e}",
                        self.path.display()
                    ),
                    put_back: Some((old, new_hash)),
                    refused,
                }
            }),
        };
        if let Err(suspect) = cleaned {
            tracing::error!(error = %suspect.why, "a failed save could not be cleaned up; the next change repairs first");
            state.suspect = Some(suspect);
        }
        if unconfirmed {
            return StoreError::Unconfirmed {
                path: self.path.clone(),
                source,
            };
        }
        StoreError::Write {
            path: self.path.clone(),
            source,
        }
    }

    /// Before a change: the file may still be written, and the journal is what this
    /// process last left (else it is repaired first, or the change refused).
    pub(super) fn ready(&self, state: &mut State) -> Result<(), StoreError> {
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
                let (put_back, refused) = state
                    .suspect
                    .take()
                    .map_or((None, None), |s| (s.put_back, s.refused));
                state.suspect = Some(Suspect {
                    why: reason.clone(),
                    put_back,
                    refused,
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
        let mut journal = open_journal(state.journal.path().to_owned(), &self.path, doc, hash)?;
        // The refused change's line, if it is still there: whatever the file holds by
        // now (a hand edit), that change was refused, and memory never counted it.
        let refused = state.suspect.as_ref().and_then(|s| s.refused);
        if let Some(n) = refused
            && n >= next_n
            && journal.last().is_some_and(|e| e.n == n)
        {
            tracing::warn!(
                change = n,
                "dropping the journal line of a change that was refused"
            );
            journal.drop_last_keeping_numbers()?;
        }
        if journal.max_id() < max_id || journal.next_n() < next_n {
            journal.raise_floor(max_id, next_n - 1);
            journal.restore(
                "The change history file was replaced or cut while the app ran; the app kept counting from where it was.",
            )?;
        }
        state.journal = journal;
        Ok(())
    }
}

/// Opens the journal, repaired, and drops its last change if the recipes file (whose
/// objects and hash are given) never got it; logs what was done.
pub(super) fn open_journal(
    path: PathBuf,
    recipes: &Path,
    doc: Document,
    hash: String,
) -> Result<Journal, StoreError> {
    let (mut journal, opened) = Journal::open(path)?;
    for note in &opened.notes {
        tracing::warn!(journal = %journal.path().display(), "{note}");
    }
    let (doc, hash) = put_back_refused(&mut journal, recipes, doc, hash)?;
    let (doc, hash) = (&doc, &hash);
    if let Some(last) = journal.last()
        && unapplied(last, doc, hash)
    {
        tracing::warn!(
            change = last.n,
            "dropping the last journaled change: the recipes file never got it (a crash or a failed write came first), so it was never made"
        );
        journal.drop_last_keeping_numbers()?;
    }
    Ok(journal)
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

/// Puts the recipes file back where it still holds a change whose refusal the journal
/// wrote down (newest first), then drops those changes from the journal; returns the file
/// as it is then.
fn put_back_refused(
    journal: &mut Journal,
    recipes: &Path,
    mut doc: Document,
    mut hash: String,
) -> Result<(Document, String), StoreError> {
    if journal.refused().is_empty() {
        return Ok((doc, hash));
    }
    let mut changed = false;
    for e in journal.refused().iter().rev() {
        // A change of several recipes is put back whole, or (hand-edited since) not at all.
        let holds = e.parts().all(|(id, _, after)| doc.get(id) == after);
        if holds && e.parts().any(|(_, before, after)| before != after) {
            tracing::warn!(
                change = e.n,
                "putting the recipes file back: this change was refused"
            );
            for (id, before, _) in e.parts() {
                match before {
                    Some(before) => doc.put(before.clone()),
                    None => drop(doc.remove(id)),
                }
            }
            changed = true;
        }
    }
    if changed {
        let bytes = doc.to_pretty();
        durable::replace(recipes, &bytes).map_err(|e| StoreError::Write {
            path: recipes.to_owned(),
            source: e.into_io(),
        })?;
        hash = file_hash(&bytes);
    }
    journal.settle_refused()?;
    Ok((doc, hash))
}

/// Runs `attempt` up to three times: a cleanup that fails once on a flaky disk often
/// works the next time, and every try that works leaves less for a crash to find.
fn retried<T, E>(mut attempt: impl FnMut() -> Result<T, E>) -> Result<T, E> {
    let mut tries = 1;
    loop {
        match attempt() {
            Err(_) if tries < 3 => tries += 1,
            done => return done,
        }
    }
}
