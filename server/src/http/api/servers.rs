//! Servers through the API: list and read them (state, progress,
//! addresses, a telemetry summary and health), rename, power actions, and
//! scheduling or revoking a cancellation. Long work is not waited for: the
//! answer is the server's state, and a client polls `GET /servers/{id}`.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::Scope;
use backend::fleet::PowerAction;
use backend::servers::cancellation::{self, CancelError};
use backend::servers::labels::{self, Labels};
use backend::servers::listing::{self, After, Filter};
use backend::servers::{self, Server, ServerError};
use domain::server::ShownState;
use domain::time::format_iso;
use domain::ServerId;
use http::StatusCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use super::choices::*;
use super::error::ErrorBody;
use super::{sort_key, ApiCaller, ApiPath, ApiQuery, ApiResult, ApiRoute, Body, ListPage};
use super::{ApiError, PageQuery, Problem};
use crate::startup::AppState;

mod reinstall;
mod telemetry;

pub use telemetry::{CardJson, HealthJson, TelemetryJson, WindowJson};

pub fn routes() -> Vec<ApiRoute> {
    let (read, write) = (Some(Scope::Read), Some(Scope::ServersWrite));
    vec![
        ApiRoute::get("/api/v1/servers", read, list),
        ApiRoute::get("/api/v1/servers/{id}", read, show),
        ApiRoute::patch("/api/v1/servers/{id}", write, update),
        ApiRoute::post("/api/v1/servers/{id}/power", write, power),
        ApiRoute::post(
            "/api/v1/servers/{id}/reinstall",
            write,
            reinstall::reinstall,
        ),
        ApiRoute::post(
            "/api/v1/servers/{id}/root-password",
            write,
            reset_root_password,
        ),
        ApiRoute::post(
            "/api/v1/servers/{id}/root-password/take",
            write,
            take_root_password,
        ),
        ApiRoute::post("/api/v1/servers/{id}/cancellation", write, cancel),
        ApiRoute::delete("/api/v1/servers/{id}/cancellation", write, revoke),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(
        list,
        show,
        update,
        power,
        reinstall::reinstall,
        reset_root_password,
        take_root_password,
        cancel,
        revoke
    ),
    components(schemas(
        ServerJson,
        TelemetryJson,
        CardJson,
        HealthJson,
        WindowJson,
        ServerChanges,
        Power,
        reinstall::ReinstallRequest,
        RootPasswordJson,
        Cancel
    ))
)]
pub struct Doc;

/// One SSH host key of a server.
#[derive(Serialize, ToSchema)]
pub struct HostKeyJson {
    /// `ED25519`, `ECDSA-SHA2-NISTP256`, `RSA`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `SHA256:` and the base64 digest, as `ssh-keygen -l` prints it.
    pub fingerprint: String,
}

/// A server as the API shows it.
#[derive(Serialize, ToSchema)]
pub struct ServerJson {
    pub id: String,
    /// Its address in this API.
    pub url: String,
    #[schema(value_type = ServerNameChoice)]
    pub name: String,
    #[schema(value_type = PlanChoice)]
    pub plan: String,
    #[schema(value_type = SiteChoice)]
    pub site: String,
    #[schema(value_type = ServerStateChoice)]
    pub state: String,
    /// `suspended`: unpaid past the grace period (public network and
    /// console cut, data kept) until the overdue invoice is paid.
    #[schema(value_type = BillingStateChoice)]
    pub billing_state: String,
    /// The provisioning step under way (empty when none).
    pub step: String,
    /// 0–100 while provisioning or restoring.
    pub progress: i64,
    #[schema(value_type = ImageChoice)]
    pub image: String,
    pub addons: Vec<String>,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    pub order_id: String,
    pub created_at: String,
    pub renews_at: Option<String>,
    /// A scheduled cancellation: the server ends at this time.
    pub cancel_at: Option<String>,
    /// The dates a cancellation may be scheduled for (term ends).
    pub cancellable_at: Vec<String>,
    /// `key: value` labels (`PATCH` sets them; `?label=` filters by
    /// them).
    pub labels: Labels,
    /// A root password waits to be taken, once (`POST
    /// /servers/{id}/root-password/take`): after the installation and
    /// after a reset.
    pub root_password_waiting: bool,
    /// The server's SSH host keys, as `ssh` shows them on a first login:
    /// check the one it asks you to trust against these.
    pub host_keys: Vec<HostKeyJson>,
    /// Only on `GET /servers/{id}`: the last readings while it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<TelemetryJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<HealthJson>,
}

