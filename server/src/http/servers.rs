//! Servers (owners and technical members): the list, one server's page, its
//! progress as JSON for the page's script, and the actions on it: rename,
//! reboot, power cycle (each confirmed), showing the root password once.

use app::portal::servers::{ServerDetailView, ServerRow, ServersView};
use app::portal::telemetry::TelemetryView;
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form, Json};
use backend::fleet::PowerAction;
use backend::servers::{self, Actor, Server, ServerError};
use http::request::Parts;
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{
    client_ip, denied, forbidden_post, lang_of, member_in, not_found, page, redirect, refused,
    trusted, unavailable, TECHNICAL,
};
use super::auth::CurrentUser;
use crate::startup::AppState;

fn row(s: Server) -> ServerRow {
    let ssh_keys = s
        .ssh_keys
        .iter()
        .filter_map(|k| backend::ssh_keys::parse(k).ok())
        .map(|k| (k.fingerprint, k.comment))
        .collect();
    let cancel_dates = match (s.renews_at, s.cancelled_at, s.state.as_str()) {
        (Some(renews), None, "running" | "rebooting") => {
            backend::servers::cancellation::term_ends(s.term_start, renews)
        }
        _ => Vec::new(),
    };
    ServerRow {
        id: s.id,
        name: s.name,
        plan_id: s.plan_id,
        site_code: s.site_code,
        state: app::portal::servers::shown_state(&s.state, &s.step),
        progress: s.progress,
        step: s.step,
        os_image: s.os_image,
        addons: s.addons,
        ssh_keys,
        ipv4: s.ipv4,
        ipv6: s.ipv6,
        has_secret: s.has_secret,
        term_start: s.term_start,
        renews_at: s.renews_at,
        order_id: s.order_id,
        cancel_at: s.cancel_at,
        cancelled_at: s.cancelled_at,
        cancel_dates,
    }
}

/// A maintenance window as the pages show it (the staff page adds the
/// host and server names).
pub fn window_row(w: backend::servers::maintenance::Window) -> app::portal::maintenance::WindowRow {
    app::portal::maintenance::WindowRow {
        id: w.id,
        starts_at: w.starts_at,
        ends_at: w.ends_at,
        state: w.state,
        proposed_by: w.proposed_by,
        note: w.note,
        ..Default::default()
    }
}

pub async fn servers_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, TECHNICAL).cloned() else {
        return denied(&state, parts).await;
    };
    match servers::list(&state.db, &m.organization_id).await {
        Ok(list) => {
            let view = ServersView {
                servers: list.into_iter().map(row).collect(),
            };
            page(&state, parts, view, FormFeedback::default()).await
        }
        Err(error) => unavailable(&state, parts, error).await,
    }
}

/// The server page, optionally with the root password just taken or the
/// feedback of a refused post.
async fn detail(
    state: &AppState,
    parts: Parts,
    organization_id: &str,
    id: &str,
    root_password: Option<String>,
    feedback: FormFeedback,
) -> Response {
    let server = match servers::get(&state.db, organization_id, id).await {
        Ok(Some(server)) => server,
        Ok(None) => return not_found(state, parts).await,
        Err(error) => return unavailable(state, parts, error).await,
    };
    let events = match servers::events(&state.db, id, 30).await {
        Ok(events) => events,
        Err(error) => return unavailable(state, parts, error).await,
    };
    let (telemetry, telemetry_error) = match telemetry(state, &server).await {
        Ok(t) => (t, false),
        Err(error) => {
            tracing::warn!(error = %error, server = %server.id, "reading telemetry failed");
            (None, true)
        }
    };
    let now = state.clock.now();
    let (y, m, _) = domain::time::civil_from_days(now.div_euclid(86_400));
    let month_start = domain::time::days_from_civil(y, m, 1) * 86_400;
    let spans =
        match backend::servers::failures::downtime(&state.db, &server.id, month_start, now).await {
            Ok(spans) => spans,
            Err(error) => return unavailable(state, parts, error).await,
        };
    let windows = match backend::servers::maintenance::excluded_spans(
        &state.db,
        &server.id,
        month_start,
        now,
    )
    .await
    {
        Ok(windows) => windows,
        Err(error) => return unavailable(state, parts, error).await,
    };
    let so_far = domain::sla::availability(month_start, now.max(month_start + 1), &spans, &windows);
    let sla = match backend::billing::sla::results(&state.db, &server.id).await {
        Ok(rows) => rows
            .into_iter()
            .map(|(month, ppm, cents, note)| (month, ppm, domain::Money::eur(cents), note))
            .collect(),
        Err(error) => return unavailable(state, parts, error).await,
    };
    let snapshots = match backend::servers::snapshots::list(&state.db, organization_id, id).await {
        Ok(list) => list
            .into_iter()
            .map(|s| app::portal::snapshots::SnapshotRow {
                id: s.id,
                name: s.name,
                state: s.state,
                size_bytes: s.size_bytes,
                created_at: s.created_at,
            })
            .collect(),
        Err(error) => return unavailable(state, parts, error).await,
    };
    let maintenance = async {
        let degraded = backend::servers::maintenance::degraded(&state.db, &server.id).await?;
        let windows = backend::servers::maintenance::windows(&state.db, &server.id).await?;
        anyhow::Ok((degraded, windows))
    };
    let (degraded, windows) = match maintenance.await {
        Ok(found) => found,
        Err(error) => return unavailable(state, parts, error).await,
    };
    let view = ServerDetailView {
        degraded,
        windows: windows.into_iter().map(window_row).collect(),
        snapshots,
        snapshot_quota: backend::servers::snapshots::QUOTA,
        availability: (so_far.ppm, so_far.down_secs),
        sla,
        server: row(server),
        events: events
            .into_iter()
            .map(|e| (e.at, e.kind, e.detail))
            .collect(),
        root_password,
        telemetry,
        telemetry_error,
    };
    page(state, parts, view, feedback).await
}

