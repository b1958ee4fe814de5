//! Every organization's orders, newest first (staff).

use crate::http::page::{page, PageResult};
use crate::http::routes::{Access, Route};
use crate::pages::orders::staff_row;
use crate::pages::staff::hosts::StaffOrdersView;
use crate::startup::AppState;
use axum::extract::{Query, State};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

pub fn routes() -> Vec<Route> {
    vec![Route::get(
        "/{lang}/staff/orders",
        Access::Staff,
        staff_orders_page,
    )]
}

/// How many orders a page shows.
const ORDERS_PER_PAGE: usize = 50;

#[derive(Deserialize, Default)]
struct OrderQuery {
    /// Part of an organization, server name, order id or email.
    #[serde(default)]
    q: String,
    #[serde(default)]
    page: Option<usize>,
}

async fn staff_orders_page(
    State(state): State<Arc<AppState>>,
    Query(query): Query<OrderQuery>,
    parts: Parts,
) -> PageResult {
    let page_no = query.page.unwrap_or(1).max(1);
    let offset = ((page_no - 1) * ORDERS_PER_PAGE) as i64;
    let (list, matching) =
        backend::orders::all(&state.db, &query.q, ORDERS_PER_PAGE as i64, offset).await?;
    let rows = list
        .into_iter()
        .map(|(order, organization)| staff_row(order, organization))
        .collect();
    let view = StaffOrdersView {
        rows,
        list: crate::pages::staff::ListAt {
            search: query.q.trim().to_owned(),
            page: page_no,
            matching: usize::try_from(matching).unwrap_or(0),
            per_page: ORDERS_PER_PAGE,
        },
    };
    page(&state, parts, view).await
}
