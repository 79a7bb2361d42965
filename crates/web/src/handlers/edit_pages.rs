//! The plain-HTML side of editing, which works without JavaScript: the recipe form (new
//! and edit), delete, the history of changes with undo. Forms post back here; a problem
//! re-renders the form with each message next to its field and everything typed kept, a
//! conflict shows the other version beside yours. `static/js/edit.js` makes the same form
//! better in place, through the JSON API.

use super::params::{ChangeNumber, RecipeId};
use crate::error::WebError;
use crate::http::cache_control;
use crate::recipes::{IngredientLine, Recipe};
use crate::site::Site;
use crate::store::{Action, Duplicate, Edit, Entry, FieldError, Names, Saved, journal, version};
use crate::view::form::{self, CAPS, Fields, FormRecipe, field};
use crate::view::story::ChangeView;
use crate::view::templates::{ChangesPage, ConflictView, EditPage, ListField};
use crate::who::change::{change, change_as, store_call};
use crate::who::editing::{self, Editing, Editor};
use crate::who::visitor::Visitor;
use crate::who::write::{Edits, Write};
use axum::Form;
use axum::extract::rejection::{FormRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use compact_str::CompactString;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// `GET /recipes/new`.
pub(crate) async fn new_form(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
) -> Result<Response, WebError> {
    let editor = editing.editor(&visitor)?;
    let form = FormState::blank(&editor);
    render(&site, form, StatusCode::OK)
}

/// `GET /recipes/{id}/edit`.
pub(crate) async fn edit_form(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
    RecipeId(id): RecipeId,
) -> Result<Response, WebError> {
    let editor = editing.editor(&visitor)?;
    let recipe = site
        .recipes()
        .get(id)
        .ok_or_else(|| WebError::NotFound(format!("There is no recipe {id}.")))?;
    let form = FormState::of(&editor, recipe);
    render(&site, form, StatusCode::OK)
}

/// `POST /recipes/new`: saves, or does what a row button asked, or shows the problems.
pub(crate) async fn create(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    Write(editor, _): Write<Edits>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    submit(&site, &editing, &editor, form, None).await
}

/// `POST /recipes/{id}/edit`.
pub(crate) async fn update(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    RecipeId(id): RecipeId,
    Write(editor, _): Write<Edits>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    submit(&site, &editing, &editor, form, Some(id)).await
}

/// `POST /recipes/{id}/delete`: deletes, then shows the history with its undo.
pub(crate) async fn delete(
    State(editing): State<Arc<Editing>>,
    RecipeId(id): RecipeId,
    Write(editor, _): Write<Edits>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    let fields = checked_form(&editor, form)?;
    once_each(&fields)?;
    let expected = field(&fields, "version").to_owned();
    let saved = change(&editing, &editor, Edit::Delete { id, expected }).await?;
    Ok(done(&saved))
}

/// `POST /changes/{n}/undo`.
pub(crate) async fn undo(
    State(editing): State<Arc<Editing>>,
    ChangeNumber(n): ChangeNumber,
    Write(editor, _): Write<Edits>,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Response, WebError> {
    let fields = checked_form(&editor, form)?;
    once_each(&fields)?;
    let saved = change(&editing, &editor, Edit::Undo(n)).await?;
    Ok(done(&saved))
}

#[derive(Debug, Deserialize)]
pub(crate) struct ChangesParams {
    done: Option<u64>,
}

/// `GET /changes`: the history, newest first, with undo buttons for editors.
pub(crate) async fn changes(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
    params: Result<Query<ChangesParams>, QueryRejection>,
) -> Result<Response, WebError> {
    let refusal = editing.editor(&visitor);
    let why_not = refusal.as_ref().err().map(ToString::to_string);
    let editor = refusal.ok();
    let entries = editing.store().map(|s| s.changes()).unwrap_or_default();
    let done = params.ok().and_then(|Query(p)| p.done);
    let message = done
        .and_then(|n| entries.iter().find(|e| e.n == n))
        .map(|e| {
            format!(
                "Done: {} {}. Undo it below if that was a mistake.",
                verb(e).to_lowercase(),
                e.name
            )
        });
    let moved_on = match editing.store() {
        Some(store) => {
            let (store, entries) = (store.clone(), entries.clone());
            store_call(store, move |s| s.moved_on(&entries)).await?
        }
        None => Default::default(),
    };
    let undone_by: HashMap<u64, u64> = entries
        .iter()
        .filter_map(|l| l.undoes.map(|n| (n, l.n)))
        .collect();
    let views: Vec<ChangeView> = entries
        .iter()
        .map(|e| {
            let mut view = ChangeView::new(e, site.recipes().get(e.id).is_some(), verb(e));
            view.no_undo = why_no_undo(e, &entries, &undone_by, &moved_on);
            view
        })
        .collect();
    let page = ChangesPage {
        chrome: site.chrome(""),
        message,
        changes: views,
        can_edit: editor.is_some(),
        why_not,
        csrf: editor.map(|e| e.token).unwrap_or_default(),
        keep: journal::KEEP,
        restarted: editing
            .store()
            .and_then(|s| s.history_restarted())
            .and_then(|m| m.restarted),
    };
    let html = crate::site::render("history page", &page)?;
    Ok(personal_page(html, StatusCode::OK))
}

/// Why the history offers no Undo for `e`: a later change undid it (`undone_by`), or a
/// recipe of it is no longer as it left it (the undo would be refused, so it is not
/// offered); then which later change touched it, looked for only in that case.
fn why_no_undo(
    e: &Entry,
    all: &[Entry],
    undone_by: &HashMap<u64, u64>,
    moved_on: &HashSet<u64>,
) -> Option<String> {
    if let Some(later) = undone_by.get(&e.n) {
        return Some(format!("Undone by change {later}."));
    }
    if !moved_on.contains(&e.n) {
        return None;
    }
    let touches = |l: &Entry| {
        l.parts()
            .any(|(id, _, _)| e.parts().any(|(mine, _, _)| mine == id))
    };
    let since = all
        .iter()
        .filter(|l| l.n > e.n && touches(l))
        .map(|l| l.n)
        .min();
    Some(match since {
        Some(n) => format!("Changed again since (change {n}): undo that first."),
        None => "The recipe was changed since, outside the app.".to_owned(),
    })
}

/// What a change is called in the history.
fn verb(e: &Entry) -> &'static str {
    match (e.action, e.undoes.is_some()) {
        (Action::Created, false) => "Added",
        (Action::Changed, false) => "Changed",
        (Action::Deleted, false) => "Deleted",
        (Action::Created, true) => "Restored",
        (Action::Changed, true) => "Changed back",
        (Action::Deleted, true) => "Removed again",
    }
}

/// After a delete or an undo: to the history, which says what was done.
fn done(saved: &Saved) -> Response {
    match &saved.entry {
        Some(e) => Redirect::to(&format!("/changes?done={}", e.n)).into_response(),
        None => Redirect::to("/changes").into_response(),
    }
}

/// The form's fields, after checking its token: the one its page gave this editor (who
/// was admitted already, `Write<Edits>`).
pub(crate) fn checked_form(
    editor: &Editor,
    form: Result<Form<Fields>, FormRejection>,
) -> Result<Fields, WebError> {
    let Form(fields) =
        form.map_err(|e| WebError::BadRequest(format!("The form could not be read: {e}")))?;
    editing::check_token(editor, field(&fields, "csrf"))?;
    Ok(fields)
}

/// Refuses a delete or undo form with a field twice: which one was meant is not known.
fn once_each(fields: &Fields) -> Result<(), WebError> {
    match form::repeated(fields) {
        Some(name) => Err(WebError::FormRefused(format!(
            "The form sent \u{201c}{name}\u{201d} more than once; nothing was changed."
        ))),
        None => Ok(()),
    }
}

async fn submit(
    site: &Site,
    editing: &Arc<Editing>,
    editor: &Editor,
    form: Result<Form<Fields>, FormRejection>,
    id: Option<u64>,
) -> Result<Response, WebError> {
    let fields = checked_form(editor, form)?;
    if let Some(why) =
        form::too_many_rows(form::rows_sent(&fields)).or_else(|| form::too_many_values(&fields))
    {
        return Err(WebError::FormRefused(why));
    }
    let mut state = FormState::posted(editor, &fields, id);
    if let Some(name) = form::repeated(&fields) {
        state.problems.push(FieldError {
            field: name.to_owned(),
            message: "was sent more than once, and the form sends it once; nothing was saved"
                .into(),
        });
        return render(site, state, StatusCode::UNPROCESSABLE_ENTITY);
    }
    let op = field(&fields, "op");
    if op != "save" && !op.is_empty() {
        // A row button re-renders the whole page: it counts as a write (the guard took
        // it), so that posting row buttons in a loop is held to the same pace as saving.
        state.problems.extend(state.draft.apply(op));
        return render(site, state, StatusCode::OK);
    }
    // Checked before the version: a stale form with a problem shows the problem first.
    let edit = state.draft.submitted(id).map(|draft| match id {
        None => Edit::Create(draft),
        Some(id) => Edit::Update {
            id,
            expected: state.version.clone(),
            draft,
        },
    });
    // Ticked after a save was refused as a second recipe of a name: the editor wants it.
    let names = match field(&fields, "duplicate") {
        "1" => Names::MayRepeat,
        _ => Names::Unique,
    };
    let saved = match edit {
        Ok(edit) => change_as(editing, editor, edit, names).await,
        Err(problems) => Err(WebError::Invalid(problems)),
    };
    match saved {
        Ok(saved) => {
            let n = saved
                .entry
                .as_ref()
                .map_or(String::new(), |e| e.n.to_string());
            let target = saved
                .entry
                .as_ref()
                .map(|e| e.id)
                .or(id)
                .unwrap_or_default();
            Ok(Redirect::to(&format!("/recipes/{target}?saved={n}")).into_response())
        }
        Err(WebError::Invalid(problems)) => {
            state.draft.mark(&problems);
            state.problems = problems;
            render(site, state, StatusCode::UNPROCESSABLE_ENTITY)
        }
        Err(WebError::Conflict(c)) => {
            // The form now carries the current version: saving again puts this over it.
            // If the recipe was deleted meanwhile, saving again adds it as a new one.
            state.version = c.current_version.clone().unwrap_or_default();
            if c.current.is_none() {
                state.id = None;
            }
            state.conflict = Some(ConflictView {
                id: c.id,
                current: c.current.clone(),
            });
            render(site, state, StatusCode::CONFLICT)
        }
        Err(WebError::Duplicate(found)) => {
            state.duplicate = found.into_iter().next();
            render(site, state, StatusCode::CONFLICT)
        }
        Err(other) => Err(other),
    }
}

/// Everything the form page shows, whatever brought it up.
pub(crate) struct FormState {
    pub(crate) id: Option<u64>,
    pub(crate) version: String,
    pub(crate) csrf: String,
    pub(crate) draft: FormRecipe,
    pub(crate) problems: Vec<FieldError>,
    pub(crate) conflict: Option<ConflictView>,
    /// The recipe that already has the name this one was saved with.
    pub(crate) duplicate: Option<Duplicate>,
    /// What an import guessed (`/recipes/import`), to check before saving.
    pub(crate) guesses: Vec<FieldError>,
}

impl FormState {
    pub(crate) fn blank(editor: &Editor) -> FormState {
        FormState {
            id: None,
            version: String::new(),
            csrf: editor.token.clone(),
            draft: FormRecipe::default(),
            problems: Vec::new(),
            conflict: None,
            duplicate: None,
            guesses: Vec::new(),
        }
    }

    /// A new recipe's form filled with what an import read, its guesses marked.
    pub(crate) fn imported(
        editor: &Editor,
        recipe: &serde_json::Value,
        guesses: Vec<FieldError>,
    ) -> FormState {
        FormState {
            draft: FormRecipe::from_json(recipe),
            guesses,
            ..FormState::blank(editor)
        }
    }

    fn of(editor: &Editor, recipe: &Recipe) -> FormState {
        FormState {
            id: Some(recipe.id),
            version: version(recipe),
            draft: FormRecipe::of(recipe),
            ..FormState::blank(editor)
        }
    }

    fn posted(editor: &Editor, fields: &Fields, id: Option<u64>) -> FormState {
        FormState {
            id,
            version: field(fields, "version").to_owned(),
            draft: FormRecipe::posted(fields),
            ..FormState::blank(editor)
        }
    }
}

/// Renders the form page for `state`, with suggestions from the collection.
pub(crate) fn render(
    site: &Site,
    mut state: FormState,
    status: StatusCode,
) -> Result<Response, WebError> {
    state.draft.pad_rows();
    let values = Suggestions::from(site);
    let lists = form::LISTS
        .into_iter()
        .map(|(f, _)| {
            let suggestions = values.lists.get(f).cloned().unwrap_or_default();
            ListField {
                field: f,
                label: label(f),
                one: matches!(f, "glass" | "method" | "ice"),
                inputs: state.draft.inputs(f),
                hints: suggestions.iter().take(HINTS).cloned().collect(),
                suggestions,
            }
        })
        .collect();
    let title = match (state.id, &state.draft.name) {
        (None, name) if !state.guesses.is_empty() && !name.is_empty() => format!("Add {name}"),
        (None, _) => "New recipe".to_owned(),
        (Some(_), name) if !name.is_empty() => format!("Edit {name}"),
        (Some(id), _) => format!("Edit recipe {id}"),
    };
    let action = match state.id {
        Some(id) => format!("/recipes/{id}/edit"),
        None => "/recipes/new".to_owned(),
    };
    let page = EditPage {
        chrome: site
            .chrome("")
            .at(if state.id.is_none() { "new" } else { "" }),
        title,
        action,
        id: state.id,
        version: state.version,
        csrf: state.csrf,
        lists,
        problems: state.problems,
        conflict: state.conflict,
        duplicate: state.duplicate,
        caps: CAPS,
        units: values.units,
        ingredient_names: values.ingredients,
        draft: state.draft,
        guesses: state.guesses,
    };
    let html = crate::site::render("recipe form", &page)?;
    Ok(personal_page(html, status))
}

/// How many of a list's most used values are shown under it as "Used here:" (buttons to
/// tap, with JavaScript); its datalist offers more.
const HINTS: usize = 6;

fn label(field: &str) -> &'static str {
    match field {
        "base" => "Base",
        "glass" => "Glass",
        "method" => "Method",
        "ice" => "Ice",
        _ => "Garnish",
    }
}

