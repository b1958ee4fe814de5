//! Stripe Billing: one subscription per server (add-ons as items), paid
//! through Stripe Checkout; Stripe's Billing Portal for payment methods;
//! webhooks mirror invoices and subscriptions locally ([`events`]).
//!
//! Every call that creates something carries an Idempotency-Key derived
//! from our own ids (the order, the organization, the catalog entry), so a
//! retry, a double submit or a restart mid-checkout never creates a second
//! customer, subscription or charge.

pub mod client;
pub mod events;
mod reconcile;
pub mod signature;

use anyhow::Context;
use async_trait::async_trait;
use domain::Catalog;
use sqlx::Row;

use super::{Billing, Checkout};
use crate::orders;
use crate::{Clock, Db};
pub use client::StripeClient;
pub use reconcile::reconcile;

pub struct StripeBilling {
    pub client: StripeClient,
}

/// Our key for a catalog entry's Stripe Price.
pub fn plan_key(plan: &str) -> String {
    format!("plan:{plan}")
}

pub fn addon_key(addon: &str, plan: &str) -> String {
    format!("addon:{addon}:{plan}")
}

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
            .post(
                "/v1/products",
                &[
                    ("name".into(), name.clone()),
                    ("metadata[lookup_key]".into(), key.clone()),
                ],
                &format!("product-{key}"),
            )
            .await?;
        let product_id = client::text(&product, "id")?;
        let form = vec![
            ("product".to_owned(), product_id.clone()),
            ("currency".to_owned(), "eur".to_owned()),
            ("unit_amount".to_owned(), cents.to_string()),
            ("recurring[interval]".to_owned(), "month".to_owned()),
            ("lookup_key".to_owned(), key.clone()),
            ("transfer_lookup_key".to_owned(), "true".to_owned()),
            ("tax_behavior".to_owned(), "exclusive".to_owned()),
        ];
        let price = client
            .post("/v1/prices", &form, &format!("price-{key}-{cents}"))
            .await?;
        let price_id = client::text(&price, "id")?;
        sqlx::query(
            "insert into stripe_prices (lookup_key, product_id, price_id, amount_cents, synced_at) \
             values ($1, $2, $3, $4, $5) on conflict (lookup_key) do update set \
             product_id = excluded.product_id, price_id = excluded.price_id, \
             amount_cents = excluded.amount_cents, synced_at = excluded.synced_at",
        )
        .bind(&key)
        .bind(&product_id)
        .bind(&price_id)
        .bind(cents)
        .bind(clock.now())
        .execute(&db.pool)
        .await
        .context("recording a synced price")?;
        report.push(format!("{key}: {price_id}"));
    }
    Ok(report)
}

async fn price_id(db: &Db, key: &str) -> anyhow::Result<String> {
    sqlx::query_scalar("select price_id from stripe_prices where lookup_key = $1")
        .bind(key)
        .fetch_optional(&db.pool)
        .await
        .context("reading a price")?
        .with_context(|| format!("no Stripe price for {key}: run `server stripe sync-catalog`"))
}

/// The organization's Stripe customer, created once.
async fn customer(
    db: &Db,
    client: &StripeClient,
    organization_id: &str,
    email: &str,
) -> anyhow::Result<String> {
    let row = sqlx::query("select name, stripe_customer_id from organizations where id = $1")
        .bind(organization_id)
        .fetch_one(&db.pool)
        .await
        .context("reading the organization")?;
    if let Some(id) = row.try_get::<Option<String>, _>("stripe_customer_id")? {
        return Ok(id);
    }
    let profile = super::profile::get(db, organization_id).await?;
    let name = profile
        .as_ref()
        .map_or(row.try_get::<String, _>("name")?, |p| p.legal_name.clone());
    let email = profile
        .as_ref()
        .map_or(email.to_owned(), |p| p.billing_email.clone());
    let created = client
        .post(
            "/v1/customers",
            &[
                ("name".into(), name),
                ("email".into(), email),
                (
                    "metadata[organization_id]".into(),
                    organization_id.to_owned(),
                ),
            ],
            &format!("customer-{organization_id}"),
        )
        .await?;
    let id = client::text(&created, "id")?;
    sqlx::query("update organizations set stripe_customer_id = $1 where id = $2 and stripe_customer_id is null")
        .bind(&id)
        .bind(organization_id)
        .execute(&db.pool)
        .await
        .context("remembering the Stripe customer")?;
    Ok(id)
}

