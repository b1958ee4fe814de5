//! Which payment paid an invoice, as Stripe really tells it: never inside
//! the invoice (its `payments` are includable), only through
//! `invoice_payment.paid` or `GET /v1/invoice_payments`. Refunds and
//! disputes find their invoice either way.

use crate::common::{strip_tags, TestDb};
use crate::stripe::{deliver_all, eventually, now, stripe_app, stripe_events_applied, stripe_jobs};

on_both_databases!(
    a_paid_invoice_learns_its_payment_when_its_event_is_lost,
    a_refund_is_one_credit_note_net_of_its_vat,
);

/// `invoice_payment.paid` never arrives: the paid invoice alone makes us
/// ask Stripe for its payment, so a refund made in the Dashboard still
/// finds its invoice and becomes a credit note.
async fn a_paid_invoice_learns_its_payment_when_its_event_is_lost(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    let events: Vec<(String, String)> = double
        .pay("cs_test_1", now())
        .into_iter()
        .filter(|(_, body)| !body.contains("\"type\":\"invoice_payment.paid\""))
        .collect();
    assert_eq!(events.len(), 4, "the paid invoice's event is kept");
    for (_, body) in &events {
        assert!(!body.contains("\"payments\""), "Stripe never sends them");
    }
    deliver_all(&app, &events, now()).await;
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    let invoice = double.invoice_for_subscription("sub_test_1")[0]["id"]
        .as_str()
        .expect("the first invoice")
        .to_owned();
    deliver_all(&app, &double.refund_at_stripe(&invoice, 5000, now()), now()).await;
    let billing = eventually(&app, &owner, "/en/billing", "CN-").await;
    assert!(
        // €50.00 refunded at 19 % VAT: €42.02 net.
        strip_tags(&billing).contains("€42.02"),
        "{}\n{}",
        strip_tags(&billing),
        stripe_jobs(&app).await
    );
    assert!(double.requests("/v1/invoice_payments") >= 1);
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
    app.finish().await;
}

/// A refund of gross G made in Stripe's Dashboard on an invoice with VAT
/// rate r: one credit note of net G / (1 + r) (the VAT is the rest),
/// already paid out, mailed once; its second event books nothing more.
async fn a_refund_is_one_credit_note_net_of_its_vat(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    deliver_all(&app, &double.pay("cs_test_1", now()), now()).await;
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    let invoice = double.invoice_for_subscription("sub_test_1")[0].clone();
    let (subtotal, total) = (
        invoice["subtotal"].as_i64().expect("a subtotal"),
        invoice["total"].as_i64().expect("a total"),
    );
    assert!(total > subtotal, "the invoice charges VAT: {invoice}");
    let rate_bp = ((total - subtotal) * 10_000 + subtotal / 2) / subtotal;
    let net = (5_000 * 10_000 + (10_000 + rate_bp) / 2) / (10_000 + rate_bp);
    let id = invoice["id"].as_str().expect("an id").to_owned();
    let events = double.refund_at_stripe(&id, 5_000, now());
    deliver_all(&app, &events, now()).await;
    // Stripe may deliver the refund's event again.
    deliver_all(&app, &double.refund_at_stripe(&id, 1_000, now()), now()).await;
    stripe_events_applied(&app).await;
    let billing = eventually(&app, &owner, "/en/billing", "CN-2026-000002").await;
    let text = strip_tags(&billing);
    let euros = |cents: i64| format!("€{}.{:02}", cents / 100, cents % 100);
    assert!(text.contains(&euros(net)), "{} in {text}", euros(net));
    assert!(!text.contains("€50.00"), "the gross is not the net: {text}");
    assert!(!text.contains("CN-2026-000003"), "{text}");
    let mail = app.wait_for_mail("owner@a.example", "CN-2026-000001").await;
    assert!(mail.contains(&euros(net)), "{mail}");
    app.finish().await;
}
