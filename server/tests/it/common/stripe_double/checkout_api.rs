//! Checkout Sessions, Billing Portal sessions and webhook endpoints.

use super::billing::{price_line, Totals};
use super::http::{find, merge_metadata, page, Answer, Failure, Form};
use super::ledger::{joined, Ledger, Line, Plan};
use super::API_VERSION;
use serde_json::{json, Value};

/// Stripe keeps a Checkout Session open between 30 minutes and 24 hours.
const SHORTEST: i64 = 30 * 60;
const LONGEST: i64 = 24 * 3600;

fn lines(l: &Ledger, form: &Form, mode: &str) -> Result<Vec<Line>, Failure> {
    let mut lines = Vec::new();
    for i in 0.. {
        let param = format!("line_items[{i}][price]");
        let Some(price_id) = form.text(&param) else {
            if form.has(&format!("line_items[{i}]")) {
                return Err(Failure::parameter_missing(&param));
            }
            break;
        };
        let price = find(l, "price", &price_id, &param)?;
        if mode == "subscription" && price["type"] != "recurring" {
            let message = "You must provide at least one recurring price in `subscription` mode when using prices.";
            return Err(Failure::invalid(&param, message));
        }
        let quantity = form
            .int(&format!("line_items[{i}][quantity]"))?
            .unwrap_or(1);
        let quantity = u64::try_from(quantity)
            .ok()
            .filter(|q| *q > 0)
            .ok_or_else(|| {
                Failure::invalid(
                    &format!("line_items[{i}][quantity]"),
                    "Quantity must be at least 1.",
                )
            })?;
        let rates_param = format!("line_items[{i}][tax_rates]");
        let tax_rates = form.list(&rates_param);
        for (j, id) in tax_rates.iter().enumerate() {
            let rate = find(l, "tax_rate", id, &format!("{rates_param}[{j}]"))?;
            if rate["active"] != true {
                let message = format!("Tax rate {id} is inactive and cannot be applied.");
                return Err(Failure::invalid(&format!("{rates_param}[{j}]"), &message));
            }
        }
        lines.push(Line {
            price: price_id,
            quantity,
            tax_rates,
        });
    }
    if lines.is_empty() && mode != "setup" {
        return Err(Failure::parameter_missing("line_items"));
    }
    Ok(lines)
}

pub(super) fn create_session(l: &mut Ledger, form: &Form) -> Answer {
    let now = l.now();
    let mode = form.required("mode")?;
    if !["payment", "setup", "subscription"].contains(&mode.as_str()) {
        return Err(Failure::invalid(
            "mode",
            "Invalid mode: must be one of payment, setup, or subscription.",
        ));
    }
    let customer = form.text("customer");
    if let Some(id) = &customer {
        find(l, "customer", id, "customer")?;
    }
    let expires_at = form.int("expires_at")?.unwrap_or(now + LONGEST);
    if expires_at < now + SHORTEST || expires_at > now + LONGEST {
        let message = "The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.";
        return Err(Failure::invalid("expires_at", message));
    }
    let lines = lines(l, form, &mode)?;
    let priced: Vec<_> = lines.iter().map(|line| price_line(l, line)).collect();
    let totals = Totals::of(&priced);
    let currency = lines
        .first()
        .and_then(|line| l.get(&line.price))
        .map_or(Value::Null, |p| p["currency"].clone());
    let payment_method_types = match form.list("payment_method_types") {
        types if types.is_empty() => vec!["card".to_owned()],
        types => types,
    };
    let n = l.number("cs");
    let id = format!("cs_test_{n}");
    let mut session = joined([
        json!({
            "id": id, "object": "checkout.session", "after_expiration": null,
            "allow_promotion_codes": form.flag("allow_promotion_codes")?,
            "amount_subtotal": totals.subtotal, "amount_total": totals.total(),
            "automatic_tax": {"enabled": form.flag("automatic_tax[enabled]")?.unwrap_or(false), "liability": null, "provider": null, "status": null},
        }),
        json!({
            "billing_address_collection": form.text("billing_address_collection"),
            "cancel_url": form.text("cancel_url"), "client_reference_id": form.text("client_reference_id"),
            "client_secret": null, "created": now, "currency": currency, "custom_fields": [],
            "custom_text": {"after_submit": null, "shipping_address": null, "submit": null, "terms_of_service_acceptance": null},
        }),
        json!({
            "customer": customer, "customer_creation": if customer.is_some() { Value::Null } else { json!("if_required") },
            "customer_details": null, "customer_email": form.text("customer_email"),
            "expires_at": expires_at, "invoice": null, "livemode": false, "locale": form.text("locale"),
            "metadata": {}, "mode": mode, "payment_intent": null, "payment_link": null,
        }),
        json!({
            "payment_method_collection": "always", "payment_method_types": payment_method_types,
            "payment_status": "unpaid", "recovered_from": null, "setup_intent": null,
            "shipping_address_collection": null, "shipping_cost": null, "shipping_options": [],
            "status": "open", "submit_type": null, "subscription": null,
        }),
        json!({
            "success_url": form.text("success_url"),
            "total_details": {"amount_discount": 0, "amount_shipping": 0, "amount_tax": totals.inclusive_tax + totals.exclusive_tax},
            "ui_mode": "hosted", "url": format!("https://checkout.stripe.test/pay/{id}"),
        }),
    ]);
    merge_metadata(&mut session, form);
    let plan = Plan {
        lines,
        subscription_metadata: form.hash("subscription_data[metadata]"),
    };
    l.plans.insert(id, plan);
    l.count("checkout.session");
    l.put(session.clone());
    Ok(session)
}

