//! What the askama templates are given: one struct per template, and the helpers that
//! shape a recipe for showing (its glass icon, links in its notes, the recipe form's draft).
//!
//! Why a room of its own: the templates' values are plain data made from recipes, and
//! keeping them apart from how a page is cached, compressed or routed lets a page's look be
//! changed and tested alone. This room imports nothing else from `web`.
//!
//! - [`templates`]: the template structs (`Chrome` around every page, the list, a recipe,
//!   the shelf, the error page, the edit form and history).
//! - [`draft`]: the recipe form as posted: its fields, the [`form::FormRecipe`] they make, row
//!   buttons, and the size caps the form shows.
//! - [`picker`]: My bar's bottles to tick, grouped by kind.
//! - [`glass`]: a recipe's glass icon. [`links`]: addresses in notes, as links.
//! - [`photos`]: a recipe's photos on its page; [`photo_pages`]: a photo's own page, a
//!   refused upload.
//! - [`shopping`]: `/shopping`, the household's shopping list without JavaScript.
//! - [`strength`]: a recipe's strength line and its working.

pub(crate) mod dates;
pub(crate) mod form;
pub(crate) mod glass;
pub(crate) mod links;
pub(crate) mod menu;
pub(crate) mod photo_pages;
pub(crate) mod photos;
pub(crate) mod picker;
pub(crate) mod qr;
pub(crate) mod shopping;
pub(crate) mod story;
pub(crate) mod strength;
pub(crate) mod templates;
