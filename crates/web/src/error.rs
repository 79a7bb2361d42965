//! What went wrong with a request: one error type that is the response.
//!
//! Handlers return `Result<_, WebError>` and use `?`. A [`WebError`] answers as an HTML
//! page; an API handler wraps it in [`Api`] (as its error, or around an extractor) and it
//! answers as JSON, `{"error": "…"}`, with `problems` or `conflict` where it has them.
//!
//! Everything under `/api/` answers JSON, whoever refuses the request: a handler (through
//! [`Api`]), the router's fallbacks (an unknown address, a method the route does not take),
//! an extractor, or the request guard ([`super::guard::limits::json_error`]). A client of
//! the API, the app's own JavaScript included, then reads every refusal the same way, and
//! never meets a page of HTML or a Rust type name.
//!
//! The page needs the site's header and footer, which a response cannot reach: the error
//! leaves its title and message on the response and [`render_page`], a layer around every
//! route, renders them into the page (or, under `/api/`, into the JSON). Server errors (500)
//! tell the visitor nothing of their cause; the cause goes to the log.

use super::guard::gate::GateError;
use super::guard::limits::{BodyError, is_api};
use super::http::cache_control;
use super::site::{Site, SiteError};
use crate::store::{Conflict, Duplicate, FieldError, StoreError};
use arc_swap::ArcSwap;
use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::path::Path;
use std::sync::Arc;

/// What went wrong with a request, mapped to a status code, a title and a message.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WebError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    /// A method the route does not take; the message says which it takes (as `Allow`
    /// does, which the router sets on every 405).
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("The server is busy with other searches. Try again in a moment.")]
    Busy,
    #[error(transparent)]
    Site(#[from] SiteError),
    #[error("encoding a recipe as JSON failed: {0}")]
    Json(#[from] serde_json::Error),
    #[error("a search task failed: {0}")]
    Task(tokio::task::JoinError),
    /// Not allowed to do this; the message says why (and what would allow it).
    #[error("{0}")]
    Forbidden(String),
    /// A write to an app that is read-only (not started with --allow-edits).
    #[error("{0}")]
    ReadOnly(String),
    #[error("Too many changes in a short time. Try again in {0} s.")]
    TooManyWrites(u64),
    /// The body is not of a type the route takes; the message says which it takes.
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("Say which version you changed: send the ETag you read in If-Match.")]
    PreconditionRequired,
    /// `If-Match` holds no strong ETag of ours (weak, malformed, `*`, a list): it can never
    /// match, whatever the recipe's version.
    #[error(
        "If-Match must be one strong ETag, in quotes, as GET /api/recipes/{{id}} sends it \
         (\"…\"); a weak one (W/\"…\"), * or anything else never matches. Nothing was changed."
    )]
    PreconditionFailed,
    /// A save would overwrite a change made since the editor read the recipe.
    #[error("This recipe changed since you opened it; nothing was saved.")]
    Conflict(Box<Conflict>),
    /// A save would add a second recipe of a name the collection has, and the editor did
    /// not say they want one: named, so they can open it or save anyway.
    #[error("{}", duplicate_message(.0))]
    Duplicate(Vec<Duplicate>),
    /// A form no page of ours sends (too many rows, a field twice): refused as a whole,
    /// with why, before anything is rendered or saved.
    #[error("{0}")]
    FormRefused(String),
    /// The recipe sent has problems, each named by its field.
    #[error("The recipe has {} problem(s); nothing was saved.", .0.len())]
    Invalid(Vec<FieldError>),
    /// The recipes file on disk does not load now (a hand edit broke it): no change can be
    /// made until it is fixed. The message names the file and the problem.
    #[error("{0}")]
    FileBroken(String),
    /// Saving cannot go on until the operator acts or the disk recovers (the file was made
    /// read-only, the journal could not be repaired after a failed save): the message says
    /// why, and nothing was saved.
    #[error("{0}")]
    SavingPaused(String),
    /// Saving failed on our side (the disk, the journal); logged, not explained.
    #[error("saving failed: {0}")]
    Store(StoreError),
    #[error("the saved recipes could not be served: {0}")]
    Publish(String),
    /// A household change refused as a whole, naming the field at fault.
    #[error("{} is not right: {}; nothing was saved.", .0.field, .0.message)]
    Refused(FieldError),
    /// The household's database would not take the change (the disk): nothing was saved.
    #[error(
        "Nothing was saved: the household's database could not write to the disk. Try again later."
    )]
    HouseholdDisk(String),
    /// Another writer held the household's database longer than a write waits (the CLI
    /// merging a backup while the app runs): nothing was saved; try again shortly.
    #[error(
        "The household's database is busy with another change; nothing was saved. Try again in a moment."
    )]
    HouseholdBusy,
    /// The household's database could not be opened (damaged, a future schema, not
    /// writable): the recipes are served, household features are not. The message says
    /// what is wrong and how to repair it.
    #[error("{0}")]
    HouseholdOff(String),
    /// A large body not read: over its route's limit (naming it in bytes), not sent in
    /// time, or beyond the memory budget for bodies.
    #[error(transparent)]
    Body(#[from] BodyError),
    /// Any other failure of the household's database; logged, not explained.
    #[error("{0}")]
    Household(String),
}

