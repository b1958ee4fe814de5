//! What happens at Stripe without a request of ours: customers pay or
//! don't, periods renew, invoices are given up on or paid late, the
//! Dashboard cancels, refunds and disputes arrive. Each happening updates
//! the stored objects, so GETs and lists agree, and answers the events
//! Stripe sends for it, in Stripe's order, as (event id, body).

use super::billing::{self, collect, open_invoice};
use super::billing_api::period_end;
use super::calendar;
use super::catalog_api::new_customer;
use super::http::Form;
use super::ledger::{changes, Ledger};
use super::API_VERSION;
use serde_json::{json, Value};

pub(super) type Events = Vec<(String, String)>;

/// How a Checkout's payment goes: card-like at once, or a bank debit
/// that succeeds or fails later.
#[derive(Clone, Copy)]
pub(super) enum Payment {
    Immediate,
    Delayed { succeeds: bool },
}

impl Ledger {
    fn emit(
        &mut self,
        kind: &str,
        object: &Value,
        previous: Option<Value>,
        at: i64,
    ) -> (String, String) {
        // Stripe writes each event of one happening as it happens (a paid
        // Checkout: the session, the subscription, the invoice, its
        // payment): here a second apart, so code that takes one event's
        // time for another's is caught.
        let created = match self.happening {
            Some((start, n)) if start == at => {
                self.happening = Some((at, n + 1));
                at + n + 1
            }
            _ => {
                self.happening = Some((at, 0));
                at
            }
        };
        self.event(kind, object, previous, API_VERSION, created)
    }

    /// Moves a subscription to a status; answers its `updated` event if
    /// the status changed.
    fn set_status(
        &mut self,
        subscription_id: &str,
        status: &str,
        at: i64,
    ) -> Option<(String, String)> {
        let before = self.expect("subscription", subscription_id);
        if before["status"] == status {
            return None;
        }
        let mut after = before.clone();
        after["status"] = json!(status);
        self.put(after.clone());
        Some(self.emit(
            "customer.subscription.updated",
            &after,
            changes(&before, &after),
            at,
        ))
    }

    fn subscription_of(invoice: &Value) -> Option<String> {
        invoice["parent"]["subscription_details"]["subscription"]
            .as_str()
            .map(str::to_owned)
    }

    pub(super) fn complete_checkout(
        &mut self,
        session_id: &str,
        at: i64,
        payment: Payment,
    ) -> Events {
        let mut session = self.expect("checkout.session", session_id);
        assert_eq!(
            session["status"], "open",
            "only an open Checkout Session can be paid"
        );
        let plan = self
            .plans
            .get(session_id)
            .cloned()
            .expect("a session the double created");
        let customer_id = match session["customer"].as_str() {
            Some(id) => id.to_owned(),
            None => {
                let email = session["customer_email"]
                    .as_str()
                    .unwrap_or("checkout@example.test")
                    .to_owned();
                let created =
                    new_customer(self, &Form::of(&[("email", &email)])).expect("a customer");
                created["id"].as_str().unwrap_or_default().to_owned()
            }
        };
        let customer = self.expect("customer", &customer_id);
        let mut subscription = billing::start_subscription(self, &customer_id, &plan, at);
        let sub_id = subscription["id"].as_str().unwrap_or_default().to_owned();
        let invoice = open_invoice(self, &subscription, "subscription_create", (at, at), at);
        let invoice_id = invoice["id"].as_str().unwrap_or_default().to_owned();
        subscription["latest_invoice"] = json!(invoice_id);
        self.put(subscription.clone());
        session["status"] = json!("complete");
        session["url"] = Value::Null;
        session["customer"] = json!(customer_id);
        session["subscription"] = json!(sub_id);
        session["invoice"] = json!(invoice_id);
        session["customer_details"] = json!({
            "address": customer["address"], "business_name": null, "email": customer["email"],
            "individual_name": null, "name": customer["name"], "phone": null,
            "tax_exempt": customer["tax_exempt"], "tax_ids": [],
        });
        let succeeds = match payment {
            Payment::Immediate => {
                let paid = collect(self, &invoice_id, at, true);
                session["payment_status"] = json!("paid");
                self.put(session.clone());
                let mut events = vec![
                    self.emit("checkout.session.completed", &session, None, at),
                    self.emit("customer.subscription.created", &subscription, None, at),
                    self.emit("invoice.finalized", &invoice, None, at),
                ];
                events.extend(self.paid(&paid, at));
                return events;
            }
            Payment::Delayed { succeeds } => succeeds,
        };
        self.put(session.clone());
        let mut events = vec![
            self.emit("checkout.session.completed", &session, None, at),
            self.emit("customer.subscription.created", &subscription, None, at),
            self.emit("invoice.finalized", &invoice, None, at),
        ];
        let after = collect(self, &invoice_id, at, succeeds);
        if succeeds {
            session["payment_status"] = json!("paid");
            self.put(session.clone());
            events.push(self.emit(
                "checkout.session.async_payment_succeeded",
                &session,
                None,
                at,
            ));
            events.extend(self.paid(&after, at));
        } else {
            events.push(self.emit("checkout.session.async_payment_failed", &session, None, at));
            events.push(self.emit("invoice.payment_failed", &after, None, at));
            events.extend(self.set_status(&sub_id, "past_due", at));
        }
        events
    }

