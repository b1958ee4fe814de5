//! When a customer's host fails: the server is down from that moment, and a
//! rebuild job moves it to another free host at the same site, keeping its
//! addresses (and, on real hardware, its volumes). With no host free the
//! job waits and retries; the wait is downtime, which the SLA credits.

use anyhow::Context;
use domain::server::EventKind;
use domain::{HostId, ServerId};
use sqlx::{Any, Row, Transaction};

use super::record_event;
use crate::db::new_id;
use crate::jobs;

/// Called in the transaction that marks `host_id` failed.
pub(crate) async fn host_failed(
    tx: &mut Transaction<'_, Any>,
    host_id: &HostId,
    reason: &str,
    now: i64,
) -> anyhow::Result<()> {
    let server: Option<ServerId> = sqlx::query_scalar(
        "update servers set state = 'provisioning', step = '', progress = 0, updated_at = $1 \
         where host_id = $2 and state in ('running', 'rebooting') returning id",
    )
    .bind(now)
    .bind(host_id)
    .fetch_optional(&mut **tx)
    .await
    .context("taking the server down")?;
    let Some(server) = server else {
        return Ok(());
    };
    start_downtime(tx, &server, reason, now).await?;
    record_event(tx, &server, EventKind::HostFailed, reason, now).await?;
    jobs::enqueue(tx, crate::jobs::JobKind::Rebuild, &server, now, now).await?;
    Ok(())
}

pub(crate) async fn start_downtime(
    tx: &mut Transaction<'_, Any>,
    server_id: &ServerId,
    cause: &str,
    now: i64,
) -> anyhow::Result<()> {
    let open: i64 = sqlx::query_scalar(
        "select count(*) from server_downtime where server_id = $1 and ended_at is null",
    )
    .bind(server_id)
    .fetch_one(&mut **tx)
    .await
    .context("checking open downtime")?;
    if open == 0 {
        sqlx::query(
            "insert into server_downtime (id, server_id, started_at, ended_at, cause) \
             values ($1, $2, $3, null, $4)",
        )
        .bind(new_id())
        .bind(server_id)
        .bind(now)
        .bind(cause)
        .execute(&mut **tx)
        .await
        .context("recording downtime")?;
    }
    Ok(())
}

/// The server runs again: its open downtime ends. Answers whether there was one.
pub(crate) async fn end_downtime(
    tx: &mut Transaction<'_, Any>,
    server_id: &ServerId,
    now: i64,
) -> anyhow::Result<bool> {
    let done = sqlx::query(
        "update server_downtime set ended_at = $1 where server_id = $2 and ended_at is null",
    )
    .bind(now)
    .bind(server_id)
    .execute(&mut **tx)
    .await
    .context("ending downtime")?;
    Ok(done.rows_affected() > 0)
}

/// Downtime spans of a server overlapping `[from, to)`; an open one ends at `to`.
pub async fn downtime(
    db: &crate::Db,
    server_id: &ServerId,
    from: i64,
    to: i64,
) -> anyhow::Result<Vec<(i64, i64)>> {
    sqlx::query(
        "select started_at, ended_at from server_downtime where server_id = $1 \
         and started_at < $2 and (ended_at is null or ended_at > $3) order by started_at",
    )
    .bind(server_id)
    .bind(to)
    .bind(from)
    .fetch_all(&db.pool)
    .await
    .context("reading downtime")?
    .iter()
    .map(|r| {
        let start: i64 = r.try_get("started_at")?;
        let end: Option<i64> = r.try_get("ended_at")?;
        Ok((start, end.unwrap_or(to)))
    })
    .collect()
}