pub fn server_json(base_url: &str, s: Server) -> ServerJson {
    let cancellable_at = s.cancellable_term_ends();
    ServerJson {
        url: format!("{}/api/v1/servers/{}", base_url.trim_end_matches('/'), s.id),
        state: s.shown_state().as_str().to_owned(),
        billing_state: s.billing_state.as_str().to_owned(),
        step: s.step.as_str().to_owned(),
        progress: s.progress,
        plan: s.plan_id.to_string(),
        site: s.site_code.to_string(),
        image: s.os_image,
        addons: s.addons,
        ipv4: s.ipv4,
        ipv6: s.ipv6,
        order_id: s.order_id.into_string(),
        created_at: format_iso(s.created_at),
        renews_at: s.renews_at.map(format_iso),
        cancel_at: s.cancel_at.map(format_iso),
        cancellable_at: cancellable_at.into_iter().map(format_iso).collect(),
        host_keys: backend::ssh_keys::host_key_fingerprints(&s.host_keys)
            .into_iter()
            .map(|(kind, fingerprint)| HostKeyJson { kind, fingerprint })
            .collect(),
        labels: Labels::new(),
        root_password_waiting: s.has_secret,
        telemetry: None,
        health: None,
        id: s.id.into_string(),
        name: s.name,
    }
}

impl From<ServerError> for ApiError {
    fn from(error: ServerError) -> ApiError {
        match error {
            ServerError::NotFound => Problem::NotFound.into(),
            ServerError::InvalidName => Problem::InvalidName.into(),
            ServerError::Busy(_) => Problem::Busy.into(),
            ServerError::Db(cause) => cause.into(),
        }
    }
}

/// A server as the API shows it, with its labels.
pub async fn with_labels(state: &AppState, server: Server) -> ApiResult<ServerJson> {
    let labels = labels::of_server(&state.db, &server.id).await?;
    Ok(ServerJson {
        labels,
        ..server_json(&state.config.public_base_url, server)
    })
}

/// The organization's server, or 404 (also for other organizations' ids).
pub async fn own_server(state: &AppState, caller: &ApiCaller, id: &ServerId) -> ApiResult<Server> {
    servers::get(&state.db, &caller.organization_id, id)
        .await?
        .filter(|s| s.cancelled_at.is_none())
        .ok_or_else(|| caller.error(Problem::NotFound))
}

/// `?state=&site=&plan=&label=` and the page.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ServerQuery {
    /// 1–100, default 50; outside that range: 400.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page (or follow `Link`).
    pub cursor: Option<String>,
    /// Only servers in this state (a failed installation is not listed:
    /// its order says why).
    #[param(value_type = Option<ServerStateChoice>)]
    pub state: Option<String>,
    #[param(value_type = Option<SiteChoice>)]
    pub site: Option<String>,
    #[param(value_type = Option<PlanChoice>)]
    pub plan: Option<String>,
    /// A label selector: `env=prod` (the label with this value), `gpu`
    /// (the label, any value), several joined by `,` (all must hold; at
    /// most 5).
    pub label: Option<String>,
}

/// The organization's servers, newest first, filtered and paged in the
/// database.
#[utoipa::path(get, path = "/api/v1/servers", tag = "servers", params(ServerQuery),
    security(("token" = ["read"])),
    responses((status = 200, body = inline(ListPage<ServerJson>)),
        (status = 400, description = "An unknown `state`, or a `label` selector that breaks the label rules (`bad_request`)", body = ErrorBody)))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiQuery(q): ApiQuery<ServerQuery>,
) -> ApiResult<Response> {
    let bad = || caller.error(Problem::BadRequest);
    let filter = Filter {
        state: match q.state.as_deref() {
            Some(word) => Some(
                ShownState::ALL
                    .into_iter()
                    .find(|s| s.as_str() == word)
                    .ok_or_else(bad)?,
            ),
            None => None,
        },
        site: q.site.clone(),
        plan: q.plan.clone(),
        labels: match q.label.as_deref() {
            Some(raw) => labels::parse_selectors(raw).ok_or_else(bad)?,
            None => Vec::new(),
        },
    };
    let paging = PageQuery {
        limit: q.limit,
        cursor: q.cursor.clone(),
    };
    let after = paging
        .after(caller.lang)?
        .map(|(created_at, id)| After { created_at, id });
    let fetch = paging.fetch(caller.lang)?;
    let org = &caller.organization_id;
    let rows = listing::page(&state.db, org, &filter, after.as_ref(), fetch).await?;
    let page = paging.cut(rows, |s| sort_key(s.created_at, &s.id));
    let mut all_labels = labels::of_organization(&state.db, org).await?;
    let base_url = &state.config.public_base_url;
    Ok(Json(page.map(|s| {
        let labels = all_labels.remove(&s.id).unwrap_or_default();
        ServerJson {
            labels,
            ..server_json(base_url, s)
        }
    }))
    .into_response())
}

