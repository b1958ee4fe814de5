//! A test double of Stripe's API, built from Stripe's documented object
//! shapes: customers, products, prices, Checkout Sessions, Billing Portal
//! sessions and subscription updates. Like Stripe, a repeated
//! Idempotency-Key returns the first answer and creates nothing. It also
//! writes the events Stripe would send once a Checkout is paid.

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct Ledger {
    /// Answers by Idempotency-Key.
    answers: HashMap<String, Value>,
    /// How many objects of each kind were created.
    pub created: HashMap<&'static str, usize>,
    pub sessions: HashMap<String, Value>,
    /// Form fields of every creating call, by path.
    pub calls: Vec<(String, HashMap<String, String>)>,
    /// Objects as Stripe would answer a GET for them, by id.
    pub objects: HashMap<String, Value>,
    /// Invoices by customer.
    pub invoices: HashMap<String, Vec<Value>>,
}

#[derive(Clone)]
pub struct StripeDouble {
    pub url: String,
    pub ledger: Arc<Mutex<Ledger>>,
}

type Shared = Arc<Mutex<Ledger>>;

fn create(
    ledger: &Shared,
    headers: &HeaderMap,
    path: &str,
    form: &HashMap<String, String>,
    kind: &'static str,
    make: impl FnOnce(usize) -> Value,
) -> Json<Value> {
    let mut l = ledger.lock().expect("ledger");
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(|k| format!("{path} {k}"));
    if let Some(answer) = key.as_ref().and_then(|k| l.answers.get(k)) {
        return Json(answer.clone());
    }
    let n = l.created.entry(kind).or_insert(0);
    *n += 1;
    let object = make(*n);
    l.calls.push((path.to_owned(), form.clone()));
    if let Some(k) = key {
        l.answers.insert(k, object.clone());
    }
    if kind == "checkout.session" {
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        l.sessions.insert(id, object.clone());
    }
    Json(object)
}

