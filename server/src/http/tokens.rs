//! The API tokens page (every member; staff act for no organization): the
//! list, creating a token (its secret in that answer only: rendered from
//! the POST, never put in an address or the session) and revoking one.

use app::portal::tokens::{TokenRefusal, TokenRow, TokensView, REVOKED};
use app::portal::FormError;
use axum::extract::State;
use axum::response::Response;
use backend::api_tokens::{self, NewToken, Scope, TokenError};
use backend::organizations::{Membership, Role};
use backend::servers::Actor;
use http::header::{HeaderValue, CACHE_CONTROL};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{
    client_ip, lang_of, page, redirect, refused, Member, PageError, PageResult, SameOrigin, Signed,
};
use super::routes::{Route, MEMBERS};
use super::server_action::confirmed;
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/tokens", MEMBERS, tokens_page),
        Route::post("/{lang}/tokens", MEMBERS, create),
        Route::post("/{lang}/tokens/revoke", MEMBERS, revoke),
    ]
}

impl From<TokenError> for PageError {
    fn from(error: TokenError) -> Self {
        let refusal = match error {
            TokenError::InvalidName => TokenRefusal::Name,
            TokenError::NoScopes => TokenRefusal::NoScopes,
            TokenError::ScopeNotAllowed => TokenRefusal::Scope,
            TokenError::InvalidExpiry => TokenRefusal::Expiry,
            TokenError::TooMany => TokenRefusal::TooMany,
            TokenError::NotFound => return PageError::NotFound,
            TokenError::Db(error) => return PageError::Unavailable(error),
        };
        FormError::Token(refusal).into()
    }
}

/// The page's data: owners see the organization's tokens, other members
/// their own.
async fn view_of(
    state: &AppState,
    m: &Membership,
    created: Option<(String, String)>,
) -> anyhow::Result<TokensView> {
    let owner = m.role == Role::Owner;
    let only = (!owner).then_some(m.user_id.as_str());
    let tokens = api_tokens::list(&state.db, &m.organization_id, only).await?;
    Ok(TokensView {
        tokens: tokens.into_iter().map(|t| TokenRow::new(t, m)).collect(),
        offered: api_tokens::scopes_for(m.role).to_vec(),
        owner,
        now: state.clock.now(),
        created,
    })
}

async fn tokens_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    parts: Parts,
) -> PageResult {
    let view = view_of(&state, &m, None).await?;
    page(&state, parts, view).await
}

/// The create form's fields: `scope` repeats, one per ticked box.
#[derive(Default)]
struct NewTokenForm {
    name: String,
    scopes: Vec<String>,
    expires: String,
}

impl NewTokenForm {
    fn read(fields: Vec<(String, String)>) -> NewTokenForm {
        let mut form = NewTokenForm::default();
        for (name, value) in fields {
            match name.as_str() {
                "name" => form.name = value,
                "scope" => form.scopes.push(value),
                "expires" => form.expires = value,
                _ => {}
            }
        }
        form
    }

    /// `never`, or a number of days the backend checks.
    fn expires_in_days(&self) -> Result<Option<i64>, TokenError> {
        match self.expires.as_str() {
            "never" => Ok(None),
            days => days
                .parse()
                .map(Some)
                .map_err(|_| TokenError::InvalidExpiry),
        }
    }
}

async fn create(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(fields): SameOrigin<Vec<(String, String)>>,
) -> PageResult {
    let form = NewTokenForm::read(fields);
    let scopes_typed = form.scopes.join(" ");
    let kept = [
        ("name", form.name.as_str()),
        ("scopes", scopes_typed.as_str()),
        ("expires", form.expires.as_str()),
    ];
    let scopes: Option<Vec<Scope>> = form.scopes.iter().map(|s| Scope::parse(s)).collect();
    let Some(scopes) = scopes else {
        return Err(refused(FormError::Token(TokenRefusal::Scope), &kept));
    };
    let expires_in_days = form
        .expires_in_days()
        .map_err(|e| PageError::from(e).keeping(&kept))?;
    let ip = client_ip(&parts);
    let new = NewToken {
        organization_id: &m.organization_id,
        user_id: &m.user_id,
        email: &current.user.email,
        role: m.role,
        ip: ip.as_deref(),
        name: &form.name,
        scopes: &scopes,
        expires_in_days,
    };
    let (token, secret) = api_tokens::create(&state.db, &state.clock, &new)
        .await
        .map_err(|e| PageError::from(e).keeping(&kept))?;
    let view = view_of(&state, &m, Some((token.name, secret))).await?;
    let mut response: Response = page(&state, parts, view).await?;
    // The secret is in this answer: nothing may keep it.
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    id: String,
    #[serde(default)]
    confirm: String,
}

async fn revoke(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    let ip = client_ip(&parts);
    let by = Actor {
        organization_id: &m.organization_id,
        user_id: &m.user_id,
        email: &current.user.email,
        ip: ip.as_deref(),
    };
    let owner = m.role == Role::Owner;
    api_tokens::revoke(
        &state.db,
        &state.clock,
        &m.organization_id,
        &form.id,
        &by,
        owner,
    )
    .await?;
    Ok(redirect(
        lang_of(&parts),
        &format!("/tokens?done={REVOKED}"),
    ))
}
