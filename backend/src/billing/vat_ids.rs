//! The billing profile's VAT ID as VIES sees it. It is checked when the
//! profile is saved, again before an offline invoice (at most once a day),
//! and by a job while VIES cannot be reached. Only a `valid` ID is reverse
//! charged: `invalid` and `unchecked` pay VAT, and a VIES outage never
//! turns an ID valid; it keeps the last answer the register gave.

use anyhow::Context;
use domain::{Lang, OrganizationId};
use sqlx::{Any, Transaction};

use super::dunning::notify;
use super::profile::{self, BillingProfile};
use super::vies::{check_vat_id, VatIdRegistry, VatIdStatus};
use crate::jobs::{self, Outcome};
use crate::{audit, Clock, Db};

/// The job that asks VIES again about a VAT ID it could not answer for.
/// An answer this old is asked again before the next offline invoice.
pub const RECHECK_AFTER_SECS: i64 = 86_400;
/// The first retry after VIES could not answer; later ones wait longer.
const FIRST_RETRY_SECS: i64 = 300;
const LONGEST_RETRY_SECS: i64 = 6 * 3600;

pub use domain::vat::VatIdState;

/// The last thing VIES said about the profile's VAT ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VatIdCheck {
    pub state: VatIdState,
    /// When VIES last answered; `None` while it never has.
    pub checked_at: Option<i64>,
    /// The registered name, where the member state discloses it.
    pub name: Option<String>,
}

/// The VAT ID VIES is asked about: an EU country's (outside the EU a tax
/// number is only printed).
pub fn eu_vat_id(profile: &BillingProfile) -> Option<&str> {
    let eu = domain::order::country(&profile.country).is_some_and(|c| c.eu);
    profile.vat_id.as_deref().filter(|_| eu)
}

/// Asks VIES about `vat_id` for a profile being saved. Without an answer,
/// what VIES last said about the same ID stands (`previous`); a new ID is
/// `unchecked`. The flag says whether VIES answered.
pub(crate) async fn check_on_save(
    registry: &dyn VatIdRegistry,
    vat_id: &str,
    previous: Option<VatIdCheck>,
    now: i64,
) -> (VatIdCheck, bool) {
    match check_vat_id(registry, vat_id).await {
        Ok(status) => (answered(&status, now), true),
        Err(error) => {
            tracing::warn!(%vat_id, error = %error, "VIES could not check a VAT ID; retrying later");
            let kept = previous.unwrap_or(VatIdCheck {
                state: VatIdState::Unchecked,
                checked_at: None,
                name: None,
            });
            (kept, false)
        }
    }
}

fn answered(status: &VatIdStatus, now: i64) -> VatIdCheck {
    let (state, name) = match status {
        VatIdStatus::Valid { name } => (VatIdState::Valid, name.clone()),
        VatIdStatus::Invalid => (VatIdState::Invalid, None),
    };
    VatIdCheck {
        state,
        checked_at: Some(now),
        name,
    }
}

/// Queues a retry for the organization's VAT ID unless one is waiting.
pub(crate) async fn queue_retry(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    now: i64,
) -> anyhow::Result<()> {
    let waiting: i64 = sqlx::query_scalar(
        "select count(*) from jobs where kind = $1 and subject_id = $2 and state = 'queued'",
    )
    .bind(jobs::JobKind::VatIdCheck.as_str())
    .bind(organization_id)
    .fetch_one(&mut **tx)
    .await
    .context("looking for a waiting VAT ID check")?;
    if waiting == 0 {
        jobs::enqueue(
            tx,
            jobs::JobKind::VatIdCheck,
            organization_id,
            now + FIRST_RETRY_SECS,
            now,
        )
        .await?;
    }
    Ok(())
}

/// Before an offline invoice: asks VIES again about an answer older than a
/// day (or none). Without an answer the last one stands.
pub async fn recheck_before_invoice(
    db: &Db,
    now: i64,
    registry: &dyn VatIdRegistry,
    organization_id: &OrganizationId,
) -> anyhow::Result<()> {
    let Some(profile) = profile::get(db, organization_id).await? else {
        return Ok(());
    };
    let Some(vat_id) = eu_vat_id(&profile) else {
        return Ok(());
    };
    let last = profile.vat_id_check.as_ref().and_then(|c| c.checked_at);
    if last.is_some_and(|at| now - at < RECHECK_AFTER_SECS) {
        return Ok(());
    }
    match check_vat_id(registry, vat_id).await {
        Ok(status) => record(db, now, organization_id, &profile, &answered(&status, now)).await,
        Err(error) => {
            tracing::warn!(%vat_id, error = %error, "VIES could not re-check a VAT ID; the last answer stands");
            Ok(())
        }
    }
}

