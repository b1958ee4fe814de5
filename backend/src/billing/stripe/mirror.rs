//! Mirroring Stripe's objects (as async-stripe types, in the current API
//! shape) into ours: checkouts confirm orders, invoices become invoices,
//! subscriptions move servers' renewal and cancellation dates.
//!
//! Each function answers whether it could be applied (`false`: something
//! it refers to is not known yet, the event is retried later) and queues
//! follow-up work at Stripe as jobs in the same transaction, never calling
//! Stripe itself.

use anyhow::Context;
use domain::server::EventKind;
use domain::{OrderId, OrganizationId, ServerId};
use sqlx::{Any, Row, Transaction};
use stripe_shared::{
    CheckoutSession, CheckoutSessionPaymentStatus, Invoice, InvoiceStatus, Subscription,
    SubscriptionStatus,
};

use crate::db::new_id;
use crate::jobs;
use crate::servers::record_event;
use crate::Db;

/// One customer's events are applied one at a time, so an invoice and the
/// checkout that links its subscription to a server never miss each other
/// (SQLite's immediate transactions are serial already).
async fn lock_customer(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
) -> anyhow::Result<()> {
    if db.backend == crate::db::Backend::Postgres {
        sqlx::query("select id from organizations where id = $1 for update")
            .bind(organization_id)
            .fetch_optional(&mut **tx)
            .await
            .context("locking the customer")?;
    }
    Ok(())
}

/// The order a Checkout Session pays for, with its customer locked and
/// the subscription the session created remembered on it; `None` for a
/// session that is not one of ours (a payment link, a manual session).
async fn session_order(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    session: &CheckoutSession,
) -> anyhow::Result<Option<(OrderId, Option<String>)>> {
    let Some(order_id) = session.client_reference_id.as_deref().map(OrderId::from) else {
        return Ok(None);
    };
    let org: Option<OrganizationId> =
        sqlx::query_scalar("select organization_id from orders where id = $1")
            .bind(&order_id)
            .fetch_optional(&mut **tx)
            .await
            .context("reading the order's organization")?;
    let Some(org) = org else {
        return Ok(None);
    };
    lock_customer(db, tx, &org).await?;
    let subscription = remember_subscription(tx, &order_id, session).await?;
    Ok(Some((order_id, subscription)))
}

/// A Checkout finished. Paid (or paid later, asynchronously): the order is
/// confirmed and the subscription linked. Not paid yet (a bank debit on its
/// way): only the subscription is remembered.
pub(super) async fn checkout(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    session: &CheckoutSession,
    now: i64,
) -> anyhow::Result<bool> {
    let Some((order_id, subscription)) = session_order(db, tx, session).await? else {
        return Ok(true);
    };
    let order_id = &order_id;
    let paid = matches!(
        session.payment_status,
        CheckoutSessionPaymentStatus::Paid | CheckoutSessionPaymentStatus::NoPaymentRequired
    );
    if !paid {
        // A bank debit on its way (days, for SEPA): the host stays the
        // customer's until it settles or fails, not until the checkout's
        // hold would have run out.
        crate::orders::holds::hold_while_settling(tx, order_id, now).await?;
        return Ok(true);
    }
    crate::orders::confirm_in(db, tx, order_id, now).await?;
    let state: String = sqlx::query_scalar("select state from orders where id = $1")
        .bind(order_id)
        .fetch_one(&mut **tx)
        .await
        .context("reading the order's state")?;
    // Confirmed by another session of the same order, or sold out while
    // the customer paid: the money goes back.
    let delivered_here: Option<String> = sqlx::query_scalar(
        "select id from servers where order_id = $1 and (stripe_subscription_id is null or stripe_subscription_id = $2)",
    )
    .bind(order_id)
    .bind(subscription.as_deref().unwrap_or(""))
    .fetch_optional(&mut **tx)
    .await
    .context("finding the order's server")?;
    if state == "failed" || delivered_here.is_none() {
        jobs::enqueue(tx, jobs::JobKind::StripeUndeliverable, order_id, now, now).await?;
        return Ok(true);
    }
    if let Some(sub) = &subscription {
        sqlx::query("update servers set stripe_subscription_id = $1 where order_id = $2")
            .bind(sub)
            .bind(order_id)
            .execute(&mut **tx)
            .await
            .context("linking the subscription")?;
        // Invoices of this subscription mirrored before the checkout was:
        // their lines now know their server, plan and site.
        sqlx::query(
            "update invoice_lines set server_id = (select id from servers where order_id = $1), \
             plan_id = (select plan_id from servers where order_id = $1), \
             site_code = (select site_code from servers where order_id = $1) \
             where server_id is null \
             and invoice_id in (select id from invoices where stripe_subscription_id = $2)",
        )
        .bind(order_id)
        .bind(sub)
        .execute(&mut **tx)
        .await
        .context("tying earlier invoice lines to the server")?;
    }
    Ok(true)
}

