//! Servers: what a customer has once an order is confirmed. A server lives
//! on one host; its state moves `pending → provisioning → running`, or to
//! `failed`; power actions pass through `rebooting`. Every query is scoped
//! by the owning organization.

pub mod billing_state;
pub mod cancellation;
pub mod failures;
pub mod health;
pub mod labels;
pub mod listing;
mod mail_texts;
pub mod maintenance;
pub mod notices;
pub mod overview;
pub mod provisioning;
pub mod reinstall;
pub mod root_password;
mod snapshot_jobs;
pub mod snapshots;
pub mod state;
pub mod telemetry;

pub use mail_texts::Ready;
pub use state::{ServerState, SnapshotState, Step};

use anyhow::Context;
use domain::{OrderId, OrganizationId, PlanId, ServerId, SiteCode, UserId};
use sqlx::{Any, Transaction};

use crate::db::{new_id, IsSet, Lines, OptionalLines};
use crate::fleet::PowerAction;

use crate::sealing::Sealer;
use crate::{audit, jobs, Clock, Db};
use domain::server::EventKind;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Server {
    pub id: ServerId,
    pub organization_id: OrganizationId,
    pub order_id: OrderId,
    pub name: String,
    pub plan_id: PlanId,
    pub site_code: SiteCode,
    pub host_name: Option<String>,
    pub state: ServerState,
    pub progress: i64,
    pub step: Step,
    pub os_image: String,
    #[sqlx(try_from = "Lines")]
    pub addons: Vec<String>,
    /// OpenSSH public keys installed.
    #[sqlx(try_from = "Lines")]
    pub ssh_keys: Vec<String>,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    /// A root password is waiting to be shown once.
    #[sqlx(rename = "root_secret", try_from = "IsSet<String>")]
    pub has_secret: bool,
    pub term_start: Option<i64>,
    pub renews_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// The term end the customer chose to cancel at; revocable until then.
    pub cancel_at: Option<i64>,
    /// Set when that date came: the server was wiped and left the list.
    pub cancelled_at: Option<i64>,
    /// Paid through Stripe: its subscription.
    pub stripe_subscription_id: Option<String>,
    /// The SSH host keys the installed system reported (OpenSSH lines).
    #[sqlx(try_from = "OptionalLines")]
    pub host_keys: Vec<String>,
    /// Stripe's `billing_cycle_anchor`: its periods, and so the term ends,
    /// are counted from it (not from when the server first ran).
    pub billing_anchor: Option<i64>,
    /// The hostname the installed system was given (its name when it was
    /// installed; a rename here does not change it). `None` until then.
    pub hostname: Option<String>,
    /// Where its payments stand: `suspended` means its public network and
    /// console are cut until an overdue invoice is paid (dunning decides).
    pub billing_state: domain::server::BillingState,
    /// Set while a reinstall the customer asked for runs.
    pub reinstall_requested_at: Option<i64>,
}

const COLUMNS: &str = "s.id, s.organization_id, s.order_id, s.name, s.plan_id, s.site_code, \
    h.name as host_name, s.state, s.progress, s.step, s.os_image, s.addons, s.ssh_keys, s.ipv4, \
    s.ipv6, s.root_secret, s.term_start, s.renews_at, s.created_at, s.updated_at, s.cancel_at, \
    s.cancelled_at, s.stripe_subscription_id, s.billing_anchor, s.host_keys, s.hostname, \
    s.billing_state, s.reinstall_requested_at";

impl Server {
    /// What its terms are counted from: Stripe's billing anchor when Stripe
    /// bills it (a cancellation date must be one of Stripe's period ends,
    /// or Stripe bills a prorated stub), else the day it first ran.
    pub fn term_anchor(&self) -> Option<i64> {
        self.billing_anchor.or(self.term_start)
    }

    /// The state a customer sees: a snapshot restore and a maintenance
    /// window run as a restart (the server is down and comes back) but are
    /// shown as what they are. The one mapping the portal, the API and the
    /// console's availability use.
    pub fn shown_state(&self) -> domain::server::ShownState {
        domain::server::ShownState::of(self.state, self.step)
    }

