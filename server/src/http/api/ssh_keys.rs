//! The token creator's SSH keys, as the portal's keys page keeps them: a
//! script lists them (to name them in an order's `ssh_key_ids`), adds one
//! and deletes one. Keys belong to the member, not the organization: a
//! token sees only its creator's. Servers that have a key keep it when it
//! is deleted here.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::Scope;
use backend::ssh_keys::{self, SshKey};
use domain::time::format_iso;
use http::StatusCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use super::error::ErrorBody;
use super::{sort_key, ApiCaller, ApiPath, ApiQuery, ApiResult, ApiRoute, Body, ListPage};
use super::{PageQuery, Problem};
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    let (read, write) = (Some(Scope::Read), Some(Scope::ServersWrite));
    vec![
        ApiRoute::get("/api/v1/ssh-keys", read, list_keys),
        ApiRoute::get("/api/v1/ssh-keys/{id}", read, get_key),
        ApiRoute::post("/api/v1/ssh-keys", write, add_key),
        ApiRoute::delete("/api/v1/ssh-keys/{id}", write, delete_key),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list_keys, get_key, add_key, delete_key),
    components(schemas(SshKeyJson, NewSshKeyJson))
)]
pub struct Doc;

/// A saved public key.
#[derive(Serialize, ToSchema)]
pub struct SshKeyJson {
    /// What an order's `ssh_key_ids` names.
    id: String,
    /// Its address in this API.
    url: String,
    name: String,
    /// `type base64`, as installed in `authorized_keys`.
    public_key: String,
    /// `SHA256:…`, as `ssh-keygen -l` prints it.
    fingerprint: String,
    created_at: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSshKeyJson {
    /// One OpenSSH public key line (`ssh-ed25519 AAAA… comment`).
    public_key: String,
    /// Up to 100 characters; omitted or empty: the key's comment, else
    /// its fingerprint.
    #[serde(default)]
    #[schema(max_length = 100)]
    name: String,
}

fn json(base_url: &str, key: SshKey) -> SshKeyJson {
    SshKeyJson {
        url: format!(
            "{}/api/v1/ssh-keys/{}",
            base_url.trim_end_matches('/'),
            key.id
        ),
        id: key.id,
        name: key.name,
        public_key: key.public_key,
        fingerprint: key.fingerprint,
        created_at: format_iso(key.created_at),
    }
}

async fn saved(state: &AppState, caller: &ApiCaller) -> ApiResult<Vec<SshKey>> {
    Ok(ssh_keys::list(&state.db, &caller.user_id).await?)
}

/// The token creator's keys, oldest first.
#[utoipa::path(
    get,
    path = "/api/v1/ssh-keys",
    tag = "account",
    params(PageQuery),
    responses(
        (status = 200, description = "A page of keys, oldest first", body = ListPage<SshKeyJson>),
    ),
    security(("token" = ["read"]))
)]
async fn list_keys(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> ApiResult<Json<ListPage<SshKeyJson>>> {
    let keys = saved(&state, &caller).await?;
    let page = q.page(keys, |k| sort_key(k.created_at, &k.id), false, caller.lang)?;
    Ok(Json(page.map(|k| json(&state.config.public_base_url, k))))
}

/// One of the token creator's keys.
#[utoipa::path(
    get,
    path = "/api/v1/ssh-keys/{id}",
    tag = "account",
    params(("id" = String, Path, description = "The key's id")),
    responses(
        (status = 200, description = "The key", body = SshKeyJson),
        (status = 404, description = "No such key of the token's creator", body = ErrorBody),
    ),
    security(("token" = ["read"]))
)]
async fn get_key(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<SshKeyJson>> {
    saved(&state, &caller)
        .await?
        .into_iter()
        .find(|k| k.id == id)
        .map(|k| Json(json(&state.config.public_base_url, k)))
        .ok_or_else(|| caller.error(Problem::NotFound))
}

/// Saves a public key for the token's creator. The same key again (by
/// fingerprint) is answered as it is, with 200.
#[utoipa::path(
    post,
    path = "/api/v1/ssh-keys",
    tag = "account",
    request_body = NewSshKeyJson,
    responses(
        (status = 201, description = "Saved", body = SshKeyJson,
            headers(("Location" = String, description = "The key's address in this API"))),
        (status = 200, description = "Saved already", body = SshKeyJson,
            headers(("Location" = String, description = "The key's address in this API"))),
        (status = 422, description = "`bad_ssh_key`: not one OpenSSH public key line", body = ErrorBody),
    ),
    security(("token" = ["servers:write"]))
)]
async fn add_key(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    Body(request): Body<NewSshKeyJson>,
) -> ApiResult<Response> {
    let key = ssh_keys::parse(&request.public_key)
        .map_err(|_| caller.error(Problem::BadSshKey).at("public_key"))?;
    let known = |keys: Vec<SshKey>| keys.into_iter().find(|k| k.fingerprint == key.fingerprint);
    let (status, saved_key) = match known(saved(&state, &caller).await?) {
        Some(existing) => (StatusCode::OK, existing),
        None => {
            let now = state.clock.now();
            ssh_keys::add(&state.db.pool, &caller.user_id, &request.name, &key, now).await?;
            let added = known(saved(&state, &caller).await?)
                .ok_or_else(|| anyhow::anyhow!("the key just saved is gone"))?;
            (StatusCode::CREATED, added)
        }
    };
    let body = json(&state.config.public_base_url, saved_key);
    let location = [(http::header::LOCATION, body.url.clone())];
    Ok((status, location, Json(body)).into_response())
}

/// Deletes one of the token creator's keys; servers that have it keep it.
#[utoipa::path(
    delete,
    path = "/api/v1/ssh-keys/{id}",
    tag = "account",
    params(("id" = String, Path, description = "The key's id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such key of the token's creator", body = ErrorBody),
    ),
    security(("token" = ["servers:write"]))
)]
async fn delete_key(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<StatusCode> {
    if ssh_keys::delete(&state.db, &caller.user_id, &id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(caller.error(Problem::NotFound))
    }
}