/// The subscription a Checkout created, on its order (whichever of the
/// session's events is applied first).
async fn remember_subscription(
    tx: &mut Transaction<'_, Any>,
    order_id: &OrderId,
    session: &CheckoutSession,
) -> anyhow::Result<Option<String>> {
    let subscription = session.subscription.as_ref().map(|s| s.id().to_string());
    if let Some(sub) = &subscription {
        sqlx::query("update orders set stripe_subscription_id = $1 where id = $2")
            .bind(sub)
            .bind(order_id)
            .execute(&mut **tx)
            .await
            .context("remembering the order's subscription")?;
    }
    Ok(subscription)
}

/// An asynchronous payment failed: nothing was delivered, the hold goes
/// back and the order says why; the subscription is ended at Stripe.
pub(super) async fn checkout_failed(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    session: &CheckoutSession,
    now: i64,
) -> anyhow::Result<bool> {
    let Some((order_id, _)) = session_order(db, tx, session).await? else {
        return Ok(true);
    };
    let order_id = &order_id;
    let failed = sqlx::query(
        "update orders set state = 'failed', failure = 'payment_failed', hold_expires_at = null, updated_at = $1 \
         where id = $2 and state in ('held', 'expired')",
    )
    .bind(now)
    .bind(order_id)
    .execute(&mut **tx)
    .await
    .context("failing the order")?;
    if failed.rows_affected() == 1 {
        crate::events::order(tx, order_id.as_str(), "failed", now).await?;
        crate::orders::holds::release_order_hold(db, tx, order_id, "payment failed", now).await?;
        jobs::enqueue(tx, jobs::JobKind::StripeUndeliverable, order_id, now, now).await?;
    }
    Ok(true)
}

/// The Checkout Session expired unpaid: the hold ends now rather than at
/// its own time (they are the same moment unless a clock drifted).
pub(super) async fn checkout_expired(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    session: &CheckoutSession,
    now: i64,
) -> anyhow::Result<bool> {
    let Some(order_id) = session.client_reference_id.as_deref().map(OrderId::from) else {
        return Ok(true);
    };
    let order_id = &order_id;
    // Only the order's own session ends its hold: one whose answer was
    // lost before the order learned it (the next attempt opened another)
    // expires harmlessly.
    let expired = sqlx::query(
        "update orders set state = 'expired', hold_expires_at = null, updated_at = $1 \
         where id = $2 and state = 'held' and (stripe_session_id is null or stripe_session_id = $3)",
    )
    .bind(now)
    .bind(order_id)
    .bind(session.id.as_str())
    .execute(&mut **tx)
    .await
    .context("expiring the order")?;
    if expired.rows_affected() == 1 {
        crate::events::order(tx, order_id.as_str(), "expired", now).await?;
        crate::orders::holds::release_order_hold(db, tx, order_id, "checkout expired", now).await?;
    }
    Ok(true)
}

fn rank(status: &str) -> i64 {
    match status {
        "draft" => 0,
        "open" => 1,
        _ => 2,
    }
}

/// Whether a mirrored invoice may move from `old` to `new`: forward only,
/// except that an uncollectible invoice can still be paid (Stripe allows
/// it, and the money did arrive) or voided.
fn moves(old: &str, new: &str) -> bool {
    if old == new {
        return true;
    }
    // Given up on, then paid after all or voided (Stripe allows both).
    if old == "uncollectible" && (new == "paid" || new == "void") {
        return true;
    }
    rank(new) >= rank(old) && rank(old) < 2
}

fn invoice_status(invoice: &Invoice, kind: &str) -> String {
    if kind == "invoice.paid" {
        return "paid".to_owned();
    }
    match &invoice.status {
        Some(InvoiceStatus::Draft) => "draft",
        Some(InvoiceStatus::Open) | None => "open",
        Some(InvoiceStatus::Paid) => "paid",
        Some(InvoiceStatus::Uncollectible) => "uncollectible",
        Some(InvoiceStatus::Void) => "void",
        // A status newer than this client: leave it open.
        Some(_) => "open",
    }
    .to_owned()
}

