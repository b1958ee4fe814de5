//! Stripe webhook events. Receiving verifies the signature with
//! async-stripe's `Webhook`, stores the event with its signature and queues
//! a job in one transaction, keyed by the event id, so Stripe gets its 2xx
//! at once and a redelivered event is recognised and dropped. Applying
//! verifies the stored event again, decodes it into async-stripe's typed
//! events and mirrors the object, marking the event processed in the same
//! transaction.
//!
//! Bodies are rendered in our endpoint's API version, which `server stripe
//! sync` sets to the crate's. An event in any other version is stored but
//! held, not applied: its objects may not mean what ours do. Finance and
//! `/metrics` show held events until an operator replays them.
//!
//! Order does not matter: invoices only move forward (draft → open →
//! paid/void/uncollectible; uncollectible can still be paid), a
//! subscription keeps the time of the newest event applied and ignores
//! older ones (two of the same second are settled by fetching the
//! subscription from Stripe: [`refresh_subscription`]), and an event whose
//! order or customer we don't know yet is retried later.

use anyhow::Context;
use serde::Deserialize;
use sqlx::Row;
use stripe_webhook::{EventObject, Webhook, WebhookError};

use super::client::api_version;
use super::mirror;
use crate::jobs::{self, Outcome};
use crate::{Clock, Db};

/// The job kind that applies a stored event.

#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    Queued,
    /// Stripe sent it before; nothing more to do.
    Duplicate,
    /// Stored, not applied: rendered in another API version (or in a shape
    /// the client cannot read).
    Held,
}

#[derive(Debug, thiserror::Error)]
pub enum ReceiveError {
    /// Not from Stripe, tampered with, or too old: refused.
    #[error("refused: {0}")]
    Refused(WebhookError),
    #[error(transparent)]
    Store(#[from] anyhow::Error),
}

/// The fields every event has, read without the object's types (for an
/// event whose object the client cannot decode).
#[derive(Deserialize)]
struct Envelope {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    created: i64,
    api_version: Option<String>,
}

/// Verifies a delivery (any `v1` signature by any of `secrets`: the
/// endpoint's, and its previous one while it is rolled) and stores it.
/// This is the only verification: applying reads the stored body, so an
/// event held for an operator still applies after the secret changed.
pub async fn receive(
    db: &Db,
    clock: &Clock,
    secrets: &[&str],
    payload: &str,
    signature: &str,
) -> Result<Received, ReceiveError> {
    let now = clock.now();
    let mut verified = Err(WebhookError::BadSignature);
    for secret in secrets {
        verified = Webhook::construct_event_with_timestamp(payload, signature, secret, now);
        if !matches!(verified, Err(WebhookError::BadSignature)) {
            break;
        }
    }
    let held_reason = match verified {
        Ok(event) => match event.api_version.as_ref().map(|v| v.as_str()) {
            Some(version) if version != api_version() => Some(format!("api_version {version}")),
            None => Some("api_version missing".to_owned()),
            Some(_) => None,
        },
        // The signature and time were good; the body is not in a shape the
        // client reads (another API version, most likely).
        Err(WebhookError::BadParse(why)) => Some(format!("unreadable: {why}")),
        Err(refused) => return Err(ReceiveError::Refused(refused)),
    };
    let envelope: Envelope =
        serde_json::from_str(payload).context("reading the event's id and type")?;
    let mut tx = db.begin().await?;
    let stored = sqlx::query(
        "insert into stripe_events (id, event_type, created, received_at, payload, signature, api_version, held_reason) \
         values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (id) do nothing",
    )
    .bind(&envelope.id)
    .bind(&envelope.kind)
    .bind(envelope.created)
    .bind(now)
    .bind(payload)
    .bind(signature)
    .bind(envelope.api_version.as_deref())
    .bind(held_reason.as_deref())
    .execute(&mut *tx)
    .await
    .context("storing the event")?;
    if stored.rows_affected() == 0 {
        return Ok(Received::Duplicate);
    }
    if let Some(reason) = &held_reason {
        tracing::warn!(event = %envelope.id, %reason, "Stripe event held, not applied");
        tx.commit().await.context("committing the event")?;
        return Ok(Received::Held);
    }
    jobs::enqueue(&mut tx, jobs::JobKind::StripeEvent, &envelope.id, now, now).await?;
    tx.commit().await.context("committing the event")?;
    Ok(Received::Queued)
}

/// Events held for an operator: (id, type, why), oldest first.
pub async fn held(db: &Db) -> anyhow::Result<Vec<(String, String, String)>> {
    let rows = sqlx::query(
        "select id, event_type, held_reason from stripe_events where held_reason is not null \
         and processed_at is null order by received_at, id",
    )
    .fetch_all(&db.pool)
    .await
    .context("listing held events")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("id")?,
                r.try_get("event_type")?,
                r.try_get("held_reason")?,
            ))
        })
        .collect()
}

