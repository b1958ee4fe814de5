//! Planned maintenance of a degraded host. Fleet health or staff mark a
//! host degraded (it still runs); its customer is told on the server page
//! and staff propose a window. The customer accepts it or proposes another
//! time, which staff accept. At the window the server is down for the
//! repair (downtime recorded, cause `maintenance`); at its end the part is
//! replaced and the host is healthy again. Accepted windows are left out of
//! the SLA's availability: the customer agreed to them.

use anyhow::Context;
use domain::{HostId, ServerId};
use sqlx::{Any, FromRow, Row, Transaction};

use super::failures::{end_downtime, start_downtime};
use super::{record_event, Actor};
use domain::server::{EventKind, ProposedBy, WindowState};

use crate::db::new_id;
use crate::{audit, Clock, Db};

/// Notice a window must give, and the longest one.
pub const MIN_NOTICE_SECS: i64 = 3600;
pub const MAX_HOURS: i64 = 8;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Window {
    pub id: String,
    pub server_id: ServerId,
    pub starts_at: i64,
    pub ends_at: i64,
    pub state: WindowState,
    pub proposed_by: ProposedBy,
    pub note: String,
}

#[derive(Debug, thiserror::Error)]
pub enum MaintenanceError {
    #[error("no such server, host or window")]
    NotFound,
    #[error("a window starts at least an hour ahead and lasts 1 to {MAX_HOURS} hours")]
    BadTime,
    #[error("the window was answered already")]
    Settled,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

const COLUMNS: &str = "id, server_id, starts_at, ends_at, state, proposed_by, note";

/// A server's windows, soonest first, leaving out withdrawn ones.
pub async fn windows(db: &Db, server_id: &ServerId) -> anyhow::Result<Vec<Window>> {
    sqlx::query_as::<_, Window>(&format!(
        "select {COLUMNS} from maintenance_windows where server_id = $1 \
         and state <> 'withdrawn' order by starts_at, created_at"
    ))
    .bind(server_id)
    .fetch_all(&db.pool)
    .await
    .context("reading maintenance windows")
}

/// Accepted (or held) windows overlapping `[from, to)`, for the SLA.
pub async fn excluded_spans(
    db: &Db,
    server_id: &ServerId,
    from: i64,
    to: i64,
) -> anyhow::Result<Vec<(i64, i64)>> {
    sqlx::query(
        "select starts_at, ends_at from maintenance_windows where server_id = $1 \
         and state in ('accepted', 'started', 'done') and starts_at < $2 and ends_at > $3",
    )
    .bind(server_id)
    .bind(to)
    .bind(from)
    .fetch_all(&db.pool)
    .await
    .context("reading maintenance windows")?
    .iter()
    .map(|r| Ok((r.try_get("starts_at")?, r.try_get("ends_at")?)))
    .collect()
}

/// Why a server's host is degraded, if it is.
pub async fn degraded(db: &Db, server_id: &ServerId) -> anyhow::Result<Option<String>> {
    let reason: Option<Option<String>> = sqlx::query_scalar(
        "select h.degraded_reason from servers s join hosts h on h.id = s.host_id \
         where s.id = $1",
    )
    .bind(server_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the host's health")?;
    Ok(reason.flatten())
}

/// Hosts reporting a fault, for staff: (name, reason, since), oldest first.
pub async fn degraded_hosts(db: &Db) -> anyhow::Result<Vec<(String, String, i64)>> {
    let rows = sqlx::query(
        "select name, degraded_reason, degraded_at from hosts \
         where degraded_reason is not null order by degraded_at, name",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading degraded hosts")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("name")?,
                r.try_get("degraded_reason")?,
                r.try_get::<Option<i64>, _>("degraded_at")?.unwrap_or(0),
            ))
        })
        .collect()
}

