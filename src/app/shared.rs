//! What every listener of the process shares, made by [`super::serving`] and handed to the
//! listeners ([`super::local`], [`super::tailnet`]): in a room of its own so that the
//! arrows point one way, from serving to the listeners and from both to this.

use crate::connections::Budget;
use crate::metrics::Metrics;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What every listener of the process shares.
pub(super) struct Shared {
    pub metrics: Arc<Metrics>,
    /// Answer bytes not yet sent, for all connections together.
    pub budget: Arc<Budget>,
    /// Cancelled when shutdown starts.
    pub stopping: CancellationToken,
}
