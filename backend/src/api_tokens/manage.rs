//! Creating, listing and revoking tokens.

use anyhow::Context;
use domain::{OrganizationId, UserId};

use super::{
    label, scopes_for, scopes_text, ApiToken, NewToken, TokenError, EXPIRY_DAYS, MAX_LIVE_TOKENS,
    SECRET_PREFIX, TOKEN_COLUMNS,
};
use crate::accounts::tokens::{hash, random_token};
use crate::db::new_id;
use crate::servers::Actor;
use crate::{Clock, Db};

const DAY: i64 = 24 * 3600;

/// A name people can tell apart in a list: trimmed, 1 to 60 characters,
/// no control characters.
fn token_name(raw: &str) -> Result<&str, TokenError> {
    let name = raw.trim();
    let len = name.chars().count();
    if len == 0 || len > 60 || name.chars().any(char::is_control) {
        return Err(TokenError::InvalidName);
    }
    Ok(name)
}

/// Creates a token and answers it with its secret, which exists nowhere
/// else: the database keeps its hash.
pub async fn create(
    db: &Db,
    clock: &Clock,
    new: &NewToken<'_>,
) -> Result<(ApiToken, String), TokenError> {
    let name = token_name(new.name)?;
    if new.scopes.is_empty() {
        return Err(TokenError::NoScopes);
    }
    let allowed = scopes_for(new.role);
    if new.scopes.iter().any(|s| !allowed.contains(s)) {
        return Err(TokenError::ScopeNotAllowed);
    }
    if new
        .expires_in_days
        .is_some_and(|d| !EXPIRY_DAYS.contains(&d))
    {
        return Err(TokenError::InvalidExpiry);
    }
    let now = clock.now();
    let expires_at = new.expires_in_days.map(|d| now + d * DAY);
    let random = random_token()?;
    let secret = format!("{SECRET_PREFIX}{random}");
    let prefix = random[..8].to_owned();
    let scopes = scopes_text(new.scopes);
    let id = new_id();

    let mut tx = db.begin().await?;
    // Two members creating at once must not both pass the count.
    db.lock_row(&mut tx, "organizations", new.organization_id)
        .await?;
    let live: i64 = sqlx::query_scalar(
        "select count(*) from api_tokens where organization_id = $1 and revoked_at is null \
         and (expires_at is null or expires_at > $2)",
    )
    .bind(new.organization_id)
    .bind(now)
    .fetch_one(&mut *tx)
    .await
    .context("counting live API tokens")?;
    if live >= MAX_LIVE_TOKENS {
        return Err(TokenError::TooMany);
    }
    sqlx::query(
        "insert into api_tokens (id, organization_id, user_id, name, prefix, secret_hash, scopes, \
         created_at, expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&id)
    .bind(new.organization_id)
    .bind(new.user_id)
    .bind(name)
    .bind(&prefix)
    .bind(hash(&secret))
    .bind(&scopes)
    .bind(now)
    .bind(expires_at)
    .execute(&mut *tx)
    .await
    .context("storing an API token")?;
    let expiry = new
        .expires_in_days
        .map_or_else(|| "never".to_owned(), |d| format!("{d}d"));
    let actor = Actor {
        organization_id: new.organization_id,
        user_id: new.user_id,
        email: new.email,
        ip: new.ip,
    };
    let detail = format!("{} scopes={scopes} expires={expiry}", label(name, &prefix));
    actor
        .audit(&mut tx, "api_token.created", &detail, now)
        .await?;
    tx.commit().await.context("committing an API token")?;
    let token = ApiToken {
        id,
        organization_id: new.organization_id.clone(),
        user_id: new.user_id.to_owned(),
        creator_email: new.email.to_owned(),
        name: name.to_owned(),
        prefix,
        scopes: super::parse_scopes(&scopes)?,
        created_at: now,
        expires_at,
        revoked_at: None,
        last_used_at: None,
        last_used_ip: None,
    };
    Ok((token, secret))
}

/// The organization's tokens, newest first; `only_user` keeps one
/// creator's. Revoked and expired ones stay listed (with their state).
pub async fn list(
    db: &Db,
    organization_id: &OrganizationId,
    only_user: Option<&str>,
) -> anyhow::Result<Vec<ApiToken>> {
    let creator = if only_user.is_some() {
        "and t.user_id = $2"
    } else {
        ""
    };
    let sql = format!(
        "select {TOKEN_COLUMNS} from api_tokens t join users u on u.id = t.user_id \
         where t.organization_id = $1 {creator} order by t.created_at desc, t.id desc"
    );
    let mut query = sqlx::query_as(&sql).bind(organization_id);
    if let Some(user_id) = only_user {
        query = query.bind(user_id);
    }
    query
        .fetch_all(&db.pool)
        .await
        .context("listing API tokens")
}

/// Revokes a token of the organization: its creator may, and (with
/// `may_revoke_others`) owners may revoke anyone's. Another
/// organization's token, or another member's without the right, is
/// `NotFound`. A revoked token stays revoked: a second revocation
/// changes nothing and is not audited again.
pub async fn revoke(
    db: &Db,
    clock: &Clock,
    organization_id: &OrganizationId,
    token_id: &str,
    by: &Actor<'_>,
    may_revoke_others: bool,
) -> Result<(), TokenError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let found: Option<(UserId, String, String)> = sqlx::query_as(
        "select user_id, name, prefix from api_tokens where id = $1 and organization_id = $2",
    )
    .bind(token_id)
    .bind(organization_id)
    .fetch_optional(&mut *tx)
    .await
    .context("finding an API token")?;
    let Some((creator, name, prefix)) = found else {
        return Err(TokenError::NotFound);
    };
    if &creator != by.user_id && !may_revoke_others {
        return Err(TokenError::NotFound);
    }
    let done = sqlx::query(
        "update api_tokens set revoked_at = $1 where id = $2 and organization_id = $3 \
         and revoked_at is null",
    )
    .bind(now)
    .bind(token_id)
    .bind(organization_id)
    .execute(&mut *tx)
    .await
    .context("revoking an API token")?;
    if done.rows_affected() == 1 {
        by.audit(&mut tx, "api_token.revoked", &label(&name, &prefix), now)
            .await?;
    }
    tx.commit().await.context("committing a revocation")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_short_and_printable() {
        assert_eq!(token_name("  ci deploy ").ok(), Some("ci deploy"));
        assert_eq!(
            token_name(&"名".repeat(60)).ok().map(|n| n.chars().count()),
            Some(60)
        );
        assert!(matches!(token_name("   "), Err(TokenError::InvalidName)));
        assert!(matches!(
            token_name(&"x".repeat(61)),
            Err(TokenError::InvalidName)
        ));
        assert!(matches!(
            token_name("a\u{7}b"),
            Err(TokenError::InvalidName)
        ));
        assert!(matches!(token_name("a\nb"), Err(TokenError::InvalidName)));
    }
}
