//! The organization's Stripe customer: created once, then kept like the
//! billing profile. Stripe prints the customer's name, address and VAT ID
//! on the invoice and receipt it sends, and says "Reverse charge" there
//! only if the customer is `tax_exempt = reverse`; so every profile change
//! and every VIES answer that changes the VAT is passed on (a job, retried
//! while Stripe is away), not only the first.
//!
//! A key names one request body: the customer is created with nothing but
//! the organization's id (a retry after a lost answer finds the same
//! customer whatever the profile says by then), and the profile follows
//! by updates, whose key is the body's digest.

use anyhow::Context;
use domain::OrganizationId;
use sha2::{Digest, Sha256};
use sqlx::{Any, Row, Transaction};
use stripe_billing::tax_id::{CreateCustomerTaxId, DeleteCustomerTaxId, ListCustomerTaxId};
use stripe_core::customer::{
    CreateCustomer, OptionalFieldsCustomerAddress, UpdateCustomer, UpdateCustomerInvoiceSettings,
};
use stripe_shared::CustomerTaxExempt;

use super::{Intent, StripeClient};
use crate::billing::profile::BillingProfile;
use crate::jobs::{self, JobKind, Outcome};
use crate::{Clock, Db};

/// What Stripe prints on a reverse-charged invoice, in both languages
/// (Art. 196 and 226(11a) of the EU VAT Directive ask for the wording).
pub const REVERSE_CHARGE_FOOTER: &str = "Reverse charge: VAT to be accounted for by the recipient \
     (Art. 196 Directive 2006/112/EC). 反向征收：增值税由购买方申报缴纳。";

/// The organization's Stripe customer id, creating the customer (and
/// bringing it up to the profile) the first time.
pub(super) async fn customer_of(
    db: &Db,
    client: &StripeClient,
    organization_id: &OrganizationId,
    seller_country: &str,
    now: i64,
) -> anyhow::Result<String> {
    let known: Option<String> =
        sqlx::query_scalar("select stripe_customer_id from organizations where id = $1")
            .bind(organization_id)
            .fetch_one(&db.pool)
            .await
            .context("reading the organization")?;
    if let Some(id) = known {
        return Ok(id);
    }
    let created = client
        .send(
            &CreateCustomer::new()
                .metadata([("organization_id".to_owned(), organization_id.to_string())]),
            Some(&Intent::new(format!("customer-{organization_id}"))),
        )
        .await?;
    let id = created.id.to_string();
    let mut tx = db.begin().await?;
    sqlx::query(
        "update organizations set stripe_customer_id = $1 where id = $2 and stripe_customer_id is null",
    )
    .bind(&id)
    .bind(organization_id)
    .execute(&mut *tx)
    .await
    .context("remembering the Stripe customer")?;
    // The job brings it up to the profile if the update below fails.
    queue_sync(&mut tx, organization_id, now).await?;
    tx.commit()
        .await
        .context("committing the Stripe customer")?;
    // Now, so the first invoice (rendered when Checkout completes) names
    // the customer as the profile does.
    if let Err(error) = bring_up_to_profile(db, client, organization_id, seller_country).await {
        tracing::warn!(error = %format!("{error:#}"), "updating a new Stripe customer; the job will");
    }
    Ok(id)
}

/// Queues passing the profile on to Stripe, in the transaction that
/// changed it; nothing for an organization Stripe does not know yet (its
/// first checkout creates the customer from the profile as it is then),
/// and one queued job however often the profile changes before it runs.
pub async fn queue_sync(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    now: i64,
) -> anyhow::Result<()> {
    let known: Option<Option<String>> =
        sqlx::query_scalar("select stripe_customer_id from organizations where id = $1")
            .bind(organization_id)
            .fetch_optional(&mut **tx)
            .await
            .context("reading the Stripe customer")?;
    if !matches!(known, Some(Some(_))) {
        return Ok(());
    }
    let queued: i64 = sqlx::query_scalar(
        "select count(*) from jobs where kind = $1 and subject_id = $2 and state = 'queued' \
         and attempts = 0",
    )
    .bind(JobKind::StripeCustomer.as_str())
    .bind(organization_id)
    .fetch_one(&mut **tx)
    .await
    .context("looking for a queued customer update")?;
    if queued == 0 {
        jobs::enqueue(tx, JobKind::StripeCustomer, organization_id, now, now).await?;
    }
    Ok(())
}

