//! The values each template in `templates/` is given (askama, compiled into the binary).
//!
//! Every full page extends `base.html` and is given its [`Chrome`]. Rendering returns a
//! `Result`, never a half page: a render error becomes a 500 (see `Site`).

use super::form::{Caps, FormRecipe};
use super::glass;
pub(crate) use super::links::NotePart;
pub(crate) use super::menu::MenuDrink;
use crate::recipes::{IngredientLine, Recipe, Recipes};
use crate::units::{self, AmountView, Unit};
use crate::view::dates::format_time;
use crate::view::story::ChangeView;
use askama::Template;

/// Asset URLs every page links to (content-hashed, resolved once).
#[derive(Debug, Clone)]
pub(crate) struct Urls {
    pub(crate) css: String,
    pub(crate) js: String,
    pub(crate) glasses: String,
    pub(crate) icon: String,
    pub(crate) apple_touch: String,
    /// The menu's own stylesheet (the guests' page, the printed card, composing).
    pub(crate) menu_css: String,
    /// What the guests' page links to, under `/menu/assets/` (the one place
    /// [`crate::router::guests`] serves files from).
    pub(crate) guest: GuestUrls,
}

/// The guests' page's assets, under `/menu/assets/`: the same files as under `/static/`.
#[derive(Debug, Clone)]
pub(crate) struct GuestUrls {
    pub(crate) css: String,
    pub(crate) menu_css: String,
    pub(crate) js: String,
    pub(crate) glasses: String,
    pub(crate) icon: String,
}

/// The footer line: how many recipes and when the file last changed.
#[derive(Debug, Clone)]
pub(crate) struct Footer {
    pub(crate) count: String,
    pub(crate) updated_iso: String,
    pub(crate) updated_human: String,
}

impl Footer {
    pub(crate) fn new(recipes: &Recipes) -> Footer {
        let (iso, human) = format_time(recipes.updated());
        let n = recipes.len();
        Footer {
            count: format!("{n} recipe{}", if n == 1 { "" } else { "s" }),
            updated_iso: iso,
            updated_human: human,
        }
    }
}

/// What every full page shows around its own part (`base.html`): the asset links, the
/// search box and the footer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chrome<'a> {
    pub(crate) urls: &'a Urls,
    pub(crate) footer: &'a Footer,
    /// The search as typed, shown back in the search box ("" on other pages).
    pub(crate) q: &'a str,
    /// Which link of the navigation is this page (`aria-current`): "recipes", "shelf",
    /// "menus", "new", or "" for none.
    pub(crate) here: &'static str,
}

impl Chrome<'_> {
    /// The same chrome, on the page the navigation's link `here` leads to.
    pub(crate) fn at(self, here: &'static str) -> Self {
        Chrome { here, ..self }
    }
}

/// One row of the list.
pub(crate) struct Row<'a> {
    pub(crate) recipe: &'a Recipe,
    pub(crate) icon: &'static str,
    /// In a `can:make` search answered from the household's shelf: the shelf makes it,
    /// and the words for any stand-in or prep it takes ("Cointreau for Triple sec").
    pub(crate) makes: Option<Vec<String>>,
}

impl<'a> Row<'a> {
    pub(crate) fn new(recipe: &'a Recipe) -> Row<'a> {
        Row {
            recipe,
            icon: glass::icon(&recipe.glass),
            makes: None,
        }
    }
}

/// The list page: all recipes, or a search's. `list` is a [`ListBody`], or the text of one
/// already rendered (the full list, rendered once at load for this page and recipe pages).
#[derive(Template)]
#[template(path = "list.html")]
pub(crate) struct ListPage<'a, L: std::fmt::Display> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) list: L,
}

