//! Stripe billing at the HTTP level, against a double of Stripe's API: the
//! catalog sync, Checkout with idempotency (double submit, retry, another
//! replica), and webhooks: valid, tampered, stale, replayed, duplicated and
//! out of order.

mod common;

use backend::billing::stripe::signature::sign;
use common::stripe_double::StripeDouble;
use common::{strip_tags, TestApp, TestDb};
use std::time::Duration;

on_both_databases!(
    checkout_is_created_once_and_paid_webhooks_provision_the_server,
    webhooks_are_verified_and_applied_once_in_any_order,
    reconciliation_repairs_missed_webhooks,
    a_revoke_after_the_date_never_uncancels_at_stripe,
);

async fn reconciliation_repairs_missed_webhooks(db: TestDb) {
    let double = StripeDouble::start().await;
    let url = double.url.clone();
    let app = TestApp::spawn_configured(db, backend::Clock::system(), |c| {
        c.stripe_secret_key = Some(server::config::Redacted("sk_test_double".into()));
        c.stripe_webhook_secret = Some(server::config::Redacted(SECRET.into()));
        c.stripe_api_base = url;
        c.stripe_reconcile_secs = 1;
    })
    .await;
    let env = [
        ("STRIPE_SECRET_KEY", "sk_test_double"),
        ("STRIPE_API_BASE", double.url.as_str()),
    ];
    assert!(app.ops_env(&["stripe", "sync-catalog"], &env).0);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.place_order(&owner, "g-ada", "nyc", &[]).await;
    assert_eq!(
        page.location(),
        "https://checkout.stripe.test/pay/cs_test_1"
    );
    // Paid at Stripe, but no webhook ever arrives.
    double.pay_silently("cs_test_1", now());
    let mut text = String::new();
    for _ in 0..100 {
        let body = app.get_as(&owner, "/en/billing").await.body;
        text = strip_tags(&body);
        if body.contains("data-status=\"paid\"") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(text.contains("STRIPE-1"), "{text}");
    let servers = app.get_as(&owner, "/en/servers").await;
    assert_eq!(
        servers.body.matches("data-server=").count(),
        1,
        "the server was provisioned"
    );
    assert!(app.host_names("nyc", "g-ada", "held").is_empty());
    app.finish().await;
}

const SECRET: &str = "whsec_test_secret";

async fn stripe_app(db: TestDb) -> (TestApp, StripeDouble) {
    stripe_app_with_clock(db, backend::Clock::system()).await
}

async fn stripe_app_with_clock(db: TestDb, clock: backend::Clock) -> (TestApp, StripeDouble) {
    let double = StripeDouble::start().await;
    let url = double.url.clone();
    let app = TestApp::spawn_configured(db, clock, |c| {
        c.stripe_secret_key = Some(server::config::Redacted("sk_test_double".into()));
        c.stripe_webhook_secret = Some(server::config::Redacted(SECRET.into()));
        c.stripe_api_base = url;
    })
    .await;
    let env = [
        ("STRIPE_SECRET_KEY", "sk_test_double"),
        ("STRIPE_API_BASE", double.url.as_str()),
    ];
    let (ok, out) = app.ops_env(&["stripe", "sync-catalog"], &env);
    assert!(ok, "{out}");
    assert!(out.contains("plan:g-ada: price_test_"), "{out}");
    // Idempotent: a second run creates nothing.
    let (_, again) = app.ops_env(&["stripe", "sync-catalog"], &env);
    assert!(again.contains("plan:g-ada: unchanged"), "{again}");
    assert_eq!(double.created("price"), 9, "3 plans + 2 add-ons × 3 plans");
    (app, double)
}

async fn deliver(app: &TestApp, body: &str, timestamp: i64, secret: &str) -> (u16, String) {
    let signature = format!(
        "t={timestamp},v1={}",
        sign(secret, timestamp, body.as_bytes()).expect("signing")
    );
    let response = app
        .client
        .post(format!("{}/stripe/webhook", app.base))
        .header("stripe-signature", signature)
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .expect("delivering a webhook");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

async fn checkout_is_created_once_and_paid_webhooks_provision_the_server(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let (csrf, key) = app.order_form(&owner, "g-ada", "ams").await;
    let first = app
        .post_order(
            &owner,
            "g-ada",
            "ams",
            &key,
            &csrf,
            &[("addons", "os-hardening")],
        )
        .await;
    assert_eq!(first.status, 303, "{}", first.body);
    assert_eq!(
        first.location(),
        "https://checkout.stripe.test/pay/cs_test_1"
    );
    // The host is held while the customer pays.
    assert_eq!(app.host_names("ams", "g-ada", "held").len(), 1);
    // Double submit, and "pay" again from the order page: the same session.
    let again = app
        .post_order(
            &owner,
            "g-ada",
            "ams",
            &key,
            &csrf,
            &[("addons", "os-hardening")],
        )
        .await;
    assert_eq!(again.location(), first.location());
    let orders = app.get_as(&owner, "/en/orders").await.body;
    let order = orders
        .split("data-order=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let pay = app
        .post_as(
            &owner,
            &format!("/en/orders/{order}"),
            &format!("/en/orders/{order}/pay"),
            &[],
            &[],
        )
        .await;
    assert_eq!(pay.location(), first.location());
    // A restarted (or another) replica asks again: still the same session.
    let replica = app
        .replica(backend::Clock::system(), |c| {
            c.stripe_secret_key = Some(server::config::Redacted("sk_test_double".into()));
            c.stripe_api_base = double.url.clone();
        })
        .await;
    let page = owner
        .get(format!("{replica}/en/orders/{order}"))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .unwrap_or_default();
    let csrf = common::csrf_token(&page);
    let pay = owner
        .post(format!("{replica}/en/orders/{order}/pay"))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("paying again");
    assert_eq!(pay.headers()["location"], first.location());
    assert_eq!(
        double.created("checkout.session"),
        1,
        "one Checkout Session"
    );
    assert_eq!(double.created("customer"), 1, "one Stripe customer");
    let calls = double.ledger.lock().expect("ledger").calls.clone();
    let (_, session) = calls
        .iter()
        .find(|(p, _)| p == "/v1/checkout/sessions")
        .expect("a session call");
    assert_eq!(session["mode"], "subscription");
    assert_eq!(session["client_reference_id"], order);
    assert!(
        session["line_items[1][price]"].starts_with("price_test_"),
        "the add-on is an item"
    );

    // Stripe reports the payment: the server is provisioned, once.
    for (_, body) in double.paid_session_events("cs_test_1", now()) {
        let (status, _) = deliver(&app, &body, now(), SECRET).await;
        assert_eq!(status, 200);
    }
    let mut page = String::new();
    for _ in 0..100 {
        page = app
            .get_as(&owner, &format!("/en/orders/{order}"))
            .await
            .body;
        if page.contains("href=\"/en/servers/") && strip_tags(&page).contains("Delivered") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        strip_tags(&page).contains("Delivered"),
        "{}",
        strip_tags(&page)
    );
    assert_eq!(app.host_names("ams", "g-ada", "held").len(), 0);
    let billing = app.get_as(&owner, "/en/billing").await;
    let text = strip_tags(&billing.body);
    assert!(
        text.contains("STRIPE-1") && text.contains("€289.19") && text.contains("Paid"),
        "{text}"
    );
    assert!(billing.body.contains("Payment methods (Stripe)"));
    // Finance counts Stripe's revenue by plan and site too.
    let staff = app.staff("finance@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    assert!(
        finance.contains("data-revenue=\"g-ada\"") && finance.contains("data-revenue=\"ams\""),
        "{}",
        strip_tags(&finance)
    );
    let portal = app
        .post_as(&owner, "/en/billing", "/en/billing/portal", &[], &[])
        .await;
    assert!(
        portal
            .location()
            .starts_with("https://billing.stripe.test/p/session/"),
        "{}",
        portal.location()
    );

    // The next month's payment fails: the server goes past due and the
    // owner is told; the grace period then runs as with offline invoices.
    let failed = serde_json::json!({
        "id": "evt_failed_1", "object": "event", "type": "invoice.payment_failed", "created": now(),
        "data": {"object": {
            "id": "in_test_failed", "object": "invoice", "number": "STRIPE-2", "status": "open",
            "customer": "cus_test_1", "subscription": "sub_test_1", "subtotal": 23900, "tax": 5019,
            "total": 28919, "amount_due": 28919, "currency": "eur", "created": now(),
            "period_start": now(), "period_end": now() + 30 * 86_400,
            "lines": {"data": [{"description": "G-ADA × 1", "amount": 23900, "period": {"start": now(), "end": now() + 30 * 86_400}}]}
        }}
    });
    assert_eq!(
        deliver(&app, &failed.to_string(), now(), SECRET).await.0,
        200
    );
    let server = page
        .split("href=\"/en/servers/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let mut events = String::new();
    for _ in 0..100 {
        events = app
            .get_as(&owner, &format!("/en/servers/{server}"))
            .await
            .body;
        if events.contains("data-event=\"billing.past_due\"") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        events.contains("data-event=\"billing.past_due\""),
        "{}",
        strip_tags(&events)
    );
    assert!(app.last_mail("owner@a.example").contains("Payment overdue"));

    // Cancelling at the end of the current period tells Stripe; revoking
    // takes it back.
    let base = format!("/en/servers/{server}");
    // Ordered with the default name of `post_order`.
    app.cancel_at_term_end(&owner, &server, "box-1").await;
    let revoked = app
        .post_as(&owner, &base, &format!("{base}/revoke"), &[], &[])
        .await;
    assert_eq!(revoked.location(), format!("{base}?done=revoke"));
    let calls = double.ledger.lock().expect("ledger").calls.clone();
    let updates: Vec<_> = calls
        .iter()
        .filter(|(p, _)| p == "/v1/subscriptions")
        .map(|(_, f)| f.clone())
        .collect();
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert_eq!(updates[0]["cancel_at_period_end"], "true");
    assert_eq!(updates[1]["cancel_at_period_end"], "false");
    app.finish().await;
}

async fn webhooks_are_verified_and_applied_once_in_any_order(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let first = app.place_order(&owner, "g-ada", "fra", &[]).await;
    assert_eq!(
        first.location(),
        "https://checkout.stripe.test/pay/cs_test_1"
    );
    let events = double.paid_session_events("cs_test_1", now());

    // Tampered, signed with another secret, stale, or unsigned: refused.
    let (_, paid) = &events[3];
    let tampered = paid.replace("28919", "1");
    let signature = format!(
        "t={},v1={}",
        now(),
        sign(SECRET, now(), paid.as_bytes()).expect("signing")
    );
    let response = app
        .client
        .post(format!("{}/stripe/webhook", app.base))
        .header("stripe-signature", signature)
        .body(tampered)
        .send()
        .await
        .expect("posting");
    assert_eq!(response.status().as_u16(), 400);
    assert_eq!(deliver(&app, paid, now(), "whsec_wrong").await.0, 400);
    assert_eq!(deliver(&app, paid, now() - 301, SECRET).await.0, 400);
    let unsigned = app
        .client
        .post(format!("{}/stripe/webhook", app.base))
        .body(paid.clone())
        .send()
        .await
        .expect("posting");
    assert_eq!(unsigned.status().as_u16(), 400);

    // Out of order: the invoice is paid before it is finalized, before the
    // checkout completes; then everything arrives again (Stripe retries).
    for i in [3, 2, 1, 0] {
        assert_eq!(
            deliver(&app, &events[i].1, now(), SECRET).await,
            (200, "Queued".to_owned())
        );
    }
    for (_, body) in &events {
        assert_eq!(
            deliver(&app, body, now(), SECRET).await,
            (200, "Duplicate".to_owned())
        );
    }
    let mut text = String::new();
    for _ in 0..100 {
        let body = app.get_as(&owner, "/en/billing").await.body;
        text = strip_tags(&body);
        if body.contains("data-status=\"paid\"") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        text.contains("STRIPE-1") && text.contains("Paid"),
        "paid stays paid: {text}"
    );
    assert_eq!(text.matches("STRIPE-1").count(), 1, "one invoice");
    // The checkout completion may be applied a moment after the invoice.
    let mut count = 0;
    for _ in 0..100 {
        count = app
            .get_as(&owner, "/en/servers")
            .await
            .body
            .matches("data-server=")
            .count();
        if count > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let servers = app.get_as(&owner, "/en/servers").await;
    assert_eq!(
        (count, servers.body.matches("data-server=").count()),
        (1, 1),
        "one server"
    );
    app.finish().await;
}

/// A cancellation whose date has passed is being carried out (the server
/// wiped, billing stopped): revoking it then is refused here, and Stripe is
/// never told to bill again. The handler used to un-cancel at Stripe first
/// and only then find out locally.
async fn a_revoke_after_the_date_never_uncancels_at_stripe(db: TestDb) {
    let clock = backend::Clock::manual(now());
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    for (_, body) in double.paid_session_events("cs_test_1", clock.now()) {
        assert_eq!(deliver(&app, &body, clock.now(), SECRET).await.0, 200);
    }
    let (_, server) = app.newest_order_server(&owner).await;
    app.wait_for_server(&owner, &server).await;
    let base = format!("/en/servers/{server}");
    let date = app.cancel_at_term_end(&owner, &server, "box-1").await;

    // The date passes; the customer (signed in again) tries to take it back.
    clock.advance(date - clock.now() + 1);
    let page = app
        .post_as(
            &owner,
            "/en/login",
            "/en/login",
            &[("email", "owner@a.example"), ("password", common::PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/account");
    let revoked = app
        .post_as(&owner, &base, &format!("{base}/revoke"), &[], &[])
        .await;
    assert_eq!(revoked.status, 404, "too late to revoke");
    let calls = double.ledger.lock().expect("ledger").calls.clone();
    let updates: Vec<_> = calls
        .iter()
        .filter(|(p, _)| p == "/v1/subscriptions")
        .map(|(_, f)| f.clone())
        .collect();
    assert_eq!(
        updates.len(),
        1,
        "only the cancellation reached Stripe: {updates:?}"
    );
    app.finish().await;
}
