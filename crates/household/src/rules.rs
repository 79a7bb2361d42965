//! The household's own rules (issue #42): "Dry curaçao for Triple sec", "Rye whiskey for
//! Bourbon": a bottle or kind the household has may stand in for another in "can make",
//! where the vocabulary itself would not let it (a sibling, a matter of taste). Kept here,
//! not built in, because taste is the household's; changed by shelf keepers, seen by all.
//!
//! One row per (have, wanted), both vocabulary entries by id; the change made last wins
//! per row, and a rule taken back is kept (`on = false`) so that an older change from a
//! phone that was offline cannot bring it back.

use super::limits::{self, Person};
use super::{Household, HouseholdError, Result};
use crate::vocabulary::{Reading, Rule, Vocabulary};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

/// Rules the household holds at once.
pub const RULES: usize = 100;
/// Rows the table keeps, rules taken back included.
pub const RULE_ROWS: usize = 1_000;

/// A change to one rule, by the vocabulary's names (any spelling it knows).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleChange {
    /// The bottle or kind the household has.
    pub have: String,
    /// The bottle or kind it stands in for.
    pub wanted: String,
    /// `false` takes the rule back; a rule is added otherwise.
    #[serde(default = "yes")]
    pub on: bool,
    /// When the change was made (ms since 1970); now if absent.
    pub at: Option<i64>,
}

fn yes() -> bool {
    true
}

/// One row as the backup file holds it: entries by id, rules taken back too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleRow {
    pub have: String,
    pub wanted: String,
    pub on: bool,
    pub at: i64,
    pub by: String,
}

impl RuleRow {
    /// The rules a row must keep, `field` naming it (`rules[3]`).
    pub(super) fn check(&self, field: &str) -> Result<()> {
        let vocabulary = Vocabulary::built_in();
        for (id, name) in [(&self.have, "have"), (&self.wanted, "wanted")] {
            if vocabulary.by_id(id).is_none() {
                return Err(HouseholdError::refused(
                    format!("{field}.{name}"),
                    format!("{id:?} is no bottle or kind of the vocabulary (data/vocabulary.json)"),
                ));
            }
        }
        limits::login(&self.by, &format!("{field}.by"), true)?;
        if self.at < 0 {
            return Err(HouseholdError::refused(
                format!("{field}.at"),
                "must be a time in milliseconds since 1970, not negative",
            ));
        }
        Ok(())
    }
}

/// The entry a name of a change names, or why not, naming `field`.
fn entry(name: &str, field: &str) -> Result<String> {
    let vocabulary = Vocabulary::built_in();
    let shown: String = name.chars().take(limits::NAME_CHARS).collect();
    match vocabulary.read(name) {
        Reading::Entry(at) => Ok(vocabulary.entry(at).id.clone()),
        Reading::Either(_) => Err(HouseholdError::refused(
            field,
            format!("{shown:?} names several bottles; a rule names one bottle or kind"),
        )),
        Reading::Unknown(_) => Err(HouseholdError::refused(
            field,
            format!(
                "{shown:?} is no bottle or kind the vocabulary knows; pick one of its names \
                 (My bar lists them)"
            ),
        )),
    }
}

/// The change's two entries, checked before anything is written.
fn entries(change: &RuleChange) -> Result<(String, String)> {
    let have = entry(&change.have, "have")?;
    let wanted = entry(&change.wanted, "wanted")?;
    if have == wanted {
        return Err(HouseholdError::refused(
            "wanted",
            "a bottle cannot stand in for itself; name another bottle or kind",
        ));
    }
    Ok((have, wanted))
}

/// A stored row's (on, at).
fn stored(tx: &Connection, have: &str, wanted: &str) -> Result<Option<(bool, i64)>> {
    Ok(tx
        .prepare_cached("SELECT on_, at FROM rules WHERE have = ?1 AND wanted = ?2")?
        .query_row([have, wanted], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

fn count(tx: &Connection, sql: &str) -> Result<usize> {
    let n: i64 = tx.prepare_cached(sql)?.query_row([], |r| r.get(0))?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// Puts `row` in, unless the stored row's change is later (then nothing changes).
pub(super) fn put(tx: &Connection, row: &RuleRow, field: &str) -> Result<bool> {
    let was = stored(tx, &row.have, &row.wanted)?;
    if was.is_some_and(|(_, at)| at > row.at) {
        return Ok(false);
    }
    if row.on
        && !was.is_some_and(|(on, _)| on)
        && count(tx, "SELECT count(*) FROM rules WHERE on_ = 1")? >= RULES
    {
        return Err(HouseholdError::refused(
            field,
            format!("the household keeps at most {RULES} rules; take some back first"),
        ));
    }
    if was.is_none() && count(tx, "SELECT count(*) FROM rules")? >= RULE_ROWS {
        return Err(HouseholdError::refused(
            field,
            format!("the household already remembers {RULE_ROWS} rules, the most the app keeps"),
        ));
    }
    tx.prepare_cached(
        "INSERT INTO rules (have, wanted, on_, at, by) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (have, wanted) DO UPDATE SET on_ = excluded.on_, at = excluded.at,
           by = excluded.by",
    )?
    .execute(params![row.have, row.wanted, row.on, row.at, row.by])?;
    Ok(true)
}

/// Every row, for the backup file.
pub(super) fn export(db: &Connection) -> Result<Vec<RuleRow>> {
    let mut stmt =
        db.prepare("SELECT have, wanted, on_, at, by FROM rules ORDER BY have, wanted")?;
    let rows = stmt.query_map([], |r| {
        Ok(RuleRow {
            have: r.get(0)?,
            wanted: r.get(1)?,
            on: r.get(2)?,
            at: r.get(3)?,
            by: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A backup's rows merged in, by the same rule (the change made last wins).
pub(super) fn merge(tx: &Connection, rows: &[RuleRow]) -> Result<usize> {
    let now = limits::now_ms();
    for (i, r) in rows.iter().enumerate() {
        let field = format!("rules[{i}]");
        r.check(&field)?;
        let row = RuleRow {
            at: r.at.min(now),
            ..r.clone()
        };
        put(tx, &row, &field)?;
    }
    Ok(rows.len())
}

impl Household {
    /// The rules held, by the vocabulary's names, in the order they were made.
    pub fn rules(&self) -> Result<Vec<Rule>> {
        let db = self.db();
        let mut stmt = db.prepare_cached(
            "SELECT have, wanted FROM rules WHERE on_ = 1 ORDER BY at, have, wanted",
        )?;
        let ids = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let vocabulary = Vocabulary::built_in();
        let name = |id: &str| {
            vocabulary
                .by_id(id)
                .map(|at| vocabulary.entry(at).name.clone())
        };
        let mut out = Vec::new();
        for pair in ids {
            let (have, wanted) = pair?;
            // A rule whose entry a later vocabulary dropped is kept, but not used.
            if let (Some(have), Some(wanted)) = (name(&have), name(&wanted)) {
                out.push(Rule { have, wanted });
            }
        }
        Ok(out)
    }

    /// Adds or takes back one rule as one write by `who`: all of it, or (refused) nothing.
    pub fn change_rule(&self, who: &Person, change: &RuleChange) -> Result<()> {
        let (have, wanted) = entries(change)?;
        let at = limits::when(change.at, "at")?;
        self.write(|tx| {
            super::mine::seen(tx, who)?;
            let row = RuleRow {
                have,
                wanted,
                on: change.on,
                at,
                by: who.login.clone(),
            };
            put(tx, &row, "have")?;
            Ok(())
        })
    }
}
