//! Inventory: the physical hosts at each site and their states. Stock is the
//! number of free hosts; nobody edits a counter.
//!
//! A host moves `free → held (expires) → allocated → wiping → free`, or to
//! `maintenance` / `failed`. Every change is one conditional update, so two
//! writers can never both move the same host.

pub mod bmc;
pub mod history;
mod host;
mod stock;

pub use host::{Host, HostState};
pub use stock::{free_where_racked, stock_snapshot};

use anyhow::Context;
use domain::{HostId, PlanId, SiteCode};
use sqlx::{Any, Row, Transaction};

use crate::db::new_id;
use crate::{Clock, Db};

#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("no host is called {0:?}")]
    UnknownHost(String),
    #[error("no site has the code {0:?}")]
    UnknownSite(String),
    #[error("no plan has the id {0:?}")]
    UnknownPlan(String),
    #[error("a host that is {from} cannot be set {to} by an operator")]
    Transition { from: HostState, to: HostState },
    #[error("between 1 and 500 hosts can be added at once")]
    Count,
    #[error("{0} has a BMC that has not passed its check: check it (server hosts check {0}) before it goes back into stock")]
    NotChecked(String),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// Which hosts to list; `None` matches all.
#[derive(Clone, Debug, Default)]
pub struct HostFilter {
    pub site: Option<SiteCode>,
    pub plan: Option<PlanId>,
    pub state: Option<HostState>,
}

const HOST_COLUMNS: &str =
    "id, name, site_code, plan_id, state, hold_expires_at, created_at, updated_at";

/// Racks `count` new free hosts of a plan at a site, named `site-plan-NNN`.
pub async fn add_hosts(
    db: &Db,
    clock: &Clock,
    site: &str,
    plan: &str,
    count: u32,
    actor: &str,
) -> Result<Vec<Host>, InventoryError> {
    rack_hosts(db, clock, site, plan, count, HostState::Free, actor).await
}

