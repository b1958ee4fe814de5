//! A customer's answer to a proposed maintenance window (owners and
//! technical members): accept it, or propose another start.

use app::portal::FormError;
use axum::extract::State;
use backend::servers::maintenance::{respond, MaintenanceError};
use serde::Deserialize;
use std::sync::Arc;

use super::page::{PageError, PageResult, SameOrigin};
use super::routes::{Route, TECHNICAL};
use super::server_action::OnServer;
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/maintenance-accept", TECHNICAL, accept),
        Route::post(
            "/{lang}/servers/{id}/maintenance-propose",
            TECHNICAL,
            propose,
        ),
    ]
}

impl From<MaintenanceError> for PageError {
    fn from(error: MaintenanceError) -> Self {
        match error {
            MaintenanceError::NotFound => PageError::NotFound,
            MaintenanceError::Db(error) => PageError::Unavailable(error),
            MaintenanceError::BadTime => FormError::MaintenanceTime.into(),
            MaintenanceError::Settled => FormError::MaintenanceSettled.into(),
        }
    }
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    window: String,
    /// The proposed start (UTC), when proposing another.
    #[serde(default)]
    at: String,
}

async fn accept(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Answer>,
) -> PageResult {
    respond(
        &state.db,
        &state.clock,
        &on.actor(),
        &on.id,
        &form.window,
        None,
    )
    .await?;
    on.done("maintenance-accept")
}

async fn propose(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Answer>,
) -> PageResult {
    let start = Some(domain::time::parse_utc(&form.at).unwrap_or(0));
    respond(
        &state.db,
        &state.clock,
        &on.actor(),
        &on.id,
        &form.window,
        start,
    )
    .await?;
    on.done("maintenance-propose")
}
