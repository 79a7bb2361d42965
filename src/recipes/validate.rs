//! Turns recipes text into [`Recipe`]s, collecting every problem with its place.
//!
//! Each problem names the file and line of the recipe, its index, id and name, and the
//! field, so that a hand-edited file can be fixed in one pass.
//!
//! Text with a control, bidi or other invisible character ([`crate::text::invisible`]) loads
//! with a warning too: files that have one keep working, and whoever maintains the file
//! learns where it is (the app refuses such text in an edit).
//!
//! Files written for the Go original load unchanged: it decoded them with Go's
//! `encoding/json`, which matches keys case-insensitively and ignores unknown keys. We accept
//! both too, but never quietly: each is a *warning* with the same place as a problem, saying
//! what was done and how to make the file exact.

use super::json::Json;
use super::keys::{go_field, unknown_field};
use super::{IngredientLine, LoadError, Origin, Recipe, fast};
use compact_str::CompactString;
use std::collections::HashMap;
use std::fmt;

/// The largest id: 2^53 − 1. JavaScript reads JSON numbers as doubles, so a larger id would
/// reach the page (and a phone's favourites) as a different number.
pub(crate) const MAX_ID: u64 = (1 << 53) - 1;

/// The keys a recipe may have, in the order the schema lists them.
pub(crate) const RECIPE_FIELDS: [&str; 9] = [
    "id",
    "name",
    "base",
    "glass",
    "method",
    "ice",
    "ingredients",
    "garnish",
    "notes",
];
/// The keys an ingredient may have.
pub(crate) const INGREDIENT_FIELDS: [&str; 3] = ["name", "measure", "unit"];

/// Which recipe a problem belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeRef {
    /// Position in the top-level array, from 0.
    pub index: usize,
    /// Line of the file where the recipe starts, from 1.
    pub line: usize,
    pub id: Option<u64>,
    pub name: Option<String>,
}

/// One thing wrong with a recipes file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub origin: Origin,
    pub recipe: Option<RecipeRef>,
    /// The field path, e.g. `garnish[1]` or `ingredients[0].name`.
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(r) = &self.recipe {
            write!(f, ":{}: recipe index {}", r.line, r.index)?;
            match (&r.id, &r.name) {
                (Some(id), Some(name)) => write!(f, " (id {id}, {name:?})")?,
                (Some(id), None) => write!(f, " (id {id})")?,
                (None, Some(name)) => write!(f, " ({name:?})")?,
                (None, None) => {}
            }
        }
        if let Some(field) = &self.field {
            write!(f, ", field \"{field}\"")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A file that loaded: its recipes, and what was accepted only for the Go original's sake.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub recipes: Vec<Recipe>,
    /// Keys that differ from ours only in case, and unknown keys (ignored); see the module
    /// docs. Empty for an exact file.
    pub warnings: Vec<Problem>,
}

/// Parses and validates; returns every recipe (with warnings) or every problem.
///
/// A valid file (the usual case) takes the fast path: serde straight into the model, with
/// the same rules. Anything it does not accept goes through the full validator, which
/// reports every problem with its place.
pub(crate) fn parse(text: &str, origin: &Origin) -> Result<Parsed, LoadError> {
    parse_with(text, origin, true)
}

/// [`parse`], warning about invisible characters only with `characters`: the store checks
/// a submitted recipe's characters itself, as a problem (`store::caps`).
pub(crate) fn parse_with(
    text: &str,
    origin: &Origin,
    characters: bool,
) -> Result<Parsed, LoadError> {
    if let Some(recipes) = fast::parse(text, characters) {
        return Ok(Parsed {
            recipes,
            warnings: Vec::new(),
        });
    }
    parse_reporting(text, origin, characters)
}