/// How many events are held (for `/metrics`, read at every scrape).
pub async fn held_count(db: &Db) -> anyhow::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from stripe_events where held_reason is not null and processed_at is null",
    )
    .fetch_one(&db.pool)
    .await
    .context("counting held events")
}

/// An operator's decision on a held event: apply it after all (once the
/// version was checked) or drop it (marked processed, kept for the record).
pub async fn release(db: &Db, clock: &Clock, event_id: &str, apply: bool) -> anyhow::Result<bool> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let sql = if apply {
        "update stripe_events set held_reason = null where id = $1 and held_reason is not null and processed_at is null"
    } else {
        "update stripe_events set processed_at = $2 where id = $1 and held_reason is not null and processed_at is null"
    };
    let done = sqlx::query(sql)
        .bind(event_id)
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("releasing the event")?;
    if done.rows_affected() == 1 && apply {
        jobs::enqueue(&mut tx, jobs::JobKind::StripeEvent, event_id, now, now).await?;
    }
    tx.commit().await.context("committing")?;
    Ok(done.rows_affected() == 1)
}

/// Applies one stored event (the job's subject).
pub async fn apply(db: &Db, clock: &Clock, event_id: &str, attempts: i64) -> Outcome {
    waiting(apply_inner(db, clock, event_id).await, clock, attempts)
}

/// A job's outcome when `Ok(false)` means something it refers to isn't
/// known yet (events out of order): retried for a while, then dead.
fn waiting(result: anyhow::Result<bool>, clock: &Clock, attempts: i64) -> Outcome {
    match result {
        Ok(true) => Outcome::Done,
        Ok(false) if attempts < 20 => Outcome::RetryAt(
            clock.now() + 5 * attempts,
            "waiting for related objects".into(),
        ),
        Ok(false) => Outcome::Dead("related objects never appeared".into()),
        Err(error) => Outcome::RetryAt(clock.now() + 10 * attempts, format!("{error:#}")),
    }
}

/// Applies the event; what the mirror can only refuse (a same-second tie,
/// another product's object, something for an operator) is settled here.
async fn apply_inner(db: &Db, clock: &Clock, event_id: &str) -> anyhow::Result<bool> {
    let error = match apply_stored(db, clock, event_id).await {
        Err(error) => error,
        applied => return applied,
    };
    if let Some(tie) = error.downcast_ref::<mirror::AskStripe>() {
        ask_stripe(db, clock, event_id, &tie.0).await?;
    } else if let Some(not_ours) = error.downcast_ref::<mirror::NotOurs>() {
        let why = not_ours.to_string();
        tracing::info!(event = %event_id, %why, "Stripe event about another product's object");
        mark_processed(&db.pool, event_id, clock.now(), Some(&why)).await?;
    } else if let Some(held) = error.downcast_ref::<mirror::HeldForOperator>() {
        tracing::warn!(event = %event_id, reason = %held.0, "Stripe event held, not applied");
        sqlx::query("update stripe_events set held_reason = $1 where id = $2")
            .bind(&held.0)
            .bind(event_id)
            .execute(&db.pool)
            .await
            .context("holding the event")?;
    } else {
        return Err(error);
    }
    Ok(true)
}

/// Marks an event done with, with the reason when it was set aside.
async fn mark_processed<'e>(
    executor: impl sqlx::Executor<'e, Database = sqlx::Any>,
    event_id: &str,
    now: i64,
    ignored: Option<&str>,
) -> anyhow::Result<()> {
    sqlx::query(
        "update stripe_events set processed_at = $1, ignored_reason = $2 \
         where id = $3 and processed_at is null",
    )
    .bind(now)
    .bind(ignored)
    .bind(event_id)
    .execute(executor)
    .await
    .context("marking the event processed")?;
    Ok(())
}

