//! My bar's picker: the bottles a household can tick, grouped by kind (Spirits ▸ Whiskey ▸
//! Bourbon), with the collection's own spellings shown under the bottle they mean.
//!
//! Why by bottle: a shelf is what a household owns, and it owns bottles, not spellings.
//! "Gin", "Dry Gin" and "London Dry Gin" in three recipes are one tick here; the shelf then
//! meets each row through the vocabulary (`vocabulary::meets`), as the server and the
//! browser both answer "can make".
//!
//! The steps:
//! 1. Every row the collection has is read through the vocabulary: the entries it names
//!    (one, or each of "X or Y"), with prep parts (sugar for simple syrup) added.
//! 2. Those entries, and everything more specific (Cointreau under Triple sec: a house
//!    with Cointreau should find it), are offered; the kinds above them are shown as
//!    headings unless a row names them too.
//! 3. Top-level kinds are the groups; a bottle the vocabulary does not know, and a
//!    top-level entry with nothing under it (Beer), go in the last group, "Other", each
//!    still tickable as itself.

use crate::ingredients::{ShelfIngredient, key};
use crate::vocabulary::{At, Reading, Vocabulary};
use std::collections::{BTreeMap, HashSet};

/// One group of the picker: a top-level kind, or "Other".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) name: String,
    /// The rows, a kind before what it holds; `depth` says how far in each is.
    pub(crate) rows: Vec<Row>,
}

/// One line of a group: a bottle to tick, or a kind's heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// What a tick stores on the shelf; `None`: a heading, not tickable.
    pub(crate) key: Option<String>,
    /// The vocabulary entry's id; `None`: a name the vocabulary does not know.
    pub(crate) entry: Option<String>,
    pub(crate) name: String,
    /// 0 for a group's own rows, 1 under them, and so on.
    pub(crate) depth: usize,
    /// The collection's spellings of this bottle that differ from its name.
    pub(crate) spellings: Vec<String>,
    /// The collection's "X or Y" names this bottle meets ("Bourbon or Rye Whiskey").
    pub(crate) either: Vec<String>,
    /// How many recipe rows name it (through any spelling), not counting optional ones.
    pub(crate) recipes: usize,
}

/// What a household's shelf ticks in the picker, as `picker.js` shows it: a box whose key
/// the shelf holds, or whose bottle a name on the shelf reads as (an older spelling, or
/// each bottle of "X or Y"). Rendered into a known person's page, so that My bar shows the
/// shelf before, and without, JavaScript.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ticked {
    keys: HashSet<String>,
    entries: HashSet<String>,
}

impl Ticked {
    /// The boxes `names` (a shelf as stored) tick.
    pub(crate) fn of<'a>(
        vocabulary: &Vocabulary,
        names: impl IntoIterator<Item = &'a String>,
    ) -> Ticked {
        let mut ticked = Ticked::default();
        for name in names {
            let ats = match vocabulary.read(name) {
                Reading::Entry(at) => vec![at],
                Reading::Either(ats) => ats,
                Reading::Unknown(_) => Vec::new(),
            };
            let ids = ats.into_iter().map(|at| vocabulary.entry(at).id.clone());
            ticked.entries.extend(ids);
            ticked.keys.insert(key(name));
        }
        ticked
    }

    /// Whether `row`'s box is ticked.
    pub(crate) fn has(&self, row: &Row) -> bool {
        row.key.as_ref().is_some_and(|k| self.keys.contains(k))
            || row.entry.as_ref().is_some_and(|e| self.entries.contains(e))
    }

    /// How many of `rows` are ticked (a group's "3 ticked").
    pub(crate) fn count(&self, rows: &[Row]) -> usize {
        rows.iter()
            .filter(|r| r.key.is_some() && self.has(r))
            .count()
    }
}

/// What the collection names, by entry: spellings and recipe counts.
#[derive(Default)]
struct Named {
    spellings: BTreeMap<At, Vec<String>>,
    either: BTreeMap<At, Vec<String>>,
    recipes: BTreeMap<At, usize>,
    unknown: Vec<Row>,
}

