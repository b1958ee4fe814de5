//! The Stripe double against async-stripe's own types: driven over HTTP
//! with form posts as a Stripe client sends them, every object it answers
//! and every event it writes must parse with the client's types (events
//! through `stripe_webhook`'s signature check), and it must behave like
//! Stripe on idempotency, unknown ids, rate limits, calendar-month
//! periods and taxes.

use crate::common::stripe_double::{calendar, StripeDouble, API_VERSION};
use serde_json::{json, Value};
use stripe_webhook::{EventObject, Webhook};

const SECRET: &str = "whsec_x";

/// 2027-01-31 10:00 UTC: a month end, so periods show their clamping.
fn january_31() -> i64 {
    calendar::timestamp(2027, 1, 31, 10, 0, 0)
}

struct Reply {
    status: u16,
    should_retry: bool,
    replayed: bool,
    text: String,
    json: Value,
}

impl Reply {
    /// The body as the client's type `T`, after a 200.
    fn ok<T: miniserde::Deserialize>(&self) -> T {
        assert_eq!(self.status, 200, "{}", self.text);
        parse(&self.text)
    }

    /// The error as the client reads it, after `status`.
    fn error(&self, status: u16) -> stripe_shared::ApiErrors {
        assert_eq!(self.status, status, "{}", self.text);
        *parse::<stripe_shared::Error>(&self.text).error
    }
}

fn parse<T: miniserde::Deserialize>(json: &str) -> T {
    miniserde::json::from_str(json)
        .unwrap_or_else(|_| panic!("not a {}: {json}", std::any::type_name::<T>()))
}

fn parse_value<T: miniserde::Deserialize>(value: &Value) -> T {
    parse(&value.to_string())
}

/// A Stripe client as far as the wire goes: form posts, Idempotency-Key.
struct Stripe {
    http: reqwest::Client,
    base: String,
}

impl Stripe {
    fn of(double: &StripeDouble) -> Stripe {
        Stripe {
            http: reqwest::Client::new(),
            base: double.url.clone(),
        }
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        form: &[(&str, &str)],
        key: Option<&str>,
    ) -> Reply {
        let mut request = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .header("authorization", "Bearer sk_test_double")
            .header("stripe-version", API_VERSION);
        if method != reqwest::Method::GET {
            request = request.form(form);
        }
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        let response = request.send().await.expect("reaching the double");
        let status = response.status().as_u16();
        let header = |name: &str| response.headers().get(name).is_some_and(|v| v == "true");
        let (should_retry, replayed) =
            (header("stripe-should-retry"), header("idempotent-replayed"));
        let text = response.text().await.expect("a body");
        let json = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        Reply {
            status,
            should_retry,
            replayed,
            text,
            json,
        }
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) -> Reply {
        self.send(reqwest::Method::POST, path, form, None).await
    }

    async fn post_keyed(&self, path: &str, key: &str, form: &[(&str, &str)]) -> Reply {
        self.send(reqwest::Method::POST, path, form, Some(key))
            .await
    }

    async fn get(&self, path: &str) -> Reply {
        self.send(reqwest::Method::GET, path, &[], None).await
    }

    async fn delete(&self, path: &str) -> Reply {
        self.send(reqwest::Method::DELETE, path, &[], None).await
    }
}

/// The type string of the event object variants the double sends.
fn variant(object: &EventObject) -> &'static str {
    match object {
        EventObject::BillingPortalSessionCreated(_) => "billing_portal.session.created",
        EventObject::ChargeDisputeCreated(_) => "charge.dispute.created",
        EventObject::ChargeRefunded(_) => "charge.refunded",
        EventObject::RefundCreated(_) => "refund.created",
        EventObject::CheckoutSessionAsyncPaymentFailed(_) => {
            "checkout.session.async_payment_failed"
        }
        EventObject::CheckoutSessionAsyncPaymentSucceeded(_) => {
            "checkout.session.async_payment_succeeded"
        }
        EventObject::CheckoutSessionCompleted(_) => "checkout.session.completed",
        EventObject::CheckoutSessionExpired(_) => "checkout.session.expired",
        EventObject::CustomerSubscriptionCreated(_) => "customer.subscription.created",
        EventObject::CustomerSubscriptionDeleted(_) => "customer.subscription.deleted",
        EventObject::CustomerSubscriptionUpdated(_) => "customer.subscription.updated",
        EventObject::InvoiceFinalized(_) => "invoice.finalized",
        EventObject::InvoiceMarkedUncollectible(_) => "invoice.marked_uncollectible",
        EventObject::InvoicePaid(_) => "invoice.paid",
        EventObject::InvoicePaymentPaid(_) => "invoice_payment.paid",
        EventObject::InvoicePaymentFailed(_) => "invoice.payment_failed",
        _ => "another event",
    }
}

/// Checks each event's signature and parse as the backend's webhook
/// endpoint will, and that they are of the expected types, in order.
fn verify(events: &[(String, String)], at: i64, expected: &[&str]) -> Vec<stripe_webhook::Event> {
    let kinds: Vec<String> = events
        .iter()
        .map(|(_, body)| {
            let event: Value = serde_json::from_str(body).expect("event JSON");
            event["type"].as_str().unwrap_or_default().to_owned()
        })
        .collect();
    assert_eq!(kinds, expected);
    events
        .iter()
        .map(|(id, body)| {
            let header = Webhook::generate_test_header(body, SECRET, Some(at));
            let event = Webhook::construct_event_with_timestamp(body, &header, SECRET, at)
                .unwrap_or_else(|e| panic!("{e}: {body}"));
            assert_eq!(event.id.as_str(), id);
            assert_eq!(variant(&event.data.object), event.type_.as_str(), "{body}");
            assert_eq!(
                event.api_version.as_ref().map(|v| v.as_str().to_owned()),
                Some(API_VERSION.to_owned())
            );
            event
        })
        .collect()
}

