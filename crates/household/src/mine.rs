//! One person's own: favourites, ratings, notes and the "made one" log.
//!
//! Toggles (a favourite, a rating) keep the change made last: one older than the stored
//! row changes nothing and is answered with the stored state (`applied: false`). A note
//! is text, which is never lost unseen: a change says which text it was written over
//! (`was`), and when the stored text is another, both are kept (the older one as a
//! conflict) until the person settles it. Every text a note loses is also kept in
//! `replaced_notes`.

use super::limits::{self, MADE_ROWS, NOTE_CONFLICTS, PER_PERSON, Person, REPLACED_KEPT};
use super::{Household, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::collections::BTreeMap;

/// Everything one person has, as `GET /api/me` shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PersonData {
    pub favourites: Vec<u64>,
    pub ratings: BTreeMap<u64, u8>,
    pub notes: BTreeMap<u64, String>,
    pub note_conflicts: BTreeMap<u64, Vec<String>>,
    /// Newest first: (recipe, when).
    pub made: Vec<(u64, i64)>,
}

/// A favourite after a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Toggle {
    pub on: bool,
    pub at: i64,
    /// False when a change made later was stored already: `on` is that one.
    pub applied: bool,
}

/// A rating after a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RatingState {
    pub stars: Option<u8>,
    pub at: i64,
    pub applied: bool,
}

/// A change to a note: new text (`None` deletes it).
#[derive(Debug, Clone, Default)]
pub struct NoteChange {
    pub text: Option<String>,
    /// The text the change was written over, when the device says (`Some(None)`: there
    /// was none). Without it the change is taken as it is (a script's).
    pub was: Option<Option<String>>,
    /// Conflicting texts the person saw and settled.
    pub settles: Vec<String>,
    pub at: Option<i64>,
}

/// A note after a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteState {
    pub text: Option<String>,
    pub conflicts: Vec<String>,
    pub at: i64,
}

fn id(recipe: i64) -> u64 {
    u64::try_from(recipe).unwrap_or_default()
}

impl Household {
    /// What `person` has: their favourites, ratings, notes and log.
    pub fn mine(&self, login: &str) -> Result<PersonData> {
        let db = self.db();
        read_mine(&db, login)
    }

    /// Stars `recipe` for `person` (`on`), or takes the star away.
    pub fn set_favourite(
        &self,
        who: &Person,
        recipe: u64,
        on: bool,
        at: Option<i64>,
    ) -> Result<Toggle> {
        let recipe = limits::recipe(recipe, "id")?;
        let at = limits::when(at, "at")?;
        self.write(|tx| {
            if !on {
                stored(tx, "favourites", &who.login, recipe, "favourite")?;
            }
            seen(tx, who)?;
            favourite(tx, &who.login, recipe, on, at)
        })
    }

    /// Rates `recipe` 1 to 5 stars for `person`, or takes the rating away (`None`).
    pub fn set_rating(
        &self,
        who: &Person,
        recipe: u64,
        stars: Option<u8>,
        at: Option<i64>,
    ) -> Result<RatingState> {
        let recipe = limits::recipe(recipe, "id")?;
        if stars.is_some_and(|s| !(1..=5).contains(&s)) {
            return Err(super::HouseholdError::refused(
                "stars",
                "must be a whole number from 1 to 5",
            ));
        }
        let at = limits::when(at, "at")?;
        self.write(|tx| {
            if stars.is_none() {
                stored(tx, "ratings", &who.login, recipe, "rating")?;
            }
            seen(tx, who)?;
            rating(tx, &who.login, recipe, stars, at)
        })
    }

    /// Changes `person`'s note on `recipe` (see the module doc for conflicts).
    pub fn set_note(&self, who: &Person, recipe: u64, change: NoteChange) -> Result<NoteState> {
        let recipe = limits::recipe(recipe, "id")?;
        if let Some(text) = &change.text {
            limits::note(text, "text")?;
        }
        let at = limits::when(change.at, "at")?;
        self.write(|tx| {
            if change.text.is_none() {
                stored(tx, "notes", &who.login, recipe, "note")?;
            }
            seen(tx, who)?;
            let before = conflict_count(tx, &who.login, recipe)?;
            let state = note(tx, &who.login, recipe, &change, at)?;
            if state.conflicts.len() > before.max(NOTE_CONFLICTS) {
                return Err(super::HouseholdError::refused(
                    "was",
                    format!("this note already keeps {NOTE_CONFLICTS} texts written over each other; settle them (\"settles\") before writing over another device's change"),
                ));
            }
            Ok(state)
        })
    }

