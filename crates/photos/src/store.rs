//! Step 4: the variants on disk, named by what they hold, written before anything refers
//! to them.
//!
//! A photo is `{hash}.jpg` (large) and `{hash}.thumb.jpg`, the hash being SHA-256 of the
//! large file (its first 32 hex digits): the same photo sent twice is one pair of files,
//! and a name never changes meaning, so a browser may cache it for good. Each file is
//! written to a temporary name, fsynced, renamed into place, and the directory fsynced:
//! once [`PhotoStore::keep`] returns, the files survive power loss. The household's row is
//! written after them, so a crash leaves at worst files nobody refers to, which
//! [`PhotoStore::sweep`] removes at start; never a row without its files. The sweep spares
//! files younger than [`SWEEP_SPARES`]: another process (`libations import-household`)
//! may be between writing its files and committing its rows while the app starts.

use crate::PhotoError;
use crate::variants::Prepared;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Makes each temporary file's name its own, so two uploads of one photo never share one.
static TEMPS: AtomicU64 = AtomicU64::new(0);

/// The directory photos live in.
#[derive(Debug, Clone)]
pub struct PhotoStore {
    dir: PathBuf,
}

/// A photo kept: the name of its files and the large one's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub hash: String,
    pub width: u32,
    pub height: u32,
}

/// Which file of a photo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Large,
    Thumb,
}

/// The folder photos live in, in the state directory beside the household's database.
pub const DIR_NAME: &str = "photos";

const LARGE_SUFFIX: &str = ".jpg";
const THUMB_SUFFIX: &str = ".thumb.jpg";
const TEMP_PREFIX: &str = ".tmp-";

/// How recently modified a file no row names may be and still be spared by the sweep: an
/// hour. An upload or an import may be between its files and its row, and the import
/// (`libations import-household`, another process) writes every photo of an archive before
/// it commits the rows; a server starting meanwhile must not take the files from under
/// it. An hour is far past the longest import (a few hundred MiB, checked and fsynced),
/// and a stray spared now is swept at a later start. A file the store is asked to keep
/// that is already there has its time set anew ([`PhotoStore::keep_file`]), so it counts
/// as fresh too.
pub const SWEEP_SPARES: Duration = Duration::from_secs(60 * 60);

impl PhotoStore {
    /// The store in `dir`, made (mode 0700 through the state directory's) if missing.
    pub fn open(dir: &Path) -> io::Result<PhotoStore> {
        fs::create_dir_all(dir)?;
        Ok(PhotoStore {
            dir: dir.to_owned(),
        })
    }

    /// The store's folder for the household database at `db`: beside it.
    pub fn dir_beside(db: &Path) -> PathBuf {
        db.parent().unwrap_or(Path::new(".")).join(DIR_NAME)
    }

    /// The store in `dir` as it is, nothing made (for a read-only check).
    pub fn existing(dir: &Path) -> PhotoStore {
        PhotoStore {
            dir: dir.to_owned(),
        }
    }

    /// Writes both variants durably; returns once they would survive a power cut.
    pub fn keep(&self, photo: &Prepared) -> Result<Stored, PhotoError> {
        let hash = PhotoStore::hash_of(&photo.large);
        self.write(&self.path(&hash, Variant::Thumb), &photo.thumb)?;
        self.write(&self.path(&hash, Variant::Large), &photo.large)?;
        sync_dir(&self.dir)?;
        Ok(Stored {
            hash,
            width: photo.width,
            height: photo.height,
        })
    }

    /// Writes one file of `hash` durably unless it is there already (the directory is
    /// fsynced by the caller, [`PhotoStore::sync`]): whether this wrote it. For bytes
    /// already checked to be that photo's file (a household archive's, `archive`).
    pub fn keep_file(&self, hash: &str, variant: Variant, bytes: &[u8]) -> io::Result<bool> {
        let path = self.path(hash, variant);
        if fs::metadata(&path).is_ok() {
            touch(&path)?;
            return Ok(false);
        }
        self.write(&path, bytes)?;
        Ok(true)
    }

