//! Billing (owners and billing members): the profile, invoices, the monthly
//! CSV export; and finance (staff): revenue, open invoices, payments and
//! credit notes. Technical members see none of it.

use app::portal::billing::{BillingView, InvoiceRow, ProfileValues};
use app::portal::finance::FinanceView;
use app::portal::invoice::{InvoiceView, SellerView};
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use backend::billing::invoices::{self, Invoice, InvoiceFilter};
use backend::billing::profile::{self, BillingProfile, ProfileError};
use backend::billing::{credit, finance};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{
    denied, lang_of, member_in, not_found, page, redirect, refused, trusted, unavailable, MONEY,
};
use super::auth::CurrentUser;
use crate::startup::AppState;

fn row(i: &Invoice, now: i64) -> InvoiceRow {
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
    let stored = profile::get(&state.db, organization_id)
        .await?
        .unwrap_or_default();
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
    Ok(BillingView {
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
    };
    let error = if trusted(&state, &parts, &form.csrf) {
        match profile::save(
            &state.db,
            &state.clock,
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

async fn invoice_response(
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
async fn pdf_response(
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

pub async fn finance_invoice_pdf(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    pdf_response(&state, parts, None, &id).await
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

pub async fn finance_invoice_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    invoice_response(&state, parts, None, &id, "/staff/finance").await
}

async fn finance_view(state: &AppState) -> anyhow::Result<FinanceView> {
    let revenue = finance::revenue(&state.db).await?;
    let now = state.clock.now();
    Ok(FinanceView {
        by_month: revenue.by_month,
        by_plan: revenue.by_plan,
        by_site: revenue.by_site,
        open: finance::open_invoices(&state.db)
            .await?
            .iter()
            .map(|i| row(i, now))
            .collect(),
        organizations: finance::organizations(&state.db).await?,
    })
}

pub async fn finance_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    match finance_view(&state).await {
        Ok(view) => page(&state, parts, view, FormFeedback::default()).await,
        Err(error) => unavailable(&state, parts, error).await,
    }
}

#[derive(Deserialize)]
pub struct FinanceForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    invoice: String,
    #[serde(default)]
    organization: String,
    #[serde(default)]
    amount: String,
    #[serde(default)]
    reason: String,
}

/// "12.50" or "12,5" as cents; `None` for anything else or not positive.
fn parse_euros(raw: &str) -> Option<i64> {
    let raw = raw.trim().replace(',', ".");
    let (units, cents) = raw.split_once('.').unwrap_or((&raw, ""));
    if units.is_empty()
        || cents.len() > 2
        || !units.bytes().all(|b| b.is_ascii_digit())
        || !cents.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let units: i64 = units.parse().ok()?;
    let cents: i64 = format!("{cents:0<2}").parse().ok()?;
    let total = units.checked_mul(100)?.checked_add(cents)?;
    (total > 0 && total <= 100_000_000).then_some(total)
}

pub async fn finance_post(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, action)): Path<(String, String)>,
    mut parts: Parts,
    Form(form): Form<FinanceForm>,
) -> Response {
    let lang = lang_of(&parts);
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    let actor = format!("staff:{}", current.user.email);
    let error = if !trusted(&state, &parts, &form.csrf) {
        FormError::Forbidden
    } else {
        match action.as_str() {
            "paid" => {
                match invoices::mark_paid(&state.db, &state.clock, &form.invoice, &actor).await {
                    Ok(true) => return redirect(lang, "/staff/finance?done=paid"),
                    Ok(false) => return not_found(&state, parts).await,
                    Err(error) => return unavailable(&state, parts, error).await,
                }
            }
            "void" | "uncollectible" => {
                match invoices::close_unpaid(
                    &state.db,
                    &state.clock,
                    &form.invoice,
                    &action,
                    &actor,
                )
                .await
                {
                    Ok(true) => return redirect(lang, "/staff/finance?done=closed"),
                    Ok(false) => return not_found(&state, parts).await,
                    Err(error) => return unavailable(&state, parts, error).await,
                }
            }
            "credit" => match parse_euros(&form.amount) {
                Some(cents) if !form.reason.trim().is_empty() => {
                    let reason: String = form.reason.trim().chars().take(200).collect();
                    let issued = credit::issue_to(
                        &state.db,
                        &state.clock,
                        &form.organization,
                        cents,
                        &reason,
                        &actor,
                    );
                    match issued.await {
                        Ok(Some(_)) => return redirect(lang, "/staff/finance?done=credit"),
                        Ok(None) => FormError::Choice,
                        Err(error) => return unavailable(&state, parts, error).await,
                    }
                }
                _ => FormError::Amount,
            },
            _ => return not_found(&state, parts).await,
        }
    };
    if let Ok(uri) = format!("/{}/staff/finance", lang.code()).parse() {
        parts.uri = uri;
    }
    match finance_view(&state).await {
        Ok(view) => page(&state, parts, view, refused(error, &[])).await,
        Err(error) => unavailable(&state, parts, error).await,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_euros;

    #[test]
    fn euros_parse_to_cents() {
        assert_eq!(parse_euros("12.50"), Some(1250));
        assert_eq!(parse_euros("12,5"), Some(1250));
        assert_eq!(parse_euros("7"), Some(700));
        assert_eq!(parse_euros("0"), None);
        assert_eq!(parse_euros("-3"), None);
        assert_eq!(parse_euros("1.234"), None);
        assert_eq!(parse_euros("abc"), None);
    }
}
