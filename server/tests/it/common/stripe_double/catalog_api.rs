//! Customers (with their balance), products, prices and tax rates.

use super::http::{find, merge_metadata, page, Answer, Failure, Form};
use super::ledger::Ledger;
use serde_json::{json, Value};

const ADDRESS: [&str; 6] = ["city", "country", "line1", "line2", "postal_code", "state"];

pub(super) fn list(data: Vec<Value>, url: &str) -> Value {
    json!({"object": "list", "data": data, "has_more": false, "url": url})
}

/// The customer fields both creating and updating take.
fn apply_customer_fields(customer: &mut Value, form: &Form) {
    for field in ["name", "email", "description", "phone"] {
        if let Some(value) = form.get(field) {
            customer[field] = if value.is_empty() {
                Value::Null
            } else {
                json!(value)
            };
        }
    }
    if form.get("address") == Some("") {
        customer["address"] = Value::Null;
    } else if form.has("address") {
        let mut address = customer["address"].clone();
        if address.is_null() {
            address = json!({});
            for part in ADDRESS {
                address[part] = Value::Null;
            }
        }
        for (part, value) in form.hash("address") {
            if ADDRESS.contains(&part.as_str()) {
                address[part] = if value.as_str() == Some("") {
                    Value::Null
                } else {
                    value
                };
            }
        }
        customer["address"] = address;
    }
    if let Some(exempt) = form.get("tax_exempt") {
        customer["tax_exempt"] = json!(exempt);
    }
    if let Some(footer) = form.get("invoice_settings[footer]") {
        customer["invoice_settings"]["footer"] = if footer.is_empty() {
            Value::Null
        } else {
            json!(footer)
        };
    }
    if form.get("preferred_locales") == Some("") {
        customer["preferred_locales"] = json!([]);
    } else if form.has("preferred_locales") {
        customer["preferred_locales"] = json!(form.list("preferred_locales"));
    }
    merge_metadata(customer, form);
}

pub(super) fn create_customer(l: &mut Ledger, form: &Form) -> Answer {
    let customer = new_customer(l, form)?;
    l.count("customer");
    Ok(customer)
}

/// A customer from creation parameters, stored (also how Checkout makes
/// one for a session without a customer).
pub(super) fn new_customer(l: &mut Ledger, form: &Form) -> Answer {
    let mut tax_ids = Vec::new();
    for i in 0.. {
        let Some(kind) = form.text(&format!("tax_id_data[{i}][type]")) else {
            break;
        };
        let value = form.required(&format!("tax_id_data[{i}][value]"))?;
        tax_ids.push((kind, value));
    }
    let now = l.now();
    let n = l.number("cus");
    let id = format!("cus_test_{n}");
    let mut customer = json!({
        "id": id, "object": "customer", "address": null, "balance": 0, "created": now,
        "currency": null, "default_source": null, "delinquent": false, "description": null,
        "discount": null, "email": null, "invoice_prefix": format!("TEST{n:04}"),
        "invoice_settings": {"custom_fields": null, "default_payment_method": null, "footer": null, "rendering_options": null},
        "livemode": false, "metadata": {}, "name": null, "next_invoice_sequence": 1, "phone": null,
        "preferred_locales": [], "shipping": null, "tax_exempt": "none", "test_clock": null,
    });
    apply_customer_fields(&mut customer, form);
    l.put(customer.clone());
    for (kind, value) in tax_ids {
        add_tax_id(l, &id, &kind, &value)?;
    }
    Ok(l.expect("customer", &id))
}

/// A tax id on a customer. Kept beside the customer: `tax_ids` is
/// includable, so Stripe renders a customer without them.
fn add_tax_id(l: &mut Ledger, customer: &str, kind: &str, value: &str) -> Answer {
    if kind != "eu_vat" {
        return Err(Failure::invalid(
            "type",
            "Invalid value for type (the double knows eu_vat).",
        ));
    }
    let country = value.get(..2).unwrap_or_default().replace("EL", "GR");
    let tax_id = json!({
        "id": l.next_id("txi"), "object": "tax_id", "country": country, "created": l.now(),
        "customer": customer, "livemode": false,
        "owner": {"customer": customer, "type": "customer", "customer_account": null},
        "type": kind, "value": value, "customer_account": null,
        "verification": {"status": "pending", "verified_address": null, "verified_name": null},
    });
    l.put(tax_id.clone());
    Ok(tax_id)
}

pub(super) fn list_tax_ids(l: &mut Ledger, customer: &str, form: &Form) -> Answer {
    find(l, "customer", customer, "customer")?;
    let ids = super::billing::tax_ids_of(l, customer);
    page(ids, form, &format!("/v1/customers/{customer}/tax_ids"))
}

