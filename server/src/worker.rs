//! The background worker every replica runs: it takes due jobs from the
//! database queue (provisioning, power actions) and, every few seconds,
//! returns expired holds, issues due invoices, moves overdue servers along
//! mails server notices and sends back-in-stock alerts. All of it is safe
//! to run on several replicas at once (see backend::jobs).

use backend::jobs;
use backend::servers::provisioning::Runner;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

use crate::startup::AppState;

/// Jobs one replica runs at the same time; most of their time is spent
/// waiting on the control plane.
const PARALLEL_JOBS: usize = 16;
const POLL: Duration = Duration::from_millis(200);
const HOUSEKEEPING_EVERY: u32 = 10;

pub fn spawn(state: Arc<AppState>, runner: Runner) {
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
            tokio::time::sleep(POLL).await;
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
            let outcome = match stripe_job(&state, &job).await {
                Some(outcome) => outcome,
                None => runner.run(&job).await,
            };
            let label = match outcome {
                jobs::Outcome::Done => "done",
                jobs::Outcome::RetryAt(..) => "retry",
                jobs::Outcome::Dead(_) => "dead",
            };
            state
                .metrics
                .jobs_run
                .get_or_create(&crate::metrics::JobLabels {
                    kind: job.kind.clone(),
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
    if let Err(error) = backend::orders::expire_holds(&state.db, &state.clock).await {
        tracing::error!(error = %format!("{error:#}"), "expiring holds failed");
    }
    let catalog = match state.facts.current().await {
        Ok(v) => v.facts.catalog.clone(),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "loading the catalog failed");
            return;
        }
    };
    if let Err(error) =
        backend::billing::renewal::invoice_due(&state.db, &state.clock, &catalog, &state.seller)
            .await
    {
        tracing::error!(error = %format!("{error:#}"), "issuing invoices failed");
    }
    if let Err(error) = backend::servers::cancellation::end_due(&state.db, &state.clock).await {
        tracing::error!(error = %format!("{error:#}"), "ending cancelled servers failed");
    }
    if let Err(error) = backend::servers::maintenance::run_due(&state.db, &state.clock).await {
        tracing::error!(error = %format!("{error:#}"), "moving maintenance windows failed");
    }
    if let Err(error) =
        backend::servers::notices::send_due(&state.db, &state.clock, &state.config.public_base_url)
            .await
    {
        tracing::error!(error = %format!("{error:#}"), "mailing server notices failed");
    }
    if let Err(error) = backend::console::purge(&state.db, state.clock.now()).await {
        tracing::error!(error = %format!("{error:#}"), "purging console tickets failed");
    }
    if let Err(error) =
        backend::billing::sla::credit_closed_month(&state.db, &state.clock, &catalog).await
    {
        tracing::error!(error = %format!("{error:#}"), "issuing SLA credits failed");
    }
    if let Err(error) = backend::billing::dunning::run(&state.db, &state.clock, &state.seller).await
    {
        tracing::error!(error = %format!("{error:#}"), "moving overdue servers failed");
    }
    if let Err(error) = backend::stock_alerts::dispatch(
        &state.db,
        &state.clock,
        &catalog,
        &state.config.public_base_url,
    )
    .await
    {
        tracing::error!(error = %format!("{error:#}"), "sending stock alerts failed");
    }
}

/// Runs a Stripe job (applying an event, passing an SLA credit on, giving
/// back an undeliverable payment); `None` for other kinds. Without Stripe
/// configured they wait for a replica that has it.
async fn stripe_job(state: &AppState, job: &jobs::Job) -> Option<jobs::Outcome> {
    use backend::billing::stripe::{credits, events, payments};
    // Soon, so a replica that has the keys picks it up.
    let later = || {
        jobs::Outcome::RetryAt(
            state.clock.now() + 10,
            "Stripe is not configured on this replica".into(),
        )
    };
    if job.kind == events::APPLY {
        let Some(secret) = &state.config.stripe_webhook_secret else {
            return Some(later());
        };
        return Some(
            events::apply(
                &state.db,
                &state.clock,
                secret.expose(),
                &job.subject_id,
                job.attempts,
            )
            .await,
        );
    }
    let Some(client) = &state.stripe else {
        return [credits::PASS_ON, events::UNDELIVERABLE]
            .contains(&job.kind.as_str())
            .then(later);
    };
    let (db, clock, subject) = (&state.db, &state.clock, job.subject_id.as_str());
    if job.kind == credits::PASS_ON {
        return Some(credits::pass_on(db, clock, client, subject, job.attempts).await);
    }
    if job.kind == events::UNDELIVERABLE {
        return Some(payments::give_back(db, clock, client, subject, job.attempts).await);
    }
    None
}
