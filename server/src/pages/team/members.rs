//! Members of the current organization (owners only): roles, removal,
//! invitations by email (sent, sent again, withdrawn), and switching
//! organization. The invitee's side is `invitations`; the audit log is
//! `audit`. The routes' declared access checks the caller's role; the
//! handlers act on the caller's current organization only.

use crate::http::auth::ORGANIZATION;
use crate::http::page::{
    page, redirect, Member, PageError, PageLang, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Access, Route};
use crate::startup::AppState;
use app::i18n::portal;
use app::portal::forms::{CsrfField, Field, FormErrorNotice};
use app::portal::notices::SavedNotice;
use app::portal::notices::{code, done_path};
use app::portal::FormError;
use app::portal::{role_help, role_name, use_feedback, use_viewer};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use backend::accounts::Links;
use backend::organizations::{invitations, members, OrgError};
use domain::OrganizationId;
use domain::{Lang, Role, UserId};
use http::request::Parts;
use http::StatusCode;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower_sessions::Session;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MembersView {
    pub two_factor_required: bool,
    pub members: Vec<MemberRow>,
    pub pending: Vec<PendingRow>,
}

/// An invitation not answered yet.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PendingRow {
    pub id: String,
    pub email: String,
    pub role: Role,
    pub expires_at: i64,
}

pub use crate::pages::team::invitations::InvitePage;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemberRow {
    pub user_id: UserId,
    pub name: String,
    pub email: String,
    pub role: Role,
}

#[component]
pub fn MembersPage(lang: Lang, view: MembersView) -> impl IntoView {
    let p = portal(lang);
    let me = use_viewer().user.map(|u| u.email).unwrap_or_default();
    let rows = view
        .members
        .into_iter()
        .map(|m| {
            let options = Role::ALL
                .iter()
                .map(|r| view! { <option value=r.as_str() selected=*r == m.role>{role_name(lang, *r)}</option> })
                .collect_view();
            let label = format!("{} {}", p.members_role_of, m.email);
            let is_me = m.email == me;
            view! {
                <tr data-member=m.email.clone()>
                    <th scope="row">{m.name.clone()}<span class="country">{m.email.clone()}</span></th>
                    <td>
                        <form method="post" action=href(lang, "/members/role") class="inline">
                            <CsrfField />
                            <input type="hidden" name="user_id" value=m.user_id.to_string() />
                            <select name="role" aria-label=label>{options}</select>
                            <button type="submit">{p.members_change_role}</button>
                        </form>
                    </td>
                    <td>
                        <form method="post" action=href(lang, "/members/remove") class="inline">
                            <CsrfField />
                            <input type="hidden" name="user_id" value=m.user_id.to_string() />
                            <button type="submit" class="button-secondary">
                                {if is_me { p.members_leave } else { p.members_remove }}
                            </button>
                        </form>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let no_pending = view.pending.is_empty();
    let pending = view
        .pending
        .into_iter()
        .map(|i| {
            let resend_label = format!("{}: {}", p.members_resend, i.email);
            let revoke_label = format!("{}: {}", p.members_revoke, i.email);
            view! {
                <li data-invitation=i.email.clone()>
                    <span>{i.email.clone()}" · "{role_name(lang, i.role)}" · "{p.members_expires}" "{domain::time::format_date(i.expires_at)}</span>
                    <form method="post" action=href(lang, "/members/resend") class="inline">
                        <CsrfField />
                        <input type="hidden" name="invitation" value=i.id.clone() />
                        <button type="submit" class="button-secondary" aria-label=resend_label>{p.members_resend}</button>
                    </form>
                    <form method="post" action=href(lang, "/members/revoke") class="inline">
                        <CsrfField />
                        <input type="hidden" name="invitation" value=i.id.clone() />
                        <button type="submit" class="button-secondary" aria-label=revoke_label>{p.members_revoke}</button>
                    </form>
                </li>
            }
        })
        .collect_view();
    let feedback = use_feedback();
    view! {
        <Page lang title=p.members_title.to_owned() description=p.members_title.to_owned() rest="/members".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="members-title">
                <app::portal::nav::PortalNav lang />
                <h1 id="members-title">{p.members_title}</h1>
                <SavedNotice lang />
                <FormErrorNotice lang />
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(p.members_title)>
                    <table class="members">
                        <thead>
                            <tr>
                                <th scope="col">{p.name}</th>
                                <th scope="col">{p.account_role}</th>
                                <th scope="col"><span class="sr-only">{p.members_remove}</span></th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                <h2>{p.members_tfa_title}</h2>
                <p data-testid="tfa-requirement">
                    {if view.two_factor_required { p.members_tfa_on } else { p.members_tfa_off }}
                </p>
                <form method="post" action=href(lang, "/members/two-factor")>
                    <CsrfField />
                    <input type="hidden" name="role" value=if view.two_factor_required { "optional" } else { "required" } />
                    <button type="submit" class="button-secondary">
                        {if view.two_factor_required { p.members_tfa_stop } else { p.members_tfa_require }}
                    </button>
                </form>
                <h2>{p.members_pending}</h2>
                {if no_pending {
                    view! { <p>{p.members_pending_none}</p> }.into_any()
                } else {
                    view! { <ul class="site-list pending-invitations">{pending}</ul> }.into_any()
                }}
                <h2>{p.members_invite}</h2>
                <form method="post" action=href(lang, "/members/invite")>
                    <CsrfField />
                    <Field lang label=p.email.to_owned() name="email" kind="email" value=feedback.value("email") autocomplete="off" />
                    <div class="field">
                        <label for="invite-role">{p.account_role}</label>
                        <select id="invite-role" name="role" aria-describedby="invite-role-hint">
                            {Role::ALL.iter().map(|r| view! { <option value=r.as_str() selected=*r == Role::Technical>{role_name(lang, *r)}</option> }).collect_view()}
                        </select>
                        // What each choice means, before it is made.
                        <ul class="hint role-help" id="invite-role-hint" data-testid="role-help">
                            {Role::ALL.iter().map(|r| view! { <li data-role=r.as_str()><strong>{role_name(lang, *r)}</strong>{app::i18n::ui(lang).colon}{role_help(lang, *r)}</li> }).collect_view()}
                        </ul>
                    </div>
                    <button type="submit">{p.members_invite_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(MembersView => MembersPage(view));

pub fn routes() -> Vec<Route> {
    use crate::http::routes::OWNERS;
    use Access::SignedIn;
    vec![
        Route::get("/{lang}/members", OWNERS, members_page),
        Route::post("/{lang}/members/{action}", OWNERS, members_post),
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
