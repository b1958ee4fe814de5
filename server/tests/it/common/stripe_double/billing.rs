//! Subscriptions and their invoices as Stripe bills them: calendar-month
//! item periods, taxes only from the tax rates given for a line, the
//! customer's balance applied when an invoice is finalized, payments
//! through payment intents with a charge each.

use super::calendar;
use super::catalog_api::list;
use super::http::Failure;
use super::ledger::{joined, Ledger, Line, Plan};
use serde_json::{json, Value};

/// A line's amount and the taxes its tax rates put on it.
pub(super) struct Priced {
    pub amount: i64,
    pub taxes: Vec<Tax>,
}

pub(super) struct Tax {
    pub rate: String,
    pub amount: i64,
    pub inclusive: bool,
    pub taxable: i64,
}

/// Sums over priced lines, as Checkout and invoices show them.
pub(super) struct Totals {
    pub subtotal: i64,
    pub inclusive_tax: i64,
    pub exclusive_tax: i64,
}

impl Totals {
    pub fn of(priced: &[Priced]) -> Totals {
        let taxes = || priced.iter().flat_map(|p| &p.taxes);
        Totals {
            subtotal: priced.iter().map(|p| p.amount).sum(),
            inclusive_tax: taxes().filter(|t| t.inclusive).map(|t| t.amount).sum(),
            exclusive_tax: taxes().filter(|t| !t.inclusive).map(|t| t.amount).sum(),
        }
    }

    pub fn total(&self) -> i64 {
        self.subtotal + self.exclusive_tax
    }
}

/// n / d rounded half away from zero.
fn divide_rounded(n: i128, d: i128) -> i64 {
    let q = (2 * n.abs() + d) / (2 * d);
    i64::try_from(if n < 0 { -q } else { q }).expect("an amount in range")
}

/// The tax a rate puts on an amount in cents: on top of it, or (for an
/// inclusive rate) the part of it that is tax.
pub(super) fn tax_amount(amount: i64, percentage: f64, inclusive: bool) -> i64 {
    // Stripe takes percentages with up to four decimals.
    let rate = (percentage * 10_000.0).round() as i128;
    let amount = i128::from(amount);
    if inclusive {
        divide_rounded(amount * rate, 1_000_000 + rate)
    } else {
        divide_rounded(amount * rate, 1_000_000)
    }
}

pub(super) fn price_line(l: &Ledger, line: &Line) -> Priced {
    let price = l.expect("price", &line.price);
    let quantity = i64::try_from(line.quantity).expect("a quantity in range");
    taxed(
        l,
        line,
        price["unit_amount"].as_i64().unwrap_or(0) * quantity,
    )
}

/// A line for part of its period, as Stripe prorates by time: the amount
/// times `(end - start) / (full_end - start)`, taxed as usual.
fn prorated_line(l: &Ledger, line: &Line, (start, end): (i64, i64), full_end: i64) -> Priced {
    let whole = price_line(l, line).amount;
    let part = divide_rounded(
        i128::from(whole) * i128::from(end - start),
        i128::from((full_end - start).max(1)),
    );
    taxed(l, line, part)
}

fn taxed(l: &Ledger, line: &Line, amount: i64) -> Priced {
    let taxes = line
        .tax_rates
        .iter()
        .map(|id| {
            let rate = l.expect("tax_rate", id);
            let inclusive = rate["inclusive"] == true;
            let tax = tax_amount(
                amount,
                rate["percentage"].as_f64().unwrap_or(0.0),
                inclusive,
            );
            Tax {
                rate: id.clone(),
                amount: tax,
                inclusive,
                taxable: if inclusive { amount - tax } else { amount },
            }
        })
        .collect();
    Priced { amount, taxes }
}

/// A tax as invoices and invoice lines list it (`total_taxes`, `taxes`).
fn tax_json(tax: &Tax) -> Value {
    json!({
        "amount": tax.amount,
        "tax_behavior": if tax.inclusive { "inclusive" } else { "exclusive" },
        "tax_rate_details": {"tax_rate": tax.rate},
        "taxability_reason": "not_available",
        "taxable_amount": tax.taxable,
        "type": "tax_rate_details",
    })
}