/// The list without the page around it: the list page has it, and a recipe's page shows
/// the whole list beside the recipe on a wide screen (rendered once, see `Site`).
#[derive(Template)]
#[template(path = "list_body.html")]
pub(crate) struct ListBody<'a> {
    pub(crate) urls: &'a Urls,
    pub(crate) q: &'a str,
    pub(crate) total: usize,
    pub(crate) rows: Vec<Row<'a>>,
    /// Terms of `q` that depend on who is asking, left to the phone for now (see
    /// [`crate::search::SearchQuery::personal`]).
    pub(crate) personal: Vec<crate::search::Personal>,
    /// When `q` finds nothing, what it may have meant, closest first
    /// ([`crate::search::Index::guesses`]).
    pub(crate) guesses: Vec<&'a crate::recipes::Recipe>,
    /// When `q` finds nothing and a term is a number's field without one (`abv:abc`), what
    /// it takes ([`crate::search::misread`]).
    pub(crate) misread: Option<String>,
}

#[derive(Template)]
#[template(path = "recipe.html")]
pub(crate) struct RecipePage<'a> {
    pub(crate) chrome: Chrome<'a>,
    /// Edit, delete and undo, for a visitor who may edit; or why editing is off.
    pub(crate) edit: Option<EditControls>,
    pub(crate) r: &'a Recipe,
    pub(crate) icon: &'static str,
    pub(crate) amounts: Amounts<'a>,
    /// How strong it is, and how that was worked out.
    pub(crate) strength: crate::view::strength::StrengthView,
    /// The notes, their addresses as links.
    pub(crate) notes: Vec<NotePart<'a>>,
    /// The whole list ([`ListBody`], already escaped), shown beside the recipe when wide.
    pub(crate) list: &'a str,
    /// Its photos, and the upload form for a person the household knows.
    pub(crate) photos: crate::view::photos::RecipePhotos,
}

impl RecipePage<'_> {
    /// The editor's controls, when editing is on for this visitor.
    pub(crate) fn controls(&self) -> Option<&EditOn> {
        match &self.edit {
            Some(EditControls::On(on)) => Some(on),
            _ => None,
        }
    }

    /// Why this visitor, who may edit, cannot now.
    pub(crate) fn editing_off(&self) -> Option<&str> {
        match &self.edit {
            Some(EditControls::Off(why)) => Some(why),
            _ => None,
        }
    }
}

/// A recipe's ingredient lines as one reader asked to see them (`?units=oz&serves=4`),
/// and the links that change that. Without JavaScript these links are how the page
/// converts and scales; `static/js/recipe.js` follows the same links in place.
pub(crate) struct Amounts<'a> {
    pub(crate) lines: Vec<(&'a IngredientLine, String)>,
    pub(crate) unit_links: Vec<Link>,
    pub(crate) serve_links: Vec<Link>,
    pub(crate) unit: Option<&'static str>,
    pub(crate) servings: u32,
}

/// One choice in a row of choices: where it leads and whether it is the current one.
pub(crate) struct Link {
    pub(crate) href: String,
    pub(crate) value: String,
    pub(crate) label: String,
    pub(crate) current: bool,
}

/// The servings offered as one tap; any other number can be typed.
pub(crate) const SERVINGS: [u32; 4] = [1, 2, 4, 8];

impl<'a> Amounts<'a> {
    pub(crate) fn new(r: &'a Recipe, display: AmountView) -> Amounts<'a> {
        let href = |unit: Option<Unit>, servings: u32| {
            let mut query = Vec::new();
            if let Some(unit) = unit {
                query.push(format!("units={}", unit.name()));
            }
            if servings != 1 {
                query.push(format!("serves={servings}"));
            }
            let query = if query.is_empty() {
                String::new()
            } else {
                format!("?{}", query.join("&"))
            };
            format!("/recipes/{}{query}", r.id)
        };
        let unit_links = Unit::ALL
            .into_iter()
            .map(|unit| {
                let current = display.unit == Some(unit);
                // The current unit's link leads back to the file's own units.
                let to = if current { None } else { Some(unit) };
                Link {
                    href: href(to, display.servings),
                    value: unit.name().to_owned(),
                    label: unit.name().to_owned(),
                    current,
                }
            })
            .collect();
        let serve_links = SERVINGS
            .into_iter()
            .map(|n| Link {
                href: href(display.unit, n),
                value: n.to_string(),
                label: format!("×{n}"),
                current: display.servings == n,
            })
            .collect();
        Amounts {
            lines: r
                .ingredients
                .iter()
                .map(|i| (i, units::amount(&i.measure, &i.unit, display)))
                .collect(),
            unit_links,
            serve_links,
            unit: display.unit.map(Unit::name),
            servings: display.servings,
        }
    }
}

/// `/shelf`: the ingredients one can tick, units, and moving a phone's choices.
#[derive(Template)]
#[template(path = "shelf.html")]
pub(crate) struct ShelfPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    /// The bottles to tick, grouped by kind ([`super::picker`]).
    pub(crate) groups: &'a [super::picker::Group],
    /// How many rows can be ticked.
    pub(crate) bottles: usize,
    /// The household's shelf, for a known person's page; `None` on the page everyone
    /// shares, where the browser ticks the boxes.
    pub(crate) ticked: Option<super::picker::Ticked>,
}