/// The object in an event body.
fn object_of(event: &(String, String)) -> Value {
    let event: Value = serde_json::from_str(&event.1).expect("event JSON");
    event["data"]["object"].clone()
}

/// A customer, a monthly price of €239.00 and (optionally) 21 % VAT.
async fn catalog(stripe: &Stripe, with_vat: bool) -> (String, String, Option<String>) {
    let vat = if with_vat {
        let rate = stripe
            .post(
                "/v1/tax_rates",
                &[
                    ("display_name", "VAT"),
                    ("percentage", "21"),
                    ("inclusive", "false"),
                    ("country", "NL"),
                    ("jurisdiction", "NL"),
                    ("description", "Dutch VAT"),
                    ("metadata[rate]", "nl-21"),
                ],
            )
            .await;
        let typed: stripe_shared::TaxRate = rate.ok();
        assert!((typed.percentage - 21.0).abs() < f64::EPSILON);
        assert!(!typed.inclusive);
        Some(typed.id.as_str().to_owned())
    } else {
        None
    };
    let customer = stripe
        .post(
            "/v1/customers",
            &[
                ("name", "Org A"),
                ("email", "owner@a.example"),
                ("address[line1]", "Damrak 1"),
                ("address[city]", "Amsterdam"),
                ("address[postal_code]", "1012 LG"),
                ("address[country]", "NL"),
                ("preferred_locales[0]", "nl"),
                ("tax_id_data[0][type]", "eu_vat"),
                ("tax_id_data[0][value]", "NL123456789B01"),
                ("metadata[organization_id]", "org-a"),
            ],
        )
        .await;
    let typed: stripe_shared::Customer = customer.ok();
    assert_eq!(typed.preferred_locales, Some(vec!["nl".to_owned()]));
    let product = stripe
        .post(
            "/v1/products",
            &[("name", "G-ADA"), ("metadata[lookup_key]", "plan:g-ada")],
        )
        .await;
    let product: stripe_shared::Product = product.ok();
    let price = stripe
        .post(
            "/v1/prices",
            &[
                ("currency", "eur"),
                ("product", product.id.as_str()),
                ("unit_amount", "23900"),
                ("recurring[interval]", "month"),
                ("lookup_key", "plan:g-ada"),
                ("transfer_lookup_key", "true"),
                ("tax_behavior", "exclusive"),
            ],
        )
        .await;
    let price: stripe_shared::Price = price.ok();
    assert_eq!(price.unit_amount, Some(23900));
    (
        typed.id.as_str().to_owned(),
        price.id.as_str().to_owned(),
        vat,
    )
}

/// A subscription Checkout for one unit of `price`, taxed by `vat`.
async fn checkout(
    stripe: &Stripe,
    customer: &str,
    price: &str,
    vat: Option<&str>,
    expires_at: i64,
) -> Reply {
    let expires_at = expires_at.to_string();
    let mut form = vec![
        ("mode", "subscription"),
        ("customer", customer),
        ("client_reference_id", "order-1"),
        (
            "success_url",
            "https://gpu.example.com/en/orders/order-1?paid=1",
        ),
        ("cancel_url", "https://gpu.example.com/en/orders/order-1"),
        ("expires_at", expires_at.as_str()),
        ("line_items[0][price]", price),
        ("line_items[0][quantity]", "1"),
        ("subscription_data[metadata][order_id]", "order-1"),
        ("locale", "nl"),
        ("customer_update[address]", "auto"),
    ];
    if let Some(vat) = vat {
        form.push(("line_items[0][tax_rates][0]", vat));
    }
    stripe.post("/v1/checkout/sessions", &form).await
}

