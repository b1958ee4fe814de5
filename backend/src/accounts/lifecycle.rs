//! Changing the email address and deleting an account. Both need the
//! current password.

use anyhow::Context;
use domain::UserId;
use sqlx::Row;

use super::{mail_texts, normalize_email, tokens, AccountError, Links, User};
use crate::audit::{self, Entry};
use crate::{mail, Clock, Db};

const EMAIL_LINK_SECS: i64 = 24 * 3600;

#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error(transparent)]
    Account(#[from] AccountError),
    /// The user is the last owner of an organization others still use.
    #[error("the last owner of an organization with other members cannot leave it")]
    LastOwner,
}

/// Sends a confirmation link to the new address. If that address already
/// has an account, its owner is told instead and the answer is the same.
pub async fn request_email_change(
    db: &Db,
    clock: &Clock,
    links: &Links,
    user: &User,
    current_password: &str,
    new_email: &str,
) -> Result<(), AccountError> {
    let new_email = normalize_email(new_email)?;
    super::reauthenticate(db, clock, user, current_password).await?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting an email change")?;
    let taken: i64 = sqlx::query_scalar("select count(*) from users where email = $1")
        .bind(&new_email)
        .fetch_one(&mut *tx)
        .await
        .context("checking the address")?;
    if taken > 0 {
        let notice = mail_texts::already_registered(
            user.lang,
            &new_email,
            &links.page(user.lang, "/login"),
            &links.page(user.lang, "/forgot"),
        );
        mail::queue(&mut tx, &notice, now).await?;
    } else {
        let token = tokens::random_token()?;
        sqlx::query(
            "insert into email_changes (token_hash, user_id, new_email, expires_at, created_at) values ($1, $2, $3, $4, $5)",
        )
        .bind(tokens::hash(&token))
        .bind(&user.id)
        .bind(&new_email)
        .bind(now + EMAIL_LINK_SECS)
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("storing the email change")?;
        let link = links.page(user.lang, &format!("/email?token={token}"));
        mail::queue(
            &mut tx,
            &mail_texts::confirm_new_email(user.lang, &new_email, &user.name, &link),
            now,
        )
        .await?;
    }
    tx.commit()
        .await
        .context("committing the email change request")?;
    Ok(())
}

/// Applies a confirmed change; the old address is told.
pub async fn confirm_email_change(
    db: &Db,
    clock: &Clock,
    token: &str,
) -> Result<User, AccountError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting the email change")?;
    let row = sqlx::query(
        "update email_changes set used_at = $1 where token_hash = $2 and used_at is null and expires_at > $1 \
         returning user_id, new_email",
    )
    .bind(now)
    .bind(tokens::hash(token))
    .fetch_optional(&mut *tx)
    .await
    .context("using the link")?
    .ok_or(AccountError::BadLink)?;
    let user_id: UserId = row.try_get("user_id").context("user")?;
    let new_email: String = row.try_get("new_email").context("email")?;
    let old = sqlx::query("select email, name, lang from users where id = $1")
        .bind(&user_id)
        .fetch_one(&mut *tx)
        .await
        .context("reading the account")?;
    let old_email: String = old.try_get("email").context("email")?;
    let name: String = old.try_get("name").context("name")?;
    let lang = domain::Lang::from_code(&old.try_get::<String, _>("lang").context("lang")?)
        .unwrap_or_default();
    // The unique index refuses an address taken since the request.
    let updated = sqlx::query(
        "update users set email = $1, email_verified_at = $2, updated_at = $2 where id = $3",
    )
    .bind(&new_email)
    .bind(now)
    .bind(&user_id)
    .execute(&mut *tx)
    .await;
    if updated.is_err() {
        return Err(AccountError::BadLink);
    }
    mail::queue(
        &mut tx,
        &mail_texts::email_changed(lang, &old_email, &name, &new_email),
        now,
    )
    .await?;
    let detail = format!("{old_email} → {new_email}");
    let entry = Entry {
        organization_id: None,
        user_id: Some(&user_id),
        actor: &old_email,
        action: "email.changed",
        detail: &detail,
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing the email change")?;
    super::user_by_id(db, &user_id)
        .await?
        .ok_or(AccountError::BadLink)
}

/// Deletes an account: memberships, sessions, codes and tokens go; the user
/// row is anonymised so the audit trail and invoices keep their references.
/// Refused while the user is the last owner of an organization that has
/// other members (later: active servers).
pub async fn delete_account(
    db: &Db,
    clock: &Clock,
    user: &User,
    current_password: &str,
) -> Result<(), LifecycleError> {
    super::reauthenticate(db, clock, user, current_password).await?;
    let now = clock.now();
    let mut tx = db
        .begin()
        .await
        .context("starting the deletion")
        .map_err(AccountError::from)?;
    let stranded: i64 = sqlx::query_scalar(
        "select count(*) from memberships m where m.user_id = $1 and m.role = 'owner' \
         and not exists (select 1 from memberships o where o.organization_id = m.organization_id \
                         and o.role = 'owner' and o.user_id <> $1) \
         and exists (select 1 from memberships x where x.organization_id = m.organization_id and x.user_id <> $1)",
    )
    .bind(&user.id)
    .fetch_one(&mut *tx)
    .await
    .context("checking ownership")
    .map_err(AccountError::from)?;
    if stranded > 0 {
        return Err(LifecycleError::LastOwner);
    }
    for sql in [
        "delete from memberships where user_id = $1",
        "delete from sessions where user_id = $1",
        "delete from recovery_codes where user_id = $1",
        "delete from email_tokens where user_id = $1",
        "delete from email_changes where user_id = $1",
    ] {
        sqlx::query(sql)
            .bind(&user.id)
            .execute(&mut *tx)
            .await
            .with_context(|| format!("deleting: {sql}"))
            .map_err(AccountError::from)?;
    }
    sqlx::query(
        "update users set email = $1, name = '', company = null, password_hash = '!', totp_secret = null, \
         totp_enabled_at = null, email_verified_at = null, updated_at = $2 where id = $3",
    )
    .bind(format!("deleted-{}@invalid", user.id))
    .bind(now)
    .bind(&user.id)
    .execute(&mut *tx)
    .await
    .context("anonymising the user")
    .map_err(AccountError::from)?;
    let entry = Entry {
        organization_id: None,
        user_id: Some(&user.id),
        actor: &user.email,
        action: "account.deleted",
        detail: "",
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &entry)
        .await
        .map_err(AccountError::from)?;
    tx.commit()
        .await
        .context("committing the deletion")
        .map_err(AccountError::from)?;
    Ok(())
}
