//! Invoices and credit notes through the API (`billing:read`): what the
//! portal's billing page shows (`http/billing.rs`), as JSON, and the same
//! invoice PDF as its download.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::Scope;
use backend::billing::credit::{self, CreditNote};
use backend::billing::invoices::{self, Invoice, InvoiceFilter, InvoiceLine};
use domain::invoice::InvoiceStatus;
use domain::money::Currency;
use domain::time::format_iso;
use domain::{InvoiceId, Lang, ServerId};
use serde::Serialize;
use std::sync::Arc;

use super::choices::{InvoiceStateChoice, PlanChoice, SiteChoice, VatKindChoice};
use super::error::ErrorBody;
use super::{
    sort_key, ApiCaller, ApiPath, ApiQuery, ApiResult, ApiRoute, ListPage, PageQuery, Problem,
};
use crate::pages::billing::invoice_pdf::invoice_pdf;
use crate::startup::AppState;

pub fn routes() -> Vec<ApiRoute> {
    let billing = Some(Scope::BillingRead);
    vec![
        ApiRoute::get("/api/v1/invoices", billing, list_invoices),
        ApiRoute::get("/api/v1/invoices/{id}", billing, get_invoice),
        ApiRoute::get("/api/v1/invoices/{id}/pdf", billing, get_invoice_pdf),
        ApiRoute::get("/api/v1/credit-notes", billing, list_credit_notes),
    ]
}

#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list_invoices, get_invoice, get_invoice_pdf, list_credit_notes),
    components(schemas(InvoiceJson, InvoiceLineJson, CreditNoteJson))
)]
pub struct Doc;

/// An invoice. Money in cents of `currency`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct InvoiceJson {
    id: String,
    /// `INV-2026-000001`, or Stripe's number. Every listed invoice has
    /// one (a Stripe draft is not listed).
    number: Option<String>,
    /// Its address in this API.
    url: String,
    #[schema(value_type = InvoiceStateChoice)]
    state: String,
    /// Open and past its due date.
    overdue: bool,
    issued_at: String,
    due_at: String,
    paid_at: Option<String>,
    /// The service period: from `period_start` up to (not including)
    /// `period_end`.
    period_start: String,
    period_end: String,
    subtotal_cents: i64,
    #[schema(value_type = VatKindChoice)]
    vat_kind: String,
    /// Basis points: 1900 = 19 %.
    vat_rate_bp: i64,
    vat_cents: i64,
    total_cents: i64,
    /// Credit notes set against this invoice.
    credit_cents: i64,
    /// What is left to pay now (0 once paid, void or written off).
    amount_due_cents: i64,
    currency: String,
    /// The PDF, in the language of `Accept-Language` (with the same
    /// token).
    pdf_url: String,
    /// Stripe's page for the invoice, for card billing.
    hosted_url: Option<String>,
    /// Only in `GET /invoices/{id}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<InvoiceLineJson>>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct InvoiceLineJson {
    /// What the line is for, in the language of `Accept-Language`.
    description: String,
    kind: String,
    server_id: Option<String>,
    #[schema(value_type = Option<PlanChoice>)]
    plan: Option<String>,
    #[schema(value_type = Option<SiteChoice>)]
    site: Option<String>,
    period_start: String,
    period_end: String,
    amount_cents: i64,
    currency: String,
}

/// A credit note: money we owe the organization, set against its next
/// invoices until used up.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CreditNoteJson {
    id: String,
    /// `CN-2026-000001`.
    number: String,
    reason: String,
    amount_cents: i64,
    /// Not yet set against an invoice.
    remaining_cents: i64,
    currency: String,
    created_at: String,
    /// The invoice this credit note corrects (`INV-2026-000001`), or null
    /// for a goodwill credit.
    invoice_number: Option<String>,
}

fn invoice_json(base_url: &str, i: Invoice, now: i64) -> InvoiceJson {
    let url = format!(
        "{}{}/invoices/{}",
        base_url.trim_end_matches('/'),
        super::PREFIX,
        i.id
    );
    InvoiceJson {
        overdue: i.overdue(now),
        amount_due_cents: i.outstanding().cents,
        pdf_url: format!("{url}/pdf"),
        url,
        number: i.number,
        state: i.status.as_str().to_owned(),
        issued_at: format_iso(i.issued_at),
        due_at: format_iso(i.due_at),
        paid_at: i.paid_at.map(format_iso),
        period_start: format_iso(i.period_start),
        period_end: format_iso(i.period_end),
        subtotal_cents: i.subtotal.cents,
        vat_kind: i.vat_treatment.kind().to_owned(),
        vat_rate_bp: i.vat_treatment.rate_bp(),
        vat_cents: i.vat.cents,
        total_cents: i.total.cents,
        credit_cents: i.credit.cents,
        currency: i.total.currency.code().to_owned(),
        hosted_url: i.hosted_url,
        lines: None,
        id: i.id.into_string(),
    }
}

fn line_json(l: InvoiceLine, lang: Lang) -> InvoiceLineJson {
    InvoiceLineJson {
        description: match lang {
            Lang::Zh => l.description_zh,
            Lang::En => l.description_en,
        },
        kind: l.kind,
        server_id: l.server_id.map(ServerId::into_string),
        plan: l.plan_id,
        site: l.site_code,
        period_start: format_iso(l.period_start),
        period_end: format_iso(l.period_end),
        amount_cents: l.amount.cents,
        currency: l.amount.currency.code().to_owned(),
    }
}

