//! Rendering a template: whole into a string, or compressed as it renders for one request;
//! and the error page, which needs the site's header and footer.

use super::{HTML, Site, SiteError};
use crate::http::compressing::{Compressing, Finished};
use crate::view::templates::ErrorPage;
use askama::Template;
use axum::http::HeaderMap;

impl Site {
    pub(crate) fn render_error(&self, title: &str, message: &str) -> Result<String, SiteError> {
        let page = ErrorPage {
            chrome: self.chrome(""),
            title,
            message,
        };
        render("error page", &page)
    }
}

/// Renders a page whole or not at all: askama renders into a string of its own, so a
/// failure part way (a field's `Display` failing, say) leaves nothing to send but the error,
/// which becomes a 500.
pub(crate) fn render(page: &'static str, template: &impl Template) -> Result<String, SiteError> {
    template
        .render()
        .map_err(|source| SiteError::Render { page, source })
}

/// Renders a page into a [`Compressing`] for `request` (about `size` bytes of text), whole or
/// not at all: a failure part way leaves only the error, which becomes a 500.
pub(crate) fn render_compressing(
    page: &'static str,
    template: &impl Template,
    size: usize,
    request: &HeaderMap,
) -> Result<Finished, SiteError> {
    let mut body = Compressing::new(request, size);
    template
        .render_into(&mut body)
        .map_err(|source| SiteError::Render { page, source })?;
    Ok(body.finish(HTML, request)?)
}
