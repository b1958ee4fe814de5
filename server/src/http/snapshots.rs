//! A server's snapshots (owners and technical members): take one, restore
//! the server from one (confirmed), delete one (confirmed).

use app::portal::FormError;
use axum::extract::State;
use backend::servers::snapshots::{self, SnapshotError};
use domain::SnapshotId;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{PageError, PageResult, SameOrigin};
use super::routes::{Route, TECHNICAL};
use super::server_action::{confirmed, OnServer};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/snapshot", TECHNICAL, take),
        Route::post("/{lang}/servers/{id}/restore", TECHNICAL, restore),
        Route::post("/{lang}/servers/{id}/delete-snapshot", TECHNICAL, delete),
    ]
}

impl From<SnapshotError> for PageError {
    fn from(error: SnapshotError) -> Self {
        match error {
            SnapshotError::NotFound => PageError::NotFound,
            SnapshotError::Server(backend::servers::ServerError::Db(error)) => {
                PageError::Unavailable(error)
            }
            SnapshotError::InvalidName => FormError::SnapshotName.into(),
            SnapshotError::QuotaFull => FormError::SnapshotQuota.into(),
            SnapshotError::Busy | SnapshotError::Server(_) => FormError::SnapshotBusy.into(),
        }
    }
}

#[derive(Deserialize)]
struct Take {
    #[serde(default)]
    name: String,
}

/// A snapshot chosen on the page, with the confirmation checkbox.
#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    snapshot: SnapshotId,
    #[serde(default)]
    confirm: String,
}

/// Refuses when this deployment's Fleet cannot take snapshots.
fn offered(state: &AppState) -> Result<(), PageError> {
    if state.fleet.offers().snapshots {
        Ok(())
    } else {
        Err(FormError::SnapshotsNotOffered.into())
    }
}

async fn take(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Take>,
) -> PageResult {
    offered(&state)?;
    snapshots::take(&state.db, &state.clock, &on.actor(), &on.id, &form.name).await?;
    on.done("snapshot#snapshots")
}

async fn restore(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    offered(&state)?;
    snapshots::restore(&state.db, &state.clock, &on.actor(), &on.id, &form.snapshot).await?;
    // The restore's progress is the state line at the top: land there.
    on.done("restore")
}

async fn delete(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    snapshots::delete(&state.db, &state.clock, &on.actor(), &on.id, &form.snapshot).await?;
    on.done("delete-snapshot#snapshots")
}
