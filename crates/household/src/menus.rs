//! Menus for guests (issue #27, docs/MENU.md): a title, recipes in a chosen order each
//! with an optional one-line description, whether the menu is "everything the shelf can
//! make now", whether guests see the ingredients and whether they see each drink's cover
//! photo (issue #44). Several are kept; at most one is
//! on, and `/menu` shows that one. A menu is the household's, like the shelf: whoever may
//! compose menus may change any of them.
//!
//! A menu is written whole (`PUT` replaces it): composing happens on one screen, and a
//! whole menu checked at once can be refused naming the field before anything is
//! written.

use super::limits::{self, Person};
use super::{Household, HouseholdError, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

/// The longest title, in characters.
pub const TITLE_CHARS: usize = 80;
/// The longest description of a drink, in characters (one line).
pub const DESCRIPTION_CHARS: usize = 200;
/// Recipes one menu may list.
pub const MENU_RECIPES: usize = 100;
/// Menus the household may keep.
pub const MENUS: usize = 50;

/// One drink on a menu.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuRecipe {
    pub id: u64,
    #[serde(default)]
    pub description: Option<String>,
}

/// A menu as it is sent to be saved.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuDraft {
    pub title: String,
    #[serde(default)]
    pub recipes: Vec<MenuRecipe>,
    #[serde(default)]
    pub can_make_now: bool,
    #[serde(default = "shown")]
    pub show_ingredients: bool,
    /// Guests see each drink's cover photo (off unless asked for).
    #[serde(default)]
    pub show_photos: bool,
}

fn shown() -> bool {
    true
}

/// A menu as kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Menu {
    pub id: i64,
    pub title: String,
    pub recipes: Vec<MenuRecipe>,
    pub can_make_now: bool,
    pub show_ingredients: bool,
    pub show_photos: bool,
    pub on: bool,
}

impl MenuDraft {
    /// The draft as it will be kept (titles and descriptions trimmed, empty descriptions
    /// none), or the first field at fault.
    fn checked(&self) -> Result<MenuDraft> {
        let title = self.title.trim();
        if title.is_empty() {
            return Err(HouseholdError::refused("title", "a menu needs a title"));
        }
        line(title, TITLE_CHARS, "title", "a title")?;
        limits::name_shows(title, "title")?;
        if self.recipes.len() > MENU_RECIPES {
            return Err(HouseholdError::refused(
                "recipes",
                format!(
                    "a menu can list at most {MENU_RECIPES} drinks; this one lists {}",
                    self.recipes.len()
                ),
            ));
        }
        let mut recipes: Vec<MenuRecipe> = Vec::with_capacity(self.recipes.len());
        for (i, r) in self.recipes.iter().enumerate() {
            limits::recipe(r.id, &format!("recipes[{i}].id"))?;
            if let Some(first) = recipes.iter().position(|kept| kept.id == r.id) {
                return Err(HouseholdError::refused(
                    format!("recipes[{i}].id"),
                    format!(
                        "recipe {} is already on this menu, at recipes[{first}]",
                        r.id
                    ),
                ));
            }
            let description = match r.description.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(d) => {
                    line(
                        d,
                        DESCRIPTION_CHARS,
                        &format!("recipes[{i}].description"),
                        "a description",
                    )?;
                    Some(d.to_owned())
                }
            };
            recipes.push(MenuRecipe {
                id: r.id,
                description,
            });
        }
        Ok(MenuDraft {
            title: title.to_owned(),
            recipes,
            can_make_now: self.can_make_now,
            show_ingredients: self.show_ingredients,
            show_photos: self.show_photos,
        })
    }
}

/// One line of text: at most `cap` characters, no line breaks or invisible characters.
fn line(text: &str, cap: usize, field: &str, what: &str) -> Result<()> {
    let n = text.chars().count();
    if n > cap {
        return Err(HouseholdError::refused(
            field,
            format!("{what} can be at most {cap} characters; this one has {n}"),
        ));
    }
    if let Some(bad) = crate::text::invisible(text, false) {
        return Err(HouseholdError::refused(
            field,
            format!("holds {bad}, which does not show as itself (one line only)"),
        ));
    }
    Ok(())
}