/// The subscription an invoice bills (current shape: under `parent`).
fn invoice_subscription(invoice: &Invoice) -> Option<String> {
    invoice
        .parent
        .as_ref()
        .and_then(|p| p.subscription_details.as_ref())
        .map(|d| d.subscription.id().to_string())
}

/// The VAT treatment Stripe applied, read back: VAT lines mean charged;
/// none means reverse charge for an EU business with a confirmed VAT ID,
/// otherwise a customer outside the EU.
async fn treatment(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    vat: i64,
) -> anyhow::Result<&'static str> {
    if vat > 0 {
        return Ok("charged");
    }
    let row = sqlx::query(
        "select country, vat_id_status from billing_profiles where organization_id = $1",
    )
    .bind(organization_id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the billing profile")?;
    let eu_business = match &row {
        Some(r) => {
            let country: String = r.try_get("country")?;
            let status: Option<String> = r.try_get("vat_id_status")?;
            // Only a VAT ID VIES confirmed makes reverse charge.
            domain::order::country(&country).is_some_and(|c| c.eu)
                && status.as_deref() == Some("valid")
        }
        None => false,
    };
    Ok(if eu_business {
        "reverse_charge"
    } else {
        "outside_eu"
    })
}

/// The VAT rate an invoice charged, from its tax lines: the rate of the
/// Tax Rate they name (ours, made by `stripe sync`; the one taxing the most
/// if there are several). Only a Tax Rate we never made (one added in the
/// Dashboard) falls back to VAT over net, which rounding can make a basis
/// point off.
async fn vat_rate(
    tx: &mut Transaction<'_, Any>,
    object: &Invoice,
    vat: i64,
    subtotal: i64,
) -> anyhow::Result<i64> {
    let taxed = object
        .total_taxes
        .iter()
        .flatten()
        .filter(|t| t.amount > 0)
        .max_by_key(|t| t.taxable_amount.unwrap_or(0));
    let named = taxed
        .and_then(|t| t.tax_rate_details.as_ref())
        .map(|d| d.tax_rate.id().to_string());
    if let Some(tax_rate) = named {
        let known: Option<i64> =
            sqlx::query_scalar("select rate_bp from stripe_tax_rates where tax_rate_id = $1")
                .bind(&tax_rate)
                .fetch_optional(&mut **tx)
                .await
                .context("reading the tax rate")?;
        if let Some(rate_bp) = known {
            return Ok(rate_bp);
        }
        tracing::warn!(%tax_rate, "an invoice taxed by a Tax Rate we did not make");
    }
    Ok(if subtotal > 0 && vat > 0 {
        (vat * 10_000 + subtotal / 2) / subtotal
    } else {
        0
    })
}

/// The event is about an object that is not ours: another product sharing
/// the Stripe account. Told apart from a late one (retried), it is done
/// with at once, its reason kept on the event.
#[derive(Debug, thiserror::Error)]
#[error("not ours: {0}")]
pub(crate) struct NotOurs(pub String);

/// Two events of one subscription carry the same second: which came last
/// at Stripe cannot be told from them, so the subscription is fetched and
/// mirrored as Stripe has it now (`JobKind::StripeSubscription`).
#[derive(Debug, thiserror::Error)]
#[error("another event of subscription {0} has the same second")]
pub(crate) struct AskStripe(pub String);

/// Something an event carries that only an operator can decide on (the
/// event is held, as one in another API version is).
#[derive(Debug, thiserror::Error)]
#[error("held for an operator: {0}")]
pub(crate) struct HeldForOperator(pub String);

