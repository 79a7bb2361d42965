//! `libations check FILE`: validate a recipes file (and with `--household` the household's
//! database) without serving it; `libations import-household FILE`: merge a backup in.

use crate::household::{self, Backup, Household};
use crate::photos::PhotoStore;
use crate::recipes::Recipes;
use crate::vocabulary::Vocabulary;
use std::path::Path;
use std::process::ExitCode;

/// Checks what is named; exit 1 if anything has a problem.
pub(super) fn check(file: Option<&Path>, db: Option<&Path>) -> ExitCode {
    let mut failed = false;
    if let Some(file) = file {
        failed |= check_recipes(file) != ExitCode::SUCCESS;
    }
    if let Some(db) = db {
        let highest = match file.map(|f| highest_id_ever(Some(f))).transpose() {
            Ok(highest) => highest,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        match household::check_file(db, highest) {
            Ok(summary) => {
                println!("{summary}");
                failed |= photos_missing(db);
            }
            Err(e) => {
                eprintln!("{e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Merges the backup `file` into the household in `state_dir`; says what it took. The
/// recipes (`recipes_file`, else the embedded sample) say which recipe ids it may name.
pub(super) fn import_household(
    file: &Path,
    state_dir: Option<&Path>,
    recipes_file: Option<&Path>,
) -> ExitCode {
    let run = || -> Result<String, String> {
        let dir = super::wiring::state_dir(state_dir).map_err(|e| e.to_string())?;
        let recipes = recipes_in(recipes_file)?;
        let highest = crate::store::highest_id_ever(&recipes).map_err(|e| e.to_string())?;
        if super::restore::is_zip(file)? {
            return super::restore::archive(file, &dir, highest, &recipes);
        }
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut backup = Backup::from_slice(&bytes)
            .map_err(|e| format!("{}: {e}; nothing was changed", file.display()))?;
        let db = Household::open_in(&dir).map_err(|e| e.to_string())?;
        let store = PhotoStore::existing(&PhotoStore::dir_beside(db.path()));
        let left_out = backup.keep_photos_with_files(|hash| store.has(hash));
        let mut taken = db
            .import(&backup, highest)
            .map_err(|e| format!("{}: {e}; nothing was changed", file.display()))?;
        taken.photos_without_files = left_out;
        Ok(super::restore::said_taken(
            file,
            db.path(),
            &taken,
            &recipes,
        ))
    };
    said(run())
}

/// Drops the household's rows for recipe ids `recipes_file` never had; prints each.
pub(super) fn repair_household(recipes_file: &Path, state_dir: Option<&Path>) -> ExitCode {
    let run = || -> Result<String, String> {
        let dir = super::wiring::state_dir(state_dir).map_err(|e| e.to_string())?;
        let highest = highest_id_ever(Some(recipes_file))?;
        let db = Household::open_in(&dir).map_err(|e| e.to_string())?;
        let dropped = db
            .drop_strays(highest)
            .map_err(|e| format!("{e}; nothing was changed"))?;
        let mut said = format!(
            "{}: dropped {} row(s) for recipe ids {} never had (it had 1 to {highest})",
            db.path().display(),
            dropped.len(),
            recipes_file.display()
        );
        for stray in &dropped {
            said.push_str(&format!("\n  {stray}"));
        }
        let swept = super::restore::sweep(&db)?;
        if swept > 0 {
            said.push_str(&format!(
                "\n  {swept} photo file(s) no photo row names any more, removed"
            ));
        }
        Ok(said)
    };
    said(run())
}

/// Says each photo row whose files are missing (stderr); whether there was one.
fn photos_missing(db: &Path) -> bool {
    match super::restore::missing_photos(db) {
        Ok(missing) if missing.is_empty() => false,
        Ok(missing) => {
            eprintln!(
                "{}: {} photo row(s) whose files are missing (restore them from a household archive with `libations import-household`):\n  {}",
                db.display(),
                missing.len(),
                missing.join("\n  ")
            );
            true
        }
        Err(e) => {
            eprintln!("{e}");
            true
        }
    }
}

/// A household command's outcome: what it did on stdout and exit 0, or why not on stderr
/// and exit 1.
fn said(outcome: Result<String, String>) -> ExitCode {
    match outcome {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("libations: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The highest recipe id `recipes_file` (else the embedded sample) and its journal ever
/// had ([`crate::store::highest_id_ever`]).
pub(super) fn highest_id_ever(recipes_file: Option<&Path>) -> Result<u64, String> {
    let recipes = recipes_in(recipes_file)?;
    crate::store::highest_id_ever(&recipes).map_err(|e| e.to_string())
}

/// The recipes of `recipes_file`, else the embedded sample.
fn recipes_in(recipes_file: Option<&Path>) -> Result<Recipes, String> {
    match recipes_file {
        Some(path) => Recipes::from_file(path),
        None => Recipes::sample(),
    }
    .map_err(|e| e.to_string())
}

/// Every problem on stderr and exit 1, or the warnings (stderr) and a summary (stdout)
/// and exit 0.
fn check_recipes(file: &Path) -> ExitCode {
    match Recipes::from_file(file) {
        Ok(recipes) => {
            for w in recipes.warnings() {
                eprintln!("warning: {w}");
            }
            println!("{}", summary(file, &recipes));
            println!("{}", understood(&recipes));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// How much of the collection the bottles' vocabulary understands, and the names it does
/// not know (the first 20, most used first): those are ticked on a shelf as written and
/// match only themselves.
fn understood(recipes: &Recipes) -> String {
    let coverage = Vocabulary::built_in().coverage(recipes);
    let mut said = format!(
        "vocabulary: {:.1}% of {} ingredient lines name a bottle it knows",
        coverage.percent(),
        coverage.rows
    );
    if !coverage.unknown.is_empty() {
        let shown: Vec<String> = coverage
            .unknown
            .iter()
            .take(20)
            .map(|(name, rows)| format!("{name} ({rows})"))
            .collect();
        let more = coverage.unknown.len().saturating_sub(shown.len());
        said.push_str(&format!("; not known: {}", shown.join(", ")));
        if more > 0 {
            said.push_str(&format!(" and {more} more"));
        }
    }
    said
}

/// `FILE: OK, N recipes with M ingredient lines`, and how many warnings were printed.
fn summary(file: &Path, recipes: &Recipes) -> String {
    let ingredients: usize = recipes.all().iter().map(|r| r.ingredients.len()).sum();
    let warnings = match recipes.warnings().len() {
        0 => String::new(),
        n => format!("; {n} warning(s) above: it loads, but is not exact"),
    };
    format!(
        "{}: OK, {} recipes with {} ingredient lines{warnings}",
        file.display(),
        recipes.len(),
        ingredients
    )
}
