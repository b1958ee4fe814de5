//! Settling an invoice by hand (staff): a bank transfer recorded with the
//! day it arrived and the amount received, or the invoice closed unpaid
//! (void or written off), confirmed and with a reason. A refusal shows the
//! finance page again with the invoice's form open as typed.

use app::portal::settle::SettleRefusal;
use app::portal::FormError;
use axum::extract::State;
use backend::billing::settlement::{self, Closing, Payment, SettleError};
use domain::{InvoiceId, Money};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::super::page::{refused, PageError, PageResult, SameOrigin, Signed};
use super::{actor, done, parse_euros};
use crate::startup::AppState;

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
pub(super) struct PaymentForm {
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

pub(super) async fn paid(
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
pub(super) struct ClosingForm {
    #[serde(default)]
    invoice: InvoiceId,
    #[serde(default)]
    reason: String,
    /// The confirmation box, ticked.
    #[serde(default)]
    confirm: String,
}

pub(super) async fn void(
    state: State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    form: SameOrigin<ClosingForm>,
) -> PageResult {
    close_unpaid(state, staff, parts, form, Closing::Void).await
}

pub(super) async fn uncollectible(
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
