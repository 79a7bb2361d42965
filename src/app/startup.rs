//! Start-up: everything read before anything listens, then the async runtime.

use super::RunError;
use super::serving::{self, Loaded};
use crate::cli::ServeArgs;
use crate::recipes::Recipes;
use crate::recipes::Stamp;
use crate::web::Assets;
use crate::{credentials, memory};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Loads, then serves until shutdown on a runtime of its own.
pub(super) fn serve_blocking(args: &ServeArgs) -> Result<(), RunError> {
    let started = Instant::now();
    memory::loading();
    // Load before anything listens: a bad file must fail fast, with exit code 1.
    let loaded = load(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    let result = runtime.block_on(serving::serve(args, loaded, started));
    // Background work (compressing a large list page) must not hold up the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

/// Reads the recipes and, on another core meanwhile, the assets (reading, hashing),
/// which do not depend on them.
fn load(args: &ServeArgs) -> Result<Loaded, RunError> {
    let assets = std::thread::spawn(Assets::load);
    seed(args)?;
    // Stamp the file before reading it, so that the watcher cannot miss an edit made while
    // we load.
    let stamp = args
        .recipes_file
        .as_ref()
        .and_then(|path| credentials::resolve(path).ok())
        .and_then(|path| Stamp::of(&path));
    let recipes = load_recipes(args)?;
    let assets = match assets.join() {
        Ok(assets) => Arc::new(assets),
        Err(panic) => std::panic::resume_unwind(panic),
    };
    recipes.log_warnings();
    tracing::info!(
        recipes = recipes.len(),
        from = %recipes.origin(),
        "loaded {} recipes from {}",
        recipes.len(),
        recipes.origin()
    );
    Ok(Loaded {
        recipes,
        assets,
        stamp,
    })
}

/// With `--allow-edits`, creates a missing `--recipes-file` from `--seed-recipes-file` (or
/// the embedded sample), once: an existing file is never touched, so a later deploy never
/// overwrites what was edited in the app.
fn seed(args: &ServeArgs) -> Result<(), RunError> {
    let (true, Some(path)) = (args.editing.allow_edits, &args.recipes_file) else {
        return Ok(());
    };
    if path.exists() || path.is_relative() {
        return Ok(());
    }
    let (text, from) = match &args.editing.seed_recipes_file {
        Some(seed) => {
            let seed = credentials::resolve(seed)?;
            let (text, _) = crate::recipes::read_at_most(&seed, args.limits.max_recipes_bytes)?;
            (text, seed.display().to_string())
        }
        None => (
            crate::recipes::SAMPLE_JSON.to_owned(),
            "the embedded sample".to_owned(),
        ),
    };
    crate::store::seed(path, &text)?;
    tracing::info!(file = %path.display(), "created {} from {from} (editing starts from it)", path.display());
    Ok(())
}

/// Loads the recipes named by the flags, or the embedded sample.
/// A relative `--recipes-file` is looked up in `$CREDENTIALS_DIRECTORY` when that is set.
pub fn load_recipes(args: &ServeArgs) -> Result<Recipes, RunError> {
    match &args.recipes_file {
        Some(path) => Ok(Recipes::from_file_at_most(
            &credentials::resolve(path)?,
            args.limits.max_recipes_bytes,
        )?),
        None => Ok(Recipes::sample()?),
    }
}
