//! The built-in table of ingredient strengths (`data/strengths.json`, compiled in), and
//! how a shelf name finds its entry.

use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// One entry of `data/strengths.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    /// The shelf names ([`crate::ingredients::key`]) it covers.
    pub names: Vec<String>,
    /// The figure used, % alcohol by volume.
    pub abv: f64,
    /// The range bottlings span.
    pub range: [f64; 2],
    /// Where the figure comes from.
    pub source: String,
}

#[derive(Debug, Deserialize)]
struct File {
    entries: Vec<Entry>,
}

/// The built-in table, read once.
#[derive(Debug)]
pub struct Table {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

/// The text of the built-in table.
pub const TABLE_JSON: &str = include_str!("../../../../data/strengths.json");

impl Table {
    /// The table compiled into the binary. It is checked by the unit tests; were it ever
    /// unreadable, the table is empty and every ingredient is of unknown strength.
    pub fn built_in() -> &'static Table {
        static TABLE: OnceLock<Table> = OnceLock::new();
        TABLE.get_or_init(|| Table::parse(TABLE_JSON).unwrap_or_else(|_| Table::empty()))
    }

    fn empty() -> Table {
        Table {
            entries: Vec::new(),
            by_name: HashMap::new(),
        }
    }

    pub fn parse(text: &str) -> Result<Table, serde_json::Error> {
        let file: File = serde_json::from_str(text)?;
        let mut by_name = HashMap::new();
        for (at, entry) in file.entries.iter().enumerate() {
            for name in &entry.names {
                by_name.entry(name.clone()).or_insert(at);
            }
        }
        Ok(Table {
            entries: file.entries,
            by_name,
        })
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry for a shelf name and the name it was found under: the whole name; its
    /// first alternative (`rye whiskey or bourbon`); its longest ending of whole words
    /// (`islay scotch whiskey` → `scotch whiskey`); its longest beginning
    /// (`tequila 100% agave` → `tequila`).
    pub fn find<'t>(&'t self, key: &str) -> Option<(&'t str, &'t Entry)> {
        let key = key.split(" or ").next().unwrap_or(key).trim();
        let words: Vec<&str> = key.split(' ').filter(|w| !w.is_empty()).collect();
        let endings = (0..words.len()).map(|from| words[from..].join(" "));
        let beginnings = (1..words.len()).rev().map(|to| words[..to].join(" "));
        endings.chain(beginnings).find_map(|candidate| {
            let (name, &at) = self.by_name.get_key_value(candidate.as_str())?;
            Some((name.as_str(), &self.entries[at]))
        })
    }
}
