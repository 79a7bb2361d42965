//! Live reload of the recipes file, on SIGHUP and when the file changes.
//!
//! A valid file replaces the served site in one atomic swap; requests already running
//! finish on the old one. An invalid file is rejected with every problem in the log, and
//! the old recipes stay: nothing is lost and nothing is half-loaded.

use crate::credentials::{self, CredentialError};
use crate::metrics::Metrics;
use crate::recipes::{LoadError, Recipes, Stamp};
use crate::web::{Assets, Site, SiteError};
use arc_swap::ArcSwap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often the file's size, time and inode are compared with the last load.
const POLL: Duration = Duration::from_secs(1);

/// Why a reload was refused (the recipes served before stay).
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Site(#[from] SiteError),
    /// The task that reads the file and builds the site panicked or was cancelled.
    #[error("the reload task did not finish: {0}")]
    Task(#[from] tokio::task::JoinError),
}

async fn stamp(path: &Path) -> Option<Stamp> {
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || Stamp::of(&path))
        .await
        .ok()
        .flatten()
}

/// Reloads the recipes file into the shared site.
#[derive(Clone)]
pub struct Reloader {
    /// `None` when serving the embedded sample: there is nothing to reload.
    path: Option<PathBuf>,
    site: Arc<ArcSwap<Site>>,
    assets: Arc<Assets>,
    metrics: Arc<Metrics>,
    /// The stamp of the file as last read or written by us: the poller reloads when the
    /// file's stamp differs. Shared by clones, so a save in the app (which publishes its own
    /// collection) does not make the poller read the file again.
    seen: Arc<Mutex<Option<Stamp>>>,
    /// Held while a new site is built and swapped in, by reloads and publishes alike, so
    /// that an older collection never replaces a newer one; holds the number of the last
    /// change published.
    swapping: Arc<tokio::sync::Mutex<u64>>,
    /// A larger file is refused and the served recipes kept.
    max_bytes: u64,
}

impl Reloader {
    /// `loaded` is the file's [`Stamp`] from before the served recipes were read.
    pub fn new(
        path: Option<PathBuf>,
        loaded: Option<Stamp>,
        site: Arc<ArcSwap<Site>>,
        assets: Arc<Assets>,
        metrics: Arc<Metrics>,
        max_bytes: u64,
    ) -> Reloader {
        Reloader {
            path,
            site,
            assets,
            metrics,
            seen: Arc::new(Mutex::new(loaded)),
            swapping: Arc::new(tokio::sync::Mutex::new(0)),
            max_bytes,
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Option<Stamp>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Loads the file again; on success swaps it in and returns the recipe count. A
    /// refused file is logged and counted here, so callers need not report it again.
    pub async fn reload(&self) -> Result<usize, ReloadError> {
        let Some(path) = &self.path else {
            tracing::info!(
                "reload asked for, but the embedded sample is served: nothing to reload"
            );
            return Ok(self.site.load().recipes().len());
        };
        let _turn = self.swapping.lock().await;
        match self.build(path.clone()).await {
            Ok(site) => Ok(self.swap_in(site)),
            Err(e) => {
                self.metrics.reload_failed();
                tracing::error!("reload rejected, still serving the previous recipes: {e}");
                Err(e)
            }
        }
    }

    /// Reads the file at `path` and builds a site from it, off the async workers.
    async fn build(&self, path: PathBuf) -> Result<Site, ReloadError> {
        let (assets, max) = (self.assets.clone(), self.max_bytes);
        tokio::task::spawn_blocking(move || -> Result<Site, ReloadError> {
            let recipes = Recipes::from_file_at_most(&credentials::resolve(&path)?, max)?;
            recipes.log_warnings();
            Ok(Site::new(recipes, &assets)?)
        })
        .await?
    }

    /// Serves `site` from now on; compresses its bodies in the background.
    pub fn swap_in(&self, site: Site) -> usize {
        let site = self.swap_in_as(site, "reloaded");
        let count = site.recipes().len();
        tokio::task::spawn_blocking(move || site.compress());
        count
    }

    /// Serves `site` from now on and logs it (`what`: why it changed); the caller
    /// compresses its bodies.
    pub fn swap_in_as(&self, site: Site, what: &str) -> Arc<Site> {
        let site = Arc::new(site);
        let count = site.recipes().len();
        self.site.store(site.clone());
        self.metrics.loaded(count);
        tracing::info!(
            recipes = count,
            "{what} {count} recipes from {}",
            site.recipes().origin()
        );
        site
    }

    /// Reloads on SIGHUP and whenever the file changes, until `stopping` is cancelled.
    pub async fn run(self, stopping: CancellationToken) {
        let mut hangup = match crate::signals::hangup() {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGHUP; reload by changing the file");
                None
            }
        };
        let resolved = self
            .path
            .as_ref()
            .and_then(|p| credentials::resolve(p).ok());
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stopping.cancelled() => return,
                Some(()) = recv(&mut hangup) => {
                    tracing::info!("SIGHUP: reloading recipes");
                    if let Some(p) = &resolved {
                        let now = stamp(p).await;
                        *self.seen() = now;
                    }
                    // A refused file is logged and counted by `reload` itself.
                    let _ = self.reload().await;
                }
                _ = tick.tick(), if resolved.is_some() => {
                    let Some(p) = &resolved else { continue };
                    let now = stamp(p).await;
                    let changed = now.is_some() && now != *self.seen();
                    if changed {
                        *self.seen() = now;
                        tracing::info!("{} changed: reloading recipes", p.display());
                        let _ = self.reload().await;
                    }
                }
            }
        }
    }
}

/// A change saved in the app: its collection is served at once, and the file it wrote is
/// marked as seen so the poller does not load it again.
/// A change saved in the app: its collection is served at once, and the file it wrote is
/// marked as seen so the poller does not load it again. Publishes and reloads take turns
/// (`swapping`), and a publish for an older change than the last one published is
/// dropped: the newer collection already holds it.
impl crate::web::Publish for Reloader {
    fn publish(
        &self,
        recipes: Recipes,
        written: Option<Stamp>,
        change: u64,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send + '_>> {
        Box::pin(async move {
            let mut last = self.swapping.lock().await;
            if change <= *last {
                return Ok(());
            }
            let assets = self.assets.clone();
            let site = tokio::task::spawn_blocking(move || Site::new(recipes, &assets))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
            let site = self.swap_in_as(site, "saved in the app: serving");
            tokio::task::spawn_blocking(move || site.compress_quickly());
            *self.seen() = written;
            *last = change;
            Ok(())
        })
    }
}

async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
    match signal {
        Some(s) => s.recv().await,
        None => std::future::pending().await,
    }
}
