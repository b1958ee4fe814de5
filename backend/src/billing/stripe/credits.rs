//! SLA credits for customers who pay through Stripe. Our credit notes are
//! set against *our* next invoice, which a Stripe customer never gets, so
//! each one is passed on to Stripe: onto the customer's balance, which
//! Stripe takes off their next invoice, or, when the server has ended and
//! no invoice follows, refunded against the last payment.
//!
//! The credit note is ex VAT (docs/SLA.md); the customer paid VAT on the
//! fee, so the VAT the invoice charged on that share is passed on with it:
//! the credit reduces net and VAT in the same proportion.

use anyhow::Context;
use domain::OrganizationId;
use sqlx::Row;
use stripe_core::customer_balance_transaction::CreateCustomerCustomerBalanceTransaction;
use stripe_core::refund::{CreateRefund, CreateRefundReason, ListRefund};

use super::super::credit::with_vat;
use super::client::{Intent, StripeClient};
use crate::jobs::Outcome;
use crate::{audit, Clock, Db};

/// Job (`JobKind::StripeCredit`): pass one credit note (the subject is its
/// number) on to Stripe.
pub async fn pass_on(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    number: &str,
    attempts: i64,
) -> Outcome {
    let result = pass_on_inner(db, clock, client, number).await;
    Outcome::retried(result, clock.now(), attempts, 30, 60)
}

async fn pass_on_inner(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    number: &str,
) -> anyhow::Result<()> {
    let note = sqlx::query(
        "select c.organization_id, c.remaining_cents, c.paid_out_via, s.stripe_subscription_id, \
         s.cancelled_at, s.cancel_at, s.renews_at, o.stripe_customer_id from credit_notes c \
         join servers s on s.id = c.server_id join organizations o on o.id = c.organization_id \
         where c.number = $1",
    )
    .bind(number)
    .fetch_optional(&db.pool)
    .await
    .context("reading the credit note")?;
    let Some(note) = note else {
        return Ok(());
    };
    let net: i64 = note.try_get("remaining_cents")?;
    if net == 0 || note.try_get::<Option<String>, _>("paid_out_via")?.is_some() {
        return Ok(());
    }
    let org: OrganizationId = note.try_get("organization_id")?;
    let (Some(subscription), Some(customer)) = (
        note.try_get::<Option<String>, _>("stripe_subscription_id")?,
        note.try_get::<Option<String>, _>("stripe_customer_id")?,
    ) else {
        return Ok(());
    };
    // The last paid Stripe invoice of the server: its VAT rate, and the
    // payment a refund goes back to.
    let paid = sqlx::query(
        "select vat_rate_bp, stripe_payment_intent, stripe_invoice_id from invoices \
         where stripe_subscription_id = $1 and status = 'paid' order by period_end desc, created_at desc limit 1",
    )
    .bind(&subscription)
    .fetch_optional(&db.pool)
    .await
    .context("reading the last paid invoice")?;
    let rate_bp: i64 = match &paid {
        Some(row) => row.try_get("vat_rate_bp")?,
        None => 0,
    };
    let intent: Option<String> = match &paid {
        Some(row) => row.try_get("stripe_payment_intent")?,
        None => None,
    };
    let choice = match chosen(db, number).await? {
        Some(choice) => choice,
        None => {
            let gross = with_vat(net, rate_bp);
            // A balance is only worth something if Stripe invoices again:
            // not for a server that has ended or ends by its renewal.
            let cancelled = note.try_get::<Option<i64>, _>("cancelled_at")?.is_some();
            let cancel_at: Option<i64> = note.try_get("cancel_at")?;
            let renews_at: Option<i64> = note.try_get("renews_at")?;
            let no_invoice_follows =
                cancelled || cancel_at.is_some_and(|end| renews_at.is_none_or(|r| end <= r));
            let choice = if no_invoice_follows {
                let row = paid.as_ref().context("no paid invoice to refund against")?;
                let invoice: String = row.try_get("stripe_invoice_id")?;
                let intent = intent
                    .as_deref()
                    .context("the last paid invoice has no payment to refund")?;
                let cents = gross.min(refundable(client, &invoice, intent).await?);
                Choice::Refund(cents, intent.to_owned())
            } else {
                Choice::Balance(gross)
            };
            choose(db, number, choice).await?
        }
    };
    // The key names the credit note and the choice; the body follows
    // from what was stored with the choice.
    let (via, reference, cents) = match choice {
        Choice::Refund(0, _) => ("stripe_refund", String::new(), 0),
        Choice::Refund(cents, intent) => {
            let refund = client
                .send(
                    &CreateRefund::new()
                        .payment_intent(&intent)
                        .amount(cents)
                        .reason(CreateRefundReason::RequestedByCustomer)
                        .metadata([("credit_note".to_owned(), number.to_owned())]),
                    Some(&Intent::new(format!("credit-refund-{number}"))),
                )
                .await?;
            ("stripe_refund", refund.id.to_string(), cents)
        }
        Choice::Balance(cents) => {
            let balance = client
                .send(
                    &CreateCustomerCustomerBalanceTransaction::new(
                        customer.as_str(),
                        -cents,
                        stripe_types::Currency::EUR,
                    )
                    .description(format!("SLA credit {number}"))
                    .metadata([("credit_note".to_owned(), number.to_owned())]),
                    Some(&Intent::new(format!("credit-balance-{number}"))),
                )
                .await?;
            ("stripe_balance", balance.id.to_string(), cents)
        }
    };
    let now = clock.now();
    let mut tx = db.begin().await?;
    let marked = sqlx::query(
        "update credit_notes set remaining_cents = 0, paid_out_via = $1, paid_out_ref = $2, \
         paid_out_cents = $3, paid_out_at = $4 where number = $5 and paid_out_via is null",
    )
    .bind(via)
    .bind(&reference)
    .bind(cents)
    .bind(now)
    .bind(number)
    .execute(&mut *tx)
    .await
    .context("recording where the credit went")?;
    if marked.rows_affected() == 1 {
        audit::record(
            &mut *tx,
            &audit::Entry::unattended(
                &org,
                "system",
                "credit_note.paid_out",
                &format!("{number} {via} {reference} {cents}"),
                now,
            ),
        )
        .await?;
    }
    tx.commit().await.context("committing")?;
    Ok(())
}