/// The legacy plan Stripe still renders beside each subscription item's price.
fn plan_of(price: &Value) -> Value {
    let recurring = &price["recurring"];
    json!({
        "id": price["id"], "object": "plan", "active": price["active"],
        "amount": price["unit_amount"], "amount_decimal": price["unit_amount_decimal"],
        "billing_scheme": "per_unit", "created": price["created"], "currency": price["currency"],
        "interval": recurring["interval"].as_str().unwrap_or("month"),
        "interval_count": recurring["interval_count"].as_u64().unwrap_or(1),
        "livemode": false, "metadata": price["metadata"], "meter": null,
        "nickname": price["nickname"], "product": price["product"], "tiers_mode": null,
        "transform_usage": null, "trial_period_days": null, "usage_type": "licensed",
    })
}

/// A new active subscription for a paid Checkout: one item per line, the
/// first period a calendar month from `at`.
pub(super) fn start_subscription(l: &mut Ledger, customer: &str, plan: &Plan, at: i64) -> Value {
    let id = l.next_id("sub");
    let end = calendar::month_after(at);
    let mut currency = Value::Null;
    let mut items = Vec::new();
    for line in &plan.lines {
        let price = l.expect("price", &line.price);
        currency = price["currency"].clone();
        let rates: Vec<Value> = line
            .tax_rates
            .iter()
            .map(|r| l.expect("tax_rate", r))
            .collect();
        items.push(json!({
            "id": l.next_id("si"), "object": "subscription_item", "billing_thresholds": null,
            "created": at, "current_period_end": end, "current_period_start": at, "discounts": [],
            "metadata": {}, "plan": plan_of(&price), "price": price, "quantity": line.quantity,
            "subscription": id, "tax_rates": rates,
        }));
    }
    joined([
        json!({
            "id": id, "object": "subscription", "application": null, "application_fee_percent": null,
            "automatic_tax": {"disabled_reason": null, "enabled": false, "liability": null},
            "billing_cycle_anchor": at, "billing_cycle_anchor_config": null,
            "billing_mode": {"flexible": {"proration_discounts": "included"}, "type": "flexible", "updated_at": null},
            "billing_schedules": [], "billing_thresholds": null, "cancel_at": null,
        }),
        json!({
            "cancel_at_period_end": false, "canceled_at": null,
            "cancellation_details": {"comment": null, "feedback": null, "reason": null},
            "collection_method": "charge_automatically", "created": at, "currency": currency,
            "customer": customer, "days_until_due": null, "default_payment_method": null,
            "default_source": null, "default_tax_rates": [], "description": null, "discounts": [],
        }),
        json!({
            "ended_at": null, "invoice_settings": {"account_tax_ids": null, "issuer": {"type": "self"}},
            "items": list(items, &format!("/v1/subscription_items?subscription={id}")),
            "latest_invoice": null, "livemode": false, "metadata": plan.subscription_metadata,
            "next_pending_invoice_item_invoice": null, "on_behalf_of": null, "pause_collection": null,
        }),
        json!({
            "pending_invoice_item_interval": null, "pending_setup_intent": null, "pending_update": null,
            "schedule": null, "start_date": at, "status": "active", "test_clock": null,
            "transfer_data": null, "trial_end": null, "trial_start": null,
        }),
    ])
}

