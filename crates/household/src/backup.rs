//! The whole household as one JSON file (`format: "libations-household"`, version 6:
//! version 5 and when each cover was chosen; version 5 added the photos' rows
//! ([`super::backup_photos`]); 4 the household's rules; 3 the shopping list; 2 the guests'
//! menus and strengths; docs/HOUSEHOLD.md describes it), and merging such a file back.
//! Files of versions 1 to 5 still load.
//!
//! Loading never drops what is stored: it merges by the same rules as the app's own
//! changes (the change made last wins; log entries are joined; a note that differs from
//! the stored one is kept beside it as a conflict). The file is checked whole first, each
//! problem named by its path (`people[2].ratings[0].stars`), and merged in one
//! transaction: a refused or failed load changes nothing.

use super::backup_photos::{self, PhotoRow};
use super::limits::{self, Person};
use super::menus::{self, MenuRow};
use super::mine::{self, NoteChange};
use super::rules::{self, RULE_ROWS, RuleRow};
use super::shopping::{self, SHOPPING_ROWS, ShoppingRow};
use super::strengths::{self, STRENGTH_ROWS, StrengthRow};
use super::{Household, HouseholdError, Result, shelf};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

pub(crate) const FORMAT: &str = "libations-household";
pub(crate) const VERSION: u32 = 6;
/// The oldest version this build still loads (version 1: before menus).
pub(crate) const OLDEST: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backup {
    pub(crate) format: String,
    pub(crate) version: u32,
    pub(crate) exported_at: i64,
    pub shelf: Vec<ShelfRow>,
    pub people: Vec<PersonRows>,
    /// The guests' menus (version 2 on; none in a version 1 file).
    #[serde(default)]
    pub menus: Vec<MenuRow>,
    /// The household's own ingredient strengths (version 2 on), taken-back ones too.
    #[serde(default)]
    pub strengths: Vec<StrengthRow>,
    /// The household's shopping list (version 3 on), items taken off too.
    #[serde(default)]
    pub shopping: Vec<ShoppingRow>,
    /// The household's own rules (version 4 on), taken-back ones too.
    #[serde(default)]
    pub rules: Vec<RuleRow>,
    /// The photos' rows (version 5 on); their images travel in the household archive.
    #[serde(default)]
    pub photos: Vec<PhotoRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShelfRow {
    pub name: String,
    pub(crate) have: bool,
    pub at: i64,
    pub(crate) by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonRows {
    pub login: String,
    pub name: String,
    #[serde(default)]
    pub favourites: Vec<FavouriteRow>,
    #[serde(default)]
    pub ratings: Vec<RatingRow>,
    #[serde(default)]
    pub notes: Vec<NoteRow>,
    #[serde(default)]
    pub made: Vec<MadeRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FavouriteRow {
    pub id: u64,
    pub on: bool,
    pub at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingRow {
    pub id: u64,
    pub stars: Option<u8>,
    pub at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteRow {
    pub id: u64,
    pub text: Option<String>,
    #[serde(default)]
    pub conflicts: Vec<String>,
    pub at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MadeRow {
    pub id: u64,
    pub at: i64,
}

/// How many rows of each kind a load took (merged in or already there).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Taken {
    pub people: usize,
    pub shelf: usize,
    pub favourites: usize,
    pub ratings: usize,
    pub notes: usize,
    pub made: usize,
    pub menus: usize,
    pub strengths: usize,
    pub shopping: usize,
    pub rules: usize,
    pub photos: usize,
    /// Photo rows of a JSON file left out because their files are not in the photo store
    /// (set by the caller, which knows the store: [`Backup::keep_photos_with_files`]).
    pub photos_without_files: usize,
    /// The recipes whose cover the file changed (its cover was chosen later).
    pub covers_changed: Vec<u64>,
}

impl Backup {
    /// Reads a backup file's bytes, refusing anything that is not one, with the path of
    /// the field at fault.
    pub fn from_slice(bytes: &[u8]) -> Result<Backup> {
        if bytes.len() > limits::BACKUP_BYTES {
            return Err(HouseholdError::refused(
                "(file)",
                format!(
                    "a backup can be at most {} MiB; this one has {} bytes",
                    limits::BACKUP_BYTES >> 20,
                    bytes.len()
                ),
            ));
        }
        let (value, repeats) = crate::strict_json::parse(bytes)
            .map_err(|e| HouseholdError::refused("(file)", format!("not JSON: {e}")))?;
        if let Some(repeat) = repeats.into_iter().next() {
            return Err(HouseholdError::refused(repeat.field, repeat.message));
        }
        if !value.is_object() {
            return Err(HouseholdError::refused(
                "(file)",
                "must be a JSON object with format, version, shelf and people",
            ));
        }
        let backup: Backup = serde_path_to_error::deserialize(value).map_err(|e| {
            let field = e.path().to_string();
            HouseholdError::refused(field, e.into_inner().to_string())
        })?;
        backup.check()?;
        Ok(backup)
    }

    /// What typed reading cannot say: the format, the version, and every value's rules.
    fn check(&self) -> Result<()> {
        if self.format != FORMAT {
            return Err(HouseholdError::refused(
                "format",
                format!("must be {FORMAT:?}, not {:?}", self.format),
            ));
        }
        if !(OLDEST..=VERSION).contains(&self.version) {
            return Err(HouseholdError::refused(
                "version",
                format!(
                    "must be {OLDEST} to {VERSION}; this Libations reads versions {OLDEST} to {VERSION} only"
                ),
            ));
        }
        if self.menus.len() > menus::MENUS {
            return Err(HouseholdError::refused(
                "menus",
                format!(
                    "at most {} menus are kept; this lists {}",
                    menus::MENUS,
                    self.menus.len()
                ),
            ));
        }
        for (i, menu) in self.menus.iter().enumerate() {
            menu.check(&format!("menus[{i}]"))?;
            time(menu.at, &format!("menus[{i}].at"))?;
        }
        if self.strengths.len() > STRENGTH_ROWS {
            return Err(HouseholdError::refused(
                "strengths",
                format!(
                    "at most {STRENGTH_ROWS} strengths are kept; this lists {}",
                    self.strengths.len()
                ),
            ));
        }
        for (i, row) in self.strengths.iter().enumerate() {
            row.check(&format!("strengths[{i}]"))?;
            time(row.at, &format!("strengths[{i}].at"))?;
            limits::login(&row.by, &format!("strengths[{i}].by"), true)?;
        }
        for (i, menu) in self.menus.iter().enumerate() {
            limits::login(&menu.by, &format!("menus[{i}].by"), true)?;
        }
        if self.shopping.len() > SHOPPING_ROWS {
            return Err(HouseholdError::refused(
                "shopping",
                format!(
                    "at most {SHOPPING_ROWS} shopping rows are kept; this lists {}",
                    self.shopping.len()
                ),
            ));
        }
        for (i, row) in self.shopping.iter().enumerate() {
            row.check(&format!("shopping[{i}]"))?;
        }
        if self.rules.len() > RULE_ROWS {
            return Err(HouseholdError::refused(
                "rules",
                format!(
                    "at most {RULE_ROWS} rule rows are kept; this lists {}",
                    self.rules.len()
                ),
            ));
        }
        for (i, row) in self.rules.iter().enumerate() {
            row.check(&format!("rules[{i}]"))?;
        }
        backup_photos::check(&self.photos, self.version)?;
        for (i, row) in self.shelf.iter().enumerate() {
            limits::shelf_name(&row.name, &format!("shelf[{i}].name"))?;
            time(row.at, &format!("shelf[{i}].at"))?;
            limits::login(&row.by, &format!("shelf[{i}].by"), true)?;
        }
        for (p, person) in self.people.iter().enumerate() {
            person.check(&format!("people[{p}]"))?;
        }
        Ok(())
    }
}

impl Backup {
    /// Keeps only the photo rows whose files the photo store holds (`has`): loaded from
    /// the JSON file alone, a row must not name files that are not there. How many rows
    /// were left out (the household archive brings them with their files).
    pub fn keep_photos_with_files(&mut self, has: impl Fn(&str) -> bool) -> usize {
        let before = self.photos.len();
        self.photos.retain(|row| has(&row.hash));
        before - self.photos.len()
    }

    /// Every recipe id the file names is one the collection has or had.
    fn check_ids(&self, highest: u64) -> Result<()> {
        for (p, person) in self.people.iter().enumerate() {
            let at = format!("people[{p}]");
            let ids = [
                (
                    "favourites",
                    person.favourites.iter().map(|f| f.id).collect::<Vec<_>>(),
                ),
                ("ratings", person.ratings.iter().map(|r| r.id).collect()),
                ("notes", person.notes.iter().map(|n| n.id).collect()),
                ("made", person.made.iter().map(|m| m.id).collect()),
            ];
            for (what, ids) in ids {
                for (i, id) in ids.into_iter().enumerate() {
                    limits::known_recipe(id, highest, &format!("{at}.{what}[{i}].id"))?;
                }
            }
        }
        for (m, menu) in self.menus.iter().enumerate() {
            for (i, r) in menu.recipes.iter().enumerate() {
                limits::known_recipe(r.id, highest, &format!("menus[{m}].recipes[{i}].id"))?;
            }
        }
        backup_photos::check_ids(&self.photos, highest)
    }
}

fn time(at: i64, field: &str) -> Result<()> {
    if at < 0 {
        return Err(HouseholdError::refused(
            field,
            "must be a time in milliseconds since 1970, not negative",
        ));
    }
    Ok(())
}

impl PersonRows {
    fn check(&self, at: &str) -> Result<()> {
        limits::login(&self.login, &format!("{at}.login"), false)?;
        limits::login(&self.name, &format!("{at}.name"), true)?;
        let caps = [
            ("favourites", self.favourites.len(), limits::PER_PERSON),
            ("ratings", self.ratings.len(), limits::PER_PERSON),
            ("notes", self.notes.len(), limits::PER_PERSON),
            ("made", self.made.len(), limits::MADE_ROWS),
        ];
        for (what, n, cap) in caps {
            if n > cap {
                return Err(HouseholdError::refused(
                    format!("{at}.{what}"),
                    format!("at most {cap} are kept; this lists {n}"),
                ));
            }
        }
        for (i, f) in self.favourites.iter().enumerate() {
            limits::recipe(f.id, &format!("{at}.favourites[{i}].id"))?;
            time(f.at, &format!("{at}.favourites[{i}].at"))?;
        }
        for (i, r) in self.ratings.iter().enumerate() {
            limits::recipe(r.id, &format!("{at}.ratings[{i}].id"))?;
            if r.stars.is_some_and(|s| !(1..=5).contains(&s)) {
                return Err(HouseholdError::refused(
                    format!("{at}.ratings[{i}].stars"),
                    "must be 1 to 5, or null",
                ));
            }
            time(r.at, &format!("{at}.ratings[{i}].at"))?;
        }
        for (i, n) in self.notes.iter().enumerate() {
            limits::recipe(n.id, &format!("{at}.notes[{i}].id"))?;
            for (c, text) in n.text.iter().chain(&n.conflicts).enumerate() {
                let field = if c == 0 && n.text.is_some() {
                    format!("{at}.notes[{i}].text")
                } else {
                    format!("{at}.notes[{i}].conflicts")
                };
                limits::note(text, &field)?;
            }
            time(n.at, &format!("{at}.notes[{i}].at"))?;
        }
        for (i, m) in self.made.iter().enumerate() {
            limits::recipe(m.id, &format!("{at}.made[{i}].id"))?;
            time(m.at, &format!("{at}.made[{i}].at"))?;
        }
        Ok(())
    }
}

impl Household {
    /// Everything, as a backup file holds it.
    pub fn export(&self) -> Result<Backup> {
        let db = self.db();
        let mut backup = Backup {
            format: FORMAT.into(),
            version: VERSION,
            exported_at: limits::now_ms(),
            shelf: Vec::new(),
            people: Vec::new(),
            menus: Vec::new(),
            strengths: Vec::new(),
            shopping: Vec::new(),
            rules: Vec::new(),
            photos: Vec::new(),
        };
        let mut stmt = db.prepare("SELECT name, have, at, by FROM shelf ORDER BY name")?;
        for row in stmt.query_map([], |r| {
            Ok(ShelfRow {
                name: r.get(0)?,
                have: r.get(1)?,
                at: r.get(2)?,
                by: r.get(3)?,
            })
        })? {
            backup.shelf.push(row?);
        }
        let mut stmt = db.prepare(
            "SELECT login, name FROM people UNION SELECT DISTINCT login, login FROM favourites
             WHERE login NOT IN (SELECT login FROM people) ORDER BY 1",
        )?;
        let people = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for (login, name) in people {
            backup.people.push(person_rows(&db, login, name)?);
        }
        backup.menus = menus::export(&db)?;
        backup.strengths = strengths::export(&db)?;
        backup.shopping = shopping::export(&db)?;
        backup.rules = rules::export(&db)?;
        backup.photos = backup_photos::export(&db)?;
        Ok(backup)
    }

    /// Merges `backup` in (see the module doc); all of it, or nothing. Every recipe id in
    /// it must be one the collection has or had (up to `highest`,
    /// `libations_store::highest_id_ever`).
    pub fn import(&self, backup: &Backup, highest: u64) -> Result<Taken> {
        backup.check()?;
        backup.check_ids(highest)?;
        self.write(|tx| merge(tx, backup))
    }
}

fn person_rows(db: &Connection, login: String, name: String) -> Result<PersonRows> {
    let id = |v: i64| u64::try_from(v).unwrap_or_default();
    let mut rows = PersonRows {
        login,
        name,
        favourites: Vec::new(),
        ratings: Vec::new(),
        notes: Vec::new(),
        made: Vec::new(),
    };
    let mut stmt =
        db.prepare("SELECT recipe, on_, at FROM favourites WHERE login = ?1 ORDER BY recipe")?;
    for row in stmt.query_map([&rows.login], |r| {
        Ok(FavouriteRow {
            id: id(r.get(0)?),
            on: r.get(1)?,
            at: r.get(2)?,
        })
    })? {
        rows.favourites.push(row?);
    }
    let mut stmt =
        db.prepare("SELECT recipe, stars, at FROM ratings WHERE login = ?1 ORDER BY recipe")?;
    for row in stmt.query_map([&rows.login], |r| {
        Ok(RatingRow {
            id: id(r.get(0)?),
            stars: r.get(1)?,
            at: r.get(2)?,
        })
    })? {
        rows.ratings.push(row?);
    }
    let mut stmt = db.prepare(
        "SELECT recipe, text, conflicts, at FROM notes WHERE login = ?1 ORDER BY recipe",
    )?;
    for row in stmt.query_map([&rows.login], |r| {
        let conflicts: String = r.get(2)?;
        Ok(NoteRow {
            id: id(r.get(0)?),
            text: r.get(1)?,
            conflicts: serde_json::from_str(&conflicts).unwrap_or_default(),
            at: r.get(3)?,
        })
    })? {
        rows.notes.push(row?);
    }
    let mut stmt =
        db.prepare("SELECT recipe, at FROM made WHERE login = ?1 ORDER BY at, recipe")?;
    for row in stmt.query_map([&rows.login], |r| {
        Ok(MadeRow {
            id: id(r.get(0)?),
            at: r.get(1)?,
        })
    })? {
        rows.made.push(row?);
    }
    Ok(rows)
}

fn merge(tx: &Connection, backup: &Backup) -> Result<Taken> {
    let mut taken = Taken::default();
    for row in &backup.shelf {
        let key = limits::shelf_name(&row.name, "shelf.name")?;
        shelf::tick(tx, &key, row.have, row.at.min(limits::now_ms()), &row.by)?;
        taken.shelf += 1;
    }
    for person in &backup.people {
        let who = Person::new(&person.login, Some(&person.name));
        tx.execute(
            "INSERT INTO people (login, name, seen) VALUES (?1, ?2, 0) ON CONFLICT (login) DO NOTHING",
            params![who.login, who.name],
        )?;
        taken.people += 1;
        merge_person(tx, &who.login, person, &mut taken)?;
    }
    taken.menus = menus::merge(tx, &backup.menus)?;
    for (i, row) in backup.strengths.iter().enumerate() {
        let key = limits::shelf_name(&row.name, &format!("strengths[{i}].name"))?;
        let at = row.at.min(limits::now_ms());
        strengths::put(tx, &key, row.abv, at, &row.by, &format!("strengths[{i}]"))?;
        taken.strengths += 1;
    }
    taken.shopping = shopping::merge(tx, &backup.shopping)?;
    taken.rules = rules::merge(tx, &backup.rules)?;
    (taken.photos, taken.covers_changed) = backup_photos::merge(tx, &backup.photos)?;
    Ok(taken)
}

fn merge_person(
    tx: &Connection,
    login: &str,
    person: &PersonRows,
    taken: &mut Taken,
) -> Result<()> {
    let now = limits::now_ms();
    for f in &person.favourites {
        mine::favourite(tx, login, limits::recipe(f.id, "id")?, f.on, f.at.min(now))?;
        taken.favourites += 1;
    }
    for r in &person.ratings {
        mine::rating(
            tx,
            login,
            limits::recipe(r.id, "id")?,
            r.stars,
            r.at.min(now),
        )?;
        taken.ratings += 1;
    }
    for n in &person.notes {
        merge_note(tx, login, n, now)?;
        taken.notes += 1;
    }
    for m in &person.made {
        mine::made(tx, login, limits::recipe(m.id, "id")?, m.at.min(now))?;
        taken.made += 1;
    }
    Ok(())
}

/// A note from a file: the same text joins the conflicts; another text is kept too, the
/// one made last on top and the other as a conflict. Nothing stored is lost.
fn merge_note(tx: &Connection, login: &str, row: &NoteRow, now: i64) -> Result<()> {
    let recipe = limits::recipe(row.id, "id")?;
    let at = row.at.min(now);
    let stored: Option<(Option<String>, String, i64)> = tx
        .query_row(
            "SELECT text, conflicts, at FROM notes WHERE login = ?1 AND recipe = ?2",
            params![login, recipe],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((current, stored_conflicts, stored_at)) = stored else {
        let change = NoteChange {
            text: row.text.clone(),
            was: None,
            settles: Vec::new(),
            at: None,
        };
        mine::note(tx, login, recipe, &change, at)?;
        return set_conflicts(tx, login, recipe, row.text.as_ref(), row.conflicts.clone());
    };
    let mut all: Vec<String> = serde_json::from_str(&stored_conflicts).unwrap_or_default();
    let (top, other, top_at) = if at >= stored_at {
        (row.text.clone(), current, at)
    } else {
        (current, row.text.clone(), stored_at)
    };
    all.extend(other);
    all.extend(row.conflicts.iter().cloned());
    let change = NoteChange {
        text: top.clone(),
        was: None,
        settles: Vec::new(),
        at: None,
    };
    mine::note(tx, login, recipe, &change, top_at)?;
    set_conflicts(tx, login, recipe, top.as_ref(), all)
}

/// Sets a note's conflicts: each text once, never the text on top.
fn set_conflicts(
    tx: &Connection,
    login: &str,
    recipe: i64,
    top: Option<&String>,
    texts: Vec<String>,
) -> Result<()> {
    // A set beside the list: a note may arrive with many conflicts, and a look-up in the
    // list for each would make a merge quadratic in them.
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<String> = Vec::new();
    for text in texts {
        if Some(&text) != top && seen.insert(text.clone()) {
            kept.push(text);
        }
    }
    let json = serde_json::to_string(&kept).unwrap_or_else(|_| "[]".into());
    tx.execute(
        "UPDATE notes SET conflicts = ?3 WHERE login = ?1 AND recipe = ?2",
        params![login, recipe, json],
    )?;
    Ok(())
}
