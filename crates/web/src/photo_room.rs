//! Where the household's photos are made and kept (issue #44): the photo store in the
//! state directory (`photos/`, beside the database), and the admission of the work of
//! making one, which runs off the async runtime, two at a time, since decoding a 12 MP
//! photo holds a core for a good part of a second.
//!
//! At start, deleted photos past the 30 days they may be restored are forgotten, then
//! files no photo row names (an upload cut off between its files and its row, a deleted
//! photo forgotten) are swept; a deleted photo still restorable keeps its files, and so
//! does a file written within the hour (`libations_photos::store::SWEEP_SPARES`): an
//! `import-household` running beside the start writes its files before its rows.

use crate::household::Household;
use libations_photos::{PhotoError, PhotoStore, Prepared, Stored};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Photos made at once; more wait their turn.
const AT_ONCE: usize = 2;

/// The photo store and the admission of the work on it.
#[derive(Debug)]
pub(crate) struct PhotoRoom {
    store: PhotoStore,
    work: Arc<Semaphore>,
}

impl PhotoRoom {
    /// The room beside `db`'s file, deleted photos past their time forgotten, swept of
    /// files no row names.
    pub(crate) fn open(db: &Household) -> std::io::Result<PhotoRoom> {
        let dir = PhotoStore::dir_beside(db.path());
        let store = PhotoStore::open(&dir)?;
        match db.purge_gone_photos() {
            Ok(0) => {}
            Ok(n) => tracing::info!("forgot {n} photo(s) deleted over 30 days ago"),
            Err(e) => tracing::warn!("the deleted photos could not be purged: {e}"),
        }
        match db.photo_hashes().map(|keep| store.sweep(&keep)) {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!("swept {n} photo files no photo names"),
            Ok(Err(e)) => tracing::warn!("the photo files could not be swept: {e}"),
            Err(e) => tracing::warn!("the photos could not be listed to sweep: {e}"),
        }
        Ok(PhotoRoom {
            store,
            work: Arc::new(Semaphore::new(AT_ONCE)),
        })
    }

    pub(crate) fn store(&self) -> &PhotoStore {
        &self.store
    }

    /// `bytes` made into a photo and its files written durably, off the runtime, once a
    /// turn is free.
    pub(crate) async fn make(&self, bytes: axum::body::Bytes) -> Result<Stored, PhotoError> {
        let _turn = self.work.clone().acquire_owned().await;
        let store = self.store.clone();
        let made = tokio::task::spawn_blocking(move || {
            let prepared: Prepared = libations_photos::prepare(&bytes)?;
            store.keep(&prepared)
        })
        .await;
        made.unwrap_or_else(|e| Err(PhotoError::Encode(format!("the photo's work stopped: {e}"))))
    }
}
