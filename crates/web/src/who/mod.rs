//! Who is asking, and what they may do: the tailnet identity behind a request, its grants,
//! the permission to change recipes with the checks every change passes, and the access log.
//!
//! Why a room of its own: who a visitor is and what they may change is one question with
//! one answer for every page, form and API call, and none of it depends on how a page is
//! rendered or routed; it needs only the error type a refusal is.
//!
//! - [`identity`]: [`identity::Identity`], capabilities and grants, [`identity::Resolve`],
//!   [`identity::DEFAULT_CAPABILITY`].
//! - [`visitor`]: [`visitor::Visitor`], the extractor, resolved once per request.
//! - [`editing`]: [`editing::Editing`], who may change recipes, where a change may come from,
//!   the rate limit and publishing.
//! - [`write`]: [`write::Write`], the one guard every write passes (identity, grant, origin,
//!   rate), an extractor per kind of write.
//! - [`change`]: the change pipeline the JSON API and the forms share.
//! - [`home`]: the household: who a request is for, who may change the shelf, the rate.
//! - [`access_log`]: `--access-log`, one line per request with the login.

pub(crate) mod access_log;
pub(crate) mod change;
pub(crate) mod editing;
pub mod household_door;
pub mod identity;
pub(crate) mod visitor;
pub(crate) mod write;
