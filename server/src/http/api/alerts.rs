//! Stock alerts through the API (`read` to look, `servers:write` to open
//! or close one: a read-only token changes nothing): an alert is mailed to the token
//! creator's address, in the language of the request, once the plan is
//! free again at the site (`backend::stock_alerts`, as the storefront's
//! form). A token sees and closes only its creator's open alerts.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::Scope;
use backend::rate_limit::{self, MAIL_PER_RECIPIENT};
use backend::stock_alerts::{self, AlertError, OpenAlert, Subscription};
use domain::time::format_iso;
use http::StatusCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

use super::choices::{LangChoice, PlanChoice, SiteChoice};
use super::error::ErrorBody;
use super::{
    sort_key, ApiCaller, ApiError, ApiPath, ApiQuery, ApiResult, ApiRoute, Body, ListPage,
    PageQuery, Problem,
};
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    let (read, write) = (Some(Scope::Read), Some(Scope::ServersWrite));
    vec![
        ApiRoute::get("/api/v1/stock-alerts", read, list_alerts),
        ApiRoute::get("/api/v1/stock-alerts/{id}", read, get_alert),
        ApiRoute::post("/api/v1/stock-alerts", write, create_alert),
        ApiRoute::delete("/api/v1/stock-alerts/{id}", write, delete_alert),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list_alerts, get_alert, create_alert, delete_alert),
    components(schemas(AlertJson, NewAlertJson))
)]
pub struct Doc;

/// An open alert: one mail when the plan is free again at the site, then
/// it closes.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AlertJson {
    id: String,
    /// Its address in this API.
    url: String,
    #[schema(value_type = PlanChoice)]
    plan: String,
    #[schema(value_type = SiteChoice)]
    site: String,
    /// Where the mail goes: the token creator's address.
    email: String,
    /// The mail's language.
    #[schema(value_type = LangChoice)]
    lang: String,
    created_at: String,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAlertJson {
    #[schema(value_type = PlanChoice)]
    plan: String,
    #[schema(value_type = SiteChoice)]
    site: String,
}

fn json(base_url: &str, a: OpenAlert) -> AlertJson {
    AlertJson {
        url: format!(
            "{}/api/v1/stock-alerts/{}",
            base_url.trim_end_matches('/'),
            a.id
        ),
        id: a.id,
        plan: a.plan_id,
        site: a.site_code,
        email: a.email,
        lang: a.lang.code().to_owned(),
        created_at: format_iso(a.created_at),
    }
}

async fn open_alerts(state: &AppState, caller: &ApiCaller) -> ApiResult<Vec<OpenAlert>> {
    stock_alerts::list_for_email(&state.db, &caller.email)
        .await
        .map_err(ApiError::from)
}

