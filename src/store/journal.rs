//! The history of changes made in the app: one JSON line per change, beside the recipes
//! file (`recipes.json` → `recipes.json.journal`).
//!
//! Each line says who changed which recipe, when, which fields, and holds the recipe as it
//! was before and after, so that any change still in the journal can be undone. A line is
//! appended and synced *before* the recipes file is replaced: after a crash between the two
//! the journal has a line the file does not reflect, and [`Journal::open`]'s caller drops
//! it (the change was never acknowledged). A crash while appending leaves a torn last line,
//! which is cut off for the same reason. Any other line that does not parse stops editing
//! with the journal's path and line: history is never dropped quietly.
//!
//! Size policy: the journal keeps the newest [`KEEP`] changes. When it reaches
//! [`KEEP`] + [`SLACK`] lines it is rewritten (atomically) with the newest [`KEEP`]; older
//! changes can no longer be undone, but every line carries the highest id ever given, so
//! ids are never reused.

use super::document::Object;
use super::durable;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// How many changes the journal keeps (and so how far back undo reaches).
pub const KEEP: usize = 1000;
/// How many lines past [`KEEP`] are appended before the journal is compacted.
pub const SLACK: usize = 100;

/// What a change did to a recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Created,
    Changed,
    Deleted,
}

/// One change, as stored and as `GET /api/changes` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The change's number: increasing, never reused.
    pub n: u64,
    /// When, in seconds since 1970 (UTC).
    pub at: u64,
    /// Who: the tailnet login, or the local identity.
    pub who: String,
    pub action: Action,
    pub id: u64,
    /// The recipe's name after the change (before it, for a delete).
    pub name: String,
    /// The schema fields whose value changed.
    pub fields: Vec<String>,
    /// The change this one undid, if it is an undo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// The highest recipe id ever given out, this change included.
    pub max_id: u64,
    /// The SHA-256 of the recipes file this change started from: if the file still holds
    /// exactly those bytes, the change never reached it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_before: Option<String>,
    /// The recipe object before the change (`None` when it was created).
    pub before: Option<Object>,
    /// The recipe object after the change (`None` when it was deleted).
    pub after: Option<Object>,
}

/// Why the journal could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot read the change journal {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write the change journal {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "{path}:{line}: not a change this version understands ({message}); move the journal aside to edit again (the recipes file itself is fine)"
    )]
    Corrupt {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// The journal file and the changes in it, oldest first.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    entries: Vec<Entry>,
    /// How many lines the file holds (it may hold more than `entries` between compactions
    /// only in the sense of bytes; lines and entries are equal after `open`).
    lines: usize,
}

impl Journal {
    /// The journal that belongs to the recipes file at `recipes`.
    pub fn path_for(recipes: &Path) -> PathBuf {
        let mut name = recipes.file_name().unwrap_or_default().to_os_string();
        name.push(".journal");
        recipes.with_file_name(name)
    }

    /// Reads the journal (an absent one is empty), cutting off a torn last line.
    pub fn open(path: PathBuf) -> Result<Journal, JournalError> {
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(JournalError::Read { path, source }),
        };
        let (entries, good) = parse(&path, &bytes)?;
        if good < bytes.len() {
            tracing::warn!(journal = %path.display(), "cutting off a torn last line a crash left (its change was never acknowledged)");
            durable::truncate(&path, good as u64).map_err(|source| JournalError::Write {
                path: path.clone(),
                source,
            })?;
        }
        let lines = entries.len();
        Ok(Journal {
            path,
            entries,
            lines,
        })
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn last(&self) -> Option<&Entry> {
        self.entries.last()
    }

    pub fn get(&self, n: u64) -> Option<&Entry> {
        self.entries.iter().find(|e| e.n == n)
    }

    /// The next change's number.
    pub fn next_n(&self) -> u64 {
        self.last().map_or(1, |e| e.n + 1)
    }

    /// The highest id the journal has seen given out.
    pub fn max_id(&self) -> u64 {
        self.last().map_or(0, |e| e.max_id)
    }

    /// Appends a change and syncs it; compacts when the journal has grown past its policy.
    pub fn append(&mut self, entry: Entry) -> Result<(), JournalError> {
        let mut line = serde_json::to_vec(&entry).map_err(|e| self.write_error(e.into()))?;
        line.push(b'\n');
        durable::append(&self.path, &line).map_err(|e| self.write_error(e))?;
        self.entries.push(entry);
        self.lines += 1;
        if self.lines >= KEEP + SLACK
            && let Err(e) = self.compact()
        {
            // The change itself is safe on disk; the journal stays longer until the next
            // compaction succeeds.
            tracing::warn!("cannot compact the change journal: {e}");
        }
        Ok(())
    }

