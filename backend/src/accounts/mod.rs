//! Accounts: sign-up with email verification, login with throttling,
//! password reset by single-use link, password change. Every answer that
//! could reveal whether an email is registered is the same either way.

pub mod lifecycle;
mod mail_texts;
pub mod password;
pub mod throttle;
pub mod tokens;
pub mod two_factor;

use anyhow::Context;
use domain::{Lang, OrganizationId, UserId};
use sqlx::{FromRow, Row};

pub use password::PasswordProblem;

use crate::audit::{self, Entry};
use crate::db::new_id;
use crate::{mail, sessions, Clock, Db};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct User {
    pub id: UserId,
    pub email: String,
    pub name: String,
    pub company: Option<String>,
    #[sqlx(try_from = "crate::db::PreferredLang")]
    pub lang: Lang,
    #[sqlx(rename = "email_verified_at", try_from = "crate::db::IsSet<i64>")]
    pub verified: bool,
    #[sqlx(try_from = "crate::db::Flag")]
    pub is_staff: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("not a valid email address")]
    InvalidEmail,
    #[error("a name of 1 to 100 characters is required")]
    InvalidName,
    #[error("the company name is too long")]
    InvalidCompany,
    #[error("password rejected: {0:?}")]
    Password(PasswordProblem),
    #[error("wrong email or password")]
    BadCredentials,
    #[error("the email address is not confirmed yet")]
    NotVerified,
    #[error("too many failed attempts; retry in {0} s")]
    Throttled(i64),
    #[error("the link is invalid, expired or already used")]
    BadLink,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// Where mailed links point.
#[derive(Clone, Debug)]
pub struct Links {
    pub base_url: String,
}

impl Links {
    fn page(&self, lang: Lang, rest: &str) -> String {
        format!(
            "{}/{}{}",
            self.base_url.trim_end_matches('/'),
            lang.code(),
            rest
        )
    }
}

pub struct SignUp {
    pub email: String,
    pub password: String,
    pub name: String,
    pub company: Option<String>,
    pub lang: Lang,
}

/// Lowercased and checked: one `@`, a dotted domain, no spaces, ≤ 254.
pub fn normalize_email(raw: &str) -> Result<String, AccountError> {
    let email = raw.trim().to_lowercase();
    let ok = email.len() <= 254
        && !email.chars().any(char::is_whitespace)
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        });
    ok.then_some(email).ok_or(AccountError::InvalidEmail)
}

const USER_COLUMNS: &str = "id, email, name, company, lang, email_verified_at, is_staff";

pub async fn user_by_id(db: &Db, id: &UserId) -> anyhow::Result<Option<User>> {
    sqlx::query_as(&format!("select {USER_COLUMNS} from users where id = $1"))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
        .context("loading a user")
}

async fn user_with_hash(db: &Db, email: &str) -> anyhow::Result<Option<(User, String)>> {
    let row = sqlx::query(&format!(
        "select {USER_COLUMNS}, password_hash from users where email = $1"
    ))
    .bind(email)
    .fetch_optional(&db.pool)
    .await
    .context("looking up an account")?;
    row.map(|r| Ok((User::from_row(&r)?, r.try_get("password_hash")?)))
        .transpose()
}

/// A person's name as an account keeps it: trimmed, 1–100 characters.
pub fn person_name(raw: &str) -> Result<String, AccountError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AccountError::InvalidName);
    }
    Ok(name.to_owned())
}

/// Creates the user, their organization (they own it) and sends the
/// verification mail. A known email gets a notice instead; the caller sees
/// the same success either way.
pub async fn sign_up(
    db: &Db,
    clock: &Clock,
    links: &Links,
    input: SignUp,
) -> Result<(), AccountError> {
    let email = normalize_email(&input.email)?;
    let name = person_name(&input.name)?;
    let company = input
        .company
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty());
    if company.as_ref().is_some_and(|c| c.chars().count() > 200) {
        return Err(AccountError::InvalidCompany);
    }
    password::check(&input.password, &[&email, &name]).map_err(AccountError::Password)?;
    // Hash even for a known email, so both answers take as long.
    let hash = password::hash(input.password).await?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting sign-up")?;
    let existing = sqlx::query("select lang from users where email = $1")
        .bind(&email)
        .fetch_optional(&mut *tx)
        .await
        .context("checking the email")?;
    if let Some(row) = existing {
        let lang =
            Lang::from_code(&row.try_get::<String, _>("lang").context("lang")?).unwrap_or_default();
        let notice = mail_texts::already_registered(
            lang,
            &email,
            &links.page(lang, "/login"),
            &links.page(lang, "/forgot"),
        );
        mail::queue(&mut tx, &notice, now).await?;
        tx.commit().await.context("committing the notice")?;
        return Ok(());
    }
    let user_id = UserId::from(new_id());
    let org_id = OrganizationId::from(new_id());
    sqlx::query(
        "insert into users (id, email, name, company, lang, password_hash, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $7)",
    )
    .bind(&user_id)
    .bind(&email)
    .bind(&name)
    .bind(company.as_deref())
    .bind(input.lang.code())
    .bind(&hash)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("creating the user")?;
    sqlx::query("insert into organizations (id, name, created_at) values ($1, $2, $3)")
        .bind(&org_id)
        .bind(company.as_deref().unwrap_or(&name))
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("creating the organization")?;
    sqlx::query("insert into memberships (organization_id, user_id, role, created_at) values ($1, $2, 'owner', $3)")
        .bind(&org_id)
        .bind(&user_id)
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("making the owner")?;
    let token = tokens::issue(&mut tx, &user_id, tokens::Purpose::Verify, now).await?;
    let link = links.page(input.lang, &format!("/verify?token={token}"));
    mail::queue(
        &mut tx,
        &mail_texts::verify(input.lang, &email, &name, &link),
        now,
    )
    .await?;
    let entry = Entry {
        organization_id: Some(&org_id),
        user_id: Some(&user_id),
        actor: &email,
        action: audit::ACCOUNT_CREATED,
        detail: "",
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing sign-up")?;
    Ok(())
}

