//! Settling an invoice by hand on the finance page (staff): recording the
//! bank transfer that paid it (the day it arrived and the amount received),
//! or closing it unpaid (void or written off) after a confirmation and with
//! a reason; and the list of invoices settled that way. A refusal shows the
//! finance page again with the invoice's form open as typed.

use crate::http::page::{refused, PageError, PageResult, SameOrigin, Signed};
use crate::pages::billing::InvoiceRow;
use crate::pages::finance::{actor, done, parse_euros};
use crate::startup::AppState;
use app::i18n::{billing, staff};
use app::portal::forms::CsrfField;
use app::portal::refusals::SettleRefusal;
use app::portal::use_feedback;
use app::portal::FormError;
use app::storefront::href;
use axum::extract::State;
use backend::billing::settlement::{self, Closing, Payment, SettleError};
use domain::invoice::InvoiceStatus;
use domain::InvoiceId;
use domain::{Lang, Money};
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// An open invoice with the forms that settle it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OpenInvoice {
    /// `customer` is the organization's legal name.
    pub row: InvoiceRow,
    /// Bank-transfer invoices may be voided or written off here; Stripe's
    /// are closed in Stripe.
    pub closable: bool,
}

/// An invoice finance settled by hand.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SettledRow {
    pub id: String,
    pub number: String,
    pub customer: String,
    pub status: InvoiceStatus,
    pub total: Money,
    pub paid_on: Option<i64>,
    pub received: Option<Money>,
    pub reason: Option<String>,
    pub by: String,
    pub at: i64,
}

/// `284.41`: an amount as typed into the form.
fn plain(amount: Money) -> String {
    format!("{}.{:02}", amount.cents / 100, amount.cents.rem_euclid(100))
}

