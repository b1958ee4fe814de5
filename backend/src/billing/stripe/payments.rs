//! Money moving after the invoice: which payment paid it, refunds made at
//! Stripe become credit notes here, disputes flag the invoice and the
//! organization for finance, and a payment for an order we cannot deliver
//! is given back in full.
//!
//! Stripe never puts an invoice's payments in its webhooks or plain
//! retrievals (`payments` is includable), so the payment intent that paid
//! an invoice is learnt from `invoice_payment.paid`, or asked for with
//! `GET /v1/invoice_payments?invoice=…` ([`learn_payment`], queued when a
//! paid invoice is mirrored without it, and run by reconciliation).

use anyhow::Context;
use domain::{InvoiceId, OrderId, OrganizationId};
use sqlx::{Any, Row, Transaction};
use stripe_billing::invoice::{ListInvoice, VoidInvoiceInvoice};
use stripe_billing::invoice_payment::{ListInvoicePayment, ListInvoicePaymentStatus};
use stripe_shared::{Dispute, InvoicePayment, InvoiceStatus, Refund};

use super::client::{Intent, StripeClient};
use super::subscriptions::{cancel_now, refund_in_full};
use crate::jobs::Outcome;
use crate::{audit, Clock, Db};

/// The invoice a payment intent paid, with its organization.
async fn invoice_of(
    tx: &mut Transaction<'_, Any>,
    payment_intent: &str,
) -> anyhow::Result<Option<(InvoiceId, OrganizationId, String)>> {
    let row = sqlx::query(
        "select id, organization_id, coalesce(number, stripe_invoice_id) as number from invoices \
         where stripe_payment_intent = $1",
    )
    .bind(payment_intent)
    .fetch_optional(&mut **tx)
    .await
    .context("finding the paid invoice")?;
    row.map(|r| {
        Ok((
            r.try_get("id")?,
            r.try_get("organization_id")?,
            r.try_get("number")?,
        ))
    })
    .transpose()
}

