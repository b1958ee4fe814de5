//! The invitee's side of an invitation: the page its link opens (who
//! invites, to which organization, as what, or that it was withdrawn),
//! accepting it signed in, and signing up from it straight into the
//! organization.

use app::portal::invite::{InviteState, InviteView};
use app::portal::notices::{code, done_path};
use app::portal::FormFeedback;
use axum::extract::State;
use backend::organizations::joining::{self, InvitedSignUp, LinkState};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

use super::auth::{remember_return, start_login, ORGANIZATION};
use super::page::{page, redirect, PageError, PageLang, PageResult, SameOrigin, Signed};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    use Access::Anyone;
    vec![
        Route::get("/{lang}/invite", Anyone, invite_page),
        Route::post("/{lang}/invite", Anyone, accept_invite),
        Route::post("/{lang}/invite/signup", Anyone, invite_signup),
    ]
}

fn token_of(parts: &Parts) -> String {
    let from_query = parts.uri.query().and_then(|q| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(name, _)| name == "token")
            .map(|(_, value)| value.into_owned())
    });
    // A refused form on this page keeps its token in the fields.
    from_query.unwrap_or_else(|| {
        parts
            .extensions
            .get::<FormFeedback>()
            .map(|f| f.value("token"))
            .unwrap_or_default()
    })
}

/// The invitation page. An anonymous visitor who chooses to log in comes
/// back here afterwards.
pub async fn invite_page(
    State(state): State<Arc<AppState>>,
    current: Option<Signed>,
    session: Session,
    parts: Parts,
) -> PageResult {
    let token = token_of(&parts);
    let facts = if token.is_empty() {
        None
    } else {
        joining::lookup(&state.db, &state.clock, &token).await?
    };
    let view = match facts {
        Some(f) => InviteView {
            token: token.clone(),
            state: match f.state {
                LinkState::Open => InviteState::Open,
                LinkState::Withdrawn => InviteState::Withdrawn,
                LinkState::Replaced => InviteState::Replaced,
                LinkState::Closed => InviteState::Invalid,
            },
            organization: f.organization,
            inviter: f.inviter,
            email: f.email,
            role: Some(f.role),
        },
        None => InviteView {
            token: token.clone(),
            state: InviteState::Invalid,
            organization: String::new(),
            inviter: String::new(),
            email: String::new(),
            role: None,
        },
    };
    if current.is_none() && view.state == InviteState::Open {
        let here = format!("{}?token={token}", parts.uri.path());
        remember_return(&session, &here).await?;
    }
    page(&state, parts, view).await
}

#[derive(Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    token: String,
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
    let m = joining::accept(&state.db, &state.clock, &form.token, &current.user)
        .await
        .map_err(|e| PageError::from(e).keeping(&[("token", &form.token)]))?;
    if let Err(error) = session.insert(ORGANIZATION, &m.organization_id).await {
        tracing::error!(%error, "switching to the joined organization failed");
    }
    Ok(redirect(lang, &done_path("/account", code::JOINED, None)))
}

#[derive(Deserialize)]
pub struct InvitedSignUpForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
}

/// A new account from the invitation: signed in, in the inviting
/// organization with the invited role, and nowhere else.
pub async fn invite_signup(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    session: Session,
    SameOrigin(form): SameOrigin<InvitedSignUpForm>,
) -> PageResult {
    let keep = [("token", form.token.as_str()), ("name", form.name.as_str())];
    let input = InvitedSignUp {
        token: &form.token,
        name: &form.name,
        password: form.password.clone(),
        lang,
    };
    let (user, m) = joining::sign_up(&state.db, &state.clock, input)
        .await
        .map_err(|e| PageError::from(e).keeping(&keep))?;
    start_login(&session, &user.id, state.clock.now()).await?;
    session
        .insert(ORGANIZATION, &m.organization_id)
        .await
        .map_err(anyhow::Error::from)?;
    Ok(redirect(lang, &done_path("/account", code::JOINED, None)))
}
