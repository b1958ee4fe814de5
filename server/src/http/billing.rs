//! Billing (owners and billing members): the profile, invoices with their
//! PDFs, the CSV export. Technical members see none of it; finance (staff)
//! is in `finance.rs`.

use app::portal::billing::{BillingView, InvoiceRow};
use app::portal::invoice::{InvoiceView, SellerView};
use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use backend::billing::credit;
use backend::billing::invoices::{self, InvoiceFilter};
use domain::invoice::InvoiceStatus;
use domain::{InvoiceId, OrganizationId};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::billing_profile;
use super::page::{lang_of, page, Member, PageError, PageResult, Signed};
use super::routes::{Route, MONEY};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    let mut routes = vec![
        Route::get("/{lang}/billing", MONEY, billing_page),
        Route::get("/{lang}/billing/export", MONEY, export),
        Route::get("/{lang}/invoices/{id}", MONEY, invoice_page),
        Route::get("/{lang}/invoices/{id}/pdf", MONEY, invoice_pdf),
    ];
    routes.extend(billing_profile::routes());
    routes
}

#[derive(Deserialize, Default)]
struct InvoiceQuery {
    #[serde(default)]
    status: String,
    #[serde(default)]
    month: String,
}

impl InvoiceQuery {
    /// The filter as the list applies it: a status we know and a month
    /// that parses, else none.
    fn filter(&self) -> InvoiceFilter {
        InvoiceFilter {
            status: InvoiceStatus::parse(&self.status)
                .filter(|s| InvoiceStatus::LISTED.contains(s)),
            month: if invoices::month_bounds(&self.month).is_some() {
                self.month.clone()
            } else {
                String::new()
            },
        }
    }
}

async fn billing_view(
    state: &AppState,
    organization_id: &OrganizationId,
    email: &str,
    query: &InvoiceQuery,
) -> anyhow::Result<BillingView> {
    let (profile, vat_id_check) =
        billing_profile::profile_values(state, organization_id, email).await?;
    let filter = query.filter();
    let now = state.clock.now();
    let list = invoices::list(&state.db, Some(organization_id), &filter).await?;
    let credits = credit::list(&state.db, organization_id).await?;
    Ok(BillingView {
        vat_id_check,
        profile,
        invoices: list.iter().map(|i| InvoiceRow::new(i, now)).collect(),
        credit_notes: credits
            .into_iter()
            .map(|c| {
                (
                    c.number,
                    c.reason,
                    domain::Money::eur(c.amount_cents),
                    domain::Money::eur(c.remaining_cents),
                    c.created_at,
                    c.invoice_number,
                )
            })
            .collect(),
        filter_status: filter.status,
        filter_month: filter.month,
        stripe: state.stripe.is_some(),
    })
}

async fn billing_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    Query(query): Query<InvoiceQuery>,
    parts: Parts,
) -> PageResult {
    let view = billing_view(&state, &m.0.organization_id, &current.user.email, &query).await?;
    page(&state, parts, view).await
}

/// The invoices the billing page lists (all, or as filtered) as a CSV
/// download.
async fn export(
    State(state): State<Arc<AppState>>,
    m: Member,
    Query(query): Query<InvoiceQuery>,
) -> PageResult {
    let filter = query.filter();
    let name = if filter.month.is_empty() {
        "invoices".to_owned()
    } else {
        format!("invoices-{}", filter.month)
    };
    let list = invoices::list(&state.db, Some(&m.0.organization_id), &filter).await?;
    Ok((
        [
            (
                http::header::CONTENT_TYPE,
                "text/csv; charset=utf-8".to_owned(),
            ),
            (
                http::header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}.csv\""),
            ),
        ],
        invoices::to_csv(&list),
    )
        .into_response())
}

pub(super) async fn invoice_view(
    state: &AppState,
    organization_id: Option<&OrganizationId>,
    id: &InvoiceId,
    back: &str,
) -> anyhow::Result<Option<InvoiceView>> {
    let Some((invoice, lines)) = invoices::get(&state.db, organization_id, id).await? else {
        return Ok(None);
    };
    let seller = &state.seller;
    let paid = invoice.settled();
    Ok(Some(InvoiceView {
        row: InvoiceRow::new(&invoice, state.clock.now()),
        lines: lines
            .into_iter()
            .map(|l| {
                (
                    l.description_zh,
                    l.description_en,
                    l.period_start,
                    l.period_end,
                    l.amount,
                )
            })
            .collect(),
        subtotal: invoice.subtotal,
        vat_kind: invoice.vat_treatment.kind().to_owned(),
        vat_rate_bp: invoice.vat_treatment.rate_bp(),
        vat: invoice.vat,
        credit: invoice.credit,
        customer_name: invoice.customer_name,
        customer_address: invoice.customer_address,
        customer_country: invoice.customer_country,
        customer_vat_id: invoice.customer_vat_id,
        seller: SellerView {
            name: seller.name.clone(),
            address: seller.address.clone(),
            vat_id: seller.vat_id.clone(),
            iban: seller.iban.clone(),
            bic: seller.bic.clone(),
        },
        paid,
        payment_reference: invoice.payment_reference,
        back: back.to_owned(),
        pdf_url: invoice.pdf_url,
    }))
}

/// An invoice's page, back to `back`; another organization's is not found.
pub(super) async fn invoice_response(
    state: &AppState,
    parts: Parts,
    organization_id: Option<&OrganizationId>,
    id: &InvoiceId,
    back: &str,
) -> PageResult {
    let view = invoice_view(state, organization_id, id, back)
        .await?
        .ok_or(PageError::NotFound)?;
    page(state, parts, view).await
}

async fn invoice_pdf(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, InvoiceId)>,
    parts: Parts,
) -> PageResult {
    super::invoice_pdf::response(&state, lang_of(&parts), Some(&m.0.organization_id), &id).await
}

async fn invoice_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, InvoiceId)>,
    parts: Parts,
) -> PageResult {
    invoice_response(&state, parts, Some(&m.0.organization_id), &id, "/billing").await
}
