//! What a script needs to compose an order without the portal: the sites
//! (`GET /sites`), the operating system images (`GET /images`), the
//! add-ons with their price per plan (`GET /add-ons`), all public and
//! cacheable like `GET /plans`, and a quote (`POST /quotes`): the monthly
//! price with VAT for the caller's billing profile, and whether a host can
//! be held now, by the same rules as the order form's summary.

use axum::extract::State;
use axum::response::Response;
use axum::Json;
use backend::api_tokens::Scope;
use backend::orders::{self, pricing};
use domain::{Lang, OsImage};
use http::header::HeaderMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use super::choices::{ImageChoice, PlanChoice, SiteChoice, VatKindChoice};
use super::error::ErrorBody;
use super::public::{json, BilingualJson};
use super::{ApiCaller, ApiError, ApiResult, ApiRoute, Body, Problem};
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    vec![
        ApiRoute::get("/api/v1/sites", None, sites),
        ApiRoute::get("/api/v1/images", None, images),
        ApiRoute::get("/api/v1/add-ons", None, addons),
        ApiRoute::post("/api/v1/quotes", Some(Scope::Read), quote),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(sites, images, addons, quote),
    components(schemas(
        SitesJson,
        SiteJson,
        ImagesJson,
        ImageJson,
        AddonsJson,
        AddonJson,
        AddonPriceJson,
        QuoteRequest,
        QuoteJson,
        QuoteLineJson,
        QuoteVatJson
    ))
)]
pub struct Doc;

#[derive(Serialize, ToSchema)]
pub struct SitesJson {
    pub data: Vec<SiteJson>,
}

/// A data-centre site.
#[derive(Serialize, ToSchema)]
pub struct SiteJson {
    /// What `site` means everywhere in the API.
    #[schema(value_type = SiteChoice)]
    pub code: String,
    pub city: BilingualJson,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    pub country: BilingualJson,
    /// What the site is good for, as the storefront says it.
    pub typical_use: BilingualJson,
}

#[derive(Serialize, ToSchema)]
pub struct ImagesJson {
    pub data: Vec<ImageJson>,
}

/// An operating system a server can be delivered with.
#[derive(Serialize, ToSchema)]
pub struct ImageJson {
    /// What `image` means in an order.
    #[schema(value_type = ImageChoice)]
    pub id: String,
    pub name: BilingualJson,
    /// The image an order gets when it names none.
    pub default: bool,
}

#[derive(Serialize, ToSchema)]
pub struct AddonsJson {
    pub data: Vec<AddonJson>,
}

/// An optional extra, billed monthly with the server.
#[derive(Serialize, ToSchema)]
pub struct AddonJson {
    /// What goes in an order's `addons`.
    pub id: String,
    pub name: BilingualJson,
    pub description: BilingualJson,
    /// Its monthly price excluding VAT for each plan it can be added to;
    /// a plan not listed cannot have it.
    pub prices: Vec<AddonPriceJson>,
}

#[derive(Serialize, ToSchema)]
pub struct AddonPriceJson {
    #[schema(value_type = PlanChoice)]
    pub plan: String,
    pub price_cents: i64,
    pub currency: &'static str,
}

/// Sites change by an operator's hand, seldom.
#[utoipa::path(
    get,
    path = "/api/v1/sites",
    tag = "catalog",
    responses(
        (status = 200, description = "The sites, in the storefront's order", body = SitesJson,
         headers(("ETag" = String, description = "Weak; send it in `If-None-Match`"))),
        (status = 304, description = "Unchanged since the ETag sent in `If-None-Match`"),
    )
)]
pub async fn sites(State(state): State<Arc<AppState>>, headers: HeaderMap) -> ApiResult<Response> {
    let facts = state.facts.current().await?.facts;
    let data = facts
        .catalog
        .sites
        .iter()
        .map(|s| SiteJson {
            code: s.code.to_string(),
            city: (&s.city).into(),
            country_code: s.country_code.clone(),
            country: (&s.country).into(),
            typical_use: (&s.typical_use).into(),
        })
        .collect();
    json(&headers, &SitesJson { data })
}

/// The images an order may name.
#[utoipa::path(
    get,
    path = "/api/v1/images",
    tag = "catalog",
    responses(
        (status = 200, description = "The images", body = ImagesJson,
         headers(("ETag" = String, description = "Weak; send it in `If-None-Match`"))),
        (status = 304, description = "Unchanged since the ETag sent in `If-None-Match`"),
    )
)]
pub async fn images(headers: HeaderMap) -> ApiResult<Response> {
    let name = |image: OsImage, lang: Lang| match image {
        OsImage::Rescue => app::i18n::orders(lang).image_rescue,
        other => other.product_name(),
    };
    let data = OsImage::ALL
        .into_iter()
        .map(|image| ImageJson {
            id: image.as_str().to_owned(),
            name: BilingualJson {
                en: name(image, Lang::En).to_owned(),
                zh: name(image, Lang::Zh).to_owned(),
            },
            default: image == OsImage::Ubuntu2404,
        })
        .collect();
    json(&headers, &ImagesJson { data })
}

/// The add-ons and what each costs with each plan.
#[utoipa::path(
    get,
    path = "/api/v1/add-ons",
    tag = "catalog",
    responses(
        (status = 200, description = "The add-ons", body = AddonsJson,
         headers(("ETag" = String, description = "Weak; send it in `If-None-Match`"))),
        (status = 304, description = "Unchanged since the ETag sent in `If-None-Match`"),
    )
)]
pub async fn addons(State(state): State<Arc<AppState>>, headers: HeaderMap) -> ApiResult<Response> {
    let facts = state.facts.current().await?.facts;
    let data = facts
        .catalog
        .addons
        .iter()
        .map(|a| AddonJson {
            id: a.id.clone(),
            name: (&a.name).into(),
            description: (&a.description).into(),
            prices: a
                .prices
                .iter()
                .map(|(plan, price)| AddonPriceJson {
                    plan: plan.to_string(),
                    price_cents: price.cents,
                    currency: price.currency.code(),
                })
                .collect(),
        })
        .collect();
    json(&headers, &AddonsJson { data })
}