impl<'a> ShelfPage<'a> {
    pub(crate) fn new(
        chrome: Chrome<'a>,
        groups: &'a [super::picker::Group],
        ticked: Option<super::picker::Ticked>,
    ) -> ShelfPage<'a> {
        let rows = groups.iter().flat_map(|g| &g.rows);
        ShelfPage {
            chrome: chrome.at("shelf"),
            bottles: rows.filter(|r| r.key.is_some()).count(),
            groups,
            ticked,
        }
    }

    /// How many boxes the household's shelf ticks, all groups together.
    pub(crate) fn ticked_n(&self, ticked: &super::picker::Ticked) -> usize {
        self.groups.iter().map(|g| ticked.count(&g.rows)).sum()
    }
}

/// The guests' page (`/menu`): the menu that is on, big type for a tablet or a phone;
/// no search box, no footer, no link or form into the rest of the app; one script, the
/// change feed (`static/js/menu.js`), and its assets under `/menu/assets/`.
#[derive(Template)]
#[template(path = "menu.html")]
pub(crate) struct MenuPage<'a> {
    pub(crate) urls: &'a Urls,
    /// The glass sprite, as this page links it.
    pub(crate) glasses: &'a str,
    pub(crate) title: &'a str,
    /// Whether a menu is on (if not, the page says there is none tonight).
    pub(crate) on: bool,
    pub(crate) drinks: Vec<MenuDrink<'a>>,
    /// What the change feed says while the menu stays as shown.
    pub(crate) version: &'a str,
}

/// The printed menu (`/menu/print`): one page of the given paper, the drinks in one or
/// two columns, and a QR code of the guests' address.
#[derive(Template)]
#[template(path = "menu_print.html")]
pub(crate) struct MenuCard<'a> {
    pub(crate) urls: &'a Urls,
    pub(crate) glasses: &'a str,
    pub(crate) title: &'a str,
    pub(crate) on: bool,
    pub(crate) drinks: Vec<MenuDrink<'a>>,
    /// The menu asked for by id (`?menu=`), kept by the size form.
    pub(crate) menu_id: Option<i64>,
    /// `a5`, `a4` or `letter`, and every choice with its label.
    pub(crate) size: &'a str,
    pub(crate) sizes: &'static [(&'static str, &'static str)],
    pub(crate) columns: u8,
    /// 1 (roomy) to 4 (small type): how tightly the drinks are set to stay on one page.
    pub(crate) fit: u8,
    /// Whether even the smallest type may not hold it all.
    pub(crate) crowded: bool,
    /// The QR code (inline SVG, see [`super::qr`]) and the address it holds.
    pub(crate) qr: Option<String>,
    pub(crate) guest_url: &'a str,
}

