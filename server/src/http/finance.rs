//! Finance (staff): revenue by month, plan and site; every open and
//! overdue invoice, marked paid (the day and amount received), voided or
//! written off (confirmed, with a reason); credit notes issued and refunded.

use app::portal::finance::{DisputedRow, FinanceView, RefundDueRow};
use app::portal::settle::{OpenInvoice, SettledRow};
use app::portal::FormError;
use axum::extract::{Path, State};
use backend::billing::{credit, finance, settlement};
use domain::{InvoiceId, OrganizationId};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::billing::invoice_response;
use super::page::{lang_of, page, redirect, PageError, PageResult, SameOrigin, Signed};
use super::routes::{Access, Route};
use crate::startup::AppState;

mod settle;

pub fn routes() -> Vec<Route> {
    use Access::Staff;
    vec![
        Route::get("/{lang}/staff/finance", Staff, finance_page),
        Route::post("/{lang}/staff/finance/paid", Staff, settle::paid),
        Route::post("/{lang}/staff/finance/void", Staff, settle::void),
        Route::post(
            "/{lang}/staff/finance/uncollectible",
            Staff,
            settle::uncollectible,
        ),
        Route::post("/{lang}/staff/finance/refunded", Staff, refunded),
        Route::post("/{lang}/staff/finance/credit", Staff, issue_credit),
        Route::get(
            "/{lang}/staff/finance/invoices/{id}",
            Staff,
            finance_invoice_page,
        ),
        Route::get(
            "/{lang}/staff/finance/invoices/{id}/pdf",
            Staff,
            finance_invoice_pdf,
        ),
    ]
}

async fn finance_invoice_pdf(
    State(state): State<Arc<AppState>>,
    Path((_, id)): Path<(String, InvoiceId)>,
    parts: Parts,
) -> PageResult {
    super::invoice_pdf::response(&state, lang_of(&parts), None, &id).await
}

async fn finance_invoice_page(
    State(state): State<Arc<AppState>>,
    Path((_, id)): Path<(String, InvoiceId)>,
    parts: Parts,
) -> PageResult {
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
            .into_iter()
            .map(|(invoice, customer)| OpenInvoice {
                row: app::portal::billing::InvoiceRow {
                    customer,
                    ..app::portal::billing::InvoiceRow::new(&invoice, now)
                },
                closable: invoice.billing_method == "invoice",
            })
            .collect(),
        settled: settlement::settled(&state.db, 50)
            .await?
            .into_iter()
            .map(|s| SettledRow {
                id: s.id,
                number: s.number,
                customer: s.customer,
                status: s.status,
                total: s.total,
                paid_on: s.paid_on,
                received: s.received,
                reason: s.reason,
                by: s.by,
                at: s.at,
            })
            .collect(),
        today: domain::time::format_date(now),
        organizations: finance::organizations(&state.db).await?,
        disputed: finance::disputed(&state.db)
            .await?
            .into_iter()
            .map(|d| DisputedRow {
                number: d.number,
                organization: d.organization,
                amount: domain::Money::eur(d.total_cents),
                since: domain::time::format_date(d.since),
                lost: d.status == "lost",
            })
            .collect(),
        held_events: backend::billing::stripe::events::held(&state.db).await?,
        refunds_due: credit::refunds_due(&state.db)
            .await?
            .into_iter()
            .map(|(number, organization, cents, since)| RefundDueRow {
                number,
                organization,
                amount: domain::Money::eur(cents),
                since: domain::time::format_date(since),
            })
            .collect(),
    })
}

async fn finance_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    let view = finance_view(&state).await?;
    page(&state, parts, view).await
}

/// Who acts, for the audit log.
fn actor(staff: &Signed) -> String {
    format!("staff:{}", staff.0.user.email)
}

/// Back to the finance page once done.
fn done(parts: &Parts, what: &str) -> PageResult {
    Ok(redirect(
        lang_of(parts),
        &format!("/staff/finance?done={what}"),
    ))
}

#[derive(Deserialize)]
struct ChosenCreditNote {
    #[serde(default)]
    credit_note: String,
}

/// A credit note's remainder, paid out by bank transfer.
async fn refunded(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<ChosenCreditNote>,
) -> PageResult {
    let found =
        credit::mark_refunded(&state.db, &state.clock, &form.credit_note, &actor(&staff)).await?;
    if !found {
        return Err(PageError::NotFound);
    }
    done(&parts, "refunded")
}

#[derive(Deserialize)]
struct NewCredit {
    #[serde(default)]
    organization: OrganizationId,
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

/// A credit note for an organization, with its reason.
async fn issue_credit(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<NewCredit>,
) -> PageResult {
    let reason: String = form.reason.trim().chars().take(200).collect();
    let cents = parse_euros(&form.amount)
        .filter(|_| !reason.is_empty())
        .ok_or(FormError::Amount)?;
    credit::issue_to(
        &state.db,
        &state.clock,
        &form.organization,
        cents,
        &reason,
        &actor(&staff),
    )
    .await?
    .ok_or(FormError::Choice)?;
    Ok(redirect(lang_of(&parts), "/staff/finance?done=credit"))
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
