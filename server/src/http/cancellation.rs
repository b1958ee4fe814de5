//! Cancelling a server at a term end, and taking that back (owners and
//! technical members). Which outside system hears first (Stripe) is the
//! backend's decision (`servers::cancellation::request`); it also mails
//! the owners. Both land at the top of the server's page, where the
//! outcome and the new end or renewal date are shown.

use app::portal::FormError;
use axum::extract::State;
use backend::servers::cancellation::{self, CancelError};
use serde::Deserialize;
use std::sync::Arc;

use super::page::{PageError, PageResult, SameOrigin};
use super::routes::{Route, TECHNICAL};
use super::server_action::{confirmed, Confirm, OnServer};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/cancel", TECHNICAL, cancel),
        Route::post("/{lang}/servers/{id}/revoke", TECHNICAL, revoke),
    ]
}

impl From<CancelError> for PageError {
    fn from(error: CancelError) -> Self {
        match error {
            CancelError::Server(error) => error.into(),
            CancelError::NameMismatch => FormError::CancelName.into(),
            CancelError::BadDate | CancelError::BadReason => FormError::Choice.into(),
            CancelError::Billing(error) => {
                tracing::error!(%error, "telling Stripe failed");
                FormError::Unavailable.into()
            }
        }
    }
}

#[derive(Deserialize)]
struct Cancel {
    #[serde(default)]
    at: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    confirm_name: String,
}

async fn cancel(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Cancel>,
) -> PageResult {
    confirmed(&form.confirm)?;
    let request = cancellation::Request {
        // Not a number is not a term end either: refused as one.
        at: form.at.trim().parse::<i64>().unwrap_or(0),
        reason: &form.reason,
        typed_name: &form.confirm_name,
    };
    let (db, clock, stripe) = (&state.db, &state.clock, state.stripe.as_ref());
    let base_url = &state.config.public_base_url;
    cancellation::request(db, clock, stripe, &on.actor(), &on.id, &request, base_url).await?;
    on.done("cancel")
}

async fn revoke(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(_): SameOrigin<Confirm>,
) -> PageResult {
    let (db, clock, stripe) = (&state.db, &state.clock, state.stripe.as_ref());
    let base_url = &state.config.public_base_url;
    cancellation::take_back(db, clock, stripe, &on.actor(), &on.id, base_url).await?;
    on.done("revoke")
}
