//! Rate limits kept in the database, so every replica counts the same
//! events: at most `max` events per key in any `window` seconds.

use anyhow::Context;
use sqlx::{Any, Transaction};

use crate::db::{new_id, Backend};
use crate::Db;

pub struct Limit {
    pub max: i64,
    pub window: i64,
}

/// Anonymous requests that send mail: per client address, and per
/// recipient so no one's inbox can be flooded through us.
pub const MAIL_PER_ADDRESS: Limit = Limit {
    max: 20,
    window: 3600,
};
pub const MAIL_PER_RECIPIENT: Limit = Limit {
    max: 5,
    window: 3600,
};

/// Records an event for each key if all are under their limit; otherwise
/// records nothing and returns the seconds until one more is allowed.
pub async fn take(db: &Db, keys: &[(&str, &Limit)], now: i64) -> anyhow::Result<Result<(), i64>> {
    let mut tx = db.begin().await?;
    lock_keys(db, &mut tx, keys).await?;
    let mut wait = 0;
    for (key, limit) in keys {
        let (count, oldest): (i64, Option<i64>) =
            sqlx::query_as("select count(*), min(at) from rate_events where key = $1 and at > $2")
                .bind(key)
                .bind(now - limit.window)
                .fetch_one(&mut *tx)
                .await
                .context("counting rate events")?;
        if count >= limit.max {
            wait = wait.max(oldest.unwrap_or(now) + limit.window - now);
        }
    }
    if wait > 0 {
        return Ok(Err(wait.max(1)));
    }
    for (key, _) in keys {
        sqlx::query("insert into rate_events (id, key, at) values ($1, $2, $3)")
            .bind(new_id())
            .bind(key)
            .bind(now)
            .execute(&mut *tx)
            .await
            .context("recording a rate event")?;
    }
    tx.commit().await.context("committing the rate events")?;
    Ok(Ok(()))
}

/// Each key is counted and recorded by one request at a time, so parallel
/// requests can't all pass the count before any of them is recorded. There
/// is no row per key to lock, so PostgreSQL takes a transaction-scoped
/// advisory lock per key (in one order, so two requests never wait on each
/// other in a circle); SQLite's immediate transactions are serial already.
async fn lock_keys(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    keys: &[(&str, &Limit)],
) -> anyhow::Result<()> {
    if db.backend != Backend::Postgres {
        return Ok(());
    }
    let mut names: Vec<&str> = keys.iter().map(|(key, _)| *key).collect();
    names.sort_unstable();
    names.dedup();
    for key in names {
        // 7407: the rate limits' own space of advisory locks.
        sqlx::query("select 1 from (select pg_advisory_xact_lock(7407, hashtext($1))) l")
            .bind(key)
            .execute(&mut **tx)
            .await
            .context("locking a rate limit")?;
    }
    Ok(())
}

/// Console tickets per user: a page opening and some reconnects, not a
/// scanner.
pub const CONSOLE_TICKETS: Limit = Limit {
    max: 30,
    window: 300,
};

/// Where a key stands in its current fixed window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub limit: i64,
    pub remaining: i64,
    /// Seconds until the window ends and the count starts again.
    pub reset_in: i64,
}

/// Counts one request against `key` in fixed windows of `window` seconds:
/// one upsert, so a busy API token costs one statement per request, not a
/// row per request like [`take`]. Over the limit, the request is still
/// counted (a client hammering through its 429s stays limited) and the
/// answer is the window it must wait out.
pub async fn count_in_window(
    db: &Db,
    key: &str,
    limit: i64,
    window: i64,
    now: i64,
) -> anyhow::Result<Result<Window, Window>> {
    let start = now - now.rem_euclid(window);
    let hits: i64 = sqlx::query_scalar(
        "insert into api_rate_windows (key, window_start, hits) values ($1, $2, 1) \
         on conflict (key, window_start) do update set hits = api_rate_windows.hits + 1 \
         returning hits",
    )
    .bind(key)
    .bind(start)
    .fetch_one(&db.pool)
    .await
    .context("counting a request in its rate window")?;
    let at = Window {
        limit,
        remaining: (limit - hits).max(0),
        reset_in: (start + window - now).max(1),
    };
    Ok(if hits > limit { Err(at) } else { Ok(at) })
}