    /// Makes the renames into the store survive a power cut (fsyncs the directory).
    pub fn sync(&self) -> io::Result<()> {
        sync_dir(&self.dir)
    }

    /// Whether both files of `hash` are in the store.
    pub fn has(&self, hash: &str) -> bool {
        [Variant::Large, Variant::Thumb]
            .iter()
            .all(|v| self.path(hash, *v).is_file())
    }

    /// The first 32 hex digits of SHA-256 of `large`: the name its files have.
    pub fn hash_of(large: &[u8]) -> String {
        let digest = Sha256::digest(large);
        digest[..16].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Where a variant of `hash` is (whether or not it exists).
    pub fn path(&self, hash: &str, variant: Variant) -> PathBuf {
        let suffix = match variant {
            Variant::Large => LARGE_SUFFIX,
            Variant::Thumb => THUMB_SUFFIX,
        };
        self.dir.join(format!("{hash}{suffix}"))
    }

    /// A file name as a URL gives it (`{hash}.jpg`, `{hash}.thumb.jpg`) read as a hash and
    /// variant, or `None` for anything else (no path can be made from it).
    pub fn parse_name(name: &str) -> Option<(String, Variant)> {
        let (hash, variant) = match name.strip_suffix(THUMB_SUFFIX) {
            Some(hash) => (hash, Variant::Thumb),
            None => (name.strip_suffix(LARGE_SUFFIX)?, Variant::Large),
        };
        let hex = hash.len() == 32 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        hex.then(|| (hash.to_owned(), variant))
    }

    /// Removes the files of photos not in `keep` (and temporary files a crash left), but
    /// not those modified within [`SWEEP_SPARES`]: how many files went.
    pub fn sweep(&self, keep: &HashSet<String>) -> io::Result<usize> {
        let mut gone = 0;
        let now = SystemTime::now();
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let stray = match PhotoStore::parse_name(name) {
                Some((hash, _)) => !keep.contains(&hash),
                None => name.starts_with(TEMP_PREFIX),
            };
            if !stray || entry.metadata().is_ok_and(|m| fresh(&m, now)) {
                continue;
            }
            match fs::remove_file(entry.path()) {
                Ok(()) => gone += 1,
                // Gone meanwhile (another process's rename): not ours to count.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        if gone > 0 {
            sync_dir(&self.dir)?;
        }
        Ok(gone)
    }

    /// Removes the files of `hash` (once no row refers to it).
    pub fn remove(&self, hash: &str) -> io::Result<()> {
        for variant in [Variant::Large, Variant::Thumb] {
            match fs::remove_file(self.path(hash, variant)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        sync_dir(&self.dir)
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        if fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64) {
            // The same photo again: its name says it holds these bytes.
            return touch(path);
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("photo");
        let n = TEMPS.fetch_add(1, Ordering::Relaxed);
        let temp = self
            .dir
            .join(format!("{TEMP_PREFIX}{}-{n}-{name}", std::process::id()));
        let written = (|| {
            let mut file = File::create(&temp)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            fs::rename(&temp, path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written
    }
}

/// Whether a file (its `meta`) was modified within [`SWEEP_SPARES`] of `now`; a time in
/// the future (a clock set back) counts as fresh.
fn fresh(meta: &fs::Metadata, now: SystemTime) -> bool {
    match meta.modified().map(|at| now.duration_since(at)) {
        Ok(Ok(age)) => age < SWEEP_SPARES,
        Ok(Err(_)) => true,
        Err(_) => false,
    }
}

/// Sets an existing file's modified time to now, durably: a file about to be named by a
/// row again is as fresh as a new one to the sweep.
fn touch(path: &Path) -> io::Result<()> {
    let file = File::options().write(true).open(path)?;
    file.set_modified(SystemTime::now())?;
    file.sync_all()
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}
