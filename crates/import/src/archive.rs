//! A zip or a folder of recipe files (Bar Assistant's export, or any files we can read):
//! each `.json` or `.jsonld` file outside an `ingredients` folder is read by `json`, which
//! tells the kinds apart; files that hold no recipe are skipped. Sizes and counts are
//! capped before anything is read whole.

use super::ImportError;
use super::incoming::Incoming;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// Largest file read from a zip or folder (a recipe is a few KiB).
const MAX_FILE: u64 = 4 << 20;
/// Largest sum of files read from a zip or folder.
const MAX_TOTAL: u64 = 64 << 20;
/// Most files looked at in a zip or folder.
const MAX_FILES: usize = 20_000;

/// The recipes of a zip: every `.json` file that holds one (others are skipped).
pub(crate) fn from_zip(bytes: &[u8]) -> Result<Vec<Incoming>, ImportError> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| ImportError::Zip(e.to_string()))?;
    if zip.len() > MAX_FILES {
        return Err(ImportError::TooLarge(format!(
            "{} files in the zip, more than {MAX_FILES}",
            zip.len()
        )));
    }
    let mut files = Vec::new();
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut file = zip
            .by_index(i)
            .map_err(|e| ImportError::Zip(e.to_string()))?;
        let name = file.name().map(|n| n.to_string()).unwrap_or_default();
        if !file.is_file() || !wanted(&name) {
            continue;
        }
        let mut data = Vec::new();
        (&mut file)
            .take(MAX_FILE + 1)
            .read_to_end(&mut data)
            .map_err(|e| ImportError::Zip(format!("{name}: {e}")))?;
        total += data.len() as u64;
        if data.len() as u64 > MAX_FILE || total > MAX_TOTAL {
            return Err(ImportError::TooLarge(format!("{name} in the zip")));
        }
        files.push((name, data));
    }
    from_files(files)
}

/// The recipes of a folder (and its folders): every `.json` file that holds one.
pub(crate) fn from_folder(path: &Path) -> Result<Vec<Incoming>, ImportError> {
    let mut paths = Vec::new();
    walk(path, &mut paths, 0)?;
    // Folders are judged inside the export only: an `ingredients` folder above it is not.
    paths.retain(|p| wanted(&p.strip_prefix(path).unwrap_or(p).to_string_lossy()));
    let mut files = Vec::new();
    let mut total = 0u64;
    for p in paths {
        let read_error = |e: std::io::Error| ImportError::Read {
            path: p.display().to_string(),
            message: e.to_string(),
        };
        let size = std::fs::metadata(&p).map_err(read_error)?.len();
        total += size;
        if size > MAX_FILE || total > MAX_TOTAL {
            return Err(ImportError::TooLarge(p.display().to_string()));
        }
        let data = std::fs::read(&p).map_err(read_error)?;
        files.push((p.display().to_string(), data));
    }
    from_files(files)
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>, depth: usize) -> Result<(), ImportError> {
    let read_error = |e: std::io::Error| ImportError::Read {
        path: dir.display().to_string(),
        message: e.to_string(),
    };
    if depth > 6 {
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(read_error)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if out.len() > MAX_FILES {
            return Err(ImportError::TooLarge(format!(
                "more than {MAX_FILES} files in {}",
                dir.display()
            )));
        }
        let meta = std::fs::symlink_metadata(&p).map_err(read_error)?;
        if meta.is_dir() {
            walk(&p, out, depth + 1)?;
        } else if meta.is_file() {
            out.push(p);
        }
    }
    Ok(())
}

/// A file that may hold a recipe: `.json` or `.jsonld`, not in an `ingredients` folder.
fn wanted(name: &str) -> bool {
    let lower = name.to_lowercase();
    let recipe_file = lower.ends_with(".json") || lower.ends_with(".jsonld");
    let ingredient = lower.split(['/', '\\']).any(|part| part == "ingredients");
    recipe_file && !ingredient
}

fn from_files(files: Vec<(String, Vec<u8>)>) -> Result<Vec<Incoming>, ImportError> {
    let mut drafts = Vec::new();
    for (_, data) in files {
        let Ok(value) = serde_json::from_slice::<Value>(&data) else {
            continue;
        };
        if let Ok(found) = super::json::from_value(&value) {
            drafts.extend(found);
        }
    }
    if drafts.is_empty() {
        return Err(ImportError::NoRecipe(
            "no recipe file (Bar Assistant, JSON-LD or libations) found".to_owned(),
        ));
    }
    Ok(drafts)
}
