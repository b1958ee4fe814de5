//! Stripe's invoices as customers and finance see them here: a renewal's
//! draft (no number, no PDF, still changing at Stripe) is no invoice yet,
//! and the dates say their time zone.

use crate::common::api::create_token;
use crate::common::{strip_tags, TestDb};
use crate::stripe::{
    deliver_all, env, paid_server, period_end_of, sign_in_again, stripe_app_with_clock,
};

on_both_databases!(
    a_renewals_draft_is_never_shown_as_an_invoice,
    an_invoice_in_another_currency_waits_for_an_operator,
    an_invoices_vat_rate_is_its_tax_lines_not_a_division,
);

/// Reconciliation lists a customer's invoices while a renewal is still a
/// draft at Stripe (Stripe finalizes about an hour after the period
/// begins): the draft is not listed, in the portal or the API, and the
/// status filter does not offer it; once finalized it is the customer's
/// invoice, with Stripe's number.
async fn a_renewals_draft_is_never_shown_as_an_invoice(db: TestDb) {
    let start = crate::stripe::now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", start).await;
    app.wait_for_server(&owner, &server).await;
    let books = create_token(&app, &owner, "books", &["billing:read"]).await;
    let period_end = period_end_of(&double, "sub_test_1");

    clock.advance(period_end - start + 60);
    double.set_now(clock.now());
    deliver_all(
        &app,
        &double.draft_renewal("sub_test_1", clock.now()),
        clock.now(),
    )
    .await;
    let draft = double.invoice_for_subscription("sub_test_1")[0].clone();
    assert_eq!(draft["status"], "draft");
    let (ok, out) = app.ops_env(&["stripe", "reconcile"], &env(&double));
    assert!(ok, "{out}");
    let listed = app.api_get("/api/v1/invoices", &books).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    let invoices = listed.json()["data"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        invoices.len(),
        1,
        "only the first, paid invoice: {invoices:?}"
    );
    assert!(invoices.iter().all(|i| i["status"] != "draft"));
    sign_in_again(&app, &owner, "owner@a.example").await;
    let billing = app.get_as(&owner, "/en/billing").await;
    assert!(
        billing.body.contains("data-status=\"paid\""),
        "the first invoice: {}",
        strip_tags(&billing.body)
    );
    assert!(
        !billing.body.contains("data-status=\"draft\""),
        "{}",
        strip_tags(&billing.body)
    );
    assert!(
        !billing.body.contains("value=\"draft\""),
        "no filter for what is never listed"
    );
    // Which day a date is depends on the time zone: the page says which.
    assert!(strip_tags(&billing.body).contains("Dates are in UTC"));
    let zh = app.get_as(&owner, "/zh/billing").await.body;
    assert!(
        strip_tags(&zh).contains("日期均按 UTC"),
        "{}",
        strip_tags(&zh)
    );
    // Finalized and paid: now it is an invoice, with Stripe's number.
    clock.advance(3_600);
    double.set_now(clock.now());
    let draft_id = draft["id"].as_str().unwrap_or_default().to_owned();
    deliver_all(
        &app,
        &double.finalize(&draft_id, clock.now(), true),
        clock.now(),
    )
    .await;
    let number = double.object(&draft_id).expect("the invoice")["number"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!number.is_empty());
    let mut shown = false;
    for _ in 0..100 {
        let list = app.api_get("/api/v1/invoices", &books).await.json();
        if list["data"][0]["number"] == number.as_str() {
            shown = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(shown, "the finalized renewal is listed as {number}");
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
    app.finish().await;
}

/// Our books are in euros: an invoice in dollars (made in the Dashboard)
/// is not booked as euros but held for an operator, like an event in
/// another API version.
async fn an_invoice_in_another_currency_waits_for_an_operator(db: TestDb) {
    let (app, double) = crate::stripe::stripe_app(db).await;
    let (owner, _, server) = paid_server(
        &app,
        &double,
        "owner@a.example",
        "ams",
        crate::stripe::now(),
    )
    .await;
    app.wait_for_server(&owner, &server).await;
    let mut dollars = double.invoice_for_subscription("sub_test_1")[0].clone();
    dollars["id"] = serde_json::json!("in_test_usd");
    dollars["number"] = serde_json::json!("USD-0001");
    dollars["currency"] = serde_json::json!("usd");
    let (id, body) = double.event_in_version(
        "invoice.finalized",
        dollars,
        crate::common::stripe_double::API_VERSION,
        crate::stripe::now(),
    );
    deliver_all(&app, &vec![(id.clone(), body)], crate::stripe::now()).await;
    let staff = app.staff("finance@host.example").await;
    let finance = crate::stripe::eventually(
        &app,
        &staff,
        "/en/staff/finance",
        &format!("data-held-event=\"{id}\""),
    )
    .await;
    assert!(
        strip_tags(&finance).contains("currency usd"),
        "{}",
        strip_tags(&finance)
    );
    let billing = app.get_as(&owner, "/en/billing").await.body;
    assert!(!billing.contains("USD-0001"), "{}", strip_tags(&billing));
    app.finish().await;
}

/// An invoice with a line that is not taxed (a one-off item added in the
/// Dashboard): its VAT rate is the one its tax lines name, not the VAT
/// divided by the whole subtotal.
async fn an_invoices_vat_rate_is_its_tax_lines_not_a_division(db: TestDb) {
    let (app, double) = crate::stripe::stripe_app(db).await;
    let now = crate::stripe::now();
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", now).await;
    app.wait_for_server(&owner, &server).await;
    crate::stripe::stripe_events_applied(&app).await;
    let mut mixed = double.invoice_for_subscription("sub_test_1")[0].clone();
    let subtotal = mixed["subtotal"].as_i64().expect("a subtotal");
    let vat: i64 = mixed["total_taxes"]
        .as_array()
        .expect("tax lines")
        .iter()
        .filter_map(|t| t["amount"].as_i64())
        .sum();
    assert!(vat > 0, "{mixed}");
    // €100.00 more, untaxed.
    let untaxed = 10_000;
    for key in [
        "subtotal",
        "subtotal_excluding_tax",
        "total",
        "total_excluding_tax",
        "amount_due",
        "amount_paid",
    ] {
        if let Some(cents) = mixed[key].as_i64() {
            mixed[key] = serde_json::json!(cents + untaxed);
        }
    }
    mixed["id"] = serde_json::json!("in_test_mixed");
    mixed["number"] = serde_json::json!("MIXED-0001");
    let (id, body) = double.event_in_version(
        "invoice.finalized",
        mixed,
        crate::common::stripe_double::API_VERSION,
        now,
    );
    deliver_all(&app, &vec![(id, body)], now).await;
    crate::stripe::stripe_events_applied(&app).await;
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    let rates: Vec<(String, i64)> = sqlx::query_as(
        "select stripe_invoice_id, vat_rate_bp from invoices where stripe_invoice_id is not null \
         order by stripe_invoice_id",
    )
    .fetch_all(&db.pool)
    .await
    .expect("the invoices");
    let rate_of = |id: &str| rates.iter().find(|(i, _)| i == id).map(|(_, r)| *r);
    let first = double.invoice_for_subscription("sub_test_1")[0]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let divided = (vat * 10_000 + (subtotal + untaxed) / 2) / (subtotal + untaxed);
    assert_ne!(rate_of(&first), Some(divided), "the division would differ");
    assert_eq!(rate_of("in_test_mixed"), rate_of(&first), "{rates:?}");
    app.finish().await;
}
