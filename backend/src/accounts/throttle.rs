//! Failed-login throttling, per account and per client address, with delays
//! that grow with each failure. The account delay is capped at 15 minutes so
//! an attacker cannot lock a victim out for long; the address limit is
//! stricter in count but only hurts the address that misbehaves.
//!
//! Wrong second-factor codes are counted on their own and lock the code step
//! for a growing time: a stolen password then buys a handful of code guesses
//! a day, not five per login. Counts are forgiven only after a full login.

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

/// Wrong codes looked at: the last day.
const CODE_WINDOW: i64 = 24 * 3600;
/// Wrong codes before the code step locks.
pub const CODE_FREE: i64 = 5;
/// The first lock; each further wrong code doubles it, up to a day.
const CODE_LOCK: i64 = 15 * 60;

/// Which step of a login failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Factor {
    Password,
    Code,
}

impl Factor {
    fn as_str(self) -> &'static str {
        match self {
            Factor::Password => "password",
            Factor::Code => "code",
        }
    }
}

/// A login step being judged: its failure is already counted, so parallel
/// guesses can't all pass the check before any of them is recorded. A
/// right answer forgives it.
#[must_use]
pub struct Attempt {
    id: String,
}

impl Attempt {
    /// The answer was right: this attempt was no failure.
    pub async fn forgive(self, db: &Db) -> anyhow::Result<()> {
        sqlx::query("delete from login_failures where id = $1")
            .bind(&self.id)
            .execute(&db.pool)
            .await
            .context("forgiving a login attempt")?;
        Ok(())
    }
}

/// Counts an attempt at `factor` for the account (and the client address,
/// where there is one) and judges whether it may go ahead: `Err(seconds)`
/// to wait if not, in which case nothing stays counted. Every attempt
/// that races this one is counted before either is judged, so N parallel
/// guesses face the limit as N sequential ones would (or stricter).
pub async fn begin(
    db: &Db,
    factor: Factor,
    email: &str,
    ip: Option<&str>,
    now: i64,
) -> anyhow::Result<Result<Attempt, i64>> {
    let id = new_id();
    sqlx::query(
        "insert into login_failures (id, email, ip, at, factor) values ($1, $2, $3, $4, $5)",
    )
    .bind(&id)
    .bind(email)
    .bind(ip.unwrap_or(""))
    .bind(now)
    .bind(factor.as_str())
    .execute(&db.pool)
    .await
    .context("counting a login attempt")?;
    let account = format!("email = $1 and factor = '{}' and id <> $3", factor.as_str());
    let account_wait = match factor {
        Factor::Password => {
            let earlier = failures(db, &account, email, now - WINDOW, &id).await?;
            delay(earlier, ACCOUNT_FREE, ACCOUNT_CAP, now)
        }
        Factor::Code => {
            let earlier = failures(db, &account, email, now - CODE_WINDOW, &id).await?;
            code_lock(earlier, now)
        }
    };
    let address_wait = match ip {
        Some(ip) => {
            let earlier = failures(db, "ip = $1 and id <> $3", ip, now - WINDOW, &id).await?;
            delay(earlier, ADDRESS_FREE, ADDRESS_CAP, now)
        }
        None => None,
    };
    match account_wait.into_iter().chain(address_wait).max() {
        None => Ok(Ok(Attempt { id })),
        Some(wait) => {
            Attempt { id }.forgive(db).await?;
            Ok(Err(wait))
        }
    }
}

/// After `CODE_FREE` wrong codes in a day the code step locks for 15
/// minutes, doubling with each further wrong code up to a day.
fn code_lock((count, last): (i64, i64), now: i64) -> Option<i64> {
    if count < CODE_FREE {
        return None;
    }
    let lock = CODE_LOCK
        .saturating_mul(1 << (count - CODE_FREE).min(20))
        .min(CODE_WINDOW);
    let remaining = last + lock - now;
    (remaining > 0).then_some(remaining)
}

/// (count, newest) of failures matching `filter` (on `$1`, with `$3` the
/// attempt being judged) since `since`.
async fn failures(
    db: &Db,
    filter: &str,
    value: &str,
    since: i64,
    own: &str,
) -> anyhow::Result<(i64, i64)> {
    let sql = format!("select count(*) as n, coalesce(max(at), 0) as last from login_failures where {filter} and at > $2");
    let row = sqlx::query(&sql)
        .bind(value)
        .bind(since)
        .bind(own)
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

/// A full login (password and, where enabled, code) forgives the account's
/// failures of both kinds (not the address's).
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
    use super::{code_lock, delay};

    #[test]
    fn delays_grow_and_stop_at_the_cap() {
        assert_eq!(delay((4, 100), 5, 900, 100), None);
        assert_eq!(delay((5, 100), 5, 900, 100), Some(2));
        assert_eq!(delay((6, 100), 5, 900, 100), Some(4));
        assert_eq!(delay((6, 100), 5, 900, 104), None);
        assert_eq!(delay((40, 100), 5, 900, 100), Some(900));
    }

    #[test]
    fn code_locks_double_up_to_a_day() {
        assert_eq!(code_lock((4, 100), 100), None);
        assert_eq!(code_lock((5, 100), 100), Some(900));
        assert_eq!(code_lock((6, 100), 100), Some(1800));
        assert_eq!(code_lock((5, 100), 1000), None);
        assert_eq!(code_lock((30, 100), 100), Some(86_400));
    }
}
