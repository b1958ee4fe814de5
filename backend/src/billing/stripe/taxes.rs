//! Keeps the VAT on a running subscription equal to our VAT rules. A
//! Checkout attaches the Tax Rate of the order's decision to each item;
//! when the decision changes later (a VAT ID VIES no longer confirms, or
//! one newly confirmed, a new rate), the items are moved to the right Tax
//! Rate before Stripe drafts the next invoice. Run by reconciliation, with
//! a fresh Idempotency-Key per change (a change back must reach Stripe).

use domain::OrganizationId;
use std::collections::BTreeMap;

use anyhow::Context;
use sqlx::Row;
use stripe_client_core::{RequestBuilder, StripeMethod, StripeRequest};
use stripe_shared::{Subscription, SubscriptionStatus};

use super::catalog::tax_rate;
use super::client::{Intent, StripeClient};
use crate::billing::{profile, Seller};
use crate::Db;

/// Moves the subscription's items to the Tax Rate our rules choose today;
/// answers whether anything changed at Stripe.
pub async fn align(
    db: &Db,
    client: &StripeClient,
    seller: &Seller,
    subscription: &Subscription,
    now: i64,
) -> anyhow::Result<bool> {
    if subscription.status == SubscriptionStatus::Canceled {
        return Ok(false);
    }
    let row = sqlx::query(
        "select s.organization_id, o.billing_country from servers s join orders o on o.id = s.order_id \
         where s.stripe_subscription_id = $1 and s.cancelled_at is null",
    )
    .bind(subscription.id.as_str())
    .fetch_optional(&db.pool)
    .await
    .context("finding the subscription's customer")?;
    let Some(row) = row else {
        return Ok(false);
    };
    let org: OrganizationId = row.try_get("organization_id")?;
    let profile = profile::get(db, &org).await?;
    let country = profile
        .as_ref()
        .map_or(row.try_get::<String, _>("billing_country")?, |p| {
            p.country.clone()
        });
    let standard = crate::orders::pricing::vat_treatment(db, &country, now)
        .await?
        .map_or(0, |t| t.rate_bp());
    let confirmed = profile
        .as_ref()
        .is_some_and(profile::BillingProfile::vat_id_confirmed);
    let rate_bp = domain::vat::treatment(&seller.country, &country, confirmed, standard).rate_bp();
    let wanted: Vec<String> = tax_rate(db, client, &country, rate_bp)
        .await?
        .into_iter()
        .collect();
    let mut form = BTreeMap::new();
    for (i, item) in subscription
        .items
        .data
        .iter()
        .filter(|item| {
            let has: Vec<String> = item
                .tax_rates
                .iter()
                .flatten()
                .map(|r| r.id.to_string())
                .collect();
            has != wanted
        })
        .enumerate()
    {
        form.insert(format!("items[{i}][id]"), item.id.to_string());
        match wanted.first() {
            Some(rate) => form.insert(format!("items[{i}][tax_rates][0]"), rate.clone()),
            // Stripe clears a list sent as an empty value.
            None => form.insert(format!("items[{i}][tax_rates]"), String::new()),
        };
    }
    if form.is_empty() {
        return Ok(false);
    }
    form.insert("proration_behavior".to_owned(), "none".to_owned());
    let change = ItemTaxRates {
        subscription: subscription.id.to_string(),
        form,
    };
    client
        .send(
            &change,
            Some(&Intent::fresh(&format!("tax-{}", subscription.id))),
        )
        .await?;
    tracing::info!(subscription = %subscription.id, rate_bp, "Stripe subscription's VAT aligned");
    Ok(true)
}

/// `POST /v1/subscriptions/{id}` with `items[i][tax_rates]`, which the typed
/// builder cannot clear (an empty list is left out, not sent empty).
struct ItemTaxRates {
    subscription: String,
    form: BTreeMap<String, String>,
}

impl StripeRequest for ItemTaxRates {
    type Output = Subscription;

    fn build(&self) -> RequestBuilder {
        RequestBuilder::new(
            StripeMethod::Post,
            format!("/subscriptions/{}", self.subscription),
        )
        .form(&self.form)
    }
}
