//! Staff inventory pages: hosts per site and state, racking new hosts,
//! moving a host to maintenance, failed or free; and every order.

use app::portal::inventory::{InventoryView, StaffOrdersView, HOST_STATES};
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::{Extension, Form};
use backend::inventory::{self, HostFilter, HostState, InventoryError};
use domain::SiteCode;
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{
    denied, forbidden_post, lang_of, not_found, page, redirect, refused, trusted, unavailable,
};
use super::auth::CurrentUser;
use crate::startup::AppState;

#[derive(Deserialize, Default)]
pub struct HostQuery {
    #[serde(default)]
    site: String,
    #[serde(default)]
    state: String,
}

async fn inventory_view(state: &AppState, query: &HostQuery) -> anyhow::Result<InventoryView> {
    let all = inventory::list_hosts(&state.db, &HostFilter::default()).await?;
    let mut counts: Vec<(String, String, [i64; 6])> = Vec::new();
    for host in &all {
        let (site, plan) = (host.site.to_string(), host.plan.to_string());
        let i = HOST_STATES
            .iter()
            .position(|s| *s == host.state.as_str())
            .unwrap_or(0);
        match counts.iter_mut().find(|(s, p, _)| *s == site && *p == plan) {
            Some((_, _, n)) => n[i] += 1,
            None => {
                let mut n = [0; 6];
                n[i] = 1;
                counts.push((site, plan, n));
            }
        }
    }
    let filter = HostFilter {
        site: SiteCode::parse(&query.site),
        plan: None,
        state: HostState::parse(&query.state),
    };
    let hosts = inventory::list_hosts(&state.db, &filter)
        .await?
        .into_iter()
        .take(500)
        .map(|h| {
            (
                h.name,
                h.site.to_string(),
                h.plan.to_string(),
                h.state.as_str().to_owned(),
                h.updated_at,
            )
        })
        .collect();
    let windows = backend::servers::maintenance::open_for_staff(&state.db)
        .await?
        .into_iter()
        .map(|(w, host, server)| app::portal::maintenance::WindowRow {
            host,
            server,
            ..super::servers::window_row(w)
        })
        .collect();
    let degraded = backend::servers::maintenance::degraded_hosts(&state.db).await?;
    Ok(InventoryView {
        windows,
        degraded,
        counts,
        hosts,
        filter_site: query.site.clone(),
        filter_state: query.state.clone(),
    })
}

async fn inventory_response(
    state: &AppState,
    mut parts: Parts,
    query: &HostQuery,
    feedback: FormFeedback,
) -> Response {
    if let Ok(uri) = format!("/{}/staff/hosts", lang_of(&parts).code()).parse() {
        if parts.method != http::Method::GET {
            parts.uri = uri;
        }
    }
    match inventory_view(state, query).await {
        Ok(view) => page(state, parts, view, feedback).await,
        Err(error) => unavailable(state, parts, error).await,
    }
}

pub async fn hosts_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Query(query): Query<HostQuery>,
    parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    inventory_response(&state, parts, &query, FormFeedback::default()).await
}

#[derive(Deserialize)]
pub struct HostForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    site: String,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    count: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    state: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    at: String,
    #[serde(default)]
    hours: String,
    #[serde(default)]
    note: String,
    #[serde(default)]
    window: String,
}

pub async fn hosts_post(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, action)): Path<(String, String)>,
    parts: Parts,
    Form(form): Form<HostForm>,
) -> Response {
    let lang = lang_of(&parts);
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    let query = HostQuery::default();
    if !trusted(&state, &parts, &form.csrf) {
        return inventory_response(&state, parts, &query, forbidden_post()).await;
    }
    let actor = format!("staff:{}", current.user.email);
    let result = match action.as_str() {
        "add" => {
            let count = form.count.trim().parse::<u32>().unwrap_or(0);
            inventory::add_hosts(
                &state.db,
                &state.clock,
                &form.site,
                &form.plan,
                count,
                &actor,
            )
            .await
            .map(|_| ())
        }
        "set" => {
            let Some(to) = HostState::parse(&form.state) else {
                let feedback = refused(FormError::Choice, &[("name", &form.name)]);
                return inventory_response(&state, parts, &query, feedback).await;
            };
            let reason = match form.reason.trim() {
                "" => "changed by staff",
                reason => reason,
            };
            inventory::set_state(
                &state.db,
                &state.clock,
                form.name.trim(),
                to,
                &actor,
                reason,
            )
            .await
            .map(|_| ())
        }
        "degrade" | "propose" | "confirm" => {
            use backend::servers::maintenance::{self, MaintenanceError};
            let (db, clock) = (&state.db, &state.clock);
            let result = match action.as_str() {
                "degrade" if form.reason.trim().is_empty() => Err(MaintenanceError::BadTime),
                "degrade" => {
                    maintenance::mark_degraded(
                        db,
                        clock,
                        form.name.trim(),
                        form.reason.trim(),
                        &actor,
                    )
                    .await
                }
                "propose" => {
                    let at = domain::time::parse_utc(&form.at).unwrap_or(0);
                    let hours = form.hours.trim().parse().unwrap_or(0);
                    maintenance::propose(
                        db,
                        clock,
                        form.name.trim(),
                        at,
                        hours,
                        form.note.trim(),
                        &actor,
                    )
                    .await
                    .map(|_| ())
                }
                _ => maintenance::confirm(db, clock, &form.window, &actor).await,
            };
            let error = match result {
                Ok(()) => return redirect(lang, "/staff/hosts?done=1"),
                Err(MaintenanceError::NotFound) => FormError::UnknownHost,
                Err(MaintenanceError::BadTime) => FormError::MaintenanceTime,
                Err(MaintenanceError::Settled) => FormError::MaintenanceSettled,
                Err(MaintenanceError::Db(error)) => return unavailable(&state, parts, error).await,
            };
            return inventory_response(
                &state,
                parts,
                &query,
                refused(error, &[("name", &form.name)]),
            )
            .await;
        }
        _ => return not_found(&state, parts).await,
    };
    let values = [
        ("name", form.name.as_str()),
        ("reason", form.reason.as_str()),
    ];
    let error = match result {
        Ok(()) => return redirect(lang, "/staff/hosts?done=1"),
        Err(InventoryError::UnknownHost(_)) => FormError::UnknownHost,
        Err(InventoryError::UnknownSite(_) | InventoryError::UnknownPlan(_)) => FormError::Choice,
        Err(InventoryError::Transition { .. }) => FormError::HostTransition,
        Err(InventoryError::Count) => FormError::HostCount,
        Err(InventoryError::Db(error)) => return unavailable(&state, parts, error).await,
    };
    inventory_response(&state, parts, &query, refused(error, &values)).await
}

pub async fn staff_orders_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    match backend::orders::all(&state.db, 500).await {
        Ok(list) => {
            let rows = list
                .into_iter()
                .map(|(o, org)| super::orders::staff_row(o, org))
                .collect();
            page(
                &state,
                parts,
                StaffOrdersView { rows },
                FormFeedback::default(),
            )
            .await
        }
        Err(error) => unavailable(&state, parts, error).await,
    }
}
