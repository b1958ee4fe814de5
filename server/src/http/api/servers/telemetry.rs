//! A server's telemetry and health as `GET /servers/{id}` summarizes them:
//! the latest reading per card and the counters since delivery (never a
//! previous tenant's), whether its host is degraded, and its maintenance
//! windows. The charts stay on the portal.

use backend::servers::{Server, ServerState};
use domain::time::format_iso;
use serde::Serialize;
use utoipa::ToSchema;

use super::super::choices::WindowStateChoice;
use super::super::ApiResult;
use crate::startup::AppState;

#[derive(Serialize, ToSchema)]
pub struct TelemetryJson {
    /// When the latest reading was taken.
    pub sampled_at: String,
    pub cards: Vec<CardJson>,
    /// Bytes sent this calendar month since delivery.
    pub traffic_bytes: i64,
    /// The monthly traffic included in the price.
    pub fair_use_bytes: i64,
}

#[derive(Serialize, ToSchema)]
pub struct CardJson {
    pub gpu_temp_c: i64,
    pub sm_clock_mhz: i64,
    /// Corrected ECC errors since delivery.
    pub ecc_corrected: i64,
    /// Of which in the last 24 hours.
    pub ecc_corrected_24h: i64,
}

#[derive(Serialize, ToSchema)]
pub struct HealthJson {
    /// Why the server's host is degraded (a card or part needs attention);
    /// null when healthy.
    pub degraded: Option<String>,
    pub maintenance: Vec<WindowJson>,
}

#[derive(Serialize, ToSchema)]
pub struct WindowJson {
    pub id: String,
    pub starts_at: String,
    pub ends_at: String,
    #[schema(value_type = WindowStateChoice)]
    pub state: String,
}

/// Telemetry (for a running server; `None` otherwise) and health. A Fleet
/// that cannot answer right now leaves telemetry out rather than failing
/// the whole read (the log says why).
pub async fn summary(
    state: &AppState,
    server: &Server,
) -> ApiResult<(Option<TelemetryJson>, HealthJson)> {
    let db = &state.db;
    let degraded = backend::servers::maintenance::degraded(db, &server.id).await?;
    let windows = backend::servers::maintenance::windows(db, &server.id).await?;
    let health = HealthJson {
        degraded,
        maintenance: windows
            .into_iter()
            .map(|w| WindowJson {
                starts_at: format_iso(w.starts_at),
                ends_at: format_iso(w.ends_at),
                id: w.id,
                state: w.state.as_str().to_owned(),
            })
            .collect(),
    };
    let telemetry = match readings(state, server).await {
        Ok(t) => t,
        Err(error) => {
            tracing::warn!(error = %format!("{error:#}"), server = %server.id, "reading telemetry failed");
            None
        }
    };
    Ok((telemetry, health))
}

async fn readings(state: &AppState, server: &Server) -> anyhow::Result<Option<TelemetryJson>> {
    let (Some(host), ServerState::Running) = (&server.host_name, server.state) else {
        return Ok(None);
    };
    let facts = state.facts.current().await?;
    let cards = facts
        .facts
        .catalog
        .plan(&server.plan_id)
        .map_or(1, |p| p.gpu_count);
    let now = state.clock.now();
    let t = backend::servers::telemetry::since_delivery(
        &state.db,
        state.fleet.as_ref(),
        server,
        host,
        cards,
        now,
        900,
    )
    .await?;
    let Some(last) = t.samples.last() else {
        return Ok(None);
    };
    Ok(Some(TelemetryJson {
        sampled_at: format_iso(last.at),
        cards: (0..cards as usize)
            .map(|card| {
                let (ecc, ecc_24h) = t.ecc.get(card).copied().unwrap_or((0, 0));
                CardJson {
                    gpu_temp_c: last.gpu_temp_c.get(card).copied().unwrap_or(0),
                    sm_clock_mhz: last.sm_clock_mhz.get(card).copied().unwrap_or(0),
                    ecc_corrected: ecc,
                    ecc_corrected_24h: ecc_24h,
                }
            })
            .collect(),
        traffic_bytes: t.traffic_bytes,
        fair_use_bytes: backend::fleet::FAIR_USE_BYTES,
    }))
}
