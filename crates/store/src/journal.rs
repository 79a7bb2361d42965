//! The history of changes made in the app: one JSON line per change, beside the recipes
//! file (`recipes.json` → `recipes.json.journal`).
//!
//! Each line says who changed which recipe, when, which fields, and holds the recipe as it
//! was before and after, so that any change still in the journal can be undone. A line is
//! appended and synced *before* the recipes file is replaced: after a crash between the two
//! the journal has a line the file does not reflect, and [`Journal::open`]'s caller drops
//! it (the change was never acknowledged). When the file write fails, the line is taken
//! back at once ([`Journal::take_back`]).
//!
//! The journal never trusts that the file is as it left it: before every append the file's
//! device, inode and length are compared with what this process last wrote
//! ([`Journal::check`]). A journal deleted under us is written again from memory; one
//! replaced, grown or cut is read again and repaired ([`super::repair`]: torn tails, a
//! change appended onto a torn line, lines the recipes file never got, numbers used
//! twice). A journal that still cannot be read is set aside under a new name, never
//! deleted, and a new one starts with a [`Mark`] that remembers the highest id and change
//! number ever given out, and says what happened.
//!
//! Size policy: the journal keeps the newest [`KEEP`] changes. When it reaches
//! [`KEEP`] + [`SLACK`] lines it is rewritten (atomically) with the newest [`KEEP`]; older
//! changes can no longer be undone, but every line carries the highest id ever given, so
//! ids are never reused.

use super::durable;
pub use super::record::{Action, Entry, Mark, Part};
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// How many changes the journal keeps (and so how far back undo reaches).
pub const KEEP: usize = 1000;
/// How many lines past [`KEEP`] are appended before the journal is compacted.
pub(crate) const SLACK: usize = 100;

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
    /// The file is not what this process last left: it must be read again first.
    #[error("the change journal {path} changed under the app ({what})")]
    Changed { path: PathBuf, what: String },
    /// A line could not be taken back (or a failed append cut back): the journal may
    /// hold a change that never happened, so no change may follow until it is repaired.
    #[error(
        "the change journal {path} may hold a change that was never made ({source}); editing waits until it can be repaired"
    )]
    NotTakenBack {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// The journal file as this process last left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    dev: u64,
    ino: u64,
    len: u64,
}

impl Seen {
    fn of(meta: &std::fs::Metadata) -> Seen {
        use std::os::unix::fs::MetadataExt;
        Seen {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
        }
    }
}

/// The journal file and the changes in it, oldest first.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    entries: Vec<Entry>,
    /// The latest restart, if the journal was ever started again.
    mark: Option<Mark>,
    /// The file as we last left it; `None` while there is none.
    seen: Option<Seen>,
    /// The highest id and change number ever given out, from lines no longer read.
    floor_id: u64,
    floor_n: u64,
    /// Changes whose refusal was written down ([`Mark::refused`]): not history; the
    /// store puts the file back if it still holds one, then [`Journal::settle_refused`].
    refused: Vec<Entry>,
}

/// What opening found, for the log and the history page.
#[derive(Debug, Default)]
pub(crate) struct Opened {
    /// What was repaired, one sentence each.
    pub(crate) notes: Vec<String>,
}

impl Journal {
    /// The journal that belongs to the recipes file at `recipes`.
    pub(crate) fn path_for(recipes: &Path) -> PathBuf {
        let mut name = recipes.file_name().unwrap_or_default().to_os_string();
        name.push(".journal");
        recipes.with_file_name(name)
    }

