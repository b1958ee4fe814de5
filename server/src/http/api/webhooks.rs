//! Webhook endpoints through the API (`backend::webhooks`): add, change,
//! delete, roll the signing secret, ping, and see each delivery with the
//! answer it got, sending one again if needed. Reading needs `read`,
//! changing `servers:write`; an endpoint hears only what its creator may
//! see (the portal's webhooks page manages the same endpoints).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::Scope;
use backend::webhooks::{self, Delivery, Endpoint, Settings, WebhookError};
use domain::time::format_iso;
use http::StatusCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use super::choices::DeliveryStateChoice;
use super::error::ErrorBody;
use super::{sort_key, ApiCaller, ApiError, ApiPath, ApiQuery, ApiResult, ApiRoute, Body};
use super::{ListPage, PageQuery, Problem};
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    let (read, write) = (Some(Scope::Read), Some(Scope::ServersWrite));
    let one = "/api/v1/webhooks/{id}";
    vec![
        ApiRoute::get("/api/v1/webhooks", read, list),
        ApiRoute::post("/api/v1/webhooks", write, create),
        ApiRoute::get(one, read, show),
        ApiRoute::patch(one, write, update),
        ApiRoute::delete(one, write, delete),
        ApiRoute::post("/api/v1/webhooks/{id}/secret", write, roll),
        ApiRoute::post("/api/v1/webhooks/{id}/ping", write, ping),
        ApiRoute::get("/api/v1/webhooks/{id}/deliveries", read, deliveries),
        ApiRoute::post(
            "/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend",
            write,
            resend,
        ),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, show, update, delete, roll, ping, deliveries, resend),
    components(schemas(EndpointJson, NewEndpointJson, EndpointChanges, DeliveryJson))
)]
pub struct Doc;

/// An endpoint. Its secret is shown only when it is created or rolled.
#[derive(Serialize, ToSchema)]
pub struct EndpointJson {
    /// `whe_…`.
    id: String,
    /// Its address in this API.
    url_api: String,
    /// Where events are POSTed.
    url: String,
    description: String,
    /// Event types and families it receives: `*`, `server.*`,
    /// `invoice.paid` …
    events: Vec<String>,
    enabled: bool,
    created_at: String,
    /// After a roll: until when the previous secret signs as well.
    previous_secret_until: Option<String>,
    /// Only in the answer that made it: `whsec_…`, to check the
    /// `Gpu-Signature` header with. Not shown again.
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
}

fn endpoint_json(base_url: &str, e: Endpoint, secret: Option<String>) -> EndpointJson {
    EndpointJson {
        url_api: format!(
            "{}/api/v1/webhooks/{}",
            base_url.trim_end_matches('/'),
            e.id
        ),
        id: e.id,
        url: e.url,
        description: e.description,
        events: e.events,
        enabled: e.enabled,
        created_at: format_iso(e.created_at),
        previous_secret_until: e.previous_until.map(format_iso),
        secret,
    }
}

/// One event (or ping) sent to an endpoint, with the last answer.
#[derive(Serialize, ToSchema)]
pub struct DeliveryJson {
    /// `whd_…`, also sent as the `Gpu-Delivery` header.
    id: String,
    event_id: String,
    event_type: String,
    #[schema(value_type = DeliveryStateChoice)]
    state: String,
    attempts: i64,
    next_attempt_at: Option<String>,
    /// The HTTP status of the last answer.
    last_status: Option<i64>,
    /// The first 1,000 characters of the last answer's body.
    last_response: Option<String>,
    /// Why the last try got no answer (timeout, refused, address not
    /// allowed).
    last_error: Option<String>,
    delivered_at: Option<String>,
    created_at: String,
}