/// Values the collection already uses, most used first: what to type is usually one of them.
struct Suggestions {
    lists: BTreeMap<&'static str, Vec<String>>,
    units: Vec<String>,
    ingredients: Vec<String>,
}

impl Suggestions {
    fn from(site: &Site) -> Suggestions {
        let recipes = site.recipes().all();
        let mut lists = BTreeMap::new();
        for (field, pick) in [
            (
                "base",
                (|r: &Recipe| &r.base) as fn(&Recipe) -> &Vec<CompactString>,
            ),
            ("glass", |r| &r.glass),
            ("method", |r| &r.method),
            ("ice", |r| &r.ice),
            ("garnish", |r| &r.garnish),
        ] {
            lists.insert(
                field,
                most_used(
                    recipes
                        .iter()
                        .flat_map(|r| pick(r).iter().map(CompactString::as_str)),
                    12,
                ),
            );
        }
        let lines = || recipes.iter().flat_map(|r| r.ingredients.iter());
        Suggestions {
            lists,
            units: with_common_units(most_used(
                lines().map(|i: &IngredientLine| i.unit.as_str()),
                30,
            )),
            ingredients: most_used(lines().map(|i| i.name.as_str()), 400),
        }
    }
}

/// The units a bar measures in, offered after the collection's own (which come first,
/// most used first): a collection in ml still offers oz and cl to type a recipe read
/// elsewhere.
const COMMON_UNITS: [&str; 10] = [
    "ml", "oz", "cl", "dash", "barspoon", "tsp", "tbsp", "drop", "splash", "top up",
];

fn with_common_units(mut units: Vec<String>) -> Vec<String> {
    for unit in COMMON_UNITS {
        if !units.iter().any(|u| u.eq_ignore_ascii_case(unit)) {
            units.push(unit.to_owned());
        }
    }
    units
}

fn most_used<'a>(values: impl Iterator<Item = &'a str>, keep: usize) -> Vec<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values.filter(|v| !v.trim().is_empty()) {
        *counts.entry(v).or_default() += 1;
    }
    let mut ranked: Vec<(&str, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    ranked
        .into_iter()
        .take(keep)
        .map(|(v, _)| v.to_owned())
        .collect()
}

/// A page for one person: never cached by anyone else.
pub(crate) fn personal_page(html: String, status: StatusCode) -> Response {
    (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, cache_control::private_no_store()),
        ],
        html,
    )
        .into_response()
}
