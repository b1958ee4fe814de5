//! The audit log of security- and money-relevant actions. Owners see their
//! organization's entries; staff see all.

use anyhow::Context;
use sqlx::{Any, Executor};

use crate::db::new_id;

pub struct Entry<'a> {
    pub organization_id: Option<&'a str>,
    pub user_id: Option<&'a str>,
    /// Who acted, as shown to readers: an email, `operator:…`, `system`.
    pub actor: &'a str,
    /// Dotted verb: `login.succeeded`, `password.changed`, …
    pub action: &'a str,
    pub detail: &'a str,
    pub ip: Option<&'a str>,
    pub at: i64,
}

impl<'a> Entry<'a> {
    /// An action nobody signed in took (`system`, `stripe`): no user, no
    /// address.
    pub fn unattended(
        organization_id: &'a str,
        actor: &'a str,
        action: &'a str,
        detail: &'a str,
        at: i64,
    ) -> Entry<'a> {
        Entry {
            organization_id: Some(organization_id),
            user_id: None,
            actor,
            action,
            detail,
            ip: None,
            at,
        }
    }
}

pub async fn record<'e, E: Executor<'e, Database = Any>>(
    executor: E,
    entry: &Entry<'_>,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into audit_log (id, organization_id, user_id, actor, action, detail, ip, at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(new_id())
    .bind(entry.organization_id)
    .bind(entry.user_id)
    .bind(entry.actor)
    .bind(entry.action)
    .bind(entry.detail)
    .bind(entry.ip)
    .bind(entry.at)
    .execute(executor)
    .await
    .with_context(|| format!("recording {}", entry.action))?;
    Ok(())
}

/// An organization's entries, newest first: (at, actor, action, detail, ip).
pub async fn for_organization(
    db: &crate::Db,
    organization_id: &str,
    limit: i64,
) -> anyhow::Result<Vec<(i64, String, String, String, String)>> {
    use sqlx::Row;
    let rows = sqlx::query(
        "select at, actor, action, detail, coalesce(ip, '') as ip from audit_log \
         where organization_id = $1 order by at desc, id desc limit $2",
    )
    .bind(organization_id)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the audit log")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("at")?,
                r.try_get("actor")?,
                r.try_get("action")?,
                r.try_get("detail")?,
                r.try_get("ip")?,
            ))
        })
        .collect()
}

/// Every entry, newest first, for staff: (at, actor, action, detail, ip).
pub async fn all(
    db: &crate::Db,
    limit: i64,
) -> anyhow::Result<Vec<(i64, String, String, String, String)>> {
    use sqlx::Row;
    let rows = sqlx::query(
        "select at, actor, action, detail, coalesce(ip, '') as ip from audit_log order by at desc, id desc limit $1",
    )
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the audit log")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("at")?,
                r.try_get("actor")?,
                r.try_get("action")?,
                r.try_get("detail")?,
                r.try_get("ip")?,
            ))
        })
        .collect()
}
