//! Mail. Every message is queued in the outbox table in the transaction of
//! the change that causes it. With SMTP configured, the server's mail worker
//! delivers the queue; in development it stays there for staff to read.

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

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct OutboxEntry {
    pub id: String,
    #[sqlx(rename = "recipient")]
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
    sqlx::query_as(
        "select id, recipient, subject, body, created_at from mail_outbox \
         where ($1 = '' or recipient = $1) order by created_at desc, id desc limit $2",
    )
    .bind(recipient.unwrap_or(""))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the outbox")
}

/// Mail still to be sent (not given up on) and how long the oldest has
/// waited in seconds, 0 when none: the operators' "mail is not leaving".
pub async fn backlog(db: &Db, now: i64) -> anyhow::Result<(i64, i64)> {
    let row = sqlx::query(
        "select count(*) as n, min(created_at) as oldest from mail_outbox \
         where sent_at is null and attempts < 10",
    )
    .fetch_one(&db.pool)
    .await
    .context("measuring the mail backlog")?;
    let oldest: Option<i64> = row.try_get("oldest")?;
    Ok((row.try_get("n")?, oldest.map_or(0, |at| (now - at).max(0))))
}

/// Claims up to `limit` unsent messages for delivery. A claim lasts a
/// minute, so a replica that dies mid-send leaves them to another.
pub async fn claim(db: &Db, now: i64, limit: i64) -> anyhow::Result<Vec<OutboxEntry>> {
    let candidates = sqlx::query(
        "select id from mail_outbox where sent_at is null and attempts < 10 \
         and (claimed_until is null or claimed_until < $1) order by created_at limit $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("finding mail to send")?;
    let mut claimed = Vec::new();
    for row in candidates {
        let id: String = row.try_get("id")?;
        let got = sqlx::query(
            "update mail_outbox set claimed_until = $1 where id = $2 and sent_at is null \
             and (claimed_until is null or claimed_until < $3) \
             returning id, recipient, subject, body, created_at",
        )
        .bind(now + 60)
        .bind(&id)
        .bind(now)
        .fetch_optional(&db.pool)
        .await
        .context("claiming mail")?;
        if let Some(r) = got {
            claimed.push(OutboxEntry {
                id: r.try_get("id")?,
                to: r.try_get("recipient")?,
                subject: r.try_get("subject")?,
                body: r.try_get("body")?,
                created_at: r.try_get("created_at")?,
            });
        }
    }
    Ok(claimed)
}

/// Marks a message delivered and strips its links: once in the recipient's
/// mailbox, a stored reset or invitation link is only a way in for whoever
/// reads the table.
pub async fn mark_sent(db: &Db, entry: &OutboxEntry, now: i64) -> anyhow::Result<()> {
    sqlx::query(
        "update mail_outbox set sent_at = $1, claimed_until = null, body = $2 where id = $3",
    )
    .bind(now)
    .bind(without_links(&entry.body))
    .bind(&entry.id)
    .execute(&db.pool)
    .await
    .context("marking mail sent")?;
    Ok(())
}

/// The body with every http(s) link replaced by a marker.
pub fn without_links(body: &str) -> String {
    body.split_inclusive(char::is_whitespace)
        .map(|word| {
            let trimmed = word.trim_end();
            if trimmed.starts_with("http://") || trimmed.starts_with("https://") {
                format!("[link removed after sending]{}", &word[trimmed.len()..])
            } else {
                word.to_owned()
            }
        })
        .collect()
}

/// Records a failed attempt; the next waits 1, 2, 5, 10, 17… minutes.
pub async fn mark_failed(db: &Db, id: &str, error: &str, now: i64) -> anyhow::Result<()> {
    sqlx::query(
        "update mail_outbox set attempts = attempts + 1, last_error = $1, \
         claimed_until = $2 + 60 * (1 + attempts * attempts) where id = $3",
    )
    .bind(error)
    .bind(now)
    .bind(id)
    .execute(&db.pool)
    .await
    .context("recording a failed send")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::without_links;

    #[test]
    fn sent_bodies_keep_their_words_but_no_links() {
        let body = "Reset your password:\nhttps://gpu.example.com/en/reset?token=abc\n\nThanks";
        assert_eq!(
            without_links(body),
            "Reset your password:\n[link removed after sending]\n\nThanks"
        );
    }
}
