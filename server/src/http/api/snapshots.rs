//! A server's snapshots through the API: list, take, restore, delete. Each
//! starts work the Fleet does over minutes: the answer is the snapshot (or
//! for a restore the server) in its new state, and a client polls.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::Scope;
use backend::servers::snapshots::{self, Snapshot, SnapshotError};
use backend::servers::{Server, SnapshotState};
use domain::time::format_iso;
use domain::{ServerId, SnapshotId};
use http::StatusCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use super::choices::{SnapshotNameChoice, SnapshotStateChoice};
use super::error::ErrorBody;
use super::servers::{own_server, with_labels, ServerJson};
use super::{ApiCaller, ApiError, ApiPath, ApiResult, ApiRoute, Body, Problem};
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    let (read, write) = (Some(Scope::Read), Some(Scope::ServersWrite));
    vec![
        ApiRoute::get("/api/v1/servers/{id}/snapshots", read, list),
        ApiRoute::post("/api/v1/servers/{id}/snapshots", write, take),
        ApiRoute::get("/api/v1/servers/{id}/snapshots/{snapshot_id}", read, show),
        ApiRoute::post(
            "/api/v1/servers/{id}/snapshots/{snapshot_id}/restore",
            write,
            restore,
        ),
        ApiRoute::delete(
            "/api/v1/servers/{id}/snapshots/{snapshot_id}",
            write,
            delete,
        ),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, show, take, restore, delete),
    components(schemas(SnapshotJson, SnapshotList, TakeSnapshot))
)]
pub struct Doc;

#[derive(Serialize, ToSchema)]
pub struct SnapshotJson {
    pub id: String,
    pub server_id: String,
    /// Its address in this API.
    pub url: String,
    #[schema(value_type = SnapshotNameChoice)]
    pub name: String,
    #[schema(value_type = SnapshotStateChoice)]
    pub state: String,
    /// 0–100: `0` while `creating` (the site's storage reports no parts
    /// of a copy), the write-back's progress while `restoring`, `100` when
    /// `ready`; `null` while `deleting` or when `failed`.
    pub progress: Option<i64>,
    pub size_bytes: i64,
    pub created_at: String,
}

/// A server's snapshots (at most `quota`), newest first.
#[derive(Serialize, ToSchema)]
pub struct SnapshotList {
    pub data: Vec<SnapshotJson>,
    pub quota: usize,
}

/// A snapshot of `server` as the API shows it (a restore's progress is
/// the server's).
fn snapshot_json(base_url: &str, server: &Server, s: Snapshot) -> SnapshotJson {
    let progress = match s.state {
        SnapshotState::Creating => Some(0),
        SnapshotState::Restoring => Some(server.progress.clamp(0, 100)),
        SnapshotState::Ready => Some(100),
        SnapshotState::Deleting | SnapshotState::Failed => None,
    };
    SnapshotJson {
        url: format!(
            "{}/api/v1/servers/{}/snapshots/{}",
            base_url.trim_end_matches('/'),
            s.server_id,
            s.id
        ),
        progress,
        state: s.state.as_str().to_owned(),
        created_at: format_iso(s.created_at),
        id: s.id.into_string(),
        server_id: s.server_id.into_string(),
        name: s.name,
        size_bytes: s.size_bytes,
    }
}

impl From<SnapshotError> for ApiError {
    fn from(error: SnapshotError) -> ApiError {
        match error {
            SnapshotError::NotFound => Problem::NotFound.into(),
            SnapshotError::InvalidName => Problem::InvalidName.into(),
            SnapshotError::QuotaFull => Problem::SnapshotQuotaFull.into(),
            SnapshotError::Busy => Problem::Busy.into(),
            SnapshotError::Server(e) => e.into(),
        }
    }
}

/// Refuses when this deployment's Fleet cannot take snapshots.
fn offered(state: &AppState, caller: &ApiCaller) -> ApiResult<()> {
    if state.fleet.offers().snapshots {
        Ok(())
    } else {
        Err(caller.error(Problem::SnapshotsNotOffered))
    }
}

async fn find(
    state: &AppState,
    caller: &ApiCaller,
    server_id: &ServerId,
    snapshot_id: &SnapshotId,
) -> ApiResult<Option<SnapshotJson>> {
    let server = own_server(state, caller, server_id).await?;
    let base_url = &state.config.public_base_url;
    Ok(
        snapshots::list(&state.db, &caller.organization_id, server_id)
            .await?
            .into_iter()
            .find(|s| &s.id == snapshot_id)
            .map(|s| snapshot_json(base_url, &server, s)),
    )
}