impl Household {
    /// Every menu, oldest first.
    pub fn menus(&self) -> Result<Vec<Menu>> {
        let db = self.db();
        let ids: Vec<i64> = db
            .prepare_cached("SELECT id FROM menus ORDER BY id")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let mut menus = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(menu) = read(&db, id)? {
                menus.push(menu);
            }
        }
        Ok(menus)
    }

    /// One menu, if there is one by that id.
    pub fn menu(&self, id: i64) -> Result<Option<Menu>> {
        read(&self.db(), id)
    }

    /// The menu that is on, if one is.
    pub fn menu_on(&self) -> Result<Option<Menu>> {
        let db = self.db();
        let id: Option<i64> = db
            .prepare_cached("SELECT id FROM menus WHERE on_ = 1")?
            .query_row([], |r| r.get(0))
            .optional()?;
        match id {
            Some(id) => read(&db, id),
            None => Ok(None),
        }
    }

    /// Keeps a new menu (off), and says its id.
    pub fn add_menu(&self, who: &Person, draft: &MenuDraft) -> Result<i64> {
        let draft = draft.checked()?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            let count: i64 = tx
                .prepare_cached("SELECT count(*) FROM menus")?
                .query_row([], |r| r.get(0))?;
            if usize::try_from(count).unwrap_or(usize::MAX) >= MENUS {
                return Err(HouseholdError::refused(
                    "title",
                    format!("the household already keeps {MENUS} menus, the most the app keeps; delete one first"),
                ));
            }
            tx.prepare_cached(
                "INSERT INTO menus (title, can_make_now, show_ingredients, show_photos, at, by)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                draft.title,
                draft.can_make_now,
                draft.show_ingredients,
                draft.show_photos,
                limits::now_ms(),
                who.login
            ])?;
            let id = tx.last_insert_rowid();
            put_recipes(tx, id, &draft.recipes)?;
            Ok(id)
        })
    }

    /// Replaces menu `id` whole (whether it is on stays as it was); false if there is none.
    pub fn put_menu(&self, who: &Person, id: i64, draft: &MenuDraft) -> Result<bool> {
        let draft = draft.checked()?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            let changed = tx
                .prepare_cached(
                    "UPDATE menus SET title = ?2, can_make_now = ?3, show_ingredients = ?4,
                     show_photos = ?5, at = ?6, by = ?7 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    draft.title,
                    draft.can_make_now,
                    draft.show_ingredients,
                    draft.show_photos,
                    limits::now_ms(),
                    who.login
                ])?;
            if changed == 0 {
                return Ok(false);
            }
            tx.prepare_cached("DELETE FROM menu_recipes WHERE menu = ?1")?
                .execute([id])?;
            put_recipes(tx, id, &draft.recipes)?;
            Ok(true)
        })
    }

    /// Deletes menu `id` (if it was on, no menu is); false if there is none.
    pub fn delete_menu(&self, id: i64) -> Result<bool> {
        self.write(|tx| {
            tx.prepare_cached("DELETE FROM menu_recipes WHERE menu = ?1")?
                .execute([id])?;
            let gone = tx
                .prepare_cached("DELETE FROM menus WHERE id = ?1")?
                .execute([id])?;
            Ok(gone > 0)
        })
    }

    /// Switches menu `id` on, and whichever was on off, in one commit; false if there is
    /// no such menu (and nothing changed).
    pub fn switch_menu_on(&self, id: i64) -> Result<bool> {
        self.write(|tx| {
            let there: Option<i64> = tx
                .prepare_cached("SELECT id FROM menus WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?;
            if there.is_none() {
                return Ok(false);
            }
            tx.prepare_cached("UPDATE menus SET on_ = 0 WHERE on_ = 1")?
                .execute([])?;
            tx.prepare_cached("UPDATE menus SET on_ = 1 WHERE id = ?1")?
                .execute([id])?;
            Ok(true)
        })
    }

    /// Switches every menu off: `/menu` says there is no menu tonight.
    pub fn switch_menus_off(&self) -> Result<()> {
        self.write(|tx| {
            tx.prepare_cached("UPDATE menus SET on_ = 0 WHERE on_ = 1")?
                .execute([])?;
            Ok(())
        })
    }
}

fn put_recipes(db: &Connection, menu: i64, recipes: &[MenuRecipe]) -> Result<()> {
    let mut insert = db.prepare_cached(
        "INSERT INTO menu_recipes (menu, position, recipe, description) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (position, r) in recipes.iter().enumerate() {
        let recipe = limits::recipe(r.id, "recipes")?;
        insert.execute(params![menu, position as i64, recipe, r.description])?;
    }
    Ok(())
}

