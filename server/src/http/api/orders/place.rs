//! Placing an order through the API: the portal's `order_post`, with the
//! `Idempotency-Key` header as the form's key and JSON for its fields.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use backend::billing::Checkout;
use backend::orders::{self, NewOrder, OrderError};
use backend::ssh_keys::{self, PublicKey};
use http::StatusCode;
use serde::Deserialize;
use std::sync::Arc;

use super::super::choices::{ImageChoice, PlanChoice, ServerNameChoice, SiteChoice};
use super::super::error::ErrorBody;
use super::super::idempotency::IdempotencyKey;
use super::super::{ApiCaller, ApiError, ApiResult, Body, Problem};
use super::{json, sees_money, visible_order, OrderJson};
use crate::startup::AppState;

/// What to order.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewOrderJson {
    #[schema(value_type = PlanChoice)]
    plan: String,
    #[schema(value_type = SiteChoice)]
    site: String,
    /// The server's name.
    #[schema(value_type = ServerNameChoice)]
    name: String,
    #[serde(default = "default_image")]
    #[schema(value_type = ImageChoice, default = "ubuntu-24.04")]
    image: String,
    /// OpenSSH public keys to install; each is saved as one of the token
    /// creator's keys.
    #[serde(default)]
    ssh_keys: Vec<String>,
    /// Ids of the token creator's saved keys to install.
    #[serde(default)]
    ssh_key_ids: Vec<String>,
    /// Add-on ids, as `GET /add-ons` lists them.
    #[serde(default)]
    addons: Vec<String>,
}

fn default_image() -> String {
    domain::OsImage::Ubuntu2404.as_str().to_owned()
}

impl From<OrderError> for ApiError {
    fn from(error: OrderError) -> ApiError {
        let problem = match error {
            OrderError::InvalidName => Problem::InvalidName,
            OrderError::UnknownPlan => return ApiError::from(Problem::UnknownChoice).at("plan"),
            OrderError::UnknownSite => return ApiError::from(Problem::UnknownChoice).at("site"),
            OrderError::UnknownImage => return ApiError::from(Problem::UnknownChoice).at("image"),
            OrderError::UnknownAddon => return ApiError::from(Problem::UnknownChoice).at("addons"),
            OrderError::UnknownKey => {
                return ApiError::from(Problem::UnknownChoice).at("ssh_key_ids")
            }
            OrderError::UnknownCountry => Problem::UnknownChoice,
            OrderError::BadKey => Problem::BadSshKey,
            OrderError::MissingKey => Problem::IdempotencyKeyRequired,
            OrderError::DailyLimit => Problem::DailyOrderLimit,
            OrderError::NoBillingProfile => Problem::NoBillingProfile,
            OrderError::SoldOut { sites_with_stock } => {
                let mut error = ApiError::from(Problem::SoldOut);
                error.sites_with_stock = Some(sites_with_stock);
                return error;
            }
            OrderError::Db(error) => return ApiError::from(error),
        };
        problem.into()
    }
}

/// The keys to install: saved ids as given, and the pasted ones. The
/// order itself saves one pasted key (as the order form does, in the
/// order's transaction); any others are saved first and go by id.
async fn keys(
    state: &AppState,
    caller: &ApiCaller,
    request: &NewOrderJson,
) -> ApiResult<(Vec<String>, Option<String>)> {
    let pasted: Vec<PublicKey> = request
        .ssh_keys
        .iter()
        .map(|text| ssh_keys::parse(text).map_err(|_| caller.error(Problem::BadSshKey)))
        .collect::<Result<_, _>>()?;
    let mut ids: Vec<String> = Vec::new();
    let mut add_id = |id: &str| {
        if !ids.iter().any(|known| known == id) {
            ids.push(id.to_owned());
        }
    };
    request.ssh_key_ids.iter().for_each(|id| add_id(id));
    let Some((last, others)) = pasted.split_last() else {
        return Ok((ids, None));
    };
    if !others.is_empty() {
        let now = state.clock.now();
        for key in others {
            ssh_keys::add(&state.db.pool, &caller.user_id, "", key, now).await?;
        }
        let saved = ssh_keys::list(&state.db, &caller.user_id).await?;
        for key in others {
            if let Some(k) = saved.iter().find(|k| k.fingerprint == key.fingerprint) {
                add_id(&k.id);
            }
        }
    }
    let last = match last.comment.as_str() {
        "" => last.openssh.clone(),
        comment => format!("{} {comment}", last.openssh),
    };
    Ok((ids, Some(last)))
}

