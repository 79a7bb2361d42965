use super::terms::PERSONAL_WORDS;
use super::*;
use crate::ingredients::key;
use crate::recipes::Origin;
use crate::recipes::Recipes;
use crate::strength::Strengths;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

/// The table shared with the JavaScript side (`tests/search-cases.json`).
#[derive(Deserialize)]
struct Cases {
    recipes: serde_json::Value,
    cases: Vec<Case>,
    fold: Vec<(String, String)>,
    limits: Limits,
    personal: PersonalCases,
}
#[derive(Deserialize)]
struct PersonalCases {
    mines: HashMap<String, MineCase>,
    cases: Vec<PersonalCase>,
}
/// A [`Asker`] as the table writes it (ids as JSON object keys, a shelf of names).
#[derive(Deserialize)]
struct MineCase {
    favourites: HashSet<u64>,
    ratings: HashMap<u64, u8>,
    last_made: HashMap<u64, u64>,
    now: u64,
    shelf: Option<Vec<String>>,
}
#[derive(Deserialize)]
struct PersonalCase {
    query: String,
    mine: Option<String>,
    expect: Vec<String>,
}
#[derive(Deserialize)]
struct Limits {
    max_terms: usize,
    max_term_chars: usize,
    cases: Vec<LimitCase>,
}
#[derive(Deserialize)]
struct LimitCase {
    #[serde(default)]
    query: String,
    repeat: Option<(String, usize)>,
    terms: Option<usize>,
    error: Option<String>,
}
#[derive(Deserialize)]
struct Case {
    query: String,
    expect: Vec<String>,
}

fn cases() -> Cases {
    let text = include_str!("../../../../tests/search-cases.json");
    serde_json::from_str(text).expect("tests/search-cases.json parses")
}

#[test]
fn field_positions_follow_all() {
    for (i, field) in Field::ALL.into_iter().enumerate() {
        assert_eq!(field.position(), i, "{field:?}");
    }
}

#[test]
fn limits_table() {
    let limits = cases().limits;
    assert_eq!(
        (limits.max_terms, limits.max_term_chars),
        (MAX_TERMS, MAX_TERM_CHARS)
    );
    for case in limits.cases {
        let query = match &case.repeat {
            Some((text, n)) => text.repeat(*n),
            None => case.query.clone(),
        };
        let shown = &query[..query.len().min(40)];
        match (SearchQuery::parse_bounded(&query), case.terms, case.error) {
            (Ok(q), Some(n), None) => assert_eq!(q.terms.len(), n, "{shown:?}"),
            (Err(e), None, Some(want)) => assert_eq!(e.to_string(), want, "{shown:?}"),
            (got, terms, error) => panic!("{shown:?}: got {got:?}, want {terms:?} {error:?}"),
        }
    }
}

#[test]
fn fold_table() {
    for (input, want) in cases().fold {
        assert_eq!(fold(&input), want, "fold({input:?})");
    }
}

#[test]
fn search_table() {
    let table = cases();
    let text = table.recipes.to_string();
    let recipes = Recipes::parse(&text, Origin::Embedded, SystemTime::UNIX_EPOCH)
        .expect("fixture recipes are valid");
    let index = Index::new(&recipes);
    assert!(table.cases.len() >= 20);
    for case in table.cases {
        let got: Vec<&str> = index
            .search(&SearchQuery::parse(&case.query))
            .into_iter()
            .map(|i| recipes.all()[i].name.as_str())
            .collect();
        assert_eq!(got, case.expect, "query {:?}", case.query);
    }
}