    /// The dates it can be cancelled on now, each a term end
    /// ([`cancellation::term_ends`]): none before it first ran, while it is
    /// set up, after it failed or ended. One rule for the server page, the
    /// API and the cancellation itself.
    pub fn cancellable_term_ends(&self) -> Vec<i64> {
        match (self.renews_at, self.cancelled_at, self.state) {
            (Some(renews), None, ServerState::Running | ServerState::Rebooting) => {
                cancellation::term_ends(self.term_anchor(), renews)
            }
            _ => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct ServerEvent {
    pub at: i64,
    pub kind: EventKind,
    pub detail: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("no such server")]
    NotFound,
    #[error("server names are 1 to 63 letters, digits and hyphens")]
    InvalidName,
    #[error("the server is {} and cannot do that now", .0.as_str())]
    Busy(ServerState),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

pub async fn list(db: &Db, organization_id: &OrganizationId) -> anyhow::Result<Vec<Server>> {
    sqlx::query_as(&format!(
        "select {COLUMNS} from servers s left join hosts h on h.id = s.host_id \
         where s.organization_id = $1 and s.state <> 'failed' and s.cancelled_at is null \
         order by s.created_at desc, s.id desc"
    ))
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("listing servers")
}

/// A server of the organization; `None` for anyone else's.
pub async fn get(
    db: &Db,
    organization_id: &OrganizationId,
    id: &ServerId,
) -> anyhow::Result<Option<Server>> {
    sqlx::query_as(&format!(
        "select {COLUMNS} from servers s left join hosts h on h.id = s.host_id \
         where s.id = $1 and s.organization_id = $2"
    ))
    .bind(id)
    .bind(organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the server")
}

pub(crate) async fn get_any(db: &Db, id: &ServerId) -> anyhow::Result<Option<Server>> {
    sqlx::query_as(&format!(
        "select {COLUMNS} from servers s left join hosts h on h.id = s.host_id where s.id = $1"
    ))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the server")
}

/// The latest events of a server, newest first.
pub async fn events(db: &Db, server_id: &ServerId, limit: i64) -> anyhow::Result<Vec<ServerEvent>> {
    sqlx::query_as(
        "select at, kind, detail from server_events where server_id = $1 \
         order by at desc, id desc limit $2",
    )
    .bind(server_id)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading server events")
}

/// Adds to the server's history, which its page shows; the kinds in
/// `notices` are also mailed to its team by housekeeping.
pub async fn record_event(
    tx: &mut Transaction<'_, Any>,
    server_id: &ServerId,
    kind: EventKind,
    detail: &str,
    at: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into server_events (id, server_id, at, kind, detail, mailed) \
         values ($1, $2, $3, $4, $5, $6)",
    )
    .bind(new_id())
    .bind(server_id)
    .bind(at)
    .bind(kind.as_str())
    .bind(detail)
    .bind(i64::from(!notices::mailed_about(kind)))
    .execute(&mut **tx)
    .await
    .context("recording a server event")?;
    // The same news for the API's event feed and webhooks.
    let server =
        sqlx::query("select organization_id, name, state, step from servers where id = $1")
            .bind(server_id)
            .fetch_optional(&mut **tx)
            .await
            .context("reading the server for its event")?;
    if let Some(row) = server {
        use sqlx::Row;
        let organization: OrganizationId = row.try_get("organization_id")?;
        let state: ServerState = row.try_get("state")?;
        let step: Step = row.try_get("step")?;
        let data = serde_json::json!({
            "object": "server",
            "id": server_id.as_str(),
            "name": row.try_get::<String, _>("name")?,
            "state": domain::server::ShownState::of(state, step).as_str(),
            "detail": detail,
        });
        let kind = format!("server.{}", kind.as_str());
        crate::events::record(tx, Some(&organization), &kind, server_id.as_str(), data, at).await?;
    }
    Ok(())
}

/// Who is acting on a server, for the audit log.
pub struct Actor<'a> {
    pub organization_id: &'a OrganizationId,
    pub user_id: &'a UserId,
    pub email: &'a str,
    pub ip: Option<&'a str>,
}

impl Actor<'_> {
    /// Records `action` by this member in their organization's audit log.
    pub async fn audit(
        &self,
        tx: &mut Transaction<'_, Any>,
        action: &str,
        detail: &str,
        at: i64,
    ) -> anyhow::Result<()> {
        audit::record(
            &mut **tx,
            &audit::Entry {
                organization_id: Some(self.organization_id),
                user_id: Some(self.user_id),
                actor: self.email,
                action,
                detail,
                ip: self.ip,
                at,
            },
        )
        .await
    }
}

/// Every server the organization has had, cancelled ones too, as (id,
/// name): the audit log names them instead of showing their ids.
pub async fn names(
    db: &Db,
    organization_id: &OrganizationId,
) -> anyhow::Result<Vec<(String, String)>> {
    sqlx::query_as("select id, name from servers where organization_id = $1")
        .bind(organization_id)
        .fetch_all(&db.pool)
        .await
        .context("reading the servers' names")
}

pub async fn rename(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &ServerId,
    raw_name: &str,
) -> Result<(), ServerError> {
    let name = crate::orders::server_name(raw_name).ok_or(ServerError::InvalidName)?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let old: Option<String> =
        sqlx::query_scalar("select name from servers where id = $1 and organization_id = $2")
            .bind(id)
            .bind(actor.organization_id)
            .fetch_optional(&mut *tx)
            .await
            .context("reading the server's name")?;
    let old = old.ok_or(ServerError::NotFound)?;
    let done = sqlx::query(
        "update servers set name = $1, updated_at = $2 where id = $3 and organization_id = $4 \
         and state <> 'failed'",
    )
    .bind(&name)
    .bind(now)
    .bind(id)
    .bind(actor.organization_id)
    .execute(&mut *tx)
    .await
    .context("renaming the server")?;
    if done.rows_affected() == 0 {
        return Err(ServerError::NotFound);
    }
    record_event(&mut tx, id, EventKind::Renamed, &name, now).await?;
    actor
        .audit(&mut tx, "server.renamed", &format!("{old} → {name}"), now)
        .await?;
    tx.commit().await.context("committing the rename")?;
    Ok(())
}

/// Queues a power action: a reboot, power cycle or power off of a running
/// server, or powering on one that is off.
pub async fn power(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &ServerId,
    action: PowerAction,
) -> Result<(), ServerError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    // Running (whatever its last install step), or off to power on.
    let (state, step) = action.from();
    let done = sqlx::query(
        "update servers set state = 'rebooting', step = $1, updated_at = $2 \
         where id = $3 and organization_id = $4 and state = $5 \
         and (state = 'running' or step = $6) and cancelled_at is null",
    )
    .bind(action.step())
    .bind(now)
    .bind(id)
    .bind(actor.organization_id)
    .bind(state)
    .bind(step)
    .execute(&mut *tx)
    .await
    .context("starting the power action")?;
    if done.rows_affected() == 0 {
        drop(tx);
        return match get(db, actor.organization_id, id).await? {
            Some(s) => Err(ServerError::Busy(s.state)),
            None => Err(ServerError::NotFound),
        };
    }
    let kind = action.job().as_str();
    record_event(&mut tx, id, action.events().0, actor.email, now).await?;
    jobs::enqueue(&mut tx, action.job(), id, now, now).await?;
    actor
        .audit(&mut tx, &format!("server.{kind}"), id.as_str(), now)
        .await?;
    tx.commit().await.context("committing the power action")?;
    Ok(())
}

