//! A recipe sent to be saved (the API, the recipe form, an import), checked once, where it
//! arrives: [`Submitted`].
//!
//! Why a room of its own: a body is checked by one function, [`Submitted::check`], with
//! the loader's rules ([`check_one`](super::check_one)), no unknown fields and the caps
//! ([`caps`](super::caps)), so that what travels on to the store is a recipe known to be
//! valid, never a JSON value that may not be. What only the store can check under its lock
//! (the id a new recipe gets, the file's size, the version) stays the store's.

use super::caps::{self, error};
use super::{FieldError, RECIPE_FIELDS, Recipe, check_one, is_recipe_field};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::{Map, Value};

/// A recipe sent to be saved, valid by the loader's rules and within the caps. Made only by
/// [`Submitted::check`] (or [`Submitted::check_many`]); its id is given by the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// The recipe, with the id it was checked as (the one asked for, or 1 for a new one).
    recipe: Recipe,
    /// The `id` the body gave (`Some(None)`: one that is not a whole number), which must be
    /// the recipe's: checked by [`Submitted::recipe_as`] once the id is known.
    sent_id: Option<Option<u64>>,
}

/// The keys `GET /api/recipes/{id}` adds to a recipe: a change may send them back, and
/// they are left out.
const READ_ONLY: [&str; 2] = ["strength", "ratings"];

impl Submitted {
    /// `body` as a recipe to save as recipe `id` (`None`: a new one, whose id the store
    /// gives), or every problem with it, named by field path, in the order the fields are
    /// met: lists over their cap alone first (a body with thousands of rows gets one
    /// problem, not thousands), then keys, the loader's rules and the caps.
    pub fn check(body: &Value, id: Option<u64>) -> Result<Submitted, Vec<FieldError>> {
        let fields = body.as_object().ok_or_else(|| {
            vec![error(
                "",
                "expected a recipe: a JSON object with its fields",
            )]
        })?;
        let long = caps::too_long(fields);
        if !long.is_empty() {
            return Err(long);
        }
        let mut problems = Vec::new();
        let mut candidate = Map::new();
        candidate.insert("id".into(), Value::from(id.unwrap_or(1)));
        let mut sent_id = None;
        for (key, value) in fields {
            if key == "id" {
                sent_id = Some(value.as_u64());
                if let Some(id) = id.filter(|id| value.as_u64() != Some(*id)) {
                    problems.push(not_its_id(id));
                }
            } else if is_recipe_field(key) {
                candidate.insert(key.clone(), value.clone());
            } else if !READ_ONLY.contains(&key.as_str()) {
                problems.push(error(
                    key,
                    &format!(
                        "unknown field; the fields are {}",
                        RECIPE_FIELDS[1..].join(", ")
                    ),
                ));
            }
        }
        let recipe = check_one(&Value::Object(candidate))
            .map_err(|found| problems.extend(found))
            .ok();
        if let Some(recipe) = &recipe {
            problems.extend(caps::over_caps(recipe));
        }
        match recipe {
            Some(recipe) if problems.is_empty() => Ok(Submitted { recipe, sent_id }),
            _ => Err(caps::at_most_shown(problems)),
        }
    }

    /// Several new recipes, to save as one change: 1 to [`caps::BULK_RECIPES`] of them, each
    /// as [`check`](Self::check) takes it; a problem is named `recipes[i].field`.
    pub fn check_many(bodies: &[Value]) -> Result<Vec<Submitted>, Vec<FieldError>> {
        if let Some(problem) = caps::bulk_count(bodies.len()) {
            return Err(vec![problem]);
        }
        let mut out = Vec::with_capacity(bodies.len());
        let mut problems = Vec::new();
        for (i, body) in bodies.iter().enumerate() {
            match Submitted::check(body, None) {
                Ok(recipe) => out.push(recipe),
                Err(found) => problems.extend(found.into_iter().map(|p| in_bulk(i, p))),
            }
        }
        match problems.is_empty() {
            true => Ok(out),
            false => Err(caps::at_most_shown(problems)),
        }
    }

    /// The recipe, saved as recipe `id`: refused (naming `id`) when the body gave another.
    pub fn recipe_as(&self, id: u64) -> Result<Recipe, FieldError> {
        if self.sent_id.is_some_and(|sent| sent != Some(id)) {
            return Err(not_its_id(id));
        }
        super::validate::id_rule(id).map_err(|message| error("id", &message))?;
        Ok(Recipe {
            id,
            ..self.recipe.clone()
        })
    }

    /// The recipe's name.
    pub fn name(&self) -> &str {
        &self.recipe.name
    }
}

/// A problem of recipe `i` of a bulk save, named `recipes[i].field` (`recipes[i]` for one
/// about the whole recipe).
pub fn in_bulk(i: usize, problem: FieldError) -> FieldError {
    FieldError {
        field: match problem.field.as_str() {
            "" => format!("recipes[{i}]"),
            f => format!("recipes[{i}].{f}"),
        },
        message: problem.message,
    }
}

fn not_its_id(id: u64) -> FieldError {
    error(
        "id",
        &format!("must be {id}, the id of the recipe being saved"),
    )
}

/// The recipe's fields without an id (the store gives it), as the API shows what an
/// editor sent beside the recipe it conflicts with.
impl Serialize for Submitted {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = &self.recipe;
        let mut out = serializer.serialize_struct("Submitted", 8)?;
        out.serialize_field("name", &r.name)?;
        out.serialize_field("base", &r.base)?;
        out.serialize_field("glass", &r.glass)?;
        out.serialize_field("method", &r.method)?;
        out.serialize_field("ice", &r.ice)?;
        out.serialize_field("ingredients", &r.ingredients)?;
        out.serialize_field("garnish", &r.garnish)?;
        out.serialize_field("notes", &r.notes)?;
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(problems: &[FieldError]) -> Vec<&str> {
        problems.iter().map(|p| p.field.as_str()).collect()
    }

