//! Mail. Development keeps every message in an outbox table that staff can
//! read; production will send through SMTP (lettre) behind the same type.

use anyhow::Context;
use sqlx::{Any, Row, Transaction};

use crate::db::new_id;
use crate::Db;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub to: String,
    pub subject: String,
    pub body: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxEntry {
    pub id: String,
    pub to: String,
    pub subject: String,
    pub body: String,
    pub created_at: i64,
}

/// Queues a message in the same transaction as the change that causes it,
/// so a rolled-back sign-up sends nothing.
pub async fn queue(
    tx: &mut Transaction<'_, Any>,
    message: &Message,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query("insert into mail_outbox (id, recipient, subject, body, created_at) values ($1, $2, $3, $4, $5)")
        .bind(new_id())
        .bind(&message.to)
        .bind(&message.subject)
        .bind(&message.body)
        .bind(now)
        .execute(&mut **tx)
        .await
        .context("queueing mail")?;
    Ok(())
}

/// The newest messages, optionally for one recipient.
pub async fn outbox(
    db: &Db,
    recipient: Option<&str>,
    limit: i64,
) -> anyhow::Result<Vec<OutboxEntry>> {
    let rows = sqlx::query(
        "select id, recipient, subject, body, created_at from mail_outbox \
         where ($1 = '' or recipient = $1) order by created_at desc, id desc limit $2",
    )
    .bind(recipient.unwrap_or(""))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the outbox")?;
    rows.iter()
        .map(|r| {
            Ok(OutboxEntry {
                id: r.try_get("id")?,
                to: r.try_get("recipient")?,
                subject: r.try_get("subject")?,
                body: r.try_get("body")?,
                created_at: r.try_get("created_at")?,
            })
        })
        .collect()
}
