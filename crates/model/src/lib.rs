//! The recipe model: what a recipe is and everything worked out from a collection alone,
//! with no I/O beyond reading a file and nothing about HTTP, people or the tailnet.
//!
//! - [`recipes`]: the data model, loading and validating a recipes file, and checking a
//!   recipe sent to be saved ([`recipes::Submitted`]).
//! - [`text`]: folding text for comparison, and where words start.
//! - [`units`]: amounts in ml, cl or oz, and for more servings.
//! - [`ingredients`]: the shelf's names for ingredients, staples, what a recipe needs.
//! - [`makes`]: what a shelf makes of a collection, read by bottle through [`vocabulary`].
//! - [`vocabulary`]: the bar's words: bottles, kinds, spellings and preps.
//! - [`search`]: the one definition of what a query matches.
//! - [`strength`]: how strong a recipe is: ABV, volume and standard drinks, with dilution.
//! - [`digest`]: the one content hash, so a recipe's version and its ETag agree.
//! - [`strict_json`]: JSON read with every repeated key named, for writes and backups.
//!
//! It uses no other crate of ours: every other crate may use it.

pub mod digest;
pub mod ingredients;
pub mod makes;
pub mod recipes;
pub mod search;
pub mod strength;
pub mod strict_json;
pub mod text;
pub mod units;
pub mod vocabulary;