#[tokio::test]
async fn a_subscription_lives_its_whole_life_in_async_stripes_types() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    let start = january_31();
    double.set_now(start);
    let (customer, price, vat) = catalog(&stripe, true).await;
    let vat = vat.expect("a tax rate");

    let updated = stripe
        .post(
            &format!("/v1/customers/{customer}"),
            &[("name", "Org A B.V."), ("address[line2]", "3rd floor")],
        )
        .await;
    let updated: stripe_shared::Customer = updated.ok();
    assert_eq!(updated.name.as_deref(), Some("Org A B.V."));
    let address = updated.address.expect("an address");
    assert_eq!(address.line1.as_deref(), Some("Damrak 1"));
    assert_eq!(address.line2.as_deref(), Some("3rd floor"));
    let refused = stripe
        .post(
            &format!("/v1/customers/{customer}"),
            &[
                ("tax_id_data[0][type]", "eu_vat"),
                ("tax_id_data[0][value]", "NL1"),
            ],
        )
        .await;
    assert_eq!(refused.error(400).param.as_deref(), Some("tax_id_data"));

    // Checkout with VAT on the line: €239.00 + 21 % = €289.19.
    let session = checkout(&stripe, &customer, &price, Some(&vat), start + 3600).await;
    let typed: stripe_shared::CheckoutSession = session.ok();
    assert_eq!(typed.id.as_str(), "cs_test_1");
    assert_eq!(
        typed.url.as_deref(),
        Some("https://checkout.stripe.test/pay/cs_test_1")
    );
    assert_eq!(
        (typed.amount_subtotal, typed.amount_total),
        (Some(23900), Some(28919))
    );
    assert_eq!(typed.payment_status.as_str(), "unpaid");
    let fetched: stripe_shared::CheckoutSession =
        stripe.get("/v1/checkout/sessions/cs_test_1").await.ok();
    assert_eq!(
        fetched.status.map(|s| s.as_str().to_owned()).as_deref(),
        Some("open")
    );

    // Paid: the session completes, the subscription starts, the first
    // invoice is finalized and paid.
    let events = double.pay("cs_test_1", start);
    let stripe_side_event = events[0].1.clone();
    let typed = verify(
        &events,
        start,
        &[
            "checkout.session.completed",
            "customer.subscription.created",
            "invoice.finalized",
            "invoice.paid",
            "invoice_payment.paid",
        ],
    );
    let EventObject::CheckoutSessionCompleted(completed) = &typed[0].data.object else {
        panic!("a completed session");
    };
    assert_eq!(completed.payment_status.as_str(), "paid");
    let subscription_id = completed
        .subscription
        .as_ref()
        .expect("a subscription")
        .id()
        .as_str()
        .to_owned();
    assert_eq!(subscription_id, "sub_test_1");
    let EventObject::CustomerSubscriptionCreated(created) = &typed[1].data.object else {
        panic!("a subscription");
    };
    assert_eq!(
        created.metadata.get("order_id").map(String::as_str),
        Some("order-1")
    );
    let item = &created.items.data[0];
    assert_eq!(item.current_period_start, start);
    // January 31 → February 28 (2027 is no leap year), same time of day.
    assert_eq!(
        item.current_period_end,
        calendar::timestamp(2027, 2, 28, 10, 0, 0)
    );
    let EventObject::InvoicePaid(paid) = &typed[3].data.object else {
        panic!("a paid invoice");
    };
    assert_eq!(paid.id.as_ref().map(|i| i.as_str()), Some("in_test_1"));
    let parent = paid
        .parent
        .as_ref()
        .and_then(|p| p.subscription_details.as_ref())
        .expect("a subscription parent");
    assert_eq!(parent.subscription.id().as_str(), "sub_test_1");
    assert_eq!(
        (paid.subtotal, paid.total, paid.amount_paid),
        (23900, 28919, 28919)
    );
    let taxes = paid.total_taxes.as_ref().expect("taxes");
    assert_eq!(taxes.len(), 1);
    assert_eq!(taxes[0].amount, 5019);
    let rate = taxes[0].tax_rate_details.as_ref().expect("a tax rate");
    assert_eq!(rate.tax_rate.id().as_str(), vat);
    let line = &paid.lines.data[0];
    assert_eq!(
        (line.amount, line.period.start, line.period.end),
        (23900, start, item.current_period_end)
    );
    let price_details = line
        .pricing
        .as_ref()
        .and_then(|p| p.price_details.as_ref())
        .expect("price details");
    assert_eq!(price_details.price.id().as_str(), price);
    assert_eq!(line.taxes.as_ref().map(|t| t[0].amount), Some(5019));
    // Stripe never sends an invoice's payments (they are includable):
    // `invoice_payment.paid` names the payment, and so does a list or an
    // expanded retrieval.
    assert!(paid.payments.is_none(), "payments are includable");
    let EventObject::InvoicePaymentPaid(payment) = &typed[4].data.object else {
        panic!("a paid invoice payment");
    };
    assert_eq!(
        payment.invoice.id().as_ref().map(|i| i.as_str()),
        Some("in_test_1")
    );
    let listed = stripe
        .get("/v1/invoice_payments?invoice=in_test_1&status=paid")
        .await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let listed: Value = serde_json::from_str(&listed.text).expect("a list");
    let data = listed["data"].as_array().expect("listed payments");
    assert_eq!(data.len(), 1);
    let first: stripe_shared::InvoicePayment = parse_value(&data[0]);
    assert_eq!(first.id, payment.id);
    let expanded: stripe_shared::Invoice = stripe
        .get("/v1/invoices/in_test_1?expand[]=payments")
        .await
        .ok();
    let payment = &expanded.payments.as_ref().expect("expanded payments").data[0];
    assert_eq!(payment.status, "paid");
    let intent = payment
        .payment
        .payment_intent
        .as_ref()
        .expect("a payment intent");
    assert_eq!(intent.id().as_str(), "pi_test_1");
    assert_eq!(paid.status_transitions.paid_at, Some(start));
    let finalized = object_of(&events[2]);
    assert_eq!(
        (
            finalized["status"].as_str(),
            finalized["amount_paid"].as_i64()
        ),
        (Some("open"), Some(0))
    );

    // What GETs and lists answer agrees.
    let subscription: stripe_shared::Subscription =
        stripe.get("/v1/subscriptions/sub_test_1").await.ok();
    assert_eq!(subscription.status.as_str(), "active");
    let list = stripe
        .get(&format!("/v1/invoices?customer={customer}&limit=10"))
        .await;
    assert_eq!(list.status, 200, "{}", list.text);
    assert_eq!(list.json["has_more"], false);
    for invoice in list.json["data"].as_array().expect("invoices") {
        parse_value::<stripe_shared::Invoice>(invoice);
    }
    let payments = stripe
        .get("/v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=pi_test_1")
        .await;
    let first: stripe_shared::InvoicePayment = parse_value(&payments.json["data"][0]);
    assert_eq!(
        first.invoice.id().as_ref().map(|i| i.as_str()),
        Some("in_test_1")
    );

    // A €50 credit, applied to the next invoice.
    let credit = stripe
        .post(
            &format!("/v1/customers/{customer}/balance_transactions"),
            &[
                ("amount", "-5000"),
                ("currency", "eur"),
                ("description", "SLA credit"),
            ],
        )
        .await;
    let credit: stripe_shared::CustomerBalanceTransaction = credit.ok();
    assert_eq!((credit.amount, credit.ending_balance), (-5000, -5000));
    assert_eq!(
        double.object(&customer).expect("the customer")["balance"],
        -5000
    );

    // Renewed and paid: February 28 → March 31 (the anchor's day again).
    let feb_28 = calendar::timestamp(2027, 2, 28, 10, 0, 0);
    let events = double.renew("sub_test_1", feb_28, true);
    let typed = verify(
        &events,
        feb_28,
        &[
            "customer.subscription.updated",
            "invoice.finalized",
            "invoice.paid",
            "invoice_payment.paid",
        ],
    );
    let EventObject::CustomerSubscriptionUpdated(renewed) = &typed[0].data.object else {
        panic!("an updated subscription");
    };
    let item = &renewed.items.data[0];
    assert_eq!(
        (item.current_period_start, item.current_period_end),
        (feb_28, calendar::timestamp(2027, 3, 31, 10, 0, 0))
    );
    let EventObject::InvoicePaid(second) = &typed[2].data.object else {
        panic!("a paid invoice");
    };
    assert_eq!(second.starting_balance, -5000);
    assert_eq!(second.ending_balance, Some(0));
    assert_eq!((second.total, second.amount_due), (28919, 23919));
    assert_eq!(
        double.object(&customer).expect("the customer")["balance"],
        0
    );
    let second_id = second.id.as_ref().expect("an id").as_str().to_owned();
    let applied = double.object("cbtxn_test_2").expect("the credit applied");
    let applied: stripe_shared::CustomerBalanceTransaction = parse_value(&applied);
    assert_eq!(
        (applied.amount, applied.type_.as_str()),
        (5000, "applied_to_invoice")
    );
    let item_id = renewed.items.data[0].id.as_str().to_owned();
    let item: stripe_shared::SubscriptionItem = stripe
        .get(&format!("/v1/subscription_items/{item_id}"))
        .await
        .ok();
    assert_eq!(item.current_period_start, feb_28);

    // Renewed and not paid: the subscription is past due.
    let mar_31 = calendar::timestamp(2027, 3, 31, 10, 0, 0);
    let events = double.renew("sub_test_1", mar_31, false);
    verify(
        &events,
        mar_31,
        &[
            "customer.subscription.updated",
            "invoice.finalized",
            "invoice.payment_failed",
            "customer.subscription.updated",
        ],
    );
    let failed = object_of(&events[2]);
    assert_eq!(failed["status"], "open");
    assert_eq!(failed["attempted"], true);
    assert_eq!(object_of(&events[3])["status"], "past_due");
    let third = failed["id"].as_str().expect("an id").to_owned();

    // Given up on, then paid after all: the subscription is active again.
    let events = double.mark_uncollectible(&third, mar_31 + 86_400);
    verify(&events, mar_31 + 86_400, &["invoice.marked_uncollectible"]);
    let events = double.pay_invoice(&third, mar_31 + 2 * 86_400);
    let typed = verify(
        &events,
        mar_31 + 2 * 86_400,
        &[
            "invoice.paid",
            "invoice_payment.paid",
            "customer.subscription.updated",
        ],
    );
    let EventObject::InvoicePaid(late) = &typed[0].data.object else {
        panic!("a paid invoice");
    };
    assert_eq!(late.status.as_ref().map(|s| s.as_str()), Some("paid"));
    assert_eq!(object_of(&events[2])["status"], "active");
    let newest: Vec<String> = double
        .invoice_for_subscription("sub_test_1")
        .iter()
        .map(|i| i["id"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        newest,
        [third.clone(), second_id.clone(), "in_test_1".to_owned()]
    );

    // Refunds: one in the Dashboard, one through the API.
    let events = double.refund_at_stripe("in_test_1", 1000, mar_31 + 3 * 86_400);
    let typed = verify(
        &events,
        mar_31 + 3 * 86_400,
        &["charge.refunded", "refund.created"],
    );
    let EventObject::ChargeRefunded(charge) = &typed[0].data.object else {
        panic!("a refunded charge");
    };
    assert_eq!(
        (charge.id.as_str(), charge.amount_refunded, charge.refunded),
        ("ch_test_1", 1000, false)
    );
    assert_eq!(
        charge.payment_intent.as_ref().map(|p| p.id().as_str()),
        Some("pi_test_1")
    );
    assert_eq!(charge.refunds.as_ref().map(|r| r.data.len()), Some(1));
    let refund = stripe
        .post(
            "/v1/refunds",
            &[
                ("payment_intent", "pi_test_2"),
                ("reason", "requested_by_customer"),
                ("metadata[order_id]", "order-1"),
            ],
        )
        .await;
    let refund: stripe_shared::Refund = refund.ok();
    assert_eq!(refund.amount, 23919);
    assert_eq!(refund.status.as_deref(), Some("succeeded"));
    let events = double.take_events();
    let typed = verify(
        &events,
        double.now(),
        &["charge.refunded", "refund.created"],
    );
    let EventObject::ChargeRefunded(charge) = &typed[0].data.object else {
        panic!("a refunded charge");
    };
    assert!(charge.refunded);
    let EventObject::RefundCreated(created) = &typed[1].data.object else {
        panic!("a created refund");
    };
    assert_eq!(created.id, refund.id);
    assert_eq!(
        created.metadata.as_ref().and_then(|m| m.get("order_id")),
        Some(&"order-1".to_owned())
    );
    let again = stripe
        .post("/v1/refunds", &[("payment_intent", "pi_test_2")])
        .await;
    assert_eq!(
        again
            .error(400)
            .code
            .map(|c| c.as_str().to_owned())
            .as_deref(),
        Some("charge_already_refunded")
    );

    // A dispute on the first charge.
    let events = double.dispute("in_test_1", mar_31 + 4 * 86_400);
    let typed = verify(&events, mar_31 + 4 * 86_400, &["charge.dispute.created"]);
    let EventObject::ChargeDisputeCreated(dispute) = &typed[0].data.object else {
        panic!("a dispute");
    };
    assert_eq!(
        (dispute.charge.id().as_str(), dispute.amount),
        ("ch_test_1", 28919)
    );
    assert_eq!(
        dispute.payment_intent.as_ref().map(|p| p.id().as_str()),
        Some("pi_test_1")
    );
    assert_eq!(dispute.status.as_str(), "needs_response");

    // Cancellation scheduled through the API, revoked, scheduled in the
    // Dashboard, then canceled there at once.
    let period_end = calendar::timestamp(2027, 4, 30, 10, 0, 0);
    let path = "/v1/subscriptions/sub_test_1";
    let scheduled: stripe_shared::Subscription = stripe
        .post(path, &[("cancel_at_period_end", "true")])
        .await
        .ok();
    assert!(scheduled.cancel_at_period_end);
    assert_eq!(scheduled.cancel_at, Some(period_end));
    let revoked: stripe_shared::Subscription = stripe.post(path, &[("cancel_at", "")]).await.ok();
    assert_eq!(
        (revoked.cancel_at, revoked.cancel_at_period_end),
        (None, false)
    );
    let events = double.take_events();
    verify(
        &events,
        double.now(),
        &[
            "customer.subscription.updated",
            "customer.subscription.updated",
        ],
    );
    // Events our own requests caused name the request; Stripe's own don't.
    let caused: Value = serde_json::from_str(&events[0].1).expect("JSON");
    assert!(caused["request"]["id"]
        .as_str()
        .is_some_and(|id| id.starts_with("req_")));
    let own: Value = serde_json::from_str(&stripe_side_event).expect("JSON");
    assert!(own["request"]["id"].is_null());
    assert_eq!(double.created("subscription.update"), 2);
    assert_eq!(
        double.calls("/v1/subscriptions/")[1]
            .get("cancel_at")
            .map(String::as_str),
        Some("")
    );
    let events = double.cancel_at_period_end_at_stripe("sub_test_1", mar_31 + 5 * 86_400);
    let typed = verify(
        &events,
        mar_31 + 5 * 86_400,
        &["customer.subscription.updated"],
    );
    let EventObject::CustomerSubscriptionUpdated(scheduled) = &typed[0].data.object else {
        panic!("an updated subscription");
    };
    assert!(scheduled.cancel_at_period_end);
    assert_eq!(scheduled.cancel_at, Some(period_end));
    let event: Value = serde_json::from_str(&events[0].1).expect("JSON");
    assert_eq!(
        event["data"]["previous_attributes"]["cancel_at_period_end"],
        false
    );
    let events = double.cancel_at_stripe("sub_test_1", mar_31 + 6 * 86_400);
    let typed = verify(
        &events,
        mar_31 + 6 * 86_400,
        &["customer.subscription.deleted"],
    );
    let EventObject::CustomerSubscriptionDeleted(deleted) = &typed[0].data.object else {
        panic!("a deleted subscription");
    };
    assert_eq!(deleted.status.as_str(), "canceled");
    assert_eq!(deleted.ended_at, Some(mar_31 + 6 * 86_400));
    let gone = stripe.delete(path).await;
    assert_eq!(
        gone.error(404)
            .code
            .map(|c| c.as_str().to_owned())
            .as_deref(),
        Some("resource_missing")
    );

    // A second Checkout nobody pays expires.
    let second = checkout(&stripe, &customer, &price, None, start + 7200).await;
    let second: stripe_shared::CheckoutSession = second.ok();
    assert_eq!(second.id.as_str(), "cs_test_2");
    let events = double.expire("cs_test_2", start + 7200);
    let typed = verify(&events, start + 7200, &["checkout.session.expired"]);
    let EventObject::CheckoutSessionExpired(expired) = &typed[0].data.object else {
        panic!("an expired session");
    };
    assert_eq!(expired.status.as_ref().map(|s| s.as_str()), Some("expired"));
    let refused = stripe
        .post("/v1/checkout/sessions/cs_test_2/expire", &[])
        .await;
    refused.error(400);

    // The Billing Portal, checked through the event Stripe sends for it.
    let portal = stripe
        .post(
            "/v1/billing_portal/sessions",
            &[
                ("customer", &customer),
                ("return_url", "https://gpu.example.com/en/billing"),
            ],
        )
        .await;
    assert_eq!(portal.status, 200, "{}", portal.text);
    assert_eq!(
        portal.json["url"],
        "https://billing.stripe.test/p/session/1"
    );
    let event = double.event_in_version(
        "billing_portal.session.created",
        portal.json.clone(),
        API_VERSION,
        start,
    );
    verify(&[event], start, &["billing_portal.session.created"]);

    for (kind, count) in [
        ("customer", 1),
        ("product", 1),
        ("price", 1),
        ("tax_rate", 1),
        ("checkout.session", 2),
        ("billing_portal.session", 1),
        ("refund", 1),
        ("customer_balance_transaction", 1),
    ] {
        assert_eq!(double.created(kind), count, "{kind}");
    }
    // Every answer of this whole life had the keys of Stripe's published
    // example of its resource, no more and no fewer.
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
}