/// One server with its telemetry summary and health.
#[utoipa::path(get, path = "/api/v1/servers/{id}", tag = "servers",
    params(("id" = String, Path)), security(("token" = ["read"])),
    responses((status = 200, body = ServerJson), (status = 404, body = ErrorBody)))]
pub async fn show(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
) -> ApiResult<Response> {
    let server = own_server(&state, &caller, &id).await?;
    let (telemetry, health) = telemetry::summary(&state, &server).await?;
    let mut json = with_labels(&state, server).await?;
    json.telemetry = telemetry;
    json.health = Some(health);
    Ok(Json(json).into_response())
}

/// What a `PATCH` changes; a field left out stays as it is.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerChanges {
    #[schema(value_type = Option<ServerNameChoice>)]
    pub name: Option<String>,
    /// The server's labels, all of them (`{}` removes every label): at
    /// most 16; keys 1–63 lower-case letters, digits, `.`, `_`, `-` or
    /// `/`, starting and ending with a letter or digit; values 0–63
    /// letters, digits, `.`, `_` or `-`.
    pub labels: Option<Labels>,
}

/// Renames a server or sets its labels.
#[utoipa::path(patch, path = "/api/v1/servers/{id}", tag = "servers",
    params(("id" = String, Path)), request_body = ServerChanges, security(("token" = ["servers:write"])),
    responses((status = 200, body = ServerJson),
        (status = 422, description = "`invalid_name`, or `invalid` with `field` naming the label at fault (`labels.env`)", body = ErrorBody)))]
pub async fn update(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
    Body(body): Body<ServerChanges>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    // Both checked before either is changed: a refused label renames nothing.
    if let Some(key) = body.labels.as_ref().and_then(labels::invalid) {
        return Err(caller.error(Problem::Invalid).at(&format!("labels.{key}")));
    }
    if let Some(name) = &body.name {
        if backend::orders::server_name(name).is_none() {
            return Err(caller.error(Problem::InvalidName).at("name"));
        }
        servers::rename(&state.db, &state.clock, &caller.actor(), &id, name).await?;
    }
    if let Some(labels) = &body.labels {
        labels::set(&state.db, &state.clock, &caller.actor(), &id, labels).await?;
    }
    let server = own_server(&state, &caller, &id).await?;
    Ok(Json(with_labels(&state, server).await?).into_response())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Power {
    #[schema(value_type = PowerActionChoice)]
    pub action: String,
}

/// Reboots, power-cycles or powers off a running server (`stopping`, then
/// `off`: still rented and billed, console closed), or powers on one that
/// is `off` (`starting`, then `running`); poll its state. A power off asks
/// the operating system to shut down and forces the machine off if it has
/// not within the Fleet's wait.
#[utoipa::path(post, path = "/api/v1/servers/{id}/power", tag = "servers",
    params(("id" = String, Path)), request_body = Power, security(("token" = ["servers:write"])),
    responses((status = 202, body = ServerJson), (status = 409, body = ErrorBody)))]
pub async fn power(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
    Body(body): Body<Power>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    let Some(action) = PowerAction::parse(&body.action) else {
        return Err(caller.error(Problem::UnknownChoice).at("action"));
    };
    servers::power(&state.db, &state.clock, &caller.actor(), &id, action).await?;
    let server = own_server(&state, &caller, &id).await?;
    let json = with_labels(&state, server).await?;
    Ok((StatusCode::ACCEPTED, Json(json)).into_response())
}

/// Has a new root password set on the running server (through the
/// Fleet, within a minute or so); poll the server until
/// `root_password_waiting`, then take it. The owners are mailed that it
/// was reset, never what it is.
#[utoipa::path(post, path = "/api/v1/servers/{id}/root-password", tag = "servers",
    params(("id" = String, Path)), security(("token" = ["servers:write"])),
    responses((status = 202, body = ServerJson),
        (status = 409, description = "Not running, suspended, or a reset is under way (`busy`)", body = ErrorBody),
        (status = 422, description = "`root_password_reset_not_offered`", body = ErrorBody)))]
