//! `libations check FILE`: validate a recipes file without serving it.

use crate::recipes::Recipes;
use std::path::Path;
use std::process::ExitCode;

/// Every problem on stderr and exit 1, or the warnings (stderr) and a summary (stdout)
/// and exit 0.
pub(super) fn check(file: &Path) -> ExitCode {
    match Recipes::from_file(file) {
        Ok(recipes) => {
            for w in recipes.warnings() {
                eprintln!("warning: {w}");
            }
            println!("{}", summary(file, &recipes));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
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