    #[test]
    fn a_body_is_a_submitted_recipe_only_when_nothing_is_wrong_with_it() {
        let body = json!({"name": "Gimlet", "base": ["Gin"], "strength": {"abv": 20},
            "ingredients": [{"name": "Gin", "measure": "50", "unit": "ml", "abv": 41.2}]});
        let gimlet = Submitted::check(&body, None).expect("valid");
        assert_eq!(gimlet.name(), "Gimlet");
        let recipe = gimlet.recipe_as(6).expect("no id sent");
        assert_eq!(
            (recipe.id, recipe.ingredients[0].abv.map(|a| a.get())),
            (6, Some(41.2))
        );
        // Too many rows: that alone, before anything else is looked at.
        let rows = vec![json!({"name": ""}); caps::INGREDIENT_ROWS + 1];
        let long = json!({"name": "", "colour": 1, "ingredients": rows});
        let problems = Submitted::check(&long, None).unwrap_err();
        assert_eq!(fields(&problems), ["ingredients"]);
        // Otherwise keys in their order, then the loader's rules, then the caps.
        let bad = json!({"colour": "red", "id": 3, "name": "x".repeat(caps::NAME_CHARS + 1),
            "glass": [" "], "ingredients": [{"measure": "1"}]});
        let problems = Submitted::check(&bad, Some(4)).unwrap_err();
        assert_eq!(fields(&problems), ["colour", "id", "ingredients[0].name"]);
        assert_eq!(
            problems[1].message,
            "must be 4, the id of the recipe being saved"
        );
        let capped = json!({"name": "x".repeat(caps::NAME_CHARS + 1), "glass": [" "]});
        let problems = Submitted::check(&capped, None).unwrap_err();
        assert_eq!(fields(&problems), ["name", "glass[0]"]);
        let problems = Submitted::check(&json!([1]), None).unwrap_err();
        assert_eq!(fields(&problems), [""]);
    }

    #[test]
    fn a_row_s_substitutes_are_capped_and_kept() {
        let subs: Vec<String> = (0..=caps::SUBSTITUTES)
            .map(|i| format!("Bottle {i}"))
            .collect();
        let body =
            json!({"name": "M", "ingredients": [{"name": "Triple Sec", "substitutes": subs}]});
        let problems = Submitted::check(&body, None).unwrap_err();
        assert_eq!(fields(&problems), ["ingredients[0].substitutes"]);
        assert!(
            problems[0].message.contains("at most 8 names"),
            "{problems:?}"
        );
        let long = "x".repeat(caps::INGREDIENT_NAME_CHARS + 1);
        let body =
            json!({"name": "M", "ingredients": [{"name": "Gin", "substitutes": ["Rum", long]}]});
        let problems = Submitted::check(&body, None).unwrap_err();
        assert_eq!(fields(&problems), ["ingredients[0].substitutes[1]"]);
        let body = json!({"name": "M", "ingredients": [{"name": "Gin", "substitutes": ["Genever"], "exact": true}]});
        let recipe = Submitted::check(&body, None)
            .expect("valid")
            .recipe_as(1)
            .expect("id");
        assert_eq!(recipe.ingredients[0].substitutes, ["Genever"]);
        assert!(recipe.ingredients[0].exact);
    }

    #[test]
    fn a_new_recipe_s_id_is_checked_once_the_store_gives_it() {
        let sent = Submitted::check(&json!({"id": 7, "name": "A"}), None).expect("valid");
        assert_eq!(sent.recipe_as(7).map(|r| r.id), Ok(7));
        let refused = sent.recipe_as(8).unwrap_err();
        assert_eq!(refused.field, "id");
        assert_eq!(
            refused.message,
            "must be 8, the id of the recipe being saved"
        );
        let odd = Submitted::check(&json!({"id": "7", "name": "A"}), None).expect("valid");
        assert!(odd.recipe_as(7).is_err(), "an id that is not a number");
        let too_large = Submitted::check(&json!({"name": "A"}), None).expect("valid");
        assert_eq!(too_large.recipe_as(1 << 53).unwrap_err().field, "id");
    }

    #[test]
    fn a_bulk_save_names_each_problem_by_its_recipe() {
        let problems = Submitted::check_many(&[]).unwrap_err();
        assert_eq!(fields(&problems), ["recipes"]);
        assert_eq!(problems[0].message, "between 1 and 2000 recipes, found 0");
        let list = [json!({"name": "A"}), json!({"name": ""}), json!("B")];
        let problems = Submitted::check_many(&list).unwrap_err();
        assert_eq!(fields(&problems), ["recipes[1].name", "recipes[2]"]);
        let two = Submitted::check_many(&list[..1]).expect("valid");
        assert_eq!(two.len(), 1);
    }

    #[test]
    fn it_shows_as_the_recipe_s_fields_without_an_id() {
        let sent = Submitted::check(&json!({"id": 3, "name": "A", "notes": "n"}), Some(3));
        let shown = serde_json::to_value(sent.expect("valid")).expect("JSON");
        assert_eq!(
            shown,
            json!({"name": "A", "base": [], "glass": [], "method": [], "ice": [],
                "ingredients": [], "garnish": [], "notes": "n"})
        );
    }
}
