//! The change pipeline: every change, from the JSON API or a form, admitted by the one
//! write guard ([`super::write`]), goes to the store on a blocking thread and the new
//! collection is published.
//!
//! A file of its own because both ways of changing recipes use it: a change is saved and
//! published in one place, so the forms and the API cannot differ in how.

use super::editing::{Editing, Editor};
use crate::error::WebError;
use crate::store::{Edit, Names, Saved, Store, StoreError};
use std::sync::Arc;

/// Runs one change by an admitted editor (`Write<Recipes>`): the store (on a blocking
/// thread), then publishing. Shared with the HTML forms.
pub(crate) async fn change(
    editing: &Arc<Editing>,
    editor: &Editor,
    edit: Edit,
) -> Result<Saved, WebError> {
    change_as(editing, editor, edit, Names::MayRepeat).await
}

/// [`change`] of a recipe's name: refused with [`WebError::Duplicate`] when another recipe
/// has it and the editor did not say they want a second ([`Names::Unique`]).
pub(crate) async fn change_as(
    editing: &Arc<Editing>,
    editor: &Editor,
    edit: Edit,
    names: Names,
) -> Result<Saved, WebError> {
    let store = editing
        .store()
        .cloned()
        .ok_or_else(|| WebError::Forbidden("Editing is off.".into()))?;
    let who = editor.login.clone();
    let saved = store_call(store, move |store| store.apply_as(edit, &who, names)).await?;
    if saved.entry.is_some() {
        editing.publish(&saved).await?;
    }
    Ok(saved)
}

/// Runs a store call on the blocking pool: it reads and fsyncs files. Its refusal names
/// the recipes file as the editor knows it ([`WebError::from_store`]).
pub(crate) async fn store_call<T: Send + 'static>(
    store: Arc<Store>,
    work: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, WebError> {
    let file = store.path().to_owned();
    tokio::task::spawn_blocking(move || work(&store))
        .await
        .map_err(WebError::Task)?
        .map_err(|e| WebError::from_store(e, &file))
}
