//! Writes that survive `kill -9` and power loss.
//!
//! A file is replaced by writing a temporary file beside it, syncing it, renaming it over
//! the old one and syncing the directory: after a crash at any point the path holds either
//! the old bytes or the new, never a mixture, and once [`replace`] returns the new bytes
//! are on disk. Appends ([`append`]) are synced before they return, and a failed one is
//! cut back, so that a full disk never leaves half a line for the next append to follow.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why [`replace`] failed, and so what is on disk now.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReplaceError {
    /// The old file is still in place, untouched (the temporary file is gone again).
    #[error("{0}")]
    Untouched(#[source] io::Error),
    /// The new bytes were renamed into place but the directory could not be synced: a
    /// power cut could still bring the old file back. The caller decides which to keep.
    #[error("{0}")]
    Unsynced(#[source] io::Error),
}

impl ReplaceError {
    pub(crate) fn into_io(self) -> io::Error {
        match self {
            ReplaceError::Untouched(e) | ReplaceError::Unsynced(e) => e,
        }
    }
}

/// Replaces `path` with `bytes` atomically and durably; returns the new file's metadata,
/// taken from the file itself before the rename (a rename keeps inode, size and time), so
/// that it describes these bytes even if someone changes the file right afterwards.
///
/// The temporary file is created in the same directory (a rename is atomic only within one
/// file system) under one fixed name per file ([`temp_name`]), and removed again if
/// anything fails before the rename.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<std::fs::Metadata, ReplaceError> {
    let dir = parent(path);
    let temp = temp_name(path);
    let written = (|| {
        // A temporary file a crash left behind is ours (one writer per file: the store's
        // lock); it is replaced, never appended to.
        match std::fs::remove_file(&temp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        keep_mode(path, &file)?;
        let meta = file.metadata()?;
        std::fs::rename(&temp, path)?;
        Ok(meta)
    })();
    match written {
        Ok(meta) => sync_dir(&dir)
            .map(|()| meta)
            .map_err(ReplaceError::Unsynced),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(ReplaceError::Untouched(e))
        }
    }
}

/// Appends `bytes` to the open file `file`, which is `len` bytes long, and syncs it, and
/// the directory when the file is `new`: the appended bytes are on disk when this
/// returns. On any failure the file is cut back to `len` (a full disk can leave part of
/// the bytes written); the error says whether that cut worked.
pub(crate) fn append(
    file: &mut File,
    dir: &Path,
    len: u64,
    bytes: &[u8],
    new: bool,
) -> Result<(), AppendError> {
    let written = (|| {
        file.write_all(bytes)?;
        file.sync_data()?;
        if new {
            sync_dir(dir)?;
        }
        Ok(())
    })();
    written.map_err(|source| {
        let cut = file.set_len(len).and_then(|()| file.sync_data());
        AppendError {
            source,
            cut: cut.err(),
        }
    })
}

/// An append that failed: why, and why it could not be taken back (`cut`), if it could
/// not (then the file may hold part of the bytes).
#[derive(Debug)]
pub(crate) struct AppendError {
    pub(crate) source: io::Error,
    pub(crate) cut: Option<io::Error>,
}

/// Cuts the open file `file` to its first `len` bytes and syncs it: takes back a line
/// whose change never happened, or a torn last line a crash left.
pub(crate) fn cut(file: &File, len: u64) -> io::Result<()> {
    file.set_len(len)?;
    file.sync_data()
}

/// Gives `path` a second name, `also`, and syncs the directory: the original stays where
/// it is, so a crash at any point leaves at least one complete copy.
pub(crate) fn link(path: &Path, also: &Path) -> io::Result<()> {
    std::fs::hard_link(path, also)?;
    sync_dir(&parent(path))
}

/// Whether a file could be written in `path`'s directory, tried by creating and removing a
/// temporary file there (the only honest test: read-only mounts, the Nix store and
/// systemd credentials all pass a permission-bit check as root).
pub(crate) fn check_writable(path: &Path) -> io::Result<()> {
    let probe = probe_name(path);
    File::create(&probe)?;
    std::fs::remove_file(&probe)?;
    let meta = std::fs::metadata(path)?;
    if meta.permissions().readonly() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the file is read-only",
        ));
    }
    OpenOptions::new().append(true).open(path).map(drop)
}

/// Takes an exclusive lock on `<path>.lock` (created if missing) for as long as the file
/// is open, or fails at once when another process holds it.
pub(crate) fn lock_beside(path: &Path) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(name))?;
    // SAFETY: flock on a descriptor this function owns; no memory is involved.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if locked != 0 {
        return Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "another process is editing this file (its journal is locked)",
        ));
    }
    Ok(file)
}

pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

pub(crate) fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// `.<name>.tmp` beside `path`: hidden, and the same every time, so that a crash leaves
/// at most one behind per file (the next write replaces it) and fault-injection tests can
/// name it.
pub(crate) fn temp_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    parent(path).join(format!(".{name}.tmp"))
}

/// `.<name>.<pid>.probe` beside `path`: unique between processes, for [`check_writable`],
/// which runs before the store's lock is taken.
fn probe_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    parent(path).join(format!(".{name}.{}.probe", std::process::id()))
}

/// Gives the new file the old one's permissions, so that an edit never makes a
/// hand-maintained file world-readable or read-only.
fn keep_mode(path: &Path, new: &File) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(old) => new.set_permissions(old.permissions()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_swaps_the_content_keeps_the_mode_and_leaves_no_temp_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recipes.json");
        std::fs::write(&path, b"old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        replace(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["recipes.json"]);
    }

    #[test]
    fn append_adds_and_cut_takes_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal");
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap();
        append(&mut file, dir.path(), 0, b"one\n", true).unwrap();
        append(&mut file, dir.path(), 4, b"two\n", false).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
        cut(&file, 4).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
    }

    #[test]
    fn a_failed_append_is_cut_back_to_where_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal");
        std::fs::write(&path, b"one\n").unwrap();
        // A read-only descriptor: the write fails, and nothing may be left of it.
        let mut file = OpenOptions::new().read(true).open(&path).unwrap();
        let err = append(&mut file, dir.path(), 4, b"two\n", false).unwrap_err();
        assert!(
            err.cut.is_some(),
            "cutting a read-only descriptor fails too"
        );
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"tw").unwrap();
        cut(&file, 4).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
    }

    #[test]
    fn a_stale_temporary_file_is_replaced_not_a_reason_to_fail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recipes.json");
        std::fs::write(&path, b"old").unwrap();
        std::fs::write(temp_name(&path), b"left by a crash").unwrap();
        replace(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!temp_name(&path).exists());
    }

    #[test]
    fn a_file_in_a_read_only_directory_is_not_writable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recipes.json");
        std::fs::write(&path, b"[]").unwrap();
        assert!(check_writable(&path).is_ok());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(check_writable(&path).is_err());
        assert!(check_writable(&dir.path().join("missing.json")).is_err());
    }
}