/// The last 24 hours of a running server, every 15 minutes.
async fn telemetry(
    state: &AppState,
    server: &Server,
) -> Result<Option<TelemetryView>, backend::fleet::FleetError> {
    let (Some(host), true) = (&server.host_name, server.state == "running") else {
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
    let from = to - 86_400;
    let samples = state.fleet.telemetry(host, cards, from, to, 900).await?;
    let per_card = |pick: &dyn Fn(&backend::fleet::Sample, usize) -> i64| -> Vec<Vec<(i64, i64)>> {
        (0..cards as usize)
            .map(|card| samples.iter().map(|s| (s.at, pick(s, card))).collect())
            .collect()
    };
    let temps = per_card(&|s, c| s.gpu_temp_c.get(c).copied().unwrap_or(0));
    let clocks = per_card(&|s, c| s.sm_clock_mhz.get(c).copied().unwrap_or(0));
    let ecc = (0..cards as usize)
        .map(|c| {
            let first = samples
                .first()
                .and_then(|s| s.ecc_corrected.get(c))
                .copied()
                .unwrap_or(0);
            let last = samples
                .last()
                .and_then(|s| s.ecc_corrected.get(c))
                .copied()
                .unwrap_or(0);
            (last, last - first)
        })
        .collect();
    Ok(Some(TelemetryView {
        from,
        to,
        temps,
        clocks,
        ecc,
        traffic_bytes: samples.last().map_or(0, |s| s.traffic_month_bytes),
        fair_use_bytes: backend::fleet::FAIR_USE_BYTES,
    }))
}

pub async fn server_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, TECHNICAL).cloned() else {
        return denied(&state, parts).await;
    };
    detail(
        &state,
        parts,
        &m.organization_id,
        &id,
        None,
        FormFeedback::default(),
    )
    .await
}

/// What the page's script reads every two seconds while a server installs
/// or restarts: its state and progress, already in the page's language.
pub async fn server_progress(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, TECHNICAL).cloned() else {
        return StatusCode::FORBIDDEN.into_response();
    };
    let o = app::i18n::orders(lang_of(&parts));
    match servers::get(&state.db, &m.organization_id, &id).await {
        Ok(Some(s)) => Json(serde_json::json!({
            "state": app::portal::servers::shown_state(&s.state, &s.step),
            "state_label": (o.server_state)(&app::portal::servers::shown_state(&s.state, &s.step)),
            "progress": s.progress,
            "step_label": (o.step_label)(&s.step),
            "ipv4": s.ipv4,
            "ipv6": s.ipv6,
            "done": !app::portal::servers::in_progress(&s.state),
        }))
        .into_response(),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "reading progress failed");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}

#[derive(Deserialize)]
pub struct ServerForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    confirm_name: String,
    #[serde(default)]
    at: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    snapshot: String,
    #[serde(default)]
    window: String,
}