/// Racks new hosts in `state`: `Free` to sell them at once, `Maintenance`
/// for a host that must pass its BMC check first (never sellable before).
pub async fn rack_hosts(
    db: &Db,
    clock: &Clock,
    site: &str,
    plan: &str,
    count: u32,
    state: HostState,
    actor: &str,
) -> Result<Vec<Host>, InventoryError> {
    if !(1..=500).contains(&count) {
        return Err(InventoryError::Count);
    }
    let mut tx = db.begin().await.context("starting a transaction")?;
    let known_site: i64 = sqlx::query_scalar("select count(*) from sites where code = $1")
        .bind(site)
        .fetch_one(&mut *tx)
        .await
        .context("checking the site")?;
    if known_site == 0 {
        return Err(InventoryError::UnknownSite(site.to_owned()));
    }
    let known_plan: i64 = sqlx::query_scalar("select count(*) from plans where id = $1")
        .bind(plan)
        .fetch_one(&mut *tx)
        .await
        .context("checking the plan")?;
    if known_plan == 0 {
        return Err(InventoryError::UnknownPlan(plan.to_owned()));
    }
    let existing: i64 =
        sqlx::query_scalar("select count(*) from hosts where site_code = $1 and plan_id = $2")
            .bind(site)
            .bind(plan)
            .fetch_one(&mut *tx)
            .await
            .context("numbering new hosts")?;
    let now = clock.now();
    let mut added = Vec::with_capacity(count as usize);
    for n in 1..=i64::from(count) {
        let id = HostId::from(new_id());
        let name = format!("{site}-{plan}-{:03}", existing + n);
        sqlx::query(
            "insert into hosts (id, name, site_code, plan_id, state, created_at, updated_at) \
             values ($1, $2, $3, $4, $5, $6, $6)",
        )
        .bind(&id)
        .bind(&name)
        .bind(site)
        .bind(plan)
        .bind(state.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await
        .with_context(|| format!("adding host {name}"))?;
        record_event(&mut tx, &id, None, state, actor, "racked", now).await?;
        added.push(Host {
            id,
            name,
            site: SiteCode::parse(site).context("site code")?,
            plan: PlanId::parse(plan).context("plan id")?,
            state,
            hold_expires_at: None,
            created_at: now,
            updated_at: now,
        });
    }
    notify_stock_changed(db, &mut tx).await?;
    tx.commit().await.context("committing new hosts")?;
    Ok(added)
}

/// The host called `name`, if there is one.
pub async fn host(db: &Db, name: &str) -> Result<Option<Host>, InventoryError> {
    Ok(
        sqlx::query_as(&format!("select {HOST_COLUMNS} from hosts where name = $1"))
            .bind(name)
            .fetch_optional(&db.pool)
            .await
            .context("reading a host")?,
    )
}

pub async fn list_hosts(db: &Db, filter: &HostFilter) -> Result<Vec<Host>, InventoryError> {
    let sql = format!(
        "select {HOST_COLUMNS} from hosts \
         where ($1 = '' or site_code = $1) and ($2 = '' or plan_id = $2) and ($3 = '' or state = $3) \
         order by site_code, plan_id, name"
    );
    Ok(sqlx::query_as(&sql)
        .bind(filter.site.as_ref().map_or("", |s| s.as_str()))
        .bind(filter.plan.as_ref().map_or("", |p| p.as_str()))
        .bind(filter.state.map_or("", HostState::as_str))
        .fetch_all(&db.pool)
        .await
        .context("listing hosts")?)
}

/// Whose server is on each host a customer holds or uses: (host,
/// organization, server), for the staff's host list.
pub async fn customers(db: &Db) -> Result<Vec<(String, String, String)>, InventoryError> {
    Ok(sqlx::query_as(
        "select h.name, o.name, s.name from servers s \
         join hosts h on h.id = s.host_id join organizations o on o.id = s.organization_id \
         where h.state in ('held', 'allocated') and s.cancelled_at is null",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading whose servers are on the hosts")?)
}

/// An operator puts a host in service, takes it out for maintenance, or marks
/// it failed. Hosts a customer holds or uses cannot be freed this way.
pub async fn set_state(
    db: &Db,
    clock: &Clock,
    name: &str,
    to: HostState,
    actor: &str,
    reason: &str,
) -> Result<Host, InventoryError> {
    let from_states = HostState::operator_sources(to);
    if to == HostState::Free {
        refuse_unchecked(db, name).await?;
    }
    let mut tx = db.begin().await.context("starting a transaction")?;
    let current = sqlx::query("select state from hosts where name = $1")
        .bind(name)
        .fetch_optional(&mut *tx)
        .await
        .context("reading the host")?
        .ok_or_else(|| InventoryError::UnknownHost(name.to_owned()))?;
    let from = HostState::parse(
        &current
            .try_get::<String, _>("state")
            .context("host state")?,
    )
    .context("stored host state")?;
    if !from_states.contains(&from) {
        return Err(InventoryError::Transition { from, to });
    }
    let now = clock.now();
    // Conditional on the state just read: a concurrent change makes this
    // update match nothing instead of overwriting it.
    let host: Host = sqlx::query_as(&format!(
        "update hosts set state = $1, hold_expires_at = null, updated_at = $2 \
         where name = $3 and state = $4 returning {HOST_COLUMNS}"
    ))
    .bind(to.as_str())
    .bind(now)
    .bind(name)
    .bind(from.as_str())
    .fetch_optional(&mut *tx)
    .await
    .context("changing the host state")?
    .ok_or(InventoryError::Transition { from, to })?;
    record_event(&mut tx, &host.id, Some(from), to, actor, reason, now).await?;
    if to == HostState::Failed && from == HostState::Allocated {
        // A customer's server was on it: down from now, rebuilt elsewhere.
        crate::servers::failures::host_failed(&mut tx, &host.id, reason, now).await?;
    }
    notify_stock_changed(db, &mut tx).await?;
    tx.commit().await.context("committing the host state")?;
    Ok(host)
}

/// A host the Fleet drives through a BMC goes into stock only once a check
/// found its plan's GPUs there: a refused or never-checked host may not be
/// what customers pay for. Read before the state change's transaction, so
/// that it never waits for a second pooled connection while holding the
/// write lock (the price: a BMC replaced in that instant is not seen, a
/// race between two staff actions on one host that we accept).
async fn refuse_unchecked(db: &Db, name: &str) -> Result<(), InventoryError> {
    let host_id: Option<HostId> = sqlx::query_scalar("select id from hosts where name = $1")
        .bind(name)
        .fetch_optional(&db.pool)
        .await
        .context("reading the host")?;
    let host_id = host_id.ok_or_else(|| InventoryError::UnknownHost(name.to_owned()))?;
    if bmc::passed_check(db, &host_id).await? {
        Ok(())
    } else {
        Err(InventoryError::NotChecked(name.to_owned()))
    }
}

async fn record_event(
    tx: &mut Transaction<'_, Any>,
    host_id: &HostId,
    from: Option<HostState>,
    to: HostState,
    actor: &str,
    reason: &str,
    at: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into host_events (id, host_id, from_state, to_state, actor, reason, at) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(new_id())
    .bind(host_id)
    .bind(from.map(HostState::as_str))
    .bind(to.as_str())
    .bind(actor)
    .bind(reason)
    .bind(at)
    .execute(&mut **tx)
    .await
    .context("recording the host event")?;
    Ok(())
}

/// Tells every replica that stock may have changed: the version row moves
/// in the same transaction, so the change and the signal commit together.
/// (SQLite replicas also see any commit through `pragma data_version`.)
pub(crate) async fn notify_stock_changed(
    _db: &Db,
    tx: &mut Transaction<'_, Any>,
) -> anyhow::Result<()> {
    sqlx::query("update storefront_version set version = version + 1 where id = 1")
        .execute(&mut **tx)
        .await
        .context("bumping the storefront version")?;
    Ok(())
}