async fn apply_stored(db: &Db, clock: &Clock, event_id: &str) -> anyhow::Result<bool> {
    let row = sqlx::query("select payload, processed_at from stripe_events where id = $1")
        .bind(event_id)
        .fetch_one(&db.pool)
        .await
        .context("reading the event")?;
    if row.try_get::<Option<i64>, _>("processed_at")?.is_some() {
        return Ok(true);
    }
    let payload: String = row.try_get("payload")?;
    // Verified when it arrived (nothing unverified is ever stored): read,
    // not verified again, so a secret rolled since changes nothing.
    // async-stripe names its only parse without a signature `insecure`.
    let event = Webhook::insecure(&payload)
        .map_err(|e| anyhow::anyhow!("the stored event does not parse: {e}"))?;
    let created = event.created;
    let kind = event.type_.as_str().to_owned();
    let now = clock.now();
    let mut tx = db.begin().await?;
    let applied = match &event.data.object {
        EventObject::CheckoutSessionCompleted(session)
        | EventObject::CheckoutSessionAsyncPaymentSucceeded(session) => {
            mirror::checkout(db, &mut tx, session, now).await?
        }
        EventObject::CheckoutSessionAsyncPaymentFailed(session) => {
            mirror::checkout_failed(db, &mut tx, session, now).await?
        }
        EventObject::CheckoutSessionExpired(session) => {
            mirror::checkout_expired(db, &mut tx, session, now).await?
        }
        EventObject::InvoiceFinalized(invoice)
        | EventObject::InvoicePaid(invoice)
        | EventObject::InvoicePaymentFailed(invoice)
        | EventObject::InvoiceVoided(invoice)
        | EventObject::InvoiceMarkedUncollectible(invoice)
        | EventObject::InvoiceUpdated(invoice) => {
            mirror::invoice(db, &mut tx, invoice, &kind, created, now).await?
        }
        EventObject::CustomerSubscriptionCreated(subscription)
        | EventObject::CustomerSubscriptionUpdated(subscription)
        | EventObject::CustomerSubscriptionDeleted(subscription) => {
            mirror::subscription(db, &mut tx, subscription, created, now, false).await?
        }
        EventObject::InvoicePaymentPaid(payment) => {
            super::payments::invoice_payment_paid(&mut tx, payment, now).await?
        }
        EventObject::RefundCreated(refund) | EventObject::RefundUpdated(refund) => {
            super::payments::refund_made(&mut tx, refund, now).await?
        }
        EventObject::ChargeDisputeCreated(dispute) | EventObject::ChargeDisputeClosed(dispute) => {
            super::payments::disputed(&mut tx, dispute, &kind, now).await?
        }
        // Other events are recorded and otherwise ignored.
        _ => true,
    };
    if !applied {
        return Ok(false);
    }
    mark_processed(&mut *tx, event_id, now, None).await?;
    tx.commit().await.context("committing the event")?;
    Ok(true)
}

/// A same-second tie: the event is done with (its news is in Stripe's
/// state) and the subscription is fetched by a job, one queued at a time.
async fn ask_stripe(
    db: &Db,
    clock: &Clock,
    event_id: &str,
    subscription: &str,
) -> anyhow::Result<()> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    mark_processed(&mut *tx, event_id, now, None).await?;
    let queued: i64 = sqlx::query_scalar(
        "select count(*) from jobs where kind = $1 and subject_id = $2 and state = 'queued'",
    )
    .bind(jobs::JobKind::StripeSubscription.as_str())
    .bind(subscription)
    .fetch_one(&mut *tx)
    .await
    .context("looking for a queued refresh")?;
    if queued == 0 {
        jobs::enqueue(
            &mut tx,
            jobs::JobKind::StripeSubscription,
            subscription,
            now,
            now,
        )
        .await?;
    }
    tx.commit().await.context("committing")?;
    tracing::info!(event = %event_id, %subscription, "same-second subscription events: asking Stripe");
    Ok(())
}

/// Job (`JobKind::StripeSubscription`): mirrors the subscription as Stripe
/// has it now.
pub async fn refresh_subscription(
    db: &Db,
    clock: &Clock,
    client: &super::client::StripeClient,
    subscription: &str,
    attempts: i64,
) -> Outcome {
    let result = async {
        let fetched = client
            .send(
                &stripe_billing::subscription::RetrieveSubscription::new(subscription),
                None,
            )
            .await?;
        apply_fetched(db, clock, &Fetched::Subscription(Box::new(fetched))).await
    }
    .await;
    waiting(result, clock, attempts)
}

/// What reconciliation fetched, applied as its event would be.
pub(crate) enum Fetched {
    Session(Box<stripe_shared::CheckoutSession>),
    Subscription(Box<stripe_shared::Subscription>),
    Invoice(Box<stripe_shared::Invoice>),
    Refund(Box<stripe_shared::Refund>),
    Dispute(Box<stripe_shared::Dispute>),
}

/// Applies an object fetched from Stripe (by the reconcile job) as if its
/// event had arrived now; answers whether it could be applied.
pub(crate) async fn apply_fetched(
    db: &Db,
    clock: &Clock,
    fetched: &Fetched,
) -> anyhow::Result<bool> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let applied = match fetched {
        Fetched::Session(session) => match session.status {
            Some(stripe_shared::CheckoutSessionStatus::Complete) => {
                mirror::checkout(db, &mut tx, session, now).await?
            }
            Some(stripe_shared::CheckoutSessionStatus::Expired) => {
                mirror::checkout_expired(db, &mut tx, session, now).await?
            }
            _ => true,
        },
        Fetched::Subscription(subscription) => {
            mirror::subscription(db, &mut tx, subscription, now, now, true).await?
        }
        Fetched::Invoice(invoice) => {
            mirror::invoice(db, &mut tx, invoice, "invoice.updated", now, now).await?
        }
        Fetched::Refund(refund) => super::payments::refund_made(&mut tx, refund, now).await?,
        Fetched::Dispute(dispute) => {
            let closed = matches!(dispute.status.as_str(), "won" | "lost" | "warning_closed");
            let kind = if closed {
                "charge.dispute.closed"
            } else {
                "charge.dispute.created"
            };
            super::payments::disputed(&mut tx, dispute, kind, now).await?
        }
    };
    tx.commit()
        .await
        .context("committing a reconciled object")?;
    Ok(applied)
}
