//! The one guard every write passes: [`Write`], an extractor per kind of write (a recipe
//! change, a person's own data, the household's shelf and strengths, its backup, a cover
//! photo, a menu),
//! all admitted by one function, [`admit`]: identity, grant, same origin, rate, in that
//! order.
//!
//! Why a file of its own: a write route has one pattern to copy (take a `Write<Kind>`), so
//! no route can skip a check another makes, and the checks run in the same order for every
//! write. The extractor reads only the request's head, never its body: a large route (a
//! backup, a bulk save, an import) reads its body after it, so a visitor without the grant
//! is refused without a byte of it held. Its refusal is the web crate's one error, as JSON
//! under `/api/` and as a page elsewhere.

use super::editing::{Editing, Editor, Provenance};
use super::household_door::HouseholdDoor;
use super::identity::Resolve;
use super::visitor::Visitor;
use crate::error::{Api, WebError};
use crate::guard::limits::is_api;
use crate::household::{Household, Person};
use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use std::marker::PhantomData;
use std::sync::Arc;

/// What admitting a write needs from the app's state.
pub(crate) struct Doors {
    editing: Arc<Editing>,
    home: Arc<HouseholdDoor>,
}

/// A kind of write: who may make it (identity and grant) and whose allowance it takes
/// (rate). [`admit`] runs them, with the origin check between.
pub(crate) trait Kind: Send + Sync + 'static {
    /// Who is writing, once admitted.
    type Who: Send;
    /// The visitor's identity and grant for this kind of write, or why not.
    fn who(doors: &Doors, visitor: &Visitor) -> Result<Self::Who, WebError>;
    /// Takes one write from the writer's allowance, or says when to come back.
    fn take(doors: &Doors, who: &Self::Who) -> Result<(), WebError>;
}

/// A person writing to the household, with the visitor they are (for a form's token).
pub(crate) struct Resident {
    pub(crate) db: Arc<Household>,
    pub(crate) person: Person,
    pub(crate) visitor: Visitor,
}

/// Changing recipes (the API, the forms, an import, a bulk save): `--allow-edits`, then
/// an editor ([`Editing::editor`]); the editing rate.
pub(crate) struct Edits;

/// A person's own favourites, ratings, notes and log (`/api/me…`): any person.
pub(crate) struct Own;

/// The household's shelf and strengths (`/api/bar…`): the shelf grant.
pub(crate) struct Shelf;

/// The household's backup loaded back (`/api/household/upload`): editors only.
pub(crate) struct Restore;

/// A recipe's cover photo (`/api/recipes/{id}/photos/{photo}/cover`): editors only.
pub(crate) struct Covers;

/// The guests' menus (`/api/menus…`, `/menus`' forms): the menu grant.
pub(crate) struct Menus;

impl Kind for Edits {
    type Who = Editor;
    fn who(doors: &Doors, visitor: &Visitor) -> Result<Editor, WebError> {
        doors.editing.writable()?;
        doors.editing.editor(visitor)
    }
    fn take(doors: &Doors, editor: &Editor) -> Result<(), WebError> {
        doors.editing.take_recipe_write(editor)
    }
}

/// The household kinds: `door` says who may write, the rate is the household's.
fn resident(
    visitor: &Visitor,
    door: Result<(Arc<Household>, Person), WebError>,
) -> Result<Resident, WebError> {
    let (db, person) = door?;
    Ok(Resident {
        db,
        person,
        visitor: visitor.clone(),
    })
}

/// A household kind's rate: the person's household allowance.
fn household_rate(doors: &Doors, who: &Resident) -> Result<(), WebError> {
    doors.home.take_household_write(&who.person)
}

impl Kind for Own {
    type Who = Resident;
    fn who(doors: &Doors, visitor: &Visitor) -> Result<Resident, WebError> {
        resident(visitor, doors.home.person(visitor))
    }
    fn take(doors: &Doors, who: &Resident) -> Result<(), WebError> {
        household_rate(doors, who)
    }
}

impl Kind for Shelf {
    type Who = Resident;
    fn who(doors: &Doors, visitor: &Visitor) -> Result<Resident, WebError> {
        resident(visitor, doors.home.shelf_keeper(visitor, &doors.editing))
    }
    fn take(doors: &Doors, who: &Resident) -> Result<(), WebError> {
        household_rate(doors, who)
    }
}

impl Kind for Restore {
    type Who = Resident;
    fn who(doors: &Doors, visitor: &Visitor) -> Result<Resident, WebError> {
        resident(visitor, doors.home.keeper(visitor, &doors.editing))
    }
    fn take(doors: &Doors, who: &Resident) -> Result<(), WebError> {
        household_rate(doors, who)
    }
}

impl Kind for Covers {
    type Who = Resident;
    fn who(doors: &Doors, visitor: &Visitor) -> Result<Resident, WebError> {
        resident(visitor, doors.home.keeper(visitor, &doors.editing))
    }
    fn take(doors: &Doors, who: &Resident) -> Result<(), WebError> {
        household_rate(doors, who)
    }
}

impl Kind for Menus {
    type Who = Resident;
    fn who(doors: &Doors, visitor: &Visitor) -> Result<Resident, WebError> {
        resident(visitor, doors.home.menu_keeper(visitor, &doors.editing))
    }
    fn take(doors: &Doors, who: &Resident) -> Result<(), WebError> {
        household_rate(doors, who)
    }
}

/// The one admission of a write: identity, grant, same origin, rate, in that order. Reads
/// only the request's head.
pub(crate) async fn admit<K: Kind, S>(parts: &mut Parts, state: &S) -> Result<K::Who, WebError>
where
    S: Send + Sync,
    Arc<Editing>: FromRef<S>,
    Arc<HouseholdDoor>: FromRef<S>,
    Arc<dyn Resolve>: FromRef<S>,
{
    let doors = Doors {
        editing: Arc::<Editing>::from_ref(state),
        home: Arc::<HouseholdDoor>::from_ref(state),
    };
    let Ok(visitor) = Visitor::from_request_parts(parts, state).await;
    let who = K::who(&doors, &visitor)?;
    let Ok(from) = Provenance::from_request_parts(parts, state).await;
    from.check()?;
    K::take(&doors, &who)?;
    Ok(who)
}

/// The extractor: a write of kind `K`, admitted ([`admit`]); `.0` is who writes.
pub(crate) struct Write<K: Kind>(pub(crate) K::Who, pub(crate) PhantomData<K>);

/// A write refused: the web crate's one error, as JSON under `/api/`, a page elsewhere.
#[derive(Debug)]
pub(crate) struct Refusal {
    api: bool,
    pub(crate) error: WebError,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self.api {
            true => Api(self.error).into_response(),
            false => self.error.into_response(),
        }
    }
}

impl<K: Kind, S> FromRequestParts<S> for Write<K>
where
    S: Send + Sync,
    Arc<Editing>: FromRef<S>,
    Arc<HouseholdDoor>: FromRef<S>,
    Arc<dyn Resolve>: FromRef<S>,
{
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Write<K>, Refusal> {
        let api = is_api(parts.uri.path());
        match admit::<K, S>(parts, state).await {
            Ok(who) => Ok(Write(who, PhantomData)),
            Err(error) => Err(Refusal { api, error }),
        }
    }
}
