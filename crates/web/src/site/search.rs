//! Search answers: the list page for a search and its JSON, made per request (queries are
//! endless) and kept compressed for whoever asks the same next.

use super::render::render_compressing;
use super::{JSON, Site, SiteError, render};
use crate::http::compressing::Compressing;
use crate::http::recent::Kind;
use crate::recipes::Recipe;
use crate::search::{self, Asker, Personal, SearchQuery};
use crate::view::templates::{ListBody, ListPage, Row};
use axum::body::Body;
use axum::http::{HeaderMap, Response};
use std::io::Write;

impl Site {
    /// What a search costs, in recipe scans: the gate runs it at once or on the blocking
    /// pool by this ([`crate::guard::gate::INLINE_COST`]).
    pub(crate) fn search_cost(&self, query: &SearchQuery) -> usize {
        self.recipes.len() * query.terms.len().max(1)
    }

    /// The recipes matching a query, best first.
    pub fn search(&self, query: &SearchQuery) -> Vec<&Recipe> {
        let all = self.recipes.all();
        self.index
            .search(query)
            .into_iter()
            .map(|i| &all[i])
            .collect()
    }

    /// The JSON array of the recipes matching a query, best first, as the answer to
    /// `request`: the same bytes as serialising [`Site::search`]'s hits, copied from the
    /// JSON of all recipes (and compressed as they are copied). `mine` answers the
    /// personal terms (see [`Site::is_kept`]).
    pub(crate) fn search_json_answer(
        &self,
        q: &str,
        query: &SearchQuery,
        mine: Option<&Asker>,
        request: &HeaderMap,
    ) -> Result<Response<Body>, SiteError> {
        let kept = Site::is_kept(query);
        if let Some(kept) = self.recent.get(Kind::Json, q, request).filter(|_| kept) {
            return Ok(kept);
        }
        let (hits, len) = self.json_hits(query, mine);
        let mut body = Compressing::new(request, len);
        self.write_json_hits(&hits, &mut body)?;
        let finished = body.finish(JSON, request)?;
        if !kept {
            return Ok(personal(finished.respond(request)));
        }
        Ok(self.recent.keep(Kind::Json, q, finished, request))
    }

    /// Whether a search's answer is the same for everyone, and so kept for the next asker:
    /// not when it has personal terms (`is:fav`, `can:make`, …), whose answer depends on
    /// who asks.
    pub(crate) fn is_kept(query: &SearchQuery) -> bool {
        query.personal.is_empty()
    }

    /// The hits of a query, best first, and the length of their JSON array.
    pub(super) fn json_hits(
        &self,
        query: &SearchQuery,
        mine: Option<&Asker>,
    ) -> (Vec<usize>, usize) {
        let hits = self.index.search_for(query, mine);
        let objects = hits
            .iter()
            .map(|&i| self.json_spans[i].len())
            .sum::<usize>();
        let commas = hits.len().saturating_sub(1);
        let len = 2 + objects + commas;
        (hits, len)
    }

    pub(super) fn write_json_hits(
        &self,
        hits: &[usize],
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        let all = self.all_json.bytes();
        out.write_all(b"[")?;
        for (n, &i) in hits.iter().enumerate() {
            if n > 0 {
                out.write_all(b",")?;
            }
            out.write_all(&all[self.json_spans[i].clone()])?;
        }
        out.write_all(b"]")
    }

    /// The list page for a search (rendered per request: queries are endless).
    pub fn render_search(&self, q: &str, query: SearchQuery) -> Result<String, SiteError> {
        render("search results", &self.search_view(q, query, None))
    }

    /// [`Site::render_search`] as the answer to `request`, compressed as it is rendered.
    pub(crate) fn search_answer(
        &self,
        q: &str,
        query: SearchQuery,
        mine: Option<&Asker>,
        request: &HeaderMap,
    ) -> Result<Response<Body>, SiteError> {
        let kept = Site::is_kept(&query);
        // Asked again while this request waited for its turn: sent as made then.
        if let Some(kept) = self.recent.get(Kind::Page, q, request).filter(|_| kept) {
            return Ok(kept);
        }
        let page = self.search_view(q, query, mine);
        let size = self.rows_size(page.list.rows.len());
        let finished = render_compressing("search results", &page, size, request)?;
        if !kept {
            return Ok(personal(finished.respond(request)));
        }
        Ok(self.recent.keep(Kind::Page, q, finished, request))
    }

    /// The answer made for an earlier request with the same search and coding, if it is
    /// still kept ([`crate::http::recent::Recent`]).
    pub(crate) fn recent_answer(
        &self,
        kind: Kind,
        q: &str,
        request: &HeaderMap,
    ) -> Option<Response<Body>> {
        self.recent.get(kind, q, request)
    }

    /// The page for a search; the note about personal terms only when nobody answered
    /// them (no `mine`: an unknown visitor).
    fn search_view<'a>(
        &'a self,
        q: &'a str,
        query: SearchQuery,
        mine: Option<&Asker>,
    ) -> ListPage<'a, ListBody<'a>> {
        let all = self.recipes.all();
        let hits = self.index.search_for(&query, mine);
        let (guesses, misread) = match hits.is_empty() {
            true => (
                self.index.guesses_for(&query, mine),
                search::misread(&query),
            ),
            false => (Vec::new(), None),
        };
        // `can:make` from the household's shelf: each row says how, as the phone does.
        let shelf = mine.and_then(|m| m.shelf);
        let stocked = shelf
            .filter(|_| query.personal.contains(&Personal::CanMake))
            .map(|shelf| {
                self.index
                    .needs()
                    .stocked(shelf, mine.map_or(&[][..], |m| m.rules))
            });
        let row = |i: usize| Row {
            makes: stocked.as_ref().map(|s| s.how(i)),
            ..Row::new(&all[i])
        };
        let list = ListBody {
            urls: &self.urls,
            q,
            total: self.recipes.len(),
            rows: hits.into_iter().map(row).collect(),
            personal: if mine.is_some() {
                Vec::new()
            } else {
                query.personal
            },
            guesses: guesses.into_iter().map(|i| &all[i]).collect(),
            misread,
        };
        ListPage {
            chrome: self.chrome(q).at("recipes"),
            list,
        }
    }

    /// About how long a list of `rows` recipes is, from the full list's length: what a
    /// page's answer is sized by (see [`Compressing::new`]).
    fn rows_size(&self, rows: usize) -> usize {
        let per_row = self.list_body.len() / self.recipes.len().max(1);
        per_row * rows + (self.list_text.0.len() - self.list_body.len())
    }
}

/// An answer that depends on who asked: never stored by a shared cache.
fn personal(mut response: Response<Body>) -> Response<Body> {
    response.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        crate::http::cache_control::private_revalidate(),
    );
    response
}
