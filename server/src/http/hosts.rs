//! Staff hosts: hosts per site and state, racking new hosts, moving a host
//! to maintenance, failed or free. The page also lists maintenance windows
//! and degraded hosts, whose forms are in `staff_maintenance.rs`; every
//! order is in `staff_orders.rs`.

use app::portal::inventory::InventoryView;
use app::portal::FormError;
use axum::extract::{Query, State};
use backend::inventory::{self, HostFilter, HostState, InventoryError};
use domain::SiteCode;
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{lang_of, page, redirect, refused, PageError, PageResult, SameOrigin, Signed};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    use Access::Staff;
    vec![
        Route::get("/{lang}/staff/hosts", Staff, hosts_page),
        Route::post("/{lang}/staff/hosts/add", Staff, add),
        Route::post("/{lang}/staff/hosts/set", Staff, set),
    ]
}

#[derive(Deserialize, Default)]
struct HostQuery {
    #[serde(default)]
    site: String,
    #[serde(default)]
    state: String,
}

async fn inventory_view(state: &AppState, query: &HostQuery) -> anyhow::Result<InventoryView> {
    let all = inventory::list_hosts(&state.db, &HostFilter::default()).await?;
    let mut counts: Vec<(String, String, Vec<i64>)> = Vec::new();
    for host in &all {
        let (site, plan) = (host.site.to_string(), host.plan.to_string());
        let i = HostState::ALL
            .iter()
            .position(|&s| s == host.state)
            .expect("every state is in ALL");
        let row = match counts.iter().position(|(s, p, _)| *s == site && *p == plan) {
            Some(row) => row,
            None => {
                counts.push((site, plan, vec![0; HostState::ALL.len()]));
                counts.len() - 1
            }
        };
        counts[row].2[i] += 1;
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
                h.state,
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
            ..app::portal::maintenance::WindowRow::from(w)
        })
        .collect();
    let degraded = backend::servers::maintenance::degraded_hosts(&state.db).await?;
    Ok(InventoryView {
        bmcs: super::host_bmc::bmc_rows(&state.db).await?,
        windows,
        degraded,
        counts,
        hosts,
        filter_site: query.site.clone(),
        filter_state: HostState::parse(&query.state),
    })
}

async fn hosts_page(
    State(state): State<Arc<AppState>>,
    Query(query): Query<HostQuery>,
    parts: Parts,
) -> PageResult {
    let view = inventory_view(&state, &query).await?;
    page(&state, parts, view).await
}

/// Who acts, for the audit log.
pub(super) fn actor(staff: &Signed) -> String {
    format!("staff:{}", staff.0.user.email)
}

/// Back to the hosts page once done.
pub(super) fn done(parts: &Parts) -> PageResult {
    Ok(redirect(lang_of(parts), "/staff/hosts?done=1"))
}

/// The hosts page again with why the inventory refused, and the host
/// form's fields.
fn refusal(error: InventoryError, name: &str, reason: &str) -> PageError {
    let error = match error {
        InventoryError::UnknownHost(_) => FormError::UnknownHost,
        InventoryError::UnknownSite(_) | InventoryError::UnknownPlan(_) => FormError::Choice,
        InventoryError::Transition { .. } => FormError::HostTransition,
        InventoryError::Count => FormError::HostCount,
        InventoryError::NotChecked(_) => {
            FormError::Bmc(app::portal::host_bmc::BmcRefusal::NotChecked)
        }
        InventoryError::Db(error) => return PageError::Unavailable(error),
    };
    refused(error, &[("name", name), ("reason", reason)])
}

#[derive(Deserialize)]
struct NewHosts {
    #[serde(default)]
    site: String,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    count: String,
}

/// Racks `count` new hosts of a plan at a site.
async fn add(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<NewHosts>,
) -> PageResult {
    let count = form.count.trim().parse::<u32>().unwrap_or(0);
    inventory::add_hosts(
        &state.db,
        &state.clock,
        &form.site,
        &form.plan,
        count,
        &actor(&staff),
    )
    .await
    .map_err(|error| refusal(error, "", ""))?;
    done(&parts)
}

#[derive(Deserialize)]
struct NewState {
    #[serde(default)]
    name: String,
    #[serde(default)]
    state: String,
    #[serde(default)]
    reason: String,
}

/// Moves a host to another state, with the reason for the audit log.
async fn set(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<NewState>,
) -> PageResult {
    let to = HostState::parse(&form.state)
        .ok_or_else(|| refused(FormError::Choice, &[("name", &form.name)]))?;
    let reason = match form.reason.trim() {
        "" => "changed by staff",
        reason => reason,
    };
    inventory::set_state(
        &state.db,
        &state.clock,
        form.name.trim(),
        to,
        &actor(&staff),
        reason,
    )
    .await
    .map_err(|error| refusal(error, &form.name, &form.reason))?;
    done(&parts)
}
