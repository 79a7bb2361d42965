//! The household's shopping list: bottles to buy, shared by everyone (issue #42). One row
//! per folded name ([`crate::text::fold`]: "Campari" and " campari" are one item); the
//! change made last wins, per row, and a row taken off the list is kept (`on = false`) so
//! that an older change from a phone that was offline cannot bring it back. Buying an item
//! marks it got and ticks its bottle on the shelf in the same transaction: the same tick a
//! shelf keeper makes ([`super::shelf::tick`]), so the list's writers are the shelf's.

use super::limits::{self, Person};
use super::{Household, HouseholdError, Result, shelf};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

/// Items the list holds at once (not yet taken off).
pub const SHOPPING_ITEMS: usize = 200;
/// Rows the table keeps, items taken off included.
pub const SHOPPING_ROWS: usize = 2_000;
/// Names one change may list, all its lists together.
pub const SHOPPING_CHANGE: usize = 500;

/// One item on the list, as everyone sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShoppingItem {
    pub name: String,
    /// Bought (ticked), not yet cleared.
    pub got: bool,
    /// Who put it on the list (their display name), and when (ms since 1970).
    pub added_by: String,
    pub added_at: i64,
}

/// A change to the list, each list by name (as written; folded to find the item). Applied
/// in this order: `add`, then `bought`, `got` and `unget`, then `remove`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShoppingChange {
    /// Put on the list (an item there already stays as it is).
    #[serde(default)]
    pub add: Vec<String>,
    /// Bought: marked got, and its bottle ticked on the shelf.
    #[serde(default)]
    pub bought: Vec<String>,
    /// Marked got without touching the shelf (a phone's own list moved up, its ticks kept).
    #[serde(default)]
    pub got: Vec<String>,
    /// No longer got (the shelf keeps its tick).
    #[serde(default)]
    pub unget: Vec<String>,
    /// Taken off the list.
    #[serde(default)]
    pub remove: Vec<String>,
    /// When the change was made (ms since 1970); now if absent.
    pub at: Option<i64>,
}

/// One row as the backup file holds it: items taken off too, so that the change made last
/// still wins when it is merged back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShoppingRow {
    pub name: String,
    pub on: bool,
    pub got: bool,
    pub added_by: String,
    pub added_at: i64,
    pub at: i64,
    pub by: String,
}

impl ShoppingRow {
    /// The rules a row must keep, `field` naming it (`shopping[3]`).
    pub(super) fn check(&self, field: &str) -> Result<()> {
        item_name(&self.name, &format!("{field}.name"))?;
        limits::login(&self.added_by, &format!("{field}.added_by"), true)?;
        limits::login(&self.by, &format!("{field}.by"), true)?;
        for (at, name) in [(self.at, "at"), (self.added_at, "added_at")] {
            if at < 0 {
                return Err(HouseholdError::refused(
                    format!("{field}.{name}"),
                    "must be a time in milliseconds since 1970, not negative",
                ));
            }
        }
        Ok(())
    }
}

/// An item's name: trimmed, spaces collapsed, at most [`limits::NAME_CHARS`] characters,
/// showing as itself; with its folded key.
pub(crate) fn item_name(name: &str, field: &str) -> Result<(String, String)> {
    let clean = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = clean.chars().count();
    if n > limits::NAME_CHARS {
        return Err(HouseholdError::refused(
            field,
            format!(
                "an item's name can be at most {} characters; this one has {n}",
                limits::NAME_CHARS
            ),
        ));
    }
    limits::name_shows(&clean, field)?;
    let key = crate::text::fold(&clean);
    if key.is_empty() {
        return Err(HouseholdError::refused(field, "is empty"));
    }
    Ok((clean, key))
}

/// What one name of a change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Bought,
    Got,
    Unget,
    Remove,
}

