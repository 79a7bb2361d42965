//! Each connection's share of what all connections share: why one HTTP/2 connection with
//! dozens of streams cannot crowd the others out of the CPU-heavy work (searches).

use std::sync::Arc;

/// What one connection may use of resources that all connections share, handed to the app
/// in each request's extensions.
#[derive(Debug, Clone)]
pub struct Share {
    /// CPU-heavy work (searches) of this connection at once: its requests queue behind
    /// each other instead of filling the process's queue, so that one HTTP/2 connection
    /// with dozens of streams cannot crowd the others out.
    pub heavy: Arc<tokio::sync::Semaphore>,
}

impl Share {
    /// Heavy tasks one connection may have admitted at once.
    pub const HEAVY: usize = 2;

    pub fn new() -> Share {
        Share {
            heavy: Arc::new(tokio::sync::Semaphore::new(Share::HEAVY)),
        }
    }
}

impl Default for Share {
    fn default() -> Share {
        Share::new()
    }
}