pub async fn verify_email(db: &Db, clock: &Clock, token: &str) -> Result<User, AccountError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting verification")?;
    let user_id = tokens::consume(&mut tx, token, tokens::Purpose::Verify, now)
        .await?
        .ok_or(AccountError::BadLink)?;
    sqlx::query("update users set email_verified_at = $1, updated_at = $1 where id = $2 and email_verified_at is null")
        .bind(now)
        .bind(&user_id)
        .execute(&mut *tx)
        .await
        .context("marking the email verified")?;
    tx.commit().await.context("committing verification")?;
    user_by_id(db, &user_id).await?.ok_or(AccountError::BadLink)
}

/// A right password: the user, and whether a second-factor code must
/// follow before the login is done.
pub struct PasswordAccepted {
    pub user: User,
    pub needs_code: bool,
}

/// Checks credentials with throttling; every failure is recorded and
/// audited. Unknown emails cost the same time as known ones.
pub async fn log_in(
    db: &Db,
    clock: &Clock,
    email: &str,
    password: &str,
    ip: &str,
) -> Result<PasswordAccepted, AccountError> {
    let now = clock.now();
    let email = normalize_email(email).unwrap_or_else(|_| email.trim().to_lowercase());
    let attempt = throttle::begin(db, throttle::Factor::Password, &email, Some(ip), now)
        .await?
        .map_err(AccountError::Throttled)?;
    let found = user_with_hash(db, &email).await?;
    let (user, hash) = match found {
        Some((user, hash)) => (Some(user), Some(hash)),
        None => (None, None),
    };
    let ok = password::verify(password.to_owned(), hash).await?;
    let org = match &user {
        Some(u) => first_organization(db, &u.id).await?,
        None => None,
    };
    let user_id = user.as_ref().map(|u| u.id.clone());
    let entry = |action: &'static str| Entry {
        organization_id: org.as_ref(),
        user_id: user_id.as_ref(),
        actor: &email,
        action,
        detail: "",
        ip: Some(ip),
        at: now,
    };
    match user {
        Some(user) if ok => {
            attempt.forgive(db).await?;
            if !user.verified {
                return Err(AccountError::NotVerified);
            }
            // With a second factor the login is not done yet: earlier
            // failures are forgiven only once the code is right too.
            let needs_code = two_factor::is_enabled(db, &user.id).await?;
            if !needs_code {
                throttle::clear_account(db, &email).await?;
            }
            audit::record(&db.pool, &entry("login.succeeded")).await?;
            Ok(PasswordAccepted { user, needs_code })
        }
        _ => {
            // The attempt stays counted as a failure.
            audit::record(&db.pool, &entry("login.failed")).await?;
            Err(AccountError::BadCredentials)
        }
    }
}

/// Checks a signed-in user's current password before a sensitive change
/// (password, email, deleting the account, turning 2FA off), under the same
/// per-account throttle as logins: a borrowed session can't guess it.
pub async fn reauthenticate(
    db: &Db,
    clock: &Clock,
    user: &User,
    current: &str,
) -> Result<(), AccountError> {
    let attempt = throttle::begin(
        db,
        throttle::Factor::Password,
        &user.email,
        None,
        clock.now(),
    )
    .await?
    .map_err(AccountError::Throttled)?;
    let hash: String = sqlx::query_scalar("select password_hash from users where id = $1")
        .bind(&user.id)
        .fetch_one(&db.pool)
        .await
        .context("reading the password")?;
    if password::verify(current.to_owned(), Some(hash)).await? {
        attempt.forgive(db).await?;
        Ok(())
    } else {
        Err(AccountError::BadCredentials)
    }
}

