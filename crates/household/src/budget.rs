//! The household's one budget: the most bytes its backup file may take, so that every
//! backup the app writes loads back (issue #40). The caps in [`super::limits`] bound each
//! table per person, but people are not counted, so their sum is not bounded: without this,
//! a household could grow a `GET /api/household/download` past [`BACKUP_BYTES`], a file
//! that neither the upload nor `libations import-household` takes.
//!
//! Every write ([`super::Household::write`]) is checked, before it commits, against
//! [`HOUSEHOLD_BYTES`]: [`bound`] figures in SQL, over the write's own transaction, an
//! upper bound on the bytes of the JSON [`super::Household::export`] gives (serde_json,
//! compact, as the download sends it). A write that grows the bound past the budget is
//! refused whole; one that does not grow it (a star taken away, a note deleted) always
//! works, so a household over the budget from before can shrink.
//!
//! The bound, row by row: the row's **skeleton** (its JSON with every varying value left
//! out: field names, quotes, colons, braces, one comma, empty arrays for the nested rows,
//! booleans as `false`, the longer one) plus each value's own bytes, read in SQL:
//! - a text as `octet_length(json_quote(x))`: SQLite's JSON string for it, quotes and
//!   escapes included (`null` for NULL). serde_json writes the shortest escapes JSON allows
//!   (`\"`, `\\`, `\n`, `\t`, `\u0001`; nothing else escaped), so no valid JSON string for
//!   the same text is shorter: SQLite's is at least as long, whatever the text holds (a
//!   control character older rows might keep takes six bytes in both);
//! - an integer as `length(x)`: the characters of its decimal form, sign included, which
//!   is what serde_json writes (an id below 0 is written as `0`, shorter);
//! - a strength's `abv` (a float) as [`FLOAT`] bytes, the longest a float takes;
//! - a note's conflicts as the stored column's bytes (at least `[]`'s two): the column is
//!   serde_json's own text of the list, and writing a parsed JSON list of strings back
//!   never lengthens it (escapes are already the shortest; spaces and `\/` only shrink);
//!   a column that is not such a list is exported as `[]`.
//!
//! Rows the export leaves out (menu drinks of no menu, a person's rows under a login it
//! does not list) are counted anyway: an upper bound may be loose, not short.

use super::limits::BACKUP_BYTES;
use super::{HouseholdError, Result};
use rusqlite::Connection;

/// The most bytes the bound may reach: 7 MiB, one below the largest backup file
/// ([`BACKUP_BYTES`]). The bound already counts every byte of the file, so the spare MiB is
/// for what it cannot foresee: a file touched by hand or reformatted before it is loaded,
/// and the fields a later version may add to each row, whose backup of this household must
/// still load there.
pub const HOUSEHOLD_BYTES: u64 = 7 << 20;
const _: () = assert!(HOUSEHOLD_BYTES < BACKUP_BYTES as u64);

/// The most bytes serde_json writes for a float (`-2.2250738585072014e-308`).
const FLOAT: i64 = 24;

/// The file's own fields, with the longest `version` (a u32: 10 digits) and `exported_at`
/// (an i64: 20 characters).
const TOP: &str = r#"{"format":"libations-household","version":,"exported_at":,"shelf":[],"people":[],"menus":[],"strengths":[],"shopping":[],"rules":[],"photos":[]}"#;
const TOP_NUMBERS: u64 = 10 + 20;

/// One kind of row: its skeleton (see the module doc), and the SQL that counts its rows
/// and sums the bytes of their values.
struct Kind {
    skeleton: &'static str,
    sql: &'static str,
}

