//! `GET /api/v1/stock`: the stock the storefront shows, to the request (the
//! same facts, checked against the database the same way, see `facts`),
//! as a level and a band per plan × site. Pollers are expected: the rows
//! and their ETag are prepared once per set of facts, so a request costs
//! the database check, a lookup and, unless it is a 304, one copy.

pub(super) mod conditional;

use app::context::StorefrontFacts;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::response::Response;
use backend::stock_history::{band, level_code};
use domain::time::format_iso;
use http::header::{self, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, RwLock};
use utoipa::ToSchema;

use super::choices::{PlanChoice, SiteChoice};
use super::error::ErrorBody;
use super::{ApiError, ApiLang, ApiQuery, ApiResult, ApiRoute, Problem};
use crate::startup::AppState;

/// Stock sells out within minutes: a shared cache may keep an answer ten
/// seconds, no longer; revalidating with `If-None-Match` costs us little.
const CACHE_CONTROL: &str = "public, max-age=10";

pub fn routes() -> Vec<ApiRoute> {
    vec![ApiRoute::get("/api/v1/stock", None, stock)]
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(stock), components(schemas(StockJson, StockRowJson)))]
pub struct Doc;

/// `?plan=&site=`: one plan and/or one site.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StockQuery {
    /// A plan id (`g-l40s`); unknown: 404.
    #[param(value_type = Option<PlanChoice>)]
    pub plan: Option<String>,
    /// A site code (`fra`); unknown: 404.
    #[param(value_type = Option<SiteChoice>)]
    pub site: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct StockJson {
    /// When the database confirmed this stock (RFC 3339).
    pub as_of: String,
    pub data: Vec<StockRowJson>,
}

/// One plan at one site.
#[derive(Serialize, ToSchema)]
pub struct StockRowJson {
    #[schema(value_type = PlanChoice)]
    pub plan: String,
    #[schema(value_type = SiteChoice)]
    pub site: String,
    /// `in_stock`, `few` (1 or 2 left) or `sold_out`.
    pub level: &'static str,
    /// Free hosts as a band: `0`, `1`, `2`, `3-9` or `10+`.
    pub band: &'static str,
}

/// The rows of one set of facts, serialized for every filter.
struct StockTable {
    /// The facts these rows were made from; `FactsCache` hands out the same
    /// `Arc` for as long as its generation stands, so identity is the
    /// generation, without mixing up two applications in one process.
    facts: Arc<StorefrontFacts>,
    plans: Vec<String>,
    sites: Vec<String>,
    /// `(plans + 1) × (sites + 1)` views: index 0 is "all".
    views: Vec<View>,
}

struct View {
    /// The JSON array of the rows.
    data: Bytes,
    /// Of the rows only (not `as_of`): equal on every replica for the
    /// same stock, so a poller gets 304 while nothing changed.
    etag: HeaderValue,
}

/// Tables of the facts in use; a few, for applications sharing a process
/// (replicas in tests).
static TABLES: RwLock<Vec<Arc<StockTable>>> = RwLock::new(Vec::new());
const TABLES_KEPT: usize = 4;

impl StockTable {
    fn build(facts: Arc<StorefrontFacts>) -> StockTable {
        let (catalog, stock) = (&facts.catalog, &facts.stock);
        let rows: Vec<(usize, usize, StockRowJson)> = catalog
            .plans
            .iter()
            .enumerate()
            .flat_map(|(p, plan)| {
                catalog.sites.iter().enumerate().map(move |(s, site)| {
                    let free = stock.free_count(&site.code, &plan.id);
                    let row = StockRowJson {
                        plan: plan.id.to_string(),
                        site: site.code.to_string(),
                        level: level_code(domain::StockLevel::from_free(free)),
                        band: band(free),
                    };
                    (p, s, row)
                })
            })
            .collect();
        let plans = catalog.plans.iter().map(|p| p.id.to_string()).collect();
        let sites: Vec<String> = catalog.sites.iter().map(|s| s.code.to_string()).collect();
        let mut views = Vec::new();
        for plan in 0..=catalog.plans.len() {
            for site in 0..=sites.len() {
                let chosen: Vec<&StockRowJson> = rows
                    .iter()
                    .filter(|(p, s, _)| {
                        (plan == 0 || *p + 1 == plan) && (site == 0 || *s + 1 == site)
                    })
                    .map(|(_, _, row)| row)
                    .collect();
                let data = serde_json::to_vec(&chosen).unwrap_or_else(|_| b"[]".to_vec());
                let etag = conditional::weak_etag(&data);
                views.push(View {
                    data: Bytes::from(data),
                    etag,
                });
            }
        }
        StockTable {
            facts: facts.clone(),
            plans,
            sites,
            views,
        }
    }

