//! Taking hosts for orders, and giving back holds nobody paid for.
//!
//! A host is taken with one conditional update: the sub-select picks a
//! candidate and the outer `where` re-checks it, so two buyers can never
//! get the same host. On PostgreSQL `for update skip locked` makes
//! concurrent buyers pick different candidates instead of queueing behind
//! one; SQLite has a single writer, so the statement alone is enough.

use anyhow::Context;
use domain::{HostId, OrderId};
use sqlx::{Any, Row, Transaction};

use crate::db::{new_id, Backend};
use crate::inventory::notify_stock_changed;
use crate::{Clock, Db};

/// How long a checkout may keep a host before it returns by itself: the
/// 30 minutes a Stripe Checkout Session must at least live, and 5 for the
/// customer to get there; the session ends with the hold.
pub const HOLD_SECS: i64 = 35 * 60;

/// The shortest time Stripe lets a Checkout Session live, with a minute
/// for our request to reach it.
pub const SHORTEST_CHECKOUT_SECS: i64 = 31 * 60;

/// Makes an order's hold last until at least `until` (a Checkout Session
/// opened late in the hold must still live Stripe's minimum); answers the
/// hold's end, or `None` if the order holds nothing any more.
pub async fn hold_at_least(
    db: &Db,
    order_id: &OrderId,
    until: i64,
    now: i64,
) -> anyhow::Result<Option<i64>> {
    let mut tx = db.begin().await?;
    let held: Option<Option<i64>> = sqlx::query_scalar(
        "select hold_expires_at from orders where id = $1 and state = 'held' and hold_expires_at > $2",
    )
    .bind(order_id)
    .bind(now)
    .fetch_optional(&mut *tx)
    .await
    .context("reading the hold")?;
    let Some(Some(current)) = held else {
        return Ok(None);
    };
    if current >= until {
        return Ok(Some(current));
    }
    extend_hold(&mut tx, order_id, until, now).await?;
    tx.commit().await.context("committing the hold")?;
    Ok(Some(until))
}

/// Takes a free host (or one whose hold ran out) of a plan at a site for an
/// order, as `held` until `hold_until` or directly as `allocated` when
/// `hold_until` is `None`. Returns the host's id and name.
pub(crate) async fn take_host(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    plan: &str,
    site: &str,
    order_id: &OrderId,
    hold_until: Option<i64>,
    now: i64,
) -> anyhow::Result<Option<(HostId, String)>> {
    let lock = match db.backend {
        Backend::Postgres => "for update skip locked",
        Backend::Sqlite => "",
    };
    let takeable = "(state = 'free' or (state = 'held' and hold_expires_at <= $6))";
    let sql = format!(
        "update hosts set state = $1, hold_expires_at = $2, order_id = $3, updated_at = $6 \
         where id = (select id from hosts where site_code = $4 and plan_id = $5 and {takeable} \
                     order by name limit 1 {lock}) \
         and {takeable} returning id, name"
    );
    let state = if hold_until.is_some() {
        "held"
    } else {
        "allocated"
    };
    let row = sqlx::query(&sql)
        .bind(state)
        .bind(hold_until)
        .bind(order_id)
        .bind(site)
        .bind(plan)
        .bind(now)
        .fetch_optional(&mut **tx)
        .await
        .context("taking a host")?;
    let Some(row) = row else {
        return Ok(None);
    };
    let id: HostId = row.try_get("id")?;
    let name: String = row.try_get("name")?;
    host_event(tx, &id, state, &format!("order {order_id}"), now).await?;
    notify_stock_changed(db, tx).await?;
    Ok(Some((id, name)))
}

pub(crate) async fn host_event(
    tx: &mut Transaction<'_, Any>,
    host_id: &HostId,
    to: &str,
    reason: &str,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into host_events (id, host_id, from_state, to_state, actor, reason, at) \
         values ($1, $2, null, $3, 'system', $4, $5)",
    )
    .bind(new_id())
    .bind(host_id)
    .bind(to)
    .bind(reason)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("recording a host event")?;
    Ok(())
}

/// Gives back the host an order holds, now (its checkout expired or its
/// payment failed before the hold ran out).
pub(crate) async fn release_order_hold(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    order_id: &OrderId,
    reason: &str,
    now: i64,
) -> anyhow::Result<()> {
    let released: Option<HostId> = sqlx::query_scalar(
        "update hosts set state = 'free', hold_expires_at = null, order_id = null, updated_at = $1 \
         where order_id = $2 and state = 'held' returning id",
    )
    .bind(now)
    .bind(order_id)
    .fetch_optional(&mut **tx)
    .await
    .context("releasing the order's hold")?;
    if let Some(id) = released {
        host_event(tx, &id, "free", reason, now).await?;
        notify_stock_changed(db, tx).await?;
    }
    Ok(())
}

/// How long a payment that completed but has not settled (a SEPA or
/// other bank debit) keeps its host: Stripe gives such debits up to 14
/// business days; its success or failure ends the hold sooner.
pub const SETTLING_HOLD_SECS: i64 = 21 * 86_400;

/// The order's hold (and its host's) lasts while its payment settles.
pub async fn hold_while_settling(
    tx: &mut Transaction<'_, Any>,
    order_id: &OrderId,
    now: i64,
) -> anyhow::Result<()> {
    extend_hold(tx, order_id, now + SETTLING_HOLD_SECS, now).await
}

/// Moves a held order's hold, and its host's, out to `until` (never
/// nearer).
async fn extend_hold(
    tx: &mut Transaction<'_, Any>,
    order_id: &OrderId,
    until: i64,
    now: i64,
) -> anyhow::Result<()> {
    for (table, key) in [("orders", "id"), ("hosts", "order_id")] {
        sqlx::query(&format!(
            "update {table} set hold_expires_at = $1, updated_at = $2 \
             where {key} = $3 and state = 'held' and hold_expires_at < $1"
        ))
        .bind(until)
        .bind(now)
        .bind(order_id)
        .execute(&mut **tx)
        .await
        .with_context(|| format!("extending the hold in {table}"))?;
    }
    Ok(())
}

/// Returns hosts whose hold ran out and marks their orders expired. Safe
/// on every replica at once: each row moves at most once.
pub async fn expire_holds(db: &Db, clock: &Clock) -> anyhow::Result<u64> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let released = sqlx::query(
        "update hosts set state = 'free', hold_expires_at = null, order_id = null, updated_at = $1 \
         where state = 'held' and hold_expires_at <= $1 returning id",
    )
    .bind(now)
    .fetch_all(&mut *tx)
    .await
    .context("releasing expired holds")?;
    for row in &released {
        let id: HostId = row.try_get("id")?;
        host_event(&mut tx, &id, "free", "hold expired", now).await?;
    }
    let expired: Vec<String> = sqlx::query_scalar(
        "update orders set state = 'expired', hold_expires_at = null, updated_at = $1 \
         where state = 'held' and hold_expires_at <= $1 returning id",
    )
    .bind(now)
    .fetch_all(&mut *tx)
    .await
    .context("expiring unpaid orders")?;
    for order_id in &expired {
        crate::events::order(&mut tx, order_id, "expired", now).await?;
    }
    if !released.is_empty() {
        notify_stock_changed(db, &mut tx).await?;
    }
    tx.commit().await.context("committing expired holds")?;
    Ok(expired.len() as u64)
}
