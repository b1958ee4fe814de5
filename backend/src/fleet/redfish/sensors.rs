//! Health and telemetry from the BMC. A BMC reports only what its sensors
//! read now, while the telemetry charts and Fleet health look a day back;
//! so each reading is kept ([`store`]), taken when someone asks and the
//! newest is a minute old or more. Per card: the GPU's temperature and
//! clock (`ProcessorMetrics`, or the chassis' GPU thermal sensors), and
//! memory errors from the host's event log ([`event_log`]); per host: its
//! power draw. A new uncorrected memory error marks the host degraded.
//!
//! Traffic is not the BMC's to know (it sees its management port only):
//! it comes from the site's switches, so `traffic_month_bytes` is 0 here.

mod event_log;
mod store;

use serde_json::Value;
use sqlx::Row;

use super::client::{link, members, Bmc, BmcError};
use super::{RedfishFleet, Target};
use crate::fleet::{FleetError, Sample};
use event_log::ErrorCounts;

/// A reading younger than this is answered from the store: several
/// replicas, pages and Fleet health ask, and a BMC answers slowly.
const FRESH_SECS: i64 = 60;

/// One card's sensors. A sensor the BMC does not report reads 0.
struct CardSensors {
    temp_c: i64,
    clock_mhz: i64,
}

/// What one visit to the BMC read.
pub(super) struct HostReading {
    /// In GPU order (the BMC's `Processors` of type GPU).
    cards: Vec<CardSensors>,
    power_watts: i64,
    errors: ErrorCounts,
}

impl RedfishFleet {
    pub(super) async fn readings(
        &self,
        host: &str,
        _cards: u32,
        from: i64,
        to: i64,
        step: i64,
    ) -> Result<Vec<Sample>, FleetError> {
        crate::fleet::telemetry::check_range(from, to, step)?;
        let target = self.target(host).await?;
        let host_id = &target.bmc.host_id;
        let unavailable = |e: anyhow::Error| FleetError::Unavailable(format!("{host}: {e:#}"));
        let now = self.clock.now();
        let mut failure = None;
        // Only a window reaching the present needs a new reading.
        if to >= now - FRESH_SECS {
            let newest = store::newest(&self.db, host_id)
                .await
                .map_err(unavailable)?;
            if newest.is_none_or(|at| now - at >= FRESH_SECS) {
                failure = self.sample(&target, now).await.err();
            }
        }
        let samples = store::between(&self.db, host_id, from, to, step)
            .await
            .map_err(unavailable)?;
        // A BMC that did not answer (noted in the host's history) leaves
        // the charts with what was read before.
        match failure {
            Some(error) if samples.is_empty() => Err(error),
            _ => Ok(samples),
        }
    }

    /// Reads the host's BMC and keeps the reading.
    async fn sample(&self, target: &Target, at: i64) -> Result<(), FleetError> {
        let bmc = self.clients.connect(&target.bmc.access);
        let system = self.system(&bmc, target).await?;
        let read = read(&bmc, &system).await;
        let reading = self.bmc_result(target, read).await?;
        let host = &target.bmc.host_name;
        let unavailable = |e: anyhow::Error| FleetError::Unavailable(format!("{host}: {e:#}"));
        let before = store::newest_uncorrected(&self.db, &target.bmc.host_id)
            .await
            .map_err(unavailable)?;
        // Marked before the reading is kept: if marking fails, the next
        // reading still sees the rise.
        self.watch_uncorrected(target, before.as_deref(), &reading.errors)
            .await?;
        store::save(&self.db, &target.bmc.host_id, at, &reading)
            .await
            .map_err(unavailable)
    }