/// The conformance check itself: it sees a key Stripe's fixture lacks
/// (an invoice's includable `payments`) unless it was expanded, a key
/// missing, and nested resources (an invoice's lines).
#[test]
fn the_shape_check_knows_stripes_published_objects() {
    use crate::common::stripe_double::fixture::{differences, fixture, shaped};
    let invoice = shaped(json!({"object": "invoice", "id": "in_1", "status": "paid"}));
    assert_eq!(differences(&invoice, &[]), Vec::<String>::new());
    let published = fixture("invoice").expect("Stripe publishes an invoice");
    assert!(!published.contains_key("payments"), "includable");
    assert!(published.contains_key("total_taxes"));
    let mut with_payments = invoice.clone();
    with_payments["payments"] =
        json!({"object": "list", "data": [], "has_more": false, "url": "/v1/invoice_payments"});
    assert_eq!(
        differences(&with_payments, &[]),
        vec![": invoice has `payments`, Stripe's has not".to_owned()]
    );
    assert!(differences(&with_payments, &["payments".to_owned()]).is_empty());
    let mut lacking = invoice.clone();
    lacking
        .as_object_mut()
        .expect("an object")
        .remove("total_taxes");
    assert_eq!(
        differences(&lacking, &[]),
        vec![": invoice lacks `total_taxes`".to_owned()]
    );
    let mut nested = invoice;
    nested["lines"]["data"][0]["invented"] = json!(true);
    assert_eq!(
        differences(&nested, &[]),
        vec![".lines.data[0]: line_item has `invented`, Stripe's has not".to_owned()]
    );
    let refused = std::panic::catch_unwind(|| shaped(json!({"object": "charge", "payments": []})));
    assert!(refused.is_err(), "the double cannot invent a key");
}