    /// Drops the last change: a crash came between its line and the recipes file, so it
    /// never happened. Rewrites the journal atomically.
    pub fn drop_last(&mut self) -> Result<(), JournalError> {
        self.entries.pop();
        self.rewrite()
    }

    fn compact(&mut self) -> Result<(), JournalError> {
        let excess = self.entries.len().saturating_sub(KEEP);
        let kept = self.entries.split_off(excess);
        let dropped = std::mem::replace(&mut self.entries, kept);
        let rewritten = self.rewrite();
        if rewritten.is_err() {
            // Nothing changed on disk: neither may the entries in memory.
            let kept = std::mem::replace(&mut self.entries, dropped);
            self.entries.extend(kept);
        }
        rewritten
    }

    fn rewrite(&mut self) -> Result<(), JournalError> {
        let mut bytes = Vec::new();
        for entry in &self.entries {
            serde_json::to_writer(&mut bytes, entry).map_err(|e| self.write_error(e.into()))?;
            bytes.push(b'\n');
        }
        durable::replace(&self.path, &bytes).map_err(|e| self.write_error(e))?;
        self.lines = self.entries.len();
        Ok(())
    }

    fn write_error(&self, source: io::Error) -> JournalError {
        JournalError::Write {
            path: self.path.clone(),
            source,
        }
    }
}

/// The entries in `bytes`, and how many bytes hold whole lines. Only the very last line
/// may be torn (no newline, or not JSON); any other bad line is an error.
fn parse(path: &Path, bytes: &[u8]) -> Result<(Vec<Entry>, usize), JournalError> {
    let mut entries = Vec::new();
    let mut good = 0;
    let mut start = 0;
    let mut line = 0;
    while start < bytes.len() {
        line += 1;
        let end = memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i);
        let text = &bytes[start..end.unwrap_or(bytes.len())];
        match (serde_json::from_slice::<Entry>(text), end) {
            (Ok(entry), Some(end)) => {
                entries.push(entry);
                good = end + 1;
                start = end + 1;
            }
            (_, None) => break,
            (Err(e), Some(end)) if end + 1 == bytes.len() && is_torn(&e) => break,
            (Err(e), Some(_)) => {
                return Err(JournalError::Corrupt {
                    path: path.to_owned(),
                    line,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok((entries, good))
}

/// A line cut short by a crash reads as JSON that ends too early.
fn is_torn(e: &serde_json::Error) -> bool {
    e.is_eof()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: u64) -> Entry {
        Entry {
            n,
            at: 1_700_000_000 + n,
            who: "alice@example.com".into(),
            action: Action::Created,
            id: n,
            name: format!("Drink {n}"),
            fields: vec![],
            undoes: None,
            max_id: n,
            file_before: None,
            before: None,
            after: Some(Object::new()),
        }
    }

    #[test]
    fn appends_survive_reopening_and_a_torn_tail_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = Journal::path_for(&dir.path().join("recipes.json"));
        assert!(path.ends_with("recipes.json.journal"));
        let mut j = Journal::open(path.clone()).unwrap();
        j.append(entry(1)).unwrap();
        j.append(entry(2)).unwrap();
        durable::append(&path, br#"{"n": 3, "at": 17"#).unwrap();
        let j = Journal::open(path.clone()).unwrap();
        assert_eq!(j.entries().iter().map(|e| e.n).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(j.next_n(), 3);
        assert_eq!(j.max_id(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recipes.json.journal");
        let good = serde_json::to_string(&entry(1)).unwrap();
        std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).unwrap();
        let err = Journal::open(path).unwrap_err().to_string();
        assert!(err.contains("recipes.json.journal:2:"), "{err}");
    }

    #[test]
    fn compaction_keeps_the_newest_and_the_id_high_water_mark() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json.journal");
        let mut j = Journal::open(path.clone()).unwrap();
        for n in 1..=(KEEP + SLACK) as u64 {
            j.append(entry(n)).unwrap();
        }
        let j = Journal::open(path).unwrap();
        assert_eq!(j.entries().len(), KEEP);
        assert_eq!(j.entries()[0].n, SLACK as u64 + 1);
        assert_eq!(j.max_id(), (KEEP + SLACK) as u64);
    }
}
