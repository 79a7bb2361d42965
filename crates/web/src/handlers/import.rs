//! Importing and exporting recipes: `POST /api/import` reads recipes from a link, a page's
//! source, JSON-LD or a file and answers what it found (nothing is saved: the editor
//! chooses, then saves through `POST /api/recipes` or `/api/recipes/bulk`);
//! `?format=jsonld|markdown|bar-assistant` on a recipe or the whole download exports.
//!
//! The formats themselves are [`crate::import`]'s; fetching a link is [`crate::fetch`]'s.
//! An import is an editor's, and is admitted as a change is (`Write<Edits>`: permission,
//! origin, rate) before anything is fetched or read.

use crate::error::{Api, WebError};
use crate::fetch::FetchError;
use crate::guard::limits::{self, RequestLimits};
use crate::http::cache_control;
use crate::import::{self, Format, ImportError, Preview, Selection, Source, Stop};
use crate::recipes::Recipes;
use crate::site::Site;
use crate::store::FieldError;
use crate::who::editing::Editing;
use crate::who::write::{Edits, Write};
use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The longest one import may read for (a page is read in time linear in its length, so
/// only a machine far too busy reaches it); the refusal names it.
const READ_LIMIT: Duration = Duration::from_secs(10);

/// What an import was asked to read.
pub(crate) enum Asked {
    Url(String),
    Html(String),
    JsonLd(String),
    File { kind: FileKind, bytes: Vec<u8> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Json,
    Zip,
    Html,
    Markdown,
}

/// The request body as an import: `{"url"}`, `{"html"}`, `{"jsonld"}`, or a file by its
/// content type.
pub(crate) fn asked(headers: &HeaderMap, body: &[u8]) -> Result<Asked, WebError> {
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let essence = kind
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "application/json" => {
            let value: Value = serde_json::from_slice(body)
                .map_err(|e| invalid("", &format!("the body is not JSON: {e}")))?;
            let one = |key: &str| {
                value
                    .as_object()
                    .filter(|o| o.len() == 1)
                    .and_then(|o| o.get(key))
            };
            if let Some(url) = one("url") {
                let url = url
                    .as_str()
                    .ok_or_else(|| invalid("url", "must be a text"))?;
                return Ok(Asked::Url(url.to_owned()));
            }
            if let Some(html) = one("html") {
                let html = html
                    .as_str()
                    .ok_or_else(|| invalid("html", "must be a text"))?;
                return Ok(Asked::Html(html.to_owned()));
            }
            if let Some(jsonld) = one("jsonld") {
                let text = match jsonld {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                return Ok(Asked::JsonLd(text));
            }
            Ok(Asked::File {
                kind: FileKind::Json,
                bytes: body.to_vec(),
            })
        }
        "application/ld+json" => Ok(Asked::JsonLd(String::from_utf8_lossy(body).into_owned())),
        "application/zip" | "application/x-zip-compressed" => Ok(Asked::File {
            kind: FileKind::Zip,
            bytes: body.to_vec(),
        }),
        "text/html" | "application/xhtml+xml" => Ok(Asked::File {
            kind: FileKind::Html,
            bytes: body.to_vec(),
        }),
        "text/markdown" => Ok(Asked::File {
            kind: FileKind::Markdown,
            bytes: body.to_vec(),
        }),
        _ => Err(WebError::UnsupportedMediaType(
            "Send what to import as JSON ({\"url\"}, {\"html\"}, {\"jsonld\"} or a collection), \
             JSON-LD, a zip, HTML or Markdown, with its Content-Type."
                .into(),
        )),
    }
}

/// `POST /api/import`: what the body (or the page it links to) holds, as our recipes,
/// with problems and duplicates; nothing saved.
pub(crate) async fn api_import(
    State(editing): State<Arc<Editing>>,
    State(site): State<Arc<Site>>,
    State(limits): State<RequestLimits>,
    _: Write<Edits>,
    request: Request,
) -> Result<Response, Api<WebError>> {
    let headers = request.headers().clone();
    let body = limits::read(&limits, request)
        .await
        .map_err(WebError::from)?;
    let asked = asked(&headers, &body.bytes)?;
    let answer = preview(&editing, site.recipes().clone(), asked).await?;
    let mut response = Json(answer).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, cache_control::private_no_store());
    Ok(response)
}

/// Reads what was asked, fetching a link first; the answer as `POST /api/import` gives it.
/// The caller has admitted the editor (`Write<Edits>`).
pub(crate) async fn preview(
    editing: &Editing,
    recipes: Recipes,
    asked: Asked,
) -> Result<Value, WebError> {
    let (asked, source_url) = match asked {
        Asked::Url(url) => {
            let page = editing
                .fetcher()
                .fetch(&url)
                .await
                .map_err(|e| fetch_refused(&e))?;
            let text = String::from_utf8_lossy(&page.body).into_owned();
            let asked = if page.content_type.contains("json") {
                Asked::JsonLd(text)
            } else {
                Asked::Html(text)
            };
            (asked, Some(page.url))
        }
        other => (other, None),
    };
    let url = source_url.clone();
    let stop = Stop::after(READ_LIMIT);
    // Dropped with this future when the client hangs up: the reading stops too.
    let _hangup = stop.hangup();
    let read = tokio::task::spawn_blocking(move || {
        let preview = read(&asked, url.as_deref(), &stop)?;
        let duplicates = import::duplicates(&preview, &recipes);
        Ok::<_, ImportError>((preview, duplicates))
    })
    .await
    .map_err(WebError::Task)?;
    let (preview, duplicates) =
        read.map_err(|e| invalid(field_of_source(source_url.as_deref()), &e.to_string()))?;
    // The recipes as `POST /api/recipes` takes them; what was guessed is in `problems`.
    let recipes: Vec<Value> = preview
        .recipes
        .iter()
        .map(|r| match serde_json::to_value(r) {
            Ok(Value::Object(mut o)) => match o.remove("recipe") {
                Some(recipe @ Value::Object(_)) => recipe,
                _ => Value::Object(o),
            },
            _ => Value::Null,
        })
        .collect();
    let mut answer = json!({
        "recipes": recipes,
        "problems": preview.problems,
        "duplicates": duplicates,
    });
    if let Some(url) = source_url {
        answer["source"] = Value::from(url);
    }
    Ok(answer)
}

/// What was asked, read until `stop`; a page fetched from `url` gets `Source: <url>` in
/// its notes.
fn read(asked: &Asked, url: Option<&str>, stop: &Stop) -> Result<Preview, ImportError> {
    let source = match asked {
        Asked::Html(html) => Source::Html(html),
        Asked::JsonLd(text) => Source::JsonLd(text),
        Asked::File { kind, bytes } => match kind {
            FileKind::Json => Source::Json(bytes),
            FileKind::Zip => Source::Zip(bytes),
            FileKind::Html => {
                let html = String::from_utf8_lossy(bytes);
                return import::read_until(Source::Html(&html), url, stop);
            }
            FileKind::Markdown => {
                return import::read_from(Source::Markdown(&String::from_utf8_lossy(bytes)), url);
            }
        },
        Asked::Url(_) => Source::Html(""),
    };
    import::read_until(source, url, stop)
}

fn field_of_source(url: Option<&str>) -> &'static str {
    match url {
        Some(_) => "url",
        None => "body",
    }
}

