//! Snapshots of a running server's disks: take (with a name), restore,
//! delete, at most [`QUOTA`] per server. Taking and deleting run as jobs
//! while the server keeps running; a restore takes the server down: it
//! shows as restoring (state `rebooting`, step `restore`) with progress
//! until the snapshot is written back. Snapshots go with the server when
//! it is wiped.

use anyhow::Context;
use domain::server::EventKind;
use domain::{OrganizationId, ServerId, SnapshotId};
use sqlx::{FromRow, Row};

use super::{get, record_event, Actor, ServerError, ServerState, SnapshotState, Step};
use crate::db::new_id;
use crate::{jobs, Clock, Db};

/// Snapshots one server may keep.
pub const QUOTA: usize = 5;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Snapshot {
    pub id: SnapshotId,
    pub server_id: ServerId,
    pub name: String,
    pub state: SnapshotState,
    pub size_bytes: i64,
    pub created_at: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("no such snapshot")]
    NotFound,
    #[error("snapshot names are 1 to 63 letters, digits, '-', '.' or '_', unique per server")]
    InvalidName,
    #[error("the server keeps at most {QUOTA} snapshots")]
    QuotaFull,
    #[error("the server or snapshot is busy")]
    Busy,
    #[error(transparent)]
    Server(#[from] ServerError),
}

impl From<anyhow::Error> for SnapshotError {
    fn from(error: anyhow::Error) -> SnapshotError {
        SnapshotError::Server(ServerError::Db(error))
    }
}

