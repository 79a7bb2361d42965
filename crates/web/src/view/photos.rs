//! A recipe's photos as pages show them without JavaScript (issue #44): the cover beside
//! the name and the others in a strip under the recipe, each a link to its own page
//! (`/recipes/{id}/photos/{photo}`: the photo large, with Delete and "Make cover" for
//! whoever may), the upload form for a person the household knows, "Photo deleted." with
//! its Undo, the recently deleted photos the visitor may restore (each a Restore form),
//! and the page a refused upload answers with. static/js/photos.js takes the same markup
//! over.

use crate::household::Photo;

/// The address of photo `hash`'s large file, served as `GET /photos/{name}` for good.
pub(crate) fn large_url(hash: &str) -> String {
    format!("/photos/{hash}.jpg")
}

/// The address of photo `hash`'s thumbnail.
pub(crate) fn thumb_url(hash: &str) -> String {
    format!("/photos/{hash}.thumb.jpg")
}

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
            url: large_url(&photo.hash),
            thumb: thumb_url(&photo.hash),
            by: photo.by.clone(),
            width: photo.width,
            height: photo.height,
        }
    }
}

/// A recipe page's photos: its cover, the others, and the upload form's token for a
/// person the household knows (none: no form); the photo just deleted, if the visitor
/// may still restore it (the note "Photo deleted." and its Undo), and the deleted photos
/// they may restore.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecipePhotos {
    pub(crate) cover: Option<PhotoLink>,
    pub(crate) others: Vec<PhotoLink>,
    pub(crate) csrf: Option<String>,
    pub(crate) deleted: Option<i64>,
    pub(crate) gone: Vec<PhotoLink>,
}

impl RecipePhotos {
    /// `photos` (cover first, as the household lists them) and the form's token.
    pub(crate) fn new(photos: &[Photo], csrf: Option<String>) -> RecipePhotos {
        let mut links = photos.iter().map(PhotoLink::from);
        RecipePhotos {
            cover: links.next(),
            others: links.collect(),
            csrf,
            deleted: None,
            gone: Vec::new(),
        }
    }

    /// With the deleted photos the visitor may restore (`gone`, the one deleted last
    /// first) and the one just deleted (`deleted`, said only if among them). Both need
    /// the form's token: without it there is nothing they could press.
    pub(crate) fn with_gone(mut self, gone: &[Photo], deleted: Option<i64>) -> RecipePhotos {
        if self.csrf.is_none() {
            return self;
        }
        self.gone = gone.iter().map(PhotoLink::from).collect();
        self.deleted = deleted.filter(|d| self.gone.iter().any(|g| g.id == *d));
        self
    }

    /// What tells one page's photos from another's (the photos, in order, and the
    /// form's token, which is the person's): 0 for none and no form. A kept recipe page
    /// is kept under it, so a photo added, taken away or made the cover, or another
    /// person asking, is a page of its own.
    pub(crate) fn tag(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        if self.cover.is_none() && self.csrf.is_none() {
            return 0;
        }
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for photo in self.cover.iter().chain(&self.others) {
            (photo.id, &photo.thumb, &photo.by).hash(&mut hasher);
        }
        self.csrf.hash(&mut hasher);
        self.deleted.hash(&mut hasher);
        for photo in &self.gone {
            (photo.id, &photo.thumb).hash(&mut hasher);
        }
        hasher.finish().max(1)
    }
}

/// What the visitor may do to a photo on its page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PhotoRights {
    pub(crate) delete: bool,
    pub(crate) cover: bool,
}
