//! Fleet health: every few minutes each replica reads the last day of
//! telemetry of every rented host that is not degraded yet, and marks
//! degraded the hosts whose cards log corrected memory errors faster than
//! a healthy card does (about one a month). The customer is then told and
//! staff propose a window (`maintenance`). Marking is idempotent, so
//! replicas checking at once do no harm beyond a second event.

use anyhow::Context;
use domain::Catalog;
use sqlx::Row;

use crate::fleet::Fleet;
use crate::{Clock, Db};

/// Corrected ECC errors on one card within 24 hours that make its host
/// degraded.
pub const ECC_PER_DAY: i64 = 24;

/// Checks the rented hosts; answers how many it marked degraded.
pub async fn check(
    db: &Db,
    clock: &Clock,
    fleet: &dyn Fleet,
    catalog: &Catalog,
) -> anyhow::Result<u64> {
    let rented = sqlx::query(
        "select h.name, s.plan_id from hosts h join servers s on s.host_id = h.id \
         where h.degraded_reason is null and s.cancelled_at is null and s.state = 'running' \
         order by h.name",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading rented hosts")?;
    let now = clock.now();
    let mut marked = 0;
    for row in rented {
        let host: String = row.try_get("name")?;
        let plan: String = row.try_get("plan_id")?;
        let cards = catalog.plan(&plan).map_or(1, |p| p.gpu_count);
        let samples = match fleet.telemetry(&host, cards, now - 86_400, now, 3600).await {
            Ok(samples) => samples,
            Err(error) => {
                tracing::warn!(%host, %error, "fleet health could not read telemetry");
                continue;
            }
        };
        let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
            continue;
        };
        let rising = (0..cards as usize).find_map(|card| {
            let logged = last.ecc_corrected.get(card)? - first.ecc_corrected.get(card)?;
            (logged >= ECC_PER_DAY).then_some((card + 1, logged))
        });
        if let Some((card, logged)) = rising {
            let reason = format!("card {card}: {logged} corrected memory errors in 24 h");
            match super::maintenance::mark_degraded(db, clock, &host, &reason, "fleet-health").await
            {
                Ok(()) => marked += 1,
                Err(error) => {
                    tracing::warn!(%host, error = %error, "fleet health could not mark the host")
                }
            }
        }
    }
    Ok(marked)
}
