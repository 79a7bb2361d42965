//! Why the process stops with an error: one type every room returns, kept in a room of
//! its own so that the rooms below `mod` can name it without importing `mod` back.

use crate::credentials::CredentialError;
use crate::recipes::LoadError;
use crate::web::SiteError;

/// Why the program stopped with an error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(transparent)]
    Site(#[from] SiteError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen for signals: {0}")]
    Signals(std::io::Error),
    #[cfg(feature = "tailnet")]
    #[error(transparent)]
    Tailnet(#[from] crate::tailnet::TailnetError),
    #[error("cannot create the recipes file for editing: {0}")]
    Seed(#[from] crate::store::StoreError),
    /// The flags ask for something this process cannot do; the text says which flag.
    #[error("{0}")]
    Usage(String),
}