/// One open invoice: who owes what since when, and its three actions,
/// each behind a disclosure so that nothing is settled by one stray click.
#[component]
pub fn OpenInvoiceCard(lang: Lang, invoice: OpenInvoice, today: String) -> impl IntoView {
    let (b, s) = (billing(lang), staff(lang));
    let row = invoice.row;
    let id = row.id.clone();
    // A refused form of this invoice opens again with what was typed.
    let feedback = use_feedback();
    let refused = feedback.error.is_some() && feedback.value("invoice") == id.as_str();
    let typed = |name: &str| {
        refused
            .then(|| feedback.value(name))
            .filter(|v| !v.is_empty())
    };
    let open_form = |form: &str| refused && feedback.value("form") == form;
    let field_id = |name: &str| format!("{name}-{id}");
    let issued = domain::time::format_date(row.issued_at);
    let paid_on = typed("paid_on").unwrap_or(today);
    let (status, badge) = if row.overdue {
        (b.overdue, "state-badge invoice-overdue")
    } else {
        ((b.status)(row.status), "state-badge invoice-open")
    };
    let close_id = row.id.clone();
    let close_form = move |form: &'static str,
                           summary: &'static str,
                           confirm: &'static str,
                           submit: &'static str| {
        let id = close_id.clone();
        let (reason_id, confirm_id) = (
            format!("{form}-reason-{id}"),
            format!("{form}-confirm-{id}"),
        );
        let (reason_for, confirm_for) = (reason_id.clone(), confirm_id.clone());
        view! {
            <details open=open_form(form)>
                <summary>{summary}</summary>
                <form method="post" action=href(lang, &format!("/staff/finance/{form}"))>
                    <CsrfField />
                    <input type="hidden" name="invoice" value=id.to_string() />
                    <div class="field">
                        <label for=reason_for>{s.reason}</label>
                        <input id=reason_id name="reason" required maxlength="200" value=typed("reason").filter(|_| open_form(form)) />
                        <p class="hint">{s.reason_hint}</p>
                    </div>
                    <label class="option" for=confirm_for>
                        <input type="checkbox" id=confirm_id name="confirm" value="yes" required />
                        {confirm}
                    </label>
                    <button type="submit" class="button-danger">{submit}</button>
                </form>
            </details>
        }
    };
    view! {
        <li class="card open-invoice" data-invoice=row.number.clone() data-customer=row.customer.clone()>
            <h3>
                <a href=href(lang, &format!("/staff/finance/invoices/{}", row.id))>{row.number.clone()}</a>
                " "
                <span class=badge>{status}</span>
            </h3>
            <p class="customer">{row.customer.clone()}</p>
            <dl class="facts">
                <dt>{b.col_issued}</dt><dd>{issued}</dd>
                <dt>{b.col_due}</dt><dd>{domain::time::format_date(row.due_at)}</dd>
                <dt>{b.col_amount_due}</dt><dd class="num">{row.amount_due.format(lang)}</dd>
            </dl>
            <details open=open_form("paid")>
                <summary>{s.pay_open}</summary>
                <form method="post" action=href(lang, "/staff/finance/paid")>
                    <CsrfField />
                    <input type="hidden" name="invoice" value=row.id.to_string() />
                    <div class="field">
                        <label for=field_id("paid-on")>{s.pay_date}</label>
                        // Typed as an ISO date (a date picker shows the
                        // browser's locale, 12/03/2026, not what the
                        // statement and the page say); the day's limits
                        // are checked on the server.
                        <input id=field_id("paid-on") name="paid_on" required inputmode="numeric" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}"
                            placeholder="YYYY-MM-DD" autocomplete="off"
                            aria-describedby=field_id("paid-on-hint") value=paid_on />
                        <p class="hint" id=field_id("paid-on-hint")>{s.pay_date_hint}</p>
                    </div>
                    <div class="field">
                        <label for=field_id("amount")>{s.pay_amount}</label>
                        <input id=field_id("amount") name="amount" inputmode="decimal" required pattern="[0-9]+([.,][0-9]{1,2})?"
                            value=typed("amount").unwrap_or_else(|| plain(row.amount_due)) />
                        <p class="hint">{(s.pay_amount_hint)(&row.amount_due.format(lang))}</p>
                    </div>
                    <label class="option" for=field_id("differs")>
                        <input type="checkbox" id=field_id("differs") name="amount_differs" value="yes" />
                        {s.pay_differs}
                    </label>
                    <div class="field">
                        <label for=field_id("paid-reason")>{s.pay_reason}</label>
                        <input id=field_id("paid-reason") name="reason" maxlength="200"
                            value=typed("reason").filter(|_| open_form("paid")) />
                    </div>
                    <button type="submit">{s.pay_submit}</button>
                </form>
            </details>
            {invoice.closable.then(|| view! {
                {close_form("void", s.void_open, s.void_confirm, s.void_submit)}
                {close_form("uncollectible", s.write_off_open, s.write_off_confirm, s.write_off_submit)}
            })}
        </li>
    }
}

