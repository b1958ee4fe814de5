//! Every organization's orders, newest first (staff).

use app::portal::inventory::StaffOrdersView;
use axum::extract::State;
use http::request::Parts;
use std::sync::Arc;

use super::orders::staff_row;
use super::page::{page, PageResult};
use super::routes::{Access, Route};
use crate::startup::AppState;

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
