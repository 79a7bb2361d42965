//! What went wrong with a request: one error type, answered as an HTML page or as JSON.

use super::gate::GateError;
use super::site::{self, Site, SiteError};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// What went wrong with a request, mapped to a status code and a page.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("The server is busy with other searches. Try again in a moment.")]
    Busy,
    #[error(transparent)]
    Internal(#[from] SiteError),
    #[error(transparent)]
    Task(tokio::task::JoinError),
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
            WebError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            WebError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Internal(_) | WebError::Task(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the visitor is told; internal details stay in the log.
    fn public_message(&self) -> String {
        match self {
            WebError::Internal(_) | WebError::Task(_) => {
                "Something went wrong on our side. Try again.".into()
            }
            WebError::MethodNotAllowed => "This address only answers GET and HEAD.".into(),
            other => other.to_string(),
        }
    }

    fn title(&self) -> &'static str {
        match self {
            WebError::NotFound(_) => "Not found",
            WebError::BadRequest(_) => "Bad request",
            WebError::MethodNotAllowed => "Method not allowed",
            WebError::Busy => "Busy",
            WebError::Internal(_) | WebError::Task(_) => "Server error",
        }
    }

    /// An HTML error page built with the site's header and footer.
    pub fn page(self, site: &Site) -> Response {
        self.log();
        let status = self.status();
        let body = site
            .render_error(self.title(), &self.public_message())
            .unwrap_or_else(|_| format!("{} {}", status.as_u16(), self.title()));
        self.with_headers((status, html(body)).into_response())
    }

    /// A JSON error for the API: `{"error": "…"}`.
    pub fn json(self) -> Response {
        self.log();
        let body = serde_json::json!({ "error": self.public_message() });
        self.with_headers((self.status(), axum::Json(body)).into_response())
    }

    fn log(&self) {
        if matches!(self, WebError::Internal(_) | WebError::Task(_)) {
            tracing::error!(error = %self, "request failed");
        }
    }

    /// Headers the status calls for: what is allowed after a 405, when to retry a 503.
    fn with_headers(&self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        match self {
            WebError::MethodNotAllowed => {
                headers.insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            }
            WebError::Busy => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            _ => {}
        }
        response
    }
}

fn html(body: String) -> ([(header::HeaderName, &'static str); 2], String) {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, site::HTML_CACHE),
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
        let not_allowed = WebError::MethodNotAllowed.json();
        assert_eq!(not_allowed.headers()[header::ALLOW], "GET, HEAD");
        assert!(!not_allowed.headers().contains_key(header::RETRY_AFTER));
    }

    #[test]
    fn a_refused_search_is_a_bad_request_with_the_reason() {
        let error = match crate::search::Query::parse_bounded(&"x".repeat(101)) {
            Err(e) => WebError::from(e),
            Ok(q) => panic!("a 101-character term was accepted: {q:?}"),
        };
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(error.public_message().contains("at most 100 characters"));
    }
}
