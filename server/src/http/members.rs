//! Organization pages and posts: members and invitations (owners), the
//! audit log (owners), accepting an invitation, switching organization.
//! Every handler checks the caller's role in the organization it acts on.

use app::portal::audit::AuditView;
use app::portal::members::{MemberRow, MembersView};
use app::portal::{FormError, FormFeedback, Viewer};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use backend::accounts::Links;
use backend::organizations::{invitations, members, Membership, OrgError, Role};
use http::request::Parts;
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

use super::access::denied;
use super::access::PageLang;
use super::auth::{same_origin, CurrentUser, ORGANIZATION};
use super::portal::render;
use crate::startup::AppState;

fn org_error(error: OrgError) -> FormError {
    match error {
        OrgError::NotAllowed => FormError::Forbidden,
        OrgError::LastOwner => FormError::LastOwner,
        OrgError::OnlyOrganization => FormError::OnlyOrganization,
        OrgError::UnknownMember => FormError::NotMember,
        OrgError::InvalidEmail => FormError::InvalidEmail,
        OrgError::AlreadyMember => FormError::AlreadyMember,
        OrgError::BadLink => FormError::BadLink,
        OrgError::WrongAccount => FormError::WrongAccount,
        OrgError::Db(error) => {
            tracing::error!(error = %format!("{error:#}"), "organization operation failed");
            FormError::Unavailable
        }
    }
}

/// The caller's membership if they are an owner of their current
/// organization; otherwise the page says they are not allowed.
fn owner(current: &CurrentUser) -> Option<&Membership> {
    current
        .membership
        .as_ref()
        .filter(|m| m.role == Role::Owner && !current.user.is_staff)
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

/// The members page, with `feedback` from a refused post.
async fn members_response(
    state: &AppState,
    mut parts: Parts,
    membership: &Membership,
    feedback: FormFeedback,
) -> Response {
    match members_view(state, &membership.organization_id).await {
        Ok(view) => {
            // A refused post shows the members page, where its form is.
            let page = format!("/{}/members", lang_code(&parts));
            if parts.uri.path() != page {
                if let Ok(uri) = page.parse() {
                    parts.uri = uri;
                }
            }
            parts.extensions.insert(view);
            render(state, parts, feedback).await
        }
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "loading members failed");
            render(
                state,
                parts,
                FormFeedback {
                    error: Some(FormError::Unavailable),
                    values: Vec::new(),
                },
            )
            .await
        }
    }
}

fn lang_code(parts: &Parts) -> &'static str {
    app::context::lang_of_path(parts.uri.path())
        .unwrap_or_default()
        .code()
}

pub async fn members_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
) -> Response {
    match owner(&current) {
        Some(m) => members_response(&state, parts, m, FormFeedback::default()).await,
        None => denied(&state, parts).await,
    }
}

pub async fn audit_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    mut parts: Parts,
) -> Response {
    let Some(m) = owner(&current) else {
        return denied(&state, parts).await;
    };
    match backend::audit::for_organization(&state.db, &m.organization_id, 200).await {
        Ok(entries) => {
            parts.extensions.insert(AuditView { entries });
            render(&state, parts, FormFeedback::default()).await
        }
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "loading the audit log failed");
            render(
                &state,
                parts,
                FormFeedback {
                    error: Some(FormError::Unavailable),
                    values: Vec::new(),
                },
            )
            .await
        }
    }
}

#[derive(Deserialize)]
pub struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    user_id: String,
    #[serde(default)]
    csrf: String,
}

/// Owner posts on the members page: invite, change a role, remove.
pub async fn members_post(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Path((_, action)): Path<(String, String)>,
    Extension(viewer): Extension<Viewer>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
    Form(form): Form<InviteForm>,
) -> Response {
    if !same_origin(&state, &parts.headers, &form.csrf, &viewer) {
        return render(
            &state,
            parts,
            FormFeedback {
                error: Some(FormError::Forbidden),
                values: Vec::new(),
            },
        )
        .await;
    }
    let Some(m) = owner(&current).cloned() else {
        return denied(&state, parts).await;
    };
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
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    match result {
        Ok(()) if action == "remove" && form.user_id == current.user.id => {
            Redirect::to(&format!("/{}/account", lang.code())).into_response()
        }
        Ok(()) => Redirect::to(&format!("/{}/members?done=1", lang.code())).into_response(),
        Err(error) => {
            let feedback = FormFeedback {
                error: Some(org_error(error)),
                values: vec![("email".into(), form.email)],
            };
            members_response(&state, parts, &m, feedback).await
        }
    }
}

#[derive(Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    organization: String,
    #[serde(default)]
    csrf: String,
}

pub async fn accept_invite(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    current: Option<Extension<CurrentUser>>,
    session: Session,
    parts: Parts,
    Form(form): Form<TokenForm>,
) -> Response {
    let keep = vec![("token".to_owned(), form.token.clone())];
    if !same_origin(&state, &parts.headers, &form.csrf, &viewer) {
        return render(
            &state,
            parts,
            FormFeedback {
                error: Some(FormError::Forbidden),
                values: keep,
            },
        )
        .await;
    }
    let Some(Extension(current)) = current else {
        return Redirect::to(&format!("/{}/login?done=login", lang.code())).into_response();
    };
    match invitations::accept(&state.db, &state.clock, &form.token, &current.user).await {
        Ok(m) => {
            if let Err(error) = session.insert(ORGANIZATION, &m.organization_id).await {
                tracing::error!(%error, "switching to the joined organization failed");
            }
            Redirect::to(&format!("/{}/account", lang.code())).into_response()
        }
        Err(error) => {
            render(
                &state,
                parts,
                FormFeedback {
                    error: Some(org_error(error)),
                    values: keep,
                },
            )
            .await
        }
    }
}

pub async fn switch_organization(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    Extension(current): Extension<CurrentUser>,
    session: Session,
    parts: Parts,
    Form(form): Form<TokenForm>,
) -> Response {
    if !same_origin(&state, &parts.headers, &form.csrf, &viewer) {
        return render(
            &state,
            parts,
            FormFeedback {
                error: Some(FormError::Forbidden),
                values: Vec::new(),
            },
        )
        .await;
    }
    // Only an organization the user belongs to can be chosen.
    let member =
        backend::organizations::membership_in(&state.db, &current.user.id, &form.organization)
            .await;
    match member {
        Ok(Some(m)) => match session.insert(ORGANIZATION, &m.organization_id).await {
            Ok(()) => {
                let remembered = backend::organizations::remember_choice(
                    &state.db,
                    &current.user.id,
                    &m.organization_id,
                );
                if let Err(error) = remembered.await {
                    tracing::error!(error = %format!("{error:#}"), "remembering the organization failed");
                }
                Redirect::to(&format!("/{}/account", lang.code())).into_response()
            }
            Err(error) => {
                tracing::error!(%error, "switching organization failed");
                StatusCode::SERVICE_UNAVAILABLE.into_response()
            }
        },
        Ok(None) => denied(&state, parts).await,
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "switching organization failed");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}