/// A photo not taken: what is wrong with the file, said as the rule it breaks.
impl From<libations_photos::PhotoError> for WebError {
    fn from(e: libations_photos::PhotoError) -> WebError {
        use libations_photos::PhotoError as P;
        let refused = |e: P| {
            let message = e.to_string();
            WebError::Refused(FieldError {
                field: "photo".into(),
                message,
            })
        };
        match e {
            P::NotAnImage | P::Unsupported(_) | P::Empty | P::NotJpeg(_) => {
                WebError::UnsupportedMediaType(e.to_string())
            }
            P::TooLarge(_) | P::TooManyPixels { .. } | P::Unreadable { .. } => refused(e),
            P::Io(e) => WebError::HouseholdDisk(e.to_string()),
            P::Encode(why) => WebError::Household(why),
        }
    }
}

impl From<crate::site::PublishError> for WebError {
    fn from(e: crate::site::PublishError) -> WebError {
        match e {
            crate::site::PublishError::Site(e) => WebError::Site(e),
            crate::site::PublishError::Task(e) => WebError::Task(e),
        }
    }
}

impl From<crate::household::HouseholdError> for WebError {
    fn from(e: crate::household::HouseholdError) -> WebError {
        use crate::household::HouseholdError as H;
        match e {
            H::Refused { field, message } => WebError::Refused(FieldError { field, message }),
            H::Nothing(message) => WebError::NotFound(message),
            H::Busy => WebError::HouseholdBusy,
            H::NotYours(why) => WebError::Forbidden(why),
            H::Disk(e) => {
                tracing::error!(error = %e, "a household change failed on the disk");
                WebError::HouseholdDisk(e.to_string())
            }
            other => WebError::Household(other.to_string()),
        }
    }
}

/// What an editor is told when a failed save could not be taken back.
/// "A recipe called “Negroni” is already here (recipe 1); …": the first, and how many more.
fn duplicate_message(found: &[Duplicate]) -> String {
    let first = found.first().map_or(String::new(), |d| {
        format!(
            "A recipe called \u{201c}{}\u{201d} is already here (recipe {})",
            d.name, d.existing_id
        )
    });
    let more = match found.len() {
        0 | 1 => String::new(),
        n => format!(", and {} more of the names are", n - 1),
    };
    format!(
        "{first}{more}; nothing was saved. Save again saying you want another (\"duplicate\": true) to keep both."
    )
}

const UNCONFIRMED: &str = "Saving failed, and the disk would not let the app take the change back: it may still be there after a restart. Check Recent changes before trying again.";

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> WebError {
        match e {
            StoreError::NoRecipe(id) => WebError::NotFound(format!("There is no recipe {id}.")),
            StoreError::NoChange(n) => WebError::NotFound(format!(
                "Change {n} is not in the history (it may be older than the history keeps)."
            )),
            StoreError::Conflict(c) => WebError::Conflict(c),
            StoreError::Duplicate(found) => WebError::Duplicate(found),
            StoreError::Invalid(problems) => WebError::Invalid(problems),
            StoreError::FileInvalid(e) => WebError::FileBroken(format!(
                "The recipes file does not load right now, so nothing can be saved until it is fixed: {e}"
            )),
            e @ (StoreError::Paused(_) | StoreError::NotWritable { .. }) => {
                WebError::SavingPaused(format!("Nothing was saved: {e}"))
            }
            other => WebError::Store(other),
        }
    }
}

