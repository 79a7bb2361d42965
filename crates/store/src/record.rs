//! What one line of the journal holds: a change ([`Entry`]) or a [`Mark`] that keeps
//! numbers and says what happened to the history. Written by `journal`, read back by
//! `repair`, shown by the history page and `GET /api/changes`.

use super::document::Object;
use serde::{Deserialize, Serialize};

/// What a change did to a recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Created,
    Changed,
    Deleted,
}

/// One change, as stored and as `GET /api/changes` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The change's number: increasing, never reused.
    pub n: u64,
    /// When, in seconds since 1970 (UTC).
    pub at: u64,
    /// Who: the tailnet login, or the local identity.
    pub who: String,
    pub action: Action,
    pub id: u64,
    /// The recipe's name after the change (before it, for a delete).
    pub name: String,
    /// The schema fields whose value changed.
    pub fields: Vec<String>,
    /// The change this one undid, if it is an undo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// The highest recipe id ever given out, this change included.
    pub(crate) max_id: u64,
    /// The SHA-256 of the recipes file this change started from: if the file still holds
    /// exactly those bytes, the change never reached it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) file_before: Option<String>,
    /// The recipe object before the change (`None` when it was created).
    pub(crate) before: Option<Object>,
    /// The recipe object after the change (`None` when it was deleted).
    pub(crate) after: Option<Object>,
    /// The other recipes of a change that made several at once (an import saved with
    /// `POST /api/recipes/bulk`, or the undo of one): one change, one line, one undo.
    /// Empty for a change of one recipe, and then not written (older lines read as such).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) more: Vec<Part>,
}

/// One more recipe of a change of several ([`Entry::more`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub id: u64,
    pub name: String,
    pub(crate) before: Option<Object>,
    pub(crate) after: Option<Object>,
}

impl Entry {
    /// Every recipe the change touched, as `(id, before, after)`: its own first, then
    /// [`more`](Self::more).
    pub fn parts(&self) -> impl Iterator<Item = (u64, Option<&Object>, Option<&Object>)> {
        std::iter::once((self.id, self.before.as_ref(), self.after.as_ref())).chain(
            self.more
                .iter()
                .map(|p| (p.id, p.before.as_ref(), p.after.as_ref())),
        )
    }

    /// How many recipes the change touched.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        1 + self.more.len()
    }
}

/// A line that is not a change: the journal was started again (set aside, or written
/// again from memory). It keeps the highest recipe id and change number given out
/// before, and says what happened, for the history page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mark {
    /// When, in seconds since 1970 (UTC).
    pub at: u64,
    /// What happened, in a sentence, for the history page; `None` for a mark that only
    /// keeps numbers given to a change that was taken back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarted: Option<String>,
    /// The name the old journal was given beside the recipes file, if it was set aside.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) set_aside: Option<String>,
    pub(crate) max_id: u64,
    pub(crate) last_n: u64,
    /// A change refused after its file was renamed into place and could not be put back:
    /// the line just before this mark. It never happened; whoever opens the journal next
    /// puts the file back and drops the line ([`Journal::refused`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) refused: Option<u64>,
}
