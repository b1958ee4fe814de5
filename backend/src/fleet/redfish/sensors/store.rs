//! The readings kept of each host (`host_readings`): one row per reading
//! and card, 35 days of them.

use anyhow::Context;
use domain::HostId;
use sqlx::any::AnyRow;
use sqlx::Row;

use super::HostReading;
use crate::fleet::Sample;
use crate::Db;

/// How long readings are kept: the charts and Fleet health look one day
/// back, staff a month when a card is in question.
pub const KEEP_SECS: i64 = 35 * 86_400;

/// When the host was last read, if ever.
pub async fn newest(db: &Db, host_id: &HostId) -> anyhow::Result<Option<i64>> {
    sqlx::query_scalar("select max(at) from host_readings where host_id = $1")
        .bind(host_id)
        .fetch_one(&db.pool)
        .await
        .context("reading when the host was last read")
}

/// Per card, the uncorrected error count of the host's newest reading.
pub async fn newest_uncorrected(db: &Db, host_id: &HostId) -> anyhow::Result<Option<Vec<i64>>> {
    let Some(at) = newest(db, host_id).await? else {
        return Ok(None);
    };
    let counts = sqlx::query_scalar(
        "select ecc_uncorrected from host_readings where host_id = $1 and at = $2 order by card",
    )
    .bind(host_id)
    .bind(at)
    .fetch_all(&db.pool)
    .await
    .context("reading the last uncorrected error counts")?;
    Ok(Some(counts))
}

/// Stores a reading taken at `at` and forgets the host's readings that
/// are older than [`KEEP_SECS`]. Two replicas reading the host in the same
/// second store it once.
pub async fn save(db: &Db, host_id: &HostId, at: i64, reading: &HostReading) -> anyhow::Result<()> {
    let mut tx = db.begin().await.context("starting a transaction")?;
    for (card, sensors) in reading.cards.iter().enumerate() {
        let count = |counts: &[i64]| counts.get(card).copied().unwrap_or(0);
        sqlx::query(
            "insert into host_readings (host_id, at, card, gpu_temp_c, sm_clock_mhz, \
             ecc_corrected, ecc_uncorrected, power_watts) \
             values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing",
        )
        .bind(host_id)
        .bind(at)
        .bind(i64::try_from(card).context("card number")?)
        .bind(sensors.temp_c)
        .bind(sensors.clock_mhz)
        .bind(count(&reading.errors.corrected))
        .bind(count(&reading.errors.uncorrected))
        .bind(reading.power_watts)
        .execute(&mut *tx)
        .await
        .context("storing a reading")?;
    }
    sqlx::query("delete from host_readings where host_id = $1 and at < $2")
        .bind(host_id)
        .bind(at - KEEP_SECS)
        .execute(&mut *tx)
        .await
        .context("forgetting old readings")?;
    tx.commit().await.context("committing the reading")?;
    Ok(())
}

/// The readings from `from` to `to`, at least `step` seconds apart (the
/// first and the last are always kept: the counters' change over the
/// window is what Fleet health reads). Asked for one moment
/// (`from == to`), the reading nearest to it: the counters as they stood
/// then, which the customer's telemetry starts from.
pub async fn between(
    db: &Db,
    host_id: &HostId,
    from: i64,
    to: i64,
    step: i64,
) -> anyhow::Result<Vec<Sample>> {
    if from == to {
        return nearest(db, host_id, from).await;
    }
    let rows = sqlx::query(
        "select at, card, gpu_temp_c, sm_clock_mhz, ecc_corrected from host_readings \
         where host_id = $1 and at >= $2 and at <= $3 order by at, card",
    )
    .bind(host_id)
    .bind(from)
    .bind(to)
    .fetch_all(&db.pool)
    .await
    .context("reading the host's readings")?;
    let samples = samples(&rows)?;
    let mut kept: Vec<Sample> = Vec::new();
    let count = samples.len();
    for (i, sample) in samples.into_iter().enumerate() {
        let spaced = kept.last().is_none_or(|k| sample.at >= k.at + step);
        if spaced || i + 1 == count {
            kept.push(sample);
        }
    }
    Ok(kept)
}

async fn nearest(db: &Db, host_id: &HostId, at: i64) -> anyhow::Result<Vec<Sample>> {
    let before: Option<i64> =
        sqlx::query_scalar("select max(at) from host_readings where host_id = $1 and at <= $2")
            .bind(host_id)
            .bind(at)
            .fetch_one(&db.pool)
            .await
            .context("reading the reading before")?;
    let after: Option<i64> =
        sqlx::query_scalar("select min(at) from host_readings where host_id = $1 and at > $2")
            .bind(host_id)
            .bind(at)
            .fetch_one(&db.pool)
            .await
            .context("reading the reading after")?;
    let chosen = match (before, after) {
        (Some(b), Some(a)) => Some(if a - at < at - b { a } else { b }),
        (b, a) => b.or(a),
    };
    let Some(chosen) = chosen else {
        return Ok(Vec::new());
    };
    let rows = sqlx::query(
        "select at, card, gpu_temp_c, sm_clock_mhz, ecc_corrected from host_readings \
         where host_id = $1 and at = $2 order by card",
    )
    .bind(host_id)
    .bind(chosen)
    .fetch_all(&db.pool)
    .await
    .context("reading the nearest reading")?;
    samples(&rows)
}

/// Rows ordered by time and card, as one sample per time.
fn samples(rows: &[AnyRow]) -> anyhow::Result<Vec<Sample>> {
    let mut samples: Vec<Sample> = Vec::new();
    for row in rows {
        let at: i64 = row.try_get("at")?;
        if samples.last().is_none_or(|s| s.at != at) {
            samples.push(Sample {
                at,
                gpu_temp_c: Vec::new(),
                sm_clock_mhz: Vec::new(),
                ecc_corrected: Vec::new(),
                // Traffic is counted by the site's switches, not the BMC:
                // the BMC only sees the host's own management port.
                traffic_month_bytes: 0,
            });
        }
        let Some(sample) = samples.last_mut() else {
            continue;
        };
        sample.gpu_temp_c.push(row.try_get("gpu_temp_c")?);
        sample.sm_clock_mhz.push(row.try_get("sm_clock_mhz")?);
        sample.ecc_corrected.push(row.try_get("ecc_corrected")?);
    }
    Ok(samples)
}
