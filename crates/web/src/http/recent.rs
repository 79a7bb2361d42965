//! Compressed answers to recent searches, kept for whoever asks the same next.
//!
//! Searching is cheap (a few per cent of a search's CPU); rendering and compressing its
//! answer is the rest, and the memory it churns through is what glibc's heaps keep
//! afterwards. The same questions come again and again: every search typed on a phone
//! starts with one of a few dozen letters and grows a letter at a time, and everyone at the
//! bar types the same few spirits. An answer depends only on the collection and the search
//! as typed (`?q=`), so one made for a search is kept, compressed, and sent as it is to the
//! next asker with the same `q` and coding, until the collection changes (a [`Recent`]
//! belongs to one loaded collection, made afresh with it).
//!
//! Bounded by bytes ([`BUDGET`]), with the least useful answers evicted first
//! (`quick_cache`'s S3-FIFO). Answers sent whole (small ones, compressed whole for their
//! client if that is smaller, and any for a client that takes no compression) are kept
//! alike, up to [`LARGEST`] bytes: on a small collection nearly every answer is small, and
//! making it again costs as much per byte as a large one.

use super::compressing::{Finished, Packed};
use super::fixed::FixedBody;
use super::negotiate::{Encoding, negotiate};
use axum::body::Body;
use axum::http::{HeaderMap, Response};
use std::sync::Arc;

/// Bytes of compressed answers kept: a busy evening's few dozen searches, for thousands of
/// recipes (sizes: docs/bench/notes-web.md).
pub(crate) const BUDGET: u64 = 2 << 20;

/// The largest answer kept: one search's answer must not push out a dozen others.
pub(crate) const LARGEST: usize = 256 << 10;

/// Which answer to a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// `/?q=`: the list page for the search.
    Page,
    /// `/api/recipes?q=`: its JSON.
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    kind: Kind,
    q: Box<str>,
    encoding: Encoding,
}

#[derive(Debug, Clone)]
struct BySize;

/// A kept answer: compressed as it was written, or made whole.
#[derive(Debug)]
enum Answer {
    Packed(Packed),
    Whole(FixedBody),
}

impl Answer {
    fn size(&self) -> usize {
        match self {
            Answer::Packed(packed) => packed.size(),
            Answer::Whole(body) => body.size(),
        }
    }

    fn respond(&self, request: &HeaderMap) -> Response<Body> {
        match self {
            Answer::Packed(packed) => packed.respond(request),
            // Shared by every asker, like a pre-rendered page: not this request's own.
            Answer::Whole(body) => body.respond(request),
        }
    }
}

impl quick_cache::Weighter<Key, Arc<Answer>> for BySize {
    fn weight(&self, key: &Key, answer: &Arc<Answer>) -> u64 {
        (answer.size() + key.q.len()) as u64
    }
}

/// The kept answers of one collection.
pub(crate) struct Recent {
    kept: quick_cache::sync::Cache<Key, Arc<Answer>, BySize>,
}

impl std::fmt::Debug for Recent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recent")
            .field("answers", &self.kept.len())
            .field("bytes", &self.kept.weight())
            .finish()
    }
}

impl Recent {
    pub(crate) fn new() -> Recent {
        // One shard: a shard's share of the budget caps the largest answer it takes, and
        // a few hundred requests a second do not contend for one lock.
        let options = quick_cache::OptionsBuilder::new()
            .shards(1)
            .estimated_items_capacity(64)
            .weight_capacity(BUDGET)
            .build();
        let kept = match options {
            Ok(options) => quick_cache::sync::Cache::with_options(
                options,
                BySize,
                Default::default(),
                Default::default(),
            ),
            Err(_) => quick_cache::sync::Cache::with_weighter(64, BUDGET, BySize),
        };
        Recent { kept }
    }

    /// The kept answer to `q` for this request's coding, if there is one.
    pub(crate) fn get(&self, kind: Kind, q: &str, request: &HeaderMap) -> Option<Response<Body>> {
        let key = Key {
            kind,
            q: q.into(),
            encoding: negotiate(request),
        };
        self.kept.get(&key).map(|answer| answer.respond(request))
    }

    /// Sends a freshly made answer, keeping it first if it is not too large.
    pub(crate) fn keep(
        &self,
        kind: Kind,
        q: &str,
        finished: Finished,
        request: &HeaderMap,
    ) -> Response<Body> {
        if finished.size() > LARGEST {
            // Not kept, so made for this request alone: sent as any answer made per
            // request, its bytes counted against the budget for unsent answers.
            return finished.respond(request);
        }
        let answer = match finished {
            Finished::Packed(packed) => Answer::Packed(packed),
            Finished::Whole(body) => Answer::Whole(body),
        };
        // A whole answer was made for this request's coding (and sent in it, or as it is
        // if compressing did not make it smaller): kept under the coding asked for.
        let encoding = match &answer {
            Answer::Packed(packed) => packed.encoding(),
            Answer::Whole(_) => negotiate(request),
        };
        let key = Key {
            kind,
            q: q.into(),
            encoding,
        };
        let answer = Arc::new(answer);
        self.kept.insert(key, answer.clone());
        answer.respond(request)
    }

    /// How many answers are kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.kept.len()
    }
}