pub async fn reset_root_password(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    if !state.fleet.offers().root_password_reset {
        return Err(caller.error(Problem::RootResetNotOffered));
    }
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    servers::root_password::request_reset(db, clock, sealer, &caller.actor(), &id).await?;
    let server = own_server(&state, &caller, &id).await?;
    let json = with_labels(&state, server).await?;
    Ok((StatusCode::ACCEPTED, Json(json)).into_response())
}

/// The root password, once.
#[derive(Serialize, ToSchema)]
pub struct RootPasswordJson {
    pub password: String,
}

/// Takes the waiting root password: answered once, then gone from our
/// database (a second call is a 409). Not cached, not kept for retries in
/// the clear.
#[utoipa::path(post, path = "/api/v1/servers/{id}/root-password/take", tag = "servers",
    params(("id" = String, Path)), security(("token" = ["servers:write"])),
    responses((status = 200, body = RootPasswordJson),
        (status = 409, description = "No root password is waiting (`conflict`)", body = ErrorBody)))]
pub async fn take_root_password(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
) -> ApiResult<Response> {
    own_server(&state, &caller, &id).await?;
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    let password = servers::take_root_password(db, clock, sealer, &caller.actor(), &id)
        .await?
        .ok_or_else(|| caller.error(Problem::Conflict))?;
    let no_store = [(http::header::CACHE_CONTROL, "no-store")];
    Ok((no_store, Json(RootPasswordJson { password })).into_response())
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Cancel {
    /// One of the server's `cancellable_at` dates (RFC 3339 or
    /// `YYYY-MM-DD`); omitted: the end of the current term.
    pub at: Option<String>,
    /// Omitted: `other`.
    #[schema(value_type = Option<CancelReasonChoice>)]
    pub reason: Option<String>,
}

/// Schedules the server's end at a term end (it runs and is billed until then).
#[utoipa::path(post, path = "/api/v1/servers/{id}/cancellation", tag = "servers",
    params(("id" = String, Path)), request_body = Cancel, security(("token" = ["servers:write"])),
    responses((status = 200, body = ServerJson), (status = 409, body = ErrorBody)))]
pub async fn cancel(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
    Body(body): Body<Cancel>,
) -> ApiResult<Response> {
    let server = own_server(&state, &caller, &id).await?;
    let at = match body.at.as_deref() {
        None => server.renews_at,
        Some(raw) => domain::time::parse_utc(raw),
    };
    // A date that is not exactly a term end is refused by the backend; a
    // day names the term end on that day.
    let offered = server.cancellable_term_ends();
    let at = at
        .and_then(|at| {
            offered
                .iter()
                .copied()
                .find(|end| end / 86_400 == at / 86_400)
        })
        .ok_or_else(|| caller.error(Problem::NotCancellable))?;
    let request = cancellation::Request {
        at,
        reason: body.reason.as_deref().unwrap_or("other"),
        // The API call is the confirmation the form asks a name for.
        typed_name: &server.name,
    };
    let (db, clock, stripe) = (&state.db, &state.clock, state.stripe.as_ref());
    let base_url = &state.config.public_base_url;
    cancellation::request(db, clock, stripe, &caller.actor(), &id, &request, base_url).await?;
    let server = own_server(&state, &caller, &id).await?;
    Ok(Json(with_labels(&state, server).await?).into_response())
}

/// Takes a scheduled cancellation back (before its date).
#[utoipa::path(delete, path = "/api/v1/servers/{id}/cancellation", tag = "servers",
    params(("id" = String, Path)), security(("token" = ["servers:write"])),
    responses((status = 200, body = ServerJson), (status = 409, body = ErrorBody)))]
pub async fn revoke(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
) -> ApiResult<Response> {
    let server = own_server(&state, &caller, &id).await?;
    if !cancellation::revocable(&server, state.clock.now()) {
        return Err(caller.error(Problem::NotCancellable));
    }
    let (db, clock, stripe) = (&state.db, &state.clock, state.stripe.as_ref());
    let base_url = &state.config.public_base_url;
    cancellation::take_back(db, clock, stripe, &caller.actor(), &id, base_url).await?;
    let server = own_server(&state, &caller, &id).await?;
    Ok(Json(with_labels(&state, server).await?).into_response())
}

impl From<CancelError> for ApiError {
    fn from(error: CancelError) -> ApiError {
        match error {
            CancelError::Server(e) => e.into(),
            CancelError::NameMismatch | CancelError::BadDate => Problem::NotCancellable.into(),
            CancelError::BadReason => ApiError::from(Problem::UnknownChoice).at("reason"),
            CancelError::Billing(failure) => {
                anyhow::anyhow!("telling Stripe failed: {failure}").into()
            }
        }
    }
}