/// A fetch refused or failed: a 422 naming `url`, with the rule or the reason.
fn fetch_refused(e: &FetchError) -> WebError {
    invalid("url", &e.to_string())
}

fn invalid(field: &str, message: &str) -> WebError {
    WebError::Invalid(vec![FieldError {
        field: field.to_owned(),
        message: message.to_owned(),
    }])
}

/// The export format a `?format=` names; `None` without one (the app's own JSON).
pub(crate) fn format(query: Option<&str>) -> Result<Option<Format>, WebError> {
    let Some(query) = query else {
        return Ok(None);
    };
    let asked = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == "format")
        .map(|(_, v)| v);
    match asked {
        None | Some("" | "json" | "libations") => Ok(None),
        Some(name) => Format::from_name(name).map(Some).ok_or_else(|| {
            WebError::BadRequest(format!(
                "format must be jsonld, markdown or bar-assistant, not {}",
                name.chars().take(40).collect::<String>()
            ))
        }),
    }
}

/// An export as a response: `attachment` named `recipes.<ext>` for the whole collection.
pub(crate) fn export_response(
    selection: Selection<'_>,
    format: Format,
) -> Result<Response, WebError> {
    let download = matches!(selection, Selection::All(_));
    let (kind, bytes) = import::export(selection, format).map_err(|e| {
        tracing::error!(error = %e, "an export failed");
        WebError::BadRequest(format!(
            "The recipes could not be written in that format: {e}"
        ))
    })?;
    let ext = match format {
        Format::JsonLd => "jsonld",
        Format::Markdown => "md",
        Format::BarAssistant => "bar-assistant.json",
    };
    let mut response = ([(header::CONTENT_TYPE, kind)], bytes).into_response();
    if download
        && let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"recipes.{ext}\""))
    {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, cache_control::private_no_store());
    Ok(response)
}
