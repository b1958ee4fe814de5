//! Which payment paid an invoice, as Stripe really tells it: never inside
//! the invoice (its `payments` are includable), only through
//! `invoice_payment.paid` or `GET /v1/invoice_payments`. Refunds and
//! disputes find their invoice either way.

use crate::common::stripe_double::StripeDouble;
use crate::common::TestApp;
use crate::common::{strip_tags, TestDb};
use crate::stripe::{
    deliver_all, env, eventually, now, sign_in_again, stripe_app, stripe_app_with_clock,
    stripe_events_applied, stripe_jobs,
};

on_both_databases!(
    a_paid_invoice_learns_its_payment_when_its_event_is_lost,
    a_refund_is_one_credit_note_net_of_its_vat,
    a_lost_dispute_stays_with_finance,
    a_bank_debit_keeps_its_host_until_it_settles,
    a_refund_whose_events_were_lost_is_booked_by_reconciliation,
    a_dispute_whose_events_were_lost_is_found_by_reconciliation,
);

/// A paid order's first invoice at Stripe, once its server runs and its
/// events are applied.
async fn paid_invoice(app: &TestApp, double: &StripeDouble) -> (reqwest::Client, String) {
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    deliver_all(app, &double.pay("cs_test_1", now()), now()).await;
    eventually(app, &owner, "/en/servers", "data-server=").await;
    stripe_events_applied(app).await;
    let invoice = double.invoice_for_subscription("sub_test_1")[0]["id"]
        .as_str()
        .expect("the first invoice")
        .to_owned();
    (owner, invoice)
}

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

/// A dispute Stripe closes against us stays on finance's list, marked
/// lost (the bank took the money back); the outcome is kept.
async fn a_lost_dispute_stays_with_finance(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let (_, invoice) = paid_invoice(&app, &double).await;
    deliver_all(&app, &double.dispute(&invoice, now()), now()).await;
    let staff = app.staff("finance@host.example").await;
    eventually(&app, &staff, "/en/staff/finance", "data-disputed=").await;
    deliver_all(&app, &double.close_dispute(&invoice, false, now()), now()).await;
    let finance = eventually(&app, &staff, "/en/staff/finance", "data-lost=\"true\"").await;
    assert!(
        strip_tags(&finance).contains("Lost: the bank took the payment back"),
        "{}",
        strip_tags(&finance)
    );
    let zh = app.get_as(&staff, "/zh/staff/finance").await.body;
    assert!(strip_tags(&zh).contains("败诉"), "{}", strip_tags(&zh));
    app.finish().await;
}

/// A bank debit settles days after its Checkout completed: until then
/// the host stays the customer's (the storefront counts it taken), not
/// only for the 35 minutes a card payment gets.
async fn a_bank_debit_keeps_its_host_until_it_settles(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    assert_eq!(
        band(&app).await,
        "2",
        "the demo's two G-L40S×2 in Amsterdam"
    );
    let placed = app.place_order(&owner, "g-l40s-x2", "ams", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    let events = double.pay_async("cs_test_1", start, true);
    let (completed, settled) = events.split_at(1);
    deliver_all(&app, &completed.to_vec(), start).await;
    stripe_events_applied(&app).await;
    assert_eq!(band(&app).await, "1");
    // Three days later the debit is still on its way.
    clock.advance(3 * 86_400);
    double.set_now(clock.now());
    assert_eq!(band(&app).await, "1", "still the customer's");
    deliver_all(&app, &settled.to_vec(), clock.now()).await;
    sign_in_again(&app, &owner, "owner@a.example").await;
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    let (_, server) = app.newest_order_server(&owner).await;
    app.wait_for_server(&owner, &server).await;
    assert_eq!(double.created("refund"), 0);
    app.finish().await;
}

/// The stock band of G-L40S×2 in Amsterdam, as the public API says.
async fn band(app: &TestApp) -> String {
    let page = app.get("/api/v1/stock?plan=g-l40s-x2&site=ams").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let json: serde_json::Value = serde_json::from_str(&page.body).expect("stock JSON");
    json["data"][0]["band"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A refund made in the Dashboard whose events never arrived: the next
/// reconciliation finds it and books it, once.
async fn a_refund_whose_events_were_lost_is_booked_by_reconciliation(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let (owner, invoice) = paid_invoice(&app, &double).await;
    // Made a while before reconciliation finds it.
    let made = now() - 120;
    let lost = double.refund_at_stripe(&invoice, 5_000, made);
    assert_eq!(
        lost.len(),
        2,
        "charge.refunded and refund.created, both lost"
    );
    for _ in 0..2 {
        let (ok, out) = app.ops_env(&["stripe", "reconcile"], &env(&double));
        assert!(ok, "{out}");
    }
    let billing = eventually(&app, &owner, "/en/billing", "CN-").await;
    let text = strip_tags(&billing);
    assert!(text.contains("€42.02"), "{text}");
    assert!(!text.contains("CN-2026-000002"), "booked once: {text}");
    // Paid out when Stripe made the refund, not when we heard of it.
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    let paid_out: Option<i64> = sqlx::query_scalar(
        "select paid_out_at from credit_notes where stripe_refund_id is not null",
    )
    .fetch_one(&db.pool)
    .await
    .expect("the refund's credit note");
    assert_eq!(paid_out, Some(made));
    app.finish().await;
}

/// `charge.dispute.created` and `…closed` never arrive: reconciliation
/// lists the paid payment's disputes, so finance sees the dispute open,
/// then lost; a pass that finds nothing new writes nothing more.
async fn a_dispute_whose_events_were_lost_is_found_by_reconciliation(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let (_, invoice) = paid_invoice(&app, &double).await;
    let lost = double.dispute(&invoice, now());
    assert_eq!(lost.len(), 1, "charge.dispute.created, lost");
    let reconcile = || async {
        let (ok, out) = app.ops_env(&["stripe", "reconcile"], &env(&double));
        assert!(ok, "{out}");
    };
    reconcile().await;
    let staff = app.staff("finance@host.example").await;
    eventually(&app, &staff, "/en/staff/finance", "data-disputed=").await;
    reconcile().await;
    let _ = double.close_dispute(&invoice, false, now());
    reconcile().await;
    reconcile().await;
    eventually(&app, &staff, "/en/staff/finance", "data-lost=\"true\"").await;
    assert!(double.requests("/v1/disputes") >= 4);
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    let logged: Vec<String> = sqlx::query_scalar(
        "select action from audit_log where action like 'invoice.dispute%' order by at, id",
    )
    .fetch_all(&db.pool)
    .await
    .expect("the audit log");
    assert_eq!(logged, ["invoice.disputed", "invoice.dispute_closed"]);
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
    app.finish().await;
}
