//! The plain-HTML side of importing, which works without JavaScript: `/recipes/import`
//! takes a link (or a page's source, or JSON-LD) and opens the ordinary recipe form filled
//! with what was read, each guess marked; nothing is saved until Save, which is the form's
//! own save. When what was read holds several recipes, a list to choose from, whose chosen
//! recipes `/recipes/import/save` adds as one change (one Undo in Recent changes). A file
//! is read by `static/js/import.js` through `POST /api/import` into the same list.

use super::edit_pages::{FormState, checked_form, personal_page, render};
use super::import::{Asked, preview};
use crate::error::WebError;
use crate::guard::limits::{self, RequestLimits};
use crate::recipes::Submitted;
use crate::site::Site;
use crate::store::{Edit, FieldError};
use crate::view::form::{Fields, field};
use crate::view::templates::{ImportChoice, ImportPage};
use crate::who::change::change;
use crate::who::editing::Editing;
use crate::who::visitor::Visitor;
use crate::who::write::{Edits, Write};
use axum::Form;
use axum::body::Body;
use axum::extract::rejection::{FormRejection, QueryRejection};
use axum::extract::{FromRequest, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::Value;
use std::sync::Arc;

/// What a phone's share sheet sends (the manifest's `share_target`): a page's address,
/// and a text that often holds the address instead (Android), and a title.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct Shared {
    url: Option<String>,
    text: Option<String>,
}

impl Shared {
    /// The link to read: the shared address, else the first web address in the shared
    /// text, else the text itself; at most [`SHARED_CHARS`] characters.
    fn source(&self) -> String {
        let is_web = |s: &str| {
            let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
            lower.starts_with("http://") || lower.starts_with("https://")
        };
        let url = self.url.as_deref().map(str::trim).filter(|u| is_web(u));
        let text = self.text.as_deref().unwrap_or_default();
        let in_text = text.split_whitespace().find(|w| is_web(w));
        let chosen = url.or(in_text).unwrap_or(text.trim());
        chosen.chars().take(SHARED_CHARS).collect()
    }
}

/// The longest shared text put in the form: a link, or a few lines around one.
const SHARED_CHARS: usize = 4096;

/// `GET /recipes/import`, and what a phone shares into the app
/// (`?url=…&text=…&title=…`), which fills the link field to read: reading it is a
/// write (the editor presses the button), never done by a GET.
pub(crate) async fn page(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    visitor: Visitor,
    shared: Result<Query<Shared>, QueryRejection>,
) -> Result<Response, WebError> {
    let editor = editing.editor(&visitor)?;
    let mut page = blank(&site, editor.token);
    if let Ok(Query(shared)) = shared {
        page.source = shared.source();
    }
    show(page, StatusCode::OK)
}

/// `POST /recipes/import`: reads the pasted link or text; one recipe opens the form, more
/// the list to choose from.
pub(crate) async fn read(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    State(limits): State<RequestLimits>,
    Write(editor, _): Write<Edits>,
    request: Request,
) -> Result<Response, WebError> {
    let (_held, form) = form_body(&limits, request).await?;
    let fields = checked_form(&editor, form)?;
    let source = field(&fields, "source").trim().to_owned();
    let lower = source.get(..8).unwrap_or(&source).to_ascii_lowercase();
    let asked = if lower.starts_with("http://") || lower.starts_with("https://") {
        Asked::Url(source.clone())
    } else if source.starts_with('<') {
        Asked::Html(source.clone())
    } else {
        Asked::JsonLd(source.clone())
    };
    let answer = match preview(&editing, site.recipes().clone(), asked).await {
        Ok(answer) => answer,
        Err(WebError::Invalid(problems)) => {
            let page = ImportPage {
                source,
                problems,
                ..blank(&site, editor.token)
            };
            return show(page, StatusCode::UNPROCESSABLE_ENTITY);
        }
        Err(e) => return Err(e),
    };
    let recipes = answer["recipes"].as_array().cloned().unwrap_or_default();
    if let [recipe] = recipes.as_slice() {
        let guesses = problems_of(&answer, 0)
            .into_iter()
            .map(|(field, message)| FieldError { field, message })
            .collect();
        let state = FormState::imported(&editor, recipe, guesses);
        return render(&site, state, StatusCode::OK);
    }
    let page = choices(&site, editor.token, &answer, &recipes);
    show(page, StatusCode::OK)
}

/// `POST /recipes/import/save`: the chosen recipes (`pick`, indices into `recipes`), as
/// one change; then Recent changes, with its Undo.
pub(crate) async fn save(
    State(site): State<Arc<Site>>,
    State(editing): State<Arc<Editing>>,
    State(limits): State<RequestLimits>,
    Write(editor, _): Write<Edits>,
    request: Request,
) -> Result<Response, WebError> {
    let (_held, form) = form_body(&limits, request).await?;
    let fields = checked_form(&editor, form)?;
    let all: Vec<Value> = serde_json::from_str(field(&fields, "recipes")).map_err(|_| {
        WebError::BadRequest("The form did not send the recipes it read; read them again.".into())
    })?;
    let mut picks: Vec<usize> = fields
        .iter()
        .filter(|(k, _)| k == "pick")
        .filter_map(|(_, v)| v.parse().ok())
        .filter(|i| *i < all.len())
        .collect();
    picks.sort_unstable();
    picks.dedup();
    let again = |problems: Vec<FieldError>| {
        let answer = serde_json::json!({ "recipes": all, "problems": [], "duplicates": [] });
        let page = ImportPage {
            problems,
            ..choices(&site, editor.token.clone(), &answer, &all)
        };
        show(page, StatusCode::UNPROCESSABLE_ENTITY)
    };
    if picks.is_empty() {
        return again(vec![FieldError {
            field: String::new(),
            message: "Choose at least one recipe to add; nothing was saved.".into(),
        }]);
    }
    let drafts: Vec<Value> = picks.iter().map(|i| all[*i].clone()).collect();
    let saved = match Submitted::check_many(&drafts) {
        Ok(checked) => change(&editing, &editor, Edit::CreateMany(checked)).await,
        Err(problems) => Err(WebError::Invalid(problems)),
    };
    match saved {
        Ok(saved) => {
            let n = saved.entry.map(|e| e.n.to_string()).unwrap_or_default();
            Ok(Redirect::to(&format!("/changes?done={n}")).into_response())
        }
        Err(WebError::Invalid(problems)) => again(named(problems, &drafts)),
        Err(e) => Err(e),
    }
}