    /// Logs that `person` made `recipe` at `at` (once: the same time twice is one entry).
    pub fn add_made(&self, who: &Person, recipe: u64, at: Option<i64>) -> Result<i64> {
        let recipe = limits::recipe(recipe, "id")?;
        let at = limits::when(at, "at")?;
        self.write(|tx| {
            seen(tx, who)?;
            made(tx, &who.login, recipe, at)?;
            Ok(at)
        })
    }

    /// Takes back one "made one" entry; false when there was none at that time.
    pub fn remove_made(&self, who: &Person, recipe: u64, at: i64) -> Result<bool> {
        let recipe = limits::recipe(recipe, "id")?;
        self.write(|tx| {
            let n = tx.execute(
                "DELETE FROM made WHERE login = ?1 AND recipe = ?2 AND at = ?3",
                params![who.login, recipe, at],
            )?;
            Ok(n > 0)
        })
    }
}

pub(super) fn read_mine(db: &Connection, login: &str) -> Result<PersonData> {
    let mut mine = PersonData::default();
    let mut stmt = db.prepare_cached(
        "SELECT recipe FROM favourites WHERE login = ?1 AND on_ = 1 ORDER BY recipe",
    )?;
    for row in stmt.query_map([login], |r| r.get::<_, i64>(0))? {
        mine.favourites.push(id(row?));
    }
    let mut stmt = db.prepare_cached(
        "SELECT recipe, stars FROM ratings WHERE login = ?1 AND stars IS NOT NULL",
    )?;
    for row in stmt.query_map([login], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, u8>(1)?)))? {
        let (recipe, stars) = row?;
        mine.ratings.insert(id(recipe), stars);
    }
    let mut stmt =
        db.prepare_cached("SELECT recipe, text, conflicts FROM notes WHERE login = ?1")?;
    for row in stmt.query_map([login], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, Option<String>>(1)?,
            r.get::<_, String>(2)?,
        ))
    })? {
        let (recipe, text, conflicts) = row?;
        if let Some(text) = text {
            mine.notes.insert(id(recipe), text);
        }
        let conflicts = parse_conflicts(&conflicts);
        if !conflicts.is_empty() {
            mine.note_conflicts.insert(id(recipe), conflicts);
        }
    }
    let mut stmt =
        db.prepare_cached("SELECT recipe, at FROM made WHERE login = ?1 ORDER BY at DESC, recipe")?;
    for row in stmt.query_map([login], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
        let (recipe, at) = row?;
        mine.made.push((id(recipe), at));
    }
    Ok(mine)
}

/// Records the person's name as the tailnet gives it now (shown beside their ratings).
pub(super) fn seen(db: &Connection, who: &Person) -> Result<()> {
    db.prepare_cached(
        "INSERT INTO people (login, name, seen) VALUES (?1, ?2, ?3)
         ON CONFLICT (login) DO UPDATE SET name = excluded.name, seen = excluded.seen",
    )?
    .execute(params![who.login, who.name, limits::now_ms()])?;
    Ok(())
}

/// Refuses taking away a `what` that was never stored: a `DELETE` of nothing stores
/// nothing (a row that says "off" is kept only where something was on), so that no id
/// can be planted in the household by taking away what it never had.
fn stored(db: &Connection, table: &str, login: &str, recipe: i64, what: &str) -> Result<()> {
    let sql = format!("SELECT EXISTS (SELECT 1 FROM {table} WHERE login = ?1 AND recipe = ?2)");
    let exists: bool = db
        .prepare_cached(&sql)?
        .query_row(params![login, recipe], |r| r.get(0))?;
    if exists {
        return Ok(());
    }
    Err(super::HouseholdError::Nothing(format!(
        "You have no {what} on recipe {recipe} to take away; nothing was changed."
    )))
}

fn count(db: &Connection, sql: &str, login: &str) -> Result<i64> {
    Ok(db.prepare_cached(sql)?.query_row([login], |r| r.get(0))?)
}