pub fn snapshot_name(raw: &str) -> Option<String> {
    let name = raw.trim();
    let ok = (1..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    ok.then(|| name.to_owned())
}

/// A server's snapshots, newest first (of the organization's servers only).
pub async fn list(
    db: &Db,
    organization_id: &OrganizationId,
    server_id: &ServerId,
) -> anyhow::Result<Vec<Snapshot>> {
    sqlx::query_as::<_, Snapshot>(
        "select id, server_id, name, state, size_bytes, created_at from snapshots \
         where server_id = $1 and organization_id = $2 order by created_at desc, id desc",
    )
    .bind(server_id)
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("listing snapshots")
}

async fn get_snapshot(
    db: &Db,
    organization_id: &OrganizationId,
    server_id: &ServerId,
    id: &SnapshotId,
) -> anyhow::Result<Option<Snapshot>> {
    sqlx::query_as::<_, Snapshot>(
        "select id, server_id, name, state, size_bytes, created_at from snapshots \
         where id = $1 and server_id = $2 and organization_id = $3",
    )
    .bind(id)
    .bind(server_id)
    .bind(organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the snapshot")
}

/// A running server that is not suspended or cancelled, or why not.
async fn running_server(
    db: &Db,
    actor: &Actor<'_>,
    server_id: &ServerId,
) -> Result<(), SnapshotError> {
    let server = get(db, actor.organization_id, server_id)
        .await?
        .ok_or(SnapshotError::NotFound)?;
    if server.cancelled_at.is_some() {
        return Err(SnapshotError::NotFound);
    }
    crate::console::check_available(db, &server)
        .await
        .map_err(|_| SnapshotError::Busy)?;
    if server.state != ServerState::Running {
        return Err(SnapshotError::Busy);
    }
    Ok(())
}

/// Starts taking a snapshot named `raw_name`.
pub async fn take(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    server_id: &ServerId,
    raw_name: &str,
) -> Result<SnapshotId, SnapshotError> {
    let name = snapshot_name(raw_name).ok_or(SnapshotError::InvalidName)?;
    running_server(db, actor, server_id).await?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    // One snapshot change per server at a time: parallel takes can't all
    // count the same snapshots and together pass the quota, and a take and
    // a restore can't both start.
    db.lock_row(&mut tx, "servers", server_id).await?;
    let rows = sqlx::query("select name, state from snapshots where server_id = $1")
        .bind(server_id)
        .fetch_all(&mut *tx)
        .await
        .context("counting snapshots")?;
    let mut busy = false;
    for r in &rows {
        let existing: String = r.try_get("name").context("snapshot name")?;
        let state: SnapshotState = r.try_get("state").context("snapshot state")?;
        if existing == name {
            return Err(SnapshotError::InvalidName);
        }
        busy |= state.busy();
    }
    if rows.len() >= QUOTA {
        return Err(SnapshotError::QuotaFull);
    }
    if busy {
        return Err(SnapshotError::Busy);
    }
    let id = SnapshotId::from(new_id());
    sqlx::query(
        "insert into snapshots (id, server_id, organization_id, name, state, created_at) \
         values ($1, $2, $3, $4, 'creating', $5)",
    )
    .bind(&id)
    .bind(server_id)
    .bind(actor.organization_id)
    .bind(&name)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("recording the snapshot")?;
    record_event(&mut tx, server_id, EventKind::SnapshotRequested, &name, now).await?;
    jobs::enqueue(&mut tx, jobs::JobKind::SnapshotTake, &id, now, now).await?;
    actor
        .audit(
            &mut tx,
            "snapshot.taken",
            &format!("{server_id}: {name}"),
            now,
        )
        .await?;
    tx.commit().await.context("committing the snapshot")?;
    Ok(id)
}

/// Starts restoring a ready snapshot: the server goes down and shows the
/// restore's progress.
pub async fn restore(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    server_id: &ServerId,
    snapshot_id: &SnapshotId,
) -> Result<(), SnapshotError> {
    let snapshot = get_snapshot(db, actor.organization_id, server_id, snapshot_id)
        .await?
        .ok_or(SnapshotError::NotFound)?;
    running_server(db, actor, server_id).await?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    db.lock_row(&mut tx, "servers", server_id).await?;
    let claimed = sqlx::query(
        "update snapshots set state = 'restoring' where id = $1 and state = 'ready' \
         and not exists (select 1 from snapshots o where o.server_id = $2 \
         and o.state in ('creating', 'restoring'))",
    )
    .bind(snapshot_id)
    .bind(server_id)
    .execute(&mut *tx)
    .await
    .context("claiming the snapshot")?;
    let down = sqlx::query(
        "update servers set state = 'rebooting', step = 'restore', progress = 0, updated_at = $1 \
         where id = $2 and organization_id = $3 and state = 'running'",
    )
    .bind(now)
    .bind(server_id)
    .bind(actor.organization_id)
    .execute(&mut *tx)
    .await
    .context("taking the server down for the restore")?;
    if claimed.rows_affected() != 1 || down.rows_affected() != 1 {
        return Err(SnapshotError::Busy);
    }
    record_event(
        &mut tx,
        server_id,
        EventKind::SnapshotRestoreStarted,
        &snapshot.name,
        now,
    )
    .await?;
    jobs::enqueue(
        &mut tx,
        jobs::JobKind::SnapshotRestore,
        snapshot_id,
        now,
        now,
    )
    .await?;
    actor
        .audit(
            &mut tx,
            "snapshot.restored",
            &format!("{server_id}: {}", snapshot.name),
            now,
        )
        .await?;
    tx.commit().await.context("committing the restore")?;
    Ok(())
}

/// Deletes a ready (or failed) snapshot.
pub async fn delete(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    server_id: &ServerId,
    snapshot_id: &SnapshotId,
) -> Result<(), SnapshotError> {
    let snapshot = get_snapshot(db, actor.organization_id, server_id, snapshot_id)
        .await?
        .ok_or(SnapshotError::NotFound)?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let done = sqlx::query(
        "update snapshots set state = 'deleting' where id = $1 and state in ('ready', 'failed')",
    )
    .bind(snapshot_id)
    .execute(&mut *tx)
    .await
    .context("deleting the snapshot")?;
    if done.rows_affected() != 1 {
        return Err(SnapshotError::Busy);
    }
    record_event(
        &mut tx,
        server_id,
        EventKind::SnapshotDeleted,
        &snapshot.name,
        now,
    )
    .await?;
    jobs::enqueue(
        &mut tx,
        jobs::JobKind::SnapshotDelete,
        snapshot_id,
        now,
        now,
    )
    .await?;
    actor
        .audit(
            &mut tx,
            "snapshot.deleted",
            &format!("{server_id}: {}", snapshot.name),
            now,
        )
        .await?;
    tx.commit().await.context("committing the deletion")?;
    Ok(())
}

/// What a snapshot job needs: the snapshot, its server and the host.
pub(crate) struct JobSubject {
    pub snapshot: Snapshot,
    pub host: Option<String>,
    pub server_state: ServerState,
    pub server_step: Step,
}

pub(crate) async fn job_subject(
    db: &Db,
    snapshot_id: &SnapshotId,
) -> anyhow::Result<Option<JobSubject>> {
    let row = sqlx::query(
        "select n.id, n.server_id, n.name, n.state, n.size_bytes, n.created_at, h.name as host, \
         s.state as server_state, s.step as server_step from snapshots n \
         join servers s on s.id = n.server_id left join hosts h on h.id = s.host_id \
         where n.id = $1",
    )
    .bind(snapshot_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the snapshot")?;
    row.map(|r| {
        Ok(JobSubject {
            snapshot: Snapshot::from_row(&r)?,
            host: r.try_get("host")?,
            server_state: r.try_get("server_state")?,
            server_step: r.try_get("server_step")?,
        })
    })
    .transpose()
}

/// The snapshots of a server that is being wiped: their ids, for Fleet.
pub(crate) async fn of_server(db: &Db, server_id: &ServerId) -> anyhow::Result<Vec<SnapshotId>> {
    sqlx::query_scalar("select id from snapshots where server_id = $1")
        .bind(server_id)
        .fetch_all(&db.pool)
        .await
        .context("listing the server's snapshots")
}

pub(crate) async fn forget(db: &Db, snapshot_id: &SnapshotId) -> anyhow::Result<()> {
    sqlx::query("delete from snapshots where id = $1")
        .bind(snapshot_id)
        .execute(&db.pool)
        .await
        .context("forgetting the snapshot")?;
    Ok(())
}