/// Mirrors a Stripe invoice into our invoices table.
pub(super) async fn invoice(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    object: &Invoice,
    kind: &str,
    created: i64,
    now: i64,
) -> anyhow::Result<bool> {
    let stripe_id = object
        .id
        .as_ref()
        .context("an invoice without an id")?
        .to_string();
    if object.currency != stripe_types::Currency::EUR {
        // Our books are in euros: an invoice in another currency (made in
        // the Dashboard, or by a misconfigured price) waits for an operator.
        return Err(anyhow::Error::new(HeldForOperator(format!(
            "currency {}",
            object.currency
        ))));
    }
    let status = invoice_status(object, kind);
    if status == "draft" {
        // Not an invoice yet: no number, no PDF, and Stripe may still
        // change it. Its `invoice.finalized` brings it.
        return Ok(true);
    }
    let Some(customer) = object.customer.as_ref().map(|c| c.id().to_string()) else {
        return Ok(true);
    };
    let org: Option<OrganizationId> =
        sqlx::query_scalar("select id from organizations where stripe_customer_id = $1")
            .bind(&customer)
            .fetch_optional(&mut **tx)
            .await
            .context("finding the customer")?;
    let Some(org) = org else {
        // Our customers are stored before any checkout can use them, so an
        // invoice of one we do not know is not late: it is not ours.
        return Err(anyhow::Error::new(NotOurs(format!(
            "invoice {stripe_id} of customer {customer}, which is none of ours"
        ))));
    };
    lock_customer(db, tx, &org).await?;
    let subtotal = object.subtotal;
    let total = object.total;
    let vat: i64 = object
        .total_taxes
        .as_ref()
        .map_or(0, |taxes| taxes.iter().map(|t| t.amount).sum());
    let amount_due = object.amount_remaining;
    let rate_bp = vat_rate(tx, object, vat, subtotal).await?;
    let paid_at = object
        .status_transitions
        .paid_at
        .or((status == "paid").then_some(created));
    // A failed payment makes the invoice due now, so dunning starts.
    let due_at = if kind == "invoice.payment_failed" {
        created
    } else {
        object.due_date.unwrap_or(object.created + 86_400)
    };
    let existing = sqlx::query("select id, status from invoices where stripe_invoice_id = $1")
        .bind(&stripe_id)
        .fetch_optional(&mut **tx)
        .await
        .context("finding the mirrored invoice")?;
    // Only the news of a payment may restore suspended servers: the same
    // paid invoice applied again (a redelivery, reconciliation) is none.
    let mut became_paid = status == "paid";
    match existing {
        Some(row) => {
            let id: String = row.try_get("id")?;
            let old: String = row.try_get("status")?;
            if !moves(&old, &status) {
                // Older news than what we have: keep ours, except that a
                // failed payment still makes the invoice due from then (it
                // may arrive after Stripe gave the invoice up).
                if kind == "invoice.payment_failed" {
                    sqlx::query(
                        "update invoices set due_at = $1, updated_at = $2 where id = $3 and due_at > $1",
                    )
                    .bind(due_at)
                    .bind(now)
                    .bind(&id)
                    .execute(&mut **tx)
                    .await
                    .context("dating the failed payment")?;
                }
                return Ok(true);
            }
            became_paid &= old != "paid";
            sqlx::query(
                "update invoices set status = $1, paid_at = coalesce($2, paid_at), \
                 due_at = case when $3 < due_at then $3 else due_at end, \
                 amount_due_cents = $4, hosted_url = coalesce($5, hosted_url), pdf_url = coalesce($6, pdf_url), \
                 number = coalesce($7, number), updated_at = $8, credit_cents = $10 where id = $9",
            )
            .bind(&status)
            .bind(paid_at)
            .bind(due_at)
            .bind(if status == "paid" { 0 } else { amount_due })
            .bind(object.hosted_invoice_url.as_deref())
            .bind(object.invoice_pdf.as_deref())
            .bind(object.number.as_deref())
            .bind(now)
            .bind(&id)
            .bind(balance_applied(object))
            .execute(&mut **tx)
            .await
            .context("updating the mirrored invoice")?;
            if old != status {
                crate::events::invoice(tx, &id, now).await?;
            }
        }
        None => {
            insert_invoice(
                tx,
                object,
                &org,
                &stripe_id,
                &status,
                Mirrored {
                    now,
                    vat,
                    rate_bp,
                    total,
                    amount_due,
                    due_at,
                    paid_at,
                },
            )
            .await?;
        }
    }
    if status == "paid" {
        if object.amount_paid > 0 {
            ask_for_payment(tx, &stripe_id, now).await?;
        }
        if became_paid {
            super::super::dunning::restore_if_settled(tx, &org, now).await?;
        }
    }
    Ok(true)
}

