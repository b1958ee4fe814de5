//! Session records in the database (both backends), so every replica sees
//! the same sessions and logging out deletes one everywhere.

use anyhow::Context;
use sqlx::Row;

use crate::Db;

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

pub async fn save(
    db: &Db,
    id: &str,
    user_id: Option<&str>,
    data: &str,
    expires_at: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into sessions (id, user_id, data, expires_at) values ($1, $2, $3, $4) \
         on conflict (id) do update set user_id = excluded.user_id, data = excluded.data, \
         expires_at = excluded.expires_at",
    )
    .bind(id)
    .bind(user_id)
    .bind(data)
    .bind(expires_at)
    .execute(&db.pool)
    .await
    .context("saving a session")?;
    Ok(())
}

/// Stores a new record; `false` if the id is taken (the caller picks
/// another).
pub async fn insert_new(
    db: &Db,
    id: &str,
    user_id: Option<&str>,
    data: &str,
    expires_at: i64,
) -> anyhow::Result<bool> {
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
pub async fn delete_for_user(db: &Db, user_id: &str, keep: Option<&str>) -> anyhow::Result<u64> {
    let done = sqlx::query("delete from sessions where user_id = $1 and id <> $2")
        .bind(user_id)
        .bind(keep.unwrap_or(""))
        .execute(&db.pool)
        .await
        .context("ending a user's sessions")?;
    Ok(done.rows_affected())
}

pub async fn purge_expired(db: &Db, now: i64) -> anyhow::Result<u64> {
    let done = sqlx::query("delete from sessions where expires_at <= $1")
        .bind(now)
        .execute(&db.pool)
        .await
        .context("purging expired sessions")?;
    Ok(done.rows_affected())
}
