//! Orders through the API: the same rules, holds, prices and VAT as the
//! portal's order form (`http/orders.rs`), placed once per
//! `Idempotency-Key`. Technical members see the orders they placed; only
//! owners and billing members see money.

use axum::extract::State;
use axum::Json;
use backend::api_tokens::Scope;
use backend::orders::{self, Order};
use backend::organizations::Role;
use domain::order::OrderState;
use domain::time::format_iso;
use domain::{OrderId, ServerId};
use serde::Serialize;
use std::sync::Arc;

use super::choices::*;
use super::error::ErrorBody;
use super::{
    sort_key, ApiCaller, ApiPath, ApiQuery, ApiResult, ApiRoute, ListPage, PageQuery, Problem,
};
use crate::http::routes::MONEY;
use crate::startup::AppState;

mod place;

use place::{place_order, NewOrderJson};

pub fn routes() -> Vec<ApiRoute> {
    vec![
        ApiRoute::get("/api/v1/orders", Some(Scope::Read), list_orders),
        ApiRoute::get("/api/v1/orders/{id}", Some(Scope::Read), get_order),
        ApiRoute::post("/api/v1/orders", Some(Scope::ServersWrite), place_order),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list_orders, get_order, place::place_order),
    components(schemas(OrderJson, NewOrderJson))
)]
pub struct Doc;

/// An order. The amounts are present only for tokens with `billing:read`
/// (which only owners and billing members can give a token).
#[derive(Serialize, utoipa::ToSchema)]
pub struct OrderJson {
    id: String,
    /// Its address in this API.
    url: String,
    #[schema(value_type = OrderStateChoice)]
    state: String,
    #[schema(value_type = PlanChoice)]
    plan: String,
    #[schema(value_type = SiteChoice)]
    site: String,
    /// The server's name, as ordered.
    #[schema(value_type = ServerNameChoice)]
    name: String,
    #[schema(value_type = ImageChoice)]
    image: String,
    addons: Vec<String>,
    /// The server, once the order is confirmed.
    server_id: Option<String>,
    /// The server's address in this API, once the order is confirmed.
    server_url: Option<String>,
    /// Why a failed order failed.
    failure: Option<String>,
    created_at: String,
    /// Until when the host is held for a `held` order.
    hold_expires_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan_cents: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    addons_cents: Option<i64>,
    /// VAT rate in basis points (1900 = 19 %).
    #[serde(skip_serializing_if = "Option::is_none")]
    vat_rate_bp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vat_cents: Option<i64>,
    /// Monthly total with VAT.
    #[serde(skip_serializing_if = "Option::is_none")]
    total_cents: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    currency: Option<String>,
    /// In the answer to `POST /orders` with card billing: where to pay.
    /// The order stays `held` until paid.
    payment_url: Option<String>,
}

pub(super) fn json(
    base_url: &str,
    order: Order,
    money: bool,
    payment_url: Option<String>,
) -> OrderJson {
    let amount = |cents: i64| money.then_some(cents);
    let api = format!("{}{}", base_url.trim_end_matches('/'), super::PREFIX);
    OrderJson {
        url: format!("{api}/orders/{}", order.id),
        server_url: order
            .server_id
            .as_ref()
            .map(|id| format!("{api}/servers/{id}")),
        plan_cents: amount(order.plan_cents),
        addons_cents: amount(order.addons_cents),
        vat_rate_bp: amount(order.vat_rate_bp),
        vat_cents: amount(order.vat_cents),
        total_cents: amount(order.total_cents),
        currency: money.then(|| order.currency.clone()),
        id: order.id.into_string(),
        state: order.state.as_str().to_owned(),
        plan: order.plan_id.to_string(),
        site: order.site_code.to_string(),
        name: order.server_name,
        image: order.os_image,
        addons: order.addons,
        server_id: order.server_id.map(ServerId::into_string),
        failure: order.failure.map(|f| f.as_str().to_owned()),
        created_at: format_iso(order.created_at),
        hold_expires_at: order.hold_expires_at.map(format_iso),
        payment_url,
    }
}

/// Amounts follow the token, not only its creator: a token without
/// `billing:read` shows none, whoever made it.
pub(super) fn sees_money(caller: &ApiCaller) -> bool {
    MONEY.allows(false, Some(caller.role)) && caller.scopes.contains(&Scope::BillingRead)
}

/// The caller's order; another organization's (or, for a technical
/// member, another member's) is not found.
pub(super) async fn visible_order(
    state: &AppState,
    caller: &ApiCaller,
    id: &OrderId,
) -> ApiResult<Order> {
    orders::get(&state.db, &caller.organization_id, id)
        .await?
        .filter(|o| caller.role != Role::Technical || o.user_id == caller.user_id)
        .ok_or_else(|| caller.error(Problem::NotFound))
}

/// `?state=&site=&plan=` and the page.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OrderQuery {
    /// 1–100, default 50; outside that range: 400.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page (or follow `Link`).
    pub cursor: Option<String>,
    #[param(value_type = Option<OrderStateChoice>)]
    pub state: Option<String>,
    #[param(value_type = Option<SiteChoice>)]
    pub site: Option<String>,
    #[param(value_type = Option<PlanChoice>)]
    pub plan: Option<String>,
}

/// The organization's orders, newest first (a technical member's token:
/// the orders that member placed), filtered and paged in the database.
#[utoipa::path(
    get,
    path = "/api/v1/orders",
    tag = "orders",
    params(OrderQuery),
    responses(
        (status = 200, description = "A page of orders, newest first", body = ListPage<OrderJson>),
        (status = 400, description = "Bad cursor, or an unknown `state` (`bad_request`)", body = ErrorBody),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks `read`", body = ErrorBody),
    ),
    security(("token" = ["read"]))
)]
async fn list_orders(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiQuery(q): ApiQuery<OrderQuery>,
) -> ApiResult<Json<ListPage<OrderJson>>> {
    let filter = orders::Filter {
        state: match q.state.as_deref() {
            Some(word) => {
                Some(OrderState::parse(word).ok_or_else(|| caller.error(Problem::BadRequest))?)
            }
            None => None,
        },
        site: q.site.clone(),
        plan: q.plan.clone(),
        placed_by: (caller.role == Role::Technical).then(|| caller.user_id.clone()),
    };
    let paging = PageQuery {
        limit: q.limit,
        cursor: q.cursor.clone(),
    };
    let after = paging.after(caller.lang)?;
    let after = after.as_ref().map(|(at, id)| (*at, id.as_str()));
    let fetch = paging.fetch(caller.lang)?;
    let rows = orders::page(&state.db, &caller.organization_id, &filter, after, fetch).await?;
    let page = paging.cut(rows, |o| sort_key(o.created_at, &o.id));
    let money = sees_money(&caller);
    let base_url = &state.config.public_base_url;
    Ok(Json(page.map(|o| json(base_url, o, money, None))))
}

/// One order.
#[utoipa::path(
    get,
    path = "/api/v1/orders/{id}",
    tag = "orders",
    params(("id" = String, Path, description = "The order's id")),
    responses(
        (status = 200, description = "The order", body = OrderJson),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks `read`", body = ErrorBody),
        (status = 404, description = "No such order", body = ErrorBody),
    ),
    security(("token" = ["read"]))
)]
async fn get_order(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<OrderId>,
) -> ApiResult<Json<OrderJson>> {
    let order = visible_order(&state, &caller, &id).await?;
    let base_url = &state.config.public_base_url;
    Ok(Json(json(base_url, order, sees_money(&caller), None)))
}