/// A paid invoice whose payment intent we don't know (Stripe's invoices
/// never carry their payments): one job asks Stripe for it, unless
/// `invoice_payment.paid` told us already. Reconciliation asks again for
/// any still missing.
async fn ask_for_payment(
    tx: &mut Transaction<'_, Any>,
    stripe_id: &str,
    now: i64,
) -> anyhow::Result<()> {
    let wanted: Option<String> = sqlx::query_scalar(
        "select id from invoices where stripe_invoice_id = $1 and stripe_payment_intent is null \
         and not exists (select 1 from jobs where kind = $2 and subject_id = $1)",
    )
    .bind(stripe_id)
    .bind(jobs::JobKind::StripeInvoicePayment.as_str())
    .fetch_optional(&mut **tx)
    .await
    .context("checking the invoice's payment")?;
    if wanted.is_some() {
        jobs::enqueue(tx, jobs::JobKind::StripeInvoicePayment, stripe_id, now, now).await?;
    }
    Ok(())
}

/// The customer's credit (a negative Stripe balance: our SLA credits)
/// Stripe took off this invoice: what finance sees as its credit.
fn balance_applied(object: &Invoice) -> i64 {
    object
        .ending_balance
        .map_or(0, |end| (end - object.starting_balance).max(0))
}

struct Mirrored {
    now: i64,
    vat: i64,
    rate_bp: i64,
    total: i64,
    amount_due: i64,
    due_at: i64,
    paid_at: Option<i64>,
}

async fn insert_invoice(
    tx: &mut Transaction<'_, Any>,
    object: &Invoice,
    org: &OrganizationId,
    stripe_id: &str,
    status: &str,
    m: Mirrored,
) -> anyhow::Result<()> {
    let id = new_id();
    let subscription = invoice_subscription(object);
    // The server (and so plan and site) the invoice is for, when its
    // checkout has been applied already.
    let found = match &subscription {
        Some(sub) => sqlx::query(
            "select id, plan_id, site_code from servers where stripe_subscription_id = $1",
        )
        .bind(sub)
        .fetch_optional(&mut **tx)
        .await
        .context("finding the server")?,
        None => None,
    };
    let (server, plan, site): (Option<ServerId>, Option<String>, Option<String>) = match &found {
        Some(r) => (
            r.try_get("id")?,
            r.try_get("plan_id")?,
            r.try_get("site_code")?,
        ),
        None => (None, None, None),
    };
    let treatment = treatment(tx, org, m.vat).await?;
    let address = object.customer_address.as_ref();
    let address_text = address
        .map(|a| {
            [
                a.line1.as_deref(),
                a.line2.as_deref(),
                a.postal_code.as_deref(),
                a.city.as_deref(),
            ]
            .into_iter()
            .flatten()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(", ")
        })
        .unwrap_or_default();
    let country = address.and_then(|a| a.country.clone()).unwrap_or_default();
    let vat_id = object
        .customer_tax_ids
        .as_ref()
        .and_then(|ids| ids.first())
        .and_then(|t| t.value.clone());
    let customer_name = object
        .customer_name
        .clone()
        .or_else(|| object.customer.as_ref().map(|c| c.id().to_string()))
        .unwrap_or_default();
    sqlx::query(
        "insert into invoices (id, organization_id, number, status, currency, period_start, period_end, \
         issued_at, due_at, paid_at, subtotal_cents, vat_treatment, vat_rate_bp, vat_cents, total_cents, \
         credit_cents, amount_due_cents, customer_name, customer_address, customer_country, customer_vat_id, \
         billing_method, payment_reference, stripe_invoice_id, hosted_url, pdf_url, created_at, updated_at, \
         stripe_subscription_id) \
         values ($1, $2, $3, $4, 'EUR', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $25, $15, $16, $22, $23, $24, \
         'stripe', $17, $17, $18, $19, $20, $20, $21)",
    )
    .bind(&id)
    .bind(org)
    .bind(object.number.as_deref())
    .bind(status)
    // The service period is on the lines (the invoice's own period is the
    // one it bills for in arrears, empty for a subscription's first).
    .bind(
        object
            .lines
            .data
            .iter()
            .map(|l| l.period.start)
            .min()
            .unwrap_or(object.period_start),
    )
    .bind(
        object
            .lines
            .data
            .iter()
            .map(|l| l.period.end)
            .max()
            .unwrap_or(object.period_end),
    )
    .bind(object.created)
    .bind(m.due_at)
    .bind(m.paid_at)
    .bind(object.subtotal)
    .bind(treatment)
    .bind(m.rate_bp)
    .bind(m.vat)
    .bind(m.total)
    .bind(if status == "paid" { 0 } else { m.amount_due })
    .bind(&customer_name)
    .bind(stripe_id)
    .bind(object.hosted_invoice_url.as_deref())
    .bind(object.invoice_pdf.as_deref())
    .bind(m.now)
    .bind(subscription.as_deref())
    .bind(&address_text)
    .bind(&country)
    .bind(vat_id.as_deref())
    .bind(balance_applied(object))
    .execute(&mut **tx)
    .await
    .context("mirroring the invoice")?;
    crate::events::invoice(tx, &id, m.now).await?;
    for (i, line) in object.lines.data.iter().enumerate() {
        let text = line.description.clone().unwrap_or_default();
        // Without the server yet, the plan still shows in the price's
        // lookup key (`plan:g-ada`), kept in our synced prices.
        let price = line
            .pricing
            .as_ref()
            .and_then(|p| p.price_details.as_ref())
            .map(|d| d.price.id().to_string());
        let line_plan = match (&plan, price) {
            (Some(plan), _) => Some(plan.clone()),
            (None, Some(price)) => {
                let key: Option<String> =
                    sqlx::query_scalar("select lookup_key from stripe_prices where price_id = $1")
                        .bind(&price)
                        .fetch_optional(&mut **tx)
                        .await
                        .context("reading a price's key")?;
                key.and_then(|k| k.strip_prefix("plan:").map(str::to_owned))
            }
            (None, None) => None,
        };
        sqlx::query(
            "insert into invoice_lines (id, invoice_id, position, server_id, plan_id, site_code, kind, \
             description_zh, description_en, period_start, period_end, amount_cents) \
             values ($1, $2, $3, $4, $9, $10, 'stripe', $5, $5, $6, $7, $8)",
        )
        .bind(new_id())
        .bind(&id)
        .bind(i as i64 + 1)
        .bind(&server)
        .bind(&text)
        .bind(line.period.start)
        .bind(line.period.end)
        .bind(line.amount)
        .bind(line_plan)
        .bind(&site)
        .execute(&mut **tx)
        .await
        .context("mirroring an invoice line")?;
    }
    Ok(())
}