/// The form, read once the write was admitted (`Write<Edits>`: its token is checked
/// after, with the fields); with the budget its body holds.
async fn form_body(
    limits: &RequestLimits,
    request: Request,
) -> Result<(limits::Read, Result<Form<Fields>, FormRejection>), WebError> {
    let (parts, body) = request.into_parts();
    let read = limits::read(limits, Request::from_parts(parts.clone(), body)).await?;
    let request = Request::from_parts(parts, Body::from(read.bytes.clone()));
    let form = Form::<Fields>::from_request(request, &()).await;
    Ok((read, form))
}

fn blank(site: &Site, csrf: String) -> ImportPage<'_> {
    ImportPage {
        chrome: site.chrome(""),
        csrf,
        source: String::new(),
        problems: Vec::new(),
        choices: Vec::new(),
        shared: Vec::new(),
        recipes_json: String::new(),
    }
}

fn show(page: ImportPage<'_>, status: StatusCode) -> Result<Response, WebError> {
    let html = crate::site::render("import page", &page)?;
    Ok(personal_page(html, status))
}

/// The list to choose from: each recipe with its problems and whether it is here already.
fn choices<'a>(site: &'a Site, csrf: String, answer: &Value, recipes: &[Value]) -> ImportPage<'a> {
    let duplicate_of = |i: usize| {
        answer["duplicates"].as_array().and_then(|list| {
            list.iter()
                .find(|d| d["recipe"].as_u64() == Some(i as u64))
                .and_then(|d| d["existing_id"].as_u64())
        })
    };
    let notes = (0..recipes.len())
        .map(|index| {
            problems_of(answer, index)
                .into_iter()
                .map(|(f, m)| {
                    if f.is_empty() || m.starts_with(&f) {
                        m
                    } else {
                        format!("{f}: {m}")
                    }
                })
                .collect()
        })
        .collect();
    let (shared, notes) = split_notes(notes);
    let choices = recipes
        .iter()
        .zip(notes)
        .enumerate()
        .map(|(index, (r, notes))| ImportChoice {
            index,
            name: r["name"].as_str().unwrap_or("(no name)").to_owned(),
            summary: summary(r),
            notes,
            duplicate_of: duplicate_of(index),
        })
        .collect();
    ImportPage {
        choices,
        shared,
        recipes_json: Value::from(recipes.to_vec()).to_string(),
        ..blank(site, csrf)
    }
}

/// The notes said of two or more recipes, once each with how many ("base guessed from the
/// ingredients (every recipe)"), and each recipe's notes said of it alone; as
/// `static/js/import.js`'s `splitNotes`, so that sixteen rows of one guess read as one line.
fn split_notes(each: Vec<Vec<String>>) -> (Vec<String>, Vec<Vec<String>>) {
    let total = each.len();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for notes in &each {
        for (i, n) in notes.iter().enumerate() {
            if notes[..i].contains(n) {
                continue;
            }
            match counts.iter_mut().find(|(t, _)| t == n) {
                Some((_, c)) => *c += 1,
                None => counts.push((n.clone(), 1)),
            }
        }
    }
    counts.retain(|(_, c)| *c > 1);
    let own = each
        .into_iter()
        .map(|notes| {
            notes
                .into_iter()
                .filter(|n| !counts.iter().any(|(t, _)| t == n))
                .collect()
        })
        .collect();
    let lines = counts
        .into_iter()
        .map(|(t, c)| {
            if c == total {
                format!("{t} (every recipe)")
            } else {
                format!("{t} ({c} of {total} recipes)")
            }
        })
        .collect();
    (lines, own)
}

/// The ingredients in a line: `50 ml Gin, 20 ml Lime Juice`.
fn summary(recipe: &Value) -> String {
    recipe["ingredients"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    ["measure", "unit", "name"]
                        .iter()
                        .filter_map(|k| r[*k].as_str().filter(|s| !s.is_empty()))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The problems and guesses of recipe `index`, as `(field, message)`.
fn problems_of(answer: &Value, index: usize) -> Vec<(String, String)> {
    answer["problems"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter(|p| p["recipe"].as_u64() == Some(index as u64))
                .map(|p| {
                    (
                        p["field"].as_str().unwrap_or_default().to_owned(),
                        p["message"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `recipes[i].field` named by the chosen recipe's name.
fn named(problems: Vec<FieldError>, drafts: &[Value]) -> Vec<FieldError> {
    problems
        .into_iter()
        .map(|p| {
            let field = p
                .field
                .strip_prefix("recipes[")
                .and_then(|rest| rest.split_once(']'))
                .and_then(|(i, rest)| {
                    let name = drafts.get(i.parse::<usize>().ok()?)?["name"].as_str()?;
                    Some(format!("{name}{rest}"))
                })
                .unwrap_or(p.field);
            FieldError {
                field,
                message: p.message,
            }
        })
        .collect()
}