impl WebError {
    /// A store's refusal, for a request: as [`From`], but a message that names files (the
    /// recipes file broken by hand, say) names them from the recipes file's directory
    /// (`recipes.json:4:39: invalid JSON…`), not by the server's absolute paths, which are
    /// no editor's business. The log gets the message with the full paths.
    pub(crate) fn from_store(e: StoreError, file: &Path) -> WebError {
        // A file in `/` or named without a directory has nothing to leave out.
        let dir = file.parent().map(|d| d.display().to_string());
        let relative = |message: String| match dir.as_deref().filter(|d| !d.is_empty() && *d != "/")
        {
            Some(dir) => message.replace(&format!("{dir}/"), ""),
            None => message,
        };
        match WebError::from(e) {
            WebError::FileBroken(message) => {
                tracing::warn!(file = %file.display(), "a change was refused: {message}");
                WebError::FileBroken(relative(message))
            }
            WebError::SavingPaused(message) => {
                tracing::warn!(file = %file.display(), "a change was refused: {message}");
                WebError::SavingPaused(relative(message))
            }
            other => other,
        }
    }
}

impl From<GateError> for WebError {
    fn from(e: GateError) -> WebError {
        match e {
            GateError::Busy => WebError::Busy,
            GateError::Task(e) => WebError::Task(e),
        }
    }
}

impl From<crate::search::QueryError> for WebError {
    fn from(e: crate::search::QueryError) -> WebError {
        WebError::BadRequest(e.to_string())
    }
}

impl WebError {
    fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            WebError::Busy | WebError::HouseholdBusy | WebError::HouseholdOff(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            WebError::Body(e) => e.status(),
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::ReadOnly(_) => StatusCode::METHOD_NOT_ALLOWED,
            WebError::TooManyWrites(_) => StatusCode::TOO_MANY_REQUESTS,
            WebError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            WebError::PreconditionRequired => StatusCode::PRECONDITION_REQUIRED,
            WebError::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            WebError::Conflict(_) | WebError::Duplicate(_) => StatusCode::CONFLICT,
            WebError::Invalid(_) | WebError::FormRefused(_) => StatusCode::UNPROCESSABLE_ENTITY,
            WebError::Refused(_) => StatusCode::UNPROCESSABLE_ENTITY,
            WebError::FileBroken(_) | WebError::SavingPaused(_) | WebError::HouseholdDisk(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            WebError::Site(_)
            | WebError::Json(_)
            | WebError::Task(_)
            | WebError::Store(_)
            | WebError::Publish(_)
            | WebError::Household(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// A fault of ours rather than of the request: logged, never explained to the visitor.
    fn is_internal(&self) -> bool {
        self.status() == StatusCode::INTERNAL_SERVER_ERROR
    }

    /// What the visitor is told; internal details stay in the log.
    fn public_message(&self) -> String {
        match self {
            // A 500 all the same, but the editor must not take it for "nothing happened".
            WebError::Store(StoreError::Unconfirmed { .. }) => UNCONFIRMED.into(),
            _ if self.is_internal() => "Something went wrong on our side. Try again.".into(),
            other => other.to_string(),
        }
    }

    fn title(&self) -> &'static str {
        match self {
            WebError::NotFound(_) => "Not found",
            WebError::BadRequest(_) => "Bad request",
            WebError::MethodNotAllowed(_) => "Method not allowed",
            WebError::Busy | WebError::Body(BodyError::Spent) => "Busy",
            WebError::Body(BodyError::TooLarge(_)) => "Too large",
            WebError::Body(BodyError::Late) => "Too slow",
            WebError::Forbidden(_) => "Not allowed",
            WebError::ReadOnly(_) => "Method not allowed",
            WebError::TooManyWrites(_) => "Too many changes",
            WebError::UnsupportedMediaType(_) => "Unsupported media type",
            WebError::PreconditionRequired => "Version needed",
            WebError::PreconditionFailed => "Version not understood",
            WebError::Conflict(_) => "Changed meanwhile",
            WebError::Duplicate(_) => "Already here",
            WebError::Invalid(_) => "Problems in the recipe",
            WebError::FormRefused(_) => "Form not taken",
            WebError::FileBroken(_) => "Recipes file broken",
            WebError::SavingPaused(_) => "Saving paused",
            WebError::Refused(_) => "Not taken",
            WebError::HouseholdDisk(_) | WebError::HouseholdBusy => "Not saved",
            WebError::HouseholdOff(_) => "Household unavailable",
            WebError::Site(_)
            | WebError::Json(_)
            | WebError::Task(_)
            | WebError::Store(_)
            | WebError::Publish(_)
            | WebError::Household(_) => "Server error",
        }
    }

    /// A JSON error for the API: `{"error": "…"}`.
    pub(crate) fn json(self) -> Response {
        self.log();
        let mut body = serde_json::json!({ "error": self.public_message() });
        match &self {
            WebError::Invalid(problems) => body["problems"] = serde_json::json!(problems),
            WebError::Conflict(c) => body["conflict"] = serde_json::json!(c),
            WebError::Duplicate(found) => body["duplicates"] = serde_json::json!(found),
            WebError::Refused(p) => {
                body["field"] = serde_json::json!(p.field);
                body["problems"] = serde_json::json!([p]);
            }
            _ => {}
        }
        self.with_headers((self.status(), axum::Json(body)).into_response())
    }

    fn log(&self) {
        if self.is_internal() {
            tracing::error!(error = %self, "request failed");
        }
    }

    /// Headers the status calls for: when to retry a 503 or a 429. (What is allowed after
    /// a 405 depends on the route: the router sets `Allow`.)
    fn with_headers(&self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        match self {
            WebError::Busy | WebError::HouseholdBusy | WebError::Body(BodyError::Spent) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            WebError::TooManyWrites(seconds) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*seconds));
            }
            _ => {}
        }
        response
    }
}