#[tokio::test]
async fn bank_debits_complete_unpaid_first() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    let start = january_31();
    double.set_now(start);
    let (customer, price, _) = catalog(&stripe, false).await;
    checkout(&stripe, &customer, &price, None, start + 3600)
        .await
        .ok::<stripe_shared::CheckoutSession>();
    checkout(&stripe, &customer, &price, None, start + 3600)
        .await
        .ok::<stripe_shared::CheckoutSession>();

    let events = double.pay_async("cs_test_1", start, true);
    verify(
        &events,
        start,
        &[
            "checkout.session.completed",
            "customer.subscription.created",
            "invoice.finalized",
            "checkout.session.async_payment_succeeded",
            "invoice.paid",
            "invoice_payment.paid",
        ],
    );
    assert_eq!(object_of(&events[0])["payment_status"], "unpaid");
    assert_eq!(object_of(&events[3])["payment_status"], "paid");

    let events = double.pay_async("cs_test_2", start, false);
    verify(
        &events,
        start,
        &[
            "checkout.session.completed",
            "customer.subscription.created",
            "invoice.finalized",
            "checkout.session.async_payment_failed",
            "invoice.payment_failed",
            "customer.subscription.updated",
        ],
    );
    assert_eq!(object_of(&events[3])["payment_status"], "unpaid");
    assert_eq!(object_of(&events[5])["status"], "past_due");
    assert_eq!(
        double.object("sub_test_2").expect("a subscription")["status"],
        "past_due"
    );
}