pub async fn server_post(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id, action)): Path<(String, String, String)>,
    parts: Parts,
    Form(form): Form<ServerForm>,
) -> Response {
    let lang = lang_of(&parts);
    let Some(m) = member_in(&current, TECHNICAL).cloned() else {
        return denied(&state, parts).await;
    };
    let page_parts = |mut parts: Parts| {
        if let Ok(uri) = format!("/{}/servers/{id}", lang.code()).parse() {
            parts.uri = uri;
        }
        parts
    };
    if !trusted(&state, &parts, &form.csrf) {
        let parts = page_parts(parts);
        return detail(
            &state,
            parts,
            &m.organization_id,
            &id,
            None,
            forbidden_post(),
        )
        .await;
    }
    let ip = client_ip(&parts);
    let actor = Actor {
        organization_id: &m.organization_id,
        user_id: &current.user.id,
        email: &current.user.email,
        ip: ip.as_deref(),
    };
    let power = PowerAction::parse(&action);
    let result = match (action.as_str(), power) {
        ("rename", _) => servers::rename(&state.db, &state.clock, &actor, &id, &form.name)
            .await
            .map(|()| None),
        (_, Some(_)) if form.confirm != "yes" => {
            let parts = page_parts(parts);
            let feedback = refused(FormError::Confirm, &[]);
            return detail(&state, parts, &m.organization_id, &id, None, feedback).await;
        }
        (_, Some(power)) => servers::power(&state.db, &state.clock, &actor, &id, power)
            .await
            .map(|()| None),
        ("cancel", _) if form.confirm != "yes" => {
            let parts = page_parts(parts);
            let feedback = refused(FormError::Confirm, &[]);
            return detail(&state, parts, &m.organization_id, &id, None, feedback).await;
        }
        ("cancel", _) => {
            use backend::servers::cancellation::{check, schedule, CancelError};
            let at = form.at.trim().parse::<i64>().unwrap_or(0);
            // A Stripe-billed server: Stripe is told first, so if it can't
            // be, nothing is scheduled here either.
            let checked = check(&state.db, &actor, &id, at, &form.reason, &form.confirm_name).await;
            if let (Ok(server), Some(client)) = (&checked, &state.stripe) {
                if let Some(sub) = &server.stripe_subscription_id {
                    let at_period_end = server.renews_at == Some(at);
                    let told =
                        backend::billing::stripe::schedule_cancel(client, sub, at, at_period_end)
                            .await;
                    if let Err(error) = told {
                        return stripe_unavailable(
                            &state,
                            page_parts(parts),
                            &m.organization_id,
                            &id,
                            error,
                        )
                        .await;
                    }
                }
            }
            match schedule(
                &state.db,
                &state.clock,
                &actor,
                &id,
                at,
                &form.reason,
                &form.confirm_name,
            )
            .await
            {
                Ok(()) => return redirect(lang, &format!("/servers/{id}?done=cancel")),
                Err(CancelError::Server(error)) => Err(error),
                Err(error) => {
                    let parts = page_parts(parts);
                    let code = match error {
                        CancelError::NameMismatch => FormError::CancelName,
                        _ => FormError::Choice,
                    };
                    let feedback = refused(code, &[]);
                    return detail(&state, parts, &m.organization_id, &id, None, feedback).await;
                }
            }
        }
        ("snapshot" | "restore" | "delete-snapshot", _) => {
            use backend::servers::snapshots::{self, SnapshotError};
            if action != "snapshot" && form.confirm != "yes" {
                let parts = page_parts(parts);
                let feedback = refused(FormError::Confirm, &[]);
                return detail(&state, parts, &m.organization_id, &id, None, feedback).await;
            }
            let (db, clock) = (&state.db, &state.clock);
            let result = match action.as_str() {
                "snapshot" => snapshots::take(db, clock, &actor, &id, &form.name)
                    .await
                    .map(|_| ()),
                "restore" => snapshots::restore(db, clock, &actor, &id, &form.snapshot).await,
                _ => snapshots::delete(db, clock, &actor, &id, &form.snapshot).await,
            };
            let code = match result {
                Ok(()) => return redirect(lang, &format!("/servers/{id}?done={action}#snapshots")),
                Err(SnapshotError::NotFound) => return not_found(&state, parts).await,
                Err(SnapshotError::Server(ServerError::Db(error))) => {
                    return unavailable(&state, parts, error).await
                }
                Err(SnapshotError::InvalidName) => FormError::SnapshotName,
                Err(SnapshotError::QuotaFull) => FormError::SnapshotQuota,
                Err(_) => FormError::SnapshotBusy,
            };
            let parts = page_parts(parts);
            let feedback = refused(code, &[]);
            return detail(&state, parts, &m.organization_id, &id, None, feedback).await;
        }
        ("maintenance-accept" | "maintenance-propose", _) => {
            use backend::servers::maintenance::{respond, MaintenanceError};
            let counter = match action.as_str() {
                "maintenance-accept" => None,
                _ => Some(domain::time::parse_utc(&form.at).unwrap_or(0)),
            };
            let result = respond(&state.db, &state.clock, &actor, &id, &form.window, counter).await;
            let code = match result {
                Ok(()) => {
                    return redirect(lang, &format!("/servers/{id}?done={action}#maintenance"))
                }
                Err(MaintenanceError::NotFound) => return not_found(&state, parts).await,
                Err(MaintenanceError::Db(error)) => return unavailable(&state, parts, error).await,
                Err(MaintenanceError::BadTime) => FormError::MaintenanceTime,
                Err(MaintenanceError::Settled) => FormError::MaintenanceSettled,
            };
            let parts = page_parts(parts);
            return detail(
                &state,
                parts,
                &m.organization_id,
                &id,
                None,
                refused(code, &[]),
            )
            .await;
        }
        ("revoke", _) => {
            if let Some(client) = &state.stripe {
                let server = match servers::get(&state.db, &m.organization_id, &id).await {
                    Ok(server) => server,
                    Err(error) => return unavailable(&state, parts, error).await,
                };
                // Only a cancellation that can still be taken back here is
                // taken back at Stripe: past its date the server is being
                // wiped, and Stripe must stop billing it.
                let now = state.clock.now();
                if let Some(sub) = server
                    .filter(|s| backend::servers::cancellation::revocable(s, now))
                    .and_then(|s| s.stripe_subscription_id)
                {
                    if let Err(error) = backend::billing::stripe::revoke_cancel(client, &sub).await
                    {
                        return stripe_unavailable(
                            &state,
                            page_parts(parts),
                            &m.organization_id,
                            &id,
                            error,
                        )
                        .await;
                    }
                }
            }
            backend::servers::cancellation::revoke(&state.db, &state.clock, &actor, &id)
                .await
                .map(|()| None)
        }
        ("reveal", _) => {
            servers::take_root_password(&state.db, &state.clock, &state.sealer, &actor, &id)
                .await
                .map(Some)
        }
        _ => return not_found(&state, parts).await,
    };
    let parts = page_parts(parts);
    match result {
        // Shown in this response only; it is gone from the database now.
        Ok(Some(password)) => {
            detail(
                &state,
                parts,
                &m.organization_id,
                &id,
                password,
                FormFeedback::default(),
            )
            .await
        }
        Ok(None) if action == "rename" => redirect(lang, &format!("/servers/{id}?done=rename")),
        Ok(None) if action == "revoke" => redirect(lang, &format!("/servers/{id}?done=revoke")),
        Ok(None) => redirect(lang, &format!("/servers/{id}?done=power")),
        Err(ServerError::NotFound) => not_found(&state, parts).await,
        Err(ServerError::InvalidName) => {
            let feedback = refused(FormError::ServerName, &[("name", &form.name)]);
            detail(&state, parts, &m.organization_id, &id, None, feedback).await
        }
        Err(ServerError::Busy(_)) => {
            let feedback = refused(FormError::Busy, &[]);
            detail(&state, parts, &m.organization_id, &id, None, feedback).await
        }
        Err(ServerError::Db(error)) => unavailable(&state, parts, error).await,
    }
}

/// Stripe could not be told about a cancellation (or its revoke): nothing
/// changed here either; the server's page (`parts` point at it) says to
/// try again.
async fn stripe_unavailable(
    state: &AppState,
    parts: Parts,
    organization_id: &str,
    id: &str,
    error: backend::billing::stripe::StripeFailure,
) -> Response {
    tracing::error!(%error, server = %id, "telling Stripe failed");
    let feedback = refused(FormError::Unavailable, &[]);
    detail(state, parts, organization_id, id, None, feedback).await
}
