//! A test double of Stripe's API at version `2026-09-30.endive`, the one
//! our async-stripe client speaks. Every object it answers or puts in an
//! event parses with async-stripe's own types. Like Stripe it takes
//! form-encoded parameters, honours idempotency keys (same key and
//! parameters: the first answer again; other parameters: 400), answers
//! `resource_missing` for unknown ids and can be told to fail the next
//! requests. What happens on Stripe's side without a request of ours
//! (payments, renewals, Dashboard cancellations, refunds, disputes) is
//! played by the methods below, which answer the events Stripe sends.
//!
//! It computes no tax of its own: a line is taxed only by the tax rates
//! given for it at Checkout.

mod billing;
mod billing_api;
pub mod calendar;
mod catalog_api;
mod checkout_api;
pub mod fixture;
mod http;
mod ledger;
mod stripe_side;

pub use ledger::Ledger;

/// The API version the double renders objects and events in: the one
/// async-stripe 1.0.0-rc.10 is generated from.
pub const API_VERSION: &str = "2026-09-30.endive";

use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use stripe_side::Payment;

/// Events as Stripe delivers them: (event id, JSON body).
pub type Events = Vec<(String, String)>;

#[derive(Clone)]
pub struct StripeDouble {
    pub url: String,
    pub ledger: Arc<Mutex<Ledger>>,
}

impl StripeDouble {
    /// Serves the double on a free local port; `url` is the API base.
    pub async fn start() -> StripeDouble {
        let ledger: Arc<Mutex<Ledger>> = Arc::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the Stripe double");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let app = http::router(ledger.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        StripeDouble { url, ledger }
    }

    fn lock(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().expect("the Stripe double's ledger")
    }

