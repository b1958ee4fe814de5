//! Repairs what missed webhooks would leave wrong: every so often, ask
//! Stripe for the state of checkouts still waiting, of our subscriptions,
//! of each customer's recent invoices, of the payments of paid ones and of
//! those payments' refunds and disputes, and apply it as events would.
//! Subscriptions are also moved to the VAT our rules choose today
//! ([`super::taxes`]). One object's failure (deleted at Stripe, a bad
//! answer) is reported and skipped; the pass goes on.

use anyhow::Context;
use domain::OrganizationId;
use sqlx::Row;
use stripe_billing::invoice::ListInvoice;
use stripe_billing::subscription::RetrieveSubscription;
use stripe_checkout::checkout_session::RetrieveCheckoutSession;
use stripe_core::dispute::ListDispute;
use stripe_core::refund::ListRefund;

use super::client::{StripeClient, StripeFailure};
use super::events::{apply_fetched, Fetched};
use super::taxes;
use crate::billing::{vat_ids, Seller};
use crate::{Clock, Db};

/// What a pass did.
#[derive(Debug, Default)]
pub struct Reconciled {
    pub applied: usize,
    /// Objects Stripe no longer has (`kind id`).
    pub missing: Vec<String>,
    /// Objects that could not be read or applied (`kind id: why`).
    pub skipped: Vec<String>,
}

impl Reconciled {
    fn outcome(&mut self, what: String, result: anyhow::Result<bool>) {
        match result {
            Ok(true) => self.applied += 1,
            Ok(false) => {}
            Err(error) => match error.downcast_ref::<StripeFailure>() {
                Some(StripeFailure::NotFound(_)) => self.missing.push(what),
                _ => self.skipped.push(format!("{what}: {error:#}")),
            },
        }
    }
}

async fn ids(db: &Db, sql: &str, since: i64) -> anyhow::Result<Vec<String>> {
    let rows = sqlx::query(sql)
        .bind(since)
        .fetch_all(&db.pool)
        .await
        .context("listing what to reconcile")?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

pub async fn reconcile(
    db: &Db,
    clock: &Clock,
    client: &StripeClient,
    seller: &Seller,
) -> anyhow::Result<Reconciled> {
    let mut done = Reconciled::default();
    // VAT IDs of Stripe customers are confirmed again once a day, as before
    // an offline invoice; the subscriptions below then carry the VAT that
    // follows.
    let organizations = ids(
        db,
        "select organization_id from billing_profiles where vat_id is not null and organization_id in \
         (select organization_id from servers where stripe_subscription_id is not null and cancelled_at is null) \
         and $1 = $1",
        0,
    )
    .await?;
    for org in organizations.into_iter().map(OrganizationId::from) {
        let result =
            vat_ids::recheck_before_invoice(db, clock.now(), seller.vat_ids.as_ref(), &org).await;
        done.outcome(format!("VAT ID of {org}"), result.map(|()| false));
    }
    let sessions = ids(
        db,
        "select stripe_session_id from orders where state in ('held', 'expired') \
         and stripe_session_id is not null and created_at > $1",
        clock.now() - 2 * 86_400,
    )
    .await?;
    for id in sessions {
        let result: anyhow::Result<bool> = async {
            let session = client
                .send(&RetrieveCheckoutSession::new(id.as_str()), None)
                .await?;
            apply_fetched(db, clock, &Fetched::Session(Box::new(session))).await
        }
        .await;
        done.outcome(format!("checkout session {id}"), result);
    }
    let subscriptions = ids(
        db,
        "select stripe_subscription_id from servers where stripe_subscription_id is not null \
         and (cancelled_at is null or cancelled_at > $1)",
        clock.now() - 40 * 86_400,
    )
    .await?;
    for id in subscriptions {
        let result: anyhow::Result<bool> = async {
            let subscription = client
                .send(&RetrieveSubscription::new(id.as_str()), None)
                .await?;
            taxes::align(db, client, seller, &subscription, clock.now()).await?;
            apply_fetched(db, clock, &Fetched::Subscription(Box::new(subscription))).await
        }
        .await;
        done.outcome(format!("subscription {id}"), result);
    }
    let customers = ids(
        db,
        "select stripe_customer_id from organizations where stripe_customer_id is not null and $1 = $1",
        0,
    )
    .await?;
    for id in customers {
        let list = match client
            .send(&ListInvoice::new().customer(id.as_str()).limit(24), None)
            .await
        {
            Ok(list) => list,
            Err(error) => {
                done.outcome(format!("invoices of {id}"), Err(error.into()));
                continue;
            }
        };
        for invoice in list.data {
            let what = format!(
                "invoice {}",
                invoice.id.as_ref().map_or("?", |i| i.as_str())
            );
            let result = apply_fetched(db, clock, &Fetched::Invoice(Box::new(invoice))).await;
            done.outcome(what, result);
        }
    }
    // Paid invoices whose payment no event told us (Stripe's invoices never
    // carry it): refunds and disputes need it.
    let unknown_payments = ids(
        db,
        "select stripe_invoice_id from invoices where status = 'paid' and stripe_invoice_id is not null \
         and stripe_payment_intent is null and total_cents > credit_cents and updated_at > $1",
        clock.now() - 40 * 86_400,
    )
    .await?;
    for id in unknown_payments {
        let result = super::payments::fill_in_payment(db, clock, client, &id).await;
        done.outcome(format!("payment of invoice {id}"), result);
    }
    // Refunds and disputes whose events were lost, per paid payment: a
    // refund is booked once (by its id) whoever made it; a dispute is
    // applied as Stripe has it now (unchanged, it changes nothing).
    let paid_payments = ids(
        db,
        "select stripe_payment_intent from invoices where status = 'paid' \
         and stripe_payment_intent is not null and updated_at > $1",
        clock.now() - 40 * 86_400,
    )
    .await?;
    for intent in &paid_payments {
        let refunds = client
            .send(
                &ListRefund::new().payment_intent(intent.as_str()).limit(100),
                None,
            )
            .await
            .map(|list| list.data.into_iter().map(|r| Fetched::Refund(Box::new(r))));
        apply_listed(
            db,
            clock,
            &mut done,
            format!("refunds of {intent}"),
            refunds,
        )
        .await;
        let disputes = client
            .send(
                &ListDispute::new()
                    .payment_intent(intent.as_str())
                    .limit(100),
                None,
            )
            .await
            .map(|list| list.data.into_iter().map(|d| Fetched::Dispute(Box::new(d))));
        apply_listed(
            db,
            clock,
            &mut done,
            format!("disputes of {intent}"),
            disputes,
        )
        .await;
    }
    if !done.missing.is_empty() || !done.skipped.is_empty() {
        tracing::warn!(missing = ?done.missing, skipped = ?done.skipped, "Stripe reconciliation skipped objects");
    }
    Ok(done)
}

/// Applies what a list answered, each object on its own; a list that
/// could not be read is reported as `what`.
async fn apply_listed(
    db: &Db,
    clock: &Clock,
    done: &mut Reconciled,
    what: String,
    listed: Result<impl Iterator<Item = Fetched>, StripeFailure>,
) {
    let listed = match listed {
        Ok(listed) => listed,
        Err(error) => return done.outcome(what, Err(error.into())),
    };
    for fetched in listed {
        let what = match &fetched {
            Fetched::Refund(refund) => format!("refund {}", refund.id),
            Fetched::Dispute(dispute) => format!("dispute {}", dispute.id),
            _ => "object".to_owned(),
        };
        let result = apply_fetched(db, clock, &fetched).await;
        done.outcome(what, result);
    }
}
