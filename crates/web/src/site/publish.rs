//! The one way a new [`Site`] is served: a reload of the file, a change saved in the app,
//! and a change of the household's own strengths all build their site here and swap it
//! in, one at a time, so an older collection never replaces a newer one and no change of
//! the figures is lost to a site built meanwhile.
//!
//! The steps, under one turn (a mutex that also holds the number of the last change
//! published):
//! 1. take the collection and the household's strengths: a reload brings a collection,
//!    a save a collection and its change number (an older one than the last published
//!    changes nothing), a strengths change only the table; what is not brought is the
//!    served site's;
//! 2. build the site on a blocking thread;
//! 3. swap it in (requests already running finish on the old one), count and log it;
//! 4. compress its bodies in the background (a reload with the full effort, a change as
//!    quickly as its author waits for).

use super::{Assets, Site, SiteError};
use crate::metrics::Metrics;
use crate::recipes::Recipes;
use crate::strength::Household;
use arc_swap::ArcSwap;
use std::sync::Arc;

/// Why a new site was not served (the one before stays).
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error(transparent)]
    Site(#[from] SiteError),
    /// The task that builds the site panicked or was cancelled.
    #[error("building the site did not finish: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// Serves new sites. Cheap to clone; clones share the turn.
#[derive(Clone)]
pub struct Publisher {
    site: Arc<ArcSwap<Site>>,
    assets: Arc<Assets>,
    metrics: Arc<Metrics>,
    /// Held while a site is built and swapped in; the number of the last change published.
    turn: Arc<tokio::sync::Mutex<u64>>,
}

/// What a new site is made of, beside the served one's.
enum Brought {
    Collection(Recipes),
    Strengths(Arc<Household>),
}

impl Publisher {
    pub fn new(site: Arc<ArcSwap<Site>>, assets: Arc<Assets>, metrics: Arc<Metrics>) -> Publisher {
        Publisher {
            site,
            assets,
            metrics,
            turn: Arc::new(tokio::sync::Mutex::new(0)),
        }
    }

    /// The served site, as requests take it.
    pub fn site(&self) -> &Arc<ArcSwap<Site>> {
        &self.site
    }

    /// The files every site is made with.
    pub fn assets(&self) -> &Arc<Assets> {
        &self.assets
    }

    /// Serves a collection read again from the file (`read` runs on a blocking thread):
    /// the recipe count, or why not (the served site stays).
    pub async fn reloaded<E>(
        &self,
        read: impl FnOnce() -> Result<Recipes, E> + Send + 'static,
    ) -> Result<usize, E>
    where
        E: From<PublishError> + Send + 'static,
    {
        let _turn = self.turn.lock().await;
        let recipes = tokio::task::spawn_blocking(read)
            .await
            .map_err(|e| E::from(PublishError::Task(e)))??;
        let site = self.swap(Brought::Collection(recipes), "reloaded").await?;
        let count = site.recipes().len();
        // A reload is not waited for by anyone: its bodies get `Site::compress`'s effort
        // (the best, in a release build).
        tokio::task::spawn_blocking(move || site.compress());
        Ok(count)
    }

    /// Serves the collection after saved change number `change`; `then` runs once it is
    /// served, still in turn (the reloader marks the file it wrote as seen). A change older
    /// than the last published changes nothing: the newer collection holds it.
    pub async fn saved(
        &self,
        recipes: Recipes,
        change: u64,
        then: impl FnOnce() + Send,
    ) -> Result<(), PublishError> {
        let mut last = self.turn.lock().await;
        if change <= *last {
            return Ok(());
        }
        let site = self
            .swap(Brought::Collection(recipes), "saved in the app: serving")
            .await?;
        tokio::task::spawn_blocking(move || site.compress_quickly());
        then();
        *last = change;
        Ok(())
    }

    /// Serves the collection worked out again with the household's own strengths `own`.
    pub async fn strengths(&self, own: Household) -> Result<(), PublishError> {
        let _turn = self.turn.lock().await;
        let what = "the household's strengths changed: serving";
        let site = self.swap(Brought::Strengths(Arc::new(own)), what).await?;
        tokio::task::spawn_blocking(move || site.compress_quickly());
        Ok(())
    }

    /// Builds the site from what was brought and the served one's rest, and serves it; the
    /// caller compresses it (with the effort its reason calls for).
    async fn swap(&self, brought: Brought, what: &str) -> Result<Arc<Site>, PublishError> {
        let current = self.site.load_full();
        let (recipes, own) = match brought {
            Brought::Collection(recipes) => (recipes, current.own_strengths().clone()),
            Brought::Strengths(own) => (current.recipes().clone(), own),
        };
        let assets = self.assets.clone();
        let site = tokio::task::spawn_blocking(move || Site::new(recipes, &assets, own)).await??;
        let site = Arc::new(site);
        let count = site.recipes().len();
        self.site.store(site.clone());
        self.metrics.loaded(count);
        tracing::info!(
            recipes = count,
            "{what} {count} recipes from {}",
            site.recipes().origin()
        );
        Ok(site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipes::Origin;

    fn recipes(names: &[&str]) -> Recipes {
        let list: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                format!(
                    r#"{{"id":{},"name":"{n}","base":["Gin"],"glass":["Coupe"],"method":["Shake"],"ice":[],"ingredients":[{{"name":"Gin","measure":"60","unit":"ml"}}],"garnish":[]}}"#,
                    i + 1
                )
            })
            .collect();
        let text = format!("[{}]", list.join(","));
        Recipes::parse(&text, Origin::Embedded, std::time::UNIX_EPOCH).expect("valid")
    }

    fn publisher() -> Publisher {
        let assets = Arc::new(Assets::load());
        let site = Site::new(recipes(&["A"]), &assets, Default::default()).expect("a site");
        Publisher::new(
            Arc::new(ArcSwap::from_pointee(site)),
            assets,
            Arc::new(Metrics::new()),
        )
    }

    fn gin_abv(p: &Publisher) -> f64 {
        let site = p.site().load_full();
        site.own_strengths().get("gin").copied().unwrap_or(-1.0)
    }

    #[tokio::test]
    async fn the_household_strengths_outlive_saves_and_reloads() {
        let p = publisher();
        p.strengths(Household::from([("gin".to_owned(), 57.0)]))
            .await
            .expect("served");
        assert_eq!(gin_abv(&p), 57.0);
        let mut ran = false;
        p.saved(recipes(&["A", "B"]), 1, || ran = true)
            .await
            .expect("served");
        assert!(ran, "the saver hears once it is served");
        assert_eq!(p.site().load().recipes().len(), 2);
        assert_eq!(gin_abv(&p), 57.0, "a save keeps the household's strengths");
        let count = p
            .reloaded(|| Ok::<_, PublishError>(recipes(&["A", "B", "C"])))
            .await
            .expect("served");
        assert_eq!(count, 3);
        assert_eq!(gin_abv(&p), 57.0, "a reload keeps them too");
        p.strengths(Household::new()).await.expect("served");
        assert_eq!(
            p.site().load().recipes().len(),
            3,
            "and they keep the collection"
        );
        assert_eq!(gin_abv(&p), -1.0);
    }

    #[tokio::test]
    async fn an_older_save_than_the_last_served_changes_nothing() {
        let p = publisher();
        p.saved(recipes(&["A", "B"]), 2, || {})
            .await
            .expect("served");
        let mut ran = false;
        p.saved(recipes(&["A"]), 1, || ran = true)
            .await
            .expect("dropped");
        assert!(!ran);
        assert_eq!(p.site().load().recipes().len(), 2);
    }
}