    /// The view of a filter; `None` for an unknown plan or site.
    fn view(&self, plan: Option<&str>, site: Option<&str>) -> Option<&View> {
        let index = |list: &[String], wanted: Option<&str>| match wanted {
            None => Some(0),
            Some(w) => list.iter().position(|x| x == w).map(|i| i + 1),
        };
        let p = index(&self.plans, plan)?;
        let s = index(&self.sites, site)?;
        self.views.get(p * (self.sites.len() + 1) + s)
    }
}

/// The table of these facts, made if no request made it yet.
fn table(generation: u64, facts: Arc<StorefrontFacts>) -> Arc<StockTable> {
    let found = TABLES.read().ok().and_then(|tables| {
        tables
            .iter()
            .find(|t| Arc::ptr_eq(&t.facts, &facts))
            .cloned()
    });
    if let Some(table) = found {
        return table;
    }
    let table = Arc::new(StockTable::build(facts));
    // Generation 0: facts older than the cached ones, answered once.
    if generation > 0 {
        if let Ok(mut tables) = TABLES.write() {
            if tables.len() >= TABLES_KEPT {
                tables.remove(0);
            }
            tables.push(table.clone());
        }
    }
    table
}

/// Stock per plan × site
///
/// The same stock the storefront shows at this moment. Every combination
/// of the catalog is listed, sold-out ones too. Send the ETag back in
/// `If-None-Match` to get 304 while nothing changed.
#[utoipa::path(
    get,
    path = "/api/v1/stock",
    tag = "catalog",
    params(StockQuery),
    responses(
        (status = 200, description = "Stock now", body = StockJson,
         headers(("ETag" = String, description = "Weak; of the rows, not of `as_of`"))),
        (status = 304, description = "Unchanged since the ETag sent in `If-None-Match`"),
        (status = 404, description = "Unknown plan or site", body = ErrorBody),
        (status = 503, description = "The database is unreachable", body = ErrorBody),
    )
)]
pub async fn stock(
    State(state): State<Arc<AppState>>,
    ApiLang(lang): ApiLang,
    ApiQuery(query): ApiQuery<StockQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    // The check of the facts begins after this moment: stock is confirmed
    // as of it.
    let now = state.clock.now();
    let versioned = state.facts.current().await?;
    let table = table(versioned.generation, versioned.facts);
    let view = table
        .view(given(&query.plan), given(&query.site))
        .ok_or_else(|| ApiError::new(Problem::NotFound, lang))?;
    if conditional::not_modified(&headers, &view.etag) {
        return Ok(conditional::not_modified_response(
            view.etag.clone(),
            CACHE_CONTROL,
        ));
    }
    let as_of = format_iso(now);
    let mut body = Vec::with_capacity(view.data.len() + as_of.len() + 24);
    body.extend_from_slice(b"{\"as_of\":\"");
    body.extend_from_slice(as_of.as_bytes());
    body.extend_from_slice(b"\",\"data\":");
    body.extend_from_slice(&view.data);
    body.push(b'}');
    let mut response = Response::new(Body::from(body));
    let out = response.headers_mut();
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    conditional::cache_headers(out, view.etag.clone(), CACHE_CONTROL);
    Ok(response)
}

/// A filter's value; `?plan=` (empty) filters nothing.
pub(super) fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|v| !v.is_empty())
}
