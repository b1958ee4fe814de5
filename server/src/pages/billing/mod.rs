//! Billing (owners and billing members): invoices with filters and a CSV
//! export of what is listed, credit notes, the billing profile (`profile`),
//! one invoice (`invoice`) and its PDF (`invoice_pdf`). Technical members see
//! none of it; finance (staff) is `pages/finance`.

pub mod invoice;
pub mod invoice_pdf;
pub mod profile;

use crate::http::page::{lang_of, page, Member, PageError, PageResult, Signed};
use crate::http::routes::{Route, MONEY};
use crate::pages::billing::invoice::{InvoiceView, SellerView};
use crate::pages::billing::profile::{ProfileForm, ProfileValues, VatIdCheckView};
use crate::startup::AppState;
use app::i18n::billing;
use app::portal::forms::{CsrfField, FormErrorNotice, Notice};
use app::portal::nav::PortalNav;
use app::portal::query;
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use backend::billing::credit;
use backend::billing::invoices::{self, InvoiceFilter};
use domain::invoice::InvoiceStatus;
use domain::{InvoiceId, OrganizationId};
use domain::{Lang, Money};
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvoiceRow {
    pub id: domain::InvoiceId,
    pub number: String,
    pub status: InvoiceStatus,
    pub overdue: bool,
    pub issued_at: i64,
    pub due_at: i64,
    pub period_start: i64,
    pub period_end: i64,
    pub total: Money,
    /// Left to pay now: nothing once paid, void or written off.
    pub amount_due: Money,
    pub paid_at: Option<i64>,
    pub customer: String,
}

