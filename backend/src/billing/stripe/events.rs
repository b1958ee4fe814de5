//! Stripe webhook events. Receiving stores the event and queues a job in
//! one transaction, keyed by the event id, so Stripe gets its 2xx at once
//! and a redelivered event is recognised and dropped. Applying mirrors the
//! object it carries and marks the event processed in the same transaction.
//!
//! Order does not matter: invoices only move forward (draft → open →
//! paid/void/uncollectible, never back), a subscription keeps the time of
//! the newest event applied and ignores older ones, and an event whose
//! order or customer we don't know yet is retried later.

use anyhow::Context;
use serde_json::Value;
use sqlx::{Any, Row, Transaction};

use crate::db::new_id;
use crate::jobs::{self, Outcome};
use crate::servers::record_event;
use crate::{Clock, Db};

/// The job kind that applies a stored event.
pub const APPLY: &str = "stripe_event";

#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    Queued,
    /// Stripe sent it before; nothing more to do.
    Duplicate,
}

/// Stores a verified event and queues it for applying.
pub async fn receive(db: &Db, clock: &Clock, body: &[u8]) -> anyhow::Result<Received> {
    let event: Value = serde_json::from_slice(body).context("parsing the event")?;
    let id = event["id"].as_str().context("event without id")?;
    let kind = event["type"].as_str().context("event without type")?;
    let created = event["created"].as_i64().unwrap_or(0);
    let now = clock.now();
    let mut tx = db.begin().await?;
    let stored = sqlx::query(
        "insert into stripe_events (id, event_type, created, received_at, payload) \
         values ($1, $2, $3, $4, $5) on conflict (id) do nothing",
    )
    .bind(id)
    .bind(kind)
    .bind(created)
    .bind(now)
    .bind(String::from_utf8_lossy(body).into_owned())
    .execute(&mut *tx)
    .await
    .context("storing the event")?;
    if stored.rows_affected() == 0 {
        return Ok(Received::Duplicate);
    }
    jobs::enqueue(&mut tx, APPLY, id, now, now).await?;
    tx.commit().await.context("committing the event")?;
    Ok(Received::Queued)
}

/// Applies one stored event (the job's subject).
pub async fn apply(db: &Db, clock: &Clock, event_id: &str, attempts: i64) -> Outcome {
    match apply_inner(db, clock, event_id).await {
        Ok(true) => Outcome::Done,
        // Something it refers to isn't known yet (events out of order).
        Ok(false) if attempts < 20 => Outcome::RetryAt(
            clock.now() + 5 * attempts,
            "waiting for related objects".into(),
        ),
        Ok(false) => Outcome::Dead("related objects never appeared".into()),
        Err(error) => Outcome::RetryAt(clock.now() + 10 * attempts, format!("{error:#}")),
    }
}

async fn apply_inner(db: &Db, clock: &Clock, event_id: &str) -> anyhow::Result<bool> {
    let row = sqlx::query(
        "select event_type, created, payload, processed_at from stripe_events where id = $1",
    )
    .bind(event_id)
    .fetch_one(&db.pool)
    .await
    .context("reading the event")?;
    if row.try_get::<Option<i64>, _>("processed_at")?.is_some() {
        return Ok(true);
    }
    let kind: String = row.try_get("event_type")?;
    let created: i64 = row.try_get("created")?;
    let payload: String = row.try_get("payload")?;
    let event: Value = serde_json::from_str(&payload).context("parsing the stored event")?;
    let object = &event["data"]["object"];
    let now = clock.now();
    let mut tx = db.begin().await?;
    let applied = match kind.as_str() {
        "checkout.session.completed" => checkout_completed(db, &mut tx, object, now).await?,
        "invoice.finalized"
        | "invoice.paid"
        | "invoice.payment_failed"
        | "invoice.voided"
        | "invoice.marked_uncollectible"
        | "invoice.updated" => invoice(db, &mut tx, object, &kind, created, now).await?,
        "customer.subscription.updated"
        | "customer.subscription.deleted"
        | "customer.subscription.created" => {
            subscription(&mut tx, object, &kind, created, now).await?
        }
        // Other events are recorded and otherwise ignored.
        _ => true,
    };
    if !applied {
        return Ok(false);
    }
    sqlx::query(
        "update stripe_events set processed_at = $1 where id = $2 and processed_at is null",
    )
    .bind(now)
    .bind(event_id)
    .execute(&mut *tx)
    .await
    .context("marking the event processed")?;
    tx.commit().await.context("committing the event")?;
    Ok(true)
}

/// Applies an object fetched from Stripe (by the reconcile job) as if its
/// event had arrived now; answers whether it could be applied.
pub(crate) async fn apply_object(
    db: &Db,
    clock: &Clock,
    kind: &str,
    object: &Value,
) -> anyhow::Result<bool> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let applied = match kind {
        "checkout.session.completed" => checkout_completed(db, &mut tx, object, now).await?,
        "invoice.updated" => invoice(db, &mut tx, object, kind, now, now).await?,
        _ => subscription(&mut tx, object, kind, now, now).await?,
    };
    tx.commit()
        .await
        .context("committing a reconciled object")?;
    Ok(applied)
}

