//! The staff area's pages; only staff accounts get them (the routes'
//! declared access). The home links every other staff page: hosts and
//! maintenance (`hosts.rs`, `staff_maintenance.rs`), orders
//! (`staff_orders.rs`), finance (`finance.rs`), the outbox and the audit log.

use app::portal::audit::AuditView;
use app::portal::staff::OutboxView;
use app::portal::staff_home::StaffHomeView;
use axum::extract::State;
use http::request::Parts;
use std::sync::Arc;

use super::page::{page, PageError, PageResult};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/staff", Access::Staff, staff_page),
        Route::get("/{lang}/staff/outbox", Access::Staff, outbox_page),
        Route::get("/{lang}/staff/audit", Access::Staff, audit_page),
    ]
}

pub async fn staff_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    let counts = backend::staff::overview(&state.db, state.clock.now()).await?;
    let view = StaffHomeView {
        hosts: counts.hosts,
        degraded_hosts: counts.degraded_hosts,
        open_windows: counts.open_windows,
        failed_orders: counts.failed_orders,
        confirmed_orders: counts.confirmed_orders,
        open_invoices: counts.open_invoices,
        overdue_invoices: counts.overdue_invoices,
        amount_due: domain::Money::eur(counts.amount_due_cents),
        organizations: backend::staff::organizations(&state.db).await?,
        users: backend::staff::users(&state.db).await?,
    };
    page(&state, parts, view).await
}

pub async fn outbox_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    // Mail bodies hold working reset, invitation and verification links:
    // reading them is taking over the account, so only a development
    // server (whose mail goes nowhere else) shows them.
    if !state.config.development() {
        return Err(PageError::NotFound);
    }
    let mails = backend::mail::outbox(&state.db, None, 100)
        .await?
        .into_iter()
        .map(|m| (m.created_at, m.to, m.subject, m.body))
        .collect();
    page(&state, parts, OutboxView { mails }).await
}

/// The audit log of every organization, and of actions outside any.
pub async fn audit_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    let entries = backend::audit::all(&state.db, 500).await?;
    page(&state, parts, AuditView { entries }).await
}
