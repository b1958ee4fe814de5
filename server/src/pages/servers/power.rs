//! Power actions on a server (owners and technical members): a reboot, a
//! power cycle or a power off of a running server, or powering on one that
//! is off, through the Fleet, each confirmed on the page.

use crate::http::page::{PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::{confirmed, Confirm, OnServer};
use crate::pages::servers::tabs::Tab;
use crate::startup::AppState;
use axum::extract::State;
use backend::fleet::PowerAction;
use backend::servers;
use std::sync::Arc;

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/power/reboot", TECHNICAL, reboot),
        Route::post(
            "/{lang}/servers/{id}/power/power_cycle",
            TECHNICAL,
            power_cycle,
        ),
        Route::post("/{lang}/servers/{id}/power/power_off", TECHNICAL, power_off),
        Route::post("/{lang}/servers/{id}/power/power_on", TECHNICAL, power_on),
    ]
}

async fn reboot(
    state: State<Arc<AppState>>,
    on: OnServer,
    form: SameOrigin<Confirm>,
) -> PageResult {
    power(state, on, form, PowerAction::Reboot).await
}

async fn power_cycle(
    state: State<Arc<AppState>>,
    on: OnServer,
    form: SameOrigin<Confirm>,
) -> PageResult {
    power(state, on, form, PowerAction::PowerCycle).await
}

async fn power_off(
    state: State<Arc<AppState>>,
    on: OnServer,
    form: SameOrigin<Confirm>,
) -> PageResult {
    power(state, on, form, PowerAction::PowerOff).await
}

async fn power_on(
    state: State<Arc<AppState>>,
    on: OnServer,
    form: SameOrigin<Confirm>,
) -> PageResult {
    power(state, on, form, PowerAction::PowerOn).await
}

async fn power(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Confirm>,
    action: PowerAction,
) -> PageResult {
    confirmed(&form.confirm)?;
    servers::power(&state.db, &state.clock, &on.actor(), &on.id, action).await?;
    on.done(Tab::Power, "power")
}
