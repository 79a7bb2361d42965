//! Writes that survive `kill -9` and power loss.
//!
//! A file is replaced by writing a temporary file beside it, syncing it, renaming it over
//! the old one and syncing the directory: after a crash at any point the path holds either
//! the old bytes or the new, never a mixture, and once [`replace`] returns the new bytes
//! are on disk. Appends ([`append`]) are synced before they return.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces `path` with `bytes` atomically and durably; returns the new file's metadata,
/// taken from the file itself before the rename (a rename keeps inode, size and time), so
/// that it describes these bytes even if someone changes the file right afterwards.
///
/// The temporary file is created in the same directory (a rename is atomic only within one
/// file system) with a name no other writer uses, and removed again if anything fails.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> io::Result<std::fs::Metadata> {
    let dir = parent(path);
    let temp = temp_name(path);
    let written = (|| {
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
        Ok(meta) => sync_dir(&dir).map(|()| meta),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Appends `bytes` to `path` (creating it) and syncs the file, and the directory when the
/// file is new, so that the appended bytes are on disk when this returns.
pub(crate) fn append(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let existed = path.exists();
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_data()?;
    if !existed {
        sync_dir(&parent(path))?;
    }
    Ok(())
}

/// Cuts `path` to its first `len` bytes and syncs it: drops a torn last line that a crash
/// left half-written (it was never acknowledged).
pub(crate) fn truncate(path: &Path, len: u64) -> io::Result<()> {
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(len)?;
    file.sync_all()
}

/// Whether a file could be written in `path`'s directory, tried by creating and removing a
/// temporary file there (the only honest test: read-only mounts, the Nix store and
/// systemd credentials all pass a permission-bit check as root).
pub(crate) fn check_writable(path: &Path) -> io::Result<()> {
    let probe = temp_name(path);
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

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// `.<name>.<pid>.<n>.tmp` beside `path`: hidden, unique within this process and between
/// processes.
fn temp_name(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    parent(path).join(format!(".{name}.{}.{n}.tmp", std::process::id()))
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
    fn append_adds_and_truncate_cuts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal");
        append(&path, b"one\n").unwrap();
        append(&path, b"two\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
        truncate(&path, 4).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
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
