//! Console tickets through the API. A script cannot open the console (a
//! browser does: xterm.js or noVNC over the authenticated tunnel), but it
//! can hand one over: the ticket comes back inside a console page address,
//! in the fragment, which browsers never send to a server or a log. The
//! page uses it for its first connection; the browser must be signed in as
//! the token's creator.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::Scope;
use backend::console::{self, ConsoleError};
use backend::fleet::ConsoleKind;
use domain::ServerId;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use super::choices::ConsoleKindChoice;
use super::error::ErrorBody;
use super::{ApiCaller, ApiError, ApiPath, ApiResult, ApiRoute, Body, Problem};
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    vec![ApiRoute::post(
        "/api/v1/servers/{id}/console-tickets",
        Some(Scope::ServersWrite),
        create,
    )]
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(create), components(schemas(TicketRequest, TicketJson)))]
pub struct Doc;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TicketRequest {
    #[schema(value_type = ConsoleKindChoice)]
    pub kind: String,
}

#[derive(Serialize, ToSchema)]
pub struct TicketJson {
    /// Open this in a browser signed in as the token's creator.
    pub url: String,
    #[schema(value_type = ConsoleKindChoice)]
    pub kind: String,
    /// The ticket is good for one opening until then (60 seconds).
    pub expires_at: String,
}

/// A single-use console ticket for a server, inside the console page's
/// address.
#[utoipa::path(post, path = "/api/v1/servers/{id}/console-tickets", tag = "servers",
    params(("id" = String, Path)), request_body = TicketRequest,
    security(("token" = ["servers:write"])),
    responses((status = 200, description = "A ticket: nothing is created that has an address of its own", body = TicketJson),
        (status = 409, description = "The console is not available now (`console_unavailable`)", body = ErrorBody),
        (status = 422, description = "`kind` is not `serial` or `vnc` (`unknown_choice`)", body = ErrorBody),
        (status = 429, description = "Over the member's console ticket limit (`rate_limited`)", body = ErrorBody)))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<ServerId>,
    Body(body): Body<TicketRequest>,
) -> ApiResult<Response> {
    super::servers::own_server(&state, &caller, &id).await?;
    let kind = ConsoleKind::parse(&body.kind)
        .ok_or_else(|| caller.error(Problem::UnknownChoice).at("kind"))?;
    // The same per-user limit as the portal's console page.
    let key = format!("console:{}", caller.user_id);
    let now = state.clock.now();
    let limit = [(key.as_str(), &backend::rate_limit::CONSOLE_TICKETS)];
    if let Err(wait) = backend::rate_limit::take(&state.db, &limit, now).await? {
        let mut error = caller.error(Problem::RateLimited);
        error.retry_after = Some(wait);
        return Err(error);
    }
    let ticket = console::issue(&state.db, &state.clock, &caller.actor(), "", &id, kind).await?;
    let base = state.config.public_base_url.trim_end_matches('/');
    let json = TicketJson {
        url: format!(
            "{base}/{}/servers/{id}/console/{}#ticket={ticket}",
            caller.lang.code(),
            kind.as_str()
        ),
        kind: kind.as_str().to_owned(),
        expires_at: domain::time::format_iso(now + console::TICKET_LIFETIME_SECS),
    };
    Ok(Json(json).into_response())
}

impl From<ConsoleError> for ApiError {
    fn from(error: ConsoleError) -> ApiError {
        match error {
            ConsoleError::NotFound | ConsoleError::BadTicket => Problem::NotFound.into(),
            ConsoleError::NotAvailable(_) => Problem::ConsoleUnavailable.into(),
            ConsoleError::Db(cause) => cause.into(),
        }
    }
}