    /// The ledger for one Stripe-side happening: its events are stamped a
    /// second apart from `at` on (see `StripeSide::emit`).
    fn happen(&self) -> MutexGuard<'_, Ledger> {
        let mut ledger = self.lock();
        ledger.happening = None;
        ledger
    }

    /// Stripe's clock follows the test's manual clock from now on.
    pub fn set_now(&self, at: i64) {
        self.lock().now = Some(at);
    }

    pub fn now(&self) -> i64 {
        self.lock().now()
    }

    /// How many objects of a kind the API created: "customer", "product",
    /// "price", "tax_rate", "checkout.session", "billing_portal.session",
    /// "refund", "customer_balance_transaction", "webhook_endpoint",
    /// "subscription.update", "subscription.cancel".
    pub fn created(&self, kind: &str) -> usize {
        self.lock().created.get(kind).copied().unwrap_or(0)
    }

    /// The parameters of every accepted, non-replayed POST/DELETE whose
    /// path starts with `path_prefix`, in order.
    pub fn calls(&self, path_prefix: &str) -> Vec<HashMap<String, String>> {
        self.lock()
            .calls
            .iter()
            .filter(|(path, _)| path.starts_with(path_prefix))
            .map(|(_, form)| form.clone())
            .collect()
    }

    /// The next `times` requests, whatever their path, fail with `status`
    /// (429: rate limited; 5xx: API error) and `Stripe-Should-Retry: true`,
    /// doing nothing.
    pub fn fail_next(&self, status: u16, times: usize) {
        self.lock().failing = (times > 0).then_some((status, times));
    }

    /// The next `times` answers to requests under `path_prefix` are lost
    /// on their way back (a 502 from a proxy), though Stripe carried the
    /// requests out and keeps their answers under their Idempotency-Keys.
    pub fn lose_answers(&self, path_prefix: &str, times: usize) {
        self.lock().losing = Some((path_prefix.to_owned(), times));
    }

    /// A customer's tax ids, newest first.
    pub fn tax_ids_of(&self, customer_id: &str) -> Vec<Value> {
        billing::tax_ids_of(&self.lock(), customer_id)
    }

    /// How many requests got an injected failure.
    pub fn failed_requests(&self) -> usize {
        self.lock().failed
    }

    /// How many requests arrived for paths starting with `path_prefix`,
    /// failed ones included.
    pub fn requests(&self, path_prefix: &str) -> usize {
        self.lock()
            .requests
            .iter()
            .filter(|path| path.starts_with(path_prefix))
            .count()
    }

    /// Where the double's answers and events so far differed from Stripe's
    /// published object shapes (empty: none did).
    pub fn out_of_shape(&self) -> Vec<String> {
        self.lock().out_of_shape.clone()
    }

    /// Any object's current state, by id.
    pub fn object(&self, id: &str) -> Option<Value> {
        self.lock().get(id).cloned()
    }

    /// Stripe no longer knows the object (deleted, or from another
    /// account): requests for it answer `resource_missing`.
    pub fn forget(&self, id: &str) {
        self.lock().forget(id);
    }

    /// The events Stripe sends because of our own API requests
    /// (subscription updated or deleted, session expired, charge
    /// refunded), not taken yet; taking them empties the queue.
    pub fn take_events(&self) -> Events {
        std::mem::take(&mut self.lock().outbox)
    }

    /// The customer pays a Checkout Session by card: the session
    /// completes, a subscription starts with a calendar-month period from
    /// `at`, its first invoice is finalized and paid.
    pub fn pay(&self, session_id: &str, at: i64) -> Events {
        self.happen()
            .complete_checkout(session_id, at, Payment::Immediate)
    }

    /// Like `pay`, but every webhook is lost.
    pub fn pay_silently(&self, session_id: &str, at: i64) {
        self.pay(session_id, at);
    }

    /// The customer pays by bank debit: the session completes unpaid,
    /// then the payment succeeds (async_payment_succeeded, invoice.paid) or
    /// fails (async_payment_failed, invoice.payment_failed, the
    /// subscription past due).
    pub fn pay_async(&self, session_id: &str, at: i64, succeeds: bool) -> Events {
        self.happen()
            .complete_checkout(session_id, at, Payment::Delayed { succeeds })
    }

    /// The session's 24 hours (or its `expires_at`) are over.
    pub fn expire(&self, session_id: &str, at: i64) -> Events {
        self.happen().expire_checkout(session_id, at)
    }

    /// The next period, its draft finalized at once:
    /// customer.subscription.updated, invoice.finalized, then invoice.paid, or invoice.payment_failed and the subscription
    /// past due. A customer credit is applied first. A subscription set
    /// to cancel by the period's end ends instead (…deleted).
    pub fn renew(&self, subscription_id: &str, at: i64, paid: bool) -> Events {
        let mut events = self.draft_renewal(subscription_id, at);
        let latest = self.object(subscription_id).expect("the subscription")["latest_invoice"]
            .as_str()
            .map(str::to_owned);
        if let Some(draft) =
            latest.filter(|id| self.object(id).is_some_and(|i| i["status"] == "draft"))
        {
            events.extend(self.finalize(&draft, at, paid));
        }
        events
    }

    /// The next period begins: customer.subscription.updated, and the
    /// period's invoice as a draft (no number, no PDF), which Stripe
    /// sends no event for that our endpoint asked for.
    pub fn draft_renewal(&self, subscription_id: &str, at: i64) -> Events {
        self.happen().draft_renewal(subscription_id, at)
    }

    /// Stripe finalizes a draft: invoice.finalized, then it collects as
    /// `renew` does.
    pub fn finalize(&self, invoice_id: &str, at: i64, paid: bool) -> Events {
        self.happen().finalize(invoice_id, at, paid)
    }

    /// Dunning gave up on an open invoice.
    pub fn mark_uncollectible(&self, invoice_id: &str, at: i64) -> Events {
        self.happen().mark_uncollectible(invoice_id, at)
    }

    /// An open or uncollectible invoice gets paid (a retry, a new card);
    /// a past-due subscription with nothing else open becomes active.
    pub fn pay_invoice(&self, invoice_id: &str, at: i64) -> Events {
        self.happen().pay_invoice(invoice_id, at)
    }

    /// Canceled now on Stripe's side (Dashboard, Billing Portal, dunning).
    pub fn cancel_at_stripe(&self, subscription_id: &str, at: i64) -> Events {
        self.happen().cancel_at_stripe(subscription_id, at)
    }

    /// Stripe gives up after failed retries and cancels (reason
    /// `payment_failed`).
    pub fn give_up_at_stripe(&self, subscription_id: &str, at: i64) -> Events {
        self.happen().give_up_at_stripe(subscription_id, at)
    }

    /// Set to cancel at the period's end on Stripe's side.
    pub fn cancel_at_period_end_at_stripe(&self, subscription_id: &str, at: i64) -> Events {
        self.happen()
            .cancel_at_period_end_at_stripe(subscription_id, at)
    }

    /// A refund made in the Dashboard on an invoice's charge.
    pub fn refund_at_stripe(&self, invoice_id: &str, amount: i64, at: i64) -> Events {
        self.happen().refund_at_stripe(invoice_id, amount, at)
    }

    /// Stripe closes the dispute of an invoice's charge, won or lost.
    pub fn close_dispute(&self, invoice_id: &str, won: bool, at: i64) -> Events {
        self.happen().close_dispute(invoice_id, won, at)
    }

    /// The cardholder disputes an invoice's charge.
    pub fn dispute(&self, invoice_id: &str, at: i64) -> Events {
        self.happen().dispute(invoice_id, at)
    }

    /// An event with any object and API version, e.g. one rendered for an
    /// endpoint pinned to an older version.
    pub fn event_in_version(
        &self,
        kind: &str,
        object: Value,
        api_version: &str,
        at: i64,
    ) -> (String, String) {
        self.lock().event(kind, &object, None, api_version, at)
    }

    /// A subscription's invoices, newest first.
    pub fn invoice_for_subscription(&self, subscription_id: &str) -> Vec<Value> {
        self.lock().invoice_for_subscription(subscription_id)
    }
}
