//! Live reload of the recipes file, on SIGHUP and when the file changes.
//!
//! A valid file replaces the served site in one atomic swap; requests already running
//! finish on the old one. An invalid file is rejected with every problem in the log, and
//! the old recipes stay: nothing is lost and nothing is half-loaded.

use crate::credentials::{self, CredentialError};
use crate::metrics::Metrics;
use crate::recipes::{LoadError, Recipes, Stamp};
use crate::web::{PublishError, Publisher};
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
    Publish(#[from] PublishError),
}

async fn stamp(path: &Path) -> Option<Stamp> {
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || Stamp::of(&path))
        .await
        .ok()
        .flatten()
}

/// Reloads the recipes file into the shared site, through the one [`Publisher`].
#[derive(Clone)]
pub struct Reloader {
    /// `None` when serving the embedded sample: there is nothing to reload.
    path: Option<PathBuf>,
    publisher: Publisher,
    metrics: Arc<Metrics>,
    /// The stamp of the file as last read or written by us: the poller reloads when the
    /// file's stamp differs. Shared by clones, so a save in the app (which publishes its own
    /// collection) does not make the poller read the file again.
    seen: Arc<Mutex<Option<Stamp>>>,
    /// A larger file is refused and the served recipes kept.
    max_bytes: u64,
}

impl Reloader {
    /// `loaded` is the file's [`Stamp`] from before the served recipes were read.
    pub fn new(
        path: Option<PathBuf>,
        loaded: Option<Stamp>,
        publisher: Publisher,
        metrics: Arc<Metrics>,
        max_bytes: u64,
    ) -> Reloader {
        Reloader {
            path,
            publisher,
            metrics,
            seen: Arc::new(Mutex::new(loaded)),
            max_bytes,
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Option<Stamp>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Loads the file again; on success serves it and returns the recipe count. A
    /// refused file is logged and counted here, so callers need not report it again.
    pub async fn reload(&self) -> Result<usize, ReloadError> {
        let Some(path) = self.path.clone() else {
            tracing::info!(
                "reload asked for, but the embedded sample is served: nothing to reload"
            );
            return Ok(self.publisher.site().load().recipes().len());
        };
        let max = self.max_bytes;
        let read = move || -> Result<Recipes, ReloadError> {
            let recipes = Recipes::from_file_at_most(&credentials::resolve(&path)?, max)?;
            recipes.log_warnings();
            Ok(recipes)
        };
        match self.publisher.reloaded(read).await {
            Ok(count) => Ok(count),
            Err(e) => {
                self.metrics.reload_failed();
                tracing::error!("reload rejected, still serving the previous recipes: {e}");
                Err(e)
            }
        }
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

/// A change saved in the app: its collection is served at once (through the
/// [`Publisher`], in turn with reloads; an older change than the last published is
/// dropped), and the file it wrote is marked as seen so the poller does not load it again.
impl crate::web::Publish for Reloader {
    fn publish(
        &self,
        recipes: Recipes,
        written: Option<Stamp>,
        change: u64,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send + '_>> {
        Box::pin(async move {
            self.publisher
                .saved(recipes, change, || *self.seen() = written)
                .await
                .map_err(|e| e.to_string())
        })
    }
}

async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
    match signal {
        Some(s) => s.recv().await,
        None => std::future::pending().await,
    }
}
