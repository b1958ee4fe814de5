//! Two-factor authentication with TOTP (RFC 6238: SHA-1, 6 digits, 30 s),
//! as every authenticator app speaks it, and 10 single-use recovery codes.
//! A code is accepted once: the step it belongs to is remembered.

use anyhow::Context;
use domain::{OrganizationId, UserId};
use sqlx::Row;
use totp_rs::{Algorithm, Secret, TOTP};

use super::{throttle, tokens, User};
use crate::audit::{self, Entry};
use crate::{Clock, Db};

pub const ISSUER: &str = "GPU servers";
const RECOVERY_CODES: usize = 10;

#[derive(Debug, thiserror::Error)]
pub enum TwoFactorError {
    #[error("the code is wrong or was already used")]
    BadCode,
    #[error("the password is wrong")]
    BadPassword,
    #[error("too many wrong attempts; retry in {0} s")]
    Throttled(i64),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// What a user needs to add the account to an authenticator app.
pub struct Enrolment {
    /// Base32, shown for manual entry.
    pub secret: String,
    pub otpauth_url: String,
    /// The URL as a QR code, an SVG document.
    pub qr_svg: String,
}

fn totp(secret_base32: &str, account: &str) -> anyhow::Result<TOTP> {
    let bytes = Secret::Encoded(secret_base32.to_owned())
        .to_bytes()
        .map_err(|e| anyhow::anyhow!("bad TOTP secret: {e:?}"))?;
    TOTP::new(
        Algorithm::SHA1,
        6,
        1,
        30,
        bytes,
        Some(ISSUER.to_owned()),
        account.to_owned(),
    )
    .map_err(|e| anyhow::anyhow!("TOTP parameters: {e}"))
}

/// A new secret (160 random bits) for `user` to confirm with a first code.
pub fn begin(user: &User) -> anyhow::Result<Enrolment> {
    let mut bytes = [0u8; 20];
    getrandom::getrandom(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    enrolment_for(user, &Secret::Raw(bytes.to_vec()).to_encoded().to_string())
}

/// The enrolment details of a secret already drawn.
pub fn enrolment_for(user: &User, secret: &str) -> anyhow::Result<Enrolment> {
    let secret = secret.to_owned();
    let otp = totp(&secret, &user.email)?;
    let otpauth_url = otp.get_url();
    let qr = qrcode::QrCode::new(otpauth_url.as_bytes()).context("encoding the QR code")?;
    let qr_svg = qr
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build();
    Ok(Enrolment {
        secret,
        otpauth_url,
        qr_svg,
    })
}

/// The 30-second step a code matches (now, or one step either side for
/// clock drift).
fn matching_step(otp: &TOTP, code: &str, now: i64) -> Option<i64> {
    let code = code.trim().replace(' ', "");
    let step = now.div_euclid(30);
    [step, step - 1, step + 1]
        .into_iter()
        .find(|s| otp.generate((*s * 30).max(0) as u64) == code)
}

/// Turns 2FA on if `code` matches the pending secret; returns the recovery
/// codes, shown once.
pub async fn confirm(
    db: &Db,
    clock: &Clock,
    user: &User,
    secret: &str,
    code: &str,
    sealer: &crate::sealing::Sealer,
) -> Result<Vec<String>, TwoFactorError> {
    let now = clock.now();
    let step =
        matching_step(&totp(secret, &user.email)?, code, now).ok_or(TwoFactorError::BadCode)?;
    let codes = (0..RECOVERY_CODES)
        .map(|_| tokens::random_token().map(|t| format!("{}-{}", &t[..5], &t[5..10])))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut tx = db.begin().await.context("starting 2FA enrolment")?;
    sqlx::query("update users set totp_secret = $1, totp_enabled_at = $2, totp_last_step = $3, updated_at = $2 where id = $4")
        .bind(sealer.seal(secret)?)
        .bind(now)
        .bind(step)
        .bind(&user.id)
        .execute(&mut *tx)
        .await
        .context("storing the TOTP secret")?;
    sqlx::query("delete from recovery_codes where user_id = $1")
        .bind(&user.id)
        .execute(&mut *tx)
        .await
        .context("clearing old recovery codes")?;
    for code in &codes {
        sqlx::query("insert into recovery_codes (user_id, code_hash) values ($1, $2)")
            .bind(&user.id)
            .bind(tokens::hash(code))
            .execute(&mut *tx)
            .await
            .context("storing a recovery code")?;
    }
    record(&mut tx, user, "2fa.enabled", now).await?;
    tx.commit().await.context("committing 2FA enrolment")?;
    Ok(codes)
}

async fn record(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    user: &User,
    action: &str,
    at: i64,
) -> anyhow::Result<()> {
    let org: Option<OrganizationId> = sqlx::query_scalar(
        "select organization_id from memberships where user_id = $1 order by created_at limit 1",
    )
    .bind(&user.id)
    .fetch_optional(&mut **tx)
    .await
    .context("finding the organization")?;
    let entry = Entry {
        organization_id: org.as_ref(),
        user_id: Some(&user.id),
        actor: &user.email,
        action,
        detail: "",
        ip: None,
        at,
    };
    audit::record(&mut **tx, &entry).await
}

pub async fn is_enabled(db: &Db, user_id: &UserId) -> anyhow::Result<bool> {
    let enabled: Option<i64> =
        sqlx::query_scalar("select totp_enabled_at from users where id = $1")
            .bind(user_id)
            .fetch_optional(&db.pool)
            .await
            .context("reading 2FA state")?
            .flatten();
    Ok(enabled.is_some())
}

/// Checks a login code: a TOTP code not used before, or an unused recovery
/// code (which is then spent).
pub async fn verify(
    db: &Db,
    clock: &Clock,
    sealer: &crate::sealing::Sealer,
    user: &User,
    code: &str,
) -> Result<(), TwoFactorError> {
    let now = clock.now();
    let row =
        sqlx::query("select totp_secret from users where id = $1 and totp_enabled_at is not null")
            .bind(&user.id)
            .fetch_optional(&db.pool)
            .await
            .context("reading the TOTP secret")?
            .ok_or(TwoFactorError::BadCode)?;
    let secret = sealer.open(&row.try_get::<String, _>("totp_secret").context("secret")?)?;
    if let Some(step) = matching_step(&totp(&secret, &user.email)?, code, now) {
        // Conditional on the step moving forward: a replayed code matches nothing.
        let done = sqlx::query(
            "update users set totp_last_step = $1 where id = $2 and (totp_last_step is null or totp_last_step < $1)",
        )
        .bind(step)
        .bind(&user.id)
        .execute(&db.pool)
        .await
        .context("recording the TOTP step")?;
        return if done.rows_affected() == 1 {
            Ok(())
        } else {
            Err(TwoFactorError::BadCode)
        };
    }
    let spent = sqlx::query("update recovery_codes set used_at = $1 where user_id = $2 and code_hash = $3 and used_at is null")
        .bind(now)
        .bind(&user.id)
        .bind(tokens::hash(&code.trim().to_lowercase()))
        .execute(&db.pool)
        .await
        .context("using a recovery code")?;
    if spent.rows_affected() == 1 {
        let mut tx = db.begin().await.context("auditing a recovery code")?;
        record(&mut tx, user, "2fa.recovery_code_used", now).await?;
        tx.commit().await.context("committing the audit entry")?;
        Ok(())
    } else {
        Err(TwoFactorError::BadCode)
    }
}

/// `verify` under the account's count of wrong codes (and the client
/// address's, where there is one), which locks the code step after a few.
pub async fn verify_counted(
    db: &Db,
    clock: &Clock,
    sealer: &crate::sealing::Sealer,
    user: &User,
    code: &str,
    ip: Option<&str>,
) -> Result<(), TwoFactorError> {
    let attempt = throttle::begin(db, throttle::Factor::Code, &user.email, ip, clock.now())
        .await?
        .map_err(TwoFactorError::Throttled)?;
    verify(db, clock, sealer, user, code).await?;
    attempt.forgive(db).await?;
    Ok(())
}

/// Turns 2FA off after re-authentication: the password and a current code.
pub async fn disable(
    db: &Db,
    clock: &Clock,
    sealer: &crate::sealing::Sealer,
    user: &User,
    current_password: &str,
    code: &str,
) -> Result<(), TwoFactorError> {
    super::reauthenticate(db, clock, user, current_password)
        .await
        .map_err(|error| match error {
            super::AccountError::Throttled(secs) => TwoFactorError::Throttled(secs),
            super::AccountError::Db(error) => TwoFactorError::Db(error),
            _ => TwoFactorError::BadPassword,
        })?;
    verify_counted(db, clock, sealer, user, code, None).await?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting to disable 2FA")?;
    sqlx::query("update users set totp_secret = null, totp_enabled_at = null, totp_last_step = null, updated_at = $1 where id = $2")
        .bind(now)
        .bind(&user.id)
        .execute(&mut *tx)
        .await
        .context("clearing the TOTP secret")?;
    sqlx::query("delete from recovery_codes where user_id = $1")
        .bind(&user.id)
        .execute(&mut *tx)
        .await
        .context("deleting recovery codes")?;
    record(&mut tx, user, "2fa.disabled", now).await?;
    tx.commit().await.context("committing")?;
    Ok(())
}

/// An owner requires (or stops requiring) 2FA of every member.
pub async fn set_requirement(
    db: &Db,
    clock: &Clock,
    organization_id: &OrganizationId,
    actor: &User,
    required: bool,
) -> anyhow::Result<()> {
    let mut tx = db.begin().await.context("starting")?;
    sqlx::query("update organizations set require_two_factor = $1 where id = $2")
        .bind(i64::from(required))
        .bind(organization_id)
        .execute(&mut *tx)
        .await
        .context("storing the requirement")?;
    let entry = Entry {
        organization_id: Some(organization_id),
        user_id: Some(&actor.id),
        actor: &actor.email,
        action: if required {
            "2fa.required"
        } else {
            "2fa.not_required"
        },
        detail: "",
        ip: None,
        at: clock.now(),
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing")?;
    Ok(())
}

pub async fn required_by(db: &Db, organization_id: &OrganizationId) -> anyhow::Result<bool> {
    let required: i64 =
        sqlx::query_scalar("select require_two_factor from organizations where id = $1")
            .bind(organization_id)
            .fetch_optional(&db.pool)
            .await
            .context("reading the requirement")?
            .unwrap_or(0);
    Ok(required == 1)
}