/// The picker for a collection's ingredients (staples left out: they never block).
pub(crate) fn groups(vocabulary: &Vocabulary, ingredients: &[&ShelfIngredient]) -> Vec<Group> {
    let named = named(vocabulary, ingredients);
    let offered = offered(vocabulary, &named);
    let mut groups = Vec::new();
    let mut other = Vec::new();
    for root in children(vocabulary, None, &offered) {
        let mut rows = Vec::new();
        for child in children(vocabulary, Some(root), &offered) {
            push_rows(vocabulary, child, 0, &offered, &named, &mut rows);
        }
        if rows.is_empty() {
            push_rows(vocabulary, root, 0, &offered, &named, &mut other);
        } else {
            if named.recipes.contains_key(&root) {
                rows.insert(0, row(vocabulary, root, 0, &named, true));
            }
            let name = vocabulary.entry(root).name.clone();
            groups.push(Group { name, rows });
        }
    }
    other.extend(named.unknown);
    if !other.is_empty() {
        let name = "Other".to_owned();
        groups.push(Group { name, rows: other });
    }
    groups
}

/// Step 1: what each non-staple row reads as.
fn named(vocabulary: &Vocabulary, ingredients: &[&ShelfIngredient]) -> Named {
    let mut named = Named::default();
    for ingredient in ingredients.iter().filter(|i| !i.staple) {
        let (ats, either) = match vocabulary.read_folded(&ingredient.key) {
            Reading::Entry(at) => (vec![at], false),
            Reading::Either(ats) => (ats, true),
            Reading::Unknown(_) => {
                named.unknown.push(unknown(ingredient));
                continue;
            }
        };
        for at in ats {
            *named.recipes.entry(at).or_default() += ingredient.recipes;
            let list = match either {
                true => &mut named.either,
                false if key(&vocabulary.entry(at).name) == ingredient.key => continue,
                false => &mut named.spellings,
            };
            list.entry(at).or_default().push(ingredient.name.clone());
        }
    }
    named
}

fn unknown(ingredient: &ShelfIngredient) -> Row {
    Row {
        key: Some(ingredient.key.clone()),
        entry: None,
        name: ingredient.name.clone(),
        depth: 0,
        spellings: Vec::new(),
        either: Vec::new(),
        recipes: ingredient.recipes,
    }
}

/// Step 2: the entries offered (named, their parts, what is more specific) and the kinds
/// above them.
fn offered(vocabulary: &Vocabulary, named: &Named) -> HashSet<At> {
    let mut wanted: Vec<At> = named.recipes.keys().copied().collect();
    let mut seen: HashSet<At> = HashSet::new();
    while let Some(at) = wanted.pop() {
        if !seen.insert(at) {
            continue;
        }
        let entry = vocabulary.entry(at);
        wanted.extend(entry.made_of.iter().flat_map(|p| p.parts.iter().copied()));
    }
    let specific: Vec<At> = (0..vocabulary.entries().len())
        .filter(|&at| {
            seen.iter()
                .any(|&kind| kind != at && vocabulary.is_a(at, kind))
        })
        .collect();
    seen.extend(specific);
    let kinds: Vec<At> = seen.iter().flat_map(|&at| vocabulary.kinds(at)).collect();
    seen.extend(kinds);
    seen.retain(|&at| !vocabulary.entry(at).staple);
    seen
}

/// The offered entries directly under `parent` (`None`: the top level), in the
/// vocabulary's order.
fn children(vocabulary: &Vocabulary, parent: Option<At>, offered: &HashSet<At>) -> Vec<At> {
    (0..vocabulary.entries().len())
        .filter(|at| offered.contains(at) && vocabulary.entry(*at).parent == parent)
        .collect()
}

fn push_rows(
    vocabulary: &Vocabulary,
    at: At,
    depth: usize,
    offered: &HashSet<At>,
    named: &Named,
    rows: &mut Vec<Row>,
) {
    let under = children(vocabulary, Some(at), offered);
    // A kind nobody names is a heading; anything else (a bottle, or a kind a row names) a tick.
    let tickable = under.is_empty() || named.recipes.contains_key(&at) || is_part(vocabulary, at);
    rows.push(row(vocabulary, at, depth, named, tickable));
    for child in under {
        push_rows(vocabulary, child, depth + 1, offered, named, rows);
    }
}