/// Job (`JobKind::StripeCustomer`): the Stripe customer as the profile
/// says now.
pub async fn sync(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    seller_country: &str,
    organization_id: &OrganizationId,
    attempts: i64,
) -> Outcome {
    let result = bring_up_to_profile(db, client, organization_id, seller_country).await;
    Outcome::retried(result, clock.now(), attempts, 30, 30)
}

/// Whether Stripe should treat the customer as reverse charged: a VAT ID
/// VIES confirmed, in another EU country than the seller's.
pub fn tax_exempt(profile: &BillingProfile, seller_country: &str) -> CustomerTaxExempt {
    match domain::vat::treatment(
        seller_country,
        &profile.country,
        profile.vat_id_confirmed(),
        0,
    ) {
        domain::VatTreatment::ReverseCharge => CustomerTaxExempt::Reverse,
        _ => CustomerTaxExempt::None,
    }
}

async fn bring_up_to_profile(
    db: &Db,
    client: &StripeClient,
    organization_id: &OrganizationId,
    seller_country: &str,
) -> anyhow::Result<()> {
    let row = sqlx::query("select name, stripe_customer_id from organizations where id = $1")
        .bind(organization_id)
        .fetch_one(&db.pool)
        .await
        .context("reading the organization")?;
    let Some(customer) = row.try_get::<Option<String>, _>("stripe_customer_id")? else {
        return Ok(());
    };
    let Some(profile) = crate::billing::profile::get(db, organization_id).await? else {
        // No profile yet: the organization's name until there is one.
        let name: String = row.try_get("name")?;
        let update = UpdateCustomer::new(customer.as_str()).name(name);
        client
            .send(&update, Some(&digest_intent(&customer, &update)))
            .await?;
        return Ok(());
    };
    let exempt = tax_exempt(&profile, seller_country);
    let footer = if exempt == CustomerTaxExempt::Reverse {
        REVERSE_CHARGE_FOOTER
    } else {
        ""
    };
    let mut settings = UpdateCustomerInvoiceSettings::new();
    settings.footer = Some(footer.to_owned());
    let update = UpdateCustomer::new(customer.as_str())
        .name(&profile.legal_name)
        .email(&profile.billing_email)
        .address(OptionalFieldsCustomerAddress {
            line1: Some(profile.address.clone()),
            postal_code: Some(profile.postal_code.clone()),
            city: Some(profile.city.clone()),
            country: Some(profile.country.clone()),
            line2: None,
            state: None,
        })
        .tax_exempt(exempt)
        .invoice_settings(settings);
    client
        .send(&update, Some(&digest_intent(&customer, &update)))
        .await?;
    // The VAT ID Stripe prints: the profile's, and no other.
    let wanted = crate::billing::vat_ids::eu_vat_id(&profile).map(str::to_owned);
    let listed = client
        .send(&ListCustomerTaxId::new(customer.as_str()), None)
        .await?;
    let mut present = false;
    for tax_id in listed.data {
        if Some(&tax_id.value) == wanted.as_ref() && !present {
            present = true;
            continue;
        }
        client
            .send(
                &DeleteCustomerTaxId::new(customer.as_str(), tax_id.id.as_str()),
                None,
            )
            .await?;
    }
    if let (Some(vat_id), false) = (wanted, present) {
        client
            .send(
                &CreateCustomerTaxId::new(
                    customer.as_str(),
                    stripe_billing::tax_id::CreateCustomerTaxIdType::EuVat,
                    &vat_id,
                ),
                Some(&Intent::new(format!("tax-id-{customer}-{vat_id}"))),
            )
            .await?;
    }
    Ok(())
}

/// An update's key: the customer and a digest of what it sets, so the
/// same update retried is one request, and a different one a new key.
fn digest_intent<R: stripe::StripeRequest>(customer: &str, request: &R) -> Intent {
    let body = request.build().body.unwrap_or_default();
    let digest = Sha256::digest(body.as_bytes());
    let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    Intent::new(format!("customer-update-{customer}-{short}"))
}