/// The HTML flavour: the status, its headers and a short stand-in body, with the title and
/// message left for [`render_page`] to render into the site's error page.
impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        self.log();
        let status = self.status();
        let text = ErrorText {
            title: self.title(),
            message: self.public_message(),
        };
        let stand_in = format!("{} {}", status.as_u16(), text.title);
        let mut response = self.with_headers((status, html(stand_in)).into_response());
        response.extensions_mut().insert(text);
        response
    }
}

impl WebError {
    /// This refusal as a page of the handler's own (`page`, given its title and message:
    /// a form's refusal that leads back where the form was), with the status and headers
    /// the site's error page would have. Server errors keep the site's page.
    pub(crate) fn into_own_page(
        self,
        page: impl FnOnce(&'static str, &str) -> Result<String, SiteError>,
    ) -> Response {
        if self.is_internal() {
            return self.into_response();
        }
        let mut response = self.into_response();
        let Some(text) = response.extensions_mut().remove::<ErrorText>() else {
            return response;
        };
        match page(text.title, &text.message) {
            Ok(html) => *response.body_mut() = Body::from(html),
            Err(e) => {
                tracing::error!(error = %e, "a refusal's page could not be rendered");
                response.extensions_mut().insert(text);
            }
        }
        response
    }
}

/// What an HTML error page says, on its way from a handler to [`render_page`].
#[derive(Debug, Clone)]
struct ErrorText {
    title: &'static str,
    message: String,
}

/// Middleware: renders the error page, in the site's own header and footer, for a response
/// a [`WebError`] made. Should rendering fail, the short stand-in body is sent instead.
///
/// Under `/api/` the message goes into the API's JSON instead, and any other refusal that
/// is not JSON yet (an extractor's plain text) becomes JSON too, with its status and
/// headers kept and the status's own words for a message: an extractor's text names Rust
/// types, which are nobody's business.
pub(crate) async fn render_page(
    State(site): State<Arc<ArcSwap<Site>>>,
    request: Request,
    next: Next,
) -> Response {
    let api = is_api(request.uri().path());
    let mut response = next.run(request).await;
    let text = response.extensions_mut().remove::<ErrorText>();
    match text {
        Some(text) if api => with_json_body(response, &text.message),
        Some(text) => {
            match site.load().render_error(text.title, &text.message) {
                Ok(page) => *response.body_mut() = Body::from(page),
                Err(e) => tracing::error!(error = %e, "rendering an error page failed"),
            }
            response
        }
        None if api && refused_in_other_words(&response) => {
            let status = response.status();
            let words = status.canonical_reason().unwrap_or("Refused");
            with_json_body(response, &format!("{words} ({}).", status.as_u16()))
        }
        None => response,
    }
}

/// A 4xx or 5xx whose body is not JSON.
fn refused_in_other_words(response: &Response) -> bool {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    (response.status().is_client_error() || response.status().is_server_error()) && !json
}

/// `response` with `{"error": message}` for its body; status and other headers kept.
fn with_json_body(response: Response, message: &str) -> Response {
    let (mut parts, _) = response.into_parts();
    let body = serde_json::json!({ "error": message }).to_string();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

/// An API handler's error, or an extractor whose refusal the API answers: the same
/// [`WebError`], answered as JSON.
#[derive(Debug)]
pub(crate) struct Api<T>(pub(crate) T);

impl IntoResponse for Api<WebError> {
    fn into_response(self) -> Response {
        self.0.json()
    }
}

/// `?` in an API handler: whatever becomes a [`WebError`] becomes its JSON answer.
impl<E> From<E> for Api<WebError>
where
    WebError: From<E>,
{
    fn from(e: E) -> Api<WebError> {
        Api(WebError::from(e))
    }
}

impl<S, T> FromRequestParts<S> for Api<T>
where
    S: Send + Sync,
    T: FromRequestParts<S, Rejection = WebError>,
{
    type Rejection = Api<WebError>;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Api<T>, Api<WebError>> {
        T::from_request_parts(parts, state)
            .await
            .map(Api)
            .map_err(Api)
    }
}

fn html(body: String) -> ([(header::HeaderName, &'static str); 2], String) {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, cache_control::REVALIDATE),
        ],
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shed_search_says_when_to_retry() {
        let json = WebError::from(GateError::Busy).json();
        assert_eq!(json.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(json.headers()[header::RETRY_AFTER], "1");
        let not_allowed = WebError::MethodNotAllowed(String::new()).json();
        assert!(!not_allowed.headers().contains_key(header::RETRY_AFTER));
    }

    /// Whatever refuses a request under `/api/` in plain text (an extractor, say) is
    /// answered as the API's JSON, status and headers kept, without the text's Rust names.
    #[tokio::test]
    async fn a_plain_refusal_under_the_api_becomes_json_in_words() {
        use tower::ServiceExt;
        let recipes = crate::recipes::Recipes::sample().expect("sample");
        let site = Site::new(recipes, &crate::Assets::load(), Default::default()).expect("site");
        let plain = || async {
            (
                StatusCode::BAD_REQUEST,
                [(header::RETRY_AFTER, "7")],
                "Invalid URL: Cannot parse `abc` to a `u64`",
            )
        };
        let app = axum::Router::new()
            .route("/api/x", axum::routing::get(plain))
            .route("/x", axum::routing::get(plain))
            .route(
                "/api/page",
                axum::routing::get(|| async { WebError::BadRequest("in words".into()) }),
            )
            .layer(axum::middleware::from_fn_with_state(
                Arc::new(ArcSwap::from_pointee(site)),
                render_page,
            ));
        let ask = |path: &'static str| {
            let request = Request::builder().uri(path).body(Body::empty());
            app.clone().oneshot(request.expect("request"))
        };
        let read = |r: Response| async move {
            let kind = r.headers()[header::CONTENT_TYPE].clone();
            let body = axum::body::to_bytes(r.into_body(), 1 << 20).await;
            (
                kind,
                String::from_utf8_lossy(&body.expect("body")).into_owned(),
            )
        };
        let r = ask("/api/x").await.expect("answer");
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        assert_eq!(r.headers()[header::RETRY_AFTER], "7");
        let (kind, body) = read(r).await;
        assert_eq!(kind, "application/json");
        assert_eq!(body, r#"{"error":"Bad Request (400)."}"#);
        let (kind, body) = read(ask("/api/page").await.expect("answer")).await;
        assert_eq!(
            (kind.to_str().ok(), body.as_str()),
            (Some("application/json"), r#"{"error":"in words"}"#)
        );
        let (kind, body) = read(ask("/x").await.expect("answer")).await;
        assert!(
            kind.to_str().is_ok_and(|k| k.starts_with("text/plain")) && body.contains("u64"),
            "only the API's"
        );
    }

    #[test]
    fn a_refused_search_is_a_bad_request_with_the_reason() {
        let error = match crate::search::SearchQuery::parse_bounded(&"x".repeat(101)) {
            Err(e) => WebError::from(e),
            Ok(q) => panic!("a 101-character term was accepted: {q:?}"),
        };
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(error.public_message().contains("at most 100 characters"));
    }

    #[tokio::test]
    async fn a_server_error_tells_the_visitor_nothing_of_its_cause() {
        let cause = || match serde_json::from_str::<u8>("\"secret detail\"") {
            Err(e) => WebError::from(e),
            Ok(n) => panic!("parsed {n}"),
        };
        let json = cause().json();
        assert_eq!(json.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = axum::body::to_bytes(json.into_body(), 1024)
            .await
            .expect("body");
        let body = String::from_utf8_lossy(&body);
        assert!(body.contains("Something went wrong on our side") && !body.contains("secret"));
        let page = cause().into_response();
        assert_eq!(page.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let text = page
            .extensions()
            .get::<ErrorText>()
            .expect("left for the page");
        assert_eq!(text.title, "Server error");
        assert!(!text.message.contains("secret") && !text.message.contains("u8"));
        assert!(
            cause().to_string().contains("secret detail"),
            "the log has it"
        );
    }
}
