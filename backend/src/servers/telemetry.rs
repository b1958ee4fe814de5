//! A server's telemetry as its customer sees it: only their own time on
//! the host. The Fleet reports a host over its whole life (corrected ECC
//! errors since the card went into service, traffic since the 1st of the
//! month, readings from before the rental); shown as is, a new server
//! looked faulty with a previous tenant's errors and hours. So the charts
//! start at delivery and the counters count from zero at delivery, for any
//! Fleet, without asking the control plane to reset hardware counters.

use anyhow::Context;

use super::Server;
use crate::fleet::{Fleet, Sample};
use crate::Db;

/// How far back the page looks.
pub const WINDOW_SECS: i64 = 86_400;

/// The last day of a server since its delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Telemetry {
    /// When the server was handed over on its current host.
    pub delivered_at: i64,
    /// Readings from `max(now − 24 h, delivered_at)` to now.
    pub samples: Vec<Sample>,
    /// Per card: (corrected ECC errors since delivery, of which in the last
    /// 24 hours).
    pub ecc: Vec<(i64, i64)>,
    /// Bytes sent this calendar month since delivery.
    pub traffic_bytes: i64,
}

/// When the server started on the host it runs on: it became `running`,
/// or was `rebuilt` on another host after a failure (the counters before
/// the move belong to a different machine).
pub async fn delivered_at(db: &Db, server: &Server) -> anyhow::Result<Option<i64>> {
    let at: Option<i64> = sqlx::query_scalar(
        "select max(at) from server_events where server_id = $1 and kind in ('running', 'rebuilt')",
    )
    .bind(&server.id)
    .fetch_one(&db.pool)
    .await
    .context("reading when the server was delivered")?;
    Ok(at.or(server.term_start))
}

/// The readings of `server` (on `host`, with `cards` GPUs) every `step`
/// seconds since delivery, within the last 24 hours before `now`.
pub async fn since_delivery(
    db: &Db,
    fleet: &dyn Fleet,
    server: &Server,
    host: &str,
    cards: u32,
    now: i64,
    step: i64,
) -> anyhow::Result<Telemetry> {
    let delivered_at = delivered_at(db, server).await?.unwrap_or(now).min(now);
    let from = (now - WINDOW_SECS).max(delivered_at);
    let samples = fleet
        .telemetry(host, cards, from, now, step)
        .await
        .context("reading telemetry from the Fleet")?;
    // The counters as they stood at delivery: the window's first reading
    // when it starts there, otherwise one reading at that moment.
    let baseline = if from == delivered_at {
        samples.first().cloned()
    } else {
        fleet
            .telemetry(host, cards, delivered_at, delivered_at, 1)
            .await
            .context("reading the counters at delivery")?
            .into_iter()
            .next()
    };
    let card =
        |s: Option<&Sample>, c: usize| s.and_then(|s| s.ecc_corrected.get(c)).copied().unwrap_or(0);
    let last = samples.last();
    let ecc = (0..cards as usize)
        .map(|c| {
            let total = (card(last, c) - card(baseline.as_ref(), c)).max(0);
            let today = (card(last, c) - card(samples.first(), c)).max(0);
            (total, today.min(total))
        })
        .collect();
    // Traffic restarts at each month's 1st; before that, this month's
    // count holds nothing of the previous tenant.
    let (y, m, _) = domain::time::civil_from_days(now.div_euclid(86_400));
    let month_start = domain::time::days_from_civil(y, m, 1) * 86_400;
    let traffic_at_delivery = match &baseline {
        Some(b) if delivered_at >= month_start => b.traffic_month_bytes,
        _ => 0,
    };
    let traffic_bytes = last.map_or(0, |s| (s.traffic_month_bytes - traffic_at_delivery).max(0));
    Ok(Telemetry {
        delivered_at,
        samples,
        ecc,
        traffic_bytes,
    })
}
