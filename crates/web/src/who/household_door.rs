//! The household's door: whether the app keeps a household at all, who a request is for
//! (a [`Person`], or an unknown visitor and why), who may change the shelf or the guests'
//! menus, and the
//! per-person rate limit on household writes.
//!
//! A person is a visitor the tailnet names with a login and no tags. A tagged device (a
//! kiosk), a connection that says nothing (the socketpair fallback), and `--local`
//! without `--state-dir` have no household: their page keeps its choices on the device,
//! and `GET /api/me` says why. The shelf may be changed by people granted `{"shelf":
//! true}` or `{"edit": true}`, and by `--editor` logins; a person's own things only by
//! that person, which the routes ensure by taking the person from the request, never from
//! the path. The plain forms of `/menus` carry a token bound to the visitor, keyed by a
//! secret of this start, as the recipe forms do ([`super::editing::form_token`]).

use super::editing::{self, Editing, Limiter};
use super::identity::Capabilities;
use super::visitor::Visitor;
use crate::error::WebError;
use crate::household::{Asking, Household, HouseholdError, Person};
use crate::search::SearchQuery;
use std::sync::Arc;

/// Household writes one person may make per minute (a burst of this many). A phone back
/// online sends every change it kept, one request each.
pub(crate) const WRITES_PER_MINUTE: u32 = 240;

/// The household, or why there is none; one per process.
pub struct HouseholdDoor {
    db: Option<Arc<Household>>,
    /// The photos' files, beside the database; `None` without a household.
    photos: Option<Arc<crate::photo_room::PhotoRoom>>,
    off: String,
    /// The database is there but cannot be used (damaged, a future schema, not writable):
    /// what is wrong and how to repair it. Household routes answer 503 with it; the
    /// recipes are served all the same.
    broken: Option<String>,
    limiter: Limiter,
    /// The secret behind the `/menus` forms' tokens: random per start.
    key: [u8; 32],
}

impl HouseholdDoor {
    /// The household kept in `db`; `Err` when there is no randomness for form tokens.
    pub fn on(db: Household) -> std::io::Result<HouseholdDoor> {
        let photos = crate::photo_room::PhotoRoom::open(&db)?;
        Ok(HouseholdDoor {
            photos: Some(Arc::new(photos)),
            db: Some(Arc::new(db)),
            off: String::new(),
            broken: None,
            limiter: Limiter::new(WRITES_PER_MINUTE),
            key: editing::random_key()?,
        })
    }

    /// No household; `why` is what an unknown visitor is told.
    pub fn off(why: impl Into<String>) -> HouseholdDoor {
        HouseholdDoor {
            db: None,
            photos: None,
            off: why.into(),
            broken: None,
            limiter: Limiter::new(1),
            // No household: no one composes, so no form token is ever made or taken.
            key: [0; 32],
        }
    }

    /// A household whose database cannot be used; `why` says what is wrong and how to
    /// repair it (every household route answers 503 with it).
    pub fn broken(why: impl Into<String>) -> HouseholdDoor {
        let why = why.into();
        HouseholdDoor {
            broken: Some(why.clone()),
            ..HouseholdDoor::off(why)
        }
    }

