//! Credit notes: money we owe a customer (a refund, an SLA credit). Each is
//! numbered (CN-2026-000001) and set against the customer's next invoices
//! until used up.

use anyhow::Context;
use sqlx::{Any, Row, Transaction};

use super::numbering;
use crate::db::{new_id, Backend};
use crate::{audit, Db};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreditNote {
    pub id: String,
    pub number: String,
    pub reason: String,
    pub amount_cents: i64,
    pub remaining_cents: i64,
    pub created_at: i64,
}

pub async fn issue(
    tx: &mut Transaction<'_, Any>,
    organization_id: &str,
    amount_cents: i64,
    reason: &str,
    server_id: Option<&str>,
    actor: &str,
    now: i64,
) -> anyhow::Result<String> {
    let number = numbering::next(tx, "CN", now).await?;
    sqlx::query(
        "insert into credit_notes (id, organization_id, number, reason, amount_cents, currency, \
         remaining_cents, server_id, created_at, created_by) \
         values ($1, $2, $3, $4, $5, 'EUR', $5, $6, $7, $8)",
    )
    .bind(new_id())
    .bind(organization_id)
    .bind(&number)
    .bind(reason)
    .bind(amount_cents)
    .bind(server_id)
    .bind(now)
    .bind(actor)
    .execute(&mut **tx)
    .await
    .context("issuing a credit note")?;
    audit::record(
        &mut **tx,
        &audit::Entry {
            organization_id: Some(organization_id),
            user_id: None,
            actor,
            action: "credit_note.issued",
            detail: &format!("{number} {amount_cents} {reason}"),
            ip: None,
            at: now,
        },
    )
    .await?;
    Ok(number)
}

/// Staff issue a credit note to an organization; `None` if it doesn't exist.
pub async fn issue_to(
    db: &Db,
    clock: &crate::Clock,
    organization_id: &str,
    amount_cents: i64,
    reason: &str,
    actor: &str,
) -> anyhow::Result<Option<String>> {
    let mut tx = db.begin().await?;
    let known: i64 = sqlx::query_scalar("select count(*) from organizations where id = $1")
        .bind(organization_id)
        .fetch_one(&mut *tx)
        .await
        .context("checking the organization")?;
    if known == 0 {
        return Ok(None);
    }
    let number = issue(
        &mut tx,
        organization_id,
        amount_cents,
        reason,
        None,
        actor,
        clock.now(),
    )
    .await?;
    tx.commit().await.context("committing the credit note")?;
    Ok(Some(number))
}

/// Uses open credit, oldest first, against an amount; answers the credit
/// applied. The open notes are locked as they are read (SQLite's immediate
/// transactions are serial already): two replicas invoicing one customer at
/// once would otherwise both spend what is left on the same note. (The
/// invoice number's counter happens to serialise invoices of one year
/// today; the note must not depend on what its caller did first.)
pub(crate) async fn apply(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    organization_id: &str,
    amount_cents: i64,
) -> anyhow::Result<i64> {
    let lock = match db.backend {
        Backend::Postgres => "for update",
        Backend::Sqlite => "",
    };
    let open = sqlx::query(&format!(
        "select id, remaining_cents from credit_notes where organization_id = $1 \
         and remaining_cents > 0 order by created_at, id {lock}"
    ))
    .bind(organization_id)
    .fetch_all(&mut **tx)
    .await
    .context("reading open credit")?;
    let mut left = amount_cents;
    for row in open {
        if left == 0 {
            break;
        }
        let id: String = row.try_get("id")?;
        let remaining: i64 = row.try_get("remaining_cents")?;
        let used = remaining.min(left);
        sqlx::query("update credit_notes set remaining_cents = remaining_cents - $1 where id = $2")
            .bind(used)
            .bind(&id)
            .execute(&mut **tx)
            .await
            .context("using credit")?;
        left -= used;
    }
    Ok(amount_cents - left)
}

pub async fn list(db: &Db, organization_id: &str) -> anyhow::Result<Vec<CreditNote>> {
    sqlx::query(
        "select id, number, reason, amount_cents, remaining_cents, created_at from credit_notes \
         where organization_id = $1 order by created_at desc",
    )
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("listing credit notes")?
    .iter()
    .map(|r| {
        Ok(CreditNote {
            id: r.try_get("id")?,
            number: r.try_get("number")?,
            reason: r.try_get("reason")?,
            amount_cents: r.try_get("amount_cents")?,
            remaining_cents: r.try_get("remaining_cents")?,
            created_at: r.try_get("created_at")?,
        })
    })
    .collect()
}
