//! Finance (staff): revenue invoiced by month, plan and site; every open
//! and overdue invoice of every organization, settled as transfers arrive
//! (`settle`); credit notes issued and refunded.

mod settle;

use crate::http::page::{lang_of, page, redirect, PageError, PageResult, SameOrigin, Signed};
use crate::http::routes::{Access, Route};
use crate::pages::billing::invoice_response;
use crate::pages::finance::settle::{OpenInvoice, OpenInvoiceCard, SettledRow, SettledTable};
use crate::pages::staff::StaffNav;
use crate::startup::AppState;
use app::i18n::billing;
use app::portal::forms::{CsrfField, FormErrorNotice, Notice};
use app::portal::query;
use app::portal::FormError;
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::{Path, State};
use backend::billing::{credit, finance, settlement};
use domain::{InvoiceId, OrganizationId};
use domain::{Lang, Money};
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FinanceView {
    pub by_month: Vec<(String, Money)>,
    pub by_plan: Vec<(String, Money)>,
    pub by_site: Vec<(String, Money)>,
    pub open: Vec<OpenInvoice>,
    /// Invoices finance settled by hand, most recent first.
    pub settled: Vec<SettledRow>,
    /// `YYYY-MM-DD` (UTC): the latest payment date the forms accept.
    pub today: String,
    /// (id, legal name) for the credit note form.
    pub organizations: Vec<(String, String)>,
    /// Payments the customer's bank is disputing.
    pub disputed: Vec<DisputedRow>,
    /// Stripe events stored but not applied: (id, type, why).
    pub held_events: Vec<(String, String, String)>,
    /// Credit customers without a server left are owed by transfer.
    pub refunds_due: Vec<RefundDueRow>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RefundDueRow {
    pub number: String,
    pub organization: String,
    pub amount: Money,
    pub since: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DisputedRow {
    pub number: String,
    pub organization: String,
    pub amount: Money,
    pub since: String,
    /// Closed against us: the bank took the payment back.
    pub lost: bool,
}

#[component]
pub fn FinancePage(lang: Lang, view: FinanceView) -> impl IntoView {
    let b = billing(lang);
    let s = app::i18n::staff(lang);
    let done = match query("done").as_deref() {
        Some("paid") => Some(b.finance_paid_done),
        Some("credit") => Some(b.finance_credit_done),
        Some("closed") => Some(b.finance_closed_done),
        Some("refunded") => Some(b.finance_refunded_done),
        _ => None,
    };
    let table = move |title: &'static str, rows: Vec<(String, Money)>| {
        let body = rows
            .into_iter()
            .map(|(k, m)| {
                let key = k.clone();
                view! { <tr data-revenue=key><th scope="row">{k}</th><td class="num">{m.format(lang)}</td></tr> }
            })
            .collect_view();
        view! {
            <div class="revenue">
                <h3>{title}</h3>
                <table>
                    <thead><tr><th scope="col">{title}</th><th scope="col" class="num">{b.finance_net}</th></tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        }
    };
    let today = view.today.clone();
    // Each list says when it is empty rather than showing a bare heading.
    let empty = |is_empty: bool, text: &'static str| {
        is_empty.then(|| view! { <p class="empty">{text}</p> })
    };
    let no_open = empty(view.open.is_empty(), s.none_open);
    let no_disputed = empty(view.disputed.is_empty(), s.none);
    let no_held = empty(view.held_events.is_empty(), s.none);
    let no_refunds = empty(view.refunds_due.is_empty(), s.none);
    let open = view
        .open
        .into_iter()
        .map(|invoice| view! { <OpenInvoiceCard lang invoice today=today.clone() /> })
        .collect_view();
    let disputed = view
        .disputed
        .into_iter()
        .map(|d| {
            let number = d.number.clone();
            view! {
                <tr data-disputed=number data-lost=d.lost.then_some("true")>
                    <th scope="row">{d.number}</th>
                    <td>{d.organization}</td>
                    <td class="num">{d.amount.format(lang)}</td>
                    <td>{b.finance_disputed_since}" "{d.since}</td>
                    <td>{d.lost.then_some(b.finance_dispute_lost)}</td>
                </tr>
            }
        })
        .collect_view();
    let held = view
        .held_events
        .into_iter()
        .map(|(id, kind, why)| {
            let key = id.clone();
            view! { <tr data-held-event=key><th scope="row"><code>{id}</code></th><td>{kind}</td><td>{why}</td></tr> }
        })
        .collect_view();
    let refunds = view
        .refunds_due
        .into_iter()
        .map(|r| {
            let (number, key) = (r.number.clone(), r.number.clone());
            view! {
                <tr data-refund-due=key>
                    <th scope="row">{r.number}</th>
                    <td>{r.organization}</td>
                    <td class="num">{r.amount.format(lang)}</td>
                    <td>{r.since}</td>
                    <td>
                        <form method="post" action=href(lang, "/staff/finance/refunded") class="inline">
                            <CsrfField />
                            <input type="hidden" name="credit_note" value=number />
                            <button type="submit" class="secondary">{b.finance_mark_refunded}</button>
                        </form>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let organizations = view
        .organizations
        .iter()
        .map(|(id, name)| view! { <option value=id.clone()>{name.clone()}</option> })
        .collect_view();
    view! {
        <Page lang title=b.finance_title.to_owned() description=b.finance_title.to_owned() rest="/staff/finance".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="finance-title">
                <StaffNav lang />
                <h1 id="finance-title">{b.finance_title}</h1>
                <FormErrorNotice lang />
                <Notice text=done />
                <h2>{b.finance_revenue}</h2>
                <div class="revenue-tables">
                    {table(b.finance_by_month, view.by_month)}
                    {table(b.finance_by_plan, view.by_plan)}
                    {table(b.finance_by_site, view.by_site)}
                </div>
                <h2>{b.finance_open}</h2>
                {no_open}
                <ul class="cards open-invoices">{open}</ul>
                <h2>{s.settled_title}</h2>
                <p>{s.settled_hint}</p>
                <SettledTable lang rows=view.settled />
                <h2>{b.finance_refunds_due}</h2>
                <p>{b.finance_refunds_due_hint}</p>
                {no_refunds}
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(b.finance_refunds_due)>
                    <table><tbody>{refunds}</tbody></table>
                </div>
                <h2>{b.finance_disputed}</h2>
                <p>{b.finance_disputed_hint}</p>
                {no_disputed}
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(b.finance_disputed)>
                    <table><tbody>{disputed}</tbody></table>
                </div>
                <h2>{b.finance_held}</h2>
                <p>{b.finance_held_hint}</p>
                {no_held}
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(b.finance_held)>
                    <table><tbody>{held}</tbody></table>
                </div>
                <h2>{b.finance_credit_title}</h2>
                <form method="post" action=href(lang, "/staff/finance/credit")>
                    <CsrfField />
                    <div class="field">
                        <label for="organization">{b.finance_organization}</label>
                        <select id="organization" name="organization">{organizations}</select>
                    </div>
                    <div class="field">
                        <label for="amount">{b.credit_amount}</label>
                        <input id="amount" name="amount" inputmode="decimal" required pattern="[0-9]+([.,][0-9]{1,2})?" />
                    </div>
                    <div class="field">
                        <label for="reason">{b.credit_reason}</label>
                        <input id="reason" name="reason" required maxlength="200" />
                    </div>
                    <button type="submit">{b.finance_credit_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(FinanceView => FinancePage(view));

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
    crate::pages::billing::invoice_pdf::response(&state, lang_of(&parts), None, &id).await
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
                row: crate::pages::billing::InvoiceRow {
                    customer,
                    ..crate::pages::billing::InvoiceRow::new(&invoice, now)
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
