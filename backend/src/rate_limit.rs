//! Rate limits kept in the database, so every replica counts the same
//! events: at most `max` events per key in any `window` seconds.

use anyhow::Context;

use crate::db::new_id;
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
    let mut wait = 0;
    for (key, limit) in keys {
        let (count, oldest): (i64, Option<i64>) =
            sqlx::query_as("select count(*), min(at) from rate_events where key = $1 and at > $2")
                .bind(key)
                .bind(now - limit.window)
                .fetch_one(&db.pool)
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
            .execute(&db.pool)
            .await
            .context("recording a rate event")?;
    }
    Ok(Ok(()))
}

/// Console tickets per user: a page opening and some reconnects, not a
/// scanner.
pub const CONSOLE_TICKETS: Limit = Limit {
    max: 30,
    window: 300,
};
