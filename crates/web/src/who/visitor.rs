//! The extractor for who sent a request: resolved once per request, on first use.
//!
//! Apart from [`super::identity`] because it is the one part that touches a request: what
//! identities and grants are does not depend on axum, and this does not depend on how they
//! are looked up (any state that holds a [`Resolve`] will do).

use super::identity::{Identity, Resolve};
use crate::connections::Peer;
use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use std::convert::Infallible;
use std::sync::Arc;

/// The extractor: who sent this request, if known.
#[derive(Debug, Clone)]
pub(crate) struct Visitor(pub(crate) Option<Arc<Identity>>);

impl<S> FromRequestParts<S> for Visitor
where
    S: Send + Sync,
    Arc<dyn Resolve>: FromRef<S>,
{
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Visitor, Infallible> {
        if let Some(known) = parts.extensions.get::<Visitor>() {
            return Ok(known.clone());
        }
        let peer = parts.extensions.get::<Peer>().copied();
        let visitor = Visitor(Arc::<dyn Resolve>::from_ref(state).resolve(peer).await);
        parts.extensions.insert(visitor.clone());
        Ok(visitor)
    }
}