/// The invoices finance settled by hand, with the date, amount and reason
/// it recorded.
#[component]
pub fn SettledTable(lang: Lang, rows: Vec<SettledRow>) -> impl IntoView {
    let (b, s) = (billing(lang), staff(lang));
    if rows.is_empty() {
        return view! { <p class="empty">{s.none}</p> }.into_any();
    }
    let rows = rows
        .into_iter()
        .map(|r| {
            let status = match r.status {
                InvoiceStatus::Uncollectible => s.written_off,
                other => (b.status)(other),
            };
            let (key, state) = (r.number.clone(), r.status.as_str());
            view! {
                <tr data-settled=key data-status=state>
                    <th scope="row"><a href=href(lang, &format!("/staff/finance/invoices/{}", r.id))>{r.number}</a></th>
                    <td data-label=s.col_customer>{r.customer}</td>
                    <td data-label=b.col_status>{status}</td>
                    <td data-label=s.col_paid_on>{r.paid_on.map(domain::time::format_date)}</td>
                    <td class="num" data-label=s.col_received>{r.received.map(|m| m.format(lang))}" / "{r.total.format(lang)}</td>
                    <td data-label=s.col_reason>{r.reason}</td>
                    <td data-label=s.col_recorded>{domain::time::format_date(r.at)}" · "{r.by}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(s.settled_title)>
            <table class="settled phone-cards">
                <thead>
                    <tr>
                        <th scope="col">{s.col_invoice}</th>
                        <th scope="col">{s.col_customer}</th>
                        <th scope="col">{b.col_status}</th>
                        <th scope="col">{s.col_paid_on}</th>
                        <th scope="col" class="num">{s.col_received}" / "{b.col_total}</th>
                        <th scope="col">{s.col_reason}</th>
                        <th scope="col">{s.col_recorded}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

/// Back to the finance page with why the settlement was refused and what
/// was typed, the invoice's form open again; an invoice that isn't there
/// (or no longer open) is not found.
fn refusal(error: SettleError, values: &[(&str, &str)]) -> PageError {
    let refusal = match error {
        SettleError::NotFound => return PageError::NotFound,
        SettleError::Db(error) => return PageError::Unavailable(error),
        SettleError::DateInFuture => SettleRefusal::DateInFuture,
        SettleError::DateBeforeInvoice => SettleRefusal::DateBeforeInvoice,
        SettleError::AmountDiffers { due } => SettleRefusal::AmountDiffers(due),
        SettleError::Reason => SettleRefusal::Reason,
        SettleError::Unconfirmed => SettleRefusal::Unconfirmed,
    };
    refused(FormError::Settle(refusal), values)
}

/// A day as the date field sends it, `YYYY-MM-DD`: its first second (UTC).
fn parse_day(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    (raw.len() == 10).then(|| domain::time::parse_utc(raw))?
}

/// A bank transfer, as finance read it on the statement.
#[derive(Deserialize)]
pub(crate) struct PaymentForm {
    #[serde(default)]
    invoice: InvoiceId,
    #[serde(default)]
    paid_on: String,
    #[serde(default)]
    amount: String,
    /// The "amount differs" box, ticked.
    #[serde(default)]
    amount_differs: String,
    #[serde(default)]
    reason: String,
}

pub(crate) async fn paid(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<PaymentForm>,
) -> PageResult {
    let values = [
        ("invoice", form.invoice.as_str()),
        ("form", "paid"),
        ("paid_on", form.paid_on.as_str()),
        ("amount", form.amount.as_str()),
        ("reason", form.reason.as_str()),
    ];
    let refuse = |why: SettleRefusal| refused(FormError::Settle(why), &values);
    let paid_on = parse_day(&form.paid_on).ok_or_else(|| refuse(SettleRefusal::Date))?;
    let cents = parse_euros(&form.amount).ok_or_else(|| refuse(SettleRefusal::Amount))?;
    let payment = Payment {
        paid_on,
        amount: Money::eur(cents),
        differs_confirmed: !form.amount_differs.is_empty(),
        note: form.reason.chars().take(200).collect(),
    };
    settlement::record_payment(
        &state.db,
        &state.clock,
        &form.invoice,
        &payment,
        &actor(&staff),
    )
    .await
    .map_err(|error| refusal(error, &values))?;
    done(&parts, "paid")
}

/// Closing an invoice unpaid: confirmed, with the reason.
#[derive(Deserialize)]
pub(crate) struct ClosingForm {
    #[serde(default)]
    invoice: InvoiceId,
    #[serde(default)]
    reason: String,
    /// The confirmation box, ticked.
    #[serde(default)]
    confirm: String,
}

pub(crate) async fn void(
    state: State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    form: SameOrigin<ClosingForm>,
) -> PageResult {
    close_unpaid(state, staff, parts, form, Closing::Void).await
}

pub(crate) async fn uncollectible(
    state: State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    form: SameOrigin<ClosingForm>,
) -> PageResult {
    close_unpaid(state, staff, parts, form, Closing::Uncollectible).await
}

/// Closes an offline invoice nobody will pay: void or written off.
async fn close_unpaid(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<ClosingForm>,
    closing: Closing,
) -> PageResult {
    let reason: String = form.reason.chars().take(200).collect();
    settlement::close_unpaid(
        &state.db,
        &state.clock,
        &form.invoice,
        closing,
        &reason,
        !form.confirm.is_empty(),
        &actor(&staff),
    )
    .await
    .map_err(|error| {
        let values = [
            ("invoice", form.invoice.as_str()),
            ("form", closing.status()),
            ("reason", form.reason.as_str()),
        ];
        refusal(error, &values)
    })?;
    done(&parts, "closed")
}
