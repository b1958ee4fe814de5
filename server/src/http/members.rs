//! Organization pages and posts: members and invitations (owners), the
//! audit log (owners), accepting an invitation, switching organization.
//! The routes' declared access checks the caller's role; the handlers act
//! on the caller's current organization only.

use app::portal::audit::AuditView;
use app::portal::members::{MemberRow, MembersView};
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use backend::accounts::Links;
use backend::organizations::{invitations, members, OrgError, Role};
use http::request::Parts;
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

use super::auth::ORGANIZATION;
use super::page::{redirect, render, Member, PageError, PageLang, PageResult, SameOrigin, Signed};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    use super::routes::OWNERS;
    use Access::{Anyone, SignedIn};
    vec![
        Route::get("/{lang}/members", OWNERS, members_page),
        Route::post("/{lang}/members/{action}", OWNERS, members_post),
        Route::get("/{lang}/audit", OWNERS, audit_page),
        Route::page("/{lang}/invite", Anyone),
        Route::post("/{lang}/invite", Anyone, accept_invite),
        Route::post(
            "/{lang}/account/organization",
            SignedIn,
            switch_organization,
        ),
    ]
}

impl From<OrgError> for PageError {
    fn from(error: OrgError) -> Self {
        let refusal = match error {
            OrgError::NotAllowed => FormError::Forbidden,
            OrgError::LastOwner => FormError::LastOwner,
            OrgError::OnlyOrganization => FormError::OnlyOrganization,
            OrgError::UnknownMember => FormError::NotMember,
            OrgError::InvalidEmail => FormError::InvalidEmail,
            OrgError::AlreadyMember => FormError::AlreadyMember,
            OrgError::BadLink => FormError::BadLink,
            OrgError::WrongAccount => FormError::WrongAccount,
            OrgError::Db(error) => return PageError::Unavailable(error),
        };
        refusal.into()
    }
}

async fn members_view(state: &AppState, organization_id: &str) -> anyhow::Result<MembersView> {
    let list = members::list(&state.db, organization_id).await?;
    let pending = invitations::pending(&state.db, &state.clock, organization_id).await?;
    let two_factor_required =
        backend::accounts::two_factor::required_by(&state.db, organization_id).await?;
    Ok(MembersView {
        two_factor_required,
        members: list
            .into_iter()
            .map(|m| MemberRow {
                user_id: m.user_id,
                name: m.name,
                email: m.email,
                role: m.role.as_str().to_owned(),
            })
            .collect(),
        pending: pending
            .into_iter()
            .map(|i| (i.email, i.role.as_str().to_owned()))
            .collect(),
    })
}

/// The members page; also shows a refused post on it again.
pub async fn members_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    mut parts: Parts,
) -> PageResult {
    let view = members_view(&state, &m.organization_id).await?;
    parts.extensions.insert(view);
    Ok(render(&state, parts, FormFeedback::default()).await)
}

pub async fn audit_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    mut parts: Parts,
) -> PageResult {
    let entries = backend::audit::for_organization(&state.db, &m.organization_id, 200).await?;
    parts.extensions.insert(AuditView { entries });
    Ok(render(&state, parts, FormFeedback::default()).await)
}

#[derive(Deserialize)]
pub struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    user_id: String,
}

/// Owner posts on the members page: invite, change a role, remove, the
/// two-factor requirement.
pub async fn members_post(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Path((_, action)): Path<(String, String)>,
    Member(m): Member,
    Signed(current): Signed,
    SameOrigin(form): SameOrigin<InviteForm>,
) -> PageResult {
    let role = Role::parse(&form.role);
    let result = match (action.as_str(), role) {
        ("invite", Some(role)) => {
            let inviter = invitations::Inviter {
                membership: &m,
                email: &current.user.email,
                name: &current.user.name,
                lang,
            };
            let links = Links {
                base_url: state.config.public_base_url.clone(),
            };
            invitations::invite(&state.db, &state.clock, &links, &inviter, &form.email, role).await
        }
        ("role", Some(role)) => {
            members::change_role(
                &state.db,
                &state.clock,
                &m,
                &current.user.email,
                &form.user_id,
                role,
            )
            .await
        }
        ("remove", _) => {
            members::remove(
                &state.db,
                &state.clock,
                &m,
                &current.user.email,
                &form.user_id,
            )
            .await
        }
        ("two-factor", _) => {
            let required = form.role == "required";
            backend::accounts::two_factor::set_requirement(
                &state.db,
                &state.clock,
                &m.organization_id,
                &current.user,
                required,
            )
            .await
            .map_err(OrgError::Db)
        }
        _ => return Ok(StatusCode::NOT_FOUND.into_response()),
    };
    result.map_err(|e| PageError::from(e).keeping(&[("email", &form.email)]))?;
    if action == "remove" && form.user_id == current.user.id {
        return Ok(redirect(lang, "/account"));
    }
    Ok(redirect(lang, "/members?done=1"))
}

#[derive(Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    organization: String,
}

pub async fn accept_invite(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    current: Option<Signed>,
    session: Session,
    SameOrigin(form): SameOrigin<TokenForm>,
) -> PageResult {
    let Some(Signed(current)) = current else {
        return Ok(redirect(lang, "/login?done=login"));
    };
    let m = invitations::accept(&state.db, &state.clock, &form.token, &current.user)
        .await
        .map_err(|e| PageError::from(e).keeping(&[("token", &form.token)]))?;
    if let Err(error) = session.insert(ORGANIZATION, &m.organization_id).await {
        tracing::error!(%error, "switching to the joined organization failed");
    }
    Ok(redirect(lang, "/account"))
}

/// Only an organization the user belongs to can be chosen; another one is
/// denied. A database or session failure answers a bare 503.
pub async fn switch_organization(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Signed(current): Signed,
    session: Session,
    SameOrigin(form): SameOrigin<TokenForm>,
) -> PageResult {
    let member =
        backend::organizations::membership_in(&state.db, &current.user.id, &form.organization)
            .await;
    let m = match member {
        Ok(Some(m)) => m,
        Ok(None) => return Err(PageError::Denied),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "switching organization failed");
            return Ok(StatusCode::SERVICE_UNAVAILABLE.into_response());
        }
    };
    if let Err(error) = session.insert(ORGANIZATION, &m.organization_id).await {
        tracing::error!(%error, "switching organization failed");
        return Ok(StatusCode::SERVICE_UNAVAILABLE.into_response());
    }
    let remembered =
        backend::organizations::remember_choice(&state.db, &current.user.id, &m.organization_id);
    if let Err(error) = remembered.await {
        tracing::error!(error = %format!("{error:#}"), "remembering the organization failed");
    }
    Ok(redirect(lang, "/account"))
}
