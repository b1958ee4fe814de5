//! Back-in-stock alerts: subscribing (anyone, from a sold-out choice) and
//! unsubscribing through the mailed link. Subscribing sends mail, so it is
//! limited per client address and per recipient like every such form.

use app::portal::{FormError, FormFeedback};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use backend::rate_limit::{self, MAIL_PER_ADDRESS, MAIL_PER_RECIPIENT};
use backend::stock_alerts::{self, AlertError, Subscription};
use http::request::Parts;
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{client_ip, forbidden_post, lang_of, redirect, refused, trusted, unavailable};
use super::auth::CurrentUser;
use super::portal::render;
use crate::startup::AppState;

#[derive(Deserialize)]
pub struct AlertForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    site: String,
}

/// Refusals show the configure page of the same choice with the message.
async fn configure_with(
    state: &AppState,
    mut parts: Parts,
    form: &AlertForm,
    feedback: FormFeedback,
) -> Response {
    let lang = lang_of(&parts);
    if let Ok(uri) = format!(
        "/{}/configure?plan={}&site={}",
        lang.code(),
        urlencode(&form.plan),
        urlencode(&form.site)
    )
    .parse()
    {
        parts.uri = uri;
    }
    match state.facts.current().await {
        Ok(v) => {
            parts.extensions.insert(v.facts.clone());
            render(state, parts, feedback).await
        }
        Err(error) => unavailable(state, parts, error).await,
    }
}

fn urlencode(raw: &str) -> String {
    form_urlencoded::byte_serialize(raw.as_bytes()).collect()
}

/// The form sits on the cached, shared configure page, so it carries no
/// per-session CSRF token: browsers' `Sec-Fetch-Site`/`Origin` decide, and a
/// client sending neither is refused.
pub async fn subscribe(
    State(state): State<Arc<AppState>>,
    current: Option<Extension<CurrentUser>>,
    parts: Parts,
    Form(form): Form<AlertForm>,
) -> Response {
    let lang = lang_of(&parts);
    if !trusted(&state, &parts, &form.csrf) {
        return configure_with(&state, parts, &form, forbidden_post()).await;
    }
    let ip = client_ip(&parts).unwrap_or_default();
    let recipient = form.email.trim().to_lowercase();
    let keys = [
        (format!("alert-ip:{ip}"), &MAIL_PER_ADDRESS),
        (format!("alert-to:{recipient}"), &MAIL_PER_RECIPIENT),
    ];
    let keys: Vec<(&str, &rate_limit::Limit)> =
        keys.iter().map(|(k, l)| (k.as_str(), *l)).collect();
    match rate_limit::take(&state.db, &keys, state.clock.now()).await {
        Ok(Ok(())) => {}
        Ok(Err(wait)) => {
            return configure_with(&state, parts, &form, refused(FormError::TooMany(wait), &[]))
                .await;
        }
        Err(error) => return unavailable(&state, parts, error).await,
    }
    let catalog = match state.facts.current().await {
        Ok(v) => v.facts.catalog.clone(),
        Err(error) => return unavailable(&state, parts, error).await,
    };
    let user_id = current.as_ref().map(|c| c.user.id.clone());
    let sub = Subscription {
        email: &form.email,
        lang,
        plan: &form.plan,
        site: &form.site,
        user_id: user_id.as_deref(),
        base_url: &state.config.public_base_url,
    };
    match stock_alerts::subscribe(&state.db, &state.clock, &catalog, &sub).await {
        Ok(()) => redirect(
            lang,
            &format!(
                "/configure?plan={}&site={}&alert=1",
                urlencode(&form.plan),
                urlencode(&form.site)
            ),
        ),
        Err(AlertError::InvalidEmail) => {
            configure_with(
                &state,
                parts,
                &form,
                refused(FormError::InvalidEmail, &[("email", &form.email)]),
            )
            .await
        }
        Err(AlertError::UnknownChoice) => StatusCode::NOT_FOUND.into_response(),
        Err(AlertError::Db(error)) => unavailable(&state, parts, error).await,
    }
}

#[derive(Deserialize)]
pub struct UnsubscribeForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    token: String,
}

pub async fn unsubscribe(
    State(state): State<Arc<AppState>>,
    parts: Parts,
    Form(form): Form<UnsubscribeForm>,
) -> Response {
    let lang = lang_of(&parts);
    if !trusted(&state, &parts, &form.csrf) {
        return render(&state, parts, forbidden_post()).await;
    }
    match stock_alerts::unsubscribe(&state.db, &state.clock, &form.token).await {
        Ok(true) => redirect(lang, "/alerts/unsubscribe?done=1"),
        Ok(false) => redirect(lang, "/alerts/unsubscribe?done=0"),
        Err(error) => unavailable(&state, parts, error).await,
    }
}
