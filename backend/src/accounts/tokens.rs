//! Single-use links sent by mail. The link carries a random token; the
//! database keeps only its SHA-256, so a leaked table opens nothing.

use anyhow::Context;
use domain::UserId;
use sha2::{Digest, Sha256};
use sqlx::{Any, Row, Transaction};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Verify,
    Reset,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::Verify => "verify",
            Purpose::Reset => "reset",
        }
    }

    /// How long a link works: a day to verify, 30 minutes to reset.
    pub fn lifetime_secs(self) -> i64 {
        match self {
            Purpose::Verify => 24 * 3600,
            Purpose::Reset => 30 * 60,
        }
    }
}

/// 256 random bits as 64 hex characters.
pub fn random_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    Ok(hex(&bytes))
}

pub fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub async fn issue(
    tx: &mut Transaction<'_, Any>,
    user_id: &UserId,
    purpose: Purpose,
    now: i64,
) -> anyhow::Result<String> {
    let token = random_token()?;
    sqlx::query(
        "insert into email_tokens (token_hash, user_id, purpose, expires_at, created_at) values ($1, $2, $3, $4, $5)",
    )
    .bind(hash(&token))
    .bind(user_id)
    .bind(purpose.as_str())
    .bind(now + purpose.lifetime_secs())
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("storing a mail token")?;
    Ok(token)
}

/// Uses a token once: the conditional update makes a second use (or a
/// concurrent one) find nothing. Returns the user it was issued to.
pub async fn consume(
    tx: &mut Transaction<'_, Any>,
    token: &str,
    purpose: Purpose,
    now: i64,
) -> anyhow::Result<Option<UserId>> {
    let row = sqlx::query(
        "update email_tokens set used_at = $1 \
         where token_hash = $2 and purpose = $3 and used_at is null and expires_at > $1 \
         returning user_id",
    )
    .bind(now)
    .bind(hash(token))
    .bind(purpose.as_str())
    .fetch_optional(&mut **tx)
    .await
    .context("using a mail token")?;
    row.map(|r| r.try_get::<UserId, _>("user_id").context("token user"))
        .transpose()
}
