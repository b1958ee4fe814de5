//! The event feed: what happened to an organization's servers, orders and
//! invoices, and to stock, for `GET /events` and webhooks. Writers record
//! an event in the transaction that made it happen ([`record`]); the
//! publisher ([`publish`]) numbers committed events in the order they were
//! recorded and hands each to the organization's webhook endpoints, so a
//! reader paging by number never skips one that committed late.

use anyhow::Context;
use domain::OrganizationId;
use serde_json::{json, Value};
use sqlx::{Any, Row, Transaction};

use crate::db::new_id;
use crate::Db;

/// Events one publishing pass numbers.
const BATCH: i64 = 500;

/// An event as the feed and webhooks send it.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: String,
    pub seq: i64,
    pub kind: String,
    pub subject_id: String,
    pub data: Value,
    pub created_at: i64,
}

impl Event {
    /// Invoice events tell money: only for those who may see it.
    pub fn about_money(&self) -> bool {
        self.kind.starts_with("invoice.")
    }
}

/// Records an event of `organization_id` (`None`: everyone's) in `tx`.
/// `data` names the object (`object`, `id`) and what changed.
pub async fn record(
    tx: &mut Transaction<'_, Any>,
    organization_id: Option<&OrganizationId>,
    kind: &str,
    subject_id: &str,
    data: Value,
    at: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into api_events (id, seq, organization_id, type, subject_id, data, created_at) \
         values ($1, null, $2, $3, $4, $5, $6)",
    )
    // Time-ordered (UUIDv7): the publisher numbers events in this order.
    .bind(format!("evt_{}", new_id().replace('-', "")))
    .bind(organization_id.map(OrganizationId::as_str))
    .bind(kind)
    .bind(subject_id)
    .bind(data.to_string())
    .bind(at)
    .execute(&mut **tx)
    .await
    .with_context(|| format!("recording the event {kind}"))?;
    Ok(())
}

/// An order's state changed: `order.<state>`, for the order's organization.
pub async fn order(
    tx: &mut Transaction<'_, Any>,
    order_id: &str,
    state: &str,
    at: i64,
) -> anyhow::Result<()> {
    let row = sqlx::query(
        "select organization_id, plan_id, site_code, server_name, server_id, failure \
         from orders where id = $1",
    )
    .bind(order_id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the order for its event")?;
    let Some(row) = row else { return Ok(()) };
    let organization: OrganizationId = row.try_get("organization_id")?;
    let data = json!({
        "object": "order",
        "id": order_id,
        "state": state,
        "plan": row.try_get::<String, _>("plan_id")?,
        "site": row.try_get::<String, _>("site_code")?,
        "name": row.try_get::<String, _>("server_name")?,
        "server_id": row.try_get::<Option<String>, _>("server_id")?,
        "failure": row.try_get::<Option<String>, _>("failure")?,
    });
    let kind = format!("order.{state}");
    record(tx, Some(&organization), &kind, order_id, data, at).await
}

/// An invoice was issued or settled: `invoice.<state>`.
pub async fn invoice(
    tx: &mut Transaction<'_, Any>,
    invoice_id: &str,
    at: i64,
) -> anyhow::Result<()> {
    let row = sqlx::query(
        "select organization_id, number, status, total_cents, amount_due_cents, currency \
         from invoices where id = $1",
    )
    .bind(invoice_id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the invoice for its event")?;
    let Some(row) = row else { return Ok(()) };
    let organization: OrganizationId = row.try_get("organization_id")?;
    let state: String = row.try_get("status")?;
    // A Stripe draft is not shown anywhere yet.
    if state == "draft" {
        return Ok(());
    }
    let data = json!({
        "object": "invoice",
        "id": invoice_id,
        "state": state,
        "number": row.try_get::<Option<String>, _>("number")?,
        "total_cents": row.try_get::<i64, _>("total_cents")?,
        "amount_due_cents": row.try_get::<i64, _>("amount_due_cents")?,
        "currency": row.try_get::<String, _>("currency")?,
    });
    let kind = format!("invoice.{state}");
    record(tx, Some(&organization), &kind, invoice_id, data, at).await
}

/// Gives committed events their numbers, in the order they were recorded,
/// and queues each for the organization's webhook endpoints that want it.
/// Several replicas may call this at once: the counter's row makes them
/// take turns. Answers how many events were published.
pub async fn publish(db: &Db) -> anyhow::Result<usize> {
    // Most passes find nothing: a read, not a write lock every second.
    let waiting: Option<String> =
        sqlx::query_scalar("select id from api_events where seq is null limit 1")
            .fetch_optional(&db.pool)
            .await
            .context("looking for unpublished events")?;
    if waiting.is_none() {
        return Ok(0);
    }
    let mut tx = db.begin().await.context("starting a transaction")?;
    sqlx::query("update api_event_counter set last_seq = last_seq where id = 1")
        .execute(&mut *tx)
        .await
        .context("taking the event counter")?;
    let last: i64 = sqlx::query_scalar("select last_seq from api_event_counter where id = 1")
        .fetch_one(&mut *tx)
        .await
        .context("reading the event counter")?;
    let due = sqlx::query(
        "select id, organization_id, type, data, created_at from api_events \
         where seq is null order by id limit $1",
    )
    .bind(BATCH)
    .fetch_all(&mut *tx)
    .await
    .context("reading unpublished events")?;
    let mut seq = last;
    for row in &due {
        seq += 1;
        let id: String = row.try_get("id")?;
        sqlx::query("update api_events set seq = $1 where id = $2")
            .bind(seq)
            .bind(&id)
            .execute(&mut *tx)
            .await
            .context("numbering an event")?;
        let event = Event {
            id,
            seq,
            kind: row.try_get("type")?,
            subject_id: String::new(),
            data: serde_json::from_str(&row.try_get::<String, _>("data")?).unwrap_or(Value::Null),
            created_at: row.try_get("created_at")?,
        };
        let organization: Option<OrganizationId> = row.try_get("organization_id")?;
        crate::webhooks::fan_out(&mut tx, organization.as_ref(), &event).await?;
    }
    if !due.is_empty() {
        sqlx::query("update api_event_counter set last_seq = $1 where id = 1")
            .bind(seq)
            .execute(&mut *tx)
            .await
            .context("advancing the event counter")?;
    }
    tx.commit()
        .await
        .context("committing the published events")?;
    Ok(due.len())
}

/// The organization's published events (and everyone's) after `after`,
/// oldest first; invoice events only when `money`.
pub async fn list(
    db: &Db,
    organization_id: &OrganizationId,
    after: i64,
    kind_prefix: &str,
    money: bool,
    limit: i64,
) -> anyhow::Result<Vec<Event>> {
    let rows = sqlx::query(
        "select id, seq, type, subject_id, data, created_at from api_events \
         where seq > $1 and (organization_id = $2 or organization_id is null) \
         and ($3 = '' or type = $3 or type like $4) \
         and ($5 = 1 or type not like 'invoice.%') \
         order by seq limit $6",
    )
    .bind(after)
    .bind(organization_id)
    .bind(kind_prefix)
    .bind(format!("{kind_prefix}.%"))
    .bind(i64::from(money))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading events")?;
    rows.iter()
        .map(|row| {
            Ok(Event {
                id: row.try_get("id")?,
                seq: row.try_get("seq")?,
                kind: row.try_get("type")?,
                subject_id: row.try_get("subject_id")?,
                data: serde_json::from_str(&row.try_get::<String, _>("data")?)
                    .unwrap_or(Value::Null),
                created_at: row.try_get("created_at")?,
            })
        })
        .collect()
}