/// `/menus`, composing the guests' menus: each menu as the server shows it without
/// JavaScript (its drinks by name, switch on or off, print); the editor is filled in by
/// `static/js/menus.js`.
#[derive(Template)]
#[template(path = "menus.html")]
pub(crate) struct MenusPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) menus: Vec<MenuSummary<'a>>,
    /// Whether the visitor may compose and switch menus.
    pub(crate) may_change: bool,
    /// Why not, or why there are none (no household).
    pub(crate) why: Option<String>,
    /// What the switch forms send back (empty for someone who may not compose).
    pub(crate) csrf: String,
}

/// One menu on `/menus`.
pub(crate) struct MenuSummary<'a> {
    pub(crate) id: i64,
    pub(crate) title: String,
    pub(crate) on: bool,
    /// "3 drinks · can make now · ingredients hidden".
    pub(crate) facts: String,
    pub(crate) drinks: Vec<&'a str>,
}

#[derive(Template)]
#[template(path = "error.html")]
pub(crate) struct ErrorPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) title: &'a str,
    pub(crate) message: &'a str,
}

/// The recipe form: new, edit, after a problem or a conflict.
#[derive(Template)]
#[template(path = "edit.html")]
pub(crate) struct EditPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) title: String,
    pub(crate) action: String,
    pub(crate) id: Option<u64>,
    /// The version the form was filled from (sent back to detect a conflict).
    pub(crate) version: String,
    pub(crate) csrf: String,
    pub(crate) draft: FormRecipe,
    pub(crate) lists: Vec<ListField>,
    pub(crate) problems: Vec<crate::store::FieldError>,
    pub(crate) conflict: Option<ConflictView>,
    /// Another recipe has the name this one was saved with: asked before a second is made.
    pub(crate) duplicate: Option<crate::store::Duplicate>,
    pub(crate) caps: Caps,
    pub(crate) units: Vec<String>,
    pub(crate) ingredient_names: Vec<String>,
    /// What an import guessed, by field: shown above the form and beside each field, to
    /// check before saving.
    pub(crate) guesses: Vec<crate::store::FieldError>,
}

impl EditPage<'_> {
    /// What an import guessed for `field` (or inside it), if anything.
    pub(crate) fn guess_for(&self, field: &str) -> Option<&str> {
        self.guesses
            .iter()
            .find(|g| g.field == field || g.field.starts_with(&format!("{field}[")))
            .map(|g| g.message.as_str())
    }

    /// The first problem with `field` or anything inside it (`garnish[2]` for `garnish`).
    pub(crate) fn error_for(&self, field: &str) -> Option<&str> {
        self.problems
            .iter()
            .find(|p| {
                p.field == field
                    || p.field
                        .strip_prefix(field)
                        .is_some_and(|rest| rest.starts_with('['))
                        && field != "ingredients"
            })
            .map(|p| p.message.as_str())
    }
}

/// One list field of the form: an input per entry (the first named as the field, the
/// others `field-more`), a blank one to add another, and the values to choose from.
pub(crate) struct ListField {
    pub(crate) field: &'static str,
    pub(crate) label: &'static str,
    /// A single choice (glass, method, ice): a tapped value replaces, not adds.
    pub(crate) one: bool,
    /// One input per entry, the blank one last.
    pub(crate) inputs: Vec<String>,
    /// The most used values, shown as "Used here:".
    pub(crate) hints: Vec<String>,
    /// The values the collection uses, most used first: the field's datalist.
    pub(crate) suggestions: Vec<String>,
}

/// The other version, shown beside the form after a conflict.
pub(crate) struct ConflictView {
    pub(crate) id: u64,
    pub(crate) current: Option<Recipe>,
}

/// Adding recipes from elsewhere: a link, a page's source or JSON-LD, or a file; and when
/// what was read holds several recipes, the list to choose from.
#[derive(Template)]
#[template(path = "import.html")]
pub(crate) struct ImportPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) csrf: String,
    /// What was pasted, kept when it could not be read.
    pub(crate) source: String,
    /// Why it could not be read, or why the chosen ones could not be saved.
    pub(crate) problems: Vec<crate::store::FieldError>,
    pub(crate) choices: Vec<ImportChoice>,
    /// What was guessed of two or more of the choices, said once above them.
    pub(crate) shared: Vec<String>,
    /// The recipes read, as JSON, posted back with the choice.
    pub(crate) recipes_json: String,
}

