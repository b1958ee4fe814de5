//! Subscription changes, invoice and invoice-payment lists, refunds.

use super::billing;
use super::catalog_api::list;
use super::http::{find, merge_metadata, page, Answer, Failure, Form};
use super::ledger::{changes, Ledger};
use super::API_VERSION;
use serde_json::{json, Value};

/// The end of a subscription's current period (its items' latest end).
pub(super) fn period_end(subscription: &Value) -> i64 {
    subscription["items"]["data"]
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .filter_map(|i| i["current_period_end"].as_i64())
                .max()
        })
        .unwrap_or(0)
}

fn cancellation_details(subscription: &mut Value, form: &Form) {
    for field in ["comment", "feedback"] {
        if let Some(value) = form.get(&format!("cancellation_details[{field}]")) {
            subscription["cancellation_details"][field] = if value.is_empty() {
                Value::Null
            } else {
                json!(value)
            };
        }
    }
}

pub(super) fn update_subscription(l: &mut Ledger, id: &str, form: &Form) -> Answer {
    let before = find(l, "subscription", id, "id")?;
    let mut subscription = before.clone();
    let now = l.now();
    let touches_cancel = form.has("cancel_at") || form.has("cancel_at_period_end");
    if subscription["status"] == "canceled" && touches_cancel {
        let message =
            "A canceled subscription can only update its cancellation_details and metadata.";
        return Err(Failure::invalid("cancel_at", message));
    }
    if let Some(behavior) = form.text("proration_behavior") {
        if !["always_invoice", "create_prorations", "none"].contains(&behavior.as_str()) {
            let message = "Invalid proration_behavior: must be one of always_invoice, create_prorations, or none.";
            return Err(Failure::invalid("proration_behavior", message));
        }
    }
    let end = period_end(&subscription);
    match form.get("cancel_at") {
        None => {}
        Some("") => {
            subscription["cancel_at"] = Value::Null;
            subscription["cancel_at_period_end"] = json!(false);
        }
        Some("max_period_end" | "min_period_end" | "max_billed_until") => {
            subscription["cancel_at"] = json!(end);
            subscription["cancel_at_period_end"] = json!(false);
        }
        Some(_) => {
            let at = form.int("cancel_at")?.unwrap_or_default();
            if at <= now {
                return Err(Failure::invalid(
                    "cancel_at",
                    "cancel_at must be in the future.",
                ));
            }
            subscription["cancel_at"] = json!(at);
            subscription["cancel_at_period_end"] = json!(false);
        }
    }
    match form.flag("cancel_at_period_end")? {
        Some(true) => {
            subscription["cancel_at"] = json!(end);
            subscription["cancel_at_period_end"] = json!(true);
        }
        Some(false) if form.get("cancel_at").is_none() => {
            subscription["cancel_at"] = Value::Null;
            subscription["cancel_at_period_end"] = json!(false);
        }
        _ => {}
    }
    if touches_cancel {
        // Stripe records when cancellation was last requested, and clears it on revoke.
        let scheduled = !subscription["cancel_at"].is_null();
        subscription["canceled_at"] = if scheduled { json!(now) } else { Value::Null };
        subscription["cancellation_details"]["reason"] = if scheduled {
            json!("cancellation_requested")
        } else {
            Value::Null
        };
    }
    item_tax_rates(l, &mut subscription, form)?;
    cancellation_details(&mut subscription, form);
    merge_metadata(&mut subscription, form);
    l.count("subscription.update");
    l.put(subscription.clone());
    if let Some(previous) = changes(&before, &subscription) {
        let event = l.event(
            "customer.subscription.updated",
            &subscription,
            Some(previous),
            API_VERSION,
            now,
        );
        l.outbox.push(event);
    }
    Ok(subscription)
}