pub(super) fn favourite(
    db: &Connection,
    login: &str,
    recipe: i64,
    on: bool,
    at: i64,
) -> Result<Toggle> {
    let stored: Option<(bool, i64)> = db
        .prepare_cached("SELECT on_, at FROM favourites WHERE login = ?1 AND recipe = ?2")?
        .query_row(params![login, recipe], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    if let Some((was_on, was_at)) = stored.filter(|&(_, was_at)| was_at > at) {
        return Ok(Toggle {
            on: was_on,
            at: was_at,
            applied: false,
        });
    }
    if stored.is_none() {
        limits::room(
            count(
                db,
                "SELECT count(*) FROM favourites WHERE login = ?1",
                login,
            )?,
            PER_PERSON,
            "favourites",
            "id",
        )?;
    }
    db.prepare_cached(
        "INSERT INTO favourites (login, recipe, on_, at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (login, recipe) DO UPDATE SET on_ = excluded.on_, at = excluded.at",
    )?
    .execute(params![login, recipe, on, at])?;
    Ok(Toggle {
        on,
        at,
        applied: true,
    })
}

pub(super) fn rating(
    db: &Connection,
    login: &str,
    recipe: i64,
    stars: Option<u8>,
    at: i64,
) -> Result<RatingState> {
    let stored: Option<(Option<u8>, i64)> = db
        .prepare_cached("SELECT stars, at FROM ratings WHERE login = ?1 AND recipe = ?2")?
        .query_row(params![login, recipe], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    if let Some((was, was_at)) = stored.filter(|&(_, was_at)| was_at > at) {
        return Ok(RatingState {
            stars: was,
            at: was_at,
            applied: false,
        });
    }
    if stored.is_none() {
        limits::room(
            count(db, "SELECT count(*) FROM ratings WHERE login = ?1", login)?,
            PER_PERSON,
            "ratings",
            "id",
        )?;
    }
    db.prepare_cached(
        "INSERT INTO ratings (login, recipe, stars, at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (login, recipe) DO UPDATE SET stars = excluded.stars, at = excluded.at",
    )?
    .execute(params![login, recipe, stars, at])?;
    Ok(RatingState {
        stars,
        at,
        applied: true,
    })
}

/// How many conflicting texts `login`'s note on `recipe` keeps now.
fn conflict_count(db: &Connection, login: &str, recipe: i64) -> Result<usize> {
    let stored: Option<String> = db
        .prepare_cached("SELECT conflicts FROM notes WHERE login = ?1 AND recipe = ?2")?
        .query_row(params![login, recipe], |r| r.get(0))
        .optional()?;
    Ok(stored.map_or(0, |c| parse_conflicts(&c).len()))
}

fn parse_conflicts(json: &str) -> Vec<String> {
    serde_json::from_str(json).unwrap_or_default()
}

pub(super) fn note(
    db: &Connection,
    login: &str,
    recipe: i64,
    change: &NoteChange,
    at: i64,
) -> Result<NoteState> {
    let stored: Option<(Option<String>, String, i64)> = db
        .prepare_cached("SELECT text, conflicts, at FROM notes WHERE login = ?1 AND recipe = ?2")?
        .query_row(params![login, recipe], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    if stored.is_none() {
        limits::room(
            count(db, "SELECT count(*) FROM notes WHERE login = ?1", login)?,
            PER_PERSON,
            "notes",
            "id",
        )?;
    }
    let (current, conflicts, stored_at) = stored.unwrap_or((None, "[]".into(), 0));
    let mut conflicts = parse_conflicts(&conflicts);
    let unseen = match &change.was {
        Some(was) => *was != current && current != change.text,
        None => false,
    };
    if let Some(lost) = current
        .as_ref()
        .filter(|c| Some(*c) != change.text.as_ref())
    {
        keep_replaced(db, login, recipe, lost, stored_at)?;
        if unseen && !conflicts.contains(lost) {
            conflicts.push(lost.clone());
        }
    }
    conflicts.retain(|c| !change.settles.contains(c) && Some(c) != change.text.as_ref());
    let conflicts_json = serde_json::to_string(&conflicts).unwrap_or_else(|_| "[]".into());
    db.prepare_cached(
        "INSERT INTO notes (login, recipe, text, conflicts, at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (login, recipe) DO UPDATE SET text = excluded.text, conflicts = excluded.conflicts, at = excluded.at",
    )?
    .execute(params![login, recipe, change.text, conflicts_json, at])?;
    Ok(NoteState {
        text: change.text.clone(),
        conflicts,
        at,
    })
}

fn keep_replaced(db: &Connection, login: &str, recipe: i64, text: &str, at: i64) -> Result<()> {
    db.prepare_cached("INSERT INTO replaced_notes (login, recipe, text, at, replaced) VALUES (?1, ?2, ?3, ?4, ?5)")?
        .execute(params![login, recipe, text, at, limits::now_ms()])?;
    db.prepare_cached(
        "DELETE FROM replaced_notes WHERE login = ?1 AND recipe = ?2 AND rowid NOT IN
         (SELECT rowid FROM replaced_notes WHERE login = ?1 AND recipe = ?2
          ORDER BY replaced DESC, rowid DESC LIMIT ?3)",
    )?
    .execute(params![login, recipe, REPLACED_KEPT as i64])?;
    Ok(())
}

pub fn made(db: &Connection, login: &str, recipe: i64, at: i64) -> Result<()> {
    let exists: bool = db
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM made WHERE login = ?1 AND recipe = ?2 AND at = ?3)",
        )?
        .query_row(params![login, recipe, at], |r| r.get(0))?;
    if exists {
        return Ok(());
    }
    limits::room(
        count(db, "SELECT count(*) FROM made WHERE login = ?1", login)?,
        MADE_ROWS,
        "\"made one\" entries",
        "id",
    )?;
    db.prepare_cached("INSERT INTO made (login, recipe, at) VALUES (?1, ?2, ?3)")?
        .execute(params![login, recipe, at])?;
    Ok(())
}

/// What a search for `person` needs to answer the personal terms (`is:fav`, `rating:…`,
/// `made:…`, `can:make`, `missing:one`), owned, for [`crate::search::Asker`] to borrow.
#[derive(Debug, Clone, Default)]
pub struct Asking {
    pub favourites: std::collections::HashSet<u64>,
    pub ratings: std::collections::HashMap<u64, u8>,
    pub(crate) last_made: std::collections::HashMap<u64, u64>,
    /// The household's shelf.
    pub shelf: std::collections::HashSet<String>,
    /// The household's rules.
    pub rules: Vec<crate::vocabulary::Rule>,
    pub now_ms: u64,
}

impl Asking {
    pub fn as_asker(&self) -> crate::search::Asker<'_> {
        crate::search::Asker {
            favourites: &self.favourites,
            ratings: &self.ratings,
            last_made: &self.last_made,
            now_ms: self.now_ms,
            shelf: Some(&self.shelf),
            rules: &self.rules,
        }
    }
}