/// Whether some prep is made of `at` (sugar for simple syrup): then it is worth a tick.
fn is_part(vocabulary: &Vocabulary, at: At) -> bool {
    vocabulary
        .entries()
        .iter()
        .any(|e| e.made_of.as_ref().is_some_and(|p| p.parts.contains(&at)))
}

fn row(vocabulary: &Vocabulary, at: At, depth: usize, named: &Named, tickable: bool) -> Row {
    let entry = vocabulary.entry(at);
    Row {
        key: tickable.then(|| key(&entry.name)),
        entry: Some(entry.id.clone()),
        name: entry.name.clone(),
        depth,
        spellings: named.spellings.get(&at).cloned().unwrap_or_default(),
        either: named.either.get(&at).cloned().unwrap_or_default(),
        recipes: named.recipes.get(&at).copied().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ingredient(name: &str, recipes: usize) -> ShelfIngredient {
        ShelfIngredient {
            key: key(name),
            name: name.to_owned(),
            recipes,
            staple: false,
        }
    }

    fn picker(names: &[(&str, usize)]) -> Vec<Group> {
        let all: Vec<ShelfIngredient> = names.iter().map(|(n, r)| ingredient(n, *r)).collect();
        let refs: Vec<&ShelfIngredient> = all.iter().collect();
        groups(Vocabulary::built_in(), &refs)
    }

    fn find<'g>(groups: &'g [Group], name: &str) -> Option<&'g Row> {
        groups.iter().flat_map(|g| &g.rows).find(|r| r.name == name)
    }

    #[test]
    fn spellings_sit_under_the_bottle_they_mean() {
        let groups = picker(&[
            ("Dry Gin", 2),
            ("Gin", 3),
            ("London Gin", 1),
            ("Bourbon or Rye Whiskey", 1),
        ]);
        let gin = find(&groups, "Gin").expect("a Gin row");
        assert_eq!(gin.key.as_deref(), Some("gin"));
        assert_eq!(gin.recipes, 5, "both spellings count");
        assert_eq!(gin.spellings, vec!["Dry Gin".to_owned()]);
        let london = find(&groups, "London dry gin").expect("London dry gin");
        assert_eq!((london.depth, london.recipes), (gin.depth + 1, 1));
        let bourbon = find(&groups, "Bourbon").expect("a Bourbon row");
        assert_eq!(bourbon.either, vec!["Bourbon or Rye Whiskey".to_owned()]);
        assert!(
            bourbon.spellings.is_empty(),
            "an \"X or Y\" is not a spelling of X"
        );
        assert!(find(&groups, "Rye whiskey").is_some() || find(&groups, "Rye").is_some());
        assert_eq!(groups[0].name, "Spirits");
        assert!(groups.iter().all(|g| g.name != "Other"), "{groups:?}");
    }

    #[test]
    fn a_kind_nobody_names_is_a_heading_and_brands_are_offered() {
        let groups = picker(&[("Triple Sec", 4), ("Bourbon", 1)]);
        let whiskey = find(&groups, "Whiskey").expect("Whiskey, above Bourbon");
        assert_eq!(whiskey.key, None, "nobody names whiskey: a heading");
        let bourbon = find(&groups, "Bourbon").expect("Bourbon");
        assert_eq!(bourbon.depth, whiskey.depth + 1);
        let cointreau = find(&groups, "Cointreau").expect("Cointreau, a triple sec");
        assert!(cointreau.key.is_some());
        assert_eq!(cointreau.recipes, 0);
    }

    #[test]
    fn prep_parts_are_offered_and_unknown_names_go_last() {
        let groups = picker(&[("Simple Syrup", 3), ("Grandma's tincture", 1)]);
        let sugar = find(&groups, "Sugar").expect("sugar, what simple syrup is made of");
        assert!(sugar.key.is_some());
        let last = groups.last().expect("groups");
        assert_eq!(last.name, "Other");
        assert_eq!(last.rows[0].name, "Grandma's tincture");
        assert_eq!(last.rows[0].entry, None);
        assert!(
            find(&groups, "Water").is_none(),
            "staples never block: not offered"
        );
    }
}
