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
use sqlx::Row;
use stripe_core::customer_balance_transaction::CreateCustomerCustomerBalanceTransaction;
use stripe_core::refund::{CreateRefund, CreateRefundReason};

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
         s.cancelled_at, o.stripe_customer_id from credit_notes c join servers s on s.id = c.server_id \
         join organizations o on o.id = c.organization_id where c.number = $1",
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
    let org: String = note.try_get("organization_id")?;
    let (Some(subscription), Some(customer)) = (
        note.try_get::<Option<String>, _>("stripe_subscription_id")?,
        note.try_get::<Option<String>, _>("stripe_customer_id")?,
    ) else {
        return Ok(());
    };
    // The last paid Stripe invoice of the server: its VAT rate, and the
    // payment a refund goes back to.
    let paid = sqlx::query(
        "select vat_rate_bp, stripe_payment_intent, total_cents from invoices \
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
    let gross = with_vat(net, rate_bp);
    let ended = note.try_get::<Option<i64>, _>("cancelled_at")?.is_some();
    let (via, reference, cents) = if ended {
        let row = paid.context("no paid invoice to refund against")?;
        let intent: Option<String> = row.try_get("stripe_payment_intent")?;
        let intent = intent.context("the last paid invoice has no payment to refund")?;
        let total: i64 = row.try_get("total_cents")?;
        let cents = gross.min(total);
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
    } else {
        let balance = client
            .send(
                &CreateCustomerCustomerBalanceTransaction::new(
                    customer.as_str(),
                    -gross,
                    stripe_types::Currency::EUR,
                )
                .description(format!("SLA credit {number}"))
                .metadata([("credit_note".to_owned(), number.to_owned())]),
                Some(&Intent::new(format!("credit-balance-{number}"))),
            )
            .await?;
        ("stripe_balance", balance.id.to_string(), gross)
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