const KINDS: [Kind; 13] = [
    Kind {
        skeleton: r#"{"name":,"have":false,"at":,"by":},"#,
        sql: "SELECT count(*), coalesce(sum(octet_length(json_quote(name))
              + octet_length(json_quote(by)) + length(at)), 0) FROM shelf",
    },
    Kind {
        skeleton: r#"{"login":,"name":,"favourites":[],"ratings":[],"notes":[],"made":[]},"#,
        sql: "SELECT count(*), coalesce(sum(octet_length(json_quote(login))
              + octet_length(json_quote(name))), 0) FROM people",
    },
    // A login with favourites but no row in `people` is exported with its login as name.
    Kind {
        skeleton: r#"{"login":,"name":,"favourites":[],"ratings":[],"notes":[],"made":[]},"#,
        sql: "SELECT count(*), coalesce(sum(2 * octet_length(json_quote(login))), 0)
              FROM (SELECT DISTINCT login FROM favourites
                    WHERE login NOT IN (SELECT login FROM people))",
    },
    Kind {
        skeleton: r#"{"id":,"on":false,"at":},"#,
        sql: "SELECT count(*), coalesce(sum(length(recipe) + length(at)), 0) FROM favourites",
    },
    Kind {
        skeleton: r#"{"id":,"stars":null,"at":},"#,
        sql: "SELECT count(*), coalesce(sum(length(recipe) + length(at)), 0) FROM ratings",
    },
    Kind {
        skeleton: r#"{"id":,"text":,"conflicts":,"at":},"#,
        sql: "SELECT count(*), coalesce(sum(length(recipe) + octet_length(json_quote(text))
              + max(2, octet_length(conflicts)) + length(at)), 0) FROM notes",
    },
    Kind {
        skeleton: r#"{"id":,"at":},"#,
        sql: "SELECT count(*), coalesce(sum(length(recipe) + length(at)), 0) FROM made",
    },
    Kind {
        skeleton: r#"{"title":,"recipes":[],"can_make_now":false,"show_ingredients":false,"show_photos":false,"on":false,"at":,"by":},"#,
        sql: "SELECT count(*), coalesce(sum(octet_length(json_quote(title))
              + octet_length(json_quote(by)) + length(at)), 0) FROM menus",
    },
    Kind {
        skeleton: r#"{"id":,"description":},"#,
        sql: "SELECT count(*), coalesce(sum(length(recipe)
              + octet_length(json_quote(description))), 0) FROM menu_recipes",
    },
    Kind {
        skeleton: r#"{"name":,"abv":,"at":,"by":},"#,
        sql: "SELECT count(*), coalesce(sum(octet_length(json_quote(name)) + ?1
              + length(at) + octet_length(json_quote(by))), 0) FROM strengths",
    },
    Kind {
        skeleton: r#"{"name":,"on":false,"got":false,"added_by":,"added_at":,"at":,"by":},"#,
        sql: "SELECT count(*), coalesce(sum(octet_length(json_quote(name))
              + octet_length(json_quote(added_by)) + length(added_at) + length(at)
              + octet_length(json_quote(by))), 0) FROM shopping",
    },
    Kind {
        skeleton: r#"{"have":,"wanted":,"on":false,"at":,"by":},"#,
        sql: "SELECT count(*), coalesce(sum(octet_length(json_quote(have))
              + octet_length(json_quote(wanted)) + length(at)
              + octet_length(json_quote(by))), 0) FROM rules",
    },
    // The photos' rows (version 5), not their images: those travel in the archive. A
    // cover's row also has `,"cover_at":` and its time (version 6).
    Kind {
        skeleton: r#"{"recipe":,"hash":,"width":,"height":,"by":,"at":,"cover":false},"#,
        sql: "SELECT count(*), coalesce(sum(length(recipe) + octet_length(json_quote(hash))
              + length(width) + length(height) + octet_length(json_quote(by))
              + length(at) + coalesce(length(',\"cover_at\":') + length(cover_at), 0)), 0)
              FROM photos",
    },
];

/// An upper bound on the bytes of the household's backup file, as `db` (a connection or
/// a transaction) sees the household (see the module doc).
pub(super) fn bound(db: &Connection) -> Result<u64> {
    let mut total = TOP.len() as u64 + TOP_NUMBERS;
    for kind in &KINDS {
        let mut stmt = db.prepare_cached(kind.sql)?;
        let (rows, bytes): (i64, i64) = if stmt.parameter_count() == 1 {
            stmt.query_row([FLOAT], |r| Ok((r.get(0)?, r.get(1)?)))?
        } else {
            stmt.query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?
        };
        let rows = u64::try_from(rows).unwrap_or_default();
        let bytes = u64::try_from(bytes).unwrap_or_default();
        total = total
            .saturating_add(rows.saturating_mul(kind.skeleton.len() as u64))
            .saturating_add(bytes);
    }
    Ok(total)
}

/// Refuses the write `tx` holds if it grew the bound past [`HOUSEHOLD_BYTES`]. `before`
/// gives the bound as last committed; it is asked only when the bound is over the budget,
/// so that a write within it costs one [`bound`].
pub(super) fn keep(tx: &Connection, before: impl FnOnce() -> Result<u64>) -> Result<()> {
    let after = bound(tx)?;
    if after <= HOUSEHOLD_BYTES || after <= before()? {
        return Ok(());
    }
    Err(HouseholdError::refused(
        "(household)",
        format!(
            "the household keeps at most {} MiB ({HOUSEHOLD_BYTES} bytes: what its backup \
             file can carry); this change would bring it to {after} bytes. Delete notes or \
             settle their conflicts, or take back old \"made one\" entries, first; nothing \
             was saved",
            HOUSEHOLD_BYTES >> 20
        ),
    ))
}
