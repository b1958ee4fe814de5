//! Stock history: what the public was told about each plan at each site
//! (a level and a band of free hosts, never an exact count above two), one
//! row per change. The worker records it; the stock feed
//! (`/api/v1/stock/feed.atom`) reads it.

use anyhow::Context;
use domain::StockLevel;
use sqlx::Row;
use std::collections::HashMap;

use crate::db::new_id;
use crate::{inventory, Clock, Db};

/// The bands of free hosts the public sees.
pub const BANDS: [&str; 5] = ["0", "1", "2", "3-9", "10+"];
/// The levels, as the API and the history spell them.
pub const LEVELS: [&str; 3] = ["in_stock", "few", "sold_out"];

/// The band a number of free hosts falls in.
pub fn band(free: u32) -> &'static str {
    match free {
        0 => "0",
        1 => "1",
        2 => "2",
        3..=9 => "3-9",
        _ => "10+",
    }
}

/// The level as the API spells it.
pub fn level_code(level: StockLevel) -> &'static str {
    match level {
        StockLevel::InStock => "in_stock",
        StockLevel::Few(_) => "few",
        StockLevel::SoldOut => "sold_out",
    }
}

/// One change: from `changed_at` on, the plan at the site was at `level`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StockChange {
    pub id: String,
    pub plan_id: String,
    pub site_code: String,
    /// One of [`LEVELS`].
    pub level: &'static str,
    /// One of [`BANDS`].
    pub band: &'static str,
    pub changed_at: i64,
}

/// The last recorded (seq, level, band) of every plan × site.
async fn latest(db: &Db) -> anyhow::Result<HashMap<(String, String), (i64, String, String)>> {
    let rows = sqlx::query(
        "select c.plan_id, c.site_code, c.seq, c.level, c.band from stock_changes c \
         join (select plan_id, site_code, max(seq) as seq from stock_changes \
               group by plan_id, site_code) m \
           on m.plan_id = c.plan_id and m.site_code = c.site_code and m.seq = c.seq",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading the latest stock changes")?;
    rows.iter()
        .map(|r| {
            Ok((
                (r.try_get("plan_id")?, r.try_get("site_code")?),
                (r.try_get("seq")?, r.try_get("level")?, r.try_get("band")?),
            ))
        })
        .collect()
}

/// Compares what the public is told now about every plan × site with the
/// last recorded change and records the differences (the first run records
/// every combination). Answers the rows recorded.
///
/// Safe on several replicas at once: a row takes the previous `seq` + 1
/// and the insert does nothing on a taken `seq`, so racing workers record
/// one row. The last recorded rows are read *before* stock is counted: a
/// worker whose count is older than a row another one just wrote then
/// collides on that row's `seq` instead of recording the older state after
/// it.
pub async fn record_changes(db: &Db, clock: &Clock) -> anyhow::Result<usize> {
    let recorded = latest(db).await?;
    let combinations = sqlx::query(
        "select p.id as plan_id, s.code as site_code from plans p cross join sites s \
         order by p.position, s.position",
    )
    .fetch_all(&db.pool)
    .await
    .context("listing plan × site combinations")?;
    let stock = inventory::stock_snapshot(db, clock).await?;
    let mut inserted = 0;
    for row in &combinations {
        let plan: String = row.try_get("plan_id")?;
        let site: String = row.try_get("site_code")?;
        let free = stock
            .free
            .iter()
            .find(|(s, p, _)| s.as_str() == site && p.as_str() == plan)
            .map_or(0, |(_, _, n)| *n);
        let level = level_code(StockLevel::from_free(free));
        let band = band(free);
        let seq = match recorded.get(&(plan.clone(), site.clone())) {
            Some((_, l, b)) if l == level && b == band => continue,
            Some((seq, _, _)) => seq + 1,
            None => 1,
        };
        let mut tx = db.begin().await.context("starting a transaction")?;
        let done = sqlx::query(
            "insert into stock_changes (id, plan_id, site_code, seq, level, band, changed_at) \
             values ($1, $2, $3, $4, $5, $6, $7) \
             on conflict (plan_id, site_code, seq) do nothing",
        )
        .bind(new_id())
        .bind(&plan)
        .bind(&site)
        .bind(seq)
        .bind(level)
        .bind(band)
        .bind(stock.read_at)
        .execute(&mut *tx)
        .await
        .context("recording a stock change")?;
        if done.rows_affected() == 1 && seq > 1 {
            // Everyone's news (the first count of a combination is none).
            let data = serde_json::json!({
                "object": "stock", "plan": plan, "site": site, "level": level, "band": band,
            });
            let subject = format!("{plan}@{site}");
            crate::events::record(
                &mut tx,
                None,
                "stock.changed",
                &subject,
                data,
                stock.read_at,
            )
            .await?;
        }
        tx.commit().await.context("committing the stock change")?;
        inserted += done.rows_affected() as usize;
    }
    Ok(inserted)
}

/// The newest changes first, of one plan and/or one site if given.
pub async fn recent(
    db: &Db,
    plan: Option<&str>,
    site: Option<&str>,
    limit: u32,
) -> anyhow::Result<Vec<StockChange>> {
    // Conditions are added, not `$1 is null or …`: PostgreSQL cannot type a
    // parameter that is only compared with null.
    let mut sql = "select id, plan_id, site_code, level, band, changed_at from stock_changes \
                   where 1 = 1"
        .to_owned();
    let mut n = 0;
    let mut param = |column: &str| {
        n += 1;
        format!(" and {column} = ${n}")
    };
    if plan.is_some() {
        sql.push_str(&param("plan_id"));
    }
    if site.is_some() {
        sql.push_str(&param("site_code"));
    }
    let limit_at = n + 1;
    sql.push_str(&format!(
        " order by changed_at desc, id desc limit ${limit_at}"
    ));
    let mut query = sqlx::query(&sql);
    for value in [plan, site].into_iter().flatten() {
        query = query.bind(value);
    }
    let rows = query
        .bind(i64::from(limit))
        .fetch_all(&db.pool)
        .await
        .context("reading recent stock changes")?;
    rows.iter()
        .map(|r| {
            let level: String = r.try_get("level")?;
            let band: String = r.try_get("band")?;
            Ok(StockChange {
                id: r.try_get("id")?,
                plan_id: r.try_get("plan_id")?,
                site_code: r.try_get("site_code")?,
                level: known(&LEVELS, &level).with_context(|| format!("level {level:?}"))?,
                band: known(&BANDS, &band).with_context(|| format!("band {band:?}"))?,
                changed_at: r.try_get("changed_at")?,
            })
        })
        .collect()
}

fn known(list: &[&'static str], raw: &str) -> Option<&'static str> {
    list.iter().copied().find(|x| *x == raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_never_tell_counts_above_two() {
        let bands: Vec<_> = [0, 1, 2, 3, 9, 10, 250].into_iter().map(band).collect();
        assert_eq!(bands, ["0", "1", "2", "3-9", "3-9", "10+", "10+"]);
    }
}
