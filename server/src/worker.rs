//! The background worker every replica runs: it takes due jobs from the
//! database queue and hands them to `backend::worker::Runner`, runs the
//! periodic housekeeping (`backend::housekeeping::run_due`) every couple of
//! seconds, purges by retention hourly, checks Fleet health and reconciles
//! with Stripe on their own schedules. All of it is safe to run on several
//! replicas at once (see backend::jobs).

use backend::jobs;
use backend::worker::Runner;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

use crate::startup::AppState;

/// Jobs one replica runs at the same time; most of their time is spent
/// waiting on the control plane.
const PARALLEL_JOBS: usize = 16;
/// Housekeeping runs on every this many polls (2 s at the default poll).
const HOUSEKEEPING_EVERY: u32 = 10;

/// Events are published and due webhooks sent every this many polls (1 s
/// at the default poll): a webhook follows its event by about this much.
const WEBHOOKS_EVERY: u32 = 5;

/// The pause between looks for due jobs (`WORKER_POLL_MS`).
fn poll(state: &AppState) -> Duration {
    Duration::from_millis(state.config.worker_poll_ms.max(1))
}

/// Publishes recorded events (numbers them for `GET /events`, queues them
/// for webhook endpoints) and sends due deliveries, apart from the job
/// loop so a slow endpoint never delays a job.
fn spawn_webhooks(state: Arc<AppState>) {
    let sending = backend::webhooks::Sending {
        sealer: state.sealer.clone(),
        allow_private: state.config.webhooks_private(),
    };
    tokio::spawn(async move {
        loop {
            if state.db.pool.is_closed() {
                return;
            }
            if let Err(error) = backend::events::publish(&state.db).await {
                tracing::error!(error = %format!("{error:#}"), "publishing events failed");
            }
            match backend::webhooks::deliver_due(&state.db, &state.clock, &sending).await {
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(error = %format!("{error:#}"), "sending webhooks failed")
                }
            }
            tokio::time::sleep(poll(&state) * WEBHOOKS_EVERY).await;
        }
    });
}

pub fn spawn(state: Arc<AppState>, runner: Runner) {
    spawn_webhooks(state.clone());
    tokio::spawn(async move {
        let slots = Arc::new(Semaphore::new(PARALLEL_JOBS));
        let mut tick: u32 = 0;
        let every = Duration::from_secs(state.config.stripe_reconcile_secs.max(1));
        let mut reconciled = std::time::Instant::now();
        let health_every = Duration::from_secs(state.config.fleet_health_secs.max(1));
        let mut health_checked: Option<std::time::Instant> = None;
        let mut purged_at: Option<i64> = None;
        loop {
            if state.db.pool.is_closed() {
                return;
            }
            take_jobs(&state, &runner, &slots).await;
            if tick.is_multiple_of(HOUSEKEEPING_EVERY) {
                housekeeping(&state).await;
                state.metrics.housekeeping_passes.inc();
            }
            let now = state.clock.now();
            if purged_at.is_none_or(|at| now - at >= backend::housekeeping::EVERY_SECS) {
                purged_at = Some(now);
                purge(&state).await;
            }
            if health_checked.is_none_or(|at| at.elapsed() >= health_every) {
                health_checked = Some(std::time::Instant::now());
                fleet_health(&state).await;
            }
            if let Some(client) = state
                .stripe
                .as_ref()
                .filter(|_| reconciled.elapsed() >= every)
            {
                reconciled = std::time::Instant::now();
                match backend::billing::stripe::reconcile(
                    &state.db,
                    &state.clock,
                    client,
                    &state.seller,
                )
                .await
                {
                    Ok(pass) => tracing::debug!(
                        applied = pass.applied,
                        missing = pass.missing.len(),
                        skipped = pass.skipped.len(),
                        "reconciled with Stripe"
                    ),
                    Err(error) => {
                        tracing::error!(error = %format!("{error:#}"), "reconciling with Stripe failed")
                    }
                }
            }
            tick = tick.wrapping_add(1);
            tokio::time::sleep(poll(&state)).await;
        }
    });
}

async fn take_jobs(state: &Arc<AppState>, runner: &Runner, slots: &Arc<Semaphore>) {
    loop {
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            return;
        };
        let job = match jobs::claim(&state.db, &runner.owner, state.clock.now()).await {
            Ok(Some(job)) => job,
            Ok(None) => return,
            Err(error) => {
                tracing::error!(error = %format!("{error:#}"), "claiming a job failed");
                return;
            }
        };
        let runner = runner.clone();
        let state = state.clone();
        tokio::spawn(async move {
            let outcome = runner.run(&job).await;
            let label = match outcome {
                jobs::Outcome::Done => "done",
                jobs::Outcome::RetryAt(..) => "retry",
                jobs::Outcome::Wait(..) => "wait",
                jobs::Outcome::Dead(_) => "dead",
            };
            state
                .metrics
                .jobs_run
                .get_or_create(&crate::metrics::JobLabels {
                    kind: job.kind.as_str().to_owned(),
                    outcome: label,
                })
                .inc();
            if let Err(error) =
                jobs::finish(&state.db, &job, &runner.owner, &outcome, state.clock.now()).await
            {
                tracing::error!(job = %job.id, error = %format!("{error:#}"), "finishing a job failed");
            }
            drop(permit);
        });
    }
}

/// Retention (backend::housekeeping): expired sessions, old rate events,
/// failed logins, sent mail, finished jobs and processed Stripe events.
async fn purge(state: &AppState) {
    match backend::housekeeping::purge(&state.db, state.clock.now()).await {
        Ok(purged) => {
            let purged: Vec<_> = purged.into_iter().filter(|(_, n)| *n > 0).collect();
            if !purged.is_empty() {
                tracing::info!(?purged, "purged records past their retention");
            }
        }
        Err(error) => tracing::error!(error = %format!("{error:#}"), "purging failed"),
    }
}

/// Fleet health (backend::servers::health): hosts whose cards log
/// corrected memory errors too fast are marked degraded.
async fn fleet_health(state: &AppState) {
    let catalog = match state.facts.current().await {
        Ok(v) => v.facts.catalog.clone(),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "loading the catalog failed");
            return;
        }
    };
    match backend::servers::health::check(&state.db, &state.clock, state.fleet.as_ref(), &catalog)
        .await
    {
        Ok(0) => {}
        Ok(marked) => tracing::info!(marked, "fleet health marked hosts degraded"),
        Err(error) => tracing::error!(error = %format!("{error:#}"), "fleet health failed"),
    }
}

async fn housekeeping(state: &AppState) {
    match state.facts.current().await {
        Ok(v) => {
            backend::housekeeping::run_due(
                &state.db,
                &state.clock,
                &v.facts.catalog,
                &state.seller,
                &state.config.public_base_url,
            )
            .await
        }
        Err(error) => tracing::error!(error = %format!("{error:#}"), "loading the catalog failed"),
    }
}