pub(super) fn create_tax_id(l: &mut Ledger, customer: &str, form: &Form) -> Answer {
    find(l, "customer", customer, "customer")?;
    let kind = form.required("type")?;
    let value = form.required("value")?;
    add_tax_id(l, customer, &kind, &value)
}

pub(super) fn delete_tax_id(l: &mut Ledger, customer: &str, id: &str) -> Answer {
    match l.get(id) {
        Some(t) if t["object"] == "tax_id" && t["customer"] == customer => {}
        _ => return Err(Failure::missing("tax_id", id, "id")),
    }
    l.forget(id);
    Ok(json!({"id": id, "object": "tax_id", "deleted": true}))
}

pub(super) fn update_customer(l: &mut Ledger, id: &str, form: &Form) -> Answer {
    let mut customer = find(l, "customer", id, "id")?;
    if form.has("tax_id_data") {
        // Tax ids are only taken on creation; later ones go through /tax_ids.
        return Err(Failure::unknown_parameter("tax_id_data"));
    }
    apply_customer_fields(&mut customer, form);
    l.put(customer.clone());
    Ok(customer)
}

pub(super) fn create_balance_transaction(l: &mut Ledger, id: &str, form: &Form) -> Answer {
    let mut customer = find(l, "customer", id, "id")?;
    let amount = form
        .int("amount")?
        .ok_or_else(|| Failure::parameter_missing("amount"))?;
    let currency = form.required("currency")?.to_lowercase();
    if let Some(own) = customer["currency"].as_str() {
        if own != currency {
            let message =
                format!("The currency {currency} does not match the customer's currency {own}.");
            return Err(Failure::invalid("currency", &message));
        }
    }
    let ending = customer["balance"].as_i64().unwrap_or(0) + amount;
    let mut transaction = json!({
        "id": l.next_id("cbtxn"), "object": "customer_balance_transaction", "amount": amount,
        "checkout_session": null, "created": l.now(), "credit_note": null, "currency": currency,
        "customer": id, "description": form.text("description"), "ending_balance": ending,
        "invoice": null, "livemode": false, "metadata": {}, "type": "adjustment",
    });
    merge_metadata(&mut transaction, form);
    customer["balance"] = json!(ending);
    customer["currency"] = json!(currency);
    l.put(customer);
    l.count("customer_balance_transaction");
    l.put(transaction.clone());
    Ok(transaction)
}

pub(super) fn create_product(l: &mut Ledger, form: &Form) -> Answer {
    let name = form.required("name")?;
    let id = match form.text("id") {
        Some(id) if l.get(&id).is_some() => {
            let message = "Product already exists.";
            return Err(Failure::new(
                400,
                "invalid_request_error",
                Some("resource_already_exists"),
                Some("id"),
                message,
            ));
        }
        Some(id) => id,
        None => l.next_id("prod"),
    };
    let now = l.now();
    let mut product = json!({
        "id": id, "object": "product", "active": form.flag("active")?.unwrap_or(true),
        "created": now, "default_price": null, "description": form.text("description"),
        "images": [], "livemode": false, "marketing_features": [], "metadata": {}, "name": name,
        "package_dimensions": null, "shippable": null, "statement_descriptor": null,
        "tax_code": form.text("tax_code"), "type": "service", "unit_label": null,
        "updated": now, "url": null,
    });
    merge_metadata(&mut product, form);
    l.count("product");
    l.put(product.clone());
    Ok(product)
}