/// The root password, once: it is deleted as it is read.
pub async fn take_root_password(
    db: &Db,
    clock: &Clock,
    sealer: &Sealer,
    actor: &Actor<'_>,
    id: &ServerId,
) -> Result<Option<String>, ServerError> {
    let now = clock.now();
    let sealed: Option<Option<String>> = sqlx::query_scalar(
        "select root_secret from servers where id = $1 and organization_id = $2 and state = 'running'",
    )
    .bind(id)
    .bind(actor.organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the root password")?;
    let Some(Some(sealed)) = sealed else {
        return Ok(None);
    };
    let mut tx = db.begin().await.context("starting a transaction")?;
    // Conditional on the value just read: of two concurrent readers, one
    // clears it and shows it; the other gets nothing.
    let cleared = sqlx::query(
        "update servers set root_secret = null, updated_at = $1 where id = $2 and root_secret = $3",
    )
    .bind(now)
    .bind(id)
    .bind(&sealed)
    .execute(&mut *tx)
    .await
    .context("clearing the root password")?;
    if cleared.rows_affected() == 0 {
        return Ok(None);
    }
    record_event(&mut tx, id, EventKind::RootPasswordShown, actor.email, now).await?;
    audit::record(
        &mut *tx,
        &audit::Entry {
            organization_id: Some(actor.organization_id),
            user_id: Some(actor.user_id),
            actor: actor.email,
            action: "server.root_password_shown",
            detail: id.as_str(),
            ip: actor.ip,
            at: now,
        },
    )
    .await?;
    let plain = sealer.open(&sealed)?;
    tx.commit().await.context("committing")?;
    Ok(Some(plain))
}
