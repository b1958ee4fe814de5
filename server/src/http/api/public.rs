//! `GET /api/v1/plans` and `GET /api/v1/latency`: the catalog and the
//! measured round trips the storefront shows, from the same facts. Both
//! change rarely: shared caches may keep them a minute, and clients
//! revalidate with the ETag.

use axum::extract::State;
use axum::response::Response;
use domain::latency::LatencySource;
use domain::time::format_iso;
use http::header::HeaderMap;
use serde::Serialize;
use std::sync::Arc;
use utoipa::ToSchema;

use super::choices::SiteChoice;
use super::error::ErrorBody;
use super::stock::conditional;
use super::{ApiResult, ApiRoute};
use crate::startup::AppState;

/// Plans and latencies change by an operator's hand, seldom.
const CACHE_CONTROL: &str = "public, max-age=60";

pub fn routes() -> Vec<ApiRoute> {
    vec![
        ApiRoute::get("/api/v1/plans", None, plans),
        ApiRoute::get("/api/v1/latency", None, latency),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(plans, latency),
    components(schemas(PlansJson, PlanJson, LatencyJson, LatencyRowJson, BilingualJson))
)]
pub struct Doc;

#[derive(Serialize, ToSchema)]
pub struct PlansJson {
    pub data: Vec<PlanJson>,
}

/// A plan as sold: its hardware and its monthly price excluding VAT.
#[derive(Serialize, ToSchema)]
pub struct PlanJson {
    /// `g-l40s`: what `plan` means everywhere in the API.
    pub id: String,
    /// `G-L40S×2`.
    pub name: String,
    /// The GPU model: `NVIDIA L40S`.
    pub gpu: String,
    pub gpus: u32,
    /// GPU memory of the whole plan (all cards).
    pub vram_gb: u32,
    pub vram_gb_per_gpu: u32,
    /// Dedicated CPU cores.
    pub vcpus: u32,
    pub ram_gb: u32,
    pub nvme_tb: u32,
    pub port_gbit: u32,
    /// Per month, excluding VAT.
    pub price_cents: i64,
    pub currency: &'static str,
}

#[derive(Serialize, ToSchema)]
pub struct LatencyJson {
    pub data: Vec<LatencyRowJson>,
}

/// The median round trip from a probe city to a site.
#[derive(Serialize, ToSchema)]
pub struct LatencyRowJson {
    pub city: BilingualJson,
    /// ISO 3166-1 alpha-2 of the probe city.
    pub country_code: String,
    #[schema(value_type = SiteChoice)]
    pub site: String,
    /// Milliseconds, to a tenth.
    pub median_ms: f64,
    pub measured_at: String,
    /// `measured`, or `estimated` (from distance; only until measurements
    /// exist).
    pub source: &'static str,
}

/// A text in both languages.
#[derive(Serialize, ToSchema)]
pub struct BilingualJson {
    pub en: String,
    pub zh: String,
}

impl From<&domain::Localized> for BilingualJson {
    fn from(text: &domain::Localized) -> BilingualJson {
        BilingualJson {
            en: text.en.clone(),
            zh: text.zh.clone(),
        }
    }
}

/// Every plan
///
/// In the storefront's order, with the monthly price excluding VAT.
#[utoipa::path(
    get,
    path = "/api/v1/plans",
    tag = "catalog",
    responses(
        (status = 200, description = "The plans", body = PlansJson,
         headers(("ETag" = String, description = "Weak; send it in `If-None-Match`"))),
        (status = 304, description = "Unchanged since the ETag sent in `If-None-Match`"),
        (status = 503, description = "The database is unreachable", body = ErrorBody),
    )
)]
pub async fn plans(State(state): State<Arc<AppState>>, headers: HeaderMap) -> ApiResult<Response> {
    let facts = state.facts.current().await?.facts;
    let data = facts
        .catalog
        .plans
        .iter()
        .map(|p| PlanJson {
            id: p.id.to_string(),
            name: p.name.clone(),
            gpu: p.gpu_model.clone(),
            gpus: p.gpu_count,
            vram_gb: p.total_vram_gb(),
            vram_gb_per_gpu: p.vram_gb_per_card,
            vcpus: p.dedicated_cores,
            ram_gb: p.memory_gb,
            nvme_tb: p.nvme_tb,
            port_gbit: p.port_gbit,
            price_cents: p.monthly_price.cents,
            currency: p.monthly_price.currency.code(),
        })
        .collect();
    json(&headers, &PlansJson { data })
}

/// Latency from probe cities
///
/// The median round trip from each probe city to each site, as the
/// storefront's latency page shows it.
#[utoipa::path(
    get,
    path = "/api/v1/latency",
    tag = "catalog",
    responses(
        (status = 200, description = "Round trips", body = LatencyJson,
         headers(("ETag" = String, description = "Weak; send it in `If-None-Match`"))),
        (status = 304, description = "Unchanged since the ETag sent in `If-None-Match`"),
        (status = 503, description = "The database is unreachable", body = ErrorBody),
    )
)]
pub async fn latency(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let facts = state.facts.current().await?.facts;
    let data = facts
        .latency
        .iter()
        .map(|r| LatencyRowJson {
            city: (&r.city).into(),
            country_code: r.country_code.clone(),
            site: r.site.to_string(),
            median_ms: f64::from(r.median_tenth_ms) / 10.0,
            measured_at: format_iso(r.measured_at),
            source: match r.source {
                LatencySource::Measured => "measured",
                LatencySource::Estimated => "estimated",
            },
        })
        .collect();
    json(&headers, &LatencyJson { data })
}

pub(super) fn json(headers: &HeaderMap, body: &impl Serialize) -> ApiResult<Response> {
    let body = serde_json::to_vec(body).map_err(anyhow::Error::from)?;
    Ok(conditional::answer(
        headers,
        body,
        "application/json",
        CACHE_CONTROL,
    ))
}
