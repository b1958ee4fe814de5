//! A host's history: every state change and every Fleet event (a BMC that
//! refused the password, an installer that never reported), newest first.

use anyhow::Context;
use domain::HostId;
use sqlx::Row;

use crate::Db;
use domain::host::HostState;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostEvent {
    pub at: i64,
    pub from_state: Option<HostState>,
    pub to_state: HostState,
    pub actor: String,
    pub reason: String,
}

/// The newest `limit` events of the host called `name`; `None` when there
/// is no such host.
pub async fn of_host(db: &Db, name: &str, limit: i64) -> anyhow::Result<Option<Vec<HostEvent>>> {
    let host_id: Option<HostId> = sqlx::query_scalar("select id from hosts where name = $1")
        .bind(name)
        .fetch_optional(&db.pool)
        .await
        .context("reading the host")?;
    let Some(host_id) = host_id else {
        return Ok(None);
    };
    let rows = sqlx::query(
        "select at, from_state, to_state, actor, reason from host_events \
         where host_id = $1 order by at desc, id desc limit $2",
    )
    .bind(host_id)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the host's history")?;
    let events = rows
        .iter()
        .map(|row| {
            Ok(HostEvent {
                at: row.try_get("at")?,
                from_state: row.try_get("from_state")?,
                to_state: row.try_get("to_state")?,
                actor: row.try_get("actor")?,
                reason: row.try_get("reason")?,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(Some(events))
}
