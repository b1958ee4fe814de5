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

/// Job states, each set at every scrape so a state that emptied reads 0
/// rather than its last count.
const JOB_STATES: [&str; 3] = ["queued", "done", "dead"];

/// Prometheus metrics. The gauges read from the database are set here, at
/// the scrape; a read that fails leaves its gauge as it was (and `ready` 0).
pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let m = &state.metrics;
    m.ready.set(i64::from(state.db.ping().await.is_ok()));
    match backend::jobs::counts(&state.db).await {
        Ok(counts) => {
            for job_state in JOB_STATES {
                let n = counts
                    .iter()
                    .find(|(s, _)| s == job_state)
                    .map_or(0, |(_, n)| *n);
                let labels = crate::metrics::QueueLabels {
                    state: job_state.to_owned(),
                };
                m.jobs_queued.get_or_create(&labels).set(n);
            }
        }
        Err(error) => warn_unread("jobs", &error),
    }
    match backend::billing::stripe::events::held_count(&state.db).await {
        Ok(held) => {
            m.stripe_events_held.set(held);
        }
        Err(error) => warn_unread("held Stripe events", &error),
    }
    match backend::mail::backlog(&state.db, state.clock.now()).await {
        Ok((pending, oldest)) => {
            m.mail_pending.set(pending);
            m.mail_oldest_pending_seconds.set(oldest);
        }
        Err(error) => warn_unread("the mail backlog", &error),
    }
    match backend::inventory::free_where_racked(&state.db, &state.clock).await {
        Ok(stock) => {
            for (site, plan, free) in stock {
                let labels = crate::metrics::StockLabels { plan, site };
                m.stock_free_hosts.get_or_create(&labels).set(free);
            }
        }
        Err(error) => warn_unread("stock", &error),
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

fn warn_unread(what: &str, error: &anyhow::Error) {
    tracing::warn!(error = %format!("{error:#}"), "reading {what} for metrics failed");
}