/// The end of the subscription's current period (current shape: on its
/// items; all items of one subscription share it).
fn period_end(subscription: &Subscription) -> Option<i64> {
    subscription
        .items
        .data
        .iter()
        .map(|item| item.current_period_end)
        .max()
}

/// Mirrors a subscription onto its server: the renewal date, and any end
/// decided at Stripe (the Billing Portal, the Dashboard, or Stripe giving
/// up after failed retries), which runs our own cancellation: the server
/// ends at that date, is wiped and its host returns to stock. An end taken
/// back at Stripe is taken back here too (Stripe bills on).
///
/// `fetched`: the object was read from Stripe just now (reconciliation, or
/// a same-second tie), so it is the newest state whatever `created` says.
/// The server a subscription (or the order in its metadata) belongs to.
async fn subscription_server(
    tx: &mut Transaction<'_, Any>,
    subscription: &str,
    order: &str,
) -> anyhow::Result<Option<sqlx::any::AnyRow>> {
    sqlx::query(
        "select id, organization_id, name, stripe_event_at, cancel_at, cancelled_at from servers \
         where stripe_subscription_id = $1 or (order_id = $2 and $2 <> '')",
    )
    .bind(subscription)
    .bind(order)
    .fetch_optional(&mut **tx)
    .await
    .context("finding the subscription's server")
}

