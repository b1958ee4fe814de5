//! `POST /servers/{id}/reinstall`: the server's disks erased and an image
//! written again on its own host (Hetzner's and DigitalOcean's "rebuild").

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::servers::reinstall::{self, Reinstall, ReinstallError};
use domain::ServerId;
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;
use utoipa::ToSchema;

use super::super::choices::ImageChoice;
use super::super::error::ErrorBody;
use super::super::{ApiCaller, ApiError, ApiPath, ApiResult, Body, Problem};
use super::{own_server, with_labels, ServerJson};
use crate::startup::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReinstallRequest {
    /// The image to install, as `GET /images` lists them (the one it runs
    /// now is allowed).
    #[schema(value_type = ImageChoice)]
    pub image: String,
    /// Ids of the token creator's saved SSH keys (`GET /ssh-keys`) that
    /// replace the ones installed now; left out, those stay. An empty list
    /// installs none: a new root password is made, taken once through
    /// `POST /servers/{id}/root-password/take`.
    #[serde(default)]
    pub ssh_key_ids: Option<Vec<String>>,
}

/// Reinstalls a running or powered-off server on its own host: everything
/// on its disks is erased, the image is written as at the first install
/// and the server starts (`provisioning` with its progress, then
/// `running`). Its name, addresses, term, billing, labels and snapshots
/// stay. Not while a snapshot is taken or restored, nor while it is being
/// installed or restarted (`busy`).
#[utoipa::path(post, path = "/api/v1/servers/{id}/reinstall", tag = "servers",
    params(("id" = String, Path)), request_body = ReinstallRequest,
    security(("token" = ["servers:write"])),
    responses((status = 202, body = ServerJson),
        (status = 409, description = "Not running or off, or a snapshot is in progress (`busy`)", body = ErrorBody),
        (status = 422, description = "`image` or an entry of `ssh_key_ids` is unknown (`unknown_choice`)", body = ErrorBody)))]
pub async fn reinstall(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
    Body(body): Body<ReinstallRequest>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    let image = domain::OsImage::parse(&body.image)
        .ok_or_else(|| caller.error(Problem::UnknownChoice).at("image"))?;
    let request = Reinstall {
        image,
        ssh_key_ids: body.ssh_key_ids.as_deref(),
    };
    reinstall::reinstall(&state.db, &state.clock, &caller.actor(), &id, &request)
        .await
        .map_err(|error| match error {
            ReinstallError::UnknownKey => caller.error(Problem::UnknownChoice).at("ssh_key_ids"),
            ReinstallError::Server(error) => ApiError::from(error),
        })?;
    let server = own_server(&state, &caller, &id).await?;
    let json = with_labels(&state, server).await?;
    Ok((StatusCode::ACCEPTED, Json(json)).into_response())
}
