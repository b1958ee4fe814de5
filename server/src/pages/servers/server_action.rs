//! What every action on one server starts from: which server (the path's
//! `{id}`), who acts (a member whose role the route's access checked, and
//! their address for the audit log), and the confirmation destructive
//! actions need. Used by every action file in this folder.

use crate::http::page::{client_ip, lang_of, redirect, Member, PageError, Signed};
use crate::pages::servers::tabs::Tab;
use app::portal::FormError;
use axum::extract::{FromRequestParts, Path};
use axum::response::Response;
use backend::accounts::User;
use backend::organizations::Membership;
use backend::servers::Actor;
use domain::{Lang, OrganizationId, ServerId, UserId};
use http::request::Parts;
use serde::Deserialize;
use std::collections::HashMap;

/// A member acting on the server in the path.
pub struct OnServer {
    pub id: ServerId,
    pub lang: Lang,
    /// The caller's session (console tickets are bound to it).
    pub session_id: String,
    member: Membership,
    user: User,
    ip: Option<String>,
}

impl OnServer {
    /// The actor the backend records (organization scopes every query).
    pub fn actor(&self) -> Actor<'_> {
        Actor {
            organization_id: &self.member.organization_id,
            user_id: &self.user.id,
            email: &self.user.email,
            ip: self.ip.as_deref(),
        }
    }

    pub fn organization_id(&self) -> &OrganizationId {
        &self.member.organization_id
    }

    pub fn user_id(&self) -> &UserId {
        &self.user.id
    }

    /// Back to the server page's `tab`, saying what was done (`done=…`,
    /// with an optional `#section`).
    pub fn done(&self, tab: Tab, what: &str) -> Result<Response, PageError> {
        let (done, section) = what.split_once('#').unwrap_or((what, ""));
        let anchor = if section.is_empty() {
            String::new()
        } else {
            format!("#{section}")
        };
        Ok(redirect(
            self.lang,
            &format!("/servers/{}{}?done={done}{anchor}", self.id, tab.path()),
        ))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for OnServer {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Member(member) = Member::from_request_parts(parts, state).await?;
        let Signed(current) = Signed::from_request_parts(parts, state).await?;
        let Path(params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|_| PageError::NotFound)?;
        Ok(OnServer {
            id: params
                .get("id")
                .map(|id| ServerId::from(id.as_str()))
                .ok_or(PageError::NotFound)?,
            lang: lang_of(parts),
            session_id: current.session_id,
            member,
            user: current.user,
            ip: client_ip(parts),
        })
    }
}

/// A form with only the confirmation checkbox.
#[derive(Deserialize)]
pub struct Confirm {
    #[serde(default)]
    pub confirm: String,
}

/// A destructive action's form must carry the confirmation checkbox.
pub fn confirmed(confirm: &str) -> Result<(), PageError> {
    if confirm == "yes" {
        Ok(())
    } else {
        Err(FormError::Confirm.into())
    }
}