/// Marks a host degraded (Fleet health or staff). Its customer's server
/// gets an event, which its page shows with the reason.
pub async fn mark_degraded(
    db: &Db,
    clock: &Clock,
    host_name: &str,
    reason: &str,
    actor: &str,
) -> Result<(), MaintenanceError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let host: Option<String> = sqlx::query_scalar(
        "update hosts set degraded_reason = $1, degraded_at = $2, updated_at = $2 \
         where name = $3 returning id",
    )
    .bind(reason)
    .bind(now)
    .bind(host_name)
    .fetch_optional(&mut *tx)
    .await
    .context("marking the host degraded")?;
    let host = host.ok_or(MaintenanceError::NotFound)?;
    let server: Option<ServerId> = sqlx::query_scalar(
        "select id from servers where host_id = $1 and cancelled_at is null \
         and state in ('running', 'rebooting', 'provisioning')",
    )
    .bind(&host)
    .fetch_optional(&mut *tx)
    .await
    .context("finding the host's server")?;
    if let Some(server) = server {
        record_event(&mut tx, &server, EventKind::HostDegraded, reason, now).await?;
        crate::support::open_for_degraded_host(&mut tx, &server, reason, now).await?;
    }
    staff_audit(
        &mut tx,
        actor,
        "host.degraded",
        &format!("{host_name}: {reason}"),
        now,
    )
    .await?;
    tx.commit().await.context("committing")?;
    Ok(())
}

/// A staff or Fleet action on a host, in the staff audit trail.
async fn staff_audit(
    tx: &mut Transaction<'_, Any>,
    actor: &str,
    action: &str,
    detail: &str,
    at: i64,
) -> anyhow::Result<()> {
    audit::record(
        &mut **tx,
        &audit::Entry {
            organization_id: None,
            user_id: None,
            actor,
            action,
            detail,
            ip: None,
            at,
        },
    )
    .await
}

fn check_time(now: i64, starts_at: i64, hours: i64) -> Result<i64, MaintenanceError> {
    if starts_at < now + MIN_NOTICE_SECS || !(1..=MAX_HOURS).contains(&hours) {
        return Err(MaintenanceError::BadTime);
    }
    Ok(starts_at + hours * 3600)
}

/// A window to propose.
#[derive(Clone, Copy)]
struct Proposal<'a> {
    server_id: &'a ServerId,
    host_id: &'a HostId,
    starts_at: i64,
    ends_at: i64,
    by: ProposedBy,
    note: &'a str,
}

async fn insert_window(
    tx: &mut Transaction<'_, Any>,
    p: &Proposal<'_>,
    now: i64,
) -> anyhow::Result<String> {
    let Proposal {
        server_id,
        host_id,
        starts_at,
        ends_at,
        by,
        note,
    } = *p;
    // One open proposal at a time: a new one replaces the last.
    sqlx::query(
        "update maintenance_windows set state = 'withdrawn', decided_at = $1 \
         where server_id = $2 and state = 'proposed'",
    )
    .bind(now)
    .bind(server_id)
    .execute(&mut **tx)
    .await
    .context("withdrawing the open proposal")?;
    let id = new_id();
    sqlx::query(
        "insert into maintenance_windows (id, server_id, host_id, starts_at, ends_at, state, \
         proposed_by, note, created_at) values ($1, $2, $3, $4, $5, 'proposed', $6, $7, $8)",
    )
    .bind(&id)
    .bind(server_id)
    .bind(host_id)
    .bind(starts_at)
    .bind(ends_at)
    .bind(by.as_str())
    .bind(note)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("proposing a window")?;
    Ok(id)
}

/// Staff propose a window for the server on a degraded host.
pub async fn propose(
    db: &Db,
    clock: &Clock,
    host_name: &str,
    starts_at: i64,
    hours: i64,
    note: &str,
    actor: &str,
) -> Result<String, MaintenanceError> {
    let now = clock.now();
    let ends_at = check_time(now, starts_at, hours)?;
    let mut tx = db.begin().await.context("starting a transaction")?;
    let row = sqlx::query(
        "select s.id as server_id, h.id as host_id from hosts h join servers s on s.host_id = h.id \
         where h.name = $1 and h.degraded_reason is not null and s.cancelled_at is null \
         and s.state in ('running', 'rebooting')",
    )
    .bind(host_name)
    .fetch_optional(&mut *tx)
    .await
    .context("finding the degraded host's server")?
    .ok_or(MaintenanceError::NotFound)?;
    let server: ServerId = row.try_get("server_id").context("server id")?;
    let host: HostId = row.try_get("host_id").context("host id")?;
    let proposal = Proposal {
        server_id: &server,
        host_id: &host,
        starts_at,
        ends_at,
        by: ProposedBy::Staff,
        note,
    };
    let id = insert_window(&mut tx, &proposal, now).await?;
    let when = domain::time::format_datetime(starts_at);
    record_event(&mut tx, &server, EventKind::MaintenanceProposed, &when, now).await?;
    let detail = format!("{host_name}: {when}, {hours} h");
    staff_audit(&mut tx, actor, "maintenance.proposed", &detail, now).await?;
    tx.commit().await.context("committing")?;
    Ok(id)
}