fn delivery_json(d: Delivery) -> DeliveryJson {
    DeliveryJson {
        next_attempt_at: (d.state == "pending").then(|| format_iso(d.next_attempt_at)),
        id: d.id,
        event_id: d.event_id,
        event_type: d.event_type,
        state: d.state,
        attempts: d.attempts,
        last_status: d.last_status,
        last_response: d.last_response,
        last_error: d.last_error,
        delivered_at: d.delivered_at.map(format_iso),
        created_at: format_iso(d.created_at),
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEndpointJson {
    /// `https://…` (at most 2,000 characters, no user or password in it).
    #[schema(max_length = 2000)]
    url: String,
    /// What the endpoint is for, up to 200 characters.
    #[serde(default)]
    #[schema(max_length = 200)]
    description: String,
    /// `*`, a family (`server.*`, `order.*`, `invoice.*`, `stock.*`) or a
    /// type (`server.running`, `invoice.paid`, `stock.changed` …).
    events: Vec<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EndpointChanges {
    #[schema(max_length = 2000)]
    url: Option<String>,
    #[schema(max_length = 200)]
    description: Option<String>,
    events: Option<Vec<String>>,
    /// `false` pauses it: nothing is queued, pending deliveries fail.
    enabled: Option<bool>,
}

impl From<WebhookError> for ApiError {
    fn from(error: WebhookError) -> ApiError {
        match error {
            WebhookError::NotFound => Problem::NotFound.into(),
            WebhookError::BadUrl => ApiError::from(Problem::Invalid).at("url"),
            WebhookError::UnknownEvent(_) => ApiError::from(Problem::UnknownChoice).at("events"),
            WebhookError::TooMany => Problem::Conflict.into(),
            WebhookError::Db(error) => error.into(),
        }
    }
}

fn allow_private(state: &AppState) -> bool {
    state.config.webhooks_private()
}

/// The organization's endpoints.
#[utoipa::path(get, path = "/api/v1/webhooks", tag = "events",
    responses((status = 200, body = inline(ListPage<EndpointJson>))),
    security(("token" = ["read"])))]
async fn list(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
) -> ApiResult<Json<ListPage<EndpointJson>>> {
    let base_url = &state.config.public_base_url;
    let all = webhooks::list(&state.db, &caller.organization_id).await?;
    Ok(Json(ListPage {
        data: all
            .into_iter()
            .map(|e| endpoint_json(base_url, e, None))
            .collect(),
        next_cursor: None,
    }))
}

/// Adds an endpoint; the answer carries its signing secret, once.
#[utoipa::path(post, path = "/api/v1/webhooks", tag = "events", request_body = NewEndpointJson,
    responses(
        (status = 201, body = EndpointJson,
            headers(("Location" = String, description = "The endpoint's address in this API"))),
        (status = 409, description = "The organization has 10 endpoints already (`conflict`)", body = ErrorBody),
        (status = 422, description = "`invalid` (`url`) or `unknown_choice` (`events`)", body = ErrorBody)),
    security(("token" = ["servers:write"])))]
async fn create(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    Body(body): Body<NewEndpointJson>,
) -> ApiResult<Response> {
    let description: String = body.description.chars().take(200).collect();
    let settings = Settings {
        url: &body.url,
        description: &description,
        events: &body.events,
        enabled: true,
    };
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    let actor = caller.actor();
    let (endpoint, secret) =
        webhooks::create(db, clock, sealer, &actor, &settings, allow_private(&state)).await?;
    let json = endpoint_json(&state.config.public_base_url, endpoint, Some(secret));
    let headers = [
        (http::header::LOCATION, json.url_api.clone()),
        (http::header::CACHE_CONTROL, "no-store".to_owned()),
    ];
    Ok((StatusCode::CREATED, headers, Json(json)).into_response())
}

/// One endpoint.
#[utoipa::path(get, path = "/api/v1/webhooks/{id}", tag = "events",
    params(("id" = String, Path)), responses((status = 200, body = EndpointJson)),
    security(("token" = ["read"])))]
async fn show(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<EndpointJson>> {
    let endpoint = webhooks::get(&state.db, &caller.organization_id, &id).await?;
    Ok(Json(endpoint_json(
        &state.config.public_base_url,
        endpoint,
        None,
    )))
}

/// Changes an endpoint; fields left out stay as they are.
#[utoipa::path(patch, path = "/api/v1/webhooks/{id}", tag = "events",
    params(("id" = String, Path)), request_body = EndpointChanges,
    responses((status = 200, body = EndpointJson),
        (status = 422, description = "`invalid` (`url`) or `unknown_choice` (`events`)", body = ErrorBody)),
    security(("token" = ["servers:write"])))]
