//! Checking a bearer secret on each API request, and remembering its use:
//! when and from where it was last used (written at most once a minute,
//! so a busy script does not write on every request), and each new
//! address in the audit log.

use anyhow::Context;
use domain::{OrganizationId, UserId};
use sqlx::Row;

use super::{label, parse_scopes, scopes_for, well_formed, Role, Scope};
use crate::accounts::tokens::hash;
use crate::audit;
use crate::{Clock, Db};

/// Seconds between two writes of a token's last use from one address.
const USE_RECORDED_EVERY: i64 = 60;

/// Who a valid token acts for, and what it may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authenticated {
    pub token_id: String,
    pub organization_id: OrganizationId,
    pub user_id: UserId,
    pub email: String,
    /// The creator's role now.
    pub role: Role,
    pub scopes: Vec<Scope>,
}

/// Why a secret opens nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Not one of ours (or malformed).
    Unknown,
    Expired,
    Revoked,
    /// The creator left the organization, or their role no longer allows
    /// every scope of the token.
    CreatorLostRole,
}

/// Checks a bearer secret and records its use. `Err` is a database
/// failure; a secret that opens nothing is `Ok(Err(Refused))`.
pub async fn authenticate(
    db: &Db,
    clock: &Clock,
    secret: &str,
    ip: Option<&str>,
) -> anyhow::Result<Result<Authenticated, Refused>> {
    if !well_formed(secret) {
        return Ok(Err(Refused::Unknown));
    }
    // One indexed look-up: the token by its hash, its creator, and the
    // creator's membership in the token's organization as it is now.
    let row = sqlx::query(
        "select t.id, t.organization_id, t.user_id, t.name, t.prefix, t.scopes, t.expires_at, \
         t.revoked_at, t.last_used_at, t.last_used_ip, u.email, m.role \
         from api_tokens t join users u on u.id = t.user_id \
         left join memberships m on m.organization_id = t.organization_id and m.user_id = t.user_id \
         where t.secret_hash = $1",
    )
    .bind(hash(secret))
    .fetch_optional(&db.pool)
    .await
    .context("looking up an API token")?;
    let Some(row) = row else {
        return Ok(Err(Refused::Unknown));
    };
    let now = clock.now();
    let revoked_at: Option<i64> = row.try_get("revoked_at")?;
    let expires_at: Option<i64> = row.try_get("expires_at")?;
    if revoked_at.is_some() {
        return Ok(Err(Refused::Revoked));
    }
    if expires_at.is_some_and(|at| at <= now) {
        return Ok(Err(Refused::Expired));
    }
    let role: Option<String> = row.try_get("role")?;
    let Some(role) = role else {
        return Ok(Err(Refused::CreatorLostRole));
    };
    let role = Role::parse(&role).with_context(|| format!("stored role {role:?}"))?;
    let scopes = parse_scopes(&row.try_get::<String, _>("scopes")?)?;
    let allowed = scopes_for(role);
    if scopes.iter().any(|s| !allowed.contains(s)) {
        return Ok(Err(Refused::CreatorLostRole));
    }
    let found = Authenticated {
        token_id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        user_id: row.try_get("user_id")?,
        email: row.try_get("email")?,
        role,
        scopes,
    };
    let last = LastUse {
        at: row.try_get("last_used_at")?,
        ip: row.try_get("last_used_ip")?,
    };
    if last.is_stale(now, ip) {
        let name: String = row.try_get("name")?;
        let prefix: String = row.try_get("prefix")?;
        record_use(db, &found, &label(&name, &prefix), now, ip, &last).await?;
    }
    Ok(Ok(found))
}

/// A token's recorded last use.
struct LastUse {
    at: Option<i64>,
    ip: Option<String>,
}

impl LastUse {
    /// Whether this use must be written: the recorded one is a minute old,
    /// or came from another address.
    fn is_stale(&self, now: i64, ip: Option<&str>) -> bool {
        let moved = ip.is_some() && ip != self.ip.as_deref();
        moved || self.at.is_none_or(|at| now - at >= USE_RECORDED_EVERY)
    }
}

/// Writes the use; an address the token never came from before is
/// remembered and audited once (the unique key decides between two
/// requests racing from it).
async fn record_use(
    db: &Db,
    token: &Authenticated,
    label: &str,
    now: i64,
    ip: Option<&str>,
    last: &LastUse,
) -> anyhow::Result<()> {
    let mut tx = db.begin().await?;
    sqlx::query(
        "update api_tokens set last_used_at = $1, last_used_ip = coalesce($2, last_used_ip) \
         where id = $3",
    )
    .bind(now)
    .bind(ip)
    .bind(&token.token_id)
    .execute(&mut *tx)
    .await
    .context("recording an API token's use")?;
    if let Some(ip) = ip.filter(|ip| Some(*ip) != last.ip.as_deref()) {
        let added = sqlx::query(
            "insert into api_token_addresses (token_id, ip, first_seen_at) values ($1, $2, $3) \
             on conflict (token_id, ip) do nothing",
        )
        .bind(&token.token_id)
        .bind(ip)
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("remembering an API token's address")?;
        if added.rows_affected() == 1 {
            audit::record(
                &mut *tx,
                &audit::Entry {
                    organization_id: Some(&token.organization_id),
                    user_id: Some(&token.user_id),
                    actor: &token.email,
                    action: "api_token.used_from_new_address",
                    detail: &format!("{label} {ip}"),
                    ip: Some(ip),
                    at: now,
                },
            )
            .await?;
        }
    }
    tx.commit().await.context("committing an API token's use")
}

#[cfg(test)]
mod tests {
    use super::LastUse;

    #[test]
    fn a_busy_script_writes_its_use_once_a_minute() {
        let last = LastUse {
            at: Some(1000),
            ip: Some("192.0.2.1".to_owned()),
        };
        assert!(!last.is_stale(1059, Some("192.0.2.1")));
        assert!(last.is_stale(1060, Some("192.0.2.1")));
        assert!(last.is_stale(1001, Some("192.0.2.2")));
        assert!(!last.is_stale(1001, None));
        let never = LastUse { at: None, ip: None };
        assert!(never.is_stale(0, None));
    }
}
