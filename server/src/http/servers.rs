//! Servers (owners and technical members): the list, one server's page, its
//! progress as JSON for the page's progress island, renaming and showing the root
//! password once. The other actions on a server have files of their own:
//! `power.rs`, `cancellation.rs`, `snapshots.rs`, `maintenance.rs`,
//! `console.rs`.

use app::portal::maintenance::WindowRow;
use app::portal::servers::overdue::OverdueView;
use app::portal::servers::{ServerDetailView, ServerRow, ServersView};
use app::portal::telemetry::TelemetryView;
use app::portal::FormError;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::organizations::Membership;
use backend::servers::billing_state;
use backend::servers::{self, Server, ServerError, ServerState};
use domain::ServerId;
use http::request::Parts;
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{lang_of, page, Member, PageError, PageResult, SameOrigin};
use super::routes::{Route, TECHNICAL};
use super::server_action::{Confirm, OnServer};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/servers", TECHNICAL, list),
        Route::get("/{lang}/servers/{id}", TECHNICAL, show),
        Route::get("/{lang}/servers/{id}/progress", TECHNICAL, progress),
        Route::post("/{lang}/servers/{id}/rename", TECHNICAL, rename),
        Route::post("/{lang}/servers/{id}/reveal", TECHNICAL, reveal),
    ]
}

impl From<ServerError> for PageError {
    fn from(error: ServerError) -> Self {
        match error {
            ServerError::NotFound => PageError::NotFound,
            ServerError::InvalidName => PageError::from(FormError::ServerName),
            ServerError::Busy(_) => PageError::from(FormError::Busy),
            ServerError::Db(error) => PageError::Unavailable(error),
        }
    }
}

async fn list(State(state): State<Arc<AppState>>, m: Member, parts: Parts) -> PageResult {
    let org = &m.0.organization_id;
    let list = servers::list(&state.db, org).await?;
    let (now, grace) = (state.clock.now(), state.seller.grace_days);
    let mut overdue = billing_state::overdue(&state.db, org, None, now, grace).await?;
    let view = ServersView {
        servers: list
            .into_iter()
            .map(|s| {
                let found = overdue.iter().position(|o| o.server_id == s.id);
                let o = found.map(|at| OverdueView::new(overdue.swap_remove(at), m.0.role.money()));
                ServerRow::new(s, o)
            })
            .collect(),
    };
    page(&state, parts, view).await
}

/// The server page, with the root password when it was just taken.
async fn detail(
    state: &AppState,
    parts: Parts,
    member: &Membership,
    id: &ServerId,
    root_password: Option<String>,
) -> PageResult {
    let (db, clock, grace) = (&state.db, &state.clock, state.seller.grace_days);
    let found = servers::overview::overview(db, clock, &member.organization_id, id, grace).await?;
    let o = found.ok_or(PageError::NotFound)?;
    let overdue = o.overdue.map(|o| OverdueView::new(o, member.role.money()));
    let (telemetry, telemetry_error) = match telemetry(state, &o.server).await {
        Ok(t) => (t, false),
        Err(error) => {
            tracing::warn!(error = %error, server = %o.server.id, "reading telemetry failed");
            (None, true)
        }
    };
    let view = ServerDetailView {
        degraded: o.degraded,
        windows: o.windows.into_iter().map(WindowRow::from).collect(),
        snapshots: o
            .snapshots
            .into_iter()
            .map(|s| app::portal::snapshots::SnapshotRow {
                id: s.id,
                name: s.name,
                state: s.state,
                size_bytes: s.size_bytes,
                created_at: s.created_at,
            })
            .collect(),
        snapshot_quota: backend::servers::snapshots::QUOTA,
        snapshots_offered: state.fleet.offers().snapshots,
        root_reset_offered: state.fleet.offers().root_password_reset,
        availability: (o.availability.ppm, o.availability.down_secs),
        sla: o.sla,
        server: ServerRow::new(o.server, overdue),
        events: o
            .events
            .into_iter()
            .map(|e| (e.at, e.kind, e.detail))
            .collect(),
        root_password,
        telemetry,
        telemetry_error,
    };
    page(state, parts, view).await
}

/// The last 24 hours of a running server, every 15 minutes.
async fn telemetry(state: &AppState, server: &Server) -> anyhow::Result<Option<TelemetryView>> {
    let (Some(host), true) = (&server.host_name, server.state == ServerState::Running) else {
        return Ok(None);
    };
    let cards = state
        .facts
        .current()
        .await
        .ok()
        .and_then(|v| v.facts.catalog.plan(&server.plan_id).map(|p| p.gpu_count))
        .unwrap_or(1);
    let to = state.clock.now();
    // Only since delivery: nothing from before the rental (issue 17).
    let t = backend::servers::telemetry::since_delivery(
        &state.db,
        state.fleet.as_ref(),
        server,
        host,
        cards,
        to,
        900,
    )
    .await?;
    let per_card = |pick: &dyn Fn(&backend::fleet::Sample, usize) -> i64| -> Vec<Vec<(i64, i64)>> {
        (0..cards as usize)
            .map(|card| t.samples.iter().map(|s| (s.at, pick(s, card))).collect())
            .collect()
    };
    Ok(Some(TelemetryView {
        from: to - backend::servers::telemetry::WINDOW_SECS,
        to,
        temps: per_card(&|s, c| s.gpu_temp_c.get(c).copied().unwrap_or(0)),
        clocks: per_card(&|s, c| s.sm_clock_mhz.get(c).copied().unwrap_or(0)),
        ecc: t.ecc,
        traffic_bytes: t.traffic_bytes,
        fair_use_bytes: backend::fleet::FAIR_USE_BYTES,
    }))
}

async fn show(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, ServerId)>,
    parts: Parts,
) -> PageResult {
    detail(&state, parts, &m.0, &id, None).await
}

/// What the page's progress island (`app/src/portal/progress.rs`) reads
/// every two seconds while a server installs or restarts: its state and
/// progress, already in the page's language. A script reads it, so
/// failures are bare statuses, not pages.
async fn progress(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, ServerId)>,
    parts: Parts,
) -> Response {
    let o = app::i18n::orders(lang_of(&parts));
    let s = match servers::get(&state.db, &m.0.organization_id, &id).await {
        Ok(Some(s)) => s,
        Ok(None) => return StatusCode::NOT_FOUND.into_response(),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "reading progress failed");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let shown = s.shown_state();
    Json(serde_json::json!({
        "state_label": (o.server_state)(shown),
        "state": shown,
        "progress": s.progress,
        "step_label": (o.step_label)(s.step),
        "ipv4": s.ipv4,
        "ipv6": s.ipv6,
        "done": !shown.in_progress(),
    }))
    .into_response()
}

#[derive(Deserialize)]
struct Rename {
    #[serde(default)]
    name: String,
}

async fn rename(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Rename>,
) -> PageResult {
    servers::rename(&state.db, &state.clock, &on.actor(), &on.id, &form.name)
        .await
        .map_err(|error| PageError::from(error).keeping(&[("name", &form.name)]))?;
    on.done("rename")
}

/// Shows the root password once: it is gone from the database afterwards,
/// so it appears in this response only.
async fn reveal(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    m: Member,
    mut parts: Parts,
    SameOrigin(_): SameOrigin<Confirm>,
) -> PageResult {
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    let password = servers::take_root_password(db, clock, sealer, &on.actor(), &on.id).await?;
    if let Ok(uri) = format!("/{}/servers/{}", on.lang.code(), on.id).parse() {
        parts.uri = uri;
    }
    detail(&state, parts, &m.0, &on.id, password).await
}
