//! The household archive: a zip holding `household.json` (the backup file, deflated) and
//! every photo's two files, `photos/{hash}.jpg` and `photos/{hash}.thumb.jpg`, stored as
//! they are (a JPEG does not shrink).
//!
//! Why here: the archive's files are the store's, and an archive from elsewhere is as
//! hostile as an upload. [`write`] streams one photo at a time into any writer, so the
//! download never holds every photo in memory. [`restore`] trusts nothing: each entry's
//! name must be one of the three kinds (no path of any other shape, `../x.jpg` included),
//! its size is capped before and while it is read (a zip bomb stops at the cap), a large
//! file's content must hash to its name, and every file must decode as a JPEG within the
//! upload's limits ([`crate::check_stored`]). Files are written durably through the
//! store; on any refusal those this restore wrote are removed again.

use crate::store::{PhotoStore, Variant};
use crate::{MAX_BYTES, PhotoError};
use std::io::{self, Read, Seek, Write};
use std::path::PathBuf;

/// The backup file's name in the archive.
pub const JSON_NAME: &str = "household.json";
/// The folder the photos' files are in.
pub const PHOTOS_DIR: &str = "photos/";
/// The most entries an archive may have: two files for each of the household's 5,000
/// photos at most, the JSON, and a few folder entries.
pub const MAX_ENTRIES: usize = 10_010;

/// Why an archive is not taken (or could not be written); names the entry at fault.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("not a zip this app reads: {0}")]
    Zip(String),
    #[error("{name}: {why}")]
    Entry { name: String, why: String },
    #[error("the archive has no {JSON_NAME}")]
    NoJson,
    #[error("the archive has {0} entries; at most {MAX_ENTRIES} are taken")]
    TooManyEntries(usize),
    #[error("the photo files could not be written: {0}")]
    Io(#[from] io::Error),
}

fn entry(name: &str, why: impl ToString) -> ArchiveError {
    ArchiveError::Entry {
        name: name.to_owned(),
        why: why.to_string(),
    }
}

/// Writes the archive of `json` and the files of `hashes` (each once) to `out`, one file
/// in memory at a time. A missing file is an error naming it.
pub fn write<W: Write>(
    out: W,
    json: &[u8],
    store: &PhotoStore,
    hashes: &[String],
) -> Result<(), ArchiveError> {
    let zipped = |e: zip::result::ZipError| ArchiveError::Zip(e.to_string());
    let mut zip = zip::ZipWriter::new_stream(out);
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let stored = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(false);
    zip.start_file(JSON_NAME, deflated).map_err(zipped)?;
    zip.write_all(json)?;
    for hash in hashes {
        for variant in [Variant::Large, Variant::Thumb] {
            let path = store.path(hash, variant);
            let name = archive_name(&path);
            let bytes = std::fs::read(&path).map_err(|e| entry(&name, e))?;
            zip.start_file(name, stored).map_err(zipped)?;
            zip.write_all(&bytes)?;
        }
    }
    zip.finish().map_err(zipped)?;
    Ok(())
}

/// `photos/{file name}` for a store path.
fn archive_name(path: &std::path::Path) -> String {
    let file = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    format!("{PHOTOS_DIR}{file}")
}

/// What [`restore`] took: the backup file's bytes, and the files it wrote (none of them
/// there before), which [`Restored::undo`] removes if the rows are then refused.
#[derive(Debug)]
pub struct Restored {
    pub json: Vec<u8>,
    written: Vec<PathBuf>,
    store: PhotoStore,
}

impl Restored {
    /// How many photo files this restore wrote.
    pub fn files_written(&self) -> usize {
        self.written.len()
    }

    /// The files this restore wrote.
    pub fn written(&self) -> &[PathBuf] {
        &self.written
    }

    /// Removes the files this restore wrote: a refused archive leaves no trace.
    pub fn undo(&self) -> io::Result<()> {
        undo(&self.store, &self.written)
    }
}

fn undo(store: &PhotoStore, written: &[PathBuf]) -> io::Result<()> {
    for path in written {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    store.sync()
}

/// Reads the archive, checks every entry (see the module doc) and writes each photo file
/// the store lacks; `json_bytes` caps `household.json`. All or nothing: on a refusal the
/// files it wrote are removed before it returns.
pub fn restore<R: Read + Seek>(
    reader: R,
    store: &PhotoStore,
    json_bytes: usize,
) -> Result<Restored, ArchiveError> {
    let mut written = Vec::new();
    match read_all(reader, store, json_bytes, &mut written) {
        Ok(json) => {
            store.sync()?;
            Ok(Restored {
                json,
                written,
                store: store.clone(),
            })
        }
        Err(e) => match undo(store, &written) {
            Ok(()) => Err(e),
            // Both said: the refusal, and that a file it wrote is left (the next start's
            // sweep removes it, as no row names it).
            Err(left) => Err(ArchiveError::Io(io::Error::other(format!(
                "{e}; and a photo file it wrote could not be removed: {left}"
            )))),
        },
    }
}

fn read_all<R: Read + Seek>(
    reader: R,
    store: &PhotoStore,
    json_bytes: usize,
    written: &mut Vec<PathBuf>,
) -> Result<Vec<u8>, ArchiveError> {
    let mut zip = zip::ZipArchive::new(reader).map_err(|e| ArchiveError::Zip(e.to_string()))?;
    if zip.len() > MAX_ENTRIES {
        return Err(ArchiveError::TooManyEntries(zip.len()));
    }
    let mut json = None;
    for i in 0..zip.len() {
        let mut file = zip
            .by_index(i)
            .map_err(|e| ArchiveError::Zip(e.to_string()))?;
        let name = String::from_utf8_lossy(file.name_raw()).into_owned();
        if file.is_dir() && name == PHOTOS_DIR {
            continue;
        }
        if name == JSON_NAME {
            json = Some(read_capped(&mut file, &name, json_bytes)?);
            continue;
        }
        let Some((hash, variant)) = name
            .strip_prefix(PHOTOS_DIR)
            .and_then(PhotoStore::parse_name)
        else {
            return Err(entry(
                &name,
                "is not a file a household archive holds (household.json, photos/{hash}.jpg, photos/{hash}.thumb.jpg)",
            ));
        };
        let bytes = read_capped(&mut file, &name, MAX_BYTES)?;
        check_photo(&name, &hash, variant, &bytes)?;
        if store.keep_file(&hash, variant, &bytes)? {
            written.push(store.path(&hash, variant));
        }
    }
    json.ok_or(ArchiveError::NoJson)
}

/// An entry's bytes, refused past `cap` whatever its header claims.
fn read_capped(file: &mut impl Read, name: &str, cap: usize) -> Result<Vec<u8>, ArchiveError> {
    let mut bytes = Vec::new();
    file.take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| entry(name, format!("could not be read: {e}")))?;
    if bytes.len() > cap {
        return Err(entry(
            name,
            format!("is larger than {cap} bytes, the most such a file may be"),
        ));
    }
    Ok(bytes)
}

/// A photo file: its content hashes to its name (the large one) and it decodes as a
/// JPEG within the limits.
fn check_photo(name: &str, hash: &str, variant: Variant, bytes: &[u8]) -> Result<(), ArchiveError> {
    if variant == Variant::Large {
        let actual = PhotoStore::hash_of(bytes);
        if actual != hash {
            return Err(entry(
                name,
                format!("its content's hash is {actual}, not the {hash} its name says"),
            ));
        }
    }
    crate::check_stored(bytes).map_err(|e: PhotoError| entry(name, e))?;
    Ok(())
}
