//! The reporting validator: every problem and every warning of a recipes file, each with
//! its place (file and line of the recipe, its index, id and name, and the field).
//!
//! Why: a hand-edited file should be fixable in one pass, so nothing stops at the first
//! problem. What is valid is decided in [`rules`]; this room only walks a
//! duplicate-keeping JSON value ([`Json`]) and says, in words, where and why a rule failed.
//!
//! Text with a control, bidi or other invisible character ([`crate::text::invisible`]) loads
//! with a warning: files that have one keep working, and whoever maintains the file learns
//! where it is (the app refuses such text in an edit).
//!
//! Files written for the Go original load unchanged: it decoded them with Go's
//! `encoding/json`, which matches keys case-insensitively and ignores unknown keys. We accept
//! both too, but never quietly: each is a *warning* with the same place as a problem, saying
//! what was done and how to make the file exact.

use super::super::{IngredientLine, LoadError, Origin, Recipe};
use super::json::Json;
use super::keys::{go_field, unknown_field};
use super::lines::element_lines;
use super::rules::{self, INGREDIENT_FIELDS, RECIPE_FIELDS, UniqueIds};
use compact_str::CompactString;
use std::collections::HashMap;
use std::fmt;

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
    /// Keys that differ from ours only in case, and unknown keys (ignored); see
    /// the module docs. Empty for an exact file.
    pub warnings: Vec<Problem>,
}

/// The full validator: a duplicate-keeping JSON value, then every rule with its place.
pub(super) fn parse_reporting(
    text: &str,
    origin: &Origin,
    characters: bool,
) -> Result<Parsed, LoadError> {
    let top: Json = serde_json::from_str(text).map_err(|e| LoadError::Syntax {
        origin: origin.clone(),
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    let Json::Array(items) = top else {
        let problem = Problem {
            origin: origin.clone(),
            recipe: None,
            field: None,
            message: format!(
                "the file must be a JSON array of recipes ([{{\"id\": 1, \"name\": …}}, …]), found {}",
                top.kind()
            ),
        };
        return Err(LoadError::Invalid {
            origin: origin.clone(),
            problems: vec![problem],
            warnings: Vec::new(),
        });
    };
    let lines = element_lines(text);
    check_items(&items, &lines, origin, characters)
}

/// Checks `items` as the elements of a file's top-level array (`lines[i]` is the line on
/// which item `i` starts), with [`parse_reporting`]'s rules and messages; also how a
/// submitted recipe is checked ([`super::submitted`]).
pub(super) fn check_items(
    items: &[Json],
    lines: &[usize],
    origin: &Origin,
    characters: bool,
) -> Result<Parsed, LoadError> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut recipes = Vec::with_capacity(items.len());
    let mut seen_ids: UniqueIds<(usize, String)> = UniqueIds::with_capacity(items.len());
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
            let name = &cx.recipe.name;
            let holder = || (index, name.clone().unwrap_or_default());
            if let Err((other, other_name)) = seen_ids.claim(id, holder) {
                let message = rules::duplicate_id(id, *other, other_name);
                cx.push(Some("id"), message);
                continue;
            }
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

/// Validation state for one recipe.
struct Context<'a> {
    origin: &'a Origin,
    recipe: RecipeRef,
    problems: &'a mut Vec<Problem>,
    warnings: &'a mut Vec<Problem>,
    /// Warn about invisible characters ([`super::parse_with`]).
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
        let Some(found) = rules::odd_character(value, multiline).filter(|_| self.characters) else {
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
            Some(Json::String(s)) if rules::named(s) => {
                self.characters("name", s, false);
                Some(s.clone())
            }
            Some(Json::String(_)) => {
                self.push(Some("name"), rules::EMPTY_NAME.into());
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
                Some(id) => match rules::id(id) {
                    Ok(id) => Some(id),
                    Err(message) => {
                        self.push(Some("id"), message);
                        None
                    }
                },
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
                Some(Json::String(s)) if rules::named(s) => {
                    self.characters(&name_path, s, false);
                    s.as_str().into()
                }
                Some(Json::String(_)) | None | Some(Json::Null) => {
                    self.push(Some(&name_path), rules::NAMELESS_INGREDIENT.into());
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
            let abv = match fields.get("abv").copied() {
                None | Some(Json::Null) => None,
                Some(Json::Number(n)) => {
                    let abv = n.as_f64().and_then(crate::recipes::Abv::new);
                    if abv.is_none() {
                        self.push(Some(&format!("{path}.abv")), rules::ABV_RANGE.into());
                    }
                    abv
                }
                Some(other) => {
                    self.push(
                        Some(&format!("{path}.abv")),
                        format!("{}, found {}", rules::ABV_RANGE, other.kind()),
                    );
                    None
                }
            };
            let substitutes = self.substitutes(fields.get("substitutes").copied(), &path);
            let exact = match fields.get("exact").copied() {
                None | Some(Json::Null) => false,
                Some(Json::Bool(b)) => *b,
                Some(other) => {
                    let found = other.kind();
                    let why = format!("expected true or false, found {found}");
                    self.push(Some(&format!("{path}.exact")), why);
                    false
                }
            };
            out.push(IngredientLine {
                name,
                measure,
                unit,
                abv,
                substitutes,
                exact,
            });
        }
        out
    }
}

impl Context<'_> {
    /// A row's `substitutes`: a list of names, each more than white space.
    fn substitutes(&mut self, value: Option<&Json>, path: &str) -> Vec<CompactString> {
        let items = match value {
            None | Some(Json::Null) => return Vec::new(),
            Some(Json::Array(items)) => items,
            Some(other) => {
                let why = format!("expected a list of names, found {}", other.kind());
                self.push(Some(&format!("{path}.substitutes")), why);
                return Vec::new();
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = format!("{path}.substitutes[{i}]");
            match item {
                Json::String(s) if rules::named(s) => {
                    self.characters(&at, s, false);
                    out.push(s.as_str().into());
                }
                Json::String(_) => self.push(Some(&at), rules::NAMELESS_INGREDIENT.into()),
                other => self.push(
                    Some(&at),
                    format!("expected a string, found {}", other.kind()),
                ),
            }
        }
        out
    }
}
