//! The invitee's side of an invitation: the page its link opens (who
//! invites, to which organization, as what, or that it was withdrawn or
//! replaced), accepting it signed in, and signing up from it straight into
//! the organization with the invited address.

use crate::http::auth::{remember_return, start_login, ORGANIZATION};
use crate::http::page::{page, redirect, PageError, PageLang, PageResult, SameOrigin, Signed};
use crate::http::routes::{Access, Route};
use crate::startup::AppState;
use app::i18n::portal;
use app::portal::forms::{CsrfField, Field, FormErrorNotice};
use app::portal::notices::{code, done_path};
use app::portal::FormFeedback;
use app::portal::{role_name, use_feedback, use_viewer};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::State;
use backend::organizations::joining::{self, InvitedSignUp, LinkState};
use domain::{Lang, Role};
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower_sessions::Session;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum InviteState {
    Open,
    Withdrawn,
    Replaced,
    /// Used, expired, or never issued.
    Invalid,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InviteView {
    pub token: String,
    pub state: InviteState,
    pub organization: String,
    pub inviter: String,
    pub email: String,
    pub role: Option<Role>,
}

#[component]
pub fn InvitePage(lang: Lang, invite: InviteView) -> impl IntoView {
    let p = portal(lang);
    let logged_in = use_viewer().user.is_some();
    let title = match invite.state {
        InviteState::Open | InviteState::Withdrawn | InviteState::Replaced => {
            (p.invite_heading)(&invite.organization)
        }
        InviteState::Invalid => p.invite_title.to_owned(),
    };
    let body = match invite.state {
        InviteState::Withdrawn => {
            view! { <p class="notice notice-error" role="alert" data-testid="invite-state">{(p.invite_withdrawn)(&invite.organization)}</p> }.into_any()
        }
        InviteState::Replaced => {
            view! { <p class="notice notice-error" role="alert" data-testid="invite-state">{p.invite_replaced}</p> }.into_any()
        }
        InviteState::Invalid => {
            view! { <p class="notice notice-error" role="alert" data-testid="invite-state">{p.err_link}</p> }.into_any()
        }
        InviteState::Open if logged_in => view! {
            <form method="post" action=href(lang, "/invite")>
                <CsrfField />
                <input type="hidden" name="token" value=invite.token.clone() />
                <button type="submit">{p.invite_accept}</button>
            </form>
        }
        .into_any(),
        InviteState::Open => {
            let feedback = use_feedback();
            view! {
                <h2>{p.invite_new}</h2>
                <form method="post" action=href(lang, "/invite/signup")>
                    <CsrfField />
                    <input type="hidden" name="token" value=invite.token.clone() />
                    <div class="field">
                        <label for="invite-email">{p.email}</label>
                        <input id="invite-email" type="email" value=invite.email.clone() readonly aria-readonly="true" autocomplete="username" />
                    </div>
                    <Field lang label=p.name.to_owned() name="name" value=feedback.value("name") autocomplete="name" />
                    <Field lang label=p.password.to_owned() name="password" kind="password" autocomplete="new-password" hint=p.password_hint />
                    <button type="submit">{p.invite_signup_submit}</button>
                </form>
                <p>
                    {p.invite_existing}" "
                    <a href=href(lang, "/login") data-testid="invite-login">{p.login_title}</a>
                </p>
            }
            .into_any()
        }
    };
    let facts = (invite.state == InviteState::Open).then(|| {
        let role = invite.role.map_or("", |r| role_name(lang, r));
        view! {
            <p class="lead" data-testid="invite-facts">{(p.invite_facts)(&invite.inviter, &invite.organization, role)}</p>
            <p data-testid="invite-for">{(p.invite_for)(&invite.email)}</p>
        }
    });
    view! {
        <Page lang title=title.clone() description=p.invite_title.to_owned() rest="/invite".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="invite-title">
                <h1 id="invite-title">{title}</h1>
                {facts}
                <FormErrorNotice lang />
                {body}
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(InviteView => InvitePage(invite));

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