    /// An uncorrected memory error is data lost or about to be: the host
    /// is marked degraded (its customer is told, staff plan a repair)
    /// when the log holds more of them than at the last reading.
    async fn watch_uncorrected(
        &self,
        target: &Target,
        before: Option<&[i64]>,
        errors: &ErrorCounts,
    ) -> Result<(), FleetError> {
        let host = &target.bmc.host_name;
        let rose = errors
            .uncorrected
            .iter()
            .enumerate()
            .any(|(card, &now)| now > before.and_then(|b| b.get(card)).copied().unwrap_or(0));
        if !rose {
            return Ok(());
        }
        let what = errors.newest_uncorrected.as_deref().unwrap_or("?");
        let reason = format!("uncorrectable memory error in the BMC log: {what}");
        self.note(target, &reason).await;
        let unavailable = |e: String| FleetError::Unavailable(format!("{host}: {e}"));
        let degraded: Option<String> =
            sqlx::query("select degraded_reason from hosts where id = $1")
                .bind(&target.bmc.host_id)
                .fetch_one(&self.db.pool)
                .await
                .and_then(|row| row.try_get("degraded_reason"))
                .map_err(|e| unavailable(format!("reading whether the host is degraded: {e}")))?;
        // Already degraded: the event above is enough; the first reason
        // stays what staff and the customer were told.
        if degraded.is_some() {
            return Ok(());
        }
        crate::servers::maintenance::mark_degraded(
            &self.db,
            &self.clock,
            host,
            &reason,
            "fleet-health",
        )
        .await
        .map_err(|e| unavailable(format!("marking the host degraded: {e:#}")))
    }
}

/// Reads the system's GPUs, power draw and event log.
async fn read(bmc: &Bmc<'_>, system_path: &str) -> Result<HostReading, BmcError> {
    let system = bmc.get(system_path).await?;
    let mut gpus = Vec::new();
    if let Some(processors) = link(&system["Processors"]) {
        for path in members(&bmc.get(processors).await?) {
            let processor = bmc.get(&path).await?;
            if processor["ProcessorType"].as_str() == Some("GPU") {
                gpus.push((path, processor));
            }
        }
    }
    let chassis = match system["Links"]["Chassis"].get(0).and_then(link) {
        Some(path) => Some(bmc.get(path).await?),
        None => None,
    };
    let cards = card_sensors(bmc, &gpus, chassis.as_ref()).await?;
    // `Power` is deprecated for `PowerSubsystem` in newer schemas, but
    // every BMC in service still serves it.
    let power_watts = match chassis.as_ref().and_then(|c| link(&c["Power"])) {
        Some(path) => number(&bmc.get(path).await?["PowerControl"][0]["PowerConsumedWatts"]),
        None => 0,
    };
    let gpu_paths: Vec<String> = gpus.into_iter().map(|(path, _)| path).collect();
    let errors = event_log::count(bmc, &system, &gpu_paths).await?;
    Ok(HostReading {
        cards,
        power_watts,
        errors,
    })
}

/// Each GPU's temperature and clock from its `ProcessorMetrics`; a GPU
/// without metrics (older BMCs) takes its temperature from the chassis'
/// thermal sensors of `PhysicalContext` GPU, the n-th GPU the n-th sensor,
/// and has no clock reading.
async fn card_sensors(
    bmc: &Bmc<'_>,
    gpus: &[(String, Value)],
    chassis: Option<&Value>,
) -> Result<Vec<CardSensors>, BmcError> {
    let mut thermal: Option<Vec<i64>> = None;
    let mut cards = Vec::with_capacity(gpus.len());
    for (n, (_, processor)) in gpus.iter().enumerate() {
        if let Some(metrics) = link(&processor["Metrics"]) {
            let metrics = bmc.get(metrics).await?;
            cards.push(CardSensors {
                temp_c: number(&metrics["TemperatureCelsius"]),
                clock_mhz: number(&metrics["OperatingSpeedMHz"]),
            });
            continue;
        }
        if thermal.is_none() {
            thermal = Some(gpu_temperatures(bmc, chassis).await?);
        }
        let temp_c = thermal
            .as_ref()
            .and_then(|t| t.get(n))
            .copied()
            .unwrap_or(0);
        cards.push(CardSensors {
            temp_c,
            clock_mhz: 0,
        });
    }
    Ok(cards)
}

async fn gpu_temperatures(bmc: &Bmc<'_>, chassis: Option<&Value>) -> Result<Vec<i64>, BmcError> {
    let Some(path) = chassis.and_then(|c| link(&c["Thermal"])) else {
        return Ok(Vec::new());
    };
    let thermal = bmc.get(path).await?;
    Ok(thermal["Temperatures"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["PhysicalContext"].as_str() == Some("GPU"))
        .map(|t| number(&t["ReadingCelsius"]))
        .collect())
}

/// A reading as a whole number; BMCs write 41, 41.0 or null.
fn number(value: &Value) -> i64 {
    value
        .as_i64()
        .or_else(|| value.as_f64().map(|f| f.round() as i64))
        .unwrap_or(0)
}
