//! Listening on an ordinary TCP address, for `--local` and for the metrics listener: a
//! room of its own so that both can use it without one importing the other.

use super::RunError;
use std::net::SocketAddr;
use tokio::net::TcpListener;

/// Listens on `addr`; returns the listener and the address it got (port 0 → a free one).
pub(super) async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), RunError> {
    let bind_err = |source| RunError::Bind { addr, source };
    let listener = TcpListener::bind(addr).await.map_err(bind_err)?;
    let local = listener.local_addr().map_err(bind_err)?;
    Ok((listener, local))
}
