//! A new root password for a server whose password was lost (owners and
//! technical members): confirmed on the page, set through the Fleet by a
//! job, then shown once by the same reveal as the first one
//! (`servers.rs`).

use app::portal::FormError;
use axum::extract::State;
use backend::servers::root_password;
use std::sync::Arc;

use super::page::{PageResult, SameOrigin};
use super::routes::{Route, TECHNICAL};
use super::server_action::{confirmed, Confirm, OnServer};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![Route::post(
        "/{lang}/servers/{id}/root-password",
        TECHNICAL,
        reset,
    )]
}

async fn reset(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Confirm>,
) -> PageResult {
    confirmed(&form.confirm)?;
    if !state.fleet.offers().root_password_reset {
        return Err(FormError::RootResetNotOffered.into());
    }
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    root_password::request_reset(db, clock, sealer, &on.actor(), &on.id).await?;
    on.done("root-password#root-password-section")
}