/// One recipe of an import to choose or leave.
pub(crate) struct ImportChoice {
    pub(crate) index: usize,
    pub(crate) name: String,
    pub(crate) summary: String,
    pub(crate) notes: Vec<String>,
    pub(crate) duplicate_of: Option<u64>,
}

/// The history of changes.
#[derive(Template)]
#[template(path = "changes.html")]
pub(crate) struct ChangesPage<'a> {
    pub(crate) chrome: Chrome<'a>,
    pub(crate) message: Option<String>,
    pub(crate) changes: Vec<ChangeView>,
    pub(crate) can_edit: bool,
    /// Why this visitor cannot undo (shown instead of the buttons).
    pub(crate) why_not: Option<String>,
    pub(crate) csrf: String,
    pub(crate) keep: usize,
    /// When the history was started again (set aside, or written again), what happened.
    pub(crate) restarted: Option<String>,
}

/// What a recipe page shows an editor: edit and delete, and undo right after a save.
pub(crate) enum EditControls {
    /// Edit, delete and undo, with the editor's form token.
    On(EditOn),
    /// The visitor may edit, but editing is off (the recipes file cannot be written): why.
    Off(String),
}

/// An editor's controls under a recipe.
pub(crate) struct EditOn {
    pub(crate) csrf: String,
    pub(crate) version: String,
    /// The change just saved (`?saved=n`), to offer its undo.
    pub(crate) saved: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipes::Origin;
    use std::time::SystemTime;

    fn urls() -> Urls {
        Urls {
            css: "/static/app.1.css".into(),
            js: "/static/app.1.js".into(),
            glasses: "/static/glasses.1.svg".into(),
            icon: "/static/icon.1.svg".into(),
            apple_touch: "/static/apple-touch-icon.1.png".into(),
            menu_css: "/static/menu.1.css".into(),
            guest: GuestUrls {
                css: "/menu/assets/app.1.css".into(),
                menu_css: "/menu/assets/menu.1.css".into(),
                js: "/menu/assets/js.1/menu.js".into(),
                glasses: "/menu/assets/glasses.1.svg".into(),
                icon: "/menu/assets/icon.1.svg".into(),
            },
        }
    }

    fn recipes(text: &str) -> Recipes {
        Recipes::parse(text, Origin::Embedded, SystemTime::UNIX_EPOCH).unwrap()
    }

    fn list(recipes: &Recipes, q: &str) -> String {
        let (urls, footer) = (urls(), Footer::new(recipes));
        ListPage {
            chrome: Chrome {
                urls: &urls,
                footer: &footer,
                q,
                here: "recipes",
            },
            list: ListBody {
                urls: &urls,
                q,
                total: recipes.len(),
                rows: recipes.all().iter().map(Row::new).collect(),
                personal: Vec::new(),
                guesses: Vec::new(),
                misread: None,
            },
        }
        .render()
        .unwrap()
    }