fn read(db: &Connection, id: i64) -> Result<Option<Menu>> {
    let head = db
        .prepare_cached(
            "SELECT title, can_make_now, show_ingredients, show_photos, on_ FROM menus
             WHERE id = ?1",
        )?
        .query_row([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                [r.get::<_, bool>(1)?, r.get(2)?, r.get(3)?, r.get(4)?],
            ))
        })
        .optional()?;
    let Some((title, [can_make_now, show_ingredients, show_photos, on])) = head else {
        return Ok(None);
    };
    let recipes = db
        .prepare_cached(
            "SELECT recipe, description FROM menu_recipes WHERE menu = ?1 ORDER BY position",
        )?
        .query_map([id], |r| {
            Ok(MenuRecipe {
                id: u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0),
                description: r.get(1)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(Menu {
        id,
        title,
        recipes,
        can_make_now,
        show_ingredients,
        show_photos,
        on,
    }))
}

/// A menu as the household's backup file keeps it (`menus`, from version 2 on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuRow {
    pub title: String,
    #[serde(default)]
    pub recipes: Vec<MenuRecipe>,
    #[serde(default)]
    pub can_make_now: bool,
    #[serde(default = "shown")]
    pub show_ingredients: bool,
    /// Version 5 on (older files: off).
    #[serde(default)]
    pub show_photos: bool,
    #[serde(default)]
    pub on: bool,
    pub at: i64,
    pub(crate) by: String,
}

impl MenuRow {
    fn draft(&self) -> MenuDraft {
        MenuDraft {
            title: self.title.clone(),
            recipes: self.recipes.clone(),
            can_make_now: self.can_make_now,
            show_ingredients: self.show_ingredients,
            show_photos: self.show_photos,
        }
    }

    /// The row by the rules of a menu sent to be saved, each problem named under `at`
    /// (`menus[1].recipes[0].description`).
    pub(super) fn check(&self, at: &str) -> Result<()> {
        match self.draft().checked() {
            Ok(_) => Ok(()),
            Err(HouseholdError::Refused { field, message }) => {
                Err(HouseholdError::refused(format!("{at}.{field}"), message))
            }
            Err(e) => Err(e),
        }
    }
}

/// Every menu as the backup file keeps it, oldest first.
pub fn export(db: &Connection) -> Result<Vec<MenuRow>> {
    let heads: Vec<(i64, i64, String)> = db
        .prepare("SELECT id, at, by FROM menus ORDER BY id")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut rows = Vec::with_capacity(heads.len());
    for (id, at, by) in heads {
        if let Some(menu) = read(db, id)? {
            rows.push(MenuRow {
                title: menu.title,
                recipes: menu.recipes,
                can_make_now: menu.can_make_now,
                show_ingredients: menu.show_ingredients,
                show_photos: menu.show_photos,
                on: menu.on,
                at,
                by,
            });
        }
    }
    Ok(rows)
}

/// Merges a backup's menus: one the household keeps already (the same title, drinks,
/// descriptions and switches) is taken as it is; any other is added, off, so that no
/// menu is ever replaced or dropped. The file's "on" menu is switched on only if no menu
/// is on: loading a backup does not change what guests are shown. More than [`MENUS`]
/// menus in all refuses the load (nothing is kept). Says how many rows were taken.
pub(super) fn merge(tx: &Connection, rows: &[MenuRow]) -> Result<usize> {
    let stored = (export(tx)?).into_iter().map(|m| (m.draft(), m.on));
    let stored: Vec<(MenuDraft, bool)> = stored.collect();
    let mut ids: Vec<i64> = tx
        .prepare("SELECT id FROM menus ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let any_on = stored.iter().any(|(_, on)| *on);
    let mut switch_on = None;
    for (i, row) in rows.iter().enumerate() {
        let draft = row.draft().checked()?;
        let same = stored
            .iter()
            .position(|(kept, _)| kept.checked().is_ok_and(|kept| kept == draft));
        let id = match same {
            Some(n) => ids[n],
            None => {
                if ids.len() >= MENUS {
                    return Err(HouseholdError::refused(
                        format!("menus[{i}]"),
                        format!(
                            "the household would keep more than {MENUS} menus, the most the app keeps; nothing was loaded"
                        ),
                    ));
                }
                tx.prepare_cached(
                    "INSERT INTO menus (title, can_make_now, show_ingredients, show_photos, at, by)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )?
                .execute(params![
                    draft.title,
                    draft.can_make_now,
                    draft.show_ingredients,
                    draft.show_photos,
                    row.at.min(limits::now_ms()),
                    row.by
                ])?;
                let id = tx.last_insert_rowid();
                put_recipes(tx, id, &draft.recipes)?;
                ids.push(id);
                id
            }
        };
        if row.on && !any_on {
            switch_on = Some(id);
        }
    }
    if let Some(id) = switch_on {
        tx.prepare_cached("UPDATE menus SET on_ = 1 WHERE id = ?1")?
            .execute([id])?;
    }
    Ok(rows.len())
}