/// Places an order, once per `Idempotency-Key`: a retry with the same key
/// and body gets the first answer back (`Idempotent-Replayed: true`); the
/// key reused with another body is a 422. With card billing the answer has a `payment_url` and
/// the order stays `held` until paid; with invoice billing it is confirmed
/// at once and its server is being provisioned.
#[utoipa::path(
    post,
    path = "/api/v1/orders",
    tag = "orders",
    params(("Idempotency-Key" = String, Header, description = "Required: 1–100 printable ASCII characters (a UUID, say), new for each order; a retry sends the same key and body", min_length = 1, max_length = 100)),
    request_body = NewOrderJson,
    responses(
        (status = 201, description = "Placed", body = OrderJson,
            headers(("Location" = String, description = "The order's address in this API"))),
        (status = 200, description = "Placed more than a day ago with this key (the order is kept once per key)", body = OrderJson,
            headers(("Location" = String, description = "The order's address in this API"))),
        (status = 400, description = "No `Idempotency-Key`, or a malformed one (`idempotency_key_required`)", body = ErrorBody),
        (status = 422, description = "`sold_out` (with `sites_with_stock`), `unknown_choice`, `invalid_name`, `bad_ssh_key`, `no_billing_profile`, `daily_order_limit`, `idempotency_key_reused`", body = ErrorBody),
    ),
    security(("token" = ["servers:write"]))
)]
pub(super) async fn place_order(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    key: Option<Extension<IdempotencyKey>>,
    Body(request): Body<NewOrderJson>,
) -> ApiResult<Response> {
    // Checked (and required on this route) by the API's idempotency layer.
    let Some(Extension(IdempotencyKey(key))) = key else {
        return Err(caller.error(Problem::IdempotencyKeyRequired));
    };
    let (ssh_key_ids, new_key) = keys(&state, &caller, &request).await?;
    let catalog = state.facts.current().await?.facts.catalog.clone();
    let new = NewOrder {
        organization_id: caller.organization_id.clone(),
        user_id: caller.user_id.clone(),
        actor: caller.email.clone(),
        ip: Some(caller.ip.clone()),
        idempotency_key: key,
        plan: request.plan.clone(),
        site: request.site.clone(),
        server_name: request.name.clone(),
        os_image: request.image.clone(),
        addons: request.addons.clone(),
        ssh_key_ids,
        new_key,
        billing_method: state.billing.method().to_owned(),
        seller_country: state.seller.country.clone(),
    };
    let placed = orders::place(&state.db, &state.clock, &catalog, &new).await?;
    if !placed.created {
        // The key names an order already: the same one only if it asked
        // for the same thing (and, for a technical member, is theirs).
        let earlier = match visible_order(&state, &caller, &placed.order_id).await {
            Err(e) if e.problem == Problem::NotFound => None,
            other => Some(other?),
        };
        let name = orders::server_name(&request.name).unwrap_or_default();
        let same = earlier.is_some_and(|o| {
            o.plan_id.as_str() == request.plan
                && o.site_code.as_str() == request.site
                && o.server_name == name
        });
        if !same {
            return Err(caller.error(Problem::IdempotencyKeyReused));
        }
    }
    // A retry lands here too; checkout of a confirmed order changes nothing.
    let return_to = state.config.public_base_url.trim_end_matches('/');
    let checkout = state
        .billing
        .checkout(&state.db, &state.clock, &placed.order_id, return_to)
        .await?;
    let payment_url = match checkout {
        Checkout::Redirect(url) => Some(url),
        Checkout::Confirmed(_) => None,
    };
    let order = visible_order(&state, &caller, &placed.order_id).await?;
    let status = if placed.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let body = json(return_to, order, sees_money(&caller), payment_url);
    let location = body.url.clone();
    Ok((status, [(http::header::LOCATION, location)], Json(body)).into_response())
}
