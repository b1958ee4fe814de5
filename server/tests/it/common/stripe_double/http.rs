//! Stripe's HTTP surface: form-encoded parameters, idempotency keys,
//! error bodies, injected failures and the table of endpoints.

use super::fixture::shaped;
use super::ledger::Ledger;
use super::{billing_api, catalog_api, checkout_api};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub(super) type Shared = Arc<Mutex<Ledger>>;

pub(super) fn router(shared: Shared) -> Router {
    Router::new().fallback(handle).with_state(shared)
}

/// An error answer, with a body that parses as `stripe_shared::Error`.
#[derive(Debug)]
pub(super) struct Failure {
    pub status: u16,
    pub body: Value,
}

pub(super) type Answer = Result<Value, Failure>;

impl Failure {
    pub fn new(
        status: u16,
        kind: &str,
        code: Option<&str>,
        param: Option<&str>,
        message: &str,
    ) -> Self {
        let mut error = json!({"type": kind, "message": message});
        if let Some(code) = code {
            error["code"] = json!(code);
            error["doc_url"] = json!(format!(
                "https://stripe.com/docs/error-codes/{}",
                code.replace('_', "-")
            ));
        }
        if let Some(param) = param {
            error["param"] = json!(param);
        }
        Failure {
            status,
            body: json!({ "error": error }),
        }
    }

    /// 400 for a parameter Stripe would not take.
    pub fn invalid(param: &str, message: &str) -> Self {
        Failure::new(400, "invalid_request_error", None, Some(param), message)
    }

    pub fn parameter_missing(param: &str) -> Self {
        let message = format!("Missing required param: {param}.");
        Failure::new(
            400,
            "invalid_request_error",
            Some("parameter_missing"),
            Some(param),
            &message,
        )
    }

    pub fn unknown_parameter(param: &str) -> Self {
        let message = format!("Received unknown parameter: {param}");
        Failure::new(
            400,
            "invalid_request_error",
            Some("parameter_unknown"),
            Some(param),
            &message,
        )
    }

    /// No such object: 404 for an id in the path, 400 for one in a parameter.
    pub fn missing(object: &str, id: &str, param: &str) -> Self {
        let status = if param == "id" { 404 } else { 400 };
        let message = format!("No such {object}: '{id}'");
        Failure::new(
            status,
            "invalid_request_error",
            Some("resource_missing"),
            Some(param),
            &message,
        )
    }
}

/// Request parameters as Stripe reads them: `a[b][0]=c` pairs, in order.
pub(super) struct Form {
    pub pairs: Vec<(String, String)>,
    pub map: HashMap<String, String>,
}

impl Form {
    /// Parameters the double passes itself (a customer Checkout creates).
    pub fn of(pairs: &[(&str, &str)]) -> Form {
        let raw = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        Form::parse(raw.as_bytes())
    }

    fn parse(raw: &[u8]) -> Form {
        let mut form = Form {
            pairs: Vec::new(),
            map: HashMap::new(),
        };
        form.extend(raw);
        form
    }

    fn extend(&mut self, raw: &[u8]) {
        for (key, value) in form_urlencoded::parse(raw) {
            self.map.insert(key.to_string(), value.to_string());
            self.pairs.push((key.into_owned(), value.into_owned()));
        }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(String::as_str)
    }

    /// A value, with Stripe's empty string meaning "none".
    pub fn text(&self, key: &str) -> Option<String> {
        self.get(key).filter(|v| !v.is_empty()).map(str::to_owned)
    }

    pub fn required(&self, key: &str) -> Result<String, Failure> {
        self.text(key)
            .ok_or_else(|| Failure::parameter_missing(key))
    }