#[tokio::test]
async fn an_idempotent_retry_answers_the_first_answer_and_creates_nothing() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    let form = [("name", "Org A"), ("email", "owner@a.example")];
    let first = stripe
        .post_keyed("/v1/customers", "customer-org-a", &form)
        .await;
    let again = stripe
        .post_keyed("/v1/customers", "customer-org-a", &form)
        .await;
    assert!(!first.replayed && again.replayed);
    let (first, again): (stripe_shared::Customer, stripe_shared::Customer) =
        (first.ok(), again.ok());
    assert_eq!(first.id.as_str(), again.id.as_str());
    assert_eq!(double.created("customer"), 1);
    assert_eq!(
        double.calls("/v1/customers").len(),
        1,
        "a replay is no new call"
    );
    assert_eq!(double.requests("/v1/customers"), 2);

    // The same key with other parameters, or on another endpoint: 400.
    let other = stripe
        .post_keyed("/v1/customers", "customer-org-a", &[("name", "Org B")])
        .await;
    let error = other.error(400);
    assert_eq!(error.type_.as_str(), "idempotency_error");
    assert!(error
        .message
        .unwrap_or_default()
        .starts_with("Keys for idempotent requests can only be used with the same parameters"));
    let elsewhere = stripe
        .post_keyed("/v1/products", "customer-org-a", &[("name", "Org A")])
        .await;
    assert_eq!(elsewhere.error(400).type_.as_str(), "idempotency_error");
    assert_eq!(double.created("customer"), 1);
    assert_eq!(double.created("product"), 0);
}

#[tokio::test]
async fn unknown_ids_are_missing_resources() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    for reply in [
        stripe.get("/v1/customers/cus_nope").await,
        stripe.get("/v1/checkout/sessions/cs_nope").await,
        stripe.get("/v1/invoices/in_nope").await,
        stripe.get("/v1/subscriptions/sub_nope").await,
        stripe
            .post(
                "/v1/subscriptions/sub_nope",
                &[("cancel_at_period_end", "true")],
            )
            .await,
        stripe.delete("/v1/subscriptions/sub_nope").await,
        stripe
            .post("/v1/tax_rates/txr_nope", &[("active", "false")])
            .await,
        stripe
            .post("/v1/checkout/sessions/cs_nope/expire", &[])
            .await,
    ] {
        let error = reply.error(404);
        assert_eq!(error.type_.as_str(), "invalid_request_error");
        assert_eq!(
            error.code.map(|c| c.as_str().to_owned()).as_deref(),
            Some("resource_missing")
        );
        assert_eq!(error.param.as_deref(), Some("id"));
        assert!(
            error.message.unwrap_or_default().starts_with("No such "),
            "{}",
            reply.text
        );
    }
    // An object Stripe no longer knows is missing too.
    let customer: stripe_shared::Customer =
        stripe.post("/v1/customers", &[("name", "Gone")]).await.ok();
    double.forget(customer.id.as_str());
    let gone = stripe
        .get(&format!("/v1/customers/{}", customer.id.as_str()))
        .await;
    assert_eq!(gone.error(404).param.as_deref(), Some("id"));
    assert!(double.object(customer.id.as_str()).is_none());

    // An unknown id in a parameter is a 400 naming the parameter.
    let reply = stripe
        .post("/v1/billing_portal/sessions", &[("customer", "cus_nope")])
        .await;
    assert_eq!(reply.error(400).param.as_deref(), Some("customer"));
    assert_eq!(
        double.calls("/v1/").len(),
        1,
        "only the customer was accepted"
    );
}