#[test]
fn personal_table() {
    let table = cases();
    let text = table.recipes.to_string();
    let recipes = Recipes::parse(&text, Origin::Embedded, SystemTime::UNIX_EPOCH)
        .expect("fixture recipes are valid");
    let index = Index::new(&recipes);
    let shelves: HashMap<&str, Option<HashSet<String>>> = table
        .personal
        .mines
        .iter()
        .map(|(name, m)| {
            let shelf = m.shelf.as_ref().map(|s| s.iter().map(|n| key(n)).collect());
            (name.as_str(), shelf)
        })
        .collect();
    assert!(table.personal.cases.len() >= 30);
    for case in &table.personal.cases {
        let mine = case.mine.as_deref().map(|name| {
            let m = &table.personal.mines[name];
            Asker {
                favourites: &m.favourites,
                ratings: &m.ratings,
                last_made: &m.last_made,
                now_ms: m.now,
                shelf: shelves[name].as_ref(),
                rules: &[],
            }
        });
        let got: Vec<&str> = index
            .search_for(&SearchQuery::parse(&case.query), mine.as_ref())
            .into_iter()
            .map(|i| recipes.all()[i].name.as_str())
            .collect();
        assert_eq!(
            got, case.expect,
            "query {:?}, mine {:?}",
            case.query, case.mine
        );
    }
}