/// The retry job: asks VIES until it answers, waiting longer each time.
pub async fn retry(
    db: &Db,
    clock: &Clock,
    registry: &dyn VatIdRegistry,
    organization_id: &OrganizationId,
    attempts: i64,
) -> anyhow::Result<Outcome> {
    let Some(profile) = profile::get(db, organization_id).await? else {
        return Ok(Outcome::Done);
    };
    let Some(vat_id) = eu_vat_id(&profile) else {
        return Ok(Outcome::Done);
    };
    let now = clock.now();
    match check_vat_id(registry, vat_id).await {
        Ok(status) => {
            record(db, now, organization_id, &profile, &answered(&status, now)).await?;
            Ok(Outcome::Done)
        }
        Err(error) => {
            let wait = FIRST_RETRY_SECS
                .saturating_mul(1 << attempts.clamp(1, 10).saturating_sub(1))
                .min(LONGEST_RETRY_SECS);
            Ok(Outcome::RetryAt(now + wait, error.to_string()))
        }
    }
}

/// Stores a background answer about the profile's VAT ID (if the profile
/// still has it). The change to `invalid` is made by one conditional update, so
/// however many replicas ask at once, the owners and billing members are
/// mailed once.
async fn record(
    db: &Db,
    now: i64,
    organization_id: &OrganizationId,
    profile: &BillingProfile,
    check: &VatIdCheck,
) -> anyhow::Result<()> {
    let Some(vat_id) = profile.vat_id.as_deref() else {
        return Ok(());
    };
    let mut tx = db.begin().await?;
    let changed = sqlx::query(
        "update billing_profiles set vat_id_status = $1, vat_id_name = $2, vat_id_checked_at = $3 \
         where organization_id = $4 and vat_id = $5 and coalesce(vat_id_status, '') <> $1",
    )
    .bind(check.state.as_str())
    .bind(&check.name)
    .bind(now)
    .bind(organization_id)
    .bind(vat_id)
    .execute(&mut *tx)
    .await
    .context("recording what VIES said")?
    .rows_affected()
        == 1;
    if changed {
        // Reverse charge at Stripe follows what VIES says now.
        super::stripe::customers::queue_sync(&mut tx, organization_id, now).await?;
        audit::record(
            &mut *tx,
            &audit::Entry::unattended(
                organization_id,
                "system",
                "billing.vat_id_checked",
                &format!("{vat_id} {}", check.state.as_str()),
                now,
            ),
        )
        .await?;
        if check.state == VatIdState::Invalid {
            notify(&mut tx, organization_id, now, |lang| {
                invalid_mail(lang, vat_id, &profile.country)
            })
            .await?;
        }
    } else {
        sqlx::query(
            "update billing_profiles set vat_id_name = $1, vat_id_checked_at = $2 \
             where organization_id = $3 and vat_id = $4",
        )
        .bind(&check.name)
        .bind(now)
        .bind(organization_id)
        .bind(vat_id)
        .execute(&mut *tx)
        .await
        .context("recording when VIES answered")?;
    }
    tx.commit().await.context("committing what VIES said")?;
    Ok(())
}

fn invalid_mail(lang: Lang, vat_id: &str, country_code: &str) -> (String, String) {
    let country = domain::order::country(country_code);
    match lang {
        Lang::Zh => {
            let name = country.map_or(country_code, |c| c.zh);
            (
                format!("增值税号 {vat_id} 未在 VIES 中登记"),
                format!("您好：\n\n我们通过 VIES（欧盟增值税号登记系统）核查了贵公司的增值税号 {vat_id}，该号码目前未在其中登记。没有经过确认的增值税号，就不能适用反向征收：从现在起，发票将按{name}的税率收取增值税。\n\n如果增值税号有误，请在门户“账务”页面的账单资料中更正，保存时会立即重新核查。如果该号码应当有效，请联系您的税务机关。"),
            )
        }
        Lang::En => {
            let name = country.map_or(country_code, |c| c.en);
            (
                format!("VAT ID {vat_id} is not registered in VIES"),
                format!("Hello,\n\nWe checked your VAT ID {vat_id} with VIES, the EU’s register of VAT numbers, and it is not registered there. Without a confirmed VAT ID, reverse charge does not apply: from now on, invoices include VAT at the rate for {name}.\n\nIf the VAT ID is wrong, correct it in the billing profile on the Billing page of the portal; it is checked again as you save it. If it should be registered, please ask your tax office."),
            )
        }
    }
}