/// The full validator: a duplicate-keeping JSON value, then every rule with its place.
fn parse_reporting(text: &str, origin: &Origin, characters: bool) -> Result<Parsed, LoadError> {
    let top: Json = serde_json::from_str(text).map_err(|e| LoadError::Syntax {
        origin: origin.clone(),
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let Json::Array(items) = top else {
        problems.push(Problem {
            origin: origin.clone(),
            recipe: None,
            field: None,
            message: format!(
                "the file must be a JSON array of recipes ([{{\"id\": 1, \"name\": …}}, …]), found {}",
                top.kind()
            ),
        });
        return Err(LoadError::Invalid {
            origin: origin.clone(),
            problems,
            warnings,
        });
    };
    let lines = element_lines(text);
    let mut recipes = Vec::with_capacity(items.len());
    let mut seen_ids: HashMap<u64, (usize, String)> = HashMap::new();
    for (index, item) in items.iter().enumerate() {
        let line = lines.get(index).copied().unwrap_or(1);
        let mut cx = Context {
            origin,
            recipe: RecipeRef {
                index,
                line,
                id: None,
                name: None,
            },
            problems: &mut problems,
            warnings: &mut warnings,
            characters,
        };
        let recipe = cx.recipe(item);
        // Ids are checked for every recipe, valid or not, so that one fix does not reveal
        // another problem on the next run.
        if let Some(id) = cx.recipe.id {
            if let Some((other, other_name)) = seen_ids.get(&id) {
                let message = format!(
                    "id {id} is already used by recipe index {other} ({other_name:?}); ids must be unique"
                );
                cx.push(Some("id"), message);
                continue;
            }
            let name = cx.recipe.name.clone().unwrap_or_default();
            seen_ids.insert(id, (index, name));
        }
        if let Some(recipe) = recipe {
            recipes.push(recipe);
        }
    }
    if problems.is_empty() {
        Ok(Parsed { recipes, warnings })
    } else {
        Err(LoadError::Invalid {
            origin: origin.clone(),
            problems,
            warnings,
        })
    }
}

/// serde_json appends " at line L column C"; we print the position ourselves.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// The line (from 1) on which each element of the top-level array starts.
/// Only called on text that already parsed as JSON.
fn element_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut line, mut depth) = (1usize, 0usize);
    let (mut in_string, mut escaped, mut expect_element) = (false, false, false);
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if depth == 1 && expect_element && !c.is_whitespace() && c != ']' {
            lines.push(line);
            expect_element = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth == 1 {
                    expect_element = true;
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect_element = true,
            _ => {}
        }
    }
    lines
}

/// Validation state for one recipe.
struct Context<'a> {
    origin: &'a Origin,
    recipe: RecipeRef,
    problems: &'a mut Vec<Problem>,
    warnings: &'a mut Vec<Problem>,
    /// Warn about invisible characters ([`parse_with`]).
    characters: bool,
}