/// The open alerts of the token's creator.
#[utoipa::path(
    get,
    path = "/api/v1/stock-alerts",
    tag = "alerts",
    params(PageQuery),
    responses(
        (status = 200, description = "Open alerts, newest first", body = ListPage<AlertJson>),
        (status = 400, description = "Bad cursor", body = ErrorBody),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks `read`", body = ErrorBody),
    ),
    security(("token" = ["read"]))
)]
async fn list_alerts(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> ApiResult<Json<ListPage<AlertJson>>> {
    let open = open_alerts(&state, &caller).await?;
    let page = q.page(open, |a| sort_key(a.created_at, &a.id), true, caller.lang)?;
    Ok(Json(ListPage {
        data: page
            .data
            .into_iter()
            .map(|a| json(&state.config.public_base_url, a))
            .collect(),
        next_cursor: page.next_cursor,
    }))
}

/// Opens an alert for a plan at a site, mailed to the token's creator (a
/// confirmation now, the alert when a server is free). An alert already
/// open for the same plan and site is answered as it is, with 200.
#[utoipa::path(
    post,
    path = "/api/v1/stock-alerts",
    tag = "alerts",
    request_body = NewAlertJson,
    responses(
        (status = 201, description = "Opened", body = AlertJson,
            headers(("Location" = String, description = "The alert's address in this API"))),
        (status = 200, description = "Open already", body = AlertJson,
            headers(("Location" = String, description = "The alert's address in this API"))),
        (status = 422, description = "`unknown_choice`", body = ErrorBody),
        (status = 429, description = "Too many alert mails to this address; see `Retry-After`", body = ErrorBody),
    ),
    security(("token" = ["servers:write"]))
)]
async fn create_alert(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    Body(request): Body<NewAlertJson>,
) -> ApiResult<Response> {
    let same = |a: &OpenAlert| a.plan_id == request.plan && a.site_code == request.site;
    if let Some(open) = open_alerts(&state, &caller).await?.into_iter().find(same) {
        return Ok(located(&state, StatusCode::OK, open));
    }
    // Each new alert mails its confirmation: limited per recipient like
    // the storefront's form, so a loop can't flood the inbox.
    let key = format!("alert-to:{}", caller.email.trim().to_lowercase());
    let limits = [(key.as_str(), &MAIL_PER_RECIPIENT)];
    let taken = rate_limit::take(&state.db, &limits, state.clock.now()).await?;
    if let Err(wait) = taken {
        let mut error = caller.error(Problem::RateLimited);
        error.retry_after = Some(wait);
        return Err(error);
    }
    let catalog = state.facts.current().await?.facts.catalog.clone();
    let sub = Subscription {
        email: &caller.email,
        lang: caller.lang,
        plan: &request.plan,
        site: &request.site,
        user_id: Some(&caller.user_id),
        base_url: &state.config.public_base_url,
    };
    stock_alerts::subscribe(&state.db, &state.clock, &catalog, &sub).await?;
    let opened = open_alerts(&state, &caller)
        .await?
        .into_iter()
        .find(same)
        .ok_or_else(|| ApiError::from(anyhow::anyhow!("the alert just opened is gone")))?;
    Ok(located(&state, StatusCode::CREATED, opened))
}

fn located(state: &AppState, status: StatusCode, alert: OpenAlert) -> Response {
    let alert = json(&state.config.public_base_url, alert);
    let location = [(http::header::LOCATION, alert.url.clone())];
    (status, location, Json(alert)).into_response()
}

/// One of the token creator's open alerts.
#[utoipa::path(
    get,
    path = "/api/v1/stock-alerts/{id}",
    tag = "alerts",
    params(("id" = String, Path, description = "The alert's id")),
    responses(
        (status = 200, description = "The alert, open", body = AlertJson),
        (status = 404, description = "No such open alert of the token's creator", body = ErrorBody),
    ),
    security(("token" = ["read"]))
)]
async fn get_alert(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Json<AlertJson>> {
    let open = open_alerts(&state, &caller).await?;
    let alert = open.into_iter().find(|a| a.id == id);
    alert
        .map(|a| Json(json(&state.config.public_base_url, a)))
        .ok_or_else(|| caller.error(Problem::NotFound))
}

impl From<AlertError> for ApiError {
    fn from(error: AlertError) -> ApiError {
        match error {
            AlertError::UnknownChoice => Problem::UnknownChoice.into(),
            AlertError::InvalidEmail => Problem::Invalid.into(),
            AlertError::Db(error) => error.into(),
        }
    }
}

/// Closes one of the token creator's open alerts.
#[utoipa::path(
    delete,
    path = "/api/v1/stock-alerts/{id}",
    tag = "alerts",
    params(("id" = String, Path, description = "The alert's id")),
    responses(
        (status = 204, description = "Closed"),
        (status = 404, description = "No such open alert of the token's creator", body = ErrorBody),
    ),
    security(("token" = ["servers:write"]))
)]
async fn delete_alert(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<StatusCode> {
    let closed = stock_alerts::close_by_id(&state.db, &state.clock, &caller.email, &id).await?;
    if closed {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(caller.error(Problem::NotFound))
    }
}
