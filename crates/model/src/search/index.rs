//! The index: every recipe's fields folded once, in one text per recipe, and a search
//! run over them (terms where words start, names first, the personal terms from an
//! [`Asker`](super::Asker)).

use super::{Asker, Field, SearchQuery, Sort, Term};
use crate::makes::Needs;
use crate::recipes::{Recipe, Recipes};
use crate::strength::Strengths;
use crate::text::{WordStart, fold};

/// The folded text of one recipe's fields, in [`Field::ALL`] order, one after the other
/// with a newline between two fields and between the values of a list field. Folded text
/// has no newlines (white space becomes one space) and neither has a query term, so a term
/// never matches across two values or two fields, and a newline, like the start of the
/// text, starts a word. Searching every field is then one scan of `text`.
#[derive(Debug, Clone)]
struct Doc {
    text: String,
    /// Where each field ends in `text` (it starts one byte after the previous one ends),
    /// at the field's [`Field::position`].
    ends: [usize; Field::ALL.len()],
}

impl Doc {
    fn new(r: &Recipe) -> Doc {
        let mut doc = Doc {
            text: String::new(),
            ends: [0; Field::ALL.len()],
        };
        for field in Field::ALL {
            if field.position() > 0 {
                doc.text.push('\n');
            }
            for (n, value) in field.values(r).enumerate() {
                if n > 0 {
                    doc.text.push('\n');
                }
                doc.text.push_str(&fold(value));
            }
            doc.ends[field.position()] = doc.text.len();
        }
        // Growth by doubling leaves up to half of the text unused for as long as the
        // collection is loaded: 330 KiB of the index's 2 MiB at 5,000 recipes. (The folded
        // values pushed here are dropped at once; nothing else in a Doc has spare room.)
        doc.text.shrink_to_fit();
        doc
    }

    fn field(&self, field: Field) -> &str {
        let i = field.position();
        let start = if i == 0 { 0 } else { self.ends[i - 1] + 1 };
        &self.text[start..self.ends[i]]
    }

    fn matches(&self, term: &Term, needle: &WordStart) -> bool {
        match term.field {
            Some(f) => needle.in_text(self.field(f)),
            None => needle.in_text(&self.text),
        }
    }
}

/// A search index over a collection, built once when recipes load.
#[derive(Debug, Clone)]
pub struct Index {
    docs: Vec<Doc>,
    /// Each recipe's id, in `Recipes::all()` order: what personal terms look up.
    ids: Vec<u64>,
    /// What each recipe needs from a shelf, for `can:make` and `missing:one` (and for
    /// `makes::analyse`, through [`Index::needs`]).
    needs: Needs,
    /// Each recipe's ABV and standard drinks, for `abv:` and `drinks:`; `None`: no figures.
    figures: Vec<Option<(f64, f64)>>,
}

impl Index {
    /// The index, with each recipe's strength worked out against the built-in table.
    pub fn new(recipes: &Recipes) -> Index {
        let strengths = Strengths::new(recipes, &Default::default());
        Index::with_strengths(recipes, &strengths)
    }

    /// The index, with the strengths already worked out for the collection.
    pub fn with_strengths(recipes: &Recipes, strengths: &Strengths) -> Index {
        let figures = (0..recipes.len())
            .map(|i| {
                let s = strengths.at(i)?;
                Some((s.abv?, s.standard_drinks?))
            })
            .collect();
        Index {
            docs: recipes.all().iter().map(Doc::new).collect(),
            ids: recipes.all().iter().map(|r| r.id).collect(),
            needs: Needs::new(recipes),
            figures,
        }
    }

    /// The collection's needs, read once with the index.
    pub fn needs(&self) -> &Needs {
        &self.needs
    }

    /// [`Index::search`], keeping only the recipes that pass every personal term for
    /// `mine`. Without `mine` personal terms are left out, as [`Index::search`] leaves them.
    pub fn search_for(&self, query: &SearchQuery, mine: Option<&Asker>) -> Vec<usize> {
        let hits = self.search(query);
        let Some(mine) = mine.filter(|_| !query.personal.is_empty()) else {
            return hits;
        };
        let stocked = match mine.shelf {
            Some(shelf) if query.personal.iter().any(|p| p.needs_shelf()) => {
                Some(self.needs.stocked(shelf))
            }
            _ => None,
        };
        hits.into_iter()
            .filter(|&i| {
                let gaps = stocked.as_ref().map(|s| s.gaps(i));
                let passes = |&id: &u64| query.personal.iter().all(|p| p.passes(id, gaps, mine));
                self.ids.get(i).is_some_and(passes)
            })
            .collect()
    }

    /// Positions (in `Recipes::all()` order) of the recipes matching every term, those
    /// whose name matches more terms first, otherwise in name order. Personal terms are
    /// left out ([`Index::search_for`] answers them).
    pub fn search(&self, query: &SearchQuery) -> Vec<usize> {
        let terms: Vec<(&Term, WordStart)> = query
            .terms
            .iter()
            .map(|t| (t, WordStart::new(&t.text)))
            .collect();
        let mut hits: Vec<(usize, usize)> = self
            .docs
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let figures = self.figures.get(*i).copied().flatten();
                query.figures.iter().all(|f| f.passes(figures))
            })
            .filter(|(_, doc)| terms.iter().all(|(t, needle)| doc.matches(t, needle)))
            .map(|(i, doc)| {
                let in_name = terms
                    .iter()
                    .filter(|(t, _)| matches!(t.field, None | Some(Field::Name)))
                    .filter(|(_, needle)| needle.in_text(doc.field(Field::Name)))
                    .count();
                (i, in_name)
            })
            .collect();
        // Stable: equal scores keep name order.
        match query.sort {
            None => hits.sort_by_key(|hit| std::cmp::Reverse(hit.1)),
            Some(order) => {
                let abv = |i: usize| self.figures.get(i).copied().flatten().map(|f| f.0);
                hits.sort_by(|a, b| match (abv(a.0), abv(b.0)) {
                    (Some(x), Some(y)) if order == Sort::Lightest => x.total_cmp(&y),
                    (Some(x), Some(y)) => y.total_cmp(&x),
                    (x, y) => y.is_some().cmp(&x.is_some()),
                });
            }
        }
        hits.into_iter().map(|(i, _)| i).collect()
    }
}