impl Context<'_> {
    fn problem(&self, field: Option<&str>, message: String) -> Problem {
        Problem {
            origin: self.origin.clone(),
            recipe: Some(self.recipe.clone()),
            field: field.map(str::to_owned),
            message,
        }
    }

    fn push(&mut self, field: Option<&str>, message: String) {
        let problem = self.problem(field, message);
        self.problems.push(problem);
    }

    fn warn(&mut self, field: &str, message: String) {
        let warning = self.problem(Some(field), message);
        self.warnings.push(warning);
    }

    /// Warns about the first invisible character in `value` (see the module docs).
    fn characters(&mut self, field: &str, value: &str, multiline: bool) {
        let Some(found) = crate::text::invisible(value, multiline).filter(|_| self.characters)
        else {
            return;
        };
        let lines = if multiline {
            ""
        } else {
            " (line breaks and tabs belong in notes only)"
        };
        self.warn(
            field,
            format!(
                "contains {found}, a control or invisible character{lines}; loaded as it is, \
                 but an edit of this recipe is refused until it is removed from the file"
            ),
        );
    }

    fn recipe(&mut self, item: &Json) -> Option<Recipe> {
        let Json::Object(entries) = item else {
            self.push(
                None,
                format!("each recipe must be an object, found {}", item.kind()),
            );
            return None;
        };
        let before = self.problems.len();
        let warned = self.warnings.len();
        // Identify the recipe first so that every later message can name it.
        let fields = self.fields(entries, &RECIPE_FIELDS, "a recipe", "");
        self.recipe.id = match fields.get("id") {
            Some(Json::Null) => {
                self.push(
                    Some("id"),
                    "is null (the Go version read it as 0); give the recipe a unique \
                     whole-number id"
                        .into(),
                );
                None
            }
            None => {
                self.push(
                    Some("id"),
                    "missing; every recipe needs a unique whole-number id".into(),
                );
                None
            }
            Some(v) => self.id(v),
        };
        self.recipe.name = match fields.get("name") {
            Some(Json::String(s)) if !s.trim().is_empty() => {
                self.characters("name", s, false);
                Some(s.clone())
            }
            Some(Json::String(_)) => {
                self.push(Some("name"), "must not be empty".into());
                None
            }
            Some(Json::Null) => {
                self.push(
                    Some("name"),
                    "is null (the Go version showed the recipe without a name); give it a name"
                        .into(),
                );
                None
            }
            Some(other) => {
                self.push(
                    Some("name"),
                    format!("expected a string, found {}", other.kind()),
                );
                None
            }
            None => {
                self.push(Some("name"), "missing; every recipe needs a name".into());
                None
            }
        };
        // Problems found before the id and name were known should name them too.
        for p in &mut self.problems[before..] {
            p.recipe = Some(self.recipe.clone());
        }
        for w in &mut self.warnings[warned..] {
            w.recipe = Some(self.recipe.clone());
        }
        let recipe = Recipe {
            id: self.recipe.id.unwrap_or_default(),
            name: self
                .recipe
                .name
                .as_deref()
                .map(Into::into)
                .unwrap_or_default(),
            base: self.strings(&fields, "base"),
            glass: self.strings(&fields, "glass"),
            method: self.strings(&fields, "method"),
            ice: self.strings(&fields, "ice"),
            ingredients: self.ingredients(fields.get("ingredients").copied()),
            garnish: self.strings(&fields, "garnish"),
            notes: self.text(fields.get("notes").copied(), "notes", true),
        };
        (self.problems.len() == before).then_some(recipe)
    }

    /// Maps keys to values as Go's `encoding/json` did (case-insensitively, unknown keys
    /// ignored), warning about both, and refusing repeated keys.
    fn fields<'j>(
        &mut self,
        entries: &'j [(String, Json)],
        accepted: &[&'static str],
        what: &str,
        prefix: &str,
    ) -> HashMap<&'static str, &'j Json> {
        let mut fields: HashMap<&'static str, &'j Json> = HashMap::new();
        let mut spelled: HashMap<&'static str, &'j str> = HashMap::new();
        for (key, value) in entries {
            let path = format!("{prefix}{key}");
            let Some(field) = go_field(key, accepted) else {
                self.warn(&path, unknown_field(key, accepted, what));
                continue;
            };
            if let Some(first) = spelled.insert(field, key) {
                let also = if first == key {
                    String::new()
                } else {
                    format!(" (as \"{first}\" and \"{key}\"; keys match whatever their case)")
                };
                self.push(
                    Some(&path),
                    format!(
                        "appears more than once{also}; the Go version kept the last one; keep \
                         one so that nothing is silently lost"
                    ),
                );
                continue;
            }
            if field != key {
                self.warn(
                    &path,
                    format!(
                        "loaded as \"{field}\" (the Go version matched keys whatever their \
                         case, and so do we); rename it to \"{field}\" to make the file exact"
                    ),
                );
            }
            fields.insert(field, value);
        }
        fields
    }

    fn id(&mut self, value: &Json) -> Option<u64> {
        match value {
            Json::Number(n) => match n.as_u64() {
                Some(id) if id <= MAX_ID => Some(id),
                Some(id) => {
                    self.push(
                        Some("id"),
                        format!(
                            "{id} is too large: ids must be at most {MAX_ID}, the largest whole \
                             number a browser reads exactly"
                        ),
                    );
                    None
                }
                None => {
                    self.push(
                        Some("id"),
                        format!("expected a whole number of 0 or more, found {n}"),
                    );
                    None
                }
            },
            other => {
                self.push(
                    Some("id"),
                    format!("expected a whole number, found {}", other.kind()),
                );
                None
            }
        }
    }

    /// A list of strings; missing or `null` is empty.
    fn strings(&mut self, fields: &HashMap<&str, &Json>, key: &str) -> Vec<CompactString> {
        match fields.get(key) {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Json::String(s) => {
                            self.characters(&format!("{key}[{i}]"), s, false);
                            out.push(s.as_str().into());
                        }
                        other => self.push(
                            Some(&format!("{key}[{i}]")),
                            format!("expected a string, found {}", other.kind()),
                        ),
                    }
                }
                out
            }
            Some(other) => {
                self.push(
                    Some(key),
                    format!(
                        "expected a list of strings ([\"…\"]), found {}",
                        other.kind()
                    ),
                );
                Vec::new()
            }
        }
    }

    /// A free-text string; missing or `null` is empty. Lines and tabs are text when
    /// `multiline` (notes).
    fn text(&mut self, value: Option<&Json>, path: &str, multiline: bool) -> CompactString {
        match value {
            None | Some(Json::Null) => CompactString::default(),
            Some(Json::String(s)) => {
                self.characters(path, s, multiline);
                s.as_str().into()
            }
            Some(Json::Number(n)) => {
                self.push(
                    Some(path),
                    format!("expected a string, found the number {n}; write it in quotes: \"{n}\""),
                );
                CompactString::default()
            }
            Some(other) => {
                self.push(
                    Some(path),
                    format!("expected a string, found {}", other.kind()),
                );
                CompactString::default()
            }
        }
    }

    fn ingredients(&mut self, value: Option<&Json>) -> Vec<IngredientLine> {
        let items = match value {
            None | Some(Json::Null) => return Vec::new(),
            Some(Json::Array(items)) => items,
            Some(other) => {
                self.push(
                    Some("ingredients"),
                    format!(
                        "expected a list of ingredients ([{{\"name\": …, \"measure\": …, \"unit\": …}}]), found {}",
                        other.kind()
                    ),
                );
                return Vec::new();
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let path = format!("ingredients[{i}]");
            let Json::Object(entries) = item else {
                self.push(
                    Some(&path),
                    format!("expected an ingredient object, found {}", item.kind()),
                );
                continue;
            };
            let fields = self.fields(
                entries,
                &INGREDIENT_FIELDS,
                "an ingredient",
                &format!("{path}."),
            );
            let name_path = format!("{path}.name");
            let name = match fields.get("name") {
                Some(Json::String(s)) if !s.trim().is_empty() => {
                    self.characters(&name_path, s, false);
                    s.as_str().into()
                }
                Some(Json::String(_)) | None | Some(Json::Null) => {
                    self.push(Some(&name_path), "every ingredient needs a name".into());
                    CompactString::default()
                }
                Some(other) => {
                    self.push(
                        Some(&name_path),
                        format!("expected a string, found {}", other.kind()),
                    );
                    CompactString::default()
                }
            };
            let measure = self.text(
                fields.get("measure").copied(),
                &format!("{path}.measure"),
                false,
            );
            let unit = self.text(fields.get("unit").copied(), &format!("{path}.unit"), false);
            out.push(IngredientLine {
                name,
                measure,
                unit,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn origin() -> Origin {
        Origin::File(PathBuf::from("bar.json"))
    }

    fn problems(text: &str) -> Vec<String> {
        match parse(text, &origin()) {
            Ok(r) => panic!("expected problems, parsed {} recipes", r.recipes.len()),
            Err(LoadError::Invalid { problems, .. }) => {
                problems.iter().map(ToString::to_string).collect()
            }
            Err(other) => vec![other.to_string()],
        }
    }

    fn one(text: &str) -> String {
        let p = problems(text);
        assert_eq!(p.len(), 1, "expected one problem, got {p:#?}");
        p.into_iter().next().unwrap_or_default()
    }

    #[test]
    fn fast_path_agrees_with_the_full_validator() {
        let valid = [
            super::super::SAMPLE_JSON,
            r#"[{"id": 0, "name": "A", "base": null, "ingredients": [{"name": "x", "measure": null}], "notes": null}]"#,
            r#"[{"name": "B", "id": 7, "glass": [], "ingredients": null}]"#,
            "[]",
        ];
        for text in valid {
            let fast = fast::parse(text, true).expect("the fast path accepts a valid file");
            let full = parse_reporting(text, &origin(), true).expect("valid");
            assert_eq!(fast, full.recipes, "{text}");
            assert!(full.warnings.is_empty(), "{text}: {:?}", full.warnings);
        }
        let invalid = [
            r#"{"id": 1, "name": "x"}"#,
            r#"[{"id": 1, "name": "x", "name": "y"}]"#,
            r#"[{"id": 1, "name": "x", "notes": "a", "notes": "b"}]"#,
            r#"[{"id": 1, "name": "x", "ingredients": [{"name": "g", "name": "h"}]}]"#,
            r#"[{"id": 1.0, "name": "x"}]"#,
            r#"[{"id": -1, "name": "x"}]"#,
            r#"[{"id": 1, "name": "  "}]"#,
            r#"[{"id": 1}]"#,
            r#"[{"name": "x"}]"#,
            r#"[{"id": 1, "name": "x"}, {"id": 1, "name": "y"}]"#,
            r#"[{"id": 1, "name": "x", "notes": 5}]"#,
            r#"[{"id": 1, "name": "x", "base": "Gin"}]"#,
            r#"[{"id": 1, "name": "x", "base": [1]}]"#,
            r#"[{"id": 1, "name": "x", "ingredients": [{"measure": "1"}]}]"#,
            r#"[{"id": 1, "name": "x", "ingredients": [{"name": null}]}]"#,
            r#"[{"id": 1, "name": "x", "ingredients": [{"name": " "}]}]"#,
            r#"[{"id": 1, "name": "x", "ingredients": ["gin"]}]"#,
            r#"[1]"#,
        ];
        for text in invalid {
            assert!(
                fast::parse(text, true).is_none(),
                "fast path accepted {text}"
            );
            assert!(parse(text, &origin()).is_err(), "{text}");
        }
        // What only the Go original's decoding accepts goes the long way, to be warned about.
        let go_only = [
            r#"[{"id": 1, "name": "x", "garnsh": []}]"#,
            r#"[{"id": 1, "Name": "x"}]"#,
            r#"[{"id": 1, "name": "x", "ingredients": [{"Name": "g"}]}]"#,
        ];
        for text in go_only {
            assert!(
                fast::parse(text, true).is_none(),
                "fast path accepted {text}"
            );
            let parsed = parse(text, &origin()).expect(text);
            assert_eq!(parsed.warnings.len(), 1, "{text}");
        }
    }

    #[test]
    fn lists_load_in_order_without_spare_room() {
        let many: Vec<String> = (0..11).map(|i| format!("\"g{i}\"")).collect();
        let text = format!(
            r#"[{{"id": 1, "name": "A", "base": ["Gin"], "method": null, "garnish": [{}],
                "ingredients": [{{"name": "x"}}, {{"name": "y"}}, {{"name": "z"}}]}}]"#,
            many.join(", ")
        );
        let fast = fast::parse(&text, true).expect("valid");
        let full = parse_reporting(&text, &origin(), true)
            .expect("valid")
            .recipes;
        for r in [&fast[0], &full[0]] {
            let want: Vec<String> = (0..11).map(|i| format!("g{i}")).collect();
            assert_eq!(r.garnish, want);
            assert_eq!((r.base.len(), r.base.capacity()), (1, 1));
            assert_eq!(r.method.capacity(), 0);
            assert_eq!(r.ingredients.capacity(), 3);
        }
    }

    #[test]
    fn accepts_the_documented_format_with_nulls_and_missing_fields() {
        let text = r#"[{"id": 10, "name": "New York Sour", "base": ["Bourbon"], "glass": ["12oz Lowball"],
  "method": ["Dry Shake", "Shake"], "ice": ["Cubed"],
  "ingredients": [{"name": "Lemon Juice", "measure": "20", "unit": "ml"}, {"name": "Soda", "measure": null}],
  "garnish": ["Lemon Sail"], "notes": "Use claret or malbec"},
  {"id": 11, "name": "Plain", "base": null, "notes": null}]"#;
        let recipes = parse(text, &origin()).expect("valid").recipes;
        assert_eq!(recipes.len(), 2);
        assert_eq!(recipes[0].method, ["Dry Shake", "Shake"]);
        assert_eq!(recipes[0].ingredients[1].measure, "");
        assert_eq!(recipes[1].base, Vec::<String>::new());
        assert_eq!(recipes[1].notes, "");
    }

    #[test]
    fn syntax_error_names_file_line_and_column() {
        let err = parse("[\n {\"id\": 1,\n  \"name\": \"A\",,\n}]", &origin()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("bar.json:3:"), "{msg}");
        assert!(msg.contains("invalid JSON"), "{msg}");
        assert!(!msg.contains(" at line "), "position printed twice: {msg}");
    }

    #[test]
    fn top_level_must_be_an_array() {
        let p = one(r#"{"id": 1, "name": "A"}"#);
        assert!(p.contains("must be a JSON array"), "{p}");
        assert!(p.contains("found an object"), "{p}");
    }

    /// Loads a file that must load, and returns its recipes and warnings (as text).
    fn loads(text: &str) -> (Vec<Recipe>, Vec<String>) {
        let parsed = parse(text, &origin()).unwrap_or_else(|e| panic!("{text}: {e}"));
        let warnings = parsed.warnings.iter().map(ToString::to_string).collect();
        (parsed.recipes, warnings)
    }

    #[test]
    fn unknown_field_is_ignored_as_go_did_with_a_warning_naming_it() {
        let (recipes, w) =
            loads("[\n{\"id\": 7, \"name\": \"Negroni\", \"garnsh\": [\"Orange\"]}]");
        assert_eq!(recipes.len(), 1);
        assert!(recipes[0].garnish.is_empty());
        assert_eq!(w.len(), 1, "{w:#?}");
        let w = &w[0];
        assert!(
            w.starts_with("bar.json:2: recipe index 0 (id 7, \"Negroni\"), field \"garnsh\": "),
            "{w}"
        );
        assert!(w.contains("ignored as the Go version ignored it"), "{w}");
        assert!(w.contains("rename it to \"garnish\""), "{w}");
        assert!(
            w.contains("move it into \"notes\", otherwise delete it"),
            "{w}"
        );
        assert!(
            w.contains("id, name, base, glass, method, ice, ingredients, garnish, notes"),
            "{w}"
        );
        let (_, w) =
            loads(r#"[{"id": 1, "name": "A", "ingredients": [{"name": "Gin", "amount": "20"}]}]"#);
        assert!(w[0].contains("field \"ingredients[0].amount\""), "{w:?}");
        assert!(
            w[0].contains("the fields of an ingredient are: name, measure, unit"),
            "{w:?}"
        );
    }

    #[test]
    fn keys_differing_in_case_load_as_go_matched_them_with_a_warning() {
        let text = "[{\"ID\": 3, \"Name\": \"Daiquiri\", \"BASE\": [\"Rum\"],\n \
                    \"Ingredients\": [{\"NAME\": \"Lime\", \"Measure\": \"25\", \"unIt\": \"ml\"}], \
                    \"notes\": \"x\"}]";
        let (recipes, w) = loads(text);
        assert_eq!(recipes[0].id, 3);
        assert_eq!(recipes[0].name, "Daiquiri");
        assert_eq!(recipes[0].base, ["Rum"]);
        assert_eq!(
            recipes[0].ingredients,
            [IngredientLine {
                name: "Lime".into(),
                measure: "25".into(),
                unit: "ml".into()
            }]
        );
        assert_eq!(w.len(), 7, "{w:#?}");
        assert!(
            w[0].starts_with(
                "bar.json:1: recipe index 0 (id 3, \"Daiquiri\"), field \"ID\": loaded as \"id\""
            ),
            "{w:?}"
        );
        assert!(
            w[0].ends_with("rename it to \"id\" to make the file exact"),
            "{w:?}"
        );
        assert!(
            w[5].contains("field \"ingredients[0].Measure\": loaded as \"measure\""),
            "{w:?}"
        );
        // Go's folding is Unicode's: the long s is an s, the Kelvin sign a k.
        let (recipes, w) = loads("[{\"id\": 1, \"name\": \"A\", \"baſe\": [\"Gin\"]}]");
        assert_eq!((recipes[0].base.len(), w.len()), (1, 1));
        assert!(
            !super::super::keys::fold_eq("nameé", "names")
                && !super::super::keys::fold_eq("nam", "name")
        );
    }

    #[test]
    fn invisible_characters_load_with_a_warning_naming_the_place_and_character() {
        let text = "[{\"id\": 1, \"name\": \"Gin\", \"notes\": \"Shake.\\n\\tHard.\"},\n\
                    {\"id\": 2, \"name\": \"abc\\u202edef\", \"glass\": [\"Coupe\", \"Flute\\u0000\"],\n\
                    \"ingredients\": [{\"name\": \"Lime\", \"measure\": \"\\u001b[31m\", \"unit\": \"ml\\t\"}],\n\
                    \"notes\": \"\\ufeffx\"}]";
        assert!(
            fast::parse(text, true).is_none(),
            "the fast path skipped the warnings"
        );
        let (recipes, w) = loads(text);
        assert_eq!(recipes.len(), 2, "a file with them still loads");
        assert_eq!(recipes[1].name, "abc\u{202e}def", "loaded as it is");
        assert_eq!(w.len(), 5, "{w:#?}");
        // The recipe is named as Debug shows it: the override escaped, not applied.
        let place = "bar.json:2: recipe index 1 (id 2, \"abc\\u{202e}def\")";
        let want = [
            ("name", "U+202E RIGHT-TO-LEFT OVERRIDE at character 4"),
            ("glass[1]", "U+0000 NULL at character 6"),
            ("ingredients[0].measure", "U+001B ESCAPE at character 1"),
            (
                "ingredients[0].unit",
                "U+0009 CHARACTER TABULATION at character 3",
            ),
            (
                "notes",
                "U+FEFF ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK) at character 1",
            ),
        ];
        for (w, (field, found)) in w.iter().zip(want) {
            assert!(
                w.starts_with(&format!("{place}, field \"{field}\": contains {found}, ")),
                "{w}"
            );
            assert!(w.contains("an edit of this recipe is refused"), "{w}");
        }
        assert!(
            w[3].contains("line breaks and tabs belong in notes only"),
            "{}",
            w[3]
        );
        // A newline and a tab in notes are text; the store's own check leaves them all off.
        assert!(
            parse_with(text, &origin(), false)
                .expect("loads")
                .warnings
                .is_empty()
        );
    }

    #[test]
    fn a_refused_file_lists_its_warnings_too() {
        let err = parse(
            "[{\"id\": 1, \"Name\": \"A\", \"garnsh\": []},\n {\"id\": 1, \"name\": \"B\"}]",
            &origin(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("bar.json: 1 problem(s) found:\n  bar.json:2: recipe index 1"),
            "{err}"
        );
        assert!(
            err.contains("\n  warning: bar.json:1: recipe index 0 (id 1, \"A\"), field \"Name\""),
            "{err}"
        );
        assert!(
            err.contains("\n  warning: bar.json:1: recipe index 0 (id 1, \"A\"), field \"garnsh\""),
            "{err}"
        );
    }

    #[test]
    fn the_same_key_in_two_cases_is_refused_naming_both() {
        let p = one(r#"[{"id": 1, "name": "A", "Name": "B"}]"#);
        assert!(
            p.contains("field \"Name\": appears more than once (as \"name\" and \"Name\""),
            "{p}"
        );
        assert!(p.contains("the Go version kept the last one"), "{p}");
    }

    #[test]
    fn null_id_or_name_says_what_go_made_of_it() {
        let p = one(r#"[{"id": null, "name": "A"}]"#);
        assert!(
            p.contains("field \"id\": is null (the Go version read it as 0)"),
            "{p}"
        );
        let p = one(r#"[{"id": 1, "name": null}]"#);
        assert!(p.contains("field \"name\": is null"), "{p}");
        assert!(p.contains("give it a name"), "{p}");
    }

    #[test]
    fn missing_and_empty_name() {
        assert!(one(r#"[{"id": 1}]"#).contains("field \"name\": missing"));
        let p = one(r#"[{"id": 1, "name": "  "}]"#);
        assert!(
            p.contains("recipe index 0 (id 1), field \"name\": must not be empty"),
            "{p}"
        );
    }

    #[test]
    fn ids_a_browser_cannot_read_exactly_are_refused() {
        let ok = format!(r#"[{{"id": {MAX_ID}, "name": "A"}}]"#);
        assert!(parse(&ok, &origin()).is_ok(), "2^53 - 1 is fine");
        assert!(fast::parse(&ok, true).is_some());
        let big = format!(r#"[{{"id": {}, "name": "A"}}]"#, MAX_ID + 1);
        assert!(
            fast::parse(&big, true).is_none(),
            "the fast path leaves it to the validator"
        );
        assert!(
            one(&big).contains("ids must be at most 9007199254740991"),
            "{}",
            one(&big)
        );
    }

    #[test]
    fn missing_negative_and_duplicate_ids() {
        let p = one(r#"[{"name": "A"}]"#);
        assert!(p.contains("(\"A\"), field \"id\": missing"), "{p}");
        assert!(
            one(r#"[{"id": -1, "name": "A"}]"#).contains("whole number of 0 or more, found -1")
        );
        assert!(
            one(r#"[{"id": "1", "name": "A"}]"#)
                .contains("expected a whole number, found a string")
        );
        let p = one("[{\"id\": 1, \"name\": \"A\"},\n{\"id\": 1, \"name\": \"B\"}]");
        assert!(
            p.starts_with("bar.json:2: recipe index 1 (id 1, \"B\"), field \"id\""),
            "{p}"
        );
        assert!(p.contains("already used by recipe index 0 (\"A\")"), "{p}");
    }

    #[test]
    fn wrong_types_are_named_by_field_path() {
        let p = one(r#"[{"id": 1, "name": "A", "garnish": ["Lime", 3]}]"#);
        assert!(
            p.contains("field \"garnish[1]\": expected a string, found a number"),
            "{p}"
        );
        let p = one(r#"[{"id": 1, "name": "A", "glass": "Coupe"}]"#);
        assert!(
            p.contains("field \"glass\": expected a list of strings"),
            "{p}"
        );
        let p = one(r#"[{"id": 1, "name": "A", "ingredients": [{"name": "Gin", "measure": 20}]}]"#);
        assert!(p.contains("field \"ingredients[0].measure\""), "{p}");
        assert!(p.contains("write it in quotes: \"20\""), "{p}");
        assert!(
            one(r#"[{"id": 1, "name": "A", "notes": ["x"]}]"#)
                .contains("field \"notes\": expected a string, found an array")
        );
        assert!(one(r#"[1]"#).contains("each recipe must be an object, found a number"));
    }

    #[test]
    fn ingredient_without_a_name() {
        let p =
            one(r#"[{"id": 1, "name": "A", "ingredients": [{"measure": "20", "unit": "ml"}]}]"#);
        assert!(
            p.contains("field \"ingredients[0].name\": every ingredient needs a name"),
            "{p}"
        );
    }

    #[test]
    fn duplicate_keys_are_rejected_not_silently_dropped() {
        let p = one(r#"[{"id": 1, "name": "A", "notes": "first", "notes": "second"}]"#);
        assert!(p.contains("field \"notes\": appears more than once"), "{p}");
    }

    #[test]
    fn every_problem_is_reported_not_just_the_first() {
        let text = "[\n{\"id\": 1, \"name\": \"A\", \"garnish\": \"x\"},\n{\"id\": 2},\n{\"id\": 1, \"name\": \"C\"},\n{\"id\": 4, \"name\": \"D\", \"ingredients\": [{}]}\n]";
        let p = problems(text);
        assert_eq!(p.len(), 4, "{p:#?}");
        assert!(p[0].starts_with("bar.json:2: recipe index 0"));
        assert!(p[1].starts_with("bar.json:3: recipe index 1 (id 2)"));
        assert!(p[2].starts_with("bar.json:4: recipe index 2 (id 1, \"C\")"));
        assert!(p[3].starts_with("bar.json:5: recipe index 3 (id 4, \"D\")"));
    }

    #[test]
    fn element_lines_ignore_brackets_inside_strings() {
        let text = "[\n {\"name\": \"a [b], {c}\"},\n\n {\"name\": \"\\\"]\"}, 3\n]";
        assert_eq!(element_lines(text), [2, 4, 4]);
    }
}
