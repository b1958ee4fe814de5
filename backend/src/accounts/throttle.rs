//! Failed-login throttling, per account and per client address, with delays
//! that grow with each failure. The account delay is capped at 15 minutes so
//! an attacker cannot lock a victim out for long; the address limit is
//! stricter in count but only hurts the address that misbehaves.

use anyhow::Context;
use sqlx::Row;

use crate::db::new_id;
use crate::Db;

/// Failures looked at: the last hour.
const WINDOW: i64 = 3600;
/// Free attempts before any delay.
const ACCOUNT_FREE: i64 = 5;
const ADDRESS_FREE: i64 = 20;
const ACCOUNT_CAP: i64 = 15 * 60;
const ADDRESS_CAP: i64 = 60 * 60;

/// Seconds to wait before the next attempt may be judged, if any.
pub async fn wait_before_attempt(
    db: &Db,
    email: &str,
    ip: &str,
    now: i64,
) -> anyhow::Result<Option<i64>> {
    let by_email = failures(db, "email", email, now).await?;
    let by_ip = failures(db, "ip", ip, now).await?;
    let wait = [
        delay(by_email, ACCOUNT_FREE, ACCOUNT_CAP, now),
        delay(by_ip, ADDRESS_FREE, ADDRESS_CAP, now),
    ]
    .into_iter()
    .flatten()
    .max();
    Ok(wait)
}

/// (count, newest) of failures in the window.
async fn failures(db: &Db, column: &str, value: &str, now: i64) -> anyhow::Result<(i64, i64)> {
    let sql = format!("select count(*) as n, coalesce(max(at), 0) as last from login_failures where {column} = $1 and at > $2");
    let row = sqlx::query(&sql)
        .bind(value)
        .bind(now - WINDOW)
        .fetch_one(&db.pool)
        .await
        .context("counting failed logins")?;
    Ok((row.try_get("n")?, row.try_get("last")?))
}

/// 2, 4, 8 … seconds after the free attempts, up to the cap.
fn delay((count, last): (i64, i64), free: i64, cap: i64, now: i64) -> Option<i64> {
    if count < free {
        return None;
    }
    let wait = 2i64
        .saturating_pow((count - free + 1).min(30) as u32)
        .min(cap);
    let remaining = last + wait - now;
    (remaining > 0).then_some(remaining)
}

pub async fn record_failure(db: &Db, email: &str, ip: &str, now: i64) -> anyhow::Result<()> {
    sqlx::query("insert into login_failures (id, email, ip, at) values ($1, $2, $3, $4)")
        .bind(new_id())
        .bind(email)
        .bind(ip)
        .bind(now)
        .execute(&db.pool)
        .await
        .context("recording a failed login")?;
    Ok(())
}

/// A success forgives the account's failures (not the address's).
pub async fn clear_account(db: &Db, email: &str) -> anyhow::Result<()> {
    sqlx::query("delete from login_failures where email = $1")
        .bind(email)
        .execute(&db.pool)
        .await
        .context("clearing failed logins")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::delay;

    #[test]
    fn delays_grow_and_stop_at_the_cap() {
        assert_eq!(delay((4, 100), 5, 900, 100), None);
        assert_eq!(delay((5, 100), 5, 900, 100), Some(2));
        assert_eq!(delay((6, 100), 5, 900, 100), Some(4));
        assert_eq!(delay((6, 100), 5, 900, 104), None);
        assert_eq!(delay((40, 100), 5, 900, 100), Some(900));
    }
}