pub(super) fn cancel_subscription(l: &mut Ledger, id: &str, form: &Form) -> Answer {
    let mut subscription = find(l, "subscription", id, "id")?;
    if subscription["status"] == "canceled" {
        // Stripe treats a canceled subscription as gone for a second cancel.
        return Err(Failure::missing("subscription", id, "id"));
    }
    let now = l.now();
    subscription["status"] = json!("canceled");
    subscription["canceled_at"] = json!(now);
    subscription["ended_at"] = json!(now);
    subscription["cancel_at_period_end"] = json!(false);
    subscription["cancellation_details"]["reason"] = json!("cancellation_requested");
    cancellation_details(&mut subscription, form);
    l.count("subscription.cancel");
    l.put(subscription.clone());
    let event = l.event(
        "customer.subscription.deleted",
        &subscription,
        None,
        API_VERSION,
        now,
    );
    l.outbox.push(event);
    Ok(subscription)
}

/// `GET /v1/refunds` and `GET /v1/disputes`: all of them, or a payment
/// intent's, newest first.
pub(super) fn list_of_payment(l: &mut Ledger, object: &str, form: &Form, url: &str) -> Answer {
    let intent = form.text("payment_intent");
    let found = l
        .all(object)
        .into_iter()
        .filter(|o| {
            intent
                .as_ref()
                .is_none_or(|i| o["payment_intent"] == i.as_str())
        })
        .collect();
    page(found, form, url)
}

/// `POST /v1/invoices/{id}/void`: only an open (or uncollectible)
/// invoice can be voided; Stripe sends `invoice.voided`.
pub(super) fn void_invoice(l: &mut Ledger, id: &str) -> Answer {
    let mut invoice = find(l, "invoice", id, "id")?;
    let status = invoice["status"].as_str().unwrap_or_default().to_owned();
    if status != "open" && status != "uncollectible" {
        let message = format!(
            "You can only pass in open or uncollectible invoices. This invoice is {status}."
        );
        return Err(Failure::new(
            400,
            "invalid_request_error",
            Some("invoice_not_open"),
            None,
            &message,
        ));
    }
    let now = l.now();
    invoice["status"] = json!("void");
    invoice["status_transitions"]["voided_at"] = json!(now);
    invoice["next_payment_attempt"] = Value::Null;
    l.put(invoice.clone());
    let event = l.event("invoice.voided", &invoice, None, API_VERSION, now);
    l.outbox.push(event);
    Ok(invoice)
}

/// Items live in their subscription, as Stripe renders them.
pub(super) fn subscription_item(l: &mut Ledger, id: &str) -> Answer {
    l.all("subscription")
        .iter()
        .filter_map(|s| s["items"]["data"].as_array())
        .flatten()
        .find(|item| item["id"] == id)
        .cloned()
        .ok_or_else(|| Failure::missing("subscription_item", id, "id"))
}

pub(super) fn list_invoices(l: &mut Ledger, form: &Form) -> Answer {
    let customer = form.text("customer");
    let subscription = form.text("subscription");
    let status = form.text("status");
    let invoices = l
        .all("invoice")
        .into_iter()
        .filter(|i| {
            customer
                .as_ref()
                .is_none_or(|c| i["customer"] == c.as_str())
        })
        .filter(|i| {
            subscription
                .as_ref()
                .is_none_or(|s| i["parent"]["subscription_details"]["subscription"] == s.as_str())
        })
        .filter(|i| status.as_ref().is_none_or(|s| i["status"] == s.as_str()))
        .collect();
    page(invoices, form, "/v1/invoices")
}

/// `GET /v1/invoice_payments`: an invoice's payments, or how a payment
/// intent leads to its invoice.
pub(super) fn list_invoice_payments(l: &mut Ledger, form: &Form) -> Answer {
    let invoice = form.text("invoice");
    let intent = form.text("payment[payment_intent]");
    let status = form.text("status");
    if let Some(status) = &status {
        if !["canceled", "open", "paid"].contains(&status.as_str()) {
            let message = "Invalid status: must be one of canceled, open, or paid";
            return Err(Failure::invalid("status", message));
        }
    }
    let payments = l
        .all("invoice_payment")
        .into_iter()
        .filter(|p| invoice.as_ref().is_none_or(|i| p["invoice"] == i.as_str()))
        .filter(|p| {
            intent
                .as_ref()
                .is_none_or(|i| p["payment"]["payment_intent"] == i.as_str())
        })
        .filter(|p| status.as_ref().is_none_or(|s| p["status"] == s.as_str()))
        .collect();
    page(payments, form, "/v1/invoice_payments")
}