impl InvoiceRow {
    /// An invoice as the billing list and its page show it, on `now`.
    pub fn new(i: &backend::billing::invoices::Invoice, now: i64) -> InvoiceRow {
        InvoiceRow {
            id: i.id.clone(),
            number: i.number.clone().unwrap_or_default(),
            status: i.status,
            overdue: i.overdue(now),
            issued_at: i.issued_at,
            due_at: i.due_at,
            period_start: i.period_start,
            period_end: i.period_end,
            total: i.total,
            amount_due: i.outstanding(),
            paid_at: i.paid_at,
            customer: i.customer_name.clone(),
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BillingView {
    pub profile: ProfileValues,
    pub vat_id_check: Option<VatIdCheckView>,
    pub invoices: Vec<InvoiceRow>,
    /// (number, reason, amount, remaining, issued at)
    /// (number, reason, amount, remaining, issued, the invoice it corrects).
    pub credit_notes: Vec<(String, String, Money, Money, i64, Option<String>)>,
    pub filter_status: Option<InvoiceStatus>,
    pub filter_month: String,
    /// Payment methods are managed in Stripe's Billing Portal.
    pub stripe: bool,
}

/// A service period as every page, PDF and CSV prints it: first and last
/// day, both included. The stored end is the moment the next period
/// begins, so the last day is the one before it.
pub fn period(start: i64, end: i64) -> String {
    format!(
        "{} – {}",
        domain::time::format_date(start),
        domain::time::format_date(end - 86_400)
    )
}

/// An invoice's state in words: open, overdue, "paid on 2026-12-03", void…
pub fn status_text(lang: Lang, row: &InvoiceRow) -> String {
    let b = billing(lang);
    match (row.status, row.paid_at) {
        _ if row.overdue => b.overdue.to_owned(),
        (InvoiceStatus::Paid, Some(at)) => (b.paid_on_date)(&domain::time::format_date(at)),
        (status, _) => (b.status)(status).to_owned(),
    }
}

/// A row of an invoice table: the organization's and finance's.
#[component]
pub fn InvoiceTableRow(
    lang: Lang,
    row: InvoiceRow,
    #[prop(optional)] customer: bool,
    #[prop(optional)] base: &'static str,
) -> impl IntoView {
    let link = if base.is_empty() { "/invoices" } else { base };
    let status = status_text(lang, &row);
    let b = billing(lang);
    // The labels name each value when a phone shows the row as a card.
    view! {
        <tr data-invoice=row.number.clone() data-status=row.status.as_str()>
            <th scope="row"><a href=href(lang, &format!("{link}/{}", row.id))>{row.number.clone()}</a></th>
            {customer.then(|| view! { <td data-label=b.col_customer>{row.customer.clone()}</td> })}
            <td data-label=b.col_issued>{domain::time::format_date(row.issued_at)}</td>
            <td data-label=b.col_due>{domain::time::format_date(row.due_at)}</td>
            <td data-label=b.col_period>{period(row.period_start, row.period_end)}</td>
            <td class="num" data-label=b.col_total>{row.total.format(lang)}</td>
            <td class="num" data-label=b.col_amount_due>{row.amount_due.format(lang)}</td>
            <td class:overdue=row.overdue data-label=b.col_status>{status}</td>
        </tr>
    }
}

#[component]
pub fn InvoiceTableHead(lang: Lang, #[prop(optional)] customer: bool) -> impl IntoView {
    let b = billing(lang);
    view! {
        <thead>
            <tr>
                <th scope="col">{b.col_number}</th>
                {customer.then(|| view! { <th scope="col">{b.col_customer}</th> })}
                <th scope="col">{b.col_issued}</th>
                <th scope="col">{b.col_due}</th>
                <th scope="col">{b.col_period}</th>
                <th scope="col" class="num">{b.col_total}</th>
                <th scope="col" class="num">{b.col_amount_due}</th>
                <th scope="col">{b.col_status}</th>
            </tr>
        </thead>
    }
}

#[component]
pub fn BillingPage(lang: Lang, view: BillingView) -> impl IntoView {
    let b = billing(lang);
    let done = query("done").map(|_| b.saved);
    let empty = view.invoices.is_empty();
    let rows = view
        .invoices
        .into_iter()
        .map(|row| view! { <InvoiceTableRow lang row /> })
        .collect_view();
    let statuses = InvoiceStatus::LISTED
        .iter()
        .map(|s| view! { <option value=s.as_str() selected=view.filter_status == Some(*s)>{(b.status)(*s)}</option> })
        .collect_view();
    let month = view.filter_month.clone();
    // The export is what the list shows: all invoices, or those filtered.
    let status = view.filter_status.map_or("", |s| s.as_str());
    let filters: Vec<String> = [("month", month.as_str()), ("status", status)]
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let export_href = if filters.is_empty() {
        "/billing/export".to_owned()
    } else {
        format!("/billing/export?{}", filters.join("&"))
    };
    let export_text = if month.is_empty() {
        b.export_csv_all.to_owned()
    } else {
        (b.export_csv_month)(&month)
    };
    let credits = view
        .credit_notes
        .iter()
        .map(|(number, reason, amount, remaining, at, invoice)| {
            view! {
                <tr data-credit=number.clone()>
                    <th scope="row">{number.clone()}</th>
                    <td data-label=b.col_issued>{domain::time::format_date(*at)}</td>
                    <td data-label=b.credit_invoice>{invoice.clone().unwrap_or_else(|| "—".to_owned())}</td>
                    <td data-label=b.credit_reason>{reason.clone()}</td>
                    <td class="num" data-label=b.credit_amount>{amount.format(lang)}</td>
                    <td class="num" data-label=b.credit_remaining>{remaining.format(lang)}</td>
                </tr>
            }
        })
        .collect_view();
    let has_credits = !view.credit_notes.is_empty();
    view! {
        <Page lang title=b.title.to_owned() description=b.title.to_owned() rest="/billing".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="billing-title">
                <PortalNav lang />
                <h1 id="billing-title">{b.title}</h1>
                <p class="lead">{b.intro}</p>
                <FormErrorNotice lang />
                <Notice text=done />
                {view.stripe.then(|| view! {
                    <form method="post" action=href(lang, "/billing/portal") class="inline">
                        <CsrfField />
                        <button type="submit" class="secondary">{b.payment_methods}</button>
                    </form>
                })}
                <h2 id="invoices">{b.invoices_title}</h2>
                <form method="get" action=href(lang, "/billing") class="choice">
                    <div class="field">
                        <label for="status">{b.filter_status}</label>
                        <select id="status" name="status">
                            <option value="" selected=view.filter_status.is_none()>{b.all}</option>
                            {statuses}
                        </select>
                    </div>
                    <div class="field">
                        <label for="month">{b.filter_month}</label>
                        <input id="month" name="month" type="month" value=month />
                    </div>
                    <button type="submit">{b.filter_submit}</button>
                </form>
                <p>
                    <a href=href(lang, &export_href) data-testid="export-csv">{export_text}</a>
                    <br /><span class="hint">{b.export_note}</span>
                    <br /><span class="hint" data-testid="dates-utc">{b.dates_utc}</span>
                </p>
                {if empty {
                    view! { <p>{b.no_invoices}</p> }.into_any()
                } else {
                    view! {
                        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(b.invoices_title)>
                            <table class="invoices phone-cards"><InvoiceTableHead lang /><tbody>{rows}</tbody></table>
                        </div>
                    }
                    .into_any()
                }}
                {has_credits.then(|| view! {
                    <h2>{b.credit_title}</h2>
                    <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(b.credit_title)>
                        <table class="credit-notes phone-cards">
                            <thead>
                                <tr>
                                    <th scope="col">{b.col_number}</th>
                                    <th scope="col">{b.col_issued}</th>
                                    <th scope="col">{b.credit_invoice}</th>
                                    <th scope="col">{b.credit_reason}</th>
                                    <th scope="col" class="num">{b.credit_amount}</th>
                                    <th scope="col" class="num">{b.credit_remaining}</th>
                                </tr>
                            </thead>
                            <tbody>{credits}</tbody>
                        </table>
                    </div>
                })}
                <h2 id="profile">{b.profile_title}</h2>
                <ProfileForm lang profile=view.profile vat_check=view.vat_id_check />
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(BillingView => BillingPage(view));

pub fn routes() -> Vec<Route> {
    let mut routes = vec![
        Route::get("/{lang}/billing", MONEY, billing_page),
        Route::get("/{lang}/billing/export", MONEY, export),
        Route::get("/{lang}/invoices/{id}", MONEY, invoice_page),
        Route::get("/{lang}/invoices/{id}/pdf", MONEY, invoice_pdf),
    ];
    routes.extend(profile::routes());
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
    let (profile, vat_id_check) = profile::profile_values(state, organization_id, email).await?;
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

pub(crate) async fn invoice_view(
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
pub(crate) async fn invoice_response(
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
    crate::pages::billing::invoice_pdf::response(
        &state,
        lang_of(&parts),
        Some(&m.0.organization_id),
        &id,
    )
    .await
}

async fn invoice_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, InvoiceId)>,
    parts: Parts,
) -> PageResult {
    invoice_response(&state, parts, Some(&m.0.organization_id), &id, "/billing").await
}