/// Records the payment intent that paid a mirrored invoice. Answers
/// whether the invoice is mirrored (`false`: not yet, try again later).
async fn record_paying_intent(
    tx: &mut Transaction<'_, Any>,
    stripe_invoice_id: &str,
    payment_intent: &str,
    now: i64,
) -> anyhow::Result<bool> {
    let known: Option<Option<String>> = sqlx::query_scalar(
        "select stripe_payment_intent from invoices where stripe_invoice_id = $1",
    )
    .bind(stripe_invoice_id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the invoice's payment")?;
    match known {
        None => Ok(false),
        Some(Some(_)) => Ok(true),
        Some(None) => {
            sqlx::query(
                "update invoices set stripe_payment_intent = $1, updated_at = $2 \
                 where stripe_invoice_id = $3 and stripe_payment_intent is null",
            )
            .bind(payment_intent)
            .bind(now)
            .bind(stripe_invoice_id)
            .execute(&mut **tx)
            .await
            .context("recording the invoice's payment")?;
            Ok(true)
        }
    }
}

/// The payment intent of a paid invoice payment; `None` for one paid
/// another way (a payment record: paid out of band, nothing to refund by
/// card).
fn paid_intent(payment: &InvoicePayment) -> Option<String> {
    (payment.status == "paid")
        .then_some(payment.payment.payment_intent.as_ref())
        .flatten()
        .map(|pi| pi.id().to_string())
}

/// `invoice_payment.paid`: the payment intent that paid an invoice.
pub(super) async fn invoice_payment_paid(
    tx: &mut Transaction<'_, Any>,
    payment: &InvoicePayment,
    now: i64,
) -> anyhow::Result<bool> {
    let invoice = payment.invoice.id().as_ref().map(|id| id.as_str());
    match (invoice, paid_intent(payment)) {
        (Some(invoice), Some(intent)) => record_paying_intent(tx, invoice, &intent, now).await,
        _ => Ok(true),
    }
}

/// An invoice's paid payments, as Stripe lists them (webhooks and plain
/// retrievals never carry them).
pub(super) async fn paid_payments(
    client: &StripeClient,
    stripe_invoice_id: &str,
) -> anyhow::Result<Vec<InvoicePayment>> {
    let payments = client
        .send(
            &ListInvoicePayment::new()
                .invoice(stripe_invoice_id)
                .status(ListInvoicePaymentStatus::Paid)
                .limit(10),
            None,
        )
        .await?;
    Ok(payments.data)
}

/// Asks Stripe which payment intent paid an invoice (`None`: nothing was
/// paid by a payment intent, e.g. a zero total or an out-of-band payment).
async fn paying_intent(
    client: &StripeClient,
    stripe_invoice_id: &str,
) -> anyhow::Result<Option<String>> {
    let payments = paid_payments(client, stripe_invoice_id).await?;
    Ok(payments.iter().find_map(paid_intent))
}

/// Job (`JobKind::StripeInvoicePayment`): a paid invoice was mirrored
/// without its payment; ask Stripe for it, so refunds, disputes and SLA
/// refunds can find it.
pub async fn learn_payment(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    stripe_invoice_id: &str,
    attempts: i64,
) -> Outcome {
    let result = fill_in_payment(db, clock, client, stripe_invoice_id).await;
    Outcome::retried(result.map(|_| ()), clock.now(), attempts, 20, 30)
}

/// Records the payment intent that paid an invoice, as Stripe lists it;
/// answers whether there was one.
pub(super) async fn fill_in_payment(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    stripe_invoice_id: &str,
) -> anyhow::Result<bool> {
    let Some(intent) = paying_intent(client, stripe_invoice_id).await? else {
        return Ok(false);
    };
    let mut tx = db.begin().await?;
    let recorded = record_paying_intent(&mut tx, stripe_invoice_id, &intent, clock.now()).await?;
    tx.commit()
        .await
        .context("committing the invoice's payment")?;
    Ok(recorded)
}

/// The payment intent that paid a subscription's first paid invoice,
/// asked of Stripe (our mirror may not have the invoice, or not its
/// payment, yet). `Err` while a payment is still on its way.
async fn first_payment_of(
    client: &StripeClient,
    subscription: &str,
) -> anyhow::Result<Option<String>> {
    let invoices = client
        .send(
            &ListInvoice::new().subscription(subscription).limit(24),
            None,
        )
        .await?;
    // Newest first: the first invoice is the last paid one listed.
    let paid = invoices
        .data
        .iter()
        .rev()
        .find(|i| i.status == Some(InvoiceStatus::Paid) && i.amount_paid > 0);
    match paid {
        Some(invoice) => {
            let id = invoice.id.as_ref().context("an invoice without an id")?;
            paying_intent(client, id.as_str()).await
        }
        None => Ok(None),
    }
}

/// `refund.created` / `refund.updated`: a refund that went through is one
/// credit note for the invoice it pays back, booked once per refund: net
/// G / (1 + r) at the invoice's VAT rate, the VAT the rest, already paid
/// out. A refund that passes on an SLA credit note (metadata
/// `credit_note`) is that credit note already; a pending one is booked
/// when it succeeds; a failed one never. An undeliverable order's refund
/// is told by its own mail, so its credit note sends none.
pub(super) async fn refund_made(
    tx: &mut Transaction<'_, Any>,
    refund: &Refund,
    now: i64,
) -> anyhow::Result<bool> {
    let metadata = refund.metadata.clone().unwrap_or_default();
    if refund.status.as_deref() != Some("succeeded") || metadata.contains_key("credit_note") {
        return Ok(true);
    }
    let Some(intent) = refund.payment_intent.as_ref().map(|p| p.id().to_string()) else {
        return Ok(true);
    };
    let Some((invoice, org, number)) = invoice_of(tx, &intent).await? else {
        // Its invoice, or the invoice's payment, is not known yet.
        return Ok(false);
    };
    let refund_id = refund.id.to_string();
    let booked: i64 =
        sqlx::query_scalar("select count(*) from credit_notes where stripe_refund_id = $1")
            .bind(&refund_id)
            .fetch_one(&mut **tx)
            .await
            .context("checking the refund's credit note")?;
    if booked > 0 || refund.amount <= 0 {
        return Ok(true);
    }
    let rate_bp: i64 = sqlx::query_scalar("select vat_rate_bp from invoices where id = $1")
        .bind(&invoice)
        .fetch_one(&mut **tx)
        .await
        .context("reading the invoice's VAT rate")?;
    let net = super::super::credit::net_of(refund.amount, rate_bp);
    let reason = format!("stripe_refund {refund_id}");
    let undeliverable = metadata
        .get("why")
        .is_some_and(|why| why.starts_with("undeliverable-"));
    let concerns = super::super::credit::Concerns {
        server_id: None,
        invoice_id: Some(&invoice),
    };
    let note = if undeliverable {
        super::super::credit::record(tx, &org, net, &reason, concerns, "stripe", now).await?
    } else {
        super::super::credit::issue(tx, &org, net, &reason, concerns, "stripe", now).await?
    };
    sqlx::query(
        "update credit_notes set remaining_cents = 0, invoice_id = $1, vat_cents = $2, \
         stripe_refund_id = $3, paid_out_via = 'stripe_refund', paid_out_ref = $3, \
         paid_out_cents = $4, paid_out_at = $5 where number = $6",
    )
    .bind(&invoice)
    .bind(refund.amount - net)
    .bind(&refund_id)
    .bind(refund.amount)
    // When Stripe made it, not when we heard (reconciliation may find a
    // refund days later).
    .bind(refund.created.min(now))
    .bind(&note)
    .execute(&mut **tx)
    .await
    .context("marking the refund paid out")?;
    tracing::info!(invoice = %number, cents = refund.amount, "Stripe refund booked as a credit note");
    Ok(true)
}

/// A dispute opened (or closed) on a payment: the invoice and the
/// organization are flagged for finance (cleared when the dispute closes).
pub(super) async fn disputed(
    tx: &mut Transaction<'_, Any>,
    dispute: &Dispute,
    kind: &str,
    now: i64,
) -> anyhow::Result<bool> {
    let Some(intent) = dispute.payment_intent.as_ref().map(|p| p.id().to_string()) else {
        return Ok(true);
    };
    let Some((invoice, org, number)) = invoice_of(tx, &intent).await? else {
        return Ok(false);
    };
    let open = kind == "charge.dispute.created";
    let status = dispute.status.as_str();
    // Told already (a redelivery, or reconciliation finding it as it is):
    // nothing changes, and finance's log gets no second line. A dispute
    // only moves forward: an opening that arrives after the close is old.
    let known = sqlx::query("select dispute_status, dispute_closed_at from invoices where id = $1")
        .bind(&invoice)
        .fetch_one(&mut **tx)
        .await
        .context("reading the invoice's dispute")?;
    let known_status: Option<String> = known.try_get("dispute_status")?;
    let closed_before = known
        .try_get::<Option<i64>, _>("dispute_closed_at")?
        .is_some();
    if known_status.as_deref() == Some(status) || (open && closed_before) {
        return Ok(true);
    }
    // Closed in our favour, the flag clears; lost, it stays: the bank took
    // the money back and finance must act on it.
    let cleared = !open && status != "lost";
    sqlx::query(
        "update invoices set disputed_at = case when $1 then null else coalesce(disputed_at, $2) end, \
         dispute_status = $3, dispute_closed_at = $4 where id = $5",
    )
    .bind(cleared)
    .bind(now)
    .bind(status)
    .bind((!open).then_some(now))
    .bind(&invoice)
    .execute(&mut **tx)
    .await
    .context("flagging the invoice")?;
    sqlx::query(
        "update organizations set disputed_at = \
         (select max(disputed_at) from invoices where organization_id = $1) where id = $1",
    )
    .bind(&org)
    .execute(&mut **tx)
    .await
    .context("flagging the organization")?;
    audit::record(
        &mut **tx,
        &audit::Entry::unattended(
            &org,
            "stripe",
            if open {
                "invoice.disputed"
            } else {
                "invoice.dispute_closed"
            },
            &format!("{number} {} {} {status}", dispute.id, dispute.amount),
            now,
        ),
    )
    .await?;
    Ok(true)
}

/// Job (`JobKind::StripeUndeliverable`): money arrived for an order we
/// could not deliver (sold out while
/// the customer paid, a second session of a paid order, a failed bank
/// debit). The subscription ends now, its payment (if any) is refunded in
/// full and the customer is told, in their language. Retried until Stripe
/// has done both.
pub async fn give_back(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    order_id: &OrderId,
    attempts: i64,
) -> Outcome {
    let result = give_back_inner(db, clock, client, order_id).await;
    Outcome::retried(result, clock.now(), attempts, 30, 30)
}

async fn give_back_inner(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    order_id: &OrderId,
) -> anyhow::Result<()> {
    let row = sqlx::query(
        "select organization_id, stripe_subscription_id, refund_id, failure from orders where id = $1",
    )
    .bind(order_id)
    .fetch_one(&db.pool)
    .await
    .context("reading the order")?;
    let org: OrganizationId = row.try_get("organization_id")?;
    let Some(subscription) = row.try_get::<Option<String>, _>("stripe_subscription_id")? else {
        return Ok(());
    };
    if row.try_get::<Option<String>, _>("refund_id")?.is_some() {
        return Ok(());
    }
    // A subscription that also runs a delivered server (a second session
    // of the same order) is never ended here.
    let serving: i64 =
        sqlx::query_scalar("select count(*) from servers where stripe_subscription_id = $1")
            .bind(&subscription)
            .fetch_one(&db.pool)
            .await
            .context("checking the subscription")?;
    if serving == 0 {
        cancel_now(client, &subscription, &format!("undeliverable-{order_id}")).await?;
    }
    // Stripe, not our mirror, says what was paid: the paid invoice's
    // event may not have arrived, and never carries its payments.
    let Some(intent) = first_payment_of(client, &subscription).await? else {
        let failure: Option<String> = row.try_get("failure")?;
        if failure.as_deref() == Some(domain::order::OrderFailure::PaymentFailed.as_str()) {
            // Nothing was paid (a failed debit): ending it, and voiding
            // the invoice nobody owes now, is all.
            return void_open_invoices(client, &subscription).await;
        }
        // A payment still on its way (a bank debit): look again later.
        anyhow::bail!("no paid invoice at Stripe yet");
    };
    let refund = refund_in_full(client, &intent, &format!("undeliverable-{order_id}")).await?;
    let now = clock.now();
    let mut tx = db.begin().await?;
    let marked = sqlx::query(
        "update orders set refund_id = $1, updated_at = $2 where id = $3 and refund_id is null",
    )
    .bind(&refund)
    .bind(now)
    .bind(order_id)
    .execute(&mut *tx)
    .await
    .context("recording the refund")?;
    if marked.rows_affected() == 1 {
        audit::record(
            &mut *tx,
            &audit::Entry::unattended(
                &org,
                "system",
                "order.refunded",
                &format!("{order_id} {refund}"),
                now,
            ),
        )
        .await?;
        super::super::dunning::notify(&mut tx, &org, now, |lang| refunded_mail(lang, order_id))
            .await?;
    }
    tx.commit().await.context("committing the refund")?;
    Ok(())
}

/// The open invoices of a subscription we ended undelivered are owed by
/// nobody: voided at Stripe (its `invoice.voided` voids our mirror).
async fn void_open_invoices(client: &StripeClient, subscription: &str) -> anyhow::Result<()> {
    let open = client
        .send(
            &ListInvoice::new()
                .subscription(subscription)
                .status(stripe_shared::InvoiceStatus::Open),
            None,
        )
        .await?;
    for invoice in open.data {
        let Some(id) = invoice.id else { continue };
        client
            .send(
                &VoidInvoiceInvoice::new(id.as_str()),
                Some(&Intent::new(format!("void-{id}"))),
            )
            .await?;
    }
    Ok(())
}

fn refunded_mail(lang: domain::Lang, order: &OrderId) -> (String, String) {
    let short: String = order.as_str().chars().take(8).collect();
    match lang {
        domain::Lang::Zh => (
            format!("订单 {short} 已全额退款"),
            format!("您好：\n\n很抱歉，您付款时该站点的最后一台服务器已被预订，或者付款在预留时间结束后才到账，我们无法交付订单 {short}。订阅已终止，款项已全额退回原支付方式（通常需要 5–10 个工作日到账）。\n\n我们网站首页的库存表会显示哪些站点现在有货。"),
        ),
        domain::Lang::En => (
            format!("Order {short} refunded in full"),
            format!("Hello,\n\nSorry: the last server at that site was taken while you paid, or the payment arrived after the hold ended, so we could not deliver order {short}. The subscription is ended and the payment has been refunded in full to the original payment method (usually 5–10 business days).\n\nThe stock table on our home page shows which sites have servers now."),
        ),
    }
}
