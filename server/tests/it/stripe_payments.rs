//! Which payment paid an invoice, as Stripe really tells it: never inside
//! the invoice (its `payments` are includable), only through
//! `invoice_payment.paid` or `GET /v1/invoice_payments`. Refunds and
//! disputes find their invoice either way.

use crate::common::{strip_tags, TestApp, TestDb};
use crate::stripe::{deliver_all, eventually, now, stripe_app, stripe_jobs};

on_both_databases!(a_paid_invoice_learns_its_payment_when_its_event_is_lost,);

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
        strip_tags(&billing).contains("€50.00"),
        "{}\n{}",
        strip_tags(&billing),
        stripe_jobs(&app).await
    );
    assert!(double.requests("/v1/invoice_payments") >= 1);
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
    finish(app).await;
}

async fn finish(app: TestApp) {
    app.finish().await;
}
