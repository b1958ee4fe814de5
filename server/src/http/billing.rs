//! Billing (owners and billing members): the profile, invoices with their
//! PDFs, the monthly CSV export. Technical members see none of it; finance
//! (staff) is in `finance.rs`.

use app::portal::billing::{BillingView, InvoiceRow, ProfileValues, VatIdCheckView};
use app::portal::invoice::{InvoiceView, SellerView};
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use backend::billing::credit;
use backend::billing::invoices::{self, Invoice, InvoiceFilter};
use backend::billing::profile::{self, BillingProfile, ProfileError};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{
    denied, lang_of, member_in, not_found, page, redirect, refused, trusted, unavailable, MONEY,
};
use super::auth::CurrentUser;
use crate::startup::AppState;

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
pub struct InvoiceQuery {
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
    let stored = match profile::get(&state.db, organization_id).await? {
        Some(p) => p,
        // A first profile starts from what ordering already knows.
        None => BillingProfile {
            country: backend::orders::billing_country(&state.db, organization_id)
                .await?
                .unwrap_or_default(),
            ..BillingProfile::default()
        },
    };
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
            decides_vat: stored.country != state.seller.country,
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

pub async fn billing_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Query(query): Query<InvoiceQuery>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, MONEY).cloned() else {
        return denied(&state, parts).await;
    };
    match billing_view(&state, &m.organization_id, &query).await {
        Ok(view) => page(&state, parts, view, FormFeedback::default()).await,
        Err(error) => unavailable(&state, parts, error).await,
    }
}

#[derive(Deserialize)]
pub struct ProfileForm {
    #[serde(default)]
    csrf: String,
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

pub async fn profile_post(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    mut parts: Parts,
    Form(form): Form<ProfileForm>,
) -> Response {
    let lang = lang_of(&parts);
    let Some(m) = member_in(&current, MONEY).cloned() else {
        return denied(&state, parts).await;
    };
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
    let error = if trusted(&state, &parts, &form.csrf) {
        match profile::save(
            &state.db,
            &state.clock,
            state.vat_ids.as_ref(),
            &m.organization_id,
            &current.user.email,
            &input,
        )
        .await
        {
            Ok(_) => return redirect(lang, "/billing?done=profile#profile"),
            Err(ProfileError::VatId) => FormError::VatId,
            Err(ProfileError::Email) => FormError::InvalidEmail,
            Err(ProfileError::Missing(_) | ProfileError::Country) => FormError::BillingProfile,
            Err(ProfileError::Db(error)) => return unavailable(&state, parts, error).await,
        }
    } else {
        FormError::Forbidden
    };
    if let Ok(uri) = format!("/{}/billing", lang.code()).parse() {
        parts.uri = uri;
    }
    let values = [
        ("legal_name", form.legal_name.as_str()),
        ("address", form.address.as_str()),
        ("postal_code", form.postal_code.as_str()),
        ("city", form.city.as_str()),
        ("country", form.country.as_str()),
        ("vat_id", form.vat_id.as_str()),
        ("billing_email", form.billing_email.as_str()),
    ];
    match billing_view(&state, &m.organization_id, &InvoiceQuery::default()).await {
        Ok(view) => page(&state, parts, view, refused(error, &values)).await,
        Err(error) => unavailable(&state, parts, error).await,
    }
}

/// The month's invoices as a CSV download.
pub async fn export(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Query(query): Query<InvoiceQuery>,
    parts: Parts,
) -> Response {
    let lang = lang_of(&parts);
    let Some(m) = member_in(&current, MONEY).cloned() else {
        return denied(&state, parts).await;
    };
    if invoices::month_bounds(&query.month).is_none() {
        return redirect(lang, "/billing");
    }
    let filter = InvoiceFilter {
        status: String::new(),
        month: query.month.clone(),
    };
    match invoices::list(&state.db, Some(&m.organization_id), &filter).await {
        Ok(list) => (
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
            .into_response(),
        Err(error) => unavailable(&state, parts, error).await,
    }
}

async fn invoice_view(
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

pub(super) async fn invoice_response(
    state: &AppState,
    parts: Parts,
    organization_id: Option<&str>,
    id: &str,
    back: &str,
) -> Response {
    match invoice_view(state, organization_id, id, back).await {
        Ok(Some(view)) => page(state, parts, view, FormFeedback::default()).await,
        Ok(None) => not_found(state, parts).await,
        Err(error) => unavailable(state, parts, error).await,
    }
}

/// The invoice as a PDF: ours for offline invoices, Stripe's for theirs.
pub(super) async fn pdf_response(
    state: &AppState,
    parts: Parts,
    organization_id: Option<&str>,
    id: &str,
) -> Response {
    let lang = lang_of(&parts);
    let view = match invoice_view(state, organization_id, id, "").await {
        Ok(Some(view)) => view,
        Ok(None) => return not_found(state, parts).await,
        Err(error) => return unavailable(state, parts, error).await,
    };
    if let Some(url) = &view.pdf_url {
        return axum::response::Redirect::to(url).into_response();
    }
    let Some(font) = &state.invoice_font else {
        return unavailable(
            state,
            parts,
            anyhow::anyhow!("no invoice font (INVOICE_FONT)"),
        )
        .await;
    };
    let document = super::invoice_pdf::document(lang, &view);
    let font = font.clone();
    let rendered =
        tokio::task::spawn_blocking(move || backend::billing::pdf::render(&document, &font)).await;
    match rendered {
        Ok(Ok(bytes)) => (
            [
                (http::header::CONTENT_TYPE, "application/pdf".to_owned()),
                (
                    http::header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{}.pdf\"", view.row.number),
                ),
            ],
            bytes,
        )
            .into_response(),
        Ok(Err(error)) => unavailable(state, parts, error).await,
        Err(error) => {
            unavailable(
                state,
                parts,
                anyhow::anyhow!("rendering a PDF panicked: {error}"),
            )
            .await
        }
    }
}

pub async fn invoice_pdf(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, MONEY).cloned() else {
        return denied(&state, parts).await;
    };
    pdf_response(&state, parts, Some(&m.organization_id), &id).await
}

pub async fn invoice_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, MONEY).cloned() else {
        return denied(&state, parts).await;
    };
    invoice_response(&state, parts, Some(&m.organization_id), &id, "/billing").await
}