pub(super) async fn subscription(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    object: &Subscription,
    created: i64,
    now: i64,
    fetched: bool,
) -> anyhow::Result<bool> {
    let sub = object.id.to_string();
    let order = object.metadata.get("order_id").cloned().unwrap_or_default();
    let mut server = subscription_server(tx, &sub, &order).await?;
    // Two events of one subscription (or an event and a refresh) on two
    // PostgreSQL workers must not both compare against the same
    // `stripe_event_at`: the older would overwrite the newer and a
    // same-second tie would go unseen. The customer is locked, then the row
    // read again (SQLite's transactions are serial already).
    if let Some(found) = server
        .as_ref()
        .filter(|_| db.backend == crate::db::Backend::Postgres)
    {
        let org: OrganizationId = found.try_get("organization_id")?;
        lock_customer(db, tx, &org).await?;
        server = subscription_server(tx, &sub, &order).await?;
    }
    let Some(server) = server else {
        // An order that was never delivered has no server: nothing to
        // mirror. One whose checkout is not applied yet is late; a
        // subscription naming no order of ours is not ours.
        let state: Option<String> = sqlx::query_scalar("select state from orders where id = $1")
            .bind(&order)
            .fetch_optional(&mut **tx)
            .await
            .context("reading the subscription's order")?;
        return match state.as_deref() {
            Some("failed" | "expired") => Ok(true),
            Some(_) => Ok(false),
            None => Err(anyhow::Error::new(NotOurs(format!(
                "subscription {sub} names no order of ours"
            )))),
        };
    };
    let id: ServerId = server.try_get("id")?;
    let last: Option<i64> = server.try_get("stripe_event_at")?;
    if last.is_some_and(|at| at > created) && !fetched {
        return Ok(true);
    }
    if last == Some(created) && !fetched {
        return Err(anyhow::Error::new(AskStripe(sub)));
    }
    let ended = object.status == SubscriptionStatus::Canceled || object.ended_at.is_some();
    // Stripe gave up after failed retries: the dunning mail promised
    // suspension with the data kept until the term ends, not a wipe now.
    let gave_up = ended
        && object
            .cancellation_details
            .as_ref()
            .and_then(|d| d.reason.as_ref())
            == Some(&stripe_shared::CancellationDetailsReason::PaymentFailed);
    let stripe_end = if gave_up {
        Some(period_end(object).unwrap_or(now).max(now))
    } else if ended {
        Some(object.ended_at.unwrap_or(now).min(now))
    } else {
        object.cancel_at.or(object
            .cancel_at_period_end
            .then(|| period_end(object))
            .flatten())
    };
    sqlx::query(
        "update servers set stripe_subscription_id = $1, renews_at = coalesce($2, renews_at), \
         cancel_at_period_end = $3, stripe_event_at = $4, updated_at = $5, billing_anchor = $6 \
         where id = $7",
    )
    .bind(&sub)
    .bind(if ended { None } else { period_end(object) })
    .bind(i64::from(object.cancel_at_period_end || ended))
    .bind(last.map_or(created, |last| last.max(created)))
    .bind(now)
    .bind(object.billing_cycle_anchor)
    .bind(&id)
    .execute(&mut **tx)
    .await
    .context("mirroring the subscription")?;
    let ours: Option<i64> = server.try_get("cancel_at")?;
    let cancelled: Option<i64> = server.try_get("cancelled_at")?;
    // A customer's own decision made after this event was rendered wins
    // over it (a revoke whose echo from Stripe has not arrived yet).
    let decided: Option<i64> = sqlx::query_scalar(
        "select max(at) from server_events where server_id = $1 \
         and kind in ('cancel.scheduled', 'cancel.revoked')",
    )
    .bind(&id)
    .fetch_one(&mut **tx)
    .await
    .context("reading the last cancellation decision")?;
    let newer = decided.is_none_or(|at| at <= created) || ended;
    let org: OrganizationId = server.try_get("organization_id")?;
    let name: String = server.try_get("name")?;
    if let (Some(at), None, true) = (stripe_end, cancelled, newer) {
        if ours.is_none_or(|ours| at < ours) {
            sqlx::query(
                "update servers set cancel_at = $1, cancel_reason = coalesce(cancel_reason, 'stripe'), \
                 updated_at = $2 where id = $3 and cancelled_at is null",
            )
            .bind(at)
            .bind(now)
            .bind(&id)
            .execute(&mut **tx)
            .await
            .context("scheduling the end Stripe decided")?;
            let date = domain::time::format_date(at);
            let detail = format!("{name} {date} {sub}");
            stripe_decided(
                tx,
                &id,
                &org,
                EventKind::CancelScheduled,
                &date,
                &detail,
                now,
            )
            .await?;
            let why = match (gave_up, ended) {
                (true, _) => StripeEnd::PaymentsFailed,
                (false, true) => StripeEnd::Now,
                (false, false) => StripeEnd::AtDate,
            };
            super::super::dunning::notify(tx, &org, now, |lang| {
                ended_at_stripe_mail(lang, &name, at, why)
            })
            .await?;
        }
    }
    if gave_up {
        super::super::dunning::suspend_now(tx, &id, now).await?;
    }
    // Taken back at Stripe (the Billing Portal's "don't cancel"): Stripe
    // bills on, so the server stays too.
    if let (None, false, None, Some(_), true) = (stripe_end, ended, cancelled, ours, newer) {
        let revoked = sqlx::query(
            "update servers set cancel_at = null, cancel_reason = null, updated_at = $1 \
             where id = $2 and cancelled_at is null and cancel_at > $1",
        )
        .bind(now)
        .bind(&id)
        .execute(&mut **tx)
        .await
        .context("taking back the end Stripe no longer has")?;
        if revoked.rows_affected() == 1 {
            let detail = format!("{name} {sub}");
            stripe_decided(tx, &id, &org, EventKind::CancelRevoked, "", &detail, now).await?;
        }
    }
    if ended {
        let recorded: i64 = sqlx::query_scalar(
            "select count(*) from server_events where server_id = $1 and kind = 'billing.subscription_ended'",
        )
        .bind(&id)
        .fetch_one(&mut **tx)
        .await
        .context("reading the server's history")?;
        if recorded == 0 {
            record_event(tx, &id, EventKind::BillingSubscriptionEnded, &sub, now).await?;
        }
    }
    Ok(true)
}