    pub fn int(&self, key: &str) -> Result<Option<i64>, Failure> {
        match self.text(key) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| Failure::invalid(key, &format!("Invalid integer: {v}"))),
        }
    }

    pub fn flag(&self, key: &str) -> Result<Option<bool>, Failure> {
        match self.text(key).as_deref() {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(v) => Err(Failure::invalid(key, &format!("Invalid boolean: {v}"))),
        }
    }

    pub fn has(&self, prefix: &str) -> bool {
        self.pairs
            .iter()
            .any(|(k, _)| k == prefix || k.starts_with(&format!("{prefix}[")))
    }

    /// `prefix[key]=value` pairs as a JSON object (`metadata`, `address`…).
    pub fn hash(&self, prefix: &str) -> Map<String, Value> {
        let open = format!("{prefix}[");
        self.pairs
            .iter()
            .filter_map(|(k, v)| {
                let key = k.strip_prefix(&open)?.strip_suffix(']')?;
                (!key.contains('[')).then(|| (key.to_owned(), json!(v)))
            })
            .collect()
    }

    /// `prefix[0]=a&prefix[1]=b` (or repeated `prefix[]=`) values, in order.
    pub fn list(&self, prefix: &str) -> Vec<String> {
        let open = format!("{prefix}[");
        self.pairs
            .iter()
            .filter(|(k, _)| {
                k.strip_prefix(&open)
                    .and_then(|rest| rest.strip_suffix(']'))
                    .is_some_and(|i| i.chars().all(|c| c.is_ascii_digit()))
            })
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The sorted pairs, which decide whether a key is reused with the
    /// same parameters.
    fn fingerprint(&self, method: &Method, path: &str) -> String {
        let mut pairs = self.pairs.clone();
        pairs.sort();
        format!("{method} {path} {pairs:?}")
    }
}

/// A first answer kept under its Idempotency-Key.
pub struct Saved {
    fingerprint: String,
    status: u16,
    body: Value,
}

/// Merges `metadata[k]=v` into an object's metadata; an empty value
/// removes the key, as at Stripe.
pub(super) fn merge_metadata(object: &mut Value, form: &Form) {
    if form.get("metadata") == Some("") {
        object["metadata"] = json!({});
    }
    let mut metadata = object["metadata"].as_object().cloned().unwrap_or_default();
    for (key, value) in form.hash("metadata") {
        if value.as_str() == Some("") {
            metadata.remove(&key);
        } else {
            metadata.insert(key, value);
        }
    }
    object["metadata"] = Value::Object(metadata);
}