    /// What Stripe sends when an invoice is paid: `invoice.paid` (without
    /// its payments) and, when a payment intent paid it,
    /// `invoice_payment.paid`, which alone names the payment.
    fn paid(&mut self, invoice: &Value, at: i64) -> Events {
        let id = invoice["id"].as_str().unwrap_or_default().to_owned();
        let mut events = vec![self.emit("invoice.paid", invoice, None, at)];
        if let Some(payment) = billing::paid_payment(self, &id) {
            events.push(self.emit("invoice_payment.paid", &payment, None, at));
        }
        events
    }

    pub(super) fn expire_checkout(&mut self, session_id: &str, at: i64) -> Events {
        let mut session = self.expect("checkout.session", session_id);
        assert_eq!(
            session["status"], "open",
            "only an open Checkout Session expires"
        );
        session["status"] = json!("expired");
        session["url"] = Value::Null;
        self.put(session.clone());
        vec![self.emit("checkout.session.expired", &session, None, at)]
    }

    /// The next calendar-month period: the items move on and the period
    /// is invoiced as a draft, which Stripe finalizes later. A
    /// subscription set to cancel by then ends instead.
    pub(super) fn draft_renewal(&mut self, subscription_id: &str, at: i64) -> Events {
        let before = self.expect("subscription", subscription_id);
        assert_ne!(
            before["status"], "canceled",
            "a canceled subscription does not renew"
        );
        let end = period_end(&before);
        if before["cancel_at"]
            .as_i64()
            .is_some_and(|cancel_at| cancel_at <= end)
        {
            let mut ended = before.clone();
            ended["status"] = json!("canceled");
            ended["ended_at"] = before["cancel_at"].clone();
            self.put(ended.clone());
            return vec![self.emit("customer.subscription.deleted", &ended, None, at)];
        }
        let anchor = before["billing_cycle_anchor"].as_i64().unwrap_or(end);
        let mut subscription = before.clone();
        let mut ended_period = (end, end);
        if let Some(items) = subscription["items"]["data"].as_array_mut() {
            for item in items {
                let start = item["current_period_end"].as_i64().unwrap_or(end);
                let old_start = item["current_period_start"].as_i64().unwrap_or(start);
                ended_period.0 = ended_period.0.min(old_start);
                item["current_period_start"] = json!(start);
                // A `cancel_at` inside the coming period cuts it short:
                // Stripe bills a prorated stub up to it.
                let full_end = calendar::period_end(anchor, start);
                let stub_end = before["cancel_at"]
                    .as_i64()
                    .filter(|cancel_at| *cancel_at > start && *cancel_at < full_end);
                item["current_period_end"] = json!(stub_end.unwrap_or(full_end));
            }
        }
        let invoice = open_invoice(self, &subscription, "subscription_cycle", ended_period, at);
        let invoice_id = invoice["id"].as_str().unwrap_or_default().to_owned();
        self.put(billing::as_draft(invoice));
        subscription["latest_invoice"] = json!(invoice_id);
        self.put(subscription.clone());
        vec![self.emit(
            "customer.subscription.updated",
            &subscription,
            changes(&before, &subscription),
            at,
        )]
    }