/// One customer's events are applied one at a time, so an invoice and the
/// checkout that links its subscription to a server never miss each other
/// (SQLite's immediate transactions are serial already).
async fn lock_customer(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    organization_id: &str,
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

/// Payment made in Checkout: the order is confirmed (host allocated,
/// server created, provisioning queued) and the subscription linked.
async fn checkout_completed(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    session: &Value,
    now: i64,
) -> anyhow::Result<bool> {
    let Some(order_id) = session["client_reference_id"].as_str() else {
        return Ok(true);
    };
    let org: Option<String> =
        sqlx::query_scalar("select organization_id from orders where id = $1")
            .bind(order_id)
            .fetch_optional(&mut **tx)
            .await
            .context("reading the order's organization")?;
    if let Some(org) = &org {
        lock_customer(db, tx, org).await?;
    }
    crate::orders::confirm_in(db, tx, order_id, now).await?;
    if let Some(subscription) = session["subscription"].as_str() {
        sqlx::query("update servers set stripe_subscription_id = $1 where order_id = $2")
            .bind(subscription)
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
        .bind(subscription)
        .execute(&mut **tx)
        .await
        .context("tying earlier invoice lines to the server")?;
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

/// Mirrors a Stripe invoice into our invoices table.
async fn invoice(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    object: &Value,
    kind: &str,
    created: i64,
    now: i64,
) -> anyhow::Result<bool> {
    let stripe_id = object["id"].as_str().context("invoice without id")?;
    let customer = object["customer"].as_str().unwrap_or_default();
    let org: Option<String> =
        sqlx::query_scalar("select id from organizations where stripe_customer_id = $1")
            .bind(customer)
            .fetch_optional(&mut **tx)
            .await
            .context("finding the customer")?;
    let Some(org) = org else {
        return Ok(false);
    };
    lock_customer(db, tx, &org).await?;
    let mut status = object["status"].as_str().unwrap_or("open").to_owned();
    if kind == "invoice.paid" {
        status = "paid".into();
    }
    let subtotal = object["subtotal"].as_i64().unwrap_or(0);
    let total = object["total"].as_i64().unwrap_or(subtotal);
    let vat = object["tax"].as_i64().unwrap_or(total - subtotal);
    let amount_due = object["amount_due"].as_i64().unwrap_or(total);
    let rate_bp = if subtotal > 0 {
        (vat * 10_000 + subtotal / 2) / subtotal
    } else {
        0
    };
    let treatment = if vat > 0 { "charged" } else { "outside_eu" };
    let paid_at = object["status_transitions"]["paid_at"]
        .as_i64()
        .or((status == "paid").then_some(created));
    // A failed payment makes the invoice due now, so dunning starts.
    let due_at = if kind == "invoice.payment_failed" {
        created
    } else {
        object["due_date"].as_i64().unwrap_or(created + 86_400)
    };
    let existing = sqlx::query("select id, status from invoices where stripe_invoice_id = $1")
        .bind(stripe_id)
        .fetch_optional(&mut **tx)
        .await
        .context("finding the mirrored invoice")?;
    match existing {
        Some(row) => {
            let id: String = row.try_get("id")?;
            let old: String = row.try_get("status")?;
            if rank(&status) < rank(&old) || (rank(&old) == 2 && status != old) {
                // Older news than what we have: keep ours.
                return Ok(true);
            }
            sqlx::query(
                "update invoices set status = $1, paid_at = coalesce($2, paid_at), due_at = least_due($3, due_at), \
                 amount_due_cents = $4, hosted_url = coalesce($5, hosted_url), pdf_url = coalesce($6, pdf_url), \
                 number = coalesce($7, number), updated_at = $8 where id = $9"
                    .replace("least_due($3, due_at)", "case when $3 < due_at then $3 else due_at end")
                    .as_str(),
            )
            .bind(&status)
            .bind(paid_at)
            .bind(due_at)
            .bind(if status == "paid" { 0 } else { amount_due })
            .bind(object["hosted_invoice_url"].as_str())
            .bind(object["invoice_pdf"].as_str())
            .bind(object["number"].as_str())
            .bind(now)
            .bind(&id)
            .execute(&mut **tx)
            .await
            .context("updating the mirrored invoice")?;
        }
        None => {
            let id = new_id();
            let subscription = object["subscription"].as_str();
            // The server (and so plan and site) the invoice is for, when
            // its checkout has been applied already.
            let found = match subscription {
                Some(sub) => sqlx::query(
                    "select id, plan_id, site_code from servers where stripe_subscription_id = $1",
                )
                .bind(sub)
                .fetch_optional(&mut **tx)
                .await
                .context("finding the server")?,
                None => None,
            };
            let (server, plan, site): (Option<String>, Option<String>, Option<String>) =
                match &found {
                    Some(r) => (
                        r.try_get("id")?,
                        r.try_get("plan_id")?,
                        r.try_get("site_code")?,
                    ),
                    None => (None, None, None),
                };
            sqlx::query(
                "insert into invoices (id, organization_id, number, status, currency, period_start, period_end, \
                 issued_at, due_at, paid_at, subtotal_cents, vat_treatment, vat_rate_bp, vat_cents, total_cents, \
                 credit_cents, amount_due_cents, customer_name, customer_address, customer_country, customer_vat_id, \
                 billing_method, payment_reference, stripe_invoice_id, hosted_url, pdf_url, created_at, updated_at, \
                 stripe_subscription_id) \
                 values ($1, $2, $3, $4, 'EUR', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 0, $15, $16, '', '', null, \
                 'stripe', $17, $17, $18, $19, $20, $20, $21)",
            )
            .bind(&id)
            .bind(&org)
            .bind(object["number"].as_str())
            .bind(&status)
            .bind(object["period_start"].as_i64().unwrap_or(created))
            .bind(object["period_end"].as_i64().unwrap_or(created))
            .bind(object["created"].as_i64().unwrap_or(created))
            .bind(due_at)
            .bind(paid_at)
            .bind(subtotal)
            .bind(treatment)
            .bind(rate_bp)
            .bind(vat)
            .bind(total)
            .bind(if status == "paid" { 0 } else { amount_due })
            .bind(object["customer_name"].as_str().unwrap_or(customer))
            .bind(stripe_id)
            .bind(object["hosted_invoice_url"].as_str())
            .bind(object["invoice_pdf"].as_str())
            .bind(now)
            .bind(subscription)
            .execute(&mut **tx)
            .await
            .context("mirroring the invoice")?;
            let lines = object["lines"]["data"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for (i, line) in lines.iter().enumerate() {
                let text = line["description"].as_str().unwrap_or("");
                sqlx::query(
                    "insert into invoice_lines (id, invoice_id, position, server_id, plan_id, site_code, kind, \
                     description_zh, description_en, period_start, period_end, amount_cents) \
                     values ($1, $2, $3, $4, $9, $10, 'stripe', $5, $5, $6, $7, $8)",
                )
                .bind(new_id())
                .bind(&id)
                .bind(i as i64 + 1)
                .bind(&server)
                .bind(text)
                .bind(line["period"]["start"].as_i64().unwrap_or(created))
                .bind(line["period"]["end"].as_i64().unwrap_or(created))
                .bind(line["amount"].as_i64().unwrap_or(0))
                // Without the server yet, the plan still shows in the
                // price's lookup key (`plan:g-ada`).
                .bind(plan.clone().or_else(|| {
                    line["price"]["lookup_key"]
                        .as_str()
                        .and_then(|k| k.strip_prefix("plan:"))
                        .map(str::to_owned)
                }))
                .bind(&site)
                .execute(&mut **tx)
                .await
                .context("mirroring an invoice line")?;
            }
        }
    }
    if status == "paid" {
        super::super::dunning::restore_if_settled(tx, &org, now).await?;
    }
    Ok(true)
}

/// Mirrors a subscription onto its server: the renewal date, whether it
/// ends at the period's end, and that it ended.
async fn subscription(
    tx: &mut Transaction<'_, Any>,
    object: &Value,
    kind: &str,
    created: i64,
    now: i64,
) -> anyhow::Result<bool> {
    let sub = object["id"].as_str().context("subscription without id")?;
    let order = object["metadata"]["order_id"].as_str().unwrap_or_default();
    let server = sqlx::query(
        "select id, stripe_event_at from servers where stripe_subscription_id = $1 or (order_id = $2 and $2 <> '')",
    )
    .bind(sub)
    .bind(order)
    .fetch_optional(&mut **tx)
    .await
    .context("finding the subscription's server")?;
    let Some(server) = server else {
        return Ok(false);
    };
    let id: String = server.try_get("id")?;
    let last: Option<i64> = server.try_get("stripe_event_at")?;
    if last.is_some_and(|at| at > created) {
        return Ok(true);
    }
    let ended =
        kind == "customer.subscription.deleted" || object["status"].as_str() == Some("canceled");
    sqlx::query(
        "update servers set stripe_subscription_id = $1, renews_at = coalesce($2, renews_at), \
         cancel_at_period_end = $3, stripe_event_at = $4, updated_at = $5 where id = $6",
    )
    .bind(sub)
    .bind(object["current_period_end"].as_i64())
    .bind(i64::from(
        object["cancel_at_period_end"].as_bool().unwrap_or(false) || ended,
    ))
    .bind(created)
    .bind(now)
    .bind(&id)
    .execute(&mut **tx)
    .await
    .context("mirroring the subscription")?;
    if ended {
        record_event(tx, &id, "billing.subscription_ended", sub, now).await?;
    }
    Ok(true)
}