/// The change's names, checked whole before anything is written: (op, name, key, field).
fn ops(change: &ShoppingChange) -> Result<Vec<(Op, String, String, String)>> {
    let lists = [
        ("add", &change.add, Op::Add),
        ("bought", &change.bought, Op::Bought),
        ("got", &change.got, Op::Got),
        ("unget", &change.unget, Op::Unget),
        ("remove", &change.remove, Op::Remove),
    ];
    let total: usize = lists.iter().map(|(_, l, _)| l.len()).sum();
    if total > SHOPPING_CHANGE {
        return Err(HouseholdError::refused(
            "add",
            format!("one change can name at most {SHOPPING_CHANGE} items; this one names {total}"),
        ));
    }
    let mut out: Vec<(Op, String, String, String)> = Vec::new();
    for (list, names, op) in lists {
        for (i, name) in names.iter().enumerate() {
            let field = format!("{list}[{i}]");
            let (clean, key) = item_name(name, &field)?;
            let clash = out
                .iter()
                .find(|(o, _, k, _)| *k == key && *o != op && (*o != Op::Add || op == Op::Remove));
            if let Some((other, ..)) = clash {
                return Err(HouseholdError::refused(
                    field,
                    format!("{clean:?} is also in {}", list_name(*other)),
                ));
            }
            out.push((op, clean, key, field));
        }
    }
    Ok(out)
}

fn list_name(op: Op) -> &'static str {
    match op {
        Op::Add => "add",
        Op::Bought => "bought",
        Op::Got => "got",
        Op::Unget => "unget",
        Op::Remove => "remove",
    }
}