#[tokio::test]
async fn injected_failures_ask_for_a_retry_and_do_nothing() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    double.fail_next(429, 2);
    for _ in 0..2 {
        let reply = stripe
            .post_keyed("/v1/customers", "k1", &[("name", "Org A")])
            .await;
        assert!(reply.should_retry);
        let error = reply.error(429);
        assert_eq!(
            error.code.map(|c| c.as_str().to_owned()).as_deref(),
            Some("rate_limit")
        );
    }
    let reply = stripe
        .post_keyed("/v1/customers", "k1", &[("name", "Org A")])
        .await;
    assert!(!reply.should_retry && !reply.replayed);
    reply.ok::<stripe_shared::Customer>();
    assert_eq!(
        (double.failed_requests(), double.requests("/v1/customers")),
        (2, 3)
    );
    assert_eq!(double.created("customer"), 1);

    double.fail_next(500, 1);
    let reply = stripe.get("/v1/customers/cus_test_1").await;
    assert!(reply.should_retry);
    assert_eq!(reply.error(500).type_.as_str(), "api_error");
    stripe
        .get("/v1/customers/cus_test_1")
        .await
        .ok::<stripe_shared::Customer>();
}

/// A double whose clock is at `start`, where one customer paid a
/// Checkout for a subscription (`sub_test_1`, untaxed) just then.
async fn subscribed_at(start: i64) -> (StripeDouble, Stripe) {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    double.set_now(start);
    let (customer, price, _) = catalog(&stripe, false).await;
    checkout(&stripe, &customer, &price, None, start + 1800)
        .await
        .ok::<stripe_shared::CheckoutSession>();
    double.pay("cs_test_1", start);
    (double, stripe)
}

#[tokio::test]
async fn periods_are_calendar_months() {
    let month_after = |(y, m, d): (i64, i64, i64)| {
        calendar::date(calendar::month_after(calendar::timestamp(
            y, m, d, 12, 30, 0,
        )))
    };
    assert_eq!(month_after((2027, 1, 31)), (2027, 2, 28));
    assert_eq!(month_after((2028, 1, 31)), (2028, 2, 29));
    assert_eq!(month_after((2027, 2, 28)), (2027, 3, 28));
    assert_eq!(month_after((2027, 12, 15)), (2028, 1, 15));
    assert_eq!(month_after((2027, 3, 31)), (2027, 4, 30));
    let t = calendar::timestamp(2027, 5, 31, 23, 59, 59);
    assert_eq!(
        calendar::month_after(t) - calendar::timestamp(2027, 6, 30, 0, 0, 0),
        86_399
    );

    // A subscription started on February 28 renews on the 28th.
    let start = calendar::timestamp(2027, 2, 28, 9, 0, 0);
    let (double, _) = subscribed_at(start).await;
    let end = calendar::timestamp(2027, 3, 28, 9, 0, 0);
    let subscription = double.object("sub_test_1").expect("a subscription");
    assert_eq!(subscription["items"]["data"][0]["current_period_end"], end);
    let events = double.renew("sub_test_1", end, true);
    let renewed = object_of(&events[0]);
    assert_eq!(
        renewed["items"]["data"][0]["current_period_end"],
        calendar::timestamp(2027, 4, 28, 9, 0, 0)
    );
}

/// A `cancel_at` inside a period (not at its end) makes Stripe bill a
/// prorated stub: the renewal's period ends at `cancel_at`, its line is
/// marked a proration and charges the time up to it; then it ends.
#[tokio::test]
async fn a_cancel_at_inside_a_period_bills_a_prorated_stub() {
    let start = calendar::timestamp(2027, 3, 1, 9, 0, 0);
    let (double, stripe) = subscribed_at(start).await;
    let first = double.invoice_for_subscription("sub_test_1")[0]["total"]
        .as_i64()
        .expect("a total");
    let end = calendar::timestamp(2027, 4, 1, 9, 0, 0);
    let next_end = calendar::timestamp(2027, 5, 1, 9, 0, 0);
    // Ten days into the next period (of 30).
    let cancel_at = end + 10 * 86_400;
    let at = cancel_at.to_string();
    stripe
        .post(
            "/v1/subscriptions/sub_test_1",
            &[("cancel_at", at.as_str())],
        )
        .await
        .ok::<stripe_shared::Subscription>();
    double.take_events();
    let events = double.renew("sub_test_1", end, true);
    let renewed = object_of(&events[0]);
    assert_eq!(renewed["items"]["data"][0]["current_period_end"], cancel_at);
    let stub = double.invoice_for_subscription("sub_test_1")[0].clone();
    let line = &stub["lines"]["data"][0];
    assert_eq!(line["period"]["end"], cancel_at, "{stub}");
    assert_eq!(
        line["parent"]["subscription_item_details"]["proration"], true,
        "{stub}"
    );
    let expected = (first * 10 * 86_400 + (next_end - end) / 2) / (next_end - end);
    assert_eq!(stub["total"].as_i64(), Some(expected), "{stub}");
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
}