#[async_trait]
impl Billing for StripeBilling {
    fn method(&self) -> &'static str {
        "stripe"
    }

    async fn checkout(
        &self,
        db: &Db,
        _clock: &Clock,
        order_id: &str,
        return_to: &str,
    ) -> anyhow::Result<Checkout> {
        let order = orders::get_any(db, order_id)
            .await?
            .context("no such order")?;
        if order.state != "held" {
            // Paid already (or failed): the order page says which.
            return Ok(Checkout::Confirmed(Box::new(order)));
        }
        let customer = customer(db, &self.client, &order.organization_id, &order.placed_by).await?;
        let mut form = vec![
            ("mode".to_owned(), "subscription".to_owned()),
            ("customer".to_owned(), customer),
            ("client_reference_id".to_owned(), order.id.clone()),
            (
                "subscription_data[metadata][order_id]".to_owned(),
                order.id.clone(),
            ),
            (
                "success_url".to_owned(),
                format!("{return_to}/orders/{}?checkout=done", order.id),
            ),
            (
                "cancel_url".to_owned(),
                format!("{return_to}/orders/{}?checkout=cancelled", order.id),
            ),
            (
                "line_items[0][price]".to_owned(),
                price_id(db, &plan_key(&order.plan_id)).await?,
            ),
            ("line_items[0][quantity]".to_owned(), "1".to_owned()),
        ];
        for (i, addon) in order.addons.iter().enumerate() {
            form.push((
                format!("line_items[{}][price]", i + 1),
                price_id(db, &addon_key(addon, &order.plan_id)).await?,
            ));
            form.push((format!("line_items[{}][quantity]", i + 1), "1".to_owned()));
        }
        let session = self
            .client
            .post(
                "/v1/checkout/sessions",
                &form,
                &format!("checkout-{}", order.id),
            )
            .await?;
        let (id, url) = (
            client::text(&session, "id")?,
            client::text(&session, "url")?,
        );
        sqlx::query("update orders set stripe_session_id = $1 where id = $2")
            .bind(&id)
            .bind(&order.id)
            .execute(&db.pool)
            .await
            .context("remembering the checkout session")?;
        Ok(Checkout::Redirect(url))
    }
}

/// A Billing Portal session where the customer manages payment methods.
pub async fn portal_url(
    db: &Db,
    client: &StripeClient,
    organization_id: &str,
    return_url: &str,
) -> anyhow::Result<Option<String>> {
    let customer: Option<Option<String>> =
        sqlx::query_scalar("select stripe_customer_id from organizations where id = $1")
            .bind(organization_id)
            .fetch_optional(&db.pool)
            .await
            .context("reading the Stripe customer")?;
    let Some(Some(customer)) = customer else {
        return Ok(None);
    };
    let session = client
        .post(
            "/v1/billing_portal/sessions",
            &[
                ("customer".into(), customer),
                ("return_url".into(), return_url.to_owned()),
            ],
            &format!("portal-{}", crate::db::new_id()),
        )
        .await?;
    Ok(Some(client::text(&session, "url")?))
}

/// Tells Stripe a server ends at `at`: at the end of the current period
/// (`cancel_at_period_end`) or at a later term end (`cancel_at`).
pub async fn schedule_cancel(
    client: &StripeClient,
    subscription_id: &str,
    at: i64,
    at_period_end: bool,
) -> anyhow::Result<()> {
    let form: Vec<(String, String)> = if at_period_end {
        vec![("cancel_at_period_end".into(), "true".into())]
    } else {
        vec![("cancel_at".into(), at.to_string())]
    };
    client
        .post(
            &format!("/v1/subscriptions/{subscription_id}"),
            &form,
            &format!("cancel-{subscription_id}-{at}"),
        )
        .await?;
    Ok(())
}

/// Takes a scheduled end back.
pub async fn revoke_cancel(
    client: &StripeClient,
    subscription_id: &str,
    now: i64,
) -> anyhow::Result<()> {
    client
        .post(
            &format!("/v1/subscriptions/{subscription_id}"),
            &[
                ("cancel_at_period_end".into(), "false".into()),
                ("cancel_at".into(), String::new()),
            ],
            &format!("revoke-{subscription_id}-{now}"),
        )
        .await?;
    Ok(())
}