fn credit_note_json(c: CreditNote) -> CreditNoteJson {
    CreditNoteJson {
        id: c.id,
        number: c.number,
        reason: c.reason,
        amount_cents: c.amount_cents,
        remaining_cents: c.remaining_cents,
        // Credit notes are kept in euros, as the invoices they go against.
        currency: Currency::Eur.code().to_owned(),
        created_at: format_iso(c.created_at),
        invoice_number: c.invoice_number,
    }
}

/// `?state=` and the page.
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct InvoiceQuery {
    /// 1–100, default 50; outside that range: 400.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page (or follow `Link`).
    pub cursor: Option<String>,
    #[param(value_type = Option<InvoiceStateChoice>)]
    pub state: Option<String>,
}

/// The organization's invoices, newest first, filtered and paged in the
/// database.
#[utoipa::path(
    get,
    path = "/api/v1/invoices",
    tag = "billing",
    params(InvoiceQuery),
    responses(
        (status = 200, description = "A page of invoices, newest first", body = ListPage<InvoiceJson>),
        (status = 400, description = "Bad cursor", body = ErrorBody),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks `billing:read`", body = ErrorBody),
    ),
    security(("token" = ["billing:read"]))
)]
async fn list_invoices(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiQuery(q): ApiQuery<InvoiceQuery>,
) -> ApiResult<Json<ListPage<InvoiceJson>>> {
    let status = match q.state.as_deref() {
        Some(word) => Some(
            InvoiceStatus::LISTED
                .into_iter()
                .find(|s| s.as_str() == word)
                .ok_or_else(|| caller.error(Problem::BadRequest))?,
        ),
        None => None,
    };
    let filter = InvoiceFilter {
        status,
        month: String::new(),
    };
    let paging = PageQuery {
        limit: q.limit,
        cursor: q.cursor.clone(),
    };
    let after = paging.after(caller.lang)?;
    let after = after.as_ref().map(|(at, id)| (*at, id.as_str()));
    let fetch = paging.fetch(caller.lang)?;
    let org = &caller.organization_id;
    let rows = invoices::page(&state.db, org, &filter, after, fetch).await?;
    let page = paging.cut(rows, |i| sort_key(i.issued_at, &i.id));
    let now = state.clock.now();
    Ok(Json(ListPage {
        data: page
            .data
            .into_iter()
            .map(|i| invoice_json(&state.config.public_base_url, i, now))
            .collect(),
        next_cursor: page.next_cursor,
    }))
}

/// One invoice with its lines.
#[utoipa::path(
    get,
    path = "/api/v1/invoices/{id}",
    tag = "billing",
    params(("id" = String, Path, description = "The invoice's id")),
    responses(
        (status = 200, description = "The invoice", body = InvoiceJson),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks `billing:read`", body = ErrorBody),
        (status = 404, description = "No such invoice", body = ErrorBody),
    ),
    security(("token" = ["billing:read"]))
)]
async fn get_invoice(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<InvoiceId>,
) -> ApiResult<Json<InvoiceJson>> {
    let (invoice, lines) = invoices::get(&state.db, Some(&caller.organization_id), &id)
        .await?
        .ok_or_else(|| caller.error(Problem::NotFound))?;
    let mut json = invoice_json(&state.config.public_base_url, invoice, state.clock.now());
    json.lines = Some(
        lines
            .into_iter()
            .map(|l| line_json(l, caller.lang))
            .collect(),
    );
    Ok(Json(json))
}

/// The invoice as a PDF in the language of `Accept-Language`, as the portal
/// offers it; for card billing, a redirect to Stripe's PDF.
#[utoipa::path(
    get,
    path = "/api/v1/invoices/{id}/pdf",
    tag = "billing",
    params(("id" = String, Path, description = "The invoice's id")),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf"),
        (status = 303, description = "Stripe's PDF of the invoice (card billing)"),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks `billing:read`", body = ErrorBody),
        (status = 404, description = "No such invoice", body = ErrorBody),
    ),
    security(("token" = ["billing:read"]))
)]
async fn get_invoice_pdf(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiPath(id): ApiPath<InvoiceId>,
) -> ApiResult<Response> {
    let pdf = invoice_pdf(&state, caller.lang, Some(&caller.organization_id), &id)
        .await?
        .ok_or_else(|| caller.error(Problem::NotFound))?;
    Ok(pdf.into_response())
}

/// The organization's credit notes, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/credit-notes",
    tag = "billing",
    params(PageQuery),
    responses(
        (status = 200, description = "A page of credit notes, newest first", body = ListPage<CreditNoteJson>),
        (status = 400, description = "Bad cursor", body = ErrorBody),
        (status = 401, description = "No valid token", body = ErrorBody),
        (status = 403, description = "The token lacks `billing:read`", body = ErrorBody),
    ),
    security(("token" = ["billing:read"]))
)]
async fn list_credit_notes(
    State(state): State<Arc<AppState>>,
    caller: ApiCaller,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> ApiResult<Json<ListPage<CreditNoteJson>>> {
    let mut list = credit::list(&state.db, &caller.organization_id).await?;
    // Paged by (created_at, id): ties in time must sort as the cursor does.
    let key = |c: &CreditNote| sort_key(c.created_at, &c.id);
    list.sort_by_key(|c| std::cmp::Reverse(key(c)));
    let page = q.page(list, key, true, caller.lang)?;
    Ok(Json(ListPage {
        data: page.data.into_iter().map(credit_note_json).collect(),
        next_cursor: page.next_cursor,
    }))
}
