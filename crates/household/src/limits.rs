//! What every write is checked against before it touches the database: who it is for,
//! when it was made, and the caps (docs/HOUSEHOLD.md lists them). A refusal names the
//! field, and nothing is written.

use super::{HouseholdError, Result};
use std::time::{SystemTime, UNIX_EPOCH};

/// The longest note, in characters.
pub(crate) const NOTE_CHARS: usize = 2_000;
/// The longest ingredient name on the shelf, in characters.
pub(crate) const NAME_CHARS: usize = 200;
/// Names one shelf change may list (have and out together).
pub(crate) const SHELF_CHANGE: usize = 500;
/// Ingredients the shelf may know (ticked or not).
pub(crate) const SHELF_ROWS: usize = 5_000;
/// Favourites, ratings and notes one person may have, each.
pub(crate) const PER_PERSON: usize = 5_000;
/// "Made one" entries one person may have.
pub(crate) const MADE_ROWS: usize = 20_000;
/// Conflicting texts one note keeps: a change written over another device's text once a
/// note keeps this many is refused (nothing written), until the person settles some.
pub(crate) const NOTE_CONFLICTS: usize = 20;
/// Replaced texts kept per note (the newest; `GET /api/me/notes/{id}/replaced` lists them).
pub(crate) const REPLACED_KEPT: usize = 50;
/// The largest backup file, in bytes.
pub const BACKUP_BYTES: usize = 8 << 20;

/// A person the tailnet names: the key for everything that is theirs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// The tailnet login, folded to lower case: logins name the same person in any case.
    pub login: String,
    /// What others see next to a rating ("Alice").
    pub name: String,
}

impl Person {
    /// `login` as the tailnet gives it, with its display name (or the login's part before
    /// `@` when the tailnet has none).
    pub fn new(login: &str, name: Option<&str>) -> Person {
        let login = login.trim().to_lowercase();
        let name = match name.map(str::trim) {
            Some(n) if !n.is_empty() => n.to_owned(),
            _ => login.split('@').next().unwrap_or(&login).to_owned(),
        };
        Person { login, name }
    }
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// When a change was made: as the device says, or now; never later than now (a device
/// whose clock runs ahead must not win every later change), never before 1970.
pub(crate) fn when(at: Option<i64>, field: &str) -> Result<i64> {
    let now = now_ms();
    match at {
        None => Ok(now),
        Some(at) if at < 0 => Err(HouseholdError::refused(
            field,
            "must be a time in milliseconds since 1970, not negative",
        )),
        Some(at) => Ok(at.min(now)),
    }
}

/// A recipe id as SQLite stores it (a signed 64-bit integer).
pub(crate) fn recipe(id: u64, field: &str) -> Result<i64> {
    i64::try_from(id).map_err(|_| HouseholdError::refused(field, "is not a recipe id"))
}

/// A recipe id the household may keep rows for: one the collection has or had (`highest`
/// is the highest id the recipes file and its journal ever gave, `libations_store::highest_id_ever`).
/// Ids are never given twice, so a row for an id past it points at no drink at all, and
/// would hold that id against every recipe added later.
pub(crate) fn known_recipe(id: u64, highest: u64, field: &str) -> Result<i64> {
    if id == 0 || id > highest {
        return Err(HouseholdError::refused(
            field,
            format!(
                "recipe {id} has never been in this collection (its ids run from 1 to {highest})"
            ),
        ));
    }
    recipe(id, field)
}

/// A note's text: at most [`NOTE_CHARS`] characters, no invisible ones (line feeds and
/// tabs are text).
pub(crate) fn note(text: &str, field: &str) -> Result<()> {
    let n = text.chars().count();
    if n > NOTE_CHARS {
        return Err(HouseholdError::refused(
            field,
            format!("a note can be at most {NOTE_CHARS} characters; this one has {n}"),
        ));
    }
    if let Some(bad) = crate::text::invisible(text, true) {
        return Err(HouseholdError::refused(
            field,
            format!("holds {bad}, which does not show as itself"),
        ));
    }
    Ok(())
}

/// A shelf name as the shelf keeps it (`ingredients::key`), or why it is none.
pub(crate) fn shelf_name(name: &str, field: &str) -> Result<String> {
    let n = name.chars().count();
    if n > NAME_CHARS {
        return Err(HouseholdError::refused(
            field,
            format!("an ingredient name can be at most {NAME_CHARS} characters; this one has {n}"),
        ));
    }
    name_shows(name, field)?;
    let key = crate::ingredients::key(name);
    if key.is_empty() {
        return Err(HouseholdError::refused(field, "is not an ingredient name"));
    }
    Ok(key)
}

/// Refuses a one-line name holding a character that does not show as itself
/// ([`crate::text::invisible_in_name`]): a shelf name, a strength's, a menu's title, a login.
pub(crate) fn name_shows(text: &str, field: &str) -> Result<()> {
    match crate::text::invisible_in_name(text) {
        Some(bad) => Err(HouseholdError::refused(
            field,
            format!("holds {bad}, which does not show as itself"),
        )),
        None => Ok(()),
    }
}

/// The longest login or person's name a backup may hold, in characters (a tailnet login
/// is an e-mail address: at most 254).
pub(crate) const LOGIN_CHARS: usize = 320;

/// A login, a person's name or a change's `by` as a backup holds it: what the tailnet
/// gives, so one line of at most [`LOGIN_CHARS`] characters that shows as itself (it
/// reaches everyone's ratings as "by"); a login may not be empty.
pub fn login(text: &str, field: &str, may_be_empty: bool) -> Result<()> {
    let n = text.chars().count();
    if n > LOGIN_CHARS {
        return Err(HouseholdError::refused(
            field,
            format!("can be at most {LOGIN_CHARS} characters; this one has {n}"),
        ));
    }
    if !may_be_empty && text.trim().is_empty() {
        return Err(HouseholdError::refused(field, "is empty"));
    }
    name_shows(text, field)?;
    Ok(())
}

/// Refuses adding to a table that already holds `cap` rows of this person's.
pub(crate) fn room(count: i64, cap: usize, what: &str, field: &str) -> Result<()> {
    if usize::try_from(count).unwrap_or(usize::MAX) >= cap {
        return Err(HouseholdError::refused(
            field,
            format!("you already have {cap} {what}, the most the app keeps"),
        ));
    }
    Ok(())
}