/// The server's snapshots.
#[utoipa::path(get, path = "/api/v1/servers/{id}/snapshots", tag = "servers",
    params(("id" = String, Path)), security(("token" = ["read"])),
    responses((status = 200, body = SnapshotList), (status = 404, body = ErrorBody)))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
) -> ApiResult<Response> {
    let server = own_server(&state, &caller, &id).await?;
    let all = snapshots::list(&state.db, &caller.organization_id, &id).await?;
    let base_url = &state.config.public_base_url;
    Ok(Json(SnapshotList {
        data: all
            .into_iter()
            .map(|s| snapshot_json(base_url, &server, s))
            .collect(),
        quota: snapshots::QUOTA,
    })
    .into_response())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TakeSnapshot {
    #[schema(value_type = SnapshotNameChoice)]
    pub name: String,
}

/// Starts a snapshot of a running server; poll the list until it is `ready`.
#[utoipa::path(post, path = "/api/v1/servers/{id}/snapshots", tag = "servers",
    params(("id" = String, Path)), request_body = TakeSnapshot,
    security(("token" = ["servers:write"])),
    responses((status = 202, body = SnapshotJson,
            headers(("Location" = String, description = "The snapshot's address in this API"))),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn take(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
    Body(body): Body<TakeSnapshot>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    offered(&state, &caller)?;
    let taken = snapshots::take(&state.db, &state.clock, &caller.actor(), &id, &body.name).await?;
    let snapshot = find(&state, &caller, &id, &taken)
        .await?
        .ok_or_else(|| caller.error(Problem::NotFound))?;
    let location = [(http::header::LOCATION, snapshot.url.clone())];
    Ok((StatusCode::ACCEPTED, location, Json(snapshot)).into_response())
}

/// One of the server's snapshots: poll it while it is `creating` or
/// `restoring`.
#[utoipa::path(get, path = "/api/v1/servers/{id}/snapshots/{snapshot_id}", tag = "servers",
    params(("id" = String, Path), ("snapshot_id" = String, Path)),
    security(("token" = ["read"])),
    responses((status = 200, body = SnapshotJson), (status = 404, body = ErrorBody)))]
pub async fn show(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath((id, snapshot_id)): ApiPath<(ServerId, SnapshotId)>,
) -> ApiResult<Json<SnapshotJson>> {
    find(&state, &caller, &id, &snapshot_id)
        .await?
        .map(Json)
        .ok_or_else(|| caller.error(Problem::NotFound))
}

/// Restores the server from a ready snapshot: the server goes down and
/// shows the restore's progress; poll it until `running`.
#[utoipa::path(post, path = "/api/v1/servers/{id}/snapshots/{snapshot_id}/restore", tag = "servers",
    params(("id" = String, Path), ("snapshot_id" = String, Path)),
    security(("token" = ["servers:write"])),
    responses((status = 202, body = ServerJson), (status = 409, body = ErrorBody)))]
pub async fn restore(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath((id, snapshot_id)): ApiPath<(ServerId, SnapshotId)>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    offered(&state, &caller)?;
    let actor = caller.actor();
    snapshots::restore(&state.db, &state.clock, &actor, &id, &snapshot_id).await?;
    let server = own_server(&state, &caller, &id).await?;
    let json = with_labels(&state, server).await?;
    Ok((StatusCode::ACCEPTED, Json(json)).into_response())
}

/// Deletes a snapshot.
#[utoipa::path(delete, path = "/api/v1/servers/{id}/snapshots/{snapshot_id}", tag = "servers",
    params(("id" = String, Path), ("snapshot_id" = String, Path)),
    security(("token" = ["servers:write"])),
    responses((status = 202, body = SnapshotJson), (status = 204, description = "Already gone"),
        (status = 404, body = ErrorBody)))]
pub async fn delete(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath((id, snapshot_id)): ApiPath<(ServerId, SnapshotId)>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    let actor = caller.actor();
    snapshots::delete(&state.db, &state.clock, &actor, &id, &snapshot_id).await?;
    // Deleting is quick but not instant: the snapshot may be gone already.
    Ok(match find(&state, &caller, &id, &snapshot_id).await? {
        Some(snapshot) => (StatusCode::ACCEPTED, Json(snapshot)).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}
