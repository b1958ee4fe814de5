//! Finance (staff): revenue by month, plan and site; every open and
//! overdue invoice, marked paid, voided or written off; credit notes.

use app::portal::finance::{DisputedRow, FinanceView, RefundDueRow};
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, State};
use axum::response::Response;
use axum::{Extension, Form};
use backend::billing::{credit, finance, invoices};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{denied, lang_of, not_found, page, redirect, refused, trusted, unavailable};
use super::auth::CurrentUser;
use super::billing::{invoice_response, pdf_response, row};
use crate::startup::AppState;

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
        disputed: finance::disputed(&state.db)
            .await?
            .into_iter()
            .map(|(number, organization, cents, since)| DisputedRow {
                number,
                organization,
                amount: domain::Money::eur(cents),
                since: domain::time::format_date(since),
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
    #[serde(default)]
    credit_note: String,
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
            "refunded" => {
                match credit::mark_refunded(&state.db, &state.clock, &form.credit_note, &actor)
                    .await
                {
                    Ok(true) => return redirect(lang, "/staff/finance?done=refunded"),
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
