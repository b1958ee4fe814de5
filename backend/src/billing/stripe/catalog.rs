//! What `server stripe sync` keeps in step at Stripe: a Product and a
//! monthly Price per plan and add-on, the VAT Tax Rates our own VAT rules
//! choose, and the webhook endpoint (its URL, the API version its events
//! are rendered in, the events we handle).
//!
//! VAT goes through Tax Rates, not Stripe Tax: our rules (the customer's
//! country rate, reverse charge for EU businesses with a validated VAT ID,
//! nothing outside the EU) already decide every order and offline invoice,
//! and Tax Rates make Stripe charge exactly that decision. Stripe Tax would
//! decide again on its own, needs registrations configured at Stripe, and
//! could disagree with the order the customer confirmed.

use anyhow::Context;
use domain::Catalog;
use stripe_misc::webhook_endpoint::{
    CreateWebhookEndpoint, CreateWebhookEndpointEnabledEvents, ListWebhookEndpoint,
    UpdateWebhookEndpoint, UpdateWebhookEndpointEnabledEvents,
};
use stripe_product::price::{CreatePrice, CreatePriceRecurring, CreatePriceRecurringInterval};
use stripe_product::product::CreateProduct;
use stripe_product::tax_rate::CreateTaxRate;

use super::client::{api_version, Intent, StripeClient};
use crate::orders::Order;
use crate::{Clock, Db};

/// Our key for a catalog entry's Stripe Price.
pub fn plan_key(plan: &str) -> String {
    format!("plan:{plan}")
}

pub fn addon_key(addon: &str, plan: &str) -> String {
    format!("addon:{addon}:{plan}")
}

/// The events our endpoint subscribes to: everything [`super::events`]
/// applies.
pub const HANDLED_EVENTS: &[&str] = &[
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.async_payment_failed",
    "checkout.session.expired",
    "customer.subscription.created",
    "customer.subscription.updated",
    "customer.subscription.deleted",
    "invoice.finalized",
    "invoice.updated",
    "invoice.paid",
    "invoice.payment_failed",
    "invoice.voided",
    "invoice.marked_uncollectible",
    "invoice_payment.paid",
    "refund.created",
    "refund.updated",
    "charge.dispute.created",
    "charge.dispute.closed",
];

/// Creates (or finds) a Product and a monthly Price for every plan and
/// add-on; running it again changes nothing unless a price changed, which
/// makes a new Price (Stripe Prices are immutable). Answers what it did.
pub async fn sync_catalog(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    catalog: &Catalog,
) -> anyhow::Result<Vec<String>> {
    let mut entries: Vec<(String, String, i64)> = catalog
        .plans
        .iter()
        .map(|p| {
            (
                plan_key(p.id.as_str()),
                p.name.clone(),
                p.monthly_price.cents,
            )
        })
        .collect();
    for addon in &catalog.addons {
        for (plan, price) in &addon.prices {
            entries.push((
                addon_key(&addon.id, plan.as_str()),
                format!("{} ({})", addon.name.get(domain::Lang::En), plan.as_str()),
                price.cents,
            ));
        }
    }
    let mut report = Vec::new();
    for (key, name, cents) in entries {
        let known: Option<i64> =
            sqlx::query_scalar("select amount_cents from stripe_prices where lookup_key = $1")
                .bind(&key)
                .fetch_optional(&db.pool)
                .await
                .context("reading synced prices")?;
        if known == Some(cents) {
            report.push(format!("{key}: unchanged"));
            continue;
        }
        let product = client
            .send(
                &CreateProduct::new(&name).metadata([("lookup_key".to_owned(), key.clone())]),
                Some(&Intent::new(format!("product-{key}"))),
            )
            .await?;
        let price = client
            .send(
                &CreatePrice::new(stripe_types::Currency::EUR)
                    .product(product.id.as_str())
                    .unit_amount(cents)
                    .recurring(CreatePriceRecurring::new(
                        CreatePriceRecurringInterval::Month,
                    ))
                    .lookup_key(&key)
                    .transfer_lookup_key(true)
                    .tax_behavior(stripe_shared::PriceTaxBehavior::Exclusive),
                Some(&Intent::new(format!("price-{key}-{cents}"))),
            )
            .await?;
        sqlx::query(
            "insert into stripe_prices (lookup_key, product_id, price_id, amount_cents, synced_at) \
             values ($1, $2, $3, $4, $5) on conflict (lookup_key) do update set \
             product_id = excluded.product_id, price_id = excluded.price_id, \
             amount_cents = excluded.amount_cents, synced_at = excluded.synced_at",
        )
        .bind(&key)
        .bind(product.id.as_str())
        .bind(price.id.as_str())
        .bind(cents)
        .bind(clock.now())
        .execute(&db.pool)
        .await
        .context("recording a synced price")?;
        report.push(format!("{key}: {}", price.id.as_str()));
    }
    Ok(report)
}

