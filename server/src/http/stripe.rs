//! Stripe's side of billing: the webhook endpoint (signature checked on the
//! raw body, event stored and queued, 2xx at once) and the Billing Portal
//! link for payment methods.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use backend::billing::stripe::events::{self, ReceiveError};
use http::request::Parts;
use http::{HeaderMap, StatusCode};
use serde::Deserialize;
use std::sync::Arc;

use super::access::{denied, lang_of, member_in, redirect, trusted, unavailable, MONEY};
use super::auth::CurrentUser;
use crate::startup::AppState;

pub async fn webhook(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(secret) = &state.config.stripe_webhook_secret else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let header = headers
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let Ok(payload) = std::str::from_utf8(&body) else {
        return (StatusCode::BAD_REQUEST, "not UTF-8").into_response();
    };
    match events::receive(&state.db, &state.clock, secret.expose(), payload, header).await {
        Ok(received) => (StatusCode::OK, format!("{received:?}")).into_response(),
        Err(ReceiveError::Refused(error)) => {
            tracing::warn!(%error, "refused a Stripe webhook");
            (StatusCode::BAD_REQUEST, "bad signature").into_response()
        }
        Err(ReceiveError::Store(error)) => {
            tracing::error!(error = %format!("{error:#}"), "storing a Stripe event failed");
            // Stripe retries non-2xx answers, which is what we want here.
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}

#[derive(Deserialize)]
pub struct PortalForm {
    #[serde(default)]
    csrf: String,
}

/// Sends an owner or billing member to Stripe's Billing Portal.
pub async fn portal(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
    Form(form): Form<PortalForm>,
) -> Response {
    let lang = lang_of(&parts);
    let Some(m) = member_in(&current, MONEY).cloned() else {
        return denied(&state, parts).await;
    };
    let (Some(client), true) = (&state.stripe, trusted(&state, &parts, &form.csrf)) else {
        return redirect(lang, "/billing");
    };
    let back = format!(
        "{}/{}/billing",
        state.config.public_base_url.trim_end_matches('/'),
        lang.code()
    );
    match backend::billing::stripe::portal_url(&state.db, client, &m.organization_id, &back).await {
        Ok(Some(url)) => axum::response::Redirect::to(&url).into_response(),
        Ok(None) => redirect(lang, "/billing"),
        Err(error) => unavailable(&state, parts, error).await,
    }
}