/// Each subscription item as a billable line, with its id and period.
fn items_of(subscription: &Value) -> Vec<(String, Line, (i64, i64))> {
    let items = subscription["items"]["data"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    items
        .iter()
        .map(|item| {
            let line = Line {
                price: item["price"]["id"].as_str().unwrap_or_default().to_owned(),
                quantity: item["quantity"].as_u64().unwrap_or(1),
                tax_rates: item["tax_rates"]
                    .as_array()
                    .map(|rates| {
                        rates
                            .iter()
                            .filter_map(|r| r["id"].as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            let period = (
                item["current_period_start"].as_i64().unwrap_or(0),
                item["current_period_end"].as_i64().unwrap_or(0),
            );
            (
                item["id"].as_str().unwrap_or_default().to_owned(),
                line,
                period,
            )
        })
        .collect()
}

/// Applies the customer's balance to an invoice total, as Stripe does on
/// finalization: a credit (negative balance) lowers the amount due, a
/// debit raises it. Answers (starting balance, amount due, ending balance).
fn apply_balance(
    l: &mut Ledger,
    customer_id: &str,
    invoice: &str,
    total: i64,
    at: i64,
) -> (i64, i64, i64) {
    let mut customer = l.expect("customer", customer_id);
    let starting = customer["balance"].as_i64().unwrap_or(0);
    let applied = if starting < 0 {
        starting.max(-total)
    } else {
        starting
    };
    let ending = starting - applied;
    if applied != 0 {
        let transaction = json!({
            "id": l.next_id("cbtxn"), "object": "customer_balance_transaction", "amount": -applied,
            "checkout_session": null, "created": at, "credit_note": null,
            "currency": customer["currency"], "customer": customer_id, "description": null,
            "ending_balance": ending, "invoice": invoice, "livemode": false, "metadata": {},
            "type": "applied_to_invoice",
        });
        l.put(transaction);
        customer["balance"] = json!(ending);
        l.put(customer);
    }
    (starting, total + applied, ending)
}

/// A finalized ("open") invoice for the periods the subscription's items
/// are in. `period` is the invoice's own period: the instant of creation
/// for a first invoice, the period just ended for a renewal.
pub(super) fn open_invoice(
    l: &mut Ledger,
    subscription: &Value,
    reason: &str,
    period: (i64, i64),
    at: i64,
) -> Value {
    let n = l.number("in");
    let id = format!("in_test_{n}");
    let sub_id = subscription["id"].as_str().unwrap_or_default();
    let customer_id = subscription["customer"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let currency = subscription["currency"].clone();
    let mut lines = Vec::new();
    let mut priced_lines = Vec::new();
    let anchor = subscription["billing_cycle_anchor"].as_i64();
    for (item, line, (start, end)) in items_of(subscription) {
        // A period cut short by `cancel_at` is a prorated stub.
        let full_end = anchor.map_or(end, |anchor| calendar::period_end(anchor, start));
        let proration = end < full_end;
        let priced = if proration {
            prorated_line(l, &line, (start, end), full_end)
        } else {
            price_line(l, &line)
        };
        let price = l.expect("price", &line.price);
        let product = l
            .get(price["product"].as_str().unwrap_or_default())
            .cloned()
            .unwrap_or(Value::Null);
        let name = product["name"].as_str().unwrap_or("Service");
        lines.push(json!({
            "id": l.next_id("il"), "object": "line_item", "amount": priced.amount,
            "currency": currency, "description": format!("{} × {name}", line.quantity),
            "discount_amounts": [], "discountable": true, "discounts": [], "invoice": id,
            "livemode": false, "metadata": {},
            "parent": {
                "invoice_item_details": null, "type": "subscription_item_details",
                "subscription_item_details": {"invoice_item": null, "proration": proration, "proration_details": {"credited_items": null}, "subscription": sub_id, "subscription_item": item},
            },
            "period": {"end": end, "start": start}, "pretax_credit_amounts": [],
            "pricing": {"price_details": {"price": line.price, "product": price["product"]}, "type": "price_details", "unit_amount_decimal": price["unit_amount_decimal"]},
            "quantity": line.quantity, "subtotal": priced.amount,
            "taxes": priced.taxes.iter().map(tax_json).collect::<Vec<_>>(),
        }));
        priced_lines.push(priced);
    }
    let totals = Totals::of(&priced_lines);
    let mut total_taxes: Vec<Tax> = Vec::new();
    for tax in priced_lines.iter().flat_map(|p| &p.taxes) {
        match total_taxes.iter_mut().find(|t| t.rate == tax.rate) {
            Some(sum) => {
                sum.amount += tax.amount;
                sum.taxable += tax.taxable;
            }
            None => total_taxes.push(Tax {
                rate: tax.rate.clone(),
                ..*tax
            }),
        }
    }
    let (starting, due, ending) = apply_balance(l, &customer_id, &id, totals.total(), at);
    let customer = l.expect("customer", &customer_id);
    let tax_ids: Vec<Value> = tax_ids_of(l, &customer_id)
        .iter()
        .map(|t| json!({"type": t["type"], "value": t["value"]}))
        .collect();
    let invoice = joined([
        json!({
            "id": id, "object": "invoice", "account_country": "DE", "account_name": "GPU Storefront (test)",
            "account_tax_ids": null, "amount_due": due, "amount_overpaid": 0, "amount_paid": 0,
            "amount_remaining": due, "amount_shipping": 0, "application": null, "attempt_count": 0,
            "attempted": false, "auto_advance": true,
        }),
        json!({
            "automatic_tax": {"disabled_reason": null, "enabled": false, "liability": null, "provider": null, "status": null},
            "automatically_finalizes_at": null, "billing_reason": reason,
            "collection_method": "charge_automatically", "created": at,
            "currency": currency, "custom_fields": null, "customer": customer_id,
        }),
        json!({
            "customer_address": customer["address"], "customer_email": customer["email"],
            "customer_name": customer["name"], "customer_phone": customer["phone"],
            "customer_shipping": null, "customer_tax_exempt": customer["tax_exempt"],
            "customer_tax_ids": tax_ids, "default_payment_method": null, "default_source": null,
        }),
        json!({
            "default_tax_rates": [], "description": null, "discounts": [], "due_date": null,
            "effective_at": at, "ending_balance": ending,
            "footer": customer["invoice_settings"]["footer"], "from_invoice": null,
            "hosted_invoice_url": format!("https://invoice.stripe.test/i/{id}"),
            "invoice_pdf": format!("https://invoice.stripe.test/i/{id}/pdf"),
        }),
        json!({
            "issuer": {"type": "self"}, "last_finalization_error": null, "latest_revision": null,
            "lines": list(lines, &format!("/v1/invoices/{id}/lines")), "livemode": false,
            "metadata": {}, "next_payment_attempt": at, "number": format!("STRIPE-{n}"),
            "on_behalf_of": null,
        }),
        json!({
            "parent": {
                "quote_details": null, "type": "subscription_details",
                "subscription_details": {"metadata": subscription["metadata"], "subscription": sub_id},
            },
            "payment_settings": {"default_mandate": null, "payment_method_options": null, "payment_method_types": null},
            "period_end": period.1, "period_start": period.0,
        }),
        json!({
            "post_payment_credit_notes_amount": 0, "pre_payment_credit_notes_amount": 0,
            "receipt_number": null, "rendering": null, "shipping_cost": null, "shipping_details": null,
            "starting_balance": starting, "statement_descriptor": null, "status": "open",
            "status_transitions": {"finalized_at": at, "marked_uncollectible_at": null, "paid_at": null, "voided_at": null},
        }),
        json!({
            "subtotal": totals.subtotal, "subtotal_excluding_tax": totals.subtotal - totals.inclusive_tax,
            "test_clock": null, "total": totals.total(),
            "total_discount_amounts": [], "total_excluding_tax": totals.subtotal - totals.inclusive_tax,
            "total_pretax_credit_amounts": [],
        }),
        json!({
            "total_taxes": total_taxes.iter().map(tax_json).collect::<Vec<_>>(),
            "webhooks_delivered_at": at,
        }),
    ]);
    l.put(invoice.clone());
    invoice
}

/// The invoice as Stripe keeps it before finalization: a draft has no
/// number, no hosted page, no PDF and no finalization time yet.
pub(super) fn as_draft(mut invoice: Value) -> Value {
    invoice["status"] = json!("draft");
    invoice["number"] = Value::Null;
    invoice["hosted_invoice_url"] = Value::Null;
    invoice["invoice_pdf"] = Value::Null;
    invoice["effective_at"] = Value::Null;
    invoice["status_transitions"]["finalized_at"] = Value::Null;
    invoice["automatically_finalizes_at"] = invoice["created"]
        .as_i64()
        .map(|t| json!(t + 3_600))
        .unwrap_or(Value::Null);
    invoice
}

/// A draft finalized at `at`: numbered (its number follows its id), with
/// its hosted page and PDF.
pub(super) fn finalized(mut invoice: Value, at: i64) -> Value {
    let id = invoice["id"].as_str().unwrap_or_default().to_owned();
    let n = id.trim_start_matches("in_test_");
    invoice["status"] = json!("open");
    invoice["number"] = json!(format!("STRIPE-{n}"));
    invoice["hosted_invoice_url"] = json!(format!("https://invoice.stripe.test/i/{id}"));
    invoice["invoice_pdf"] = json!(format!("https://invoice.stripe.test/i/{id}/pdf"));
    invoice["effective_at"] = json!(at);
    invoice["status_transitions"]["finalized_at"] = json!(at);
    invoice["automatically_finalizes_at"] = Value::Null;
    invoice
}

/// Stripe tries to collect an open (or uncollectible) invoice. A success
/// pays it through a payment intent with a charge; a failure leaves the
/// attempt open for a retry in three days, as Smart Retries would.
pub(super) fn collect(l: &mut Ledger, invoice_id: &str, at: i64, succeeds: bool) -> Value {
    let mut invoice = l.expect("invoice", invoice_id);
    let due = invoice["amount_due"].as_i64().unwrap_or(0);
    if due == 0 || succeeds {
        invoice["status"] = json!("paid");
        invoice["amount_paid"] = json!(due);
        invoice["amount_remaining"] = json!(0);
        invoice["status_transitions"]["paid_at"] = json!(at);
        invoice["next_payment_attempt"] = Value::Null;
    } else {
        invoice["next_payment_attempt"] = json!(at + 3 * 86_400);
    }
    if due == 0 {
        // Nothing to charge: Stripe marks it paid without a payment.
        l.put(invoice.clone());
        return invoice;
    }
    invoice["attempted"] = json!(true);
    invoice["attempt_count"] = json!(invoice["attempt_count"].as_u64().unwrap_or(0) + 1);
    let open = payments_of(l, invoice_id)
        .into_iter()
        .find(|p| p["status"] == "open");
    let mut payment = match open {
        Some(payment) => payment,
        None => json!({
            "id": l.next_id("inpay"), "object": "invoice_payment", "amount_paid": null,
            "amount_requested": due, "created": at, "currency": invoice["currency"],
            "invoice": invoice_id, "is_default": true, "livemode": false,
            "payment": {"type": "payment_intent", "payment_intent": l.next_id("pi")},
            "status": "open", "status_transitions": {"canceled_at": null, "paid_at": null},
        }),
    };
    if succeeds {
        payment["status"] = json!("paid");
        payment["amount_paid"] = json!(due);
        payment["status_transitions"]["paid_at"] = json!(at);
        let intent = payment["payment"]["payment_intent"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let charge = charge(l, &invoice, &intent, at);
        l.put(charge);
    }
    l.put(payment);
    l.put(invoice.clone());
    invoice
}

/// An invoice's payments, newest first: kept beside the invoice, which
/// Stripe renders without them (`payments` is includable).
pub(super) fn payments_of(l: &Ledger, invoice_id: &str) -> Vec<Value> {
    l.all("invoice_payment")
        .into_iter()
        .filter(|p| p["invoice"] == invoice_id)
        .collect()
}

/// A customer's tax ids (`tax_ids` is includable on a customer).
pub(super) fn tax_ids_of(l: &Ledger, customer_id: &str) -> Vec<Value> {
    let mut ids: Vec<Value> = l
        .all("tax_id")
        .into_iter()
        .filter(|t| t["customer"] == customer_id)
        .collect();
    ids.reverse();
    ids
}

/// The paid payment of an invoice, as `invoice_payment.paid` carries it.
pub(super) fn paid_payment(l: &Ledger, invoice_id: &str) -> Option<Value> {
    payments_of(l, invoice_id)
        .into_iter()
        .find(|p| p["status"] == "paid")
}

fn charge(l: &mut Ledger, invoice: &Value, intent: &str, at: i64) -> Value {
    let id = l.next_id("ch");
    let amount = invoice["amount_due"].clone();
    let description = if invoice["billing_reason"] == "subscription_create" {
        "Subscription creation"
    } else {
        "Subscription update"
    };
    joined([
        json!({
            "id": id, "object": "charge", "amount": amount, "amount_captured": amount,
            "amount_refunded": 0, "application": null, "application_fee": null,
            "application_fee_amount": null, "balance_transaction": null,
            "billing_details": {"address": invoice["customer_address"], "email": invoice["customer_email"], "name": invoice["customer_name"], "phone": null, "tax_id": null},
        }),
        json!({
            "calculated_statement_descriptor": "GPU STOREFRONT", "captured": true, "created": at,
            "currency": invoice["currency"], "customer": invoice["customer"], "description": description,
            "disputed": false, "failure_balance_transaction": null, "failure_code": null,
            "failure_message": null, "fraud_details": null, "livemode": false, "metadata": {},
        }),
        json!({
            "on_behalf_of": null, "outcome": null, "paid": true, "payment_intent": intent,
            "payment_method": "pm_test_card", "receipt_email": null, "receipt_number": null,
            "receipt_url": format!("https://pay.stripe.test/receipts/{id}"), "refunded": false,
            "refunds": list(Vec::new(), &format!("/v1/charges/{id}/refunds")), "review": null,
        }),
        json!({
            "shipping": null, "source_transfer": null, "statement_descriptor": null,
            "statement_descriptor_suffix": null, "status": "succeeded", "transfer_data": null,
            "transfer_group": null,
        }),
    ])
}

/// The charge of an invoice's paid payment.
pub(super) fn charge_of_invoice(l: &Ledger, invoice_id: &str) -> Value {
    let paid = paid_payment(l, invoice_id)
        .unwrap_or_else(|| panic!("invoice {invoice_id} has no paid payment"));
    let intent = &paid["payment"]["payment_intent"];
    l.all("charge")
        .into_iter()
        .find(|c| &c["payment_intent"] == intent)
        .expect("a paid payment has a charge")
}

/// Refunds part or all of a charge; answers (refund, charge after it).
pub(super) fn refund(
    l: &mut Ledger,
    charge_id: &str,
    amount: Option<i64>,
    reason: Option<String>,
    metadata: Value,
    at: i64,
) -> Result<(Value, Value), Failure> {
    let mut charge = l.expect("charge", charge_id);
    let captured = charge["amount"].as_i64().unwrap_or(0);
    let refunded = charge["amount_refunded"].as_i64().unwrap_or(0);
    if refunded >= captured {
        let message = format!("Charge {charge_id} has already been refunded.");
        return Err(Failure::new(
            400,
            "invalid_request_error",
            Some("charge_already_refunded"),
            None,
            &message,
        ));
    }
    let amount = amount.unwrap_or(captured - refunded);
    if amount <= 0 || amount > captured - refunded {
        let message = format!(
            "Refund amount ({amount}) is greater than unrefunded amount on charge ({}).",
            captured - refunded
        );
        return Err(Failure::invalid("amount", &message));
    }
    let refund = json!({
        "id": l.next_id("re"), "object": "refund", "amount": amount, "balance_transaction": null,
        "charge": charge_id, "created": at, "currency": charge["currency"],
        "destination_details": null, "metadata": metadata, "payment_intent": charge["payment_intent"],
        "reason": reason, "receipt_number": null, "source_transfer_reversal": null,
        "status": "succeeded", "transfer_reversal": null,
    });
    charge["amount_refunded"] = json!(refunded + amount);
    charge["refunded"] = json!(refunded + amount == captured);
    let mut refunds = charge["refunds"]["data"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    refunds.insert(0, refund.clone());
    charge["refunds"]["data"] = json!(refunds);
    l.put(refund.clone());
    l.put(charge.clone());
    Ok((refund, charge))
}
