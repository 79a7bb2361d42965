//! Background tasks whose end is waited for: a panic in one must be seen in the log, not
//! dropped with the `JoinError` that carries it.

use tokio::task::JoinHandle;

/// Waits for `task` (`what`: how the log names it) and logs it at ERROR if it panicked or
/// was cancelled. The process goes on stopping either way: a failed task has nothing
/// left to finish.
pub async fn join(what: &str, task: JoinHandle<()>) {
    if let Err(e) = task.await {
        if e.is_panic() {
            tracing::error!("{what} panicked: {e}");
        } else {
            tracing::error!("{what} was cancelled: {e}");
        }
    }
}
