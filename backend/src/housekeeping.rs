//! Retention: what is kept only for a while is deleted on a schedule, so
//! tables that grow with traffic stay small. What audit and finance need
//! (the audit log, orders, invoices, credit notes, payments, server events)
//! is never purged here. docs/OPERATIONS.md lists the periods.

use anyhow::Context;

use crate::Db;

const DAY: i64 = 86_400;

/// One kind of record and how long it is kept.
struct Retention {
    what: &'static str,
    /// A `delete` whose `$1` is the oldest moment still kept.
    sql: &'static str,
    keep: i64,
}

const RETENTION: &[Retention] = &[
    Retention {
        what: "expired sessions",
        // Expiry is itself a moment: kept until then, not longer.
        sql: "delete from sessions where expires_at <= $1",
        keep: 0,
    },
    Retention {
        what: "rate-limit events",
        // The longest rate-limit window is an hour.
        sql: "delete from rate_events where at < $1",
        keep: 2 * DAY,
    },
    Retention {
        what: "API rate-limit windows",
        // A window is a minute; an hour of them is plenty to look back on.
        sql: "delete from api_rate_windows where window_start < $1",
        keep: 3600,
    },
    Retention {
        what: "API idempotency keys",
        // A key protects retries for a day; after that it may be reused.
        sql: "delete from api_idempotency where created_at < $1",
        keep: DAY,
    },
    Retention {
        what: "API events",
        // The event feed and webhooks look back 30 days, as Stripe's do.
        sql: "delete from api_events where created_at < $1 and seq is not null",
        keep: 30 * DAY,
    },
    Retention {
        what: "webhook deliveries",
        // Shown on the webhooks page for a month; retries end in 3 days.
        sql: "delete from webhook_deliveries where created_at < $1 and state <> 'pending'",
        keep: 30 * DAY,
    },
    Retention {
        what: "failed logins",
        // The longest throttle window (wrong codes) is a day.
        sql: "delete from login_failures where at < $1",
        keep: 2 * DAY,
    },
    Retention {
        what: "sent mail",
        // Bodies lost their links when sent; the rest helps support.
        sql: "delete from mail_outbox where sent_at is not null and sent_at < $1",
        keep: 30 * DAY,
    },
    Retention {
        what: "finished jobs",
        sql: "delete from jobs where state = 'done' and updated_at < $1",
        keep: 14 * DAY,
    },
    Retention {
        what: "dead jobs",
        // Kept longer: an operator may still be looking into them.
        sql: "delete from jobs where state = 'dead' and updated_at < $1",
        keep: 90 * DAY,
    },
    Retention {
        what: "processed Stripe events",
        // The event id is what makes a redelivery harmless; Stripe retries
        // for three days, so 90 leaves a wide margin.
        sql: "delete from stripe_events where processed_at is not null and processed_at < $1",
        keep: 90 * DAY,
    },
    Retention {
        what: "stock changes",
        // The feed shows the last 50; the latest row of each plan × site
        // stays, so an unchanged combination is not recorded anew.
        sql: "delete from stock_changes where changed_at < $1 and seq < \
              (select max(m.seq) from stock_changes m where m.plan_id = stock_changes.plan_id \
               and m.site_code = stock_changes.site_code)",
        keep: 90 * DAY,
    },
    Retention {
        what: "used email links",
        sql: "delete from email_tokens where expires_at < $1",
        keep: 7 * DAY,
    },
];

/// How often each replica purges (any replica may; deletes are idempotent).
pub const EVERY_SECS: i64 = 3600;

/// Deletes what is past its retention; answers (what, rows deleted).
pub async fn purge(db: &Db, now: i64) -> anyhow::Result<Vec<(&'static str, u64)>> {
    let mut purged = Vec::with_capacity(RETENTION.len());
    for r in RETENTION {
        let done = sqlx::query(r.sql)
            .bind(now - r.keep)
            .execute(&db.pool)
            .await
            .with_context(|| format!("purging {}", r.what))?;
        purged.push((r.what, done.rows_affected()));
    }
    Ok(purged)
}

/// Every kind purged and its period in days, for operators.
pub fn periods() -> impl Iterator<Item = (&'static str, i64)> {
    RETENTION.iter().map(|r| (r.what, r.keep / DAY))
}

/// The periodic work every replica does every couple of seconds, each part
/// safe to run on several replicas at once: expired holds return to stock,
/// due invoices are issued, cancelled servers end, maintenance windows
/// move, server notices and stock alerts are mailed, SLA credits for the
/// closed month are issued, overdue servers move along dunning. A part
/// that fails is logged and the others still run.
pub async fn run_due(
    db: &Db,
    clock: &crate::Clock,
    catalog: &domain::Catalog,
    seller: &crate::billing::Seller,
    base_url: &str,
) {
    use crate::{billing, console, orders, servers, stock_alerts};
    let report = |what: &str, result: anyhow::Result<()>| {
        if let Err(error) = result {
            tracing::error!(error = %format!("{error:#}"), "{what} failed");
        }
    };
    report(
        "expiring holds",
        orders::expire_holds(db, clock).await.map(drop),
    );
    report(
        "issuing invoices",
        billing::renewal::invoice_due(db, clock, catalog, seller)
            .await
            .map(drop),
    );
    report(
        "ending cancelled servers",
        servers::cancellation::end_due(db, clock).await.map(drop),
    );
    report(
        "moving maintenance windows",
        servers::maintenance::run_due(db, clock).await.map(drop),
    );
    report(
        "mailing server notices",
        servers::notices::send_due(db, clock, base_url)
            .await
            .map(drop),
    );
    report(
        "purging console tickets",
        console::purge(db, clock.now()).await.map(drop),
    );
    report(
        "issuing SLA credits",
        billing::sla::credit_closed_month(db, clock, catalog)
            .await
            .map(drop),
    );
    report(
        "moving overdue servers",
        billing::dunning::run(db, clock, seller).await.map(drop),
    );
    report(
        "reminding and closing support requests",
        crate::support::remind_and_close(db, clock, base_url)
            .await
            .map(drop),
    );
    report(
        "sending stock alerts",
        stock_alerts::dispatch(db, clock, catalog, base_url)
            .await
            .map(drop),
    );
    // Every pass (about every 2 s): the stock feed lags stock by that much.
    report(
        "recording stock changes",
        crate::stock_history::record_changes(db, clock)
            .await
            .map(drop),
    );
}
