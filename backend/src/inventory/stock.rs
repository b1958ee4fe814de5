//! Counting free hosts: the only source of stock.

use anyhow::Context;
use domain::{PlanId, SiteCode, StockSnapshot};
use sqlx::Row;

use crate::{Clock, Db};

/// Free hosts per site and plan right now. A hold past its expiry counts as
/// free even before the sweeper returns it, so an abandoned checkout never
/// hides stock.
pub async fn stock_snapshot(db: &Db, clock: &Clock) -> anyhow::Result<StockSnapshot> {
    let now = clock.now();
    let mut tx = db.pool.begin().await.context("starting the stock read")?;
    let rows = sqlx::query(
        "select site_code, plan_id, count(*) as free from hosts \
         where state = 'free' or (state = 'held' and hold_expires_at <= $1) \
         group by site_code, plan_id order by site_code, plan_id",
    )
    .bind(now)
    .fetch_all(&mut *tx)
    .await
    .context("counting free hosts")?;
    let next_expiry: Option<i64> = sqlx::query_scalar(
        "select min(hold_expires_at) from hosts where state = 'held' and hold_expires_at > $1",
    )
    .bind(now)
    .fetch_one(&mut *tx)
    .await
    .context("finding the next hold expiry")?;
    tx.commit().await.context("finishing the stock read")?;
    let free = rows
        .iter()
        .map(|r| -> anyhow::Result<(SiteCode, PlanId, u32)> {
            let site: String = r.try_get("site_code")?;
            let plan: String = r.try_get("plan_id")?;
            let n: i64 = r.try_get("free")?;
            Ok((
                SiteCode::parse(&site).context("stored site")?,
                PlanId::parse(&plan).context("stored plan")?,
                u32::try_from(n).context("free count")?,
            ))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(StockSnapshot {
        read_at: now,
        free,
        valid_until: next_expiry,
    })
}

/// Free hosts (as `stock_snapshot` counts them) for every site and plan
/// with any host racked, zeros included: for metrics, where a sold-out
/// site must be a 0 rather than a series that vanished.
pub async fn free_where_racked(
    db: &Db,
    clock: &Clock,
) -> anyhow::Result<Vec<(String, String, i64)>> {
    let rows = sqlx::query(
        "select site_code, plan_id, \
         sum(case when state = 'free' or (state = 'held' and hold_expires_at <= $1) \
         then 1 else 0 end) as free from hosts group by site_code, plan_id \
         order by site_code, plan_id",
    )
    .bind(clock.now())
    .fetch_all(&db.pool)
    .await
    .context("counting free hosts per site and plan")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("site_code")?,
                r.try_get("plan_id")?,
                r.try_get("free")?,
            ))
        })
        .collect()
}