    /// Stripe finalizes a renewal's draft (about an hour after it was
    /// made): it gets its number and PDF, and Stripe tries to collect.
    pub(super) fn finalize(&mut self, invoice_id: &str, at: i64, paid: bool) -> Events {
        let draft = self.expect("invoice", invoice_id);
        assert_eq!(draft["status"], "draft", "only a draft is finalized");
        let invoice = billing::finalized(draft, at);
        self.put(invoice.clone());
        let mut events = vec![self.emit("invoice.finalized", &invoice, None, at)];
        events.extend(self.settle(invoice_id, at, paid));
        events
    }

    /// Stripe collects an invoice; answers invoice.paid or
    /// invoice.payment_failed and the subscription's status change.
    fn settle(&mut self, invoice_id: &str, at: i64, succeeds: bool) -> Events {
        let after = collect(self, invoice_id, at, succeeds);
        let subscription = Self::subscription_of(&after);
        let mut events = Vec::new();
        if after["status"] == "paid" {
            events.extend(self.paid(&after, at));
            if let Some(id) = subscription {
                let unpaid = self
                    .invoice_for_subscription(&id)
                    .iter()
                    .any(|i| i["status"] == "open");
                let status = self.expect("subscription", &id)["status"].clone();
                if !unpaid && (status == "past_due" || status == "unpaid") {
                    events.extend(self.set_status(&id, "active", at));
                }
            }
        } else {
            events.push(self.emit("invoice.payment_failed", &after, None, at));
            if let Some(id) = subscription {
                if self.expect("subscription", &id)["status"] == "active" {
                    events.extend(self.set_status(&id, "past_due", at));
                }
            }
        }
        events
    }

    pub(super) fn mark_uncollectible(&mut self, invoice_id: &str, at: i64) -> Events {
        let mut invoice = self.expect("invoice", invoice_id);
        assert_eq!(
            invoice["status"], "open",
            "only an open invoice can be marked uncollectible"
        );
        invoice["status"] = json!("uncollectible");
        invoice["status_transitions"]["marked_uncollectible_at"] = json!(at);
        invoice["next_payment_attempt"] = Value::Null;
        self.put(invoice.clone());
        vec![self.emit("invoice.marked_uncollectible", &invoice, None, at)]
    }

    pub(super) fn pay_invoice(&mut self, invoice_id: &str, at: i64) -> Events {
        let invoice = self.expect("invoice", invoice_id);
        let status = invoice["status"].as_str().unwrap_or_default();
        assert!(
            status == "open" || status == "uncollectible",
            "a {status} invoice cannot be paid"
        );
        self.settle(invoice_id, at, true)
    }

    pub(super) fn cancel_at_stripe(&mut self, subscription_id: &str, at: i64) -> Events {
        let mut subscription = self.expect("subscription", subscription_id);
        assert_ne!(subscription["status"], "canceled", "already canceled");
        subscription["status"] = json!("canceled");
        subscription["canceled_at"] = json!(at);
        subscription["ended_at"] = json!(at);
        subscription["cancellation_details"]["reason"] = json!("cancellation_requested");
        self.put(subscription.clone());
        vec![self.emit("customer.subscription.deleted", &subscription, None, at)]
    }

