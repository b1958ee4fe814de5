//! Every organization's orders, newest first (staff).

use crate::http::page::{page, PageResult};
use crate::http::routes::{Access, Route};
use crate::pages::orders::staff_row;
use crate::pages::staff::hosts::StaffOrdersView;
use crate::startup::AppState;
use axum::extract::State;
use http::request::Parts;
use std::sync::Arc;

pub fn routes() -> Vec<Route> {
    vec![Route::get(
        "/{lang}/staff/orders",
        Access::Staff,
        staff_orders_page,
    )]
}

async fn staff_orders_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    let list = backend::orders::all(&state.db, 500).await?;
    let rows = list
        .into_iter()
        .map(|(order, organization)| staff_row(order, organization))
        .collect();
    page(&state, parts, StaffOrdersView { rows }).await
}