/// What to price.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuoteRequest {
    #[schema(value_type = PlanChoice)]
    plan: String,
    /// With a site, the quote says whether a host can be held there now.
    #[serde(default)]
    #[schema(value_type = Option<SiteChoice>)]
    site: Option<String>,
    /// Add-on ids (`GET /add-ons`); one named twice is had once.
    #[serde(default)]
    addons: Vec<String>,
}

/// A monthly price as an order would be billed now. Cents of `currency`.
#[derive(Serialize, ToSchema)]
pub struct QuoteJson {
    #[schema(value_type = PlanChoice)]
    plan: String,
    #[schema(value_type = Option<SiteChoice>)]
    site: Option<String>,
    currency: &'static str,
    /// The plan, then each add-on.
    lines: Vec<QuoteLineJson>,
    /// Per month, excluding VAT.
    net_cents: i64,
    /// VAT for the organization's billing profile; `null` until the
    /// organization has one (an order is refused with
    /// `no_billing_profile` until then).
    vat: Option<QuoteVatJson>,
    /// Per month with VAT; `null` without a billing profile.
    total_cents: Option<i64>,
    /// With a site: whether a host of the plan is free there now (an
    /// order would hold it). `null` without a site.
    available_now: Option<bool>,
    /// With a site that has none free: the sites that have the plan now.
    #[serde(skip_serializing_if = "Option::is_none")]
    sites_with_stock: Option<Vec<String>>,
}

#[derive(Serialize, ToSchema)]
pub struct QuoteLineJson {
    /// `plan` or `add-on`.
    kind: &'static str,
    /// The plan's or the add-on's id.
    id: String,
    amount_cents: i64,
}

#[derive(Serialize, ToSchema)]
pub struct QuoteVatJson {
    /// The billing country (ISO 3166-1 alpha-2).
    country: String,
    #[schema(value_type = VatKindChoice)]
    kind: &'static str,
    /// Basis points: 1900 = 19 %.
    rate_bp: i64,
    amount_cents: i64,
}

/// A quote for a plan with add-ons
///
/// The monthly price with VAT for the caller's billing profile, and
/// whether a host can be held at the site now. Nothing is held or saved.
#[utoipa::path(
    post,
    path = "/api/v1/quotes",
    tag = "orders",
    request_body = QuoteRequest,
    responses(
        (status = 200, description = "The quote", body = QuoteJson),
        (status = 422, description = "`unknown_choice` (`field` names the plan, site or add-on)", body = ErrorBody),
    ),
    security(("token" = ["read"]))
)]
pub async fn quote(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    Body(request): Body<QuoteRequest>,
) -> ApiResult<Json<QuoteJson>> {
    let unknown = |field: &str| caller.error(Problem::UnknownChoice).at(field);
    let facts = state.facts.current().await?.facts;
    let catalog = &facts.catalog;
    let plan = catalog.plan(&request.plan).ok_or_else(|| unknown("plan"))?;
    let site = match &request.site {
        Some(code) => Some(catalog.site(code).ok_or_else(|| unknown("site"))?),
        None => None,
    };
    if let Some(i) = request.addons.iter().position(|a| {
        catalog
            .addon(a)
            .and_then(|a| a.price_for(&plan.id))
            .is_none()
    }) {
        return Err(unknown(&format!("addons[{i}]")));
    }
    let customer = pricing::customer(&state.db, &caller.organization_id).await?;
    let now = state.clock.now();
    let summary = pricing::summary(
        &state.db,
        catalog,
        plan,
        &request.addons,
        customer.as_ref(),
        &state.seller.country,
        now,
    )
    .await?;
    let available_now = site.map(|s| facts.stock.level(&s.code, &plan.id).available());
    let sites_with_stock = match available_now {
        Some(false) => {
            Some(orders::sites_with_stock(&state.db, &state.clock, plan.id.as_str()).await?)
        }
        _ => None,
    };
    let mut lines = vec![QuoteLineJson {
        kind: "plan",
        id: plan.id.to_string(),
        amount_cents: plan.monthly_price.cents,
    }];
    let mut seen: Vec<&str> = Vec::new();
    for id in &request.addons {
        if seen.contains(&id.as_str()) {
            continue;
        }
        seen.push(id);
        let price = catalog.addon(id).and_then(|a| a.price_for(&plan.id));
        let price = price.ok_or_else(|| ApiError::from(anyhow::anyhow!("add-on {id} vanished")))?;
        lines.push(QuoteLineJson {
            kind: "add-on",
            id: id.clone(),
            amount_cents: price.cents,
        });
    }
    let vat = summary
        .quote
        .as_ref()
        .zip(customer.as_ref())
        .map(|(q, c)| QuoteVatJson {
            country: c.country.clone(),
            kind: q.vat_treatment.kind(),
            rate_bp: q.vat_treatment.rate_bp(),
            amount_cents: q.vat.cents,
        });
    Ok(Json(QuoteJson {
        plan: plan.id.to_string(),
        site: site.map(|s| s.code.to_string()),
        currency: plan.monthly_price.currency.code(),
        lines,
        net_cents: summary.net.cents,
        total_cents: summary.quote.as_ref().map(|q| q.total.cents),
        vat,
        available_now,
        sites_with_stock,
    }))
}