#[tokio::test]
async fn tax_comes_only_from_the_tax_rates_given() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    let start = january_31();
    double.set_now(start);
    let (customer, price, _) = catalog(&stripe, false).await;
    let session: stripe_shared::CheckoutSession =
        checkout(&stripe, &customer, &price, None, start + 3600)
            .await
            .ok();
    assert_eq!(
        (session.amount_subtotal, session.amount_total),
        (Some(23900), Some(23900))
    );
    let events = double.pay("cs_test_1", start);
    let invoice: stripe_shared::Invoice = parse_value(&object_of(&events[3]));
    assert_eq!((invoice.subtotal, invoice.total), (23900, 23900));
    assert_eq!(invoice.total_taxes.map(|t| t.len()), Some(0));
    assert_eq!(invoice.lines.data[0].taxes.as_ref().map(Vec::len), Some(0));

    // Half a cent rounds away from zero: 19 % of €2.50 is 47.5 cents.
    let rate = stripe
        .post(
            "/v1/tax_rates",
            &[
                ("display_name", "MwSt"),
                ("percentage", "19"),
                ("inclusive", "false"),
            ],
        )
        .await;
    let rate: stripe_shared::TaxRate = rate.ok();
    let product: stripe_shared::Product = stripe
        .post("/v1/products", &[("name", "Snapshot")])
        .await
        .ok();
    let small: stripe_shared::Price = stripe
        .post(
            "/v1/prices",
            &[
                ("currency", "eur"),
                ("product", product.id.as_str()),
                ("unit_amount", "250"),
                ("recurring[interval]", "month"),
            ],
        )
        .await
        .ok();
    let session = checkout(
        &stripe,
        &customer,
        small.id.as_str(),
        Some(rate.id.as_str()),
        start + 3600,
    )
    .await;
    let session: stripe_shared::CheckoutSession = session.ok();
    assert_eq!(session.amount_total, Some(298));
    // An inactive rate is refused.
    stripe
        .post(
            &format!("/v1/tax_rates/{}", rate.id.as_str()),
            &[("active", "false")],
        )
        .await
        .ok::<stripe_shared::TaxRate>();
    let refused = checkout(
        &stripe,
        &customer,
        small.id.as_str(),
        Some(rate.id.as_str()),
        start + 3600,
    )
    .await;
    assert_eq!(
        refused.error(400).param.as_deref(),
        Some("line_items[0][tax_rates][0]")
    );
    let list = stripe.get("/v1/tax_rates?active=false").await;
    assert_eq!(list.json["data"].as_array().map(Vec::len), Some(1));
    parse_value::<stripe_shared::TaxRate>(&list.json["data"][0]);
}

#[tokio::test]
async fn checkout_sessions_expire_between_30_minutes_and_24_hours() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    let start = january_31();
    double.set_now(start);
    let (customer, price, _) = catalog(&stripe, false).await;
    for expires_at in [start + 1799, start + 86_401] {
        let refused = checkout(&stripe, &customer, &price, None, expires_at).await;
        assert_eq!(refused.error(400).param.as_deref(), Some("expires_at"));
    }
    for expires_at in [start + 1800, start + 86_400] {
        let session: stripe_shared::CheckoutSession =
            checkout(&stripe, &customer, &price, None, expires_at)
                .await
                .ok();
        assert_eq!(session.expires_at, expires_at);
    }
    assert_eq!(double.created("checkout.session"), 2);
}

#[tokio::test]
async fn webhook_endpoints_show_their_secret_once() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    let created = stripe
        .post(
            "/v1/webhook_endpoints",
            &[
                ("url", "https://gpu.example.com/stripe/webhook"),
                ("api_version", API_VERSION),
                ("enabled_events[0]", "checkout.session.completed"),
                ("enabled_events[1]", "invoice.paid"),
                ("description", "storefront"),
                ("metadata[env]", "test"),
            ],
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    // stripe_misc (WebhookEndpoint's crate) is not among our dependencies:
    // its required fields, as async-stripe-misc's type declares them.
    let required = [
        "created",
        "enabled_events",
        "id",
        "livemode",
        "metadata",
        "status",
        "url",
    ];
    for field in required {
        assert!(
            !created.json[field].is_null(),
            "{field} in {}",
            created.text
        );
    }
    assert!(created.json["secret"]
        .as_str()
        .is_some_and(|s| s.starts_with("whsec_")));
    let id = created.json["id"].as_str().expect("an id").to_owned();
    let updated = stripe
        .post(
            &format!("/v1/webhook_endpoints/{id}"),
            &[
                ("enabled_events[0]", "*"),
                ("disabled", "true"),
                ("url", "https://gpu.example.com/stripe/hook"),
            ],
        )
        .await;
    assert_eq!(updated.status, 200, "{}", updated.text);
    assert_eq!(updated.json["enabled_events"], json!(["*"]));
    assert_eq!(updated.json["status"], "disabled");
    assert!(updated.json.get("secret").is_none());
    let list = stripe.get("/v1/webhook_endpoints").await;
    assert_eq!(list.json["data"].as_array().map(Vec::len), Some(1));
    assert!(list.json["data"][0].get("secret").is_none());
    for field in required {
        assert!(!list.json["data"][0][field].is_null(), "{field}");
    }
    assert_eq!(double.created("webhook_endpoint"), 1);
}

#[tokio::test]
async fn events_can_be_written_in_another_api_version() {
    let double = StripeDouble::start().await;
    let stripe = Stripe::of(&double);
    let start = january_31();
    double.set_now(start);
    let (customer, price, _) = catalog(&stripe, false).await;
    checkout(&stripe, &customer, &price, None, start + 3600)
        .await
        .ok::<stripe_shared::CheckoutSession>();
    double.pay_silently("cs_test_1", start);
    assert_eq!(
        double.object("cs_test_1").expect("a session")["status"],
        "complete"
    );
    let invoice = double.object("in_test_1").expect("an invoice");
    let (id, body) = double.event_in_version("invoice.paid", invoice, "2023-10-16", start);
    let header = Webhook::generate_test_header(&body, SECRET, Some(start));
    let event =
        Webhook::construct_event_with_timestamp(&body, &header, SECRET, start).expect("an event");
    assert_eq!(event.id.as_str(), id);
    assert_eq!(
        event.api_version.map(|v| v.as_str().to_owned()).as_deref(),
        Some("2023-10-16")
    );
    assert!(matches!(event.data.object, EventObject::InvoicePaid(_)));
}