    /// Stripe's dunning ran out of retries and its settings say to cancel
    /// the subscription: it ends now, with `payment_failed` as the reason;
    /// its last invoice stays as it is (open, or uncollectible).
    pub(super) fn give_up_at_stripe(&mut self, subscription_id: &str, at: i64) -> Events {
        let mut subscription = self.expect("subscription", subscription_id);
        assert_ne!(subscription["status"], "canceled", "already canceled");
        subscription["status"] = json!("canceled");
        subscription["canceled_at"] = json!(at);
        subscription["ended_at"] = json!(at);
        subscription["cancellation_details"]["reason"] = json!("payment_failed");
        self.put(subscription.clone());
        vec![self.emit("customer.subscription.deleted", &subscription, None, at)]
    }

    pub(super) fn cancel_at_period_end_at_stripe(
        &mut self,
        subscription_id: &str,
        at: i64,
    ) -> Events {
        let before = self.expect("subscription", subscription_id);
        assert_ne!(before["status"], "canceled", "already canceled");
        let mut after = before.clone();
        after["cancel_at_period_end"] = json!(true);
        after["cancel_at"] = json!(period_end(&before));
        after["canceled_at"] = json!(at);
        after["cancellation_details"]["reason"] = json!("cancellation_requested");
        self.put(after.clone());
        vec![self.emit(
            "customer.subscription.updated",
            &after,
            changes(&before, &after),
            at,
        )]
    }

    pub(super) fn refund_at_stripe(&mut self, invoice_id: &str, amount: i64, at: i64) -> Events {
        let charge = billing::charge_of_invoice(self, invoice_id);
        let charge_id = charge["id"].as_str().unwrap_or_default().to_owned();
        let (refund, charge) = billing::refund(self, &charge_id, Some(amount), None, json!({}), at)
            .unwrap_or_else(|f| panic!("Stripe refuses the refund: {}", f.body));
        vec![
            self.emit("charge.refunded", &charge, None, at),
            self.emit("refund.created", &refund, None, at),
        ]
    }

    pub(super) fn dispute(&mut self, invoice_id: &str, at: i64) -> Events {
        let mut charge = billing::charge_of_invoice(self, invoice_id);
        let dispute = json!({
            "id": self.next_id("dp"), "object": "dispute", "amount": charge["amount"],
            "balance_transactions": [], "charge": charge["id"], "created": at,
            "currency": charge["currency"], "enhanced_eligibility_types": [],
            "evidence": {"enhanced_evidence": {}},
            "evidence_details": {"due_by": at + 7 * 86_400, "enhanced_eligibility": {}, "has_evidence": false, "past_due": false, "submission_count": 0},
            "is_charge_refundable": false, "livemode": false, "metadata": {},
            "payment_intent": charge["payment_intent"],
            "reason": "fraudulent", "status": "needs_response",
        });
        charge["disputed"] = json!(true);
        self.put(charge);
        self.put(dispute.clone());
        vec![self.emit("charge.dispute.created", &dispute, None, at)]
    }

    /// Stripe closes an invoice's dispute: `won` (the money stays with
    /// us) or `lost` (the bank took it back).
    pub(super) fn close_dispute(&mut self, invoice_id: &str, won: bool, at: i64) -> Events {
        let charge = billing::charge_of_invoice(self, invoice_id);
        let mut dispute = self
            .all("dispute")
            .into_iter()
            .find(|d| d["charge"] == charge["id"])
            .expect("a dispute on the invoice's charge");
        dispute["status"] = json!(if won { "won" } else { "lost" });
        self.put(dispute.clone());
        vec![self.emit("charge.dispute.closed", &dispute, None, at)]
    }

    /// A subscription's invoices, newest first.
    pub(super) fn invoice_for_subscription(&self, subscription_id: &str) -> Vec<Value> {
        self.all("invoice")
            .into_iter()
            .filter(|i| Self::subscription_of(i).as_deref() == Some(subscription_id))
            .collect()
    }
}
