//! The API's `Idempotency-Key`s: a member's key names one request (its
//! method, path and body, as a fingerprint) and, once it has succeeded, the
//! answer every retry gets back. Shared by every replica through the
//! database; the HTTP side is `server::http::api::idempotency`.

use anyhow::Context;

use crate::Db;

/// A first request that has run this long without an answer died with its
/// replica: a retry may take the key over.
const ABANDONED_AFTER: i64 = 60;

/// Whose key it is: keys are a member's own, so two members of an
/// organization never see each other's answers.
pub struct Owner<'a> {
    pub organization_id: &'a str,
    pub user_id: &'a str,
}

/// An answer kept for retries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    pub status: u16,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub body: String,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// The key is new (or its earlier request failed): run the request.
    Fresh,
    /// The same request succeeded before: answer this again.
    Replay(Stored),
    /// The same request is running now.
    InFlight,
    /// The key was used for another request.
    Mismatch,
}

/// What names a request: its method, path and body, hashed.
pub fn fingerprint(method: &str, path: &str, body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(method);
    hash.update(b" ");
    hash.update(path);
    hash.update(b"\n");
    hash.update(body);
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A key as kept: `status` is null while its first request runs.
#[derive(sqlx::FromRow)]
struct KeyRow {
    fingerprint: String,
    status: Option<i64>,
    content_type: Option<String>,
    location: Option<String>,
    body: Option<String>,
    created_at: i64,
}

/// Claims `key` for the request `fingerprint` names.
pub async fn claim(
    db: &Db,
    owner: &Owner<'_>,
    key: &str,
    fingerprint: &str,
    now: i64,
) -> anyhow::Result<Claim> {
    let inserted = sqlx::query(
        "insert into api_idempotency (organization_id, user_id, idempotency_key, fingerprint, created_at)
         values ($1, $2, $3, $4, $5) on conflict do nothing",
    )
    .bind(owner.organization_id)
    .bind(owner.user_id)
    .bind(key)
    .bind(fingerprint)
    .bind(now)
    .execute(&db.pool)
    .await
    .context("claiming an idempotency key")?;
    if inserted.rows_affected() == 1 {
        return Ok(Claim::Fresh);
    }
    let row: Option<KeyRow> = sqlx::query_as(
        "select fingerprint, status, content_type, location, body, created_at
             from api_idempotency
             where organization_id = $1 and user_id = $2 and idempotency_key = $3",
    )
    .bind(owner.organization_id)
    .bind(owner.user_id)
    .bind(key)
    .fetch_optional(&db.pool)
    .await
    .context("reading an idempotency key")?;
    let Some(KeyRow {
        fingerprint: known,
        status,
        content_type,
        location,
        body,
        created_at,
    }) = row
    else {
        // Released between our insert and our read: try once more.
        return Box::pin(claim(db, owner, key, fingerprint, now)).await;
    };
    if known != fingerprint {
        return Ok(Claim::Mismatch);
    }
    match status {
        Some(status) => Ok(Claim::Replay(Stored {
            status: u16::try_from(status).unwrap_or(200),
            content_type,
            location,
            body: body.unwrap_or_default(),
        })),
        None if created_at < now - ABANDONED_AFTER => {
            // Only one retry takes over an abandoned claim.
            let taken = sqlx::query(
                "update api_idempotency set created_at = $4
                 where organization_id = $1 and user_id = $2 and idempotency_key = $3
                   and status is null and created_at = $5",
            )
            .bind(owner.organization_id)
            .bind(owner.user_id)
            .bind(key)
            .bind(now)
            .bind(created_at)
            .execute(&db.pool)
            .await
            .context("taking over an idempotency key")?;
            Ok(if taken.rows_affected() == 1 {
                Claim::Fresh
            } else {
                Claim::InFlight
            })
        }
        None => Ok(Claim::InFlight),
    }
}

/// Keeps the answer of a request that succeeded, for its retries.
pub async fn complete(
    db: &Db,
    owner: &Owner<'_>,
    key: &str,
    answer: &Stored,
) -> anyhow::Result<()> {
    sqlx::query(
        "update api_idempotency set status = $4, content_type = $5, location = $6, body = $7
         where organization_id = $1 and user_id = $2 and idempotency_key = $3",
    )
    .bind(owner.organization_id)
    .bind(owner.user_id)
    .bind(key)
    .bind(i64::from(answer.status))
    .bind(answer.content_type.as_deref())
    .bind(answer.location.as_deref())
    .bind(&answer.body)
    .execute(&db.pool)
    .await
    .context("keeping an idempotent answer")?;
    Ok(())
}

/// Frees the key of a request that failed: a retry runs it again (an error
/// is not kept: the cause, a sold-out site say, may be gone by then).
pub async fn release(db: &Db, owner: &Owner<'_>, key: &str) -> anyhow::Result<()> {
    sqlx::query(
        "delete from api_idempotency
         where organization_id = $1 and user_id = $2 and idempotency_key = $3 and status is null",
    )
    .bind(owner.organization_id)
    .bind(owner.user_id)
    .bind(key)
    .execute(&db.pool)
    .await
    .context("releasing an idempotency key")?;
    Ok(())
}