/// The includable fields a request asked for with `expand[]`: an
/// invoice's `payments`, a customer's `tax_ids` (on a list:
/// `data.payments`, `data.tax_ids`). Nothing else is expanded.
pub(super) fn expand(l: &Ledger, mut body: Value, expanded: &[String]) -> Value {
    if expanded.is_empty() {
        return body;
    }
    let wants = |field: &str| {
        expanded
            .iter()
            .any(|e| e == field || e.strip_prefix("data.") == Some(field))
    };
    let mut one = |object: &mut Value| {
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        if object["object"] == "invoice" && wants("payments") {
            object["payments"] = list(
                billing::payments_of(l, &id),
                &format!("/v1/invoice_payments?invoice={id}"),
            );
        }
        if object["object"] == "customer" && wants("tax_ids") {
            object["tax_ids"] = list(
                billing::tax_ids_of(l, &id),
                &format!("/v1/customers/{id}/tax_ids"),
            );
        }
    };
    if body["object"] == "list" {
        if let Some(items) = body["data"].as_array_mut() {
            items.iter_mut().for_each(&mut one);
        }
    } else {
        one(&mut body);
    }
    body
}

pub(super) fn create_refund(l: &mut Ledger, form: &Form) -> Answer {
    let charge_id = match (form.text("payment_intent"), form.text("charge")) {
        (Some(intent), _) => l
            .all("charge")
            .into_iter()
            .find(|c| c["payment_intent"] == intent.as_str())
            .and_then(|c| c["id"].as_str().map(str::to_owned))
            .ok_or_else(|| Failure::missing("payment_intent", &intent, "payment_intent"))?,
        (None, Some(charge)) => {
            find(l, "charge", &charge, "charge")?;
            charge
        }
        (None, None) => return Err(Failure::parameter_missing("payment_intent")),
    };
    let reason = form.text("reason");
    if let Some(reason) = &reason {
        if !["duplicate", "fraudulent", "requested_by_customer"].contains(&reason.as_str()) {
            return Err(Failure::invalid(
                "reason",
                "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer.",
            ));
        }
    }
    let now = l.now();
    let metadata = Value::Object(form.hash("metadata"));
    let (refund, charge) =
        billing::refund(l, &charge_id, form.int("amount")?, reason, metadata, now)?;
    l.count("refund");
    let event = l.event("charge.refunded", &charge, None, API_VERSION, now);
    l.outbox.push(event);
    let event = l.event("refund.created", &refund, None, API_VERSION, now);
    l.outbox.push(event);
    Ok(refund)
}

/// `items[i][id]` with `items[i][tax_rates][j]` (or an empty
/// `items[i][tax_rates]` to clear them): the rates the item's next invoices
/// are taxed with.
fn item_tax_rates(l: &Ledger, subscription: &mut Value, form: &Form) -> Result<(), Failure> {
    for i in 0.. {
        let Some(item_id) = form.text(&format!("items[{i}][id]")) else {
            return Ok(());
        };
        let key = format!("items[{i}][tax_rates]");
        if !form.has(&key) {
            continue;
        }
        let mut rates = Vec::new();
        for id in form.list(&key) {
            rates.push(find(l, "tax_rate", &id, &key)?);
        }
        let items = subscription["items"]["data"]
            .as_array_mut()
            .ok_or_else(|| Failure::invalid("items", "The subscription has no items."))?;
        let item = items
            .iter_mut()
            .find(|item| item["id"] == item_id.as_str())
            .ok_or_else(|| {
                Failure::invalid(&format!("items[{i}][id]"), "No such subscription item.")
            })?;
        item["tax_rates"] = json!(rates);
    }
    Ok(())
}
