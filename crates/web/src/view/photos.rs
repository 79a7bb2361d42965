//! A recipe's photos as pages show them without JavaScript (issue #44): the cover beside
//! the name and the others in a strip under the recipe, each a link to its own page
//! (`/recipes/{id}/photos/{photo}`: the photo large, with Delete and "Make cover" for
//! whoever may), the upload form for a person the household knows, and the page a refused
//! upload answers with. static/js/photos.js takes the same markup over.

use crate::household::Photo;

/// One photo as a page links it.
#[derive(Debug, Clone)]
pub(crate) struct PhotoLink {
    pub(crate) id: i64,
    pub(crate) url: String,
    pub(crate) thumb: String,
    /// Whose it is (their login), for the alt text.
    pub(crate) by: String,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl From<&Photo> for PhotoLink {
    fn from(photo: &Photo) -> PhotoLink {
        PhotoLink {
            id: photo.id,
            url: format!("/photos/{}.jpg", photo.hash),
            thumb: format!("/photos/{}.thumb.jpg", photo.hash),
            by: photo.by.clone(),
            width: photo.width,
            height: photo.height,
        }
    }
}

/// A recipe page's photos: its cover, the others, and the upload form's token for a
/// person the household knows (none: no form).
#[derive(Debug, Clone, Default)]
pub(crate) struct RecipePhotos {
    pub(crate) cover: Option<PhotoLink>,
    pub(crate) others: Vec<PhotoLink>,
    pub(crate) csrf: Option<String>,
}

impl RecipePhotos {
    /// `photos` (cover first, as the household lists them) and the form's token.
    pub(crate) fn new(photos: &[Photo], csrf: Option<String>) -> RecipePhotos {
        let mut links = photos.iter().map(PhotoLink::from);
        RecipePhotos {
            cover: links.next(),
            others: links.collect(),
            csrf,
        }
    }

    /// Nothing to show and no form: the page every visitor without photos gets.
    pub(crate) fn is_empty(&self) -> bool {
        self.cover.is_none() && self.csrf.is_none()
    }
}

/// What the visitor may do to a photo on its page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PhotoRights {
    pub(crate) delete: bool,
    pub(crate) cover: bool,
}