async fn update(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
    Body(body): Body<EndpointChanges>,
) -> ApiResult<Json<EndpointJson>> {
    let now = webhooks::get(&state.db, &caller.organization_id, &id).await?;
    let description: String = body
        .description
        .unwrap_or(now.description)
        .chars()
        .take(200)
        .collect();
    let url = body.url.unwrap_or(now.url);
    let events = body.events.unwrap_or(now.events);
    let settings = Settings {
        url: &url,
        description: &description,
        events: &events,
        enabled: body.enabled.unwrap_or(now.enabled),
    };
    let actor = caller.actor();
    let changed = webhooks::update(
        &state.db,
        &state.clock,
        &actor,
        &id,
        &settings,
        allow_private(&state),
    )
    .await?;
    Ok(Json(endpoint_json(
        &state.config.public_base_url,
        changed,
        None,
    )))
}

/// Deletes an endpoint and its deliveries.
#[utoipa::path(delete, path = "/api/v1/webhooks/{id}", tag = "events",
    params(("id" = String, Path)), responses((status = 204, description = "Deleted")),
    security(("token" = ["servers:write"])))]
async fn delete(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<StatusCode> {
    webhooks::delete(&state.db, &state.clock, &caller.actor(), &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Rolls the signing secret: the answer has the new one (once); the
/// previous one signs too for 24 hours (`previous_secret_until`).
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/secret", tag = "events",
    params(("id" = String, Path)), responses((status = 200, body = EndpointJson)),
    security(("token" = ["servers:write"])))]
async fn roll(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Response> {
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    let (endpoint, secret) = webhooks::roll_secret(db, clock, sealer, &caller.actor(), &id).await?;
    let base_url = &state.config.public_base_url;
    let no_store = [(http::header::CACHE_CONTROL, "no-store")];
    Ok((
        no_store,
        Json(endpoint_json(base_url, endpoint, Some(secret))),
    )
        .into_response())
}

/// Sends a `ping` event to the endpoint (within a second or two); see its
/// delivery for the answer.
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/ping", tag = "events",
    params(("id" = String, Path)), responses((status = 202, body = DeliveryJson)),
    security(("token" = ["servers:write"])))]
async fn ping(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Response> {
    let org = &caller.organization_id;
    let delivery = webhooks::ping(&state.db, &state.clock, org, &id).await?;
    Ok((StatusCode::ACCEPTED, Json(delivery_json(delivery))).into_response())
}

/// The endpoint's deliveries, newest first (kept 30 days).
#[utoipa::path(get, path = "/api/v1/webhooks/{id}/deliveries", tag = "events",
    params(("id" = String, Path), PageQuery),
    responses((status = 200, body = inline(ListPage<DeliveryJson>))),
    security(("token" = ["read"])))]
async fn deliveries(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> ApiResult<Json<ListPage<DeliveryJson>>> {
    let org = &caller.organization_id;
    webhooks::get(&state.db, org, &id).await?;
    let after = q.after(caller.lang)?;
    let before = after.as_ref().map(|(at, id)| (*at, id.as_str()));
    let fetch = q.fetch(caller.lang)?;
    let rows = webhooks::deliveries(&state.db, org, &id, before, fetch).await?;
    let page = q.cut(rows, |d| sort_key(d.created_at, &d.id));
    Ok(Json(page.map(delivery_json)))
}

/// Sends a delivery's event again, as a new delivery.
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend", tag = "events",
    params(("id" = String, Path), ("delivery_id" = String, Path)),
    responses((status = 202, body = DeliveryJson)),
    security(("token" = ["servers:write"])))]
async fn resend(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath((id, delivery_id)): ApiPath<(String, String)>,
) -> ApiResult<Response> {
    let org = &caller.organization_id;
    let delivery = webhooks::resend(&state.db, &state.clock, org, &id, &delivery_id).await?;
    Ok((StatusCode::ACCEPTED, Json(delivery_json(delivery))).into_response())
}