/// The customer accepts a proposed window, or proposes another start
/// (same length) instead.
pub async fn respond(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    server_id: &ServerId,
    window_id: &str,
    counter_start: Option<i64>,
) -> Result<(), MaintenanceError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let window = sqlx::query(
        "select w.id, w.server_id, w.starts_at, w.ends_at, w.state, w.proposed_by, w.note, \
         w.host_id from maintenance_windows w join servers s on s.id = w.server_id \
         where w.id = $1 and w.server_id = $2 and s.organization_id = $3",
    )
    .bind(window_id)
    .bind(server_id)
    .bind(actor.organization_id)
    .fetch_optional(&mut *tx)
    .await
    .context("reading the window")?
    .ok_or(MaintenanceError::NotFound)?;
    let host: HostId = window.try_get("host_id").context("host")?;
    let window = Window::from_row(&window).context("reading the window")?;
    if window.state != WindowState::Proposed || window.proposed_by != ProposedBy::Staff {
        return Err(MaintenanceError::Settled);
    }
    let (action, detail) = match counter_start {
        None => {
            settle(&mut tx, &window.id, WindowState::Accepted, now).await?;
            (
                EventKind::MaintenanceAccepted,
                domain::time::format_datetime(window.starts_at),
            )
        }
        Some(start) => {
            let hours = ((window.ends_at - window.starts_at) / 3600).max(1);
            let ends_at = check_time(now, start, hours)?;
            settle(&mut tx, &window.id, WindowState::Declined, now).await?;
            let proposal = Proposal {
                server_id,
                host_id: &host,
                starts_at: start,
                ends_at,
                by: ProposedBy::Customer,
                note: "",
            };
            insert_window(&mut tx, &proposal, now).await?;
            (
                EventKind::MaintenanceCounter,
                domain::time::format_datetime(start),
            )
        }
    };
    record_event(&mut tx, server_id, action, &detail, now).await?;
    actor
        .audit(
            &mut tx,
            action.as_str(),
            &format!("{server_id}: {detail}"),
            now,
        )
        .await?;
    tx.commit().await.context("committing")?;
    Ok(())
}

/// Staff accept the time a customer proposed.
pub async fn confirm(
    db: &Db,
    clock: &Clock,
    window_id: &str,
    actor: &str,
) -> Result<(), MaintenanceError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let row = sqlx::query(
        "update maintenance_windows set state = 'accepted', decided_at = $1 where id = $2 \
         and state = 'proposed' and proposed_by = 'customer' and starts_at > $1 \
         returning server_id, starts_at",
    )
    .bind(now)
    .bind(window_id)
    .fetch_optional(&mut *tx)
    .await
    .context("accepting the window")?
    .ok_or(MaintenanceError::Settled)?;
    let server: ServerId = row.try_get("server_id").context("server id")?;
    let starts_at: i64 = row.try_get("starts_at").context("start")?;
    // The customer sees the time agreed, not which staff member agreed it.
    let when = domain::time::format_datetime(starts_at);
    record_event(&mut tx, &server, EventKind::MaintenanceAccepted, &when, now).await?;
    staff_audit(
        &mut tx,
        actor,
        "maintenance.confirmed",
        &format!("{server}: {when}"),
        now,
    )
    .await?;
    tx.commit().await.context("committing")?;
    Ok(())
}

async fn settle(
    tx: &mut Transaction<'_, Any>,
    window_id: &str,
    state: WindowState,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query("update maintenance_windows set state = $1, decided_at = $2 where id = $3")
        .bind(state.as_str())
        .bind(now)
        .bind(window_id)
        .execute(&mut **tx)
        .await
        .context("answering the window")?;
    Ok(())
}

