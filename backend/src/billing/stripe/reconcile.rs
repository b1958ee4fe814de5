//! Repairs what missed webhooks would leave wrong: every so often, ask
//! Stripe for the state of checkouts still waiting, of our subscriptions
//! and of each customer's recent invoices, and apply it as events would.

use anyhow::Context;
use sqlx::Row;

use super::client::StripeClient;
use super::events::apply_object;
use crate::{Clock, Db};

/// Answers how many objects were applied.
pub async fn reconcile(db: &Db, clock: &Clock, client: &StripeClient) -> anyhow::Result<usize> {
    let mut applied = 0;
    let waiting = sqlx::query(
        "select stripe_session_id from orders where state in ('held', 'expired') \
         and stripe_session_id is not null and created_at > $1",
    )
    .bind(clock.now() - 2 * 86_400)
    .fetch_all(&db.pool)
    .await
    .context("finding checkouts waiting for payment")?;
    for row in &waiting {
        let id: String = row.try_get("stripe_session_id")?;
        let session = client
            .get(&format!("/v1/checkout/sessions/{id}"), &[])
            .await?;
        if session["status"].as_str() == Some("complete")
            && apply_object(db, clock, "checkout.session.completed", &session).await?
        {
            applied += 1;
        }
    }
    let subscriptions = sqlx::query(
        "select stripe_subscription_id from servers where stripe_subscription_id is not null",
    )
    .fetch_all(&db.pool)
    .await
    .context("listing subscriptions")?;
    for row in &subscriptions {
        let id: String = row.try_get("stripe_subscription_id")?;
        let subscription = client.get(&format!("/v1/subscriptions/{id}"), &[]).await?;
        let kind = if subscription["status"].as_str() == Some("canceled") {
            "customer.subscription.deleted"
        } else {
            "customer.subscription.updated"
        };
        if apply_object(db, clock, kind, &subscription).await? {
            applied += 1;
        }
    }
    let customers = sqlx::query(
        "select stripe_customer_id from organizations where stripe_customer_id is not null",
    )
    .fetch_all(&db.pool)
    .await
    .context("listing Stripe customers")?;
    for row in &customers {
        let id: String = row.try_get("stripe_customer_id")?;
        let list = client
            .get(
                "/v1/invoices",
                &[("customer", id.as_str()), ("limit", "24")],
            )
            .await?;
        for invoice in list["data"].as_array().cloned().unwrap_or_default() {
            if apply_object(db, clock, "invoice.updated", &invoice).await? {
                applied += 1;
            }
        }
    }
    Ok(applied)
}