    #[test]
    fn user_text_is_escaped() {
        let r = recipes(
            r#"[{"id": 1, "name": "<script>alert(1)</script>", "base": ["<b>Gin</b>"],
                "ingredients": [{"name": "\"quoted\" & <i>", "measure": "<1>", "unit": "ml"}],
                "notes": "<img src=x onerror=alert(1)>"}]"#,
        );
        let html = list(&r, "<q>\"x\"");
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"));
        assert!(html.contains("&#60;b&#62;Gin&#60;/b&#62;"));
        assert!(!html.contains("<img src=x"));
        assert!(!html.contains("<i>"));
        assert!(html.contains("value=\"&#60;q&#62;&#34;x&#34;\""), "{html}");
        let single = page(&r, 1);
        assert!(!single.contains("<script>alert") && !single.contains("<img src=x"));
        assert!(!single.contains("<i>"));
        assert!(
            single.contains("&#34;quoted&#34; &#38; &#60;i&#62;"),
            "{single}"
        );
    }

    fn page(recipes: &Recipes, id: u64) -> String {
        let (urls, footer) = (urls(), Footer::new(recipes));
        let r = recipes.get(id).unwrap();
        RecipePage {
            edit: None,
            chrome: Chrome {
                urls: &urls,
                footer: &footer,
                q: "",
                here: "recipes",
            },
            r,
            icon: glass::icon(&r.glass),
            amounts: Amounts::new(r, AmountView::default()),
            strength: crate::view::strength::StrengthView::new(
                r,
                &crate::strength::of_recipe(r),
                1,
            ),
            notes: crate::view::links::note_parts(&r.notes),
            list: "<ol id=\"recipes\"></ol>",
            photos: Default::default(),
        }
        .render()
        .unwrap()
    }

    #[test]
    fn list_rows_are_links_without_the_recipe() {
        let r = recipes(
            r#"[{"id": 7, "name": "Gimlet", "base": ["Gin"], "glass": ["Coupe"],
                "ingredients": [{"name": "Lime Cordial", "measure": "20", "unit": "ml"}]}]"#,
        );
        let html = list(&r, "");
        assert!(
            html.contains("<a class=\"row\" href=\"/recipes/7\">"),
            "{html}"
        );
        assert!(html.contains("#glass-coupe"));
        assert!(html.contains("<span class=\"base\">Gin</span>"));
        assert!(!html.contains("Lime Cordial"), "details load on demand");
        assert!(html.contains("rel=\"manifest\""));
    }

    #[test]
    fn missing_glass_and_empty_lists_render() {
        let r = recipes(r#"[{"id": 1, "name": "Bare"}]"#);
        let html = page(&r, 1);
        assert!(html.contains("#glass-default"));
        assert!(
            !html.contains("<table"),
            "no ingredients table when there are none"
        );
        assert!(!html.contains("<dt>Method</dt>"));
        assert!(!html.contains("class=\"notes\""));
        assert!(html.contains("1 recipe ·"));
    }

    #[test]
    fn full_recipe_renders_every_part() {
        let r = recipes(
            r#"[{"id": 10, "name": "New York Sour", "base": ["Bourbon"], "glass": ["12oz Lowball"],
              "method": ["Dry Shake", "Shake"], "ice": ["Cubed"],
              "ingredients": [{"name": "Lemon Juice", "measure": "20", "unit": "ml"}, {"name": "Claret", "measure": "", "unit": "float"}],
              "garnish": ["Lemon Sail"], "notes": "Use claret or malbec"}]"#,
        );
        let html = page(&r, 10);
        for part in [
            "#glass-lowball",
            "<td class=\"amount\" data-measure=\"20\" data-unit=\"ml\">20 ml</td><th scope=\"row\">Lemon Juice</th>",
            "<td class=\"amount\" data-measure=\"\" data-unit=\"float\">float</td>",
            "<dd>Dry Shake, Shake</dd>",
            "<dd>Cubed</dd>",
            "<dd>Lemon Sail</dd>",
            "<dd>12oz Lowball</dd>",
            "Use claret or malbec",
            "<button type=\"button\" class=\"wake\" aria-pressed=\"false\" hidden>",
        ] {
            assert!(html.contains(part), "missing {part}");
        }
    }

    #[test]
    fn addresses_in_notes_are_escaped_links() {
        let r = recipes(
            r#"[{"id": 1, "name": "L", "notes": "Source: https://a.example/?x=<b>&y=\"1\" or javascript:alert(1)"}]"#,
        );
        let html = page(&r, 1);
        assert!(
            html.contains(
                "<p class=\"notes\">Source: <a href=\"https://a.example/?x=&#60;b&#62;&#38;y=&#34;1\" rel=\"noopener noreferrer\">https://a.example/?x=&#60;b&#62;&#38;y=&#34;1</a>&#34; or javascript:alert(1)</p>"
            ),
            "{html}"
        );
        assert!(!html.contains("href=\"javascript"));
    }
}
