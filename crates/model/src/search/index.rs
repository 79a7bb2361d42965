//! The index: every recipe's fields folded once, in one text per recipe, and a search
//! run over them (terms where words start, or as bottles; names first; the personal terms
//! from an [`Asker`](super::Asker)); and, when a search finds nothing, the guesses.

use super::bottles::{Has, WholeWord, named, singular, spellings};
use super::guess::{Dictionary, MAX_GUESSES};
use super::{Asker, Field, SearchQuery, Sort, Term};
use crate::makes::Needs;
use crate::recipes::{Recipe, Recipes};
use crate::strength::Strengths;
use crate::text::{WordStart, fold};
use crate::vocabulary::Vocabulary;

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

    fn matches(&self, field: Option<Field>, needle: &Needle) -> bool {
        match field {
            Some(f) => needle.in_text(self.field(f)),
            None => needle.in_text(&self.text),
        }
    }
}

/// What a term looks for: a word's start (as typed, or in the singular: "mojitos" finds
/// Mojito), or a bottle's spellings as whole words.
enum Needle {
    Word(Box<(WordStart, Option<WordStart>)>),
    Bottle(Vec<WholeWord>),
}

impl Needle {
    fn of(text: &str, vocabulary: &Vocabulary) -> Needle {
        match named(vocabulary, text) {
            Some(at) => Needle::Bottle(spellings(vocabulary, at)),
            None => Needle::word(text),
        }
    }

    fn word(text: &str) -> Needle {
        let one = singular(text).map(|one| WordStart::new(&one));
        Needle::Word(Box::new((WordStart::new(text), one)))
    }

    fn in_text(&self, hay: &str) -> bool {
        match self {
            Needle::Word(pair) => {
                let (word, one) = &**pair;
                word.in_text(hay) || one.as_ref().is_some_and(|o| o.in_text(hay))
            }
            Needle::Bottle(spellings) => spellings.iter().any(|s| s.in_text(hay)),
        }
    }
}

/// One term as the scan meets it: its field, and the needles that may stand for it, each
/// with how far it is from what was typed (only a guess has more than one, or a distance).
struct Slot {
    field: Option<Field>,
    needles: Vec<(Needle, usize)>,
    /// A single word as typed, in a field a guess can be drawn from.
    guessable: Option<String>,
}

impl Slot {
    fn new(term: &Term, vocabulary: &Vocabulary) -> Slot {
        let needle = Needle::of(&term.text, vocabulary);
        let word = matches!(needle, Needle::Word(..)) && !term.text.contains(' ');
        let field = matches!(term.field, None | Some(Field::Name | Field::Ingredient));
        Slot {
            field: term.field,
            needles: vec![(needle, 0)],
            guessable: (word && field).then(|| term.text.clone()),
        }
    }

    /// The distance of the closest needle found in `doc`, if any is.
    fn closest(&self, doc: &Doc) -> Option<usize> {
        self.needles
            .iter()
            .filter(|(needle, _)| doc.matches(self.field, needle))
            .map(|&(_, d)| d)
            .min()
    }

    fn in_name(&self, doc: &Doc) -> bool {
        matches!(self.field, None | Some(Field::Name))
            && self
                .needles
                .iter()
                .any(|(n, _)| n.in_text(doc.field(Field::Name)))
    }
}

/// A query made ready to scan: its terms (a `has:` word the vocabulary does not know is
/// one, an ingredient word) and, for each bottle of `has:`, which needs it meets.
struct Prepared {
    slots: Vec<Slot>,
    has: Vec<Vec<bool>>,
}

/// A recipe found: its position, how far its words are from those typed, and how many
/// terms its name matches.
struct Hit {
    at: usize,
    distance: usize,
    in_name: usize,
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
    /// The words a typo is compared with ([`Index::guesses`]).
    dictionary: Dictionary,
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
        let docs: Vec<Doc> = recipes.all().iter().map(Doc::new).collect();
        let names = docs.iter().map(|doc| doc.field(Field::Name));
        let dictionary = Dictionary::new(names, Vocabulary::built_in());
        Index {
            dictionary,
            docs,
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
        self.personal(query, mine, self.search(query))
    }

