//! The price of an order: plan and add-ons ex VAT, and VAT for the billing
//! country from the rates table in force at the time.

use anyhow::Context;
use domain::order::country;
use domain::{Catalog, OrganizationId, Plan, Quote, VatTreatment};

use crate::billing::profile::BillingProfile;
use crate::Db;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PriceError {
    #[error("unknown add-on {0:?}")]
    UnknownAddon(String),
    #[error("unknown billing country {0:?}")]
    UnknownCountry(String),
}

/// How VAT applies in `country` at `at`: the country's standard rate inside
/// the EU (the customer's rate, as EU rules have it for consumers and for
/// businesses without a VAT ID); nothing outside it.
pub async fn vat_treatment(
    db: &Db,
    country_code: &str,
    at: i64,
) -> anyhow::Result<Option<VatTreatment>> {
    let Some(country) = country(country_code) else {
        return Ok(None);
    };
    if !country.eu {
        return Ok(Some(VatTreatment::OutsideEu));
    }
    let rate: Option<i64> = sqlx::query_scalar(
        "select rate_bp from vat_rates where country_code = $1 and effective_from <= $2 \
         order by effective_from desc limit 1",
    )
    .bind(country.code)
    .bind(at)
    .fetch_optional(&db.pool)
    .await
    .context("reading the VAT rate")?;
    let rate_bp = rate.with_context(|| format!("no VAT rate for {}", country.code))?;
    Ok(Some(VatTreatment::Charged { rate_bp }))
}

/// Who is billed, for VAT: their country, whether they have a VAT ID that
/// VIES confirmed (a merely well-formed one pays VAT), and the country we
/// are established in.
pub struct Billed<'a> {
    pub country: &'a str,
    pub vat_id_confirmed: bool,
    pub seller_country: &'a str,
}

/// Who an organization's order bills, for VAT: its billing profile decides
/// the country and whether a VAT ID is reverse charged (only one VIES
/// confirmed). The order form's preview and placing an order both ask this.
#[derive(Clone, Debug)]
pub struct Customer {
    pub country: String,
    pub vat_id_confirmed: bool,
    pub profile: BillingProfile,
}

impl Customer {
    /// As the quote needs it, billed by a seller in `seller_country`.
    pub fn billed<'a>(&'a self, seller_country: &'a str) -> Billed<'a> {
        Billed {
            country: &self.country,
            vat_id_confirmed: self.vat_id_confirmed,
            seller_country,
        }
    }
}

/// The customer an order of `organization_id` bills; `None` until the
/// organization has given its billing profile (no order before that).
pub async fn customer(
    db: &Db,
    organization_id: &OrganizationId,
) -> anyhow::Result<Option<Customer>> {
    let profile = crate::billing::profile::get(db, organization_id).await?;
    Ok(profile.map(|p| Customer {
        country: p.country.clone(),
        vat_id_confirmed: p.vat_id_confirmed(),
        profile: p,
    }))
}

/// The monthly quote for a plan with add-ons for a billed customer.
pub async fn quote(
    db: &Db,
    catalog: &Catalog,
    plan: &Plan,
    addon_ids: &[String],
    billed: &Billed<'_>,
    at: i64,
) -> anyhow::Result<Result<Quote, PriceError>> {
    let country_code = billed.country;
    let mut addons: Vec<(String, _)> = Vec::new();
    for id in addon_ids {
        // An add-on is had once, however often a form names it.
        if addons.iter().any(|(have, _)| have == id) {
            continue;
        }
        match catalog.addon(id).and_then(|a| a.price_for(&plan.id)) {
            Some(price) => addons.push((id.clone(), price)),
            None => return Ok(Err(PriceError::UnknownAddon(id.clone()))),
        }
    }
    let Some(standard) = vat_treatment(db, country_code, at).await? else {
        return Ok(Err(PriceError::UnknownCountry(country_code.to_owned())));
    };
    let treatment = domain::vat::treatment(
        billed.seller_country,
        country_code,
        billed.vat_id_confirmed,
        standard.rate_bp(),
    );
    Ok(Ok(Quote::new(plan.monthly_price, addons, treatment)))
}

/// What the order form's summary shows for a choice: the quote with VAT
/// when the organization has a billing profile, the net price either way,
/// and a VAT ID that VIES has not confirmed (so the summary can say why
/// VAT is charged). The form and its live quote both read this.
pub struct Summary {
    pub quote: Option<Quote>,
    pub net: domain::Money,
    /// (VAT ID, its check's state) when confirming it would change the VAT.
    pub vat_id_unconfirmed: Option<(String, domain::vat::VatIdState)>,
    /// (VAT ID, the name VIES registers it to) when that is not the legal
    /// name invoices are addressed to.
    pub vat_id_name_differs: Option<(String, String)>,
}

pub async fn summary(
    db: &Db,
    catalog: &Catalog,
    plan: &Plan,
    addon_ids: &[String],
    customer: Option<&Customer>,
    seller_country: &str,
    at: i64,
) -> anyhow::Result<Summary> {
    let (quote, vat_id_unconfirmed, vat_id_name_differs) = match customer {
        Some(customer) => {
            let billed = customer.billed(seller_country);
            let quote = quote(db, catalog, plan, addon_ids, &billed, at).await?.ok();
            let profile = &customer.profile;
            let unconfirmed = profile
                .unconfirmed_vat_id(seller_country)
                .map(|(vat_id, said)| (vat_id.to_owned(), said));
            let name_differs = profile
                .vat_id
                .as_deref()
                .zip(profile.registered_name_differs())
                .map(|(vat_id, name)| (vat_id.to_owned(), name.to_owned()));
            (quote, unconfirmed, name_differs)
        }
        None => (None, None, None),
    };
    // Without a billing profile: plan and add-ons ex VAT, each add-on once
    // (as `quote` counts them).
    let mut priced: Vec<(String, domain::Money)> = Vec::new();
    for id in addon_ids {
        if priced.iter().any(|(have, _)| have == id) {
            continue;
        }
        if let Some(price) = catalog.addon(id).and_then(|a| a.price_for(&plan.id)) {
            priced.push((id.clone(), price));
        }
    }
    let net = Quote::new(plan.monthly_price, priced, VatTreatment::OutsideEu).net;
    Ok(Summary {
        quote,
        net,
        vat_id_unconfirmed,
        vat_id_name_differs,
    })
}