/// A text a note lost (changed, deleted or settled away), kept so that it can be brought
/// back: `at` is when it was written, `replaced` when it was replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replaced {
    pub text: String,
    pub at: i64,
    pub(crate) replaced: i64,
}

/// How many of a note's replaced texts one answer lists (newest first): all that are kept.
pub const REPLACED_SHOWN: usize = REPLACED_KEPT;

impl Household {
    /// The texts `login`'s note on `recipe` lost, newest first: the undo of a change made
    /// by mistake is writing one of them back.
    pub fn replaced_notes(&self, login: &str, recipe: u64) -> Result<Vec<Replaced>> {
        let recipe = limits::recipe(recipe, "id")?;
        let db = self.db();
        let mut query = db.prepare_cached(
            "SELECT text, at, replaced FROM replaced_notes WHERE login = ?1 AND recipe = ?2
             ORDER BY replaced DESC, rowid DESC LIMIT ?3",
        )?;
        let rows = query.query_map(params![login, recipe, REPLACED_SHOWN as i64], |r| {
            Ok(Replaced {
                text: r.get(0)?,
                at: r.get(1)?,
                replaced: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

impl Household {
    /// What a search by `login` answers its personal terms from.
    pub fn asking(&self, login: &str) -> Result<Asking> {
        let mine = self.mine(login)?;
        let mut last_made = std::collections::HashMap::new();
        for (recipe, at) in mine.made {
            let at = u64::try_from(at).unwrap_or_default();
            let latest = last_made.entry(recipe).or_insert(at);
            *latest = (*latest).max(at);
        }
        Ok(Asking {
            favourites: mine.favourites.into_iter().collect(),
            ratings: mine.ratings.into_iter().collect(),
            last_made,
            shelf: self.shelf()?.into_iter().collect(),
            rules: self.rules()?,
            now_ms: u64::try_from(limits::now_ms()).unwrap_or_default(),
        })
    }
}