    /// The `hits` that pass every personal term for `mine` (all of them without `mine`).
    fn personal(&self, query: &SearchQuery, mine: Option<&Asker>, hits: Vec<usize>) -> Vec<usize> {
        let Some(mine) = mine.filter(|_| !query.personal.is_empty()) else {
            return hits;
        };
        let stocked = match mine.shelf {
            Some(shelf) if query.personal.iter().any(|p| p.needs_shelf()) => {
                Some(self.needs.stocked(shelf, mine.rules))
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
        let prepared = self.prepare(query);
        let mut hits = self.scan(query, &prepared);
        // Stable: equal scores keep name order.
        match query.sort {
            None => hits.sort_by_key(|hit| std::cmp::Reverse(hit.in_name)),
            Some(order) => {
                let abv = |i: usize| self.figures.get(i).copied().flatten().map(|f| f.0);
                hits.sort_by(|a, b| match (abv(a.at), abv(b.at)) {
                    (Some(x), Some(y)) if order == Sort::Lightest => x.total_cmp(&y),
                    (Some(x), Some(y)) => y.total_cmp(&x),
                    (x, y) => y.is_some().cmp(&x.is_some()),
                });
            }
        }
        hits.into_iter().map(|hit| hit.at).collect()
    }

    /// What a query that finds nothing may have meant: each word that finds nothing
    /// replaced by the words of the names and the vocabulary within a small edit distance
    /// ([`super::allowed`]), and the recipes found so, closest first (then those whose name
    /// matches more terms, then of those whose name matches the shorter name, then in name
    /// order), at most [`MAX_GUESSES`]. Empty when the
    /// query finds something, or when a word that finds nothing has no near word.
    pub fn guesses(&self, query: &SearchQuery) -> Vec<usize> {
        let mut prepared = self.prepare(query);
        let mut guessed = false;
        for slot in &mut prepared.slots {
            if self.docs.iter().any(|doc| slot.closest(doc).is_some()) {
                continue;
            }
            let Some(typed) = &slot.guessable else {
                return Vec::new();
            };
            let near = self.dictionary.near(typed);
            if near.is_empty() {
                return Vec::new();
            }
            let vocabulary = Vocabulary::built_in();
            let needle = |(word, d): &(String, usize)| (Needle::of(word, vocabulary), *d);
            slot.needles = near.iter().map(needle).collect();
            guessed = true;
        }
        if !guessed {
            return Vec::new();
        }
        let mut hits = self.scan(query, &prepared);
        // Of names that match as well, the shorter is the closer: "Margarita" before
        // "Employees Only's Mezcal Margarita".
        let short = |hit: &Hit| match hit.in_name {
            0 => 0,
            _ => self.docs[hit.at].field(Field::Name).chars().count(),
        };
        hits.sort_by_key(|hit| (hit.distance, std::cmp::Reverse(hit.in_name), short(hit)));
        hits.into_iter()
            .take(MAX_GUESSES)
            .map(|hit| hit.at)
            .collect()
    }

    /// [`Index::guesses`], keeping only the recipes that pass every personal term for
    /// `mine`, as [`Index::search_for`] does.
    pub fn guesses_for(&self, query: &SearchQuery, mine: Option<&Asker>) -> Vec<usize> {
        self.personal(query, mine, self.guesses(query))
    }

    fn prepare(&self, query: &SearchQuery) -> Prepared {
        let vocabulary = Vocabulary::built_in();
        let mut slots: Vec<Slot> = query
            .terms
            .iter()
            .map(|t| Slot::new(t, vocabulary))
            .collect();
        let mut has = Vec::new();
        for word in &query.has {
            match named(vocabulary, word) {
                Some(at) => {
                    let bottle = Has::new(vocabulary, at);
                    has.push(self.needs.which(|reading| bottle.meets(reading)));
                }
                None => {
                    let text = word.clone();
                    let term = Term {
                        field: Some(Field::Ingredient),
                        text,
                    };
                    slots.push(Slot::new(&term, vocabulary));
                }
            }
        }
        Prepared { slots, has }
    }

    /// Every recipe passing the figures, `has:` and every slot, in name order.
    fn scan(&self, query: &SearchQuery, prepared: &Prepared) -> Vec<Hit> {
        let mut hits = Vec::new();
        'docs: for (at, doc) in self.docs.iter().enumerate() {
            let figures = self.figures.get(at).copied().flatten();
            if !query.figures.iter().all(|f| f.passes(figures)) {
                continue;
            }
            if !prepared.has.iter().all(|which| self.needs.any(at, which)) {
                continue;
            }
            let mut distance = 0;
            for slot in &prepared.slots {
                match slot.closest(doc) {
                    Some(d) => distance += d,
                    None => continue 'docs,
                }
            }
            let in_name = prepared.slots.iter().filter(|s| s.in_name(doc)).count();
            hits.push(Hit {
                at,
                distance,
                in_name,
            });
        }
        hits
    }
}
