//! One drink as the guests' menu shows it (`/menu` and the printed card), made from a
//! recipe: the name, glass icon, description, ingredient names, strength and, where the
//! menu shows photos, the cover's address.

use super::glass;
use crate::recipes::Recipe;

/// One drink on the guests' menu: its ingredients by name only (no measures), or none
/// when the menu hides them, and how strong it is where the app knows (`≈ 18% ABV`).
pub(crate) struct MenuDrink<'a> {
    pub(crate) name: &'a str,
    pub(crate) icon: &'static str,
    pub(crate) description: Option<&'a str>,
    pub(crate) ingredients: Vec<&'a str>,
    pub(crate) strength: Option<String>,
    /// The address of the recipe's cover photo (its thumbnail), on a menu that shows them.
    pub(crate) photo: Option<String>,
}

impl<'a> MenuDrink<'a> {
    pub(crate) fn new(
        recipe: &'a Recipe,
        description: Option<&'a str>,
        ingredients: bool,
        strength: Option<&crate::strength::Strength>,
    ) -> MenuDrink<'a> {
        MenuDrink {
            name: &recipe.name,
            icon: glass::icon(&recipe.glass),
            description,
            ingredients: if ingredients {
                recipe.ingredients.iter().map(|i| i.name.as_str()).collect()
            } else {
                Vec::new()
            },
            strength: strength
                .and_then(|s| s.abv)
                .map(|abv| format!("≈ {}% ABV", super::strength::percent(abv))),
            photo: None,
        }
    }
}