async fn first_organization(db: &Db, user_id: &UserId) -> anyhow::Result<Option<OrganizationId>> {
    let row = sqlx::query(
        "select organization_id from memberships where user_id = $1 order by created_at limit 1",
    )
    .bind(user_id)
    .fetch_optional(&db.pool)
    .await
    .context("finding the user's organization")?;
    row.map(|r| {
        r.try_get::<OrganizationId, _>("organization_id")
            .context("organization")
    })
    .transpose()
}

/// Mails a reset link if the account exists; answers the same either way.
pub async fn request_reset(
    db: &Db,
    clock: &Clock,
    links: &Links,
    email: &str,
) -> Result<(), AccountError> {
    let Ok(email) = normalize_email(email) else {
        return Ok(());
    };
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a reset")?;
    let row = sqlx::query(&format!(
        "select {USER_COLUMNS} from users where email = $1"
    ))
    .bind(&email)
    .fetch_optional(&mut *tx)
    .await
    .context("looking up the account")?;
    if let Some(row) = row {
        let user = User::from_row(&row).context("reading the user")?;
        let token = tokens::issue(&mut tx, &user.id, tokens::Purpose::Reset, now).await?;
        let link = links.page(user.lang, &format!("/reset?token={token}"));
        mail::queue(
            &mut tx,
            &mail_texts::reset(user.lang, &email, &user.name, &link),
            now,
        )
        .await?;
    }
    tx.commit().await.context("committing the reset request")?;
    Ok(())
}

/// Sets a new password from a reset link and ends every session.
pub async fn reset_password(
    db: &Db,
    clock: &Clock,
    token: &str,
    new_password: &str,
) -> Result<User, AccountError> {
    let now = clock.now();
    // Judge the password first: a refused password must not use up the link.
    let mut probe = db.begin().await.context("reading the link")?;
    let holder: Option<String> = sqlx::query_scalar(
        "select u.email from email_tokens t join users u on u.id = t.user_id \
         where t.token_hash = $1 and t.purpose = 'reset' and t.used_at is null and t.expires_at > $2",
    )
    .bind(tokens::hash(token))
    .bind(now)
    .fetch_optional(&mut *probe)
    .await
    .context("checking the link")?;
    probe.rollback().await.context("ending the link check")?;
    let email = holder.ok_or(AccountError::BadLink)?;
    password::check(new_password, &[&email]).map_err(AccountError::Password)?;
    let hash = password::hash(new_password.to_owned()).await?;
    let mut tx = db.begin().await.context("starting the reset")?;
    let user_id = tokens::consume(&mut tx, token, tokens::Purpose::Reset, now)
        .await?
        .ok_or(AccountError::BadLink)?;
    set_password(&mut tx, &user_id, &hash, now, "password.reset").await?;
    tx.commit().await.context("committing the reset")?;
    sessions::delete_for_user(db, &user_id, None).await?;
    user_by_id(db, &user_id).await?.ok_or(AccountError::BadLink)
}

/// Changes the password of a logged-in user (current password required)
/// and logs out their other sessions.
pub async fn change_password(
    db: &Db,
    clock: &Clock,
    user_id: &UserId,
    current: &str,
    new_password: &str,
    keep_session: &str,
) -> Result<(), AccountError> {
    let user = user_by_id(db, user_id)
        .await?
        .ok_or(AccountError::BadCredentials)?;
    reauthenticate(db, clock, &user, current).await?;
    password::check(new_password, &[&user.email, &user.name]).map_err(AccountError::Password)?;
    let hash = password::hash(new_password.to_owned()).await?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting the change")?;
    set_password(&mut tx, user_id, &hash, now, "password.changed").await?;
    mail::queue(
        &mut tx,
        &mail_texts::password_changed(user.lang, &user.email, &user.name),
        now,
    )
    .await?;
    tx.commit().await.context("committing the change")?;
    sessions::delete_for_user(db, user_id, Some(keep_session)).await?;
    Ok(())
}

async fn set_password(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    user_id: &UserId,
    hash: &str,
    now: i64,
    action: &str,
) -> anyhow::Result<()> {
    let row = sqlx::query(
        "update users set password_hash = $1, updated_at = $2 where id = $3 returning email",
    )
    .bind(hash)
    .bind(now)
    .bind(user_id)
    .fetch_one(&mut **tx)
    .await
    .context("storing the password")?;
    let email: String = row.try_get("email")?;
    let org: Option<OrganizationId> = sqlx::query_scalar(
        "select organization_id from memberships where user_id = $1 order by created_at limit 1",
    )
    .bind(user_id)
    .fetch_optional(&mut **tx)
    .await
    .context("finding the organization")?;
    let entry = Entry {
        organization_id: org.as_ref(),
        user_id: Some(user_id),
        actor: &email,
        action,
        detail: "",
        ip: None,
        at: now,
    };
    audit::record(&mut **tx, &entry).await
}
