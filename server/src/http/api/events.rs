//! `GET /events`: what happened to the organization's servers, orders and
//! invoices, and to stock, in the order it happened, from a cursor. A
//! script that keeps the last `next_cursor` and asks again gets every
//! event once (`backend::events` numbers them only once committed).

use axum::extract::State;
use axum::Json;
use backend::api_tokens::Scope;
use domain::time::format_iso;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use super::error::ErrorBody;
use super::orders::sees_money;
use super::{ApiCaller, ApiQuery, ApiResult, ApiRoute, Problem};
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    vec![ApiRoute::get("/api/v1/events", Some(Scope::Read), list)]
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(list), components(schemas(EventJson, EventPage)))]
pub struct Doc;

/// An event: webhooks send the same object.
#[derive(Serialize, ToSchema)]
pub struct EventJson {
    /// `evt_…`: the same event from the feed and from a webhook has the
    /// same id (receivers deduplicate by it).
    pub id: String,
    /// `server.<what happened>` (`server.running`,
    /// `server.snapshot.ready`, `server.billing.suspended`,
    /// `server.maintenance.proposed` …), `order.<state>`,
    /// `invoice.<state>` or `stock.changed`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its place in the feed; events are numbered once committed.
    pub seq: i64,
    pub created_at: String,
    /// The object: `object` (`server`, `order`, `invoice`, `stock`), its
    /// `id` and what changed (`state`, `name`, `detail` …).
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

/// A page of the feed. Keep `next_cursor` and ask again for what
/// happens next, now or later.
#[derive(Serialize, ToSchema)]
pub struct EventPage {
    pub data: Vec<EventJson>,
    /// Where the next request starts; the same cursor when nothing new
    /// happened.
    pub next_cursor: String,
    /// More events are waiting now (ask again at once).
    pub has_more: bool,
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventQuery {
    /// 1–100, default 50.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// A previous `next_cursor`; omitted: from the oldest event kept (30
    /// days).
    pub cursor: Option<String>,
    /// Only events of this type or family (`server`, `server.snapshot`,
    /// `order.fulfilled`).
    #[param(pattern = "^[a-z_.]{1,64}$")]
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// The event feed
///
/// Events of the token's organization, and stock changes, oldest first.
/// Invoice events need `billing:read` as well.
#[utoipa::path(
    get,
    path = "/api/v1/events",
    tag = "events",
    params(EventQuery),
    responses(
        (status = 200, description = "Events after the cursor", body = EventPage),
        (status = 400, description = "A bad `type` (`bad_request`) or cursor (`invalid_cursor`)", body = ErrorBody),
    ),
    security(("token" = ["read"]))
)]
pub async fn list(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiQuery(q): ApiQuery<EventQuery>,
) -> ApiResult<Json<EventPage>> {
    let limit = match q.limit.unwrap_or(50) {
        limit @ 1..=100 => i64::from(limit),
        _ => return Err(caller.error(Problem::BadRequest)),
    };
    let after = match q.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => 0,
        Some(cursor) => cursor
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| caller.error(Problem::InvalidCursor))?,
    };
    let kind = q.kind.unwrap_or_default();
    let readable = kind.len() <= 64
        && kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'.');
    if !readable {
        return Err(caller.error(Problem::BadRequest));
    }
    let money = sees_money(&caller);
    let org = &caller.organization_id;
    let mut events = backend::events::list(&state.db, org, after, &kind, money, limit + 1).await?;
    let has_more = events.len() as i64 > limit;
    events.truncate(limit as usize);
    let next_cursor = events.last().map_or(after, |e| e.seq).to_string();
    Ok(Json(EventPage {
        data: events
            .into_iter()
            .map(|e| EventJson {
                id: e.id,
                kind: e.kind,
                seq: e.seq,
                created_at: format_iso(e.created_at),
                data: e.data,
            })
            .collect(),
        next_cursor,
        has_more,
    }))
}
