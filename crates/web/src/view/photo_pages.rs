//! A photo's own page (`/recipes/{id}/photos/{photo}`: the photo large, with Delete and
//! "Make cover" for whoever may, or the question before deleting it) and the page a photo
//! form's refusal answers with (issue #44). Apart from [`super::photos`] because these are
//! whole pages in the site's [`Chrome`], which the recipe page's template also holds.

use super::photos::{PhotoLink, PhotoRights};
use super::templates::Chrome;
use askama::Template;

/// `/recipes/{id}/photos/{photo}`: the photo large, the way back, and its buttons; or,
/// `confirming`, the question before it is deleted for good.
#[derive(Template)]
#[template(path = "photo.html")]
pub(crate) struct PhotoPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) recipe: u64,
    pub(crate) name: &'a str,
    pub(crate) photo: PhotoLink,
    pub(crate) is_cover: bool,
    pub(crate) rights: PhotoRights,
    pub(crate) csrf: String,
    pub(crate) confirming: bool,
}

/// The page a photo form's refusal answers with: what is wrong, and the way back.
#[derive(Template)]
#[template(path = "photo_refused.html")]
pub(crate) struct PhotoRefused<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) title: &'a str,
    pub(crate) message: String,
    pub(crate) recipe: u64,
    pub(crate) name: &'a str,
}
