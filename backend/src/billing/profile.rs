//! The organization's billing profile: who invoices are addressed to, where
//! (which sets the VAT), and the VAT ID that makes a business in another EU
//! country pay by reverse charge once VIES confirms it (`vat_ids`).

use anyhow::Context;
use domain::vat::parse_vat_id;
use domain::OrganizationId;
use sqlx::Row;

use super::vat_ids::{self, VatIdCheck, VatIdState};
use super::vies::VatIdRegistry;
use crate::{audit, Clock, Db};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BillingProfile {
    pub legal_name: String,
    pub address: String,
    pub postal_code: String,
    pub city: String,
    pub country: String,
    pub vat_id: Option<String>,
    pub billing_email: String,
    /// What VIES last said about `vat_id` (EU VAT IDs only; `None` as typed).
    pub vat_id_check: Option<VatIdCheck>,
}

impl BillingProfile {
    /// A VAT ID VIES confirmed: the only kind that is reverse charged.
    pub fn vat_id_confirmed(&self) -> bool {
        self.vat_id.is_some()
            && self
                .vat_id_check
                .as_ref()
                .is_some_and(|c| c.state == VatIdState::Valid)
    }

    /// The EU VAT ID that would be reverse charged by a seller in
    /// `seller_country` if VIES confirmed it, with what VIES said instead.
    pub fn unconfirmed_vat_id(&self, seller_country: &str) -> Option<(&str, VatIdState)> {
        let vat_id = vat_ids::eu_vat_id(self)?;
        let state = self.vat_id_check.as_ref()?.state;
        (state != VatIdState::Valid && self.vat_id_decides_vat(seller_country))
            .then_some((vat_id, state))
    }

    /// The name VIES registers the VAT ID to, when it is not the legal name
    /// invoices are addressed to (letters and digits compared, ignoring case,
    /// spaces and punctuation: VIES often answers in capitals). A member
    /// state that discloses no name differs from nothing.
    pub fn registered_name_differs(&self) -> Option<&str> {
        let check = self.vat_id_check.as_ref()?;
        let registered = check.name.as_deref()?;
        let plain = |name: &str| -> String {
            name.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect()
        };
        (check.state == VatIdState::Valid && plain(registered) != plain(&self.legal_name))
            .then_some(registered)
    }