/// A cancellation decision Stripe made: on the server's history
/// (`kind`, `event_detail`) and in the audit log as `server.{kind}` by
/// `stripe`.
async fn stripe_decided(
    tx: &mut Transaction<'_, Any>,
    server_id: &ServerId,
    organization_id: &OrganizationId,
    kind: EventKind,
    event_detail: &str,
    audit_detail: &str,
    now: i64,
) -> anyhow::Result<()> {
    record_event(tx, server_id, kind, event_detail, now).await?;
    let action = format!("server.{}", kind.as_str().replace('.', "_"));
    crate::audit::record(
        &mut **tx,
        &crate::audit::Entry::unattended(organization_id, "stripe", &action, audit_detail, now),
    )
    .await
}

/// How Stripe ended a subscription, for the mail that says so.
#[derive(Clone, Copy)]
enum StripeEnd {
    /// Ended now (the Billing Portal, the Dashboard).
    Now,
    /// Set to end at a date.
    AtDate,
    /// Stripe gave up after failed payments: suspended until the date.
    PaymentsFailed,
}

fn ended_at_stripe_mail(
    lang: domain::Lang,
    server: &str,
    at: i64,
    why: StripeEnd,
) -> (String, String) {
    let date = domain::time::format_date(at);
    match (lang, why) {
        (domain::Lang::Zh, StripeEnd::PaymentsFailed) => (
            format!("服务器 {server} 已暂停，将于 {date} 终止"),
            format!("您好：\n\n多次扣款失败后，Stripe 已终止服务器 {server} 的订阅。服务器已暂停（网络和控制台关闭），数据保留到 {date}，届时服务器终止并擦除数据。\n\n在此之前支付未付发票，服务器即恢复运行至该日期。"),
        ),
        (domain::Lang::En, StripeEnd::PaymentsFailed) => (
            format!("Server {server} is suspended and ends on {date}"),
            format!("Hello,\n\nAfter repeated failed payments, Stripe ended the subscription of server {server}. The server is suspended (network and console off); its data is kept until {date}, when the server ends and its data is wiped.\n\nPay the open invoice before then and the server runs again until that date."),
        ),
        (domain::Lang::Zh, StripeEnd::Now) => (
            format!("服务器 {server} 的订阅已终止"),
            format!("您好：\n\n服务器 {server} 的 Stripe 订阅已终止（在账单门户或因多次扣款失败），服务器随之终止：数据将被擦除，硬件回到库存。\n\n如非您本意，请在门户中重新下单或联系我们。"),
        ),
        (domain::Lang::Zh, StripeEnd::AtDate) => (
            format!("服务器 {server} 将于 {date} 终止"),
            format!("您好：\n\n服务器 {server} 的订阅已在 Stripe 账单门户中设为到期终止，服务器将于 {date} 终止并擦除数据。\n\n在此日期前，您可以在门户的服务器页面撤销。"),
        ),
        (domain::Lang::En, StripeEnd::Now) => (
            format!("The subscription of server {server} has ended"),
            format!("Hello,\n\nThe Stripe subscription of server {server} has ended (in the billing portal, or after repeated failed payments), so the server ends with it: its data will be wiped and its hardware returns to stock.\n\nIf you did not mean this, order again in the portal or contact us."),
        ),
        (domain::Lang::En, StripeEnd::AtDate) => (
            format!("Server {server} ends on {date}"),
            format!("Hello,\n\nThe subscription of server {server} was set to end in Stripe's billing portal: the server ends on {date} and its data will be wiped.\n\nUntil then you can revoke this on the server's page in the portal."),
        ),
    }
}