    /// What is wrong with the household's database, when it cannot be used.
    pub(crate) fn unavailable(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// The database, if the app keeps a household (backups and recipe ratings).
    pub fn db(&self) -> Option<&Arc<Household>> {
        self.db.as_ref()
    }

    /// Where photos are kept, or why there are none (no household).
    pub(crate) fn photos(&self) -> Result<Arc<crate::photo_room::PhotoRoom>, WebError> {
        self.required()?;
        self.photos
            .clone()
            .ok_or_else(|| WebError::Forbidden(self.off.clone()))
    }

    /// The database, or why the app keeps no household.
    pub(crate) fn required(&self) -> Result<Arc<Household>, WebError> {
        if let Some(why) = &self.broken {
            return Err(WebError::HouseholdOff(why.clone()));
        }
        self.db
            .clone()
            .ok_or_else(|| WebError::Forbidden(self.off.clone()))
    }

    /// Who this request is for, with the database; or why nothing follows them.
    pub(crate) fn person(&self, visitor: &Visitor) -> Result<(Arc<Household>, Person), WebError> {
        let db = self.required()?;
        let Some(identity) = &visitor.0 else {
            return Err(WebError::Forbidden(
                "This connection does not say who you are (is the app reached through the tailnet?), so your choices stay on this device.".into(),
            ));
        };
        if !identity.tags.is_empty() {
            return Err(WebError::Forbidden(format!(
                "This device is tagged ({}) rather than a person's, so its choices stay on it.",
                identity.tags.join(", ")
            )));
        }
        let Some(login) = identity.login.as_deref() else {
            return Err(WebError::Forbidden(
                "The tailnet names no person for this device, so its choices stay on it.".into(),
            ));
        };
        Ok((db, Person::new(login, identity.display_name.as_deref())))
    }

    /// Whether this visitor may change the shelf.
    pub(crate) fn may_shelf(&self, visitor: &Visitor, editing: &Editing) -> bool {
        self.shelf_keeper(visitor, editing).is_ok()
    }

    /// The person changing the shelf, or why they may not.
    pub(crate) fn shelf_keeper(
        &self,
        visitor: &Visitor,
        editing: &Editing,
    ) -> Result<(Arc<Household>, Person), WebError> {
        self.granted(visitor, editing, |c| c.shelf, "Only the people who keep the bar's shelf can change it, and you are not one of them yet. Whoever runs your tailnet can let you (docs/DEPLOYING.md, \u{201c}Who is at the bar\u{201d}).")
    }

    /// The person composing the guests' menus or switching one on (granted `{"menu":
    /// true}` or `{"edit": true}`, or listed with `--editor`), or why they may not.
    pub(crate) fn menu_keeper(
        &self,
        visitor: &Visitor,
        editing: &Editing,
    ) -> Result<(Arc<Household>, Person), WebError> {
        self.granted(visitor, editing, |c| c.menu, "Only the people who host can compose or switch on the guests' menu, and you are not one of them yet. Whoever runs your tailnet can let you (docs/DEPLOYING.md, \u{201c}Who is at the bar\u{201d}).")
    }

    /// The token `/menus`' switch forms carry for this visitor, if they may compose.
    pub(crate) fn menu_form_token(&self, visitor: &Visitor, editing: &Editing) -> Option<String> {
        self.menu_keeper(visitor, editing).ok()?;
        Some(editing::form_token(&self.key, visitor.0.as_ref()?))
    }

    /// The token a recipe's photo forms carry for this visitor, if the household knows
    /// them (any person may add a photo).
    pub(crate) fn photo_form_token(&self, visitor: &Visitor) -> Option<String> {
        self.photos().ok()?;
        self.person(visitor).ok()?;
        Some(editing::form_token(&self.key, visitor.0.as_ref()?))
    }

    /// The token `/shopping`'s forms carry for this visitor, if they keep the shelf.
    pub(crate) fn shelf_form_token(&self, visitor: &Visitor, editing: &Editing) -> Option<String> {
        self.shelf_keeper(visitor, editing).ok()?;
        Some(editing::form_token(&self.key, visitor.0.as_ref()?))
    }

    /// Refuses a household form (`/menus`' switches, `/shopping`'s) whose token is not the
    /// one its page gave this visitor (another site's form, or one from before a restart).
    /// The visitor was admitted by the form's `Write<Kind>` already.
    pub(crate) fn check_form(&self, visitor: &Visitor, sent: &str) -> Result<(), WebError> {
        let Some(identity) = visitor.0.as_ref() else {
            return Err(WebError::Forbidden(
                "This connection does not say who you are.".into(),
            ));
        };
        editing::same_token(&editing::form_token(&self.key, identity), sent)
    }

    /// The person, when the policy grants them `grant` or `{"edit": true}`, or `--editor`
    /// lists them (one rule for every household grant); else `refusal`.
    fn granted(
        &self,
        visitor: &Visitor,
        editing: &Editing,
        grant: impl Fn(&Capabilities) -> bool,
        refusal: &str,
    ) -> Result<(Arc<Household>, Person), WebError> {
        let (db, person) = self.person(visitor)?;
        let granted = visitor
            .0
            .as_ref()
            .is_some_and(|i| grant(&i.capabilities) || i.capabilities.edit)
            || editing.listed(&person.login);
        if !granted {
            return Err(WebError::Forbidden(refusal.into()));
        }
        Ok((db, person))
    }

    /// The editor loading or taking the household's backup (granted `{"edit": true}` or
    /// listed with `--editor`; the backup does not need `--allow-edits`, which is about the
    /// recipes file), or why they may not.
    pub(crate) fn keeper(
        &self,
        visitor: &Visitor,
        editing: &Editing,
    ) -> Result<(Arc<Household>, Person), WebError> {
        let (db, person) = self.person(visitor)?;
        let granted = visitor.0.as_ref().is_some_and(|i| i.capabilities.edit)
            || editing.listed(&person.login);
        if !granted {
            return Err(WebError::Forbidden(
                "Only the people who may edit recipes can download or load the household's backup. Whoever runs your tailnet can let you (docs/DEPLOYING.md, \u{201c}Who is at the bar\u{201d}).".into(),
            ));
        }
        Ok((db, person))
    }

    /// What a search by this visitor answers its personal terms from: nothing for a
    /// search without them, or for an unknown visitor (their page answers them from the
    /// device, with JavaScript).
    pub(crate) async fn asking(
        &self,
        visitor: &Visitor,
        query: &SearchQuery,
    ) -> Result<Option<Asking>, WebError> {
        if query.personal.is_empty() {
            return Ok(None);
        }
        let Ok((db, person)) = self.person(visitor) else {
            return Ok(None);
        };
        Ok(Some(
            household_call(db, move |db| db.asking(&person.login)).await?,
        ))
    }

    /// Takes one household write from `person`'s allowance.
    pub(crate) fn take_household_write(&self, person: &Person) -> Result<(), WebError> {
        self.limiter
            .take(&person.login)
            .map_err(|wait| WebError::TooManyWrites(wait.as_secs().max(1)))
    }
}

/// Runs a household call on the blocking pool: SQLite reads and fsyncs.
pub(crate) async fn household_call<T: Send + 'static>(
    db: Arc<Household>,
    work: impl FnOnce(&Household) -> Result<T, HouseholdError> + Send + 'static,
) -> Result<T, WebError> {
    tokio::task::spawn_blocking(move || work(&db))
        .await
        .map_err(WebError::Task)?
        .map_err(WebError::from)
}