    /// Whether what VIES says about the VAT ID decides the VAT for a seller
    /// in `seller_country`: reverse charge is for customers in another
    /// country only.
    pub fn vat_id_decides_vat(&self, seller_country: &str) -> bool {
        self.country != seller_country
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("{0} is required")]
    Missing(&'static str),
    #[error("unknown country")]
    Country,
    #[error("the VAT ID does not have the format of the country")]
    VatId,
    #[error("not a valid email address")]
    Email,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

pub async fn get(
    db: &Db,
    organization_id: &OrganizationId,
) -> anyhow::Result<Option<BillingProfile>> {
    let row = sqlx::query(
        "select legal_name, address, postal_code, city, country, vat_id, billing_email, \
         vat_id_status, vat_id_checked_at, vat_id_name \
         from billing_profiles where organization_id = $1",
    )
    .bind(organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the billing profile")?;
    row.map(|r| -> anyhow::Result<BillingProfile> {
        let status: Option<String> = r.try_get("vat_id_status")?;
        let vat_id_check = match status.as_deref() {
            None => None,
            Some(stored) => Some(VatIdCheck {
                state: VatIdState::parse(stored)
                    .with_context(|| format!("unknown VAT ID status {stored:?}"))?,
                checked_at: r.try_get("vat_id_checked_at")?,
                name: r.try_get("vat_id_name")?,
            }),
        };
        Ok(BillingProfile {
            legal_name: r.try_get("legal_name")?,
            address: r.try_get("address")?,
            postal_code: r.try_get("postal_code")?,
            city: r.try_get("city")?,
            country: r.try_get("country")?,
            vat_id: r.try_get("vat_id")?,
            billing_email: r.try_get("billing_email")?,
            vat_id_check,
        })
    })
    .transpose()
}

/// The profile the billing pages edit: the stored one, or a first one that
/// starts from what sign-up already knows: the organization's name (the
/// company given at sign-up, or the person's name), the country it was
/// last billed in, and `email` (the user filling it in) for invoices.
pub async fn get_or_start(
    db: &Db,
    organization_id: &OrganizationId,
    email: &str,
) -> anyhow::Result<BillingProfile> {
    if let Some(stored) = get(db, organization_id).await? {
        return Ok(stored);
    }
    let row = sqlx::query("select name, billing_country from organizations where id = $1")
        .bind(organization_id)
        .fetch_optional(&db.pool)
        .await
        .context("reading the organization for its billing profile")?;
    let (legal_name, country) = match row {
        Some(r) => (
            r.try_get::<String, _>("name")?,
            r.try_get::<Option<String>, _>("billing_country")?,
        ),
        None => (String::new(), None),
    };
    Ok(BillingProfile {
        legal_name,
        country: country.unwrap_or_default(),
        billing_email: email.to_owned(),
        ..BillingProfile::default()
    })
}

/// Checks and normalises a profile as typed.
pub fn validate(input: &BillingProfile) -> Result<BillingProfile, ProfileError> {
    let text = |value: &str, field: &'static str, max: usize| {
        let v = value.trim();
        if v.is_empty() || v.chars().count() > max {
            Err(ProfileError::Missing(field))
        } else {
            Ok(v.to_owned())
        }
    };
    let country = input.country.trim().to_ascii_uppercase();
    let known = domain::order::country(&country).ok_or(ProfileError::Country)?;
    let vat_id = match input.vat_id.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(raw) if known.eu => Some(parse_vat_id(&country, raw).ok_or(ProfileError::VatId)?),
        // Outside the EU a tax number is printed as given.
        Some(raw) => Some(raw.chars().take(40).collect()),
    };
    let billing_email =
        crate::accounts::normalize_email(&input.billing_email).map_err(|_| ProfileError::Email)?;
    Ok(BillingProfile {
        legal_name: text(&input.legal_name, "legal_name", 200)?,
        address: text(&input.address, "address", 300)?,
        postal_code: text(&input.postal_code, "postal_code", 20)?,
        city: text(&input.city, "city", 100)?,
        country,
        vat_id,
        billing_email,
        vat_id_check: None,
    })
}

/// Saves the profile as typed. An EU VAT ID is checked with VIES first;
/// whatever VIES says, the profile is saved, with the answer beside it
/// (`vat_id_check`). Without an answer, a job asks again later.
pub async fn save(
    db: &Db,
    clock: &Clock,
    registry: &dyn VatIdRegistry,
    organization_id: &OrganizationId,
    actor: &str,
    input: &BillingProfile,
) -> Result<BillingProfile, ProfileError> {
    let mut profile = validate(input)?;
    let mut retry = false;
    if let Some(vat_id) = vat_ids::eu_vat_id(&profile) {
        let previous = get(db, organization_id)
            .await?
            .filter(|p| p.vat_id.as_deref() == Some(vat_id))
            .and_then(|p| p.vat_id_check);
        let (check, answered) =
            vat_ids::check_on_save(registry, vat_id, previous, clock.now()).await;
        profile.vat_id_check = Some(check);
        retry = !answered;
    }
    let check = profile.vat_id_check.as_ref();
    let now = clock.now();
    let mut tx = db.begin().await?;
    sqlx::query(
        "insert into billing_profiles (organization_id, legal_name, address, postal_code, city, \
         country, vat_id, billing_email, updated_at, vat_id_status, vat_id_checked_at, vat_id_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
         on conflict (organization_id) do update set legal_name = excluded.legal_name, \
         address = excluded.address, postal_code = excluded.postal_code, city = excluded.city, \
         country = excluded.country, vat_id = excluded.vat_id, \
         billing_email = excluded.billing_email, updated_at = excluded.updated_at, \
         vat_id_status = excluded.vat_id_status, vat_id_checked_at = excluded.vat_id_checked_at, \
         vat_id_name = excluded.vat_id_name",
    )
    .bind(organization_id)
    .bind(&profile.legal_name)
    .bind(&profile.address)
    .bind(&profile.postal_code)
    .bind(&profile.city)
    .bind(&profile.country)
    .bind(&profile.vat_id)
    .bind(&profile.billing_email)
    .bind(now)
    .bind(check.map(|c| c.state.as_str()))
    .bind(check.and_then(|c| c.checked_at))
    .bind(check.and_then(|c| c.name.clone()))
    .execute(&mut *tx)
    .await
    .context("saving the billing profile")?;
    if retry {
        vat_ids::queue_retry(&mut tx, organization_id, now).await?;
    }
    sqlx::query("update organizations set billing_country = $1 where id = $2")
        .bind(&profile.country)
        .bind(organization_id)
        .execute(&mut *tx)
        .await
        .context("remembering the billing country")?;
    // Stripe's invoices print the customer as the profile says.
    super::stripe::customers::queue_sync(&mut tx, organization_id, now).await?;
    audit::record(
        &mut *tx,
        &audit::Entry {
            organization_id: Some(organization_id),
            user_id: None,
            actor,
            action: "billing.profile_saved",
            detail: &format!(
                "{} {} {} {}",
                profile.legal_name,
                profile.country,
                profile.vat_id.as_deref().unwrap_or("-"),
                check.map_or("-", |c| c.state.as_str())
            ),
            ip: None,
            at: now,
        },
    )
    .await?;
    tx.commit()
        .await
        .context("committing the billing profile")?;
    Ok(profile)
}
