//! `/shopping`'s template values: the household's shopping list as the server shows it
//! without JavaScript (static/js/shopping.js shows the same list on My bar).

use super::templates::Chrome;
use crate::household::ShoppingItem;
use askama::Template;

/// `/shopping`: the list, and the forms a shelf keeper changes it with.
#[derive(Template)]
#[template(path = "shopping.html")]
pub(crate) struct ShoppingPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) items: Vec<ShoppingRow>,
    pub(crate) any_got: bool,
    /// Whether the visitor may change the list (the shelf grant).
    pub(crate) may_change: bool,
    /// Why not, or why there is no list (no household, nobody the tailnet names).
    pub(crate) why: Option<String>,
    /// What the forms send back (empty for someone who may not change the list).
    pub(crate) csrf: String,
}

/// One item on `/shopping`.
pub(crate) struct ShoppingRow {
    pub(crate) name: String,
    pub(crate) got: bool,
    pub(crate) added_by: String,
}

impl From<ShoppingItem> for ShoppingRow {
    fn from(item: ShoppingItem) -> ShoppingRow {
        ShoppingRow {
            name: item.name,
            got: item.got,
            added_by: item.added_by,
        }
    }
}
