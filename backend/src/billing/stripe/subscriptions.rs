//! Changing a server's subscription at Stripe: ending it at a term end,
//! taking that back, ending it now and giving the money back (a payment we
//! cannot deliver for).

use stripe_billing::subscription::{
    CancelSubscription, UpdateSubscription, UpdateSubscriptionCancelAt,
    UpdateSubscriptionProrationBehavior,
};
use stripe_client_core::{RequestBuilder, StripeMethod, StripeRequest};
use stripe_core::refund::{CreateRefund, CreateRefundReason};

use super::client::{Intent, StripeClient, StripeFailure};

/// Tells Stripe a server ends at `at`: at the end of the current period
/// (`cancel_at_period_end`) or at a later term end (`cancel_at`). Each
/// decision is a new intent: cancel, revoke, cancel the same date again
/// reaches Stripe three times.
pub async fn schedule_cancel(
    client: &StripeClient,
    subscription_id: &str,
    at: i64,
    at_period_end: bool,
) -> Result<(), StripeFailure> {
    let update = UpdateSubscription::new(subscription_id);
    let update = if at_period_end {
        update.cancel_at_period_end(true)
    } else {
        // `at` is one of Stripe's period ends (`Server::term_anchor`); no
        // proration, so even a date off by a second bills no stub.
        update
            .cancel_at(UpdateSubscriptionCancelAt::Timestamp(at))
            .proration_behavior(UpdateSubscriptionProrationBehavior::None)
    };
    client
        .send(
            &update,
            Some(&Intent::fresh(&format!("cancel-{subscription_id}-{at}"))),
        )
        .await?;
    Ok(())
}

/// Takes a scheduled end back: both ways of scheduling it are cleared
/// (`cancel_at` is cleared by sending it empty, which async-stripe's typed
/// parameter cannot express, hence [`ClearCancellation`]).
pub async fn revoke_cancel(
    client: &StripeClient,
    subscription_id: &str,
) -> Result<(), StripeFailure> {
    client
        .send(
            &ClearCancellation {
                subscription: subscription_id.to_owned(),
            },
            Some(&Intent::fresh(&format!("revoke-{subscription_id}"))),
        )
        .await?;
    Ok(())
}

/// `POST /v1/subscriptions/{id}` with `cancel_at=` and
/// `cancel_at_period_end=false`.
struct ClearCancellation {
    subscription: String,
}

impl StripeRequest for ClearCancellation {
    type Output = stripe_shared::Subscription;

    fn build(&self) -> RequestBuilder {
        RequestBuilder::new(
            StripeMethod::Post,
            format!("/subscriptions/{}", self.subscription),
        )
        .form(&ClearForm {
            cancel_at: "",
            cancel_at_period_end: false,
        })
    }
}

#[derive(serde::Serialize)]
struct ClearForm {
    cancel_at: &'static str,
    cancel_at_period_end: bool,
}

/// Ends a subscription now, without a final invoice or proration (used
/// when nothing was delivered). Already ended counts as done.
pub async fn cancel_now(
    client: &StripeClient,
    subscription_id: &str,
    why: &str,
) -> Result<(), StripeFailure> {
    let cancel = CancelSubscription::new(subscription_id)
        .invoice_now(false)
        .prorate(false);
    match client
        .send(
            &cancel,
            Some(&Intent::new(format!("end-{subscription_id}-{why}"))),
        )
        .await
    {
        Ok(_) | Err(StripeFailure::NotFound(_)) => Ok(()),
        Err(StripeFailure::Refused { message, .. }) if message.contains("canceled") => Ok(()),
        Err(other) => Err(other),
    }
}

/// Refunds a payment in full, once per `why`. Answers the refund's id.
pub async fn refund_in_full(
    client: &StripeClient,
    payment_intent: &str,
    why: &str,
) -> Result<String, StripeFailure> {
    let refund = client
        .send(
            &CreateRefund::new()
                .payment_intent(payment_intent)
                .reason(CreateRefundReason::RequestedByCustomer)
                .metadata([("why".to_owned(), why.to_owned())]),
            Some(&Intent::new(format!("refund-{payment_intent}-{why}"))),
        )
        .await?;
    Ok(refund.id.to_string())
}