#[test]
fn personal_terms_parse_and_spell_themselves() {
    let spelt = |q: &str| -> Vec<String> {
        SearchQuery::parse(q)
            .personal
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(
        spelt("RATING:>=4 rating:>4 rating:4 rating:<=4 rating:<4 made:never made:recent"),
        [
            "rating:>=4",
            "rating:>4",
            "rating:4",
            "rating:<=4",
            "rating:<4",
            "made:never",
            "made:recent"
        ]
    );
    assert_eq!(
        spelt("is:starred missing:1 can:make is:fav"),
        ["is:fav", "missing:one", "can:make"]
    );
    for plain in [
        "rating:0",
        "rating:6",
        "rating:abc",
        "rating:=4",
        "rating:>=",
        "rating:",
        "rating:45",
        "rating:+4",
        "made:often",
    ] {
        let q = SearchQuery::parse(plain);
        assert!(q.personal.is_empty(), "{plain:?} is a plain term");
        assert_eq!(q.terms.len(), 1, "{plain:?}");
    }
    // Each canonical spelling reads back as itself.
    for (word, term) in PERSONAL_WORDS {
        assert_eq!(Personal::parse(&term.to_string()), Some(term), "{word}");
    }
}

/// The definition the index implements, field by field without any precomputation: a
/// word where a word starts (as typed or in the singular), a bottle as any spelling of it
/// or of anything more specific, whole (every spelling, none left out).
fn reference_search(recipes: &Recipes, query: &SearchQuery) -> Vec<usize> {
    let is_word = |c: char| c.is_alphabetic() || c.is_numeric();
    let found = |hay: &str, needle: &str, whole: bool| {
        let mut from = 0;
        while let Some(found) = hay[from..].find(needle) {
            let at = from + found;
            let rest = &hay[at + needle.len()..];
            let ends = |r: &str| r.chars().next().is_none_or(|c| !is_word(c));
            let plural = rest.strip_prefix('s').is_some_and(ends)
                || rest.strip_prefix("es").is_some_and(ends);
            let starts = hay[..at].chars().next_back().is_none_or(|c| !is_word(c));
            if starts && (!whole || ends(rest) || plural) {
                return true;
            }
            from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
        }
        false
    };
    let vocabulary = crate::vocabulary::Vocabulary::built_in();
    let naive = |hay: &str, text: &str| match super::bottles::named(vocabulary, text) {
        Some(at) => vocabulary
            .spellings()
            .filter(|&(_, of)| vocabulary.is_a(of, at))
            .any(|(spelling, _)| found(hay, spelling, true)),
        None => {
            found(hay, text, false) || singular(text).is_some_and(|one| found(hay, &one, false))
        }
    };
    let join = |values: &[CompactString]| {
        values
            .iter()
            .map(|v| fold(v))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut hits: Vec<(usize, usize)> = Vec::new();
    for (i, r) in recipes.all().iter().enumerate() {
        let ingredients: Vec<CompactString> =
            r.ingredients.iter().map(|i| i.name.clone()).collect();
        let fields = [
            fold(&r.name),
            join(&r.base),
            join(&r.glass),
            join(&r.method),
            join(&r.ice),
            join(&ingredients),
            join(&r.garnish),
            fold(&r.notes),
        ];
        let all = query.terms.iter().all(|t| match t.field {
            Some(f) => naive(&fields[f as usize], &t.text),
            None => fields.iter().any(|f| naive(f, &t.text)),
        });
        if all {
            let in_name = query
                .terms
                .iter()
                .filter(|t| {
                    matches!(t.field, None | Some(Field::Name)) && naive(&fields[0], &t.text)
                })
                .count();
            hits.push((i, in_name));
        }
    }
    hits.sort_by_key(|hit| std::cmp::Reverse(hit.1));
    hits.into_iter().map(|(i, _)| i).collect()
}

#[test]
fn index_agrees_with_the_field_by_field_definition() {
    let recipes = Recipes::sample().expect("the sample is valid");
    let index = Index::new(&recipes);
    let mut queries: Vec<String> = [
        "",
        "a",
        "e",
        "gin",
        "lime juice",
        "ice",
        "juice",
        "sugar syrup",
        "base:gin",
        "glass:coupe",
        "method:shake",
        "ice:cubed",
        "ingredient:lime",
        "garnish:lemon",
        "notes:a",
        "name:the",
        "\"old fashioned\"",
        "\"in\"",
        "ro",
        "n",
        "1",
        "ml",
        "gin\nlime",
        "zzz",
        "whisky",
        "limes",
        "bitters",
        "\"sweet vermouth\"",
        "ingredient:rum",
        "syrups",
        "orange",
    ]
    .map(String::from)
    .to_vec();
    // Every word of every recipe name, and its first two letters, as a query.
    for r in recipes.all() {
        for word in fold(&r.name).split(' ') {
            queries.push(word.chars().take(2).collect());
            queries.push(word.to_owned());
        }
    }
    for q in queries {
        let query = SearchQuery::parse(&q);
        assert_eq!(
            index.search(&query),
            reference_search(&recipes, &query),
            "query {q:?}"
        );
    }
}

#[test]
fn parses_fields_and_phrases() {
    let q =
        SearchQuery::parse(r#"base:Gin  "Old Tom" glass:"Nick & Nora" foo:bar ingredient: “lime”"#);
    let t = |field, text: &str| Term {
        field,
        text: text.into(),
    };
    assert_eq!(
        q.terms,
        [
            t(Some(Field::Base), "gin"),
            t(None, "old tom"),
            t(Some(Field::Glass), "nick & nora"),
            t(None, "foo:bar"),
            t(None, "lime"),
        ]
    );
    assert!(q.personal.is_empty());
    let q = SearchQuery::parse("gin Can:Make is:favourite IS:FAV can:fly");
    assert_eq!(q.terms, [t(None, "gin"), t(None, "can:fly")]);
    assert_eq!(q.personal, [Personal::CanMake, Personal::Fav]);
    assert!(SearchQuery::parse("  ").is_empty());
    assert!(SearchQuery::parse("\"\"").is_empty());
}

/// `figures` in `tests/search-cases.json`: `abv:` and `drinks:` over the recipes of
/// `tests/strength-cases.json` (shared with `tests/js/search.test.mjs`).
#[test]
fn the_shared_figures_table() {
    #[derive(Deserialize)]
    struct File {
        figures: Figures,
    }
    #[derive(Deserialize)]
    struct Figures {
        cases: Vec<FigureCase>,
    }
    #[derive(Deserialize)]
    struct FigureCase {
        query: String,
        expect: Vec<u64>,
    }
    let file: File = serde_json::from_str(include_str!("../../../../tests/search-cases.json"))
        .expect("tests/search-cases.json parses");
    let cases = crate::strength::tests::cases();
    let mut household = crate::strength::Household::new();
    let mut list = Vec::new();
    for (_, recipe, own, _) in cases {
        household.extend(own);
        list.push(serde_json::to_value(&recipe).expect("serialises"));
    }
    let recipes = Recipes::parse(
        &serde_json::Value::Array(list).to_string(),
        Origin::Embedded,
        SystemTime::UNIX_EPOCH,
    )
    .expect("valid");
    let strengths = Strengths::new(&recipes, &household);
    let index = Index::with_strengths(&recipes, &strengths);
    assert!(file.figures.cases.len() >= 8);
    for c in file.figures.cases {
        let got: Vec<u64> = index
            .search(&SearchQuery::parse(&c.query))
            .into_iter()
            .map(|i| recipes.all()[i].id)
            .collect();
        assert_eq!(got, c.expect, "query {:?}", c.query);
    }
    let plain = SearchQuery::parse("abv:abc abv:< drinks:-1 abv:1e3 abv:10.");
    assert!(plain.figures.is_empty(), "{plain:?}");
    assert_eq!(plain.terms.len(), 5);
}

/// The `bottles` and `guesses` sections of the shared table.
#[derive(Deserialize)]
struct BottleCases {
    bottles: Bottles,
    guesses: Guesses,
}
#[derive(Deserialize)]
struct Bottles {
    singular: Vec<(String, Option<String>)>,
    recipes: serde_json::Value,
    cases: Vec<Case>,
    limits: Vec<LimitCase>,
}
#[derive(Deserialize)]
struct Guesses {
    max: usize,
    distance: Vec<(String, String, usize)>,
    cases: Vec<Case>,
}

fn bottle_cases() -> (BottleCases, Recipes) {
    let text = include_str!("../../../../tests/search-cases.json");
    let table: BottleCases = serde_json::from_str(text).expect("tests/search-cases.json parses");
    let recipes = table.bottles.recipes.to_string();
    let recipes = Recipes::parse(&recipes, Origin::Embedded, SystemTime::UNIX_EPOCH)
        .expect("fixture recipes are valid");
    (table, recipes)
}

#[test]
fn bottles_table() {
    let (table, recipes) = bottle_cases();
    for (word, want) in &table.bottles.singular {
        assert_eq!(singular(word).as_ref(), want.as_ref(), "singular({word:?})");
    }
    let index = Index::new(&recipes);
    assert!(table.bottles.cases.len() >= 20);
    for case in &table.bottles.cases {
        let got: Vec<&str> = index
            .search(&SearchQuery::parse(&case.query))
            .into_iter()
            .map(|i| recipes.all()[i].name.as_str())
            .collect();
        assert_eq!(got, case.expect, "query {:?}", case.query);
    }
    for case in &table.bottles.limits {
        match (
            SearchQuery::parse_bounded(&case.query),
            case.terms,
            &case.error,
        ) {
            (Ok(q), Some(n), None) => assert_eq!(q.terms.len() + q.has.len(), n),
            (Err(e), None, Some(want)) => assert_eq!(&e.to_string(), want),
            (got, ..) => panic!("{:?}: got {got:?}", case.query),
        }
    }
}

#[test]
fn guesses_table() {
    let (table, recipes) = bottle_cases();
    assert_eq!(table.guesses.max, MAX_GUESSES);
    for (a, b, want) in &table.guesses.distance {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        assert_eq!(distance(&a, &b, 10), Some(*want), "{a:?} {b:?}");
        assert_eq!(
            distance(&a, &b, want.saturating_sub(1)).is_some(),
            *want == 0
        );
    }
    let index = Index::new(&recipes);
    for case in &table.guesses.cases {
        let query = SearchQuery::parse(&case.query);
        let got: Vec<&str> = index
            .guesses(&query)
            .into_iter()
            .map(|i| recipes.all()[i].name.as_str())
            .collect();
        assert_eq!(got, case.expect, "query {:?}", case.query);
    }
}

/// `misread` in `tests/search-cases.json`: a number's field without a number, in words.
#[test]
fn misread_table() {
    #[derive(Deserialize)]
    struct File {
        misread: Misread,
    }
    #[derive(Deserialize)]
    struct Misread {
        cases: Vec<Said>,
    }
    #[derive(Deserialize)]
    struct Said {
        query: String,
        say: Option<String>,
    }
    let file: File = serde_json::from_str(include_str!("../../../../tests/search-cases.json"))
        .expect("tests/search-cases.json parses");
    assert!(file.misread.cases.len() >= 8);
    for case in &file.misread.cases {
        let got = super::misread(&SearchQuery::parse(&case.query));
        assert_eq!(got, case.say, "query {:?}", case.query);
    }
}
