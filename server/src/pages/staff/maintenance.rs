//! Staff maintenance (on the hosts page): marking a host degraded,
//! proposing a maintenance window for its server, and confirming a start
//! the customer proposed instead. The customer's answers are in
//! `maintenance.rs`.

use crate::http::page::{refused, PageError, PageResult, SameOrigin, Signed};
use crate::http::routes::{Access, Route};
use crate::pages::staff::hosts::{actor, done};
use crate::startup::AppState;
use app::portal::FormError;
use axum::extract::State;
use backend::servers::maintenance::{self, MaintenanceError};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

pub fn routes() -> Vec<Route> {
    use Access::Staff;
    vec![
        Route::post("/{lang}/staff/hosts/degrade", Staff, degrade),
        Route::post("/{lang}/staff/hosts/propose", Staff, propose),
        Route::post("/{lang}/staff/hosts/confirm", Staff, confirm),
    ]
}

/// The hosts page again with why maintenance refused, and the host named.
/// An unknown host or window is the form's error here, not a 404 page.
fn refusal(error: MaintenanceError, name: &str) -> PageError {
    let error = match error {
        MaintenanceError::NotFound => FormError::UnknownHost,
        MaintenanceError::BadTime => FormError::MaintenanceTime,
        MaintenanceError::Settled => FormError::MaintenanceSettled,
        MaintenanceError::Db(error) => return PageError::Unavailable(error),
    };
    refused(error, &[("name", name)])
}

#[derive(Deserialize)]
struct Degrade {
    #[serde(default)]
    name: String,
    #[serde(default)]
    reason: String,
}

/// Marks a host degraded, with the reason its customer is told.
async fn degrade(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Degrade>,
) -> PageResult {
    let result = if form.reason.trim().is_empty() {
        Err(MaintenanceError::BadTime)
    } else {
        maintenance::mark_degraded(
            &state.db,
            &state.clock,
            form.name.trim(),
            form.reason.trim(),
            &actor(&staff),
        )
        .await
    };
    result.map_err(|error| refusal(error, &form.name))?;
    done(&parts)
}

#[derive(Deserialize)]
struct Proposal {
    #[serde(default)]
    name: String,
    /// The start (UTC).
    #[serde(default)]
    at: String,
    #[serde(default)]
    hours: String,
    #[serde(default)]
    note: String,
}

/// Proposes a maintenance window on a host to its server's customer.
async fn propose(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Proposal>,
) -> PageResult {
    let at = domain::time::parse_utc(&form.at).unwrap_or(0);
    let hours = form.hours.trim().parse().unwrap_or(0);
    maintenance::propose(
        &state.db,
        &state.clock,
        form.name.trim(),
        at,
        hours,
        form.note.trim(),
        &actor(&staff),
    )
    .await
    .map_err(|error| refusal(error, &form.name))?;
    done(&parts)
}

#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    window: String,
}

/// Accepts the start a customer proposed for a window.
async fn confirm(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    maintenance::confirm(&state.db, &state.clock, &form.window, &actor(&staff))
        .await
        .map_err(|error| refusal(error, ""))?;
    done(&parts)
}
