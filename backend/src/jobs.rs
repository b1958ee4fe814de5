//! The durable job queue: work that must happen even if the process that
//! asked for it dies (provisioning, power actions). Jobs live in the
//! database; a worker takes one by leasing it, and a lease that runs out
//! lets any replica take the job up again. PostgreSQL claims with
//! `for update skip locked`, so replicas never wait on each other's jobs;
//! SQLite has one writer at a time anyway.

use anyhow::Context;
use sqlx::{Any, Row, Transaction};

use crate::db::{new_id, Backend};
use crate::Db;

/// How long a worker owns a job before another may take it, in seconds.
/// Long jobs renew it as they make progress.
pub const LEASE_SECS: i64 = 60;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Job {
    pub id: String,
    #[sqlx(try_from = "String")]
    pub kind: JobKind,
    pub subject_id: String,
    /// Including this one.
    pub attempts: i64,
}

/// Every kind of job, as stored in `jobs.kind`. `worker::Runner::run`
/// dispatches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobKind {
    Provision,
    Reboot,
    PowerCycle,
    PowerOff,
    PowerOn,
    /// Billing suspension: network and console off, data kept.
    Suspend,
    Resume,
    /// Rebuild on another host after a host failure.
    Rebuild,
    /// Wipe a cancelled server's host before it returns to stock.
    Wipe,
    SnapshotTake,
    SnapshotRestore,
    SnapshotDelete,
    /// Ask VIES again about a VAT ID it could not answer for.
    VatIdCheck,
    /// Apply a stored Stripe event.
    StripeEvent,
    /// Pass an SLA credit on to Stripe (balance or refund).
    StripeCredit,
    /// Give back a payment for an order that could not be delivered.
    StripeUndeliverable,
    /// Ask Stripe which payment paid an invoice (the subject is Stripe's
    /// invoice id): webhooks never carry it.
    StripeInvoicePayment,
    /// Bring an organization's Stripe customer up to its billing profile
    /// (name, address, VAT ID, reverse charge).
    StripeCustomer,
    /// Mirrors a subscription as Stripe has it now (two of its events
    /// came in one second, so their order cannot decide).
    StripeSubscription,
    /// Set a new root password through the Fleet (the customer lost theirs).
    RootPassword,
}

/// How a stored kind is read back (`#[sqlx(try_from = "String")]`).
impl TryFrom<String> for JobKind {
    type Error = String;

    fn try_from(kind: String) -> Result<JobKind, String> {
        JobKind::parse(&kind).ok_or_else(|| format!("a job of unknown kind {kind:?}"))
    }
}

impl JobKind {
    const ALL: [JobKind; 20] = [
        JobKind::Provision,
        JobKind::Reboot,
        JobKind::PowerCycle,
        JobKind::PowerOff,
        JobKind::PowerOn,
        JobKind::Suspend,
        JobKind::Resume,
        JobKind::Rebuild,
        JobKind::Wipe,
        JobKind::SnapshotTake,
        JobKind::SnapshotRestore,
        JobKind::SnapshotDelete,
        JobKind::VatIdCheck,
        JobKind::StripeEvent,
        JobKind::StripeCredit,
        JobKind::StripeUndeliverable,
        JobKind::StripeInvoicePayment,
        JobKind::StripeCustomer,
        JobKind::StripeSubscription,
        JobKind::RootPassword,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Provision => "provision",
            JobKind::Reboot => "reboot",
            JobKind::PowerCycle => "power_cycle",
            JobKind::PowerOff => "power_off",
            JobKind::PowerOn => "power_on",
            JobKind::Suspend => "suspend",
            JobKind::Resume => "resume",
            JobKind::Rebuild => "rebuild",
            JobKind::Wipe => "wipe",
            JobKind::SnapshotTake => "snapshot.take",
            JobKind::SnapshotRestore => "snapshot.restore",
            JobKind::SnapshotDelete => "snapshot.delete",
            JobKind::VatIdCheck => "vat_id_check",
            JobKind::StripeEvent => "stripe_event",
            JobKind::StripeCredit => "stripe_credit",
            JobKind::StripeUndeliverable => "stripe_undeliverable",
            JobKind::StripeInvoicePayment => "stripe_invoice_payment",
            JobKind::StripeCustomer => "stripe_customer",
            JobKind::StripeSubscription => "stripe_subscription",
            JobKind::RootPassword => "root_password.set",
        }
    }

    pub fn parse(raw: &str) -> Option<JobKind> {
        JobKind::ALL.into_iter().find(|k| k.as_str() == raw)
    }
}