/// Where a credit note goes at Stripe, with the gross amount: chosen once
/// and stored before Stripe hears of it, so a retry never changes its
/// mind (a server cancelled between two attempts must not be both
/// credited and refunded).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Choice {
    Balance(i64),
    /// The gross amount, and the payment it goes back to.
    Refund(i64, String),
}

async fn chosen(db: &Db, number: &str) -> anyhow::Result<Option<Choice>> {
    let row = sqlx::query(
        "select pass_on_as, pass_on_cents, pass_on_payment from credit_notes \
         where number = $1 and pass_on_as is not null",
    )
    .bind(number)
    .fetch_optional(&db.pool)
    .await
    .context("reading the credit note's choice")?;
    let Some(row) = row else {
        return Ok(None);
    };
    let how: String = row.try_get("pass_on_as")?;
    let cents: i64 = row.try_get("pass_on_cents")?;
    Ok(Some(if how == "refund" {
        Choice::Refund(cents, row.try_get("pass_on_payment")?)
    } else {
        Choice::Balance(cents)
    }))
}

/// Stores the choice unless one was stored first (another replica), and
/// answers the one that stands.
async fn choose(db: &Db, number: &str, choice: Choice) -> anyhow::Result<Choice> {
    let (how, cents, payment) = match &choice {
        Choice::Balance(cents) => ("balance", *cents, None),
        Choice::Refund(cents, payment) => ("refund", *cents, Some(payment.as_str())),
    };
    sqlx::query(
        "update credit_notes set pass_on_as = $1, pass_on_cents = $2, pass_on_payment = $3 \
         where number = $4 and pass_on_as is null",
    )
    .bind(how)
    .bind(cents)
    .bind(payment)
    .bind(number)
    .execute(&db.pool)
    .await
    .context("storing the credit note's choice")?;
    chosen(db, number)
        .await?
        .context("the credit note's choice was not stored")
}

/// What is still refundable of an invoice's payment: what it paid less
/// every refund Stripe has made or is making of it (ours, the
/// Dashboard's).
async fn refundable(
    client: &StripeClient,
    stripe_invoice_id: &str,
    intent: &str,
) -> anyhow::Result<i64> {
    let paid: i64 = super::payments::paid_payments(client, stripe_invoice_id)
        .await?
        .iter()
        .map(|p| p.amount_paid.unwrap_or(0))
        .sum();
    let refunds = client
        .send(&ListRefund::new().payment_intent(intent).limit(100), None)
        .await?;
    let refunded: i64 = refunds
        .data
        .iter()
        .filter(|r| !matches!(r.status.as_deref(), Some("failed" | "canceled")))
        .map(|r| r.amount)
        .sum();
    Ok((paid - refunded).max(0))
}
