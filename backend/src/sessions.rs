//! Session records in the database (both backends), so every replica sees
//! the same sessions and logging out deletes one everywhere.

use anyhow::Context;
use domain::UserId;
use sqlx::Row;

use crate::Db;

/// A session not used for this long is over (DESIGN §5). Expiry is kept in
/// the application's clock, like the 12-hour absolute limit.
pub const IDLE_SECS: i64 = 30 * 60;
/// Activity moves the expiry at most this often, so an active user costs
/// one session write a minute, not one per request.
pub const TOUCH_EVERY_SECS: i64 = 60;

/// The record's data and expiry, if it exists and has not expired.
pub async fn load(db: &Db, id: &str, now: i64) -> anyhow::Result<Option<(String, i64)>> {
    let row =
        sqlx::query("select data, expires_at from sessions where id = $1 and expires_at > $2")
            .bind(id)
            .bind(now)
            .fetch_optional(&db.pool)
            .await
            .context("loading a session")?;
    row.map(|r| {
        Ok((
            r.try_get::<String, _>("data")?,
            r.try_get::<i64, _>("expires_at")?,
        ))
    })
    .transpose()
}

/// Updates a live session. Never inserts: a request still in flight when
/// logout, a password reset or expiry deleted the record must not bring it
/// back (only `insert_new` creates sessions). tower-sessions saves after
/// every request of an idle-expiring session; a record whose data is the
/// same and whose expiry moved less than `TOUCH_EVERY_SECS` is left as it
/// is, so reading pages writes (and on PostgreSQL flushes) nothing.
pub async fn save(
    db: &Db,
    id: &str,
    user_id: Option<&UserId>,
    data: &str,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "update sessions set user_id = $2, data = $3, expires_at = $4 \
         where id = $1 and expires_at > $5 \
         and (data <> $3 or user_id is distinct from $2 or expires_at < $6)",
    )
    .bind(id)
    .bind(user_id)
    .bind(data)
    .bind(now + IDLE_SECS)
    .bind(now)
    .bind(now + IDLE_SECS - TOUCH_EVERY_SECS)
    .execute(&db.pool)
    .await
    .context("saving a session")?;
    Ok(())
}

/// Activity outside ordinary requests (typing in an open console) keeps a
/// live session from going idle; at most one write a minute.
pub async fn touch(db: &Db, id: &str, now: i64) -> anyhow::Result<()> {
    sqlx::query(
        "update sessions set expires_at = $2 where id = $1 and expires_at > $3 and expires_at < $4",
    )
    .bind(id)
    .bind(now + IDLE_SECS)
    .bind(now)
    .bind(now + IDLE_SECS - TOUCH_EVERY_SECS)
    .execute(&db.pool)
    .await
    .context("keeping a session alive")?;
    Ok(())
}

/// Stores a new record; `false` if the id is taken (the caller picks
/// another).
pub async fn insert_new(
    db: &Db,
    id: &str,
    user_id: Option<&UserId>,
    data: &str,
    now: i64,
) -> anyhow::Result<bool> {
    let expires_at = now + IDLE_SECS;
    let done = sqlx::query(
        "insert into sessions (id, user_id, data, expires_at) values ($1, $2, $3, $4) on conflict (id) do nothing",
    )
    .bind(id)
    .bind(user_id)
    .bind(data)
    .bind(expires_at)
    .execute(&db.pool)
    .await
    .context("creating a session")?;
    Ok(done.rows_affected() == 1)
}

pub async fn delete(db: &Db, id: &str) -> anyhow::Result<()> {
    sqlx::query("delete from sessions where id = $1")
        .bind(id)
        .execute(&db.pool)
        .await
        .context("deleting a session")?;
    Ok(())
}

/// Ends every session of a user except `keep` (the one asking).
pub async fn delete_for_user(db: &Db, user_id: &UserId, keep: Option<&str>) -> anyhow::Result<u64> {
    let done = sqlx::query("delete from sessions where user_id = $1 and id <> $2")
        .bind(user_id)
        .bind(keep.unwrap_or(""))
        .execute(&db.pool)
        .await
        .context("ending a user's sessions")?;
    Ok(done.rows_affected())
}
