//! Stripe's side of billing: the webhook endpoint (signature checked on the
//! raw body, event stored and queued, 2xx at once) and the Billing Portal
//! link for payment methods.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use backend::billing::stripe::events::{self, ReceiveError};
use http::request::Parts;
use http::{HeaderMap, StatusCode};
use serde::de::IgnoredAny;
use std::sync::Arc;

use super::page::{lang_of, redirect, Member, PageResult, SameOrigin};
use super::routes::{Route, MONEY};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![Route::post("/{lang}/billing/portal", MONEY, portal)]
}

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
    let previous = state.config.stripe_webhook_secret_previous.as_ref();
    let secrets: Vec<&str> = std::iter::once(secret.expose())
        .chain(previous.map(|p| p.expose()))
        .collect();
    match events::receive(&state.db, &state.clock, &secrets, payload, header).await {
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

/// Sends an owner or billing member to Stripe's Billing Portal; without
/// Stripe (or a Stripe customer yet), back to the billing page. The form
/// has no fields of its own.
async fn portal(
    State(state): State<Arc<AppState>>,
    m: Member,
    parts: Parts,
    SameOrigin(_): SameOrigin<IgnoredAny>,
) -> PageResult {
    let lang = lang_of(&parts);
    let Some(client) = &state.stripe else {
        return Ok(redirect(lang, "/billing"));
    };
    let back = format!(
        "{}/{}/billing",
        state.config.public_base_url.trim_end_matches('/'),
        lang.code()
    );
    let url = backend::billing::stripe::portal_url(&state.db, client, &m.0.organization_id, &back)
        .await?;
    Ok(match url {
        Some(url) => Redirect::to(&url).into_response(),
        None => redirect(lang, "/billing"),
    })
}
