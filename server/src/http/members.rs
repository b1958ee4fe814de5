//! Organization pages and posts: members and invitations (owners), the
//! audit log (owners), switching organization. The invitee's side is
//! `invitations.rs`.
//! The routes' declared access checks the caller's role; the handlers act
//! on the caller's current organization only.

use app::portal::audit::AuditView;
use app::portal::members::{MemberRow, MembersView, PendingRow};
use app::portal::notices::{code, done_path};
use app::portal::FormError;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use backend::accounts::Links;
use backend::organizations::{invitations, members, OrgError, Role};
use domain::{OrganizationId, UserId};
use http::request::Parts;
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

use super::auth::ORGANIZATION;
use super::page::{page, redirect, Member, PageError, PageLang, PageResult, SameOrigin, Signed};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    use super::routes::OWNERS;
    use Access::SignedIn;
    vec![
        Route::get("/{lang}/members", OWNERS, members_page),
        Route::post("/{lang}/members/{action}", OWNERS, members_post),
        Route::get("/{lang}/audit", OWNERS, audit_page),
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
            OrgError::UnknownInvitation => FormError::UnknownInvitation,
            OrgError::AccountExists => FormError::AccountExists,
            OrgError::TooMany(wait) => FormError::TooMany(wait),
            OrgError::Account(error) => return error.into(),
            OrgError::Db(error) => return PageError::Unavailable(error),
        };
        refusal.into()
    }
}

async fn members_view(
    state: &AppState,
    organization_id: &OrganizationId,
) -> anyhow::Result<MembersView> {
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
                role: m.role,
            })
            .collect(),
        pending: pending
            .into_iter()
            .map(|i| PendingRow {
                id: i.id,
                email: i.email,
                role: i.role,
                expires_at: i.expires_at,
            })
            .collect(),
    })
}

/// The members page; also shows a refused post on it again.
pub async fn members_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    parts: Parts,
) -> PageResult {
    let view = members_view(&state, &m.organization_id).await?;
    page(&state, parts, view).await
}

pub async fn audit_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    parts: Parts,
) -> PageResult {
    let entries = backend::audit::for_organization(&state.db, &m.organization_id, 200).await?;
    page(&state, parts, AuditView { entries }).await
}

#[derive(Deserialize)]
pub struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    user_id: UserId,
    #[serde(default)]
    invitation: String,
}

/// Owner posts on the members page: invite, send an invitation again,
/// withdraw one, change a role, remove, the two-factor requirement. Each
/// returns to the page saying what it did.
pub async fn members_post(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Path((_, action)): Path<(String, String)>,
    Member(m): Member,
    Signed(current): Signed,
    SameOrigin(form): SameOrigin<InviteForm>,
) -> PageResult {
    let role = Role::parse(&form.role);
    let inviter = invitations::Inviter {
        membership: &m,
        email: &current.user.email,
        name: &current.user.name,
        lang,
    };
    let links = Links {
        base_url: state.config.public_base_url.clone(),
    };
    let (db, clock) = (&state.db, &state.clock);
    let keep = |e: OrgError| PageError::from(e).keeping(&[("email", &form.email)]);
    let done = match (action.as_str(), role) {
        ("invite", Some(role)) => {
            let to = invitations::invite(db, clock, &links, &inviter, &form.email, role)
                .await
                .map_err(keep)?;
            done_path("/members", code::INVITED, Some(&to))
        }
        ("resend", _) => {
            let to = invitations::resend(db, clock, &links, &inviter, &form.invitation)
                .await
                .map_err(keep)?;
            done_path("/members", code::INVITE_RESENT, Some(&to))
        }
        ("revoke", _) => {
            let to = invitations::revoke(db, clock, &inviter, &form.invitation)
                .await
                .map_err(keep)?;
            done_path("/members", code::INVITE_REVOKED, Some(&to))
        }
        ("role", Some(role)) => {
            let email = &current.user.email;
            members::change_role(db, clock, &m, email, &form.user_id, role)
                .await
                .map_err(keep)?;
            done_path("/members", code::ROLE_CHANGED, None)
        }
        ("remove", _) => {
            members::remove(db, clock, &m, &current.user.email, &form.user_id)
                .await
                .map_err(keep)?;
            if form.user_id == current.user.id {
                return Ok(redirect(lang, "/account"));
            }
            done_path("/members", code::MEMBER_REMOVED, None)
        }
        ("two-factor", _) => {
            let required = form.role == "required";
            backend::accounts::two_factor::set_requirement(
                db,
                clock,
                &m.organization_id,
                &current.user,
                required,
            )
            .await
            .map_err(|e| keep(OrgError::Db(e)))?;
            let said = if required {
                code::TFA_REQUIRED
            } else {
                code::TFA_OPTIONAL
            };
            done_path("/members", said, None)
        }
        _ => return Ok(StatusCode::NOT_FOUND.into_response()),
    };
    Ok(redirect(lang, &done))
}

#[derive(Deserialize)]
pub struct OrganizationForm {
    #[serde(default)]
    organization: OrganizationId,
}

/// Only an organization the user belongs to can be chosen; another one is
/// denied. A database or session failure answers a bare 503.
pub async fn switch_organization(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Signed(current): Signed,
    session: Session,
    SameOrigin(form): SameOrigin<OrganizationForm>,
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
    Ok(redirect(
        lang,
        &done_path("/account", code::ORGANIZATION, None),
    ))
}