impl StripeDouble {
    pub async fn start() -> StripeDouble {
        let ledger: Shared = Arc::default();
        let app = Router::new()
            .route("/v1/customers", post(|State(l): State<Shared>, h: HeaderMap, Form(f): Form<HashMap<String, String>>| async move {
                let email = f.get("email").cloned().unwrap_or_default();
                create(&l, &h, "/v1/customers", &f, "customer", |n| json!({"id": format!("cus_test_{n}"), "object": "customer", "email": email}))
            }))
            .route("/v1/products", post(|State(l): State<Shared>, h: HeaderMap, Form(f): Form<HashMap<String, String>>| async move {
                let name = f.get("name").cloned().unwrap_or_default();
                create(&l, &h, "/v1/products", &f, "product", |n| json!({"id": format!("prod_test_{n}"), "object": "product", "name": name, "active": true}))
            }))
            .route("/v1/prices", post(|State(l): State<Shared>, h: HeaderMap, Form(f): Form<HashMap<String, String>>| async move {
                let amount: i64 = f.get("unit_amount").and_then(|a| a.parse().ok()).unwrap_or(0);
                let key = f.get("lookup_key").cloned();
                create(&l, &h, "/v1/prices", &f, "price", |n| json!({"id": format!("price_test_{n}"), "object": "price", "unit_amount": amount, "currency": "eur", "lookup_key": key, "recurring": {"interval": "month"}}))
            }))
            .route("/v1/checkout/sessions", post(|State(l): State<Shared>, h: HeaderMap, Form(f): Form<HashMap<String, String>>| async move {
                let (reference, customer) = (f.get("client_reference_id").cloned(), f.get("customer").cloned());
                create(&l, &h, "/v1/checkout/sessions", &f, "checkout.session", |n| json!({
                    "id": format!("cs_test_{n}"), "object": "checkout.session", "mode": "subscription",
                    "status": "open", "payment_status": "unpaid", "client_reference_id": reference,
                    "customer": customer, "subscription": null,
                    "url": format!("https://checkout.stripe.test/pay/cs_test_{n}")
                }))
            }))
            .route("/v1/billing_portal/sessions", post(|State(l): State<Shared>, h: HeaderMap, Form(f): Form<HashMap<String, String>>| async move {
                create(&l, &h, "/v1/billing_portal/sessions", &f, "billing_portal.session", |n| json!({"id": format!("bps_test_{n}"), "object": "billing_portal.session", "url": format!("https://billing.stripe.test/p/session/{n}")}))
            }))
            .route("/v1/subscriptions/{id}", post(|State(l): State<Shared>, Path(id): Path<String>, h: HeaderMap, Form(f): Form<HashMap<String, String>>| async move {
                let cancel = f.get("cancel_at_period_end").map(|v| v == "true").unwrap_or(false);
                create(&l, &h, "/v1/subscriptions", &f, "subscription.update", |_| json!({"id": id, "object": "subscription", "status": "active", "cancel_at_period_end": cancel}))
            }))
            .route("/v1/checkout/sessions/{id}", get(|State(l): State<Shared>, Path(id): Path<String>| async move {
                let l = l.lock().expect("ledger");
                Json(l.objects.get(&id).or_else(|| l.sessions.get(&id)).cloned().unwrap_or(Value::Null))
            }))
            .route("/v1/subscriptions/{id}", get(|State(l): State<Shared>, Path(id): Path<String>| async move {
                Json(l.lock().expect("ledger").objects.get(&id).cloned().unwrap_or(Value::Null))
            }))
            .route("/v1/invoices", get(|State(l): State<Shared>, axum::extract::Query(q): axum::extract::Query<HashMap<String, String>>| async move {
                let customer = q.get("customer").cloned().unwrap_or_default();
                let data = l.lock().expect("ledger").invoices.get(&customer).cloned().unwrap_or_default();
                Json(json!({"object": "list", "data": data, "has_more": false}))
            }))
            .with_state(ledger.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the Stripe double");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        tokio::spawn(async move { axum::serve(listener, app).await });
        StripeDouble { url, ledger }
    }

    pub fn created(&self, kind: &str) -> usize {
        self.ledger
            .lock()
            .expect("ledger")
            .created
            .get(kind)
            .copied()
            .unwrap_or(0)
    }

    /// Pays a Checkout Session on Stripe's side without sending any webhook
    /// (they got lost): only a reconciliation can find out.
    pub fn pay_silently(&self, session_id: &str, at: i64) {
        let events = self.paid_session_events(session_id, at);
        let mut l = self.ledger.lock().expect("ledger");
        for (_, body) in events {
            let event: Value = serde_json::from_str(&body).expect("event JSON");
            let object = event["data"]["object"].clone();
            let id = object["id"].as_str().unwrap_or_default().to_owned();
            if object["object"] == "invoice" {
                let customer = object["customer"].as_str().unwrap_or_default().to_owned();
                let list = l.invoices.entry(customer).or_default();
                list.retain(|i| i["id"] != object["id"]);
                list.push(object.clone());
            }
            l.objects.insert(id, object);
        }
    }

    /// The events Stripe sends when a Checkout Session is paid, as
    /// (event id, body): the session completes, a subscription starts and
    /// its first invoice is finalized and paid.
    pub fn paid_session_events(&self, session_id: &str, at: i64) -> Vec<(String, String)> {
        let session = self
            .ledger
            .lock()
            .expect("ledger")
            .sessions
            .get(session_id)
            .cloned()
            .expect("a known session");
        let n = session_id.trim_start_matches("cs_test_");
        let (sub, invoice) = (format!("sub_test_{n}"), format!("in_test_{n}"));
        let customer = session["customer"].clone();
        let order = session["client_reference_id"].clone();
        let mut completed = session.clone();
        completed["status"] = json!("complete");
        completed["payment_status"] = json!("paid");
        completed["subscription"] = json!(sub);
        let subscription = json!({"id": sub, "object": "subscription", "status": "active", "customer": customer,
            "current_period_start": at, "current_period_end": at + 30 * 86_400, "cancel_at_period_end": false,
            "metadata": {"order_id": order}});
        let invoice_object = |status: &str| {
            json!({"id": invoice, "object": "invoice", "number": format!("STRIPE-{n}"),
            "status": status, "customer": customer, "subscription": sub, "subtotal": 23900, "tax": 5019, "total": 28919,
            "amount_due": 28919, "currency": "eur", "created": at, "period_start": at, "period_end": at + 30 * 86_400,
            "hosted_invoice_url": format!("https://invoice.stripe.test/{invoice}"),
            "invoice_pdf": format!("https://invoice.stripe.test/{invoice}/pdf"),
            "status_transitions": {"paid_at": if status == "paid" { json!(at) } else { Value::Null }},
            "lines": {"data": [{"description": "G-ADA × 1", "amount": 23900, "period": {"start": at, "end": at + 30 * 86_400}}]}})
        };
        let event = |id: String, kind: &str, created: i64, object: Value| {
            let body = json!({"id": id, "object": "event", "type": kind, "created": created, "data": {"object": object}});
            (id, body.to_string())
        };
        vec![
            event(
                format!("evt_{n}_1"),
                "checkout.session.completed",
                at,
                completed,
            ),
            event(
                format!("evt_{n}_2"),
                "customer.subscription.created",
                at,
                subscription,
            ),
            event(
                format!("evt_{n}_3"),
                "invoice.finalized",
                at,
                invoice_object("open"),
            ),
            event(
                format!("evt_{n}_4"),
                "invoice.paid",
                at + 1,
                invoice_object("paid"),
            ),
        ]
    }
}
