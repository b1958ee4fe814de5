//! Billing (owners and billing members): the profile, invoices with their
//! PDFs, the monthly CSV export. Technical members see none of it; finance
//! (staff) is in `finance.rs`.

use app::portal::billing::{BillingView, InvoiceRow, ProfileValues, VatIdCheckView};
use app::portal::invoice::{InvoiceView, SellerView};
use app::portal::FormError;
use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use backend::billing::credit;
use backend::billing::invoices::{self, Invoice, InvoiceFilter};
use backend::billing::profile::{self, BillingProfile, ProfileError};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{
    lang_of, page, redirect, refused, Member, PageError, PageResult, SameOrigin, Signed,
};
use super::routes::{Route, MONEY};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/billing", MONEY, billing_page),
        Route::post("/{lang}/billing/profile", MONEY, profile_post),
        Route::get("/{lang}/billing/export", MONEY, export),
        Route::get("/{lang}/invoices/{id}", MONEY, invoice_page),
        Route::get("/{lang}/invoices/{id}/pdf", MONEY, invoice_pdf),
    ]
}

pub(super) fn row(i: &Invoice, now: i64) -> InvoiceRow {
    InvoiceRow {
        id: i.id.clone(),
        number: i.number.clone().unwrap_or_default(),
        status: i.status.clone(),
        overdue: i.overdue(now),
        issued_at: i.issued_at,
        due_at: i.due_at,
        period_start: i.period_start,
        period_end: i.period_end,
        total: i.total,
        amount_due: i.amount_due,
        customer: i.customer_name.clone(),
    }
}

#[derive(Deserialize, Default)]
struct InvoiceQuery {
    #[serde(default)]
    status: String,
    #[serde(default)]
    month: String,
}

async fn billing_view(
    state: &AppState,
    organization_id: &str,
    query: &InvoiceQuery,
) -> anyhow::Result<BillingView> {
    let stored = profile::get_or_start(&state.db, organization_id).await?;
    let filter = InvoiceFilter {
        status: query.status.clone(),
        month: if invoices::month_bounds(&query.month).is_some() {
            query.month.clone()
        } else {
            String::new()
        },
    };
    let now = state.clock.now();
    let list = invoices::list(&state.db, Some(organization_id), &filter).await?;
    let credits = credit::list(&state.db, organization_id).await?;
    let vat_id_check = backend::billing::vat_ids::eu_vat_id(&stored).and_then(|vat_id| {
        let check = stored.vat_id_check.as_ref()?;
        Some(VatIdCheckView {
            vat_id: vat_id.to_owned(),
            status: check.state.as_str().to_owned(),
            name: check.name.clone(),
            checked_at: check.checked_at,
            country: stored.country.clone(),
            decides_vat: stored.vat_id_decides_vat(&state.seller.country),
        })
    });
    Ok(BillingView {
        vat_id_check,
        profile: ProfileValues {
            legal_name: stored.legal_name,
            address: stored.address,
            postal_code: stored.postal_code,
            city: stored.city,
            country: stored.country,
            vat_id: stored.vat_id.unwrap_or_default(),
            billing_email: stored.billing_email,
        },
        invoices: list.iter().map(|i| row(i, now)).collect(),
        credit_notes: credits
            .into_iter()
            .map(|c| {
                (
                    c.number,
                    c.reason,
                    domain::Money::eur(c.amount_cents),
                    domain::Money::eur(c.remaining_cents),
                    c.created_at,
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
    Query(query): Query<InvoiceQuery>,
    parts: Parts,
) -> PageResult {
    let view = billing_view(&state, &m.0.organization_id, &query).await?;
    page(&state, parts, view).await
}

#[derive(Deserialize)]
struct ProfileForm {
    #[serde(default)]
    legal_name: String,
    #[serde(default)]
    address: String,
    #[serde(default)]
    postal_code: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    country: String,
    #[serde(default)]
    vat_id: String,
    #[serde(default)]
    billing_email: String,
}

async fn profile_post(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<ProfileForm>,
) -> PageResult {
    let input = BillingProfile {
        legal_name: form.legal_name.clone(),
        address: form.address.clone(),
        postal_code: form.postal_code.clone(),
        city: form.city.clone(),
        country: form.country.clone(),
        vat_id: Some(form.vat_id.clone()),
        billing_email: form.billing_email.clone(),
        vat_id_check: None,
    };
    let saved = profile::save(
        &state.db,
        &state.clock,
        state.vat_ids.as_ref(),
        &m.0.organization_id,
        &current.user.email,
        &input,
    )
    .await;
    let error = match saved {
        Ok(_) => return Ok(redirect(lang_of(&parts), "/billing?done=profile#profile")),
        Err(ProfileError::VatId) => FormError::VatId,
        Err(ProfileError::Email) => FormError::InvalidEmail,
        Err(ProfileError::Missing(_) | ProfileError::Country) => FormError::BillingProfile,
        Err(ProfileError::Db(error)) => return Err(error.into()),
    };
    Err(refused(
        error,
        &[
            ("legal_name", &form.legal_name),
            ("address", &form.address),
            ("postal_code", &form.postal_code),
            ("city", &form.city),
            ("country", &form.country),
            ("vat_id", &form.vat_id),
            ("billing_email", &form.billing_email),
        ],
    ))
}

/// The month's invoices as a CSV download.
async fn export(
    State(state): State<Arc<AppState>>,
    m: Member,
    Query(query): Query<InvoiceQuery>,
    parts: Parts,
) -> PageResult {
    if invoices::month_bounds(&query.month).is_none() {
        return Ok(redirect(lang_of(&parts), "/billing"));
    }
    let filter = InvoiceFilter {
        status: String::new(),
        month: query.month.clone(),
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
                format!("attachment; filename=\"invoices-{}.csv\"", query.month),
            ),
        ],
        invoices::to_csv(&list),
    )
        .into_response())
}

pub(super) async fn invoice_view(
    state: &AppState,
    organization_id: Option<&str>,
    id: &str,
    back: &str,
) -> anyhow::Result<Option<InvoiceView>> {
    let Some((invoice, lines)) = invoices::get(&state.db, organization_id, id).await? else {
        return Ok(None);
    };
    let seller = &state.seller;
    Ok(Some(InvoiceView {
        row: row(&invoice, state.clock.now()),
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
        payment_reference: invoice.payment_reference,
        paid_at: invoice.paid_at,
        back: back.to_owned(),
        pdf_url: invoice.pdf_url,
    }))
}

/// An invoice's page, back to `back`; another organization's is not found.
pub(super) async fn invoice_response(
    state: &AppState,
    parts: Parts,
    organization_id: Option<&str>,
    id: &str,
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
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> PageResult {
    super::invoice_pdf::response(&state, lang_of(&parts), Some(&m.0.organization_id), &id).await
}

async fn invoice_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> PageResult {
    invoice_response(&state, parts, Some(&m.0.organization_id), &id, "/billing").await
}