/// Open proposals (by customers, for staff to confirm; by staff, still
/// unanswered) and accepted windows to come, for the staff page:
/// (window, host name, server name).
pub async fn open_for_staff(db: &Db) -> anyhow::Result<Vec<(Window, String, String)>> {
    sqlx::query(
        "select w.id, w.server_id, w.starts_at, w.ends_at, w.state, w.proposed_by, w.note, \
         h.name as host_name, s.name as server_name from maintenance_windows w \
         join hosts h on h.id = w.host_id join servers s on s.id = w.server_id \
         where w.state in ('proposed', 'accepted', 'started') order by w.starts_at",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading open windows")?
    .iter()
    .map(|r| {
        Ok((
            Window::from_row(r)?,
            r.try_get("host_name")?,
            r.try_get("server_name")?,
        ))
    })
    .collect()
}

/// Housekeeping: accepted windows that have begun take the server down
/// (for the repair); windows that have ended bring it back with the host
/// healthy. Answers how many windows moved.
pub async fn run_due(db: &Db, clock: &Clock) -> anyhow::Result<u64> {
    let now = clock.now();
    let mut moved = 0;
    let starting: Vec<(String, ServerId, i64)> = sqlx::query(
        "select id, server_id, starts_at from maintenance_windows \
         where state = 'accepted' and starts_at <= $1",
    )
    .bind(now)
    .fetch_all(&db.pool)
    .await
    .context("finding windows to start")?
    .iter()
    .map(|r| {
        Ok((
            r.try_get("id")?,
            r.try_get("server_id")?,
            r.try_get("starts_at")?,
        ))
    })
    .collect::<anyhow::Result<_>>()?;
    for (id, server, starts_at) in starting {
        let mut tx = db.begin().await?;
        let done = sqlx::query(
            "update maintenance_windows set state = 'started' where id = $1 and state = 'accepted'",
        )
        .bind(&id)
        .execute(&mut *tx)
        .await
        .context("starting the window")?;
        if done.rows_affected() == 1 {
            // From the window's start, whenever housekeeping noticed it.
            start_downtime(&mut tx, &server, "maintenance", starts_at).await?;
            sqlx::query(
                "update servers set state = 'rebooting', step = 'maintenance', progress = 0, \
                 updated_at = $1 where id = $2 and state = 'running'",
            )
            .bind(now)
            .bind(&server)
            .execute(&mut *tx)
            .await
            .context("taking the server down for maintenance")?;
            record_event(
                &mut tx,
                &server,
                EventKind::MaintenanceStarted,
                "",
                starts_at,
            )
            .await?;
            moved += 1;
        }
        tx.commit().await.context("committing")?;
    }
    let ending: Vec<(String, ServerId, String, i64)> = sqlx::query(
        "select id, server_id, host_id, ends_at from maintenance_windows \
         where state = 'started' and ends_at <= $1",
    )
    .bind(now)
    .fetch_all(&db.pool)
    .await
    .context("finding windows to end")?
    .iter()
    .map(|r| {
        Ok((
            r.try_get("id")?,
            r.try_get("server_id")?,
            r.try_get("host_id")?,
            r.try_get("ends_at")?,
        ))
    })
    .collect::<anyhow::Result<_>>()?;
    for (id, server, host, ends_at) in ending {
        let mut tx = db.begin().await?;
        let done = sqlx::query(
            "update maintenance_windows set state = 'done' where id = $1 and state = 'started'",
        )
        .bind(&id)
        .execute(&mut *tx)
        .await
        .context("ending the window")?;
        if done.rows_affected() == 1 {
            // The repair took exactly the window (the simulated Fleet
            // finishes on time); downtime ends with it.
            end_downtime(&mut tx, &server, ends_at).await?;
            sqlx::query(
                "update servers set state = 'running', step = '', progress = 100, updated_at = $1 \
                 where id = $2 and state = 'rebooting' and step = 'maintenance'",
            )
            .bind(now)
            .bind(&server)
            .execute(&mut *tx)
            .await
            .context("bringing the server back")?;
            sqlx::query(
                "update hosts set degraded_reason = null, degraded_at = null, updated_at = $1 where id = $2",
            )
            .bind(now)
            .bind(&host)
            .execute(&mut *tx)
            .await
            .context("clearing the host's fault")?;
            record_event(&mut tx, &server, EventKind::MaintenanceDone, "", ends_at).await?;
            moved += 1;
        }
        tx.commit().await.context("committing")?;
    }
    Ok(moved)
}