/// Queues a job in the transaction of the change that needs it.
pub async fn enqueue(
    tx: &mut Transaction<'_, Any>,
    kind: JobKind,
    subject_id: impl AsRef<str>,
    run_at: i64,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into jobs (id, kind, subject_id, state, run_at, attempts, created_at, updated_at) \
         values ($1, $2, $3, 'queued', $4, 0, $5, $5)",
    )
    .bind(new_id())
    .bind(kind.as_str())
    .bind(subject_id.as_ref())
    .bind(run_at)
    .bind(now)
    .execute(&mut **tx)
    .await
    .with_context(|| format!("queueing a {} job", kind.as_str()))?;
    Ok(())
}

/// Leases the next due job for `owner`, if any.
/// Takes the next due job, leased to `owner`. A job of a kind this version
/// does not know (queued by a newer one during a rolling deploy) is an
/// error here; its lease runs out and a replica that knows it runs it.
pub async fn claim(db: &Db, owner: &str, now: i64) -> anyhow::Result<Option<Job>> {
    let lock = match db.backend {
        Backend::Postgres => "for update skip locked",
        Backend::Sqlite => "",
    };
    let sql = format!(
        "update jobs set lease_owner = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3 \
         where id = (select id from jobs where state = 'queued' and run_at <= $3 \
                     and (lease_until is null or lease_until < $3) \
                     order by run_at, id limit 1 {lock}) \
         and state = 'queued' and (lease_until is null or lease_until < $3) \
         returning id, kind, subject_id, attempts"
    );
    sqlx::query_as(&sql)
        .bind(owner)
        .bind(now + LEASE_SECS)
        .bind(now)
        .fetch_optional(&db.pool)
        .await
        .context("claiming a job")
}

/// Extends the lease while a long job makes progress. False if the job is
/// no longer ours (another worker took it after our lease ran out).
pub async fn renew(db: &Db, job: &Job, owner: &str, now: i64) -> anyhow::Result<bool> {
    let done = sqlx::query(
        "update jobs set lease_until = $1, updated_at = $2 \
         where id = $3 and lease_owner = $4 and state = 'queued'",
    )
    .bind(now + LEASE_SECS)
    .bind(now)
    .bind(&job.id)
    .bind(owner)
    .execute(&db.pool)
    .await
    .context("renewing a job lease")?;
    Ok(done.rows_affected() == 1)
}

/// How a run of a job ended.
#[derive(Debug)]
pub enum Outcome {
    Done,
    /// Try again at this time (a temporary failure).
    RetryAt(i64, String),
    /// Look again at this time: the work runs elsewhere (on a host) and is
    /// not a failed attempt, so it does not count towards retry limits.
    Wait(i64, String),
    /// Give up: the job can never succeed.
    Dead(String),
}

impl Outcome {
    /// A job that talks to an outside service: done, or tried again later
    /// (`pause` seconds per attempt so far) until `attempts` reaches
    /// `limit`, then given up with the last error.
    pub fn retried(
        result: anyhow::Result<()>,
        now: i64,
        attempts: i64,
        limit: i64,
        pause: i64,
    ) -> Outcome {
        match result {
            Ok(()) => Outcome::Done,
            Err(error) if attempts < limit => {
                Outcome::RetryAt(now + pause * attempts, format!("{error:#}"))
            }
            Err(error) => Outcome::Dead(format!("{error:#}")),
        }
    }
}

pub async fn finish(
    db: &Db,
    job: &Job,
    owner: &str,
    outcome: &Outcome,
    now: i64,
) -> anyhow::Result<()> {
    let (state, run_at, error) = match outcome {
        Outcome::Done => ("done", None, None),
        Outcome::RetryAt(at, error) => ("queued", Some(*at), Some(error.as_str())),
        Outcome::Wait(at, what) => ("queued", Some(*at), Some(what.as_str())),
        Outcome::Dead(error) => ("dead", None, Some(error.as_str())),
    };
    // A wait is no failed attempt; and if the host reported meanwhile
    // (`woken`), the next look is now, not after the pause.
    let waiting = matches!(outcome, Outcome::Wait(..));
    sqlx::query(
        "update jobs set state = $1, \
         run_at = case when $7 = 1 and woken = 1 then $4 else coalesce($2, run_at) end, \
         last_error = $3, lease_owner = null, lease_until = null, updated_at = $4, \
         attempts = attempts - $7, woken = 0 \
         where id = $5 and lease_owner = $6",
    )
    .bind(state)
    .bind(run_at)
    .bind(error)
    .bind(now)
    .bind(&job.id)
    .bind(owner)
    .bind(i64::from(waiting))
    .execute(&db.pool)
    .await
    .context("finishing a job")?;
    Ok(())
}

/// Counts of jobs by state, for metrics and the staff pages.
pub async fn counts(db: &Db) -> anyhow::Result<Vec<(String, i64)>> {
    let rows = sqlx::query("select state, count(*) as n from jobs group by state order by state")
        .fetch_all(&db.pool)
        .await
        .context("counting jobs")?;
    rows.iter()
        .map(|r| Ok((r.try_get("state")?, r.try_get("n")?)))
        .collect()
}