fn reply(status: u16, body: &Value, headers: &[(&'static str, &str)]) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, Json(body.clone())).into_response();
    for (name, value) in headers {
        if let Ok(value) = HeaderValue::from_str(value) {
            response.headers_mut().insert(*name, value);
        }
    }
    response
}

fn injected(status: u16) -> Failure {
    match status {
        429 => Failure::new(
            429,
            "invalid_request_error",
            Some("rate_limit"),
            None,
            "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.",
        ),
        500.. => Failure::new(
            status,
            "api_error",
            None,
            None,
            "An unknown error occurred. Please try again.",
        ),
        _ => Failure::new(status, "api_error", None, None, "An injected failure."),
    }
}

async fn handle(
    State(shared): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut ledger = shared.lock().expect("the Stripe double's ledger");
    let path = uri.path().to_owned();
    ledger.requests.push(path.clone());
    if let Some((status, left)) = ledger.failing {
        ledger.failing = (left > 1).then_some((status, left - 1));
        ledger.failed += 1;
        let failure = injected(status);
        return reply(
            failure.status,
            &failure.body,
            &[("Stripe-Should-Retry", "true")],
        );
    }
    let mut form = Form::parse(uri.query().unwrap_or_default().as_bytes());
    if method != Method::GET {
        form.extend(&body);
    }
    let key = (method == Method::POST)
        .then(|| {
            headers
                .get("idempotency-key")?
                .to_str()
                .ok()
                .map(str::to_owned)
        })
        .flatten();
    let fingerprint = form.fingerprint(&method, &path);
    if let Some(saved) = key.as_ref().and_then(|k| ledger.answers.get(k)) {
        if saved.fingerprint == fingerprint {
            let (status, body) = (saved.status, saved.body.clone());
            if ledger.lose_answer(&path) {
                return lost();
            }
            return reply(status, &body, &[("Idempotent-Replayed", "true")]);
        }
        let message = format!(
            "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{}' if you meant to execute a different request.",
            key.as_deref().unwrap_or_default()
        );
        let failure = Failure::new(400, "idempotency_error", None, None, &message);
        return reply(failure.status, &failure.body, &[]);
    }
    let request_id = ledger.next_id("req");
    ledger.request = Some(json!({"id": request_id, "idempotency_key": key}));
    let expanded = form.list("expand");
    let answer = route(&mut ledger, &method, &path, &form)
        .map(|body| billing_api::expand(&ledger, shaped(body), &expanded));
    ledger.request = None;
    let request_id = [("Request-Id", request_id.as_str())];
    match answer {
        Ok(body) => {
            let expanded: Vec<String> = expanded
                .iter()
                .map(|e| e.strip_prefix("data.").unwrap_or(e).to_owned())
                .collect();
            ledger.check(&format!("{method} {path}"), &body, &expanded);
            if method != Method::GET {
                ledger.calls.push((path.clone(), form.map.clone()));
            }
            if let Some(key) = key {
                let saved = Saved {
                    fingerprint,
                    status: 200,
                    body: body.clone(),
                };
                ledger.answers.insert(key, saved);
            }
            if ledger.lose_answer(&path) {
                return lost();
            }
            reply(200, &body, &request_id)
        }
        Err(failure) => {
            // Stripe keeps the first answer of a request it began to carry
            // out, errors included; one refused for its parameters was
            // never begun, and the same key may try again.
            let refused_parameters =
                failure.status == 400 && failure.body["error"]["param"].is_string();
            if let (Some(key), false) = (key, refused_parameters) {
                let saved = Saved {
                    fingerprint,
                    status: failure.status,
                    body: failure.body.clone(),
                };
                ledger.answers.insert(key, saved);
            }
            reply(failure.status, &failure.body, &request_id)
        }
    }
}

/// An answer lost between Stripe and us (a proxy gave up on it): the
/// request was carried out all the same.
fn lost() -> Response {
    let failure = Failure::new(502, "api_error", None, None, "Bad gateway.");
    reply(failure.status, &failure.body, &[])
}

/// Collections whose objects a plain GET answers, with their object type.
const RETRIEVABLE: &[(&str, &str)] = &[
    ("customers", "customer"),
    ("products", "product"),
    ("prices", "price"),
    ("tax_rates", "tax_rate"),
    ("subscriptions", "subscription"),
    ("invoices", "invoice"),
    ("invoice_payments", "invoice_payment"),
    ("charges", "charge"),
    ("refunds", "refund"),
    ("disputes", "dispute"),
    ("events", "event"),
    ("webhook_endpoints", "webhook_endpoint"),
];

fn route(l: &mut Ledger, method: &Method, path: &str, form: &Form) -> Answer {
    let segments: Vec<&str> = path.strip_prefix("/v1/").unwrap_or("").split('/').collect();
    match (method.as_str(), segments.as_slice()) {
        ("POST", ["customers"]) => catalog_api::create_customer(l, form),
        ("POST", ["customers", id]) => catalog_api::update_customer(l, id, form),
        ("GET", ["customers", id, "tax_ids"]) => catalog_api::list_tax_ids(l, id, form),
        ("POST", ["customers", id, "tax_ids"]) => catalog_api::create_tax_id(l, id, form),
        ("DELETE", ["customers", id, "tax_ids", tax_id]) => {
            catalog_api::delete_tax_id(l, id, tax_id)
        }
        ("POST", ["customers", id, "balance_transactions"]) => {
            catalog_api::create_balance_transaction(l, id, form)
        }
        ("POST", ["products"]) => catalog_api::create_product(l, form),
        ("POST", ["prices"]) => catalog_api::create_price(l, form),
        ("GET", ["prices"]) => catalog_api::list_prices(l, form),
        ("POST", ["tax_rates"]) => catalog_api::create_tax_rate(l, form),
        ("POST", ["tax_rates", id]) => catalog_api::update_tax_rate(l, id, form),
        ("GET", ["tax_rates"]) => catalog_api::list_tax_rates(l, form),
        ("POST", ["checkout", "sessions"]) => checkout_api::create_session(l, form),
        ("POST", ["checkout", "sessions", id, "expire"]) => checkout_api::expire_session(l, id),
        ("GET", ["checkout", "sessions", id]) => retrieve(l, "checkout.session", id),
        ("POST", ["billing_portal", "sessions"]) => checkout_api::create_portal_session(l, form),
        ("POST", ["subscriptions", id]) => billing_api::update_subscription(l, id, form),
        ("DELETE", ["subscriptions", id]) => billing_api::cancel_subscription(l, id, form),
        ("GET", ["subscription_items", id]) => billing_api::subscription_item(l, id),
        ("GET", ["invoices"]) => billing_api::list_invoices(l, form),
        ("POST", ["invoices", id, "void"]) => billing_api::void_invoice(l, id),
        ("GET", ["invoice_payments"]) => billing_api::list_invoice_payments(l, form),
        ("POST", ["refunds"]) => billing_api::create_refund(l, form),
        ("GET", ["refunds"]) => billing_api::list_of_payment(l, "refund", form, "/v1/refunds"),
        ("GET", ["disputes"]) => billing_api::list_of_payment(l, "dispute", form, "/v1/disputes"),
        ("GET", ["webhook_endpoints"]) => checkout_api::list_webhook_endpoints(l, form),
        ("POST", ["webhook_endpoints"]) => checkout_api::create_webhook_endpoint(l, form),
        ("POST", ["webhook_endpoints", id]) => checkout_api::update_webhook_endpoint(l, id, form),
        ("GET", [collection, id]) => match RETRIEVABLE.iter().find(|(c, _)| c == collection) {
            Some((_, object)) => retrieve(l, object, id),
            None => Err(unrecognized(method, path)),
        },
        _ => Err(unrecognized(method, path)),
    }
}

fn unrecognized(method: &Method, path: &str) -> Failure {
    let message = format!("Unrecognized request URL ({method}: {path}).");
    Failure::new(404, "invalid_request_error", None, None, &message)
}

/// An object of a type by id, or Stripe's "No such …" answer.
pub(super) fn find(l: &Ledger, object: &str, id: &str, param: &str) -> Answer {
    match l.get(id) {
        Some(found) if found["object"] == object => Ok(found.clone()),
        _ => Err(Failure::missing(object, id, param)),
    }
}

fn retrieve(l: &Ledger, object: &str, id: &str) -> Answer {
    let mut found = find(l, object, id, "id")?;
    if object == "webhook_endpoint" {
        // The signing secret is shown once, on creation.
        if let Some(map) = found.as_object_mut() {
            map.remove("secret");
        }
    }
    Ok(found)
}

/// A page of a list, newest first, with Stripe's `limit` and
/// `starting_after` cursor.
pub(super) fn page(items: Vec<Value>, form: &Form, url: &str) -> Answer {
    let limit = form.int("limit")?.unwrap_or(10);
    if !(1..=100).contains(&limit) {
        return Err(Failure::invalid(
            "limit",
            "The limit must be between 1 and 100.",
        ));
    }
    let start = match form.text("starting_after") {
        None => 0,
        Some(after) => match items.iter().position(|o| o["id"] == after.as_str()) {
            Some(at) => at + 1,
            None => return Err(Failure::missing("object", &after, "starting_after")),
        },
    };
    let limit = usize::try_from(limit).unwrap_or(10);
    let rest: Vec<Value> = items.into_iter().skip(start).collect();
    let has_more = rest.len() > limit;
    let data: Vec<Value> = rest.into_iter().take(limit).collect();
    Ok(json!({"object": "list", "data": data, "has_more": has_more, "url": url}))
}
