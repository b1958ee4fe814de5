//! Liveness, readiness and metrics for operators and load balancers.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

use crate::startup::AppState;

/// The process is up.
pub async fn healthz() -> &'static str {
    "ok"
}

/// The process can serve: the database answers.
pub async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    match state.db.ping().await {
        Ok(()) => "ready".into_response(),
        Err(error) => {
            tracing::warn!(error = %format!("{error:#}"), "readiness check failed");
            (StatusCode::SERVICE_UNAVAILABLE, "database unavailable").into_response()
        }
    }
}

pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    match backend::jobs::counts(&state.db).await {
        Ok(counts) => {
            for (queue_state, n) in counts {
                state
                    .metrics
                    .jobs_queued
                    .get_or_create(&crate::metrics::QueueLabels { state: queue_state })
                    .set(n);
            }
        }
        Err(error) => {
            tracing::warn!(error = %format!("{error:#}"), "counting jobs for metrics failed")
        }
    }
    match backend::billing::stripe::events::held_count(&state.db).await {
        Ok(held) => {
            state.metrics.stripe_events_held.set(held);
        }
        Err(error) => {
            tracing::warn!(error = %format!("{error:#}"), "counting held Stripe events failed")
        }
    }
    (
        [(
            http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.render(),
    )
        .into_response()
}
