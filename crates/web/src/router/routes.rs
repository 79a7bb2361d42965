//! The pieces the router's one table of routes is written with: [`Route`], a path and its
//! methods, each a read, a write, or a recipe edit (switched by `--allow-edits`), with the
//! body limit group it belongs to; [`Allows`], what each route's 405 lists in `Allow`,
//! made from the same table; and [`Registered`], the table as the tests read it.
//!
//! Why a file of its own: the facts about a route (its methods, whether `--allow-edits`
//! switches them, its body limit) are written once, next to its handler, and everything
//! that needs them is built from there: nothing keeps a copy that could fall out of step.

use crate::handlers::pages::Allowed;
use crate::state::AppState;
use axum::handler::Handler;
use axum::http::{HeaderValue, Method};
use axum::routing::{MethodFilter, MethodRouter};
use std::collections::HashMap;

/// Whether a write is there always, or only with `--allow-edits` (a recipe edit: without
/// it the app is read-only, the method answers 405 and `Allow` leaves it out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Switch {
    Always,
    Edits,
}

/// The methods that write.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Verb {
    Post,
    Put,
    Delete,
}

impl Verb {
    fn method(self) -> (Method, MethodFilter) {
        match self {
            Verb::Post => (Method::POST, MethodFilter::POST),
            Verb::Put => (Method::PUT, MethodFilter::PUT),
            Verb::Delete => (Method::DELETE, MethodFilter::DELETE),
        }
    }
}

/// Which body limit a method's route layer holds it to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Small,
    Large,
    Photo,
}

/// One method of one route, as the router registers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    /// The route's path, as the router has it (`/api/recipes/{id}`).
    pub path: &'static str,
    /// `GET` (which takes `HEAD` too), `POST`, `PUT` or `DELETE`.
    pub method: Method,
    /// Answered only with `--allow-edits` (a recipe edit).
    pub needs_edits: bool,
    /// Takes a large body (or a photo), which its handler reads once the write is admitted.
    pub large: bool,
}

/// A route of the table: its path, its methods by body group, and what they are.
pub(crate) struct Route {
    pub(crate) path: &'static str,
    /// The methods whose bodies are read whole before the handler (up to 256 KiB).
    pub(crate) small: Option<MethodRouter<AppState>>,
    /// The methods whose large bodies their handlers read.
    pub(crate) large: Option<MethodRouter<AppState>>,
    /// The methods that take a photo (up to `libations_photos::MAX_BYTES`), which their
    /// handlers read as the large ones.
    pub(crate) photo: Option<MethodRouter<AppState>>,
    pub(crate) methods: Vec<Registered>,
}

impl Route {
    pub(crate) fn at(path: &'static str) -> Route {
        Route {
            path,
            small: None,
            large: None,
            photo: None,
            methods: Vec::new(),
        }
    }

    /// A read: `GET`, and `HEAD` with it.
    pub(crate) fn get<H: Handler<T, AppState>, T: 'static>(self, handler: H) -> Route {
        self.add(
            Method::GET,
            MethodFilter::GET,
            Switch::Always,
            Group::Small,
            handler,
        )
    }

    /// A write whose body (up to 256 KiB) is read whole before its handler runs.
    pub(crate) fn write<H: Handler<T, AppState>, T: 'static>(
        self,
        verb: Verb,
        switch: Switch,
        handler: H,
    ) -> Route {
        let (method, filter) = verb.method();
        self.add(method, filter, switch, Group::Small, handler)
    }

    /// A write with a large body, which its handler reads once the write is admitted.
    pub(crate) fn large<H: Handler<T, AppState>, T: 'static>(
        self,
        verb: Verb,
        switch: Switch,
        handler: H,
    ) -> Route {
        let (method, filter) = verb.method();
        self.add(method, filter, switch, Group::Large, handler)
    }

    /// A write that takes a photo: a large body of its own size, read by its handler.
    pub(crate) fn photo<H: Handler<T, AppState>, T: 'static>(
        self,
        verb: Verb,
        switch: Switch,
        handler: H,
    ) -> Route {
        let (method, filter) = verb.method();
        self.add(method, filter, switch, Group::Photo, handler)
    }

    fn add<H: Handler<T, AppState>, T: 'static>(
        mut self,
        method: Method,
        filter: MethodFilter,
        switch: Switch,
        group: Group,
        handler: H,
    ) -> Route {
        let methods = match group {
            Group::Small => &mut self.small,
            Group::Large => &mut self.large,
            Group::Photo => &mut self.photo,
        };
        *methods = Some(methods.take().unwrap_or_default().on(filter, handler));
        self.methods.push(Registered {
            path: self.path,
            method,
            needs_edits: switch == Switch::Edits,
            large: group != Group::Small,
        });
        self
    }
}

/// What each route of the table takes, as its 405's `Allow` lists it: with editing off, the
/// recipe edits are left out, and a route that only edits takes nothing (an empty `Allow`,
/// as RFC 9110 has it for a resource switched off by configuration).
pub(crate) struct Allows(pub(crate) HashMap<&'static str, Allowed>);

impl Allows {
    pub(crate) fn of(table: &[Route], writable: bool) -> Allows {
        let order = [Method::GET, Method::POST, Method::PUT, Method::DELETE];
        let by_path = table.iter().map(|route| {
            let takes = |m: &Method| {
                route
                    .methods
                    .iter()
                    .any(|r| r.method == *m && (writable || !r.needs_edits))
            };
            let listed: Vec<&str> = order
                .iter()
                .filter(|m| takes(m))
                .flat_map(|m| match *m {
                    Method::GET => vec!["GET", "HEAD"],
                    ref other => vec![other.as_str()],
                })
                .collect();
            let value =
                HeaderValue::from_str(&listed.join(", ")).unwrap_or(HeaderValue::from_static(""));
            (route.path, Allowed(value))
        });
        Allows(by_path.collect())
    }
}
