//! Stripe Billing: one subscription per server (add-ons as items), paid
//! through Stripe Checkout; Stripe's Billing Portal for payment methods;
//! webhooks mirror invoices and subscriptions locally ([`events`]).
//!
//! Calls go through async-stripe ([`client`]) at its API version. Every
//! call that creates or changes something carries the Idempotency-Key of
//! the decision it carries out ([`Intent`]): a retry, a double submit or a
//! restart mid-checkout never creates a second customer, subscription or
//! charge, and a new decision (cancel again after a revoke) is never
//! mistaken for an old one.

pub mod catalog;
pub mod client;
pub mod credits;
pub mod customers;
pub mod events;
mod mirror;
pub mod payments;
mod reconcile;
pub mod subscriptions;
mod taxes;

use anyhow::Context;
use async_trait::async_trait;
use domain::{OrderId, OrganizationId, UserId};
use stripe_billing::billing_portal_session::CreateBillingPortalSession;
use stripe_checkout::checkout_session::{
    CreateCheckoutSession, CreateCheckoutSessionLineItems, CreateCheckoutSessionSubscriptionData,
    RetrieveCheckoutSession,
};
use stripe_shared::{CheckoutSessionLocale, CheckoutSessionMode, CheckoutSessionStatus};

use super::{Billing, Checkout};
use crate::orders;
use crate::{Clock, Db};
pub use catalog::{addon_key, plan_key, sync_catalog, sync_webhook_endpoint};
pub use client::{Intent, StripeClient, StripeFailure};
pub use reconcile::{reconcile, Reconciled};
pub use subscriptions::{revoke_cancel, schedule_cancel};

pub struct StripeBilling {
    pub client: StripeClient,
    /// Where the seller is established: decides reverse charge on the
    /// Stripe customer.
    pub seller_country: String,
}

async fn price_id(db: &Db, key: &str) -> anyhow::Result<String> {
    sqlx::query_scalar("select price_id from stripe_prices where lookup_key = $1")
        .bind(key)
        .fetch_optional(&db.pool)
        .await
        .context("reading a price")?
        .with_context(|| format!("no Stripe price for {key}: run `server stripe sync`"))
}

/// The language Stripe's pages speak to the customer who placed the order:
/// taken from the order, not from the page the payment started on, so
/// paying from the other language's page is the same request.
async fn order_language(db: &Db, user_id: &UserId) -> anyhow::Result<String> {
    let lang: Option<String> = sqlx::query_scalar("select lang from users where id = $1")
        .bind(user_id)
        .fetch_optional(&db.pool)
        .await
        .context("reading the customer's language")?;
    Ok(lang.unwrap_or_else(|| "en".to_owned()))
}

#[async_trait]
impl Billing for StripeBilling {
    fn method(&self) -> &'static str {
        "stripe"
    }

    async fn checkout(
        &self,
        db: &Db,
        clock: &Clock,
        order_id: &OrderId,
        return_to: &str,
    ) -> anyhow::Result<Checkout> {
        let order = orders::get_any(db, order_id)
            .await?
            .context("no such order")?;
        if order.state != crate::orders::OrderState::Held {
            // Paid already (or failed): the order page says which.
            return Ok(Checkout::Confirmed(Box::new(order)));
        }
        let known: Option<Option<String>> =
            sqlx::query_scalar("select stripe_session_id from orders where id = $1")
                .bind(&order.id)
                .fetch_optional(&db.pool)
                .await
                .context("reading the checkout session")?;
        if let Some(Some(session)) = known {
            // Paying again (another tab, the other language): the session
            // already open, never a second one that could be paid too.
            let open = self
                .client
                .send(&RetrieveCheckoutSession::new(session.as_str()), None)
                .await?;
            if open.status == Some(CheckoutSessionStatus::Open) {
                if let Some(url) = open.url {
                    return Ok(Checkout::Redirect(url));
                }
            }
            return Ok(Checkout::Confirmed(Box::new(order)));
        }
        let now = clock.now();
        let Some(hold_until) = orders::holds::hold_at_least(
            db,
            &order.id,
            now + orders::holds::SHORTEST_CHECKOUT_SECS,
            now,
        )
        .await?
        else {
            // The hold ran out: the order page says so.
            return Ok(Checkout::Confirmed(Box::new(order)));
        };
        let customer = customers::customer_of(
            db,
            &self.client,
            &order.organization_id,
            &self.seller_country,
            now,
        )
        .await?;
        let lang = order_language(db, &order.user_id).await?;
        let mut items = vec![line(price_id(db, &plan_key(order.plan_id.as_str())).await?)];
        for addon in &order.addons {
            items.push(line(
                price_id(db, &addon_key(addon, order.plan_id.as_str())).await?,
            ));
        }
        if let Some(rate) = catalog::tax_rate_for(db, &self.client, &order).await? {
            for item in &mut items {
                item.tax_rates = Some(vec![rate.clone()]);
            }
        }
        let mut subscription = CreateCheckoutSessionSubscriptionData::new();
        subscription.metadata = Some([("order_id".to_owned(), order.id.to_string())].into());
        let back = format!("{return_to}/{lang}/orders/{}", order.id);
        let create = CreateCheckoutSession::new()
            .mode(CheckoutSessionMode::Subscription)
            .customer(customer)
            .client_reference_id(order.id.as_str())
            .subscription_data(subscription)
            .line_items(items)
            .locale(if lang == "zh" {
                CheckoutSessionLocale::Zh
            } else {
                CheckoutSessionLocale::En
            })
            // The session ends with our hold: nobody pays for a host that
            // went back to stock.
            .expires_at(hold_until)
            .success_url(format!("{back}?checkout=done"))
            .cancel_url(format!("{back}?checkout=cancelled"));
        let session = self
            .client
            .send(
                &create,
                // The session's parameters follow from the order and the
                // hold's end; a hold extended since a lost answer is
                // another request, so another key.
                Some(&Intent::new(format!("checkout-{}-{hold_until}", order.id))),
            )
            .await?;
        let url = session.url.context("a Checkout Session without a URL")?;
        sqlx::query("update orders set stripe_session_id = $1 where id = $2")
            .bind(session.id.as_str())
            .bind(&order.id)
            .execute(&db.pool)
            .await
            .context("remembering the checkout session")?;
        Ok(Checkout::Redirect(url))
    }
}

fn line(price: String) -> CreateCheckoutSessionLineItems {
    let mut item = CreateCheckoutSessionLineItems::new();
    item.price = Some(price);
    item.quantity = Some(1);
    item
}

/// A Billing Portal session where the customer manages payment methods.
pub async fn portal_url(
    db: &Db,
    client: &StripeClient,
    organization_id: &OrganizationId,
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
        .send(
            &CreateBillingPortalSession::new()
                .customer(customer)
                .return_url(return_url),
            Some(&Intent::fresh("portal")),
        )
        .await?;
    Ok(Some(session.url))
}
