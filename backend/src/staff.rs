//! Staff: the hosting company's own people. Created by an operator
//! subcommand, never by sign-up; they see every organization, user and the
//! development outbox, and belong to no organization, so they cannot act
//! as a customer.

use anyhow::Context;
use sqlx::Row;

use crate::accounts::{normalize_email, password, tokens, AccountError, User};
use crate::audit::{self, Entry};
use crate::db::new_id;
use crate::{Clock, Db};

/// Creates a staff account with a generated password, returned once.
pub async fn create(
    db: &Db,
    clock: &Clock,
    email: &str,
    name: &str,
) -> Result<(User, String), AccountError> {
    let email = normalize_email(email)?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AccountError::InvalidName);
    }
    // 128 random bits as 32 hex characters: strong, and typeable once.
    let secret = tokens::random_token()?[..32].to_owned();
    let hash = password::hash(secret.clone()).await?;
    let now = clock.now();
    let id = new_id();
    let mut tx = db.begin().await.context("starting staff creation")?;
    sqlx::query(
        "insert into users (id, email, name, lang, password_hash, email_verified_at, is_staff, created_at, updated_at) \
         values ($1, $2, $3, 'en', $4, $5, 1, $5, $5)",
    )
    .bind(&id)
    .bind(&email)
    .bind(name)
    .bind(&hash)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("creating the staff user (is the email already used?)")?;
    let entry = Entry {
        organization_id: None,
        user_id: Some(&id),
        actor: "operator",
        action: "staff.created",
        detail: &email,
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing the staff user")?;
    let user = crate::accounts::user_by_id(db, &id)
        .await?
        .context("reading the new staff user")?;
    Ok((user, secret))
}

/// Every organization: (name, members, created).
pub async fn organizations(db: &Db) -> anyhow::Result<Vec<(String, i64, i64)>> {
    let rows = sqlx::query(
        "select o.name, count(m.user_id) as members, o.created_at from organizations o \
         left join memberships m on m.organization_id = o.id group by o.id, o.name, o.created_at \
         order by o.created_at desc, o.name",
    )
    .fetch_all(&db.pool)
    .await
    .context("listing organizations")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("name")?,
                r.try_get("members")?,
                r.try_get("created_at")?,
            ))
        })
        .collect()
}

/// Every user: (email, name, verified, staff).
pub async fn users(db: &Db) -> anyhow::Result<Vec<(String, String, bool, bool)>> {
    let rows = sqlx::query("select email, name, email_verified_at, is_staff from users order by created_at desc, email")
        .fetch_all(&db.pool)
        .await
        .context("listing users")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("email")?,
                r.try_get("name")?,
                r.try_get::<Option<i64>, _>("email_verified_at")?.is_some(),
                r.try_get::<i64, _>("is_staff")? == 1,
            ))
        })
        .collect()
}