pub(super) fn create_price(l: &mut Ledger, form: &Form) -> Answer {
    let currency = form.required("currency")?.to_lowercase();
    let product = form.required("product")?;
    find(l, "product", &product, "product")?;
    let unit_amount = form
        .int("unit_amount")?
        .ok_or_else(|| Failure::parameter_missing("unit_amount"))?;
    let tax_behavior = form
        .text("tax_behavior")
        .unwrap_or_else(|| "unspecified".to_owned());
    if !["exclusive", "inclusive", "unspecified"].contains(&tax_behavior.as_str()) {
        return Err(Failure::invalid("tax_behavior", "Invalid tax_behavior."));
    }
    let recurring = match form.text("recurring[interval]") {
        None => Value::Null,
        Some(interval) if ["day", "week", "month", "year"].contains(&interval.as_str()) => json!({
            "interval": interval,
            "interval_count": form.int("recurring[interval_count]")?.unwrap_or(1),
            "meter": null, "trial_period_days": null, "usage_type": "licensed",
        }),
        Some(_) => {
            return Err(Failure::invalid(
                "recurring[interval]",
                "Invalid recurring interval.",
            ))
        }
    };
    let lookup_key = form.text("lookup_key");
    if let Some(key) = &lookup_key {
        let holder = l
            .all("price")
            .into_iter()
            .find(|p| p["lookup_key"] == key.as_str());
        if let Some(mut holder) = holder {
            if form.flag("transfer_lookup_key")? != Some(true) {
                let message = format!(
                    "A price (`{}`) already uses that lookup key.",
                    holder["id"].as_str().unwrap_or_default()
                );
                return Err(Failure::invalid("lookup_key", &message));
            }
            holder["lookup_key"] = Value::Null;
            l.put(holder);
        }
    }
    let kind = if recurring.is_null() {
        "one_time"
    } else {
        "recurring"
    };
    let mut price = json!({
        "id": l.next_id("price"), "object": "price", "active": form.flag("active")?.unwrap_or(true),
        "billing_scheme": "per_unit", "created": l.now(), "currency": currency,
        "custom_unit_amount": null, "livemode": false, "lookup_key": lookup_key, "metadata": {},
        "nickname": form.text("nickname"), "product": product, "recurring": recurring,
        "tax_behavior": tax_behavior, "tiers_mode": null, "transform_quantity": null, "type": kind,
        "unit_amount": unit_amount, "unit_amount_decimal": unit_amount.to_string(),
    });
    merge_metadata(&mut price, form);
    l.count("price");
    l.put(price.clone());
    Ok(price)
}

pub(super) fn list_prices(l: &mut Ledger, form: &Form) -> Answer {
    let keys = form.list("lookup_keys");
    let active = form.flag("active")?;
    let product = form.text("product");
    let prices = l
        .all("price")
        .into_iter()
        .filter(|p| keys.is_empty() || keys.iter().any(|k| p["lookup_key"] == k.as_str()))
        .filter(|p| active.is_none_or(|a| p["active"] == a))
        .filter(|p| {
            product
                .as_ref()
                .is_none_or(|id| p["product"] == id.as_str())
        })
        .collect();
    page(prices, form, "/v1/prices")
}

pub(super) fn create_tax_rate(l: &mut Ledger, form: &Form) -> Answer {
    let display_name = form.required("display_name")?;
    let percentage: f64 = form
        .required("percentage")?
        .parse()
        .map_err(|_| Failure::invalid("percentage", "Invalid decimal."))?;
    if !(0.0..=100.0).contains(&percentage) {
        return Err(Failure::invalid(
            "percentage",
            "The percentage must be between 0 and 100.",
        ));
    }
    let inclusive = form
        .flag("inclusive")?
        .ok_or_else(|| Failure::parameter_missing("inclusive"))?;
    let mut rate = json!({
        "id": l.next_id("txr"), "object": "tax_rate", "active": form.flag("active")?.unwrap_or(true),
        "country": form.text("country"), "created": l.now(), "description": form.text("description"),
        "display_name": display_name, "effective_percentage": percentage, "flat_amount": null,
        "inclusive": inclusive, "jurisdiction": form.text("jurisdiction"), "jurisdiction_level": null,
        "livemode": false, "metadata": {}, "percentage": percentage, "rate_type": "percentage",
        "state": form.text("state"), "tax_type": form.text("tax_type"),
    });
    merge_metadata(&mut rate, form);
    l.count("tax_rate");
    l.put(rate.clone());
    Ok(rate)
}

pub(super) fn update_tax_rate(l: &mut Ledger, id: &str, form: &Form) -> Answer {
    let mut rate = find(l, "tax_rate", id, "id")?;
    for fixed in ["percentage", "inclusive"] {
        if form.has(fixed) {
            return Err(Failure::unknown_parameter(fixed));
        }
    }
    if let Some(active) = form.flag("active")? {
        rate["active"] = json!(active);
    }
    for field in [
        "display_name",
        "description",
        "jurisdiction",
        "country",
        "state",
        "tax_type",
    ] {
        if let Some(value) = form.get(field) {
            rate[field] = if value.is_empty() {
                Value::Null
            } else {
                json!(value)
            };
        }
    }
    merge_metadata(&mut rate, form);
    l.put(rate.clone());
    Ok(rate)
}

pub(super) fn list_tax_rates(l: &mut Ledger, form: &Form) -> Answer {
    let active = form.flag("active")?;
    let inclusive = form.flag("inclusive")?;
    let rates = l
        .all("tax_rate")
        .into_iter()
        .filter(|r| active.is_none_or(|a| r["active"] == a))
        .filter(|r| inclusive.is_none_or(|i| r["inclusive"] == i))
        .collect();
    page(rates, form, "/v1/tax_rates")
}