    /// Reads the journal (an absent one is empty) and repairs what it can; sets aside
    /// one it cannot read, keeping its numbers (see the module docs).
    pub(crate) fn open(path: PathBuf) -> Result<(Journal, Opened), JournalError> {
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let journal = Journal::empty(path);
                return Ok((journal, Opened::default()));
            }
            Err(source) => return Err(JournalError::Read { path, source }),
        };
        let read = super::repair::read(&bytes);
        let mut journal = Journal {
            path,
            mark: read.marks.iter().rfind(|m| m.refused.is_none()).cloned(),
            entries: read.entries,
            seen: None,
            floor_id: read
                .marks
                .iter()
                .map(|m| m.max_id)
                .fold(read.floor_id, u64::max),
            floor_n: read
                .marks
                .iter()
                .map(|m| m.last_n)
                .fold(read.floor_n, u64::max),
            refused: read.refused,
        };
        let mut opened = Opened { notes: read.notes };
        if !read.unreadable.is_empty() {
            journal.set_aside(&read.unreadable, &mut opened)?;
        } else if read.rewrite {
            journal.rewrite()?;
        } else {
            let mut file = journal.open_file().map_err(|e| journal.write_error(e))?;
            if read.good_len < bytes.len() as u64 {
                durable::cut(&file, read.good_len).map_err(|e| journal.write_error(e))?;
            }
            journal.seen = Some(Seen::of(&journal.stat_open(&mut file)?));
        }
        Ok((journal, opened))
    }

    /// The highest recipe id the journal of the recipes file at `recipes` says was ever
    /// given out (0 for no journal), read without changing anything: the app may be
    /// running beside `libations import-household` or `repair-household`.
    pub(crate) fn highest_id_of(recipes: &Path) -> Result<u64, JournalError> {
        let path = Journal::path_for(recipes);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(source) => return Err(JournalError::Read { path, source }),
        };
        let read = super::repair::read(&bytes);
        let entries = read.entries.iter().chain(&read.refused).map(|e| e.max_id);
        let marks = read.marks.iter().map(|m| m.max_id);
        Ok(entries.chain(marks).fold(read.floor_id, u64::max))
    }

    fn empty(path: PathBuf) -> Journal {
        Journal {
            path,
            entries: Vec::new(),
            mark: None,
            seen: None,
            floor_id: 0,
            floor_n: 0,
            refused: Vec::new(),
        }
    }

    /// Changes whose refusal is written down in the journal: the file may still hold one.
    pub(crate) fn refused(&self) -> &[Entry] {
        &self.refused
    }

    /// Once the file holds none of the [`refused`](Self::refused) changes: writes the
    /// journal again without them, their numbers kept given out.
    pub(crate) fn settle_refused(&mut self) -> Result<(), JournalError> {
        let Some(max_id) = self.refused.iter().map(|e| e.max_id).max() else {
            return Ok(());
        };
        let last_n = self.refused.iter().map(|e| e.n).max().unwrap_or(0);
        self.keep_numbers(self.refused[0].at, max_id, last_n);
        self.refused.clear();
        self.rewrite()
    }

    /// Writes down that the change just forgotten ([`forget_last`](Self::forget_last))
    /// was refused, though its line and the file it renamed into place are still there:
    /// whoever opens the journal next, this process or the next, puts the file back.
    pub(crate) fn write_refusal(&mut self, refused: &Entry) -> Result<(), JournalError> {
        self.check()?;
        let mark = Mark {
            at: refused.at,
            restarted: None,
            set_aside: None,
            max_id: refused.max_id,
            last_n: refused.n,
            refused: Some(refused.n),
        };
        let mut line = serde_json::to_vec(&mark).map_err(|e| self.write_error(e.into()))?;
        line.push(b'\n');
        let mut file = self.open_file().map_err(|e| self.write_error(e))?;
        let seen = Seen::of(&self.stat_open(&mut file)?);
        let dir = durable::parent(&self.path);
        durable::append(&mut file, &dir, seen.len, &line, false).map_err(|e| {
            self.seen = None;
            self.write_error(e.source)
        })?;
        self.seen = Some(Seen {
            len: seen.len + line.len() as u64,
            ..seen
        });
        self.refused.push(refused.clone());
        Ok(())
    }

    /// Keeps `max_id` and `last_n` given out in the (quiet) mark the next rewrite writes.
    fn keep_numbers(&mut self, at: u64, max_id: u64, last_n: u64) {
        self.raise_floor(max_id, last_n);
        let mark = self.mark.get_or_insert(Mark {
            at,
            restarted: None,
            set_aside: None,
            max_id: 0,
            last_n: 0,
            refused: None,
        });
        mark.max_id = mark.max_id.max(max_id);
        mark.last_n = mark.last_n.max(last_n);
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub(crate) fn last(&self) -> Option<&Entry> {
        self.entries.last()
    }

    pub(crate) fn get(&self, n: u64) -> Option<&Entry> {
        self.entries.iter().find(|e| e.n == n)
    }

    /// The latest restart, if the journal was ever started again.
    pub(crate) fn mark(&self) -> Option<&Mark> {
        self.mark.as_ref()
    }

    /// The next change's number: past every number the journal has ever given.
    pub(crate) fn next_n(&self) -> u64 {
        self.entries
            .iter()
            .map(|e| e.n)
            .chain(self.mark.iter().map(|m| m.last_n))
            .fold(self.floor_n, u64::max)
            .saturating_add(1)
    }

    /// The highest id the journal has seen given out.
    pub(crate) fn max_id(&self) -> u64 {
        self.entries
            .iter()
            .map(|e| e.max_id)
            .chain(self.mark.iter().map(|m| m.max_id))
            .fold(self.floor_id, u64::max)
    }

    /// Takes back the last change, as [`take_back`](Self::take_back), and keeps its
    /// recipe id and change number given out (in the mark, written down): a change the
    /// file never got, or one a hand edit reverted to the very bytes it started from,
    /// may have been seen.
    pub(crate) fn drop_last_keeping_numbers(&mut self) -> Result<(), JournalError> {
        let Some(last) = self.entries.last().cloned() else {
            return Ok(());
        };
        self.take_back()?;
        if last.max_id <= self.max_id() && last.n < self.next_n() {
            return Ok(());
        }
        self.keep_numbers(last.at, last.max_id, last.n);
        self.rewrite()
    }

    /// Counts on from at least these, whatever the file holds: numbers given out before
    /// the file was replaced under us.
    pub(crate) fn raise_floor(&mut self, max_id: u64, last_n: u64) {
        self.floor_id = self.floor_id.max(max_id);
        self.floor_n = self.floor_n.max(last_n);
    }

    /// Whether the file is still the one this process last wrote, at the same length.
    pub(crate) fn check(&self) -> Result<(), JournalError> {
        let changed = |what: &str| JournalError::Changed {
            path: self.path.clone(),
            what: what.to_owned(),
        };
        match (std::fs::metadata(&self.path), self.seen) {
            (Err(e), None) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            (Err(e), Some(_)) if e.kind() == io::ErrorKind::NotFound => Err(changed("deleted")),
            (Err(source), _) => Err(JournalError::Read {
                path: self.path.clone(),
                source,
            }),
            (Ok(_), None) => Err(changed("created by someone else")),
            (Ok(meta), Some(seen)) => {
                let now = Seen::of(&meta);
                if (now.dev, now.ino) != (seen.dev, seen.ino) {
                    Err(changed("replaced by another file"))
                } else if now.len != seen.len {
                    Err(changed(&format!("{} bytes, not {}", now.len, seen.len)))
                } else {
                    Ok(())
                }
            }
        }
    }

    /// Writes the journal again from memory: for a journal deleted under us (every
    /// change it held is here), with a mark that says so.
    pub(crate) fn restore(&mut self, why: &str) -> Result<(), JournalError> {
        self.mark = Some(Mark {
            at: now(),
            restarted: Some(why.to_owned()),
            set_aside: None,
            max_id: self.max_id(),
            last_n: self.next_n() - 1,
            refused: None,
        });
        self.rewrite()
    }

    /// Appends a change and syncs it; compacts when the journal has grown past its policy.
    /// The file must be as this process left it ([`check`](Self::check)).
    pub(crate) fn append(&mut self, entry: Entry) -> Result<(), JournalError> {
        self.check()?;
        let mut line = serde_json::to_vec(&entry).map_err(|e| self.write_error(e.into()))?;
        line.push(b'\n');
        let new = self.seen.is_none();
        let mut file = if new {
            OpenOptions::new()
                .create_new(true)
                .append(true)
                .open(&self.path)
        } else {
            self.open_file()
        }
        .map_err(|e| self.write_error(e))?;
        let seen = Seen::of(&self.stat_open(&mut file)?);
        if self.seen.is_some_and(|s| s != seen) {
            return Err(JournalError::Changed {
                path: self.path.clone(),
                what: "changed while it was opened".into(),
            });
        }
        let dir = durable::parent(&self.path);
        if let Err(e) = durable::append(&mut file, &dir, seen.len, &line, new) {
            return Err(match e.cut {
                // Cut back, or never written: the file is as before.
                None => self.write_error(e.source),
                Some(cut) => {
                    self.seen = None;
                    JournalError::NotTakenBack {
                        path: self.path.clone(),
                        source: cut,
                    }
                }
            });
        }
        self.seen = Some(Seen {
            len: seen.len + line.len() as u64,
            ..seen
        });
        self.entries.push(entry);
        if self.entries.len() >= KEEP + SLACK
            && let Err(e) = self.compact()
        {
            // The change itself is safe on disk; the journal stays longer until the next
            // compaction succeeds.
            tracing::warn!("cannot compact the change journal: {e}");
        }
        Ok(())
    }

    /// Takes back the last change, whose recipes file write failed (or which a crash
    /// left unapplied): cuts its line off the file.
    pub(crate) fn take_back(&mut self) -> Result<(), JournalError> {
        let Some(last) = self.entries.pop() else {
            return Ok(());
        };
        let cut = (|| {
            let mut file = OpenOptions::new()
                .read(true)
                .append(true)
                .open(&self.path)?;
            let now = Seen::of(&file.metadata()?);
            if self.seen.is_some_and(|s| s != now) {
                return Err(io::Error::other("the journal changed meanwhile"));
            }
            let mut bytes = Vec::new();
            io::Read::read_to_end(&mut file, &mut bytes)?;
            // The last line is the change taken back; cut just after the one before it.
            let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            let len = memchr::memrchr(b'\n', body).map_or(0, |i| i + 1) as u64;
            if serde_json::from_slice::<Entry>(&body[len as usize..])
                .ok()
                .map(|e| e.n)
                != Some(last.n)
            {
                return Err(io::Error::other(
                    "its last line is not the change taken back",
                ));
            }
            durable::cut(&file, len)?;
            Ok(Seen { len, ..now })
        })();
        match cut {
            Ok(seen) => {
                self.seen = Some(seen);
                Ok(())
            }
            Err(source) => {
                // Whatever the file holds now, the next change must read it again first.
                self.seen = None;
                Err(JournalError::NotTakenBack {
                    path: self.path.clone(),
                    source,
                })
            }
        }
    }

    /// Drops the last change from memory only, when its line cannot be taken back yet:
    /// the history shows what was acknowledged, and the next change repairs the file.
    pub(crate) fn forget_last(&mut self) -> Option<Entry> {
        self.entries.pop()
    }

    fn compact(&mut self) -> Result<(), JournalError> {
        let excess = self.entries.len().saturating_sub(KEEP);
        let kept = self.entries.split_off(excess);
        let dropped = std::mem::replace(&mut self.entries, kept);
        // The dropped lines' numbers stay given out.
        let floors = (self.floor_id, self.floor_n);
        self.floor_id = self
            .floor_id
            .max(dropped.iter().map(|e| e.max_id).max().unwrap_or(0));
        self.floor_n = self
            .floor_n
            .max(dropped.iter().map(|e| e.n).max().unwrap_or(0));
        let rewritten = self.rewrite();
        if rewritten.is_err() {
            // Nothing changed on disk: neither may the entries in memory.
            (self.floor_id, self.floor_n) = floors;
            let kept = std::mem::replace(&mut self.entries, dropped);
            self.entries.extend(kept);
        }
        rewritten
    }

    /// Writes the mark and the entries to a new file that replaces the journal.
    fn rewrite(&mut self) -> Result<(), JournalError> {
        let mut bytes = Vec::new();
        if let Some(mark) = &self.mark {
            serde_json::to_writer(&mut bytes, mark).map_err(|e| self.write_error(e.into()))?;
            bytes.push(b'\n');
        }
        for entry in &self.entries {
            serde_json::to_writer(&mut bytes, entry).map_err(|e| self.write_error(e.into()))?;
            bytes.push(b'\n');
        }
        match durable::replace(&self.path, &bytes) {
            Ok(meta) => {
                self.seen = Some(Seen::of(&meta));
                Ok(())
            }
            Err(e) => {
                // Renamed but not synced: the file is the new one all the same.
                if let durable::ReplaceError::Unsynced(_) = &e {
                    self.seen = std::fs::metadata(&self.path).ok().map(|m| Seen::of(&m));
                }
                Err(self.write_error(e.into_io()))
            }
        }
    }

    /// Keeps the journal that could not be read under a new name beside it and starts
    /// again with what could be read, behind a mark that says where the rest is.
    fn set_aside(&mut self, lines: &[usize], opened: &mut Opened) -> Result<(), JournalError> {
        let at = now();
        let name = self.path.file_name().unwrap_or_default().to_string_lossy();
        let aside = (0..)
            .map(|i| match i {
                0 => format!("{name}.set-aside-{at}"),
                i => format!("{name}.set-aside-{at}-{i}"),
            })
            .map(|n| self.path.with_file_name(n))
            .find(|p| !p.exists())
            .unwrap_or_else(|| self.path.with_extension("set-aside"));
        durable::link(&self.path, &aside).map_err(|e| self.write_error(e))?;
        let aside_name = aside
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let shown: Vec<String> = lines.iter().take(5).map(ToString::to_string).collect();
        let restarted = format!(
            "The change history could not be read (line {}{}); it was kept as {aside_name} beside the recipes file and a new history started. Changes before this may not be undoable.",
            shown.join(", "),
            if lines.len() > 5 { ", …" } else { "" }
        );
        opened.notes.push(restarted.clone());
        self.mark = Some(Mark {
            at,
            restarted: Some(restarted),
            set_aside: Some(aside_name),
            max_id: self.max_id(),
            last_n: self.next_n() - 1,
            refused: None,
        });
        self.rewrite()
    }

    fn open_file(&self) -> io::Result<File> {
        OpenOptions::new().append(true).open(&self.path)
    }

    fn stat_open(&self, file: &mut File) -> Result<std::fs::Metadata, JournalError> {
        file.metadata().map_err(|source| JournalError::Read {
            path: self.path.clone(),
            source,
        })
    }

    fn write_error(&self, source: io::Error) -> JournalError {
        JournalError::Write {
            path: self.path.clone(),
            source,
        }
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::super::document::Object;
    use super::*;
    use std::io::Write;

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
            more: vec![],
        }
    }

    #[test]
    fn appends_survive_reopening_and_a_torn_tail_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = Journal::path_for(&dir.path().join("recipes.json"));
        assert!(path.ends_with("recipes.json.journal"));
        let (mut j, _) = Journal::open(path.clone()).unwrap();
        j.append(entry(1)).unwrap();
        j.append(entry(2)).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"n": 3, "at": 17"#).unwrap();
        let (j, opened) = Journal::open(path.clone()).unwrap();
        assert_eq!(opened.notes.len(), 1, "{:?}", opened.notes);
        assert_eq!(j.entries().iter().map(|e| e.n).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(j.next_n(), 3);
        assert_eq!(j.max_id(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn an_unreadable_journal_is_set_aside_and_a_new_one_keeps_its_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recipes.json.journal");
        let good = serde_json::to_string(&entry(1)).unwrap();
        let broken = format!("{good}\nnot json, \"n\":9, \"max_id\":30\n");
        std::fs::write(&path, &broken).unwrap();
        let (j, opened) = Journal::open(path.clone()).unwrap();
        let mark = j.mark().expect("a mark says what happened").clone();
        assert!(
            mark.restarted
                .as_deref()
                .unwrap_or_default()
                .contains("line 2"),
            "{mark:?}"
        );
        assert!(
            opened.notes.iter().any(|n| n.contains("set-aside")),
            "{opened:?}"
        );
        let aside = dir.path().join(mark.set_aside.clone().expect("named"));
        assert_eq!(
            std::fs::read_to_string(aside).unwrap(),
            broken,
            "kept whole"
        );
        assert_eq!(j.entries().len(), 1, "what could be read is kept");
        assert_eq!((j.next_n(), j.max_id()), (10, 30));
        let (again, opened) = Journal::open(path).unwrap();
        assert!(opened.notes.is_empty(), "the new journal reads cleanly");
        assert_eq!((again.next_n(), again.max_id()), (10, 30));
        assert_eq!(again.mark(), Some(&mark));
    }

    #[test]
    fn a_journal_deleted_or_replaced_under_us_is_noticed_before_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json.journal");
        let (mut j, _) = Journal::open(path.clone()).unwrap();
        j.append(entry(1)).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(
            j.append(entry(2)),
            Err(JournalError::Changed { .. })
        ));
        assert!(!path.exists(), "not silently started again");
        j.restore("deleted").unwrap();
        j.append(entry(2)).unwrap();
        let (again, _) = Journal::open(path.clone()).unwrap();
        assert_eq!(
            again.entries().iter().map(|e| e.n).collect::<Vec<_>>(),
            [1, 2]
        );
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"n\":").unwrap();
        assert!(matches!(j.check(), Err(JournalError::Changed { .. })));
    }

    #[test]
    fn a_line_taken_back_leaves_the_file_as_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json.journal");
        let (mut j, _) = Journal::open(path.clone()).unwrap();
        j.append(entry(1)).unwrap();
        let before = std::fs::read(&path).unwrap();
        j.append(entry(2)).unwrap();
        j.take_back().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(j.next_n(), 2);
        j.check().unwrap();
    }

    #[test]
    fn compaction_keeps_the_newest_and_the_id_high_water_mark() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json.journal");
        let (mut j, _) = Journal::open(path.clone()).unwrap();
        for n in 1..=(KEEP + SLACK) as u64 {
            j.append(entry(n)).unwrap();
        }
        j.check().unwrap();
        let (j, _) = Journal::open(path).unwrap();
        assert_eq!(j.entries().len(), KEEP);
        assert_eq!(j.entries()[0].n, SLACK as u64 + 1);
        assert_eq!(j.max_id(), (KEEP + SLACK) as u64);
    }
}