/// The Tax Rate for the VAT the order was quoted with; `None` when no VAT
/// is charged (reverse charge, outside the EU).
pub async fn tax_rate_for(
    db: &Db,
    client: &StripeClient,
    order: &Order,
) -> anyhow::Result<Option<String>> {
    tax_rate(db, client, &order.billing_country, order.vat_rate_bp).await
}

/// The Tax Rate for `rate_bp` in `country`, created at Stripe the first
/// time a country and rate are needed; `None` for a rate of 0.
pub async fn tax_rate(
    db: &Db,
    client: &StripeClient,
    country: &str,
    rate_bp: i64,
) -> anyhow::Result<Option<String>> {
    if rate_bp == 0 {
        return Ok(None);
    }
    let key = format!("vat:{country}:{rate_bp}");
    let known: Option<String> =
        sqlx::query_scalar("select tax_rate_id from stripe_tax_rates where rate_key = $1")
            .bind(&key)
            .fetch_optional(&db.pool)
            .await
            .context("reading synced tax rates")?;
    if let Some(id) = known {
        return Ok(Some(id));
    }
    let percentage = rate_bp as f64 / 100.0;
    let rate = client
        .send(
            &CreateTaxRate::new("VAT", false, percentage)
                .country(country)
                .jurisdiction(country)
                .tax_type(stripe_shared::TaxRateTaxType::Vat)
                .metadata([("rate_key".to_owned(), key.clone())]),
            Some(&Intent::new(format!("taxrate-{key}"))),
        )
        .await?;
    sqlx::query(
        "insert into stripe_tax_rates (rate_key, tax_rate_id, country, rate_bp) values ($1, $2, $3, $4) \
         on conflict (rate_key) do nothing",
    )
    .bind(&key)
    .bind(rate.id.as_str())
    .bind(country)
    .bind(rate_bp)
    .execute(&db.pool)
    .await
    .context("recording a tax rate")?;
    Ok(Some(rate.id.to_string()))
}

/// Makes our webhook endpoint at Stripe send the events we handle, in the
/// API version we read. Stripe cannot change an endpoint's version: one in
/// another version is disabled and a new one made, whose signing secret is
/// answered (to put in `STRIPE_WEBHOOK_SECRET`). Answers what it did.
pub async fn sync_webhook_endpoint(
    client: &StripeClient,
    url: &str,
) -> anyhow::Result<Vec<String>> {
    let mut report = Vec::new();
    let existing = client
        .send(&ListWebhookEndpoint::new().limit(100), None)
        .await?;
    let mut current = None;
    for endpoint in existing.data.iter().filter(|e| e.url == url) {
        if endpoint.api_version.as_deref() == Some(api_version()) && current.is_none() {
            current = Some(endpoint.id.clone());
        } else if endpoint.status != "disabled" {
            client
                .send(
                    &UpdateWebhookEndpoint::new(endpoint.id.clone()).disabled(true),
                    Some(&Intent::fresh(&format!("endpoint-disable-{}", endpoint.id))),
                )
                .await?;
            report.push(format!(
                "webhook endpoint {}: disabled (API version {})",
                endpoint.id,
                endpoint.api_version.as_deref().unwrap_or("account default")
            ));
        }
    }
    match current {
        Some(id) => {
            let events: Vec<UpdateWebhookEndpointEnabledEvents> = HANDLED_EVENTS
                .iter()
                .map(|e| match e.parse() {
                    Ok(event) => event,
                    Err(never) => match never {},
                })
                .collect();
            client
                .send(
                    &UpdateWebhookEndpoint::new(id.clone())
                        .enabled_events(events)
                        .disabled(false),
                    Some(&Intent::fresh(&format!("endpoint-update-{id}"))),
                )
                .await?;
            report.push(format!(
                "webhook endpoint {id}: up to date ({}, {} events)",
                api_version(),
                HANDLED_EVENTS.len()
            ));
        }
        None => {
            let events: Vec<CreateWebhookEndpointEnabledEvents> = HANDLED_EVENTS
                .iter()
                .map(|e| match e.parse() {
                    Ok(event) => event,
                    Err(never) => match never {},
                })
                .collect();
            let created = client
                .send(
                    &CreateWebhookEndpoint::new(events, url)
                        .api_version(stripe_shared::version::VERSION)
                        .description("GPU servers portal"),
                    Some(&Intent::fresh("endpoint-create")),
                )
                .await?;
            report.push(format!(
                "webhook endpoint {}: created ({}, {} events)",
                created.id,
                api_version(),
                HANDLED_EVENTS.len()
            ));
            if let Some(secret) = created.secret {
                // Shown once, like Stripe's dashboard does; never logged.
                report.push(format!(
                    "signing secret (set STRIPE_WEBHOOK_SECRET): {secret}"
                ));
            }
        }
    }
    Ok(report)
}