pub(super) fn expire_session(l: &mut Ledger, id: &str) -> Answer {
    let mut session = find(l, "checkout.session", id, "id")?;
    if session["status"] != "open" {
        let message = format!(
            "Only Checkout Sessions with a status in [\"open\"] can be expired. This session has a status of \"{}\".",
            session["status"].as_str().unwrap_or_default()
        );
        return Err(Failure::new(
            400,
            "invalid_request_error",
            None,
            None,
            &message,
        ));
    }
    session["status"] = json!("expired");
    session["url"] = Value::Null;
    l.put(session.clone());
    let at = l.now();
    let event = l.event("checkout.session.expired", &session, None, API_VERSION, at);
    l.outbox.push(event);
    Ok(session)
}

pub(super) fn create_portal_session(l: &mut Ledger, form: &Form) -> Answer {
    let customer = form.required("customer")?;
    find(l, "customer", &customer, "customer")?;
    let n = l.number("bps");
    let session = json!({
        "id": format!("bps_test_{n}"), "object": "billing_portal.session",
        "configuration": form.text("configuration").unwrap_or_else(|| "bpc_test_default".to_owned()),
        "created": l.now(), "customer": customer, "flow": null, "livemode": false,
        "locale": form.text("locale"), "on_behalf_of": null, "return_url": form.text("return_url"),
        "url": format!("https://billing.stripe.test/p/session/{n}"),
    });
    l.count("billing_portal.session");
    l.put(session.clone());
    Ok(session)
}

pub(super) fn create_webhook_endpoint(l: &mut Ledger, form: &Form) -> Answer {
    let url = form.required("url")?;
    let events = form.list("enabled_events");
    if events.is_empty() {
        return Err(Failure::parameter_missing("enabled_events"));
    }
    let n = l.number("we");
    let mut endpoint = json!({
        "id": format!("we_test_{n}"), "object": "webhook_endpoint",
        "api_version": form.text("api_version"), "application": null, "created": l.now(),
        "description": form.text("description"), "enabled_events": events, "livemode": false,
        "metadata": {}, "secret": format!("whsec_test_{n}_double"), "status": "enabled", "url": url,
    });
    merge_metadata(&mut endpoint, form);
    l.count("webhook_endpoint");
    l.put(endpoint.clone());
    Ok(endpoint)
}

fn without_secret(mut endpoint: Value) -> Value {
    if let Some(map) = endpoint.as_object_mut() {
        map.remove("secret");
    }
    endpoint
}

pub(super) fn update_webhook_endpoint(l: &mut Ledger, id: &str, form: &Form) -> Answer {
    let mut endpoint = find(l, "webhook_endpoint", id, "id")?;
    if let Some(url) = form.text("url") {
        endpoint["url"] = json!(url);
    }
    if form.has("enabled_events") {
        endpoint["enabled_events"] = json!(form.list("enabled_events"));
    }
    if let Some(disabled) = form.flag("disabled")? {
        endpoint["status"] = json!(if disabled { "disabled" } else { "enabled" });
    }
    if let Some(description) = form.get("description") {
        endpoint["description"] = if description.is_empty() {
            Value::Null
        } else {
            json!(description)
        };
    }
    merge_metadata(&mut endpoint, form);
    l.put(endpoint.clone());
    Ok(without_secret(endpoint))
}

pub(super) fn list_webhook_endpoints(l: &mut Ledger, form: &Form) -> Answer {
    let endpoints = l
        .all("webhook_endpoint")
        .into_iter()
        .map(without_secret)
        .collect();
    page(endpoints, form, "/v1/webhook_endpoints")
}