/// A stored row's state: (on, got, at).
fn stored(tx: &Connection, key: &str) -> Result<Option<(bool, bool, i64)>> {
    Ok(tx
        .prepare_cached("SELECT on_, got, at FROM shopping WHERE key = ?1")?
        .query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}

/// Refuses one more row past [`SHOPPING_ROWS`], or one more item past [`SHOPPING_ITEMS`].
fn room(tx: &Connection, new_row: bool, new_item: bool, field: &str) -> Result<()> {
    let count =
        |sql: &str| -> Result<i64> { Ok(tx.prepare_cached(sql)?.query_row([], |r| r.get(0))?) };
    if new_item
        && usize::try_from(count("SELECT count(*) FROM shopping WHERE on_ = 1")?)
            .unwrap_or(usize::MAX)
            >= SHOPPING_ITEMS
    {
        return Err(HouseholdError::refused(
            field,
            format!("the shopping list holds at most {SHOPPING_ITEMS} items; remove some first"),
        ));
    }
    if new_row
        && usize::try_from(count("SELECT count(*) FROM shopping")?).unwrap_or(usize::MAX)
            >= SHOPPING_ROWS
    {
        return Err(HouseholdError::refused(
            field,
            format!(
                "the shopping list already remembers {SHOPPING_ROWS} items, the most the app keeps"
            ),
        ));
    }
    Ok(())
}

/// Puts `row` in, unless the stored row's change is later (then nothing changes).
pub(super) fn put(tx: &Connection, key: &str, row: &ShoppingRow, field: &str) -> Result<bool> {
    let was = stored(tx, key)?;
    if was.is_some_and(|(_, _, at)| at > row.at) {
        return Ok(false);
    }
    room(
        tx,
        was.is_none(),
        row.on && !was.is_some_and(|(on, ..)| on),
        field,
    )?;
    tx.prepare_cached(
        "INSERT INTO shopping (key, name, on_, got, added_by, added_at, at, by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (key) DO UPDATE SET name = excluded.name, on_ = excluded.on_,
           got = excluded.got, added_by = excluded.added_by, added_at = excluded.added_at,
           at = excluded.at, by = excluded.by",
    )?
    .execute(params![
        key,
        row.name,
        row.on,
        row.got,
        row.added_by,
        row.added_at,
        row.at,
        row.by
    ])?;
    Ok(true)
}

/// The stored row of `key`, whole.
fn row_of(tx: &Connection, key: &str) -> Result<Option<ShoppingRow>> {
    Ok(tx
        .prepare_cached(
            "SELECT name, on_, got, added_by, added_at, at, by FROM shopping WHERE key = ?1",
        )?
        .query_row([key], row)
        .optional()?)
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ShoppingRow> {
    Ok(ShoppingRow {
        name: r.get(0)?,
        on: r.get(1)?,
        got: r.get(2)?,
        added_by: r.get(3)?,
        added_at: r.get(4)?,
        at: r.get(5)?,
        by: r.get(6)?,
    })
}

/// One name of a change, at `at` by `who`.
fn apply(
    tx: &Connection,
    who: &str,
    at: i64,
    (op, name, key, field): &(Op, String, String, String),
) -> Result<()> {
    let was = row_of(tx, key)?;
    let mut next = match (&was, op) {
        (Some(r), Op::Add) if r.on => return Ok(()),
        (_, Op::Add) => ShoppingRow {
            name: name.clone(),
            on: true,
            got: false,
            added_by: who.into(),
            added_at: at,
            at,
            by: who.into(),
        },
        (None, Op::Remove) => ShoppingRow {
            name: name.clone(),
            on: false,
            got: false,
            added_by: who.into(),
            added_at: at,
            at,
            by: who.into(),
        },
        (None, _) => {
            return Err(HouseholdError::refused(
                field.as_str(),
                format!("{name:?} is not on the shopping list"),
            ));
        }
        (Some(r), _) => r.clone(),
    };
    if *op == Op::Bought {
        let bottle = limits::shelf_name(&next.name, field)?;
        shelf::tick(tx, &bottle, true, at, who)?;
    }
    if was.is_some() && (matches!(op, Op::Bought | Op::Got | Op::Unget) && !next.on) {
        // Taken off the list already: buying it elsewhere does not bring it back.
        return Ok(());
    }
    match op {
        Op::Bought | Op::Got => next.got = true,
        Op::Unget => next.got = false,
        Op::Remove => next.on = false,
        Op::Add => {}
    }
    next.at = at;
    next.by = who.into();
    put(tx, key, &next, field)?;
    Ok(())
}

/// Every row, by key, for the backup file.
pub(super) fn export(db: &Connection) -> Result<Vec<ShoppingRow>> {
    let mut stmt =
        db.prepare("SELECT name, on_, got, added_by, added_at, at, by FROM shopping ORDER BY key")?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A backup's rows merged in, by the same rule (the change made last wins).
pub(super) fn merge(tx: &Connection, rows: &[ShoppingRow]) -> Result<usize> {
    let now = limits::now_ms();
    for (i, r) in rows.iter().enumerate() {
        let field = format!("shopping[{i}]");
        let (name, key) = item_name(&r.name, &format!("{field}.name"))?;
        let row = ShoppingRow {
            name,
            at: r.at.min(now),
            added_at: r.added_at.min(now),
            ..r.clone()
        };
        put(tx, &key, &row, &field)?;
    }
    Ok(rows.len())
}

impl Household {
    /// The list: items not taken off, in the order they were added.
    pub fn shopping(&self) -> Result<Vec<ShoppingItem>> {
        let db = self.db();
        let mut stmt = db.prepare_cached(
            "SELECT s.name, s.got, coalesce(p.name, s.added_by), s.added_at
             FROM shopping s LEFT JOIN people p ON p.login = s.added_by
             WHERE s.on_ = 1 ORDER BY s.added_at, s.key",
        )?;
        let items = stmt.query_map([], |r| {
            Ok(ShoppingItem {
                name: r.get(0)?,
                got: r.get(1)?,
                added_by: r.get(2)?,
                added_at: r.get(3)?,
            })
        })?;
        Ok(items.collect::<rusqlite::Result<_>>()?)
    }

    /// Makes `change` as one write by `who`: all of it, or (refused) nothing.
    pub fn change_shopping(&self, who: &Person, change: &ShoppingChange) -> Result<()> {
        let ops = ops(change)?;
        let at = limits::when(change.at, "at")?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            for op in &ops {
                apply(tx, &who.login, at, op)?;
            }
            Ok(())
        })
    }
}
