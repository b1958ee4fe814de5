//! Staff: a host's own page, linked from the hosts list. Its facts, its
//! BMC, and its history: state changes and the Fleet's events (a BMC that
//! refused its password, an installer that never reported), which until
//! now only `server hosts history` showed.

use app::portal::host_page::{HostEventRow, HostPageView};
use axum::extract::{Path, State};
use backend::inventory::{self, history};
use http::request::Parts;
use std::sync::Arc;

use super::page::{page, PageError, PageResult};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![Route::get(
        "/{lang}/staff/hosts/{name}",
        Access::Staff,
        host_page,
    )]
}

/// The events a page shows; `server hosts history --limit` reads further.
const HISTORY_LIMIT: i64 = 200;

/// Longer than any name the inventory gives (`fra-g-l40s-x2-001`).
const MAX_NAME: usize = 128;

async fn host_page(
    State(state): State<Arc<AppState>>,
    Path((_, name)): Path<(String, String)>,
    parts: Parts,
) -> PageResult {
    // No host is called that (and PostgreSQL refuses a NUL byte, which
    // would otherwise look like an outage).
    if name.is_empty() || name.len() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(PageError::NotFound);
    }
    let view = host_view(&state, &name).await?.ok_or(PageError::NotFound)?;
    page(&state, parts, view).await
}

/// The page's data; `None` when no host has that name.
async fn host_view(state: &AppState, name: &str) -> anyhow::Result<Option<HostPageView>> {
    let Some(events) = history::of_host(&state.db, name, HISTORY_LIMIT).await? else {
        return Ok(None);
    };
    let Some(host) = inventory::host(&state.db, name).await? else {
        return Ok(None);
    };
    let bmc = backend::inventory::bmc::summary(&state.db, name)
        .await?
        .map(super::host_bmc::bmc_row);
    Ok(Some(HostPageView {
        name: host.name,
        site: host.site.to_string(),
        plan: host.plan.to_string(),
        state: host.state,
        bmc,
        events: events
            .into_iter()
            .map(|e| HostEventRow {
                at: e.at,
                from_state: e.from_state,
                to_state: e.to_state,
                actor: e.actor,
                reason: e.reason,
            })
            .collect(),
        limit: HISTORY_LIMIT,
    }))
}
