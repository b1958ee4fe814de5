//! Stripe billing at the HTTP level, against a double of Stripe's API that
//! answers in the current API shape: the catalog sync, Checkout with
//! idempotency (double submit, retry, another replica, the other language),
//! webhooks (valid, tampered, stale, replayed, out of order, another API
//! version), and every money path: renewal, failed payment, payment after
//! uncollectible, Stripe-side cancellation, expiry, late payment for a
//! sold-out order, refunds, disputes and transient failures.

use crate::common::stripe_double::{Events, StripeDouble};
use crate::common::{self, strip_tags, TestApp, TestDb};
use std::time::Duration;
use stripe_webhook::Webhook;

on_both_databases!(
    checkout_is_created_once_and_paid_webhooks_provision_the_server,
    webhooks_are_verified_and_applied_once_in_any_order,
    reconciliation_repairs_missed_webhooks,
    a_revoke_after_the_date_never_uncancels_at_stripe,
    renewals_move_the_renewal_date_and_failed_payments_start_dunning,
    an_event_in_another_api_version_is_held_not_applied,
    a_cancellation_made_at_stripe_ends_the_server_here,
    an_expired_checkout_gives_the_host_back_at_once,
    a_late_payment_for_a_sold_out_order_is_refunded_in_full,
    each_decision_is_a_new_intent_and_retries_reuse_it,
    asynchronous_payments_refunds_and_disputes_are_mirrored,
    an_sla_credit_goes_onto_the_next_stripe_invoice,
    an_sla_credit_for_an_ended_server_is_refunded,
    an_sla_credit_for_a_server_ending_with_its_term_is_refunded,
    a_vat_id_that_lapses_is_taxed_from_the_next_stripe_invoice,
);

pub(crate) const SECRET: &str = "whsec_test_secret";

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

pub(crate) async fn stripe_app(db: TestDb) -> (TestApp, StripeDouble) {
    start(db, backend::Clock::system(), false).await
}

/// With a manual clock, which Stripe's side follows too.
pub(crate) async fn stripe_app_with_clock(
    db: TestDb,
    clock: backend::Clock,
) -> (TestApp, StripeDouble) {
    start(db, clock, true).await
}

async fn start(db: TestDb, clock: backend::Clock, manual: bool) -> (TestApp, StripeDouble) {
    let double = StripeDouble::start().await;
    if manual {
        double.set_now(clock.now());
    }
    let url = double.url.clone();
    let app = TestApp::spawn_configured(db, clock, |c| {
        c.stripe_secret_key = Some(server::config::Redacted("sk_test_double".into()));
        c.stripe_webhook_secret = Some(server::config::Redacted(SECRET.into()));
        c.stripe_api_base = url;
    })
    .await;
    let (ok, out) = app.ops_env(&["stripe", "sync"], &env(&double));
    assert!(ok, "{out}");
    assert!(out.contains("plan:g-ada: price_test_"), "{out}");
    assert!(
        out.contains("webhook endpoint we_test_1: created (2026-09-30.endive, 18 events)"),
        "{out}"
    );
    // Idempotent: a second run creates nothing.
    let (_, again) = app.ops_env(&["stripe", "sync"], &env(&double));
    assert!(again.contains("plan:g-ada: unchanged"), "{again}");
    assert!(again.contains("we_test_1: up to date"), "{again}");
    assert_eq!(double.created("price"), 9, "3 plans + 2 add-ons × 3 plans");
    assert_eq!(double.created("webhook_endpoint"), 1);
    (app, double)
}

pub(crate) fn env(double: &StripeDouble) -> [(&'static str, &str); 3] {
    [
        ("STRIPE_SECRET_KEY", "sk_test_double"),
        ("STRIPE_API_BASE", double.url.as_str()),
        ("PUBLIC_BASE_URL", "https://gpu.example.com"),
    ]
}

pub(crate) async fn deliver(
    app: &TestApp,
    body: &str,
    timestamp: i64,
    secret: &str,
) -> (u16, String) {
    let signature = Webhook::generate_test_header(body, secret, Some(timestamp));
    post_webhook(app, body, &signature).await
}

/// Posts `body` to our webhook with `stripe-signature: signature`.
pub(crate) async fn post_webhook(app: &TestApp, body: &str, signature: &str) -> (u16, String) {
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

/// Where a subscription's current period ends at Stripe.
pub(crate) fn period_end_of(double: &StripeDouble, subscription: &str) -> i64 {
    double
        .object(subscription)
        .and_then(|s| s["items"]["data"][0]["current_period_end"].as_i64())
        .expect("the period's end")
}

pub(crate) async fn deliver_all(app: &TestApp, events: &Events, at: i64) {
    for (id, body) in events {
        let (status, text) = deliver(app, body, at, SECRET).await;
        assert_eq!((status, text.as_str()), (200, "Queued"), "{id}: {body}");
    }
}

/// Polls a portal page until it shows `needle`.
pub(crate) async fn eventually(
    app: &TestApp,
    who: &reqwest::Client,
    path: &str,
    needle: &str,
) -> String {
    let mut body = String::new();
    for _ in 0..150 {
        body = app.get_as(who, path).await.body;
        if body.contains(needle) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "{path} never showed {needle:?}: {}\n{}",
        strip_tags(&body),
        stripe_jobs(app).await
    );
}

/// The Stripe jobs and their last errors, for a failing test's message.
pub(crate) async fn stripe_jobs(app: &TestApp) -> String {
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    let jobs: Vec<(String, String, Option<String>)> =
        sqlx::query_as("select kind, state, last_error from jobs where kind like 'stripe%'")
            .fetch_all(&db.pool)
            .await
            .unwrap_or_default();
    format!("jobs: {jobs:#?}")
}

/// The newest order on the orders page: (id, page).
pub(crate) async fn placed_order(app: &TestApp, owner: &reqwest::Client) -> (String, String) {
    let orders = app.get_as(owner, "/en/orders").await.body;
    let order = orders
        .split("data-order=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    (order, orders)
}

/// Signs the owner in again after the manual clock ran past the idle
/// session limit.
pub(crate) async fn sign_in_again(app: &TestApp, owner: &reqwest::Client, email: &str) {
    let page = app
        .post_as(
            owner,
            "/en/login",
            "/en/login",
            &[("email", email), ("password", common::PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/servers");
}

/// An owner (of Org A) whose G-ADA order at `site` went to Stripe's
/// Checkout, not yet paid: (owner, Checkout Session id).
pub(crate) async fn placed_session(
    app: &TestApp,
    email: &str,
    site: &str,
) -> (reqwest::Client, String) {
    let owner = app.member(email, "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", site, &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    let session = placed
        .location()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    (owner, session)
}

/// An owner whose order was paid at Stripe: (owner, order, server).
pub(crate) async fn paid_server(
    app: &TestApp,
    double: &StripeDouble,
    email: &str,
    site: &str,
    at: i64,
) -> (reqwest::Client, String, String) {
    let (owner, session) = placed_session(app, email, site).await;
    deliver_all(app, &double.pay(&session, at), at).await;
    let (order, server) = app.newest_order_server(&owner).await;
    (owner, order, server)
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
    // Double submit, and "pay" again from the order page in either
    // language: the same session.
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
    for lang in ["en", "zh"] {
        let pay = app
            .post_as(
                &owner,
                &format!("/{lang}/orders/{order}"),
                &format!("/{lang}/orders/{order}/pay"),
                &[],
                &[],
            )
            .await;
        assert_eq!(pay.location(), first.location(), "paying from /{lang}");
    }
    // A restarted (or another) replica asks again: still the same session.
    let replica = app
        .replica(backend::Clock::system(), |c| {
            c.stripe_secret_key = Some(server::config::Redacted("sk_test_double".into()));
            c.stripe_webhook_secret = Some(server::config::Redacted(SECRET.into()));
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
    let sessions = double.calls("/v1/checkout/sessions");
    let session = &sessions[0];
    assert_eq!(session["mode"], "subscription");
    assert_eq!(session["client_reference_id"], order);
    assert!(
        session["line_items[1][price]"].starts_with("price_test_"),
        "the add-on is an item"
    );
    // The session ends with the hold, at least 30 minutes out.
    let expires: i64 = session["expires_at"].parse().expect("expires_at");
    assert!(expires >= now() + 29 * 60, "{expires}");
    // Both lines carry the VAT our rules chose (DE, 19 %), as a Tax Rate.
    let rate = &session["line_items[0][tax_rates][0]"];
    assert_eq!(&session["line_items[1][tax_rates][0]"], rate);
    let rate = double.object(rate).expect("the tax rate");
    assert_eq!(rate["percentage"], 19.0);
    assert_eq!(rate["country"], "DE");

    // Stripe reports the payment: the server is provisioned, once.
    let paid = double.pay("cs_test_1", now());
    deliver_all(&app, &paid, now()).await;
    let page = eventually(&app, &owner, &format!("/en/orders/{order}"), "Delivered").await;
    assert!(page.contains("href=\"/en/servers/"));
    assert!(strip_tags(&page).contains("Monthly subscription, paid through Stripe · Germany"));
    assert_eq!(app.host_names("ams", "g-ada", "held").len(), 0);
    // The mirrored invoice has Stripe's VAT, which is ours: 19 % of the
    // plan and the add-on.
    let invoice = double.invoice_for_subscription("sub_test_1")[0].clone();
    let subtotal = invoice["subtotal"].as_i64().expect("subtotal");
    let vat = (subtotal * 19 + 50) / 100;
    assert_eq!(invoice["total"].as_i64(), Some(subtotal + vat));
    let billing = eventually(&app, &owner, "/en/billing", "data-status=\"paid\"").await;
    let text = strip_tags(&billing);
    let total = format!("€{}.{:02}", (subtotal + vat) / 100, (subtotal + vat) % 100);
    assert!(
        text.contains(&total) && text.contains("Paid"),
        "{total}: {text}"
    );
    assert!(billing.contains("Payment methods (Stripe)"));
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
    app.finish().await;
}

async fn renewals_move_the_renewal_date_and_failed_payments_start_dunning(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", start).await;
    app.wait_for_server(&owner, &server).await;
    let page = format!("/en/servers/{server}");
    let first_end = double
        .object("sub_test_1")
        .and_then(|s| s["items"]["data"][0]["current_period_end"].as_i64())
        .expect("the period's end");
    let first_date = domain::time::format_date(first_end);
    eventually(&app, &owner, &page, &first_date).await;

    // A month later Stripe renews and the payment goes through: the
    // server renews on the next calendar month's date.
    clock.advance(first_end - start + 60);
    double.set_now(clock.now());
    deliver_all(
        &app,
        &double.renew("sub_test_1", clock.now(), true),
        clock.now(),
    )
    .await;
    sign_in_again(&app, &owner, "owner@a.example").await;
    let second_end = double
        .object("sub_test_1")
        .and_then(|s| s["items"]["data"][0]["current_period_end"].as_i64())
        .expect("the next period's end");
    assert!(second_end > first_end);
    eventually(&app, &owner, &page, &domain::time::format_date(second_end)).await;

    // The next renewal fails: the server goes past due (dunning found it
    // through the invoice's parent subscription) and the owner is told.
    clock.advance(second_end - clock.now() + 60);
    double.set_now(clock.now());
    deliver_all(
        &app,
        &double.renew("sub_test_1", clock.now(), false),
        clock.now(),
    )
    .await;
    clock.advance(60);
    sign_in_again(&app, &owner, "owner@a.example").await;
    eventually(&app, &owner, &page, "data-event=\"billing.past_due\"").await;
    assert!(app.last_mail("owner@a.example").contains("Payment overdue"));

    // Stripe gives up on it (uncollectible); the grace period runs out and
    // the server is suspended; then the customer pays after all: the
    // invoice is paid here too and the server comes back.
    let failed = double.invoice_for_subscription("sub_test_1")[0]["id"]
        .as_str()
        .expect("the failed invoice")
        .to_owned();
    deliver_all(
        &app,
        &double.mark_uncollectible(&failed, clock.now()),
        clock.now(),
    )
    .await;
    clock.advance(15 * 86_400);
    double.set_now(clock.now());
    sign_in_again(&app, &owner, "owner@a.example").await;
    eventually(&app, &owner, &page, "data-event=\"billing.suspended\"").await;
    deliver_all(&app, &double.pay_invoice(&failed, clock.now()), clock.now()).await;
    eventually(&app, &owner, &page, "data-event=\"billing.restored\"").await;
    let billing = app.get_as(&owner, "/en/billing").await.body;
    assert!(
        !billing.contains("data-status=\"uncollectible\""),
        "paid after uncollectible is paid: {}",
        strip_tags(&billing)
    );
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
    let events = double.pay("cs_test_1", now());

    // Tampered, signed with another secret, stale, or unsigned: refused.
    let (_, paid) = &events[3];
    let tampered = paid.replacen("\"amount_paid\":", "\"amount_paid\":1", 1);
    assert_ne!(&tampered, paid);
    let response = app
        .client
        .post(format!("{}/stripe/webhook", app.base))
        .header(
            "stripe-signature",
            Webhook::generate_test_header(paid, SECRET, Some(now())),
        )
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
    for i in (0..events.len()).rev() {
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
    let billing = eventually(&app, &owner, "/en/billing", "data-status=\"paid\"").await;
    let text = strip_tags(&billing);
    let number = double.invoice_for_subscription("sub_test_1")[0]["number"]
        .as_str()
        .expect("a number")
        .to_owned();
    assert_eq!(
        text.matches(number.as_str()).count(),
        1,
        "one invoice: {text}"
    );
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let servers = app.get_as(&owner, "/en/servers").await;
    assert_eq!(
        servers.body.matches("data-server=").count(),
        1,
        "one server"
    );
    app.finish().await;
}

async fn an_event_in_another_api_version_is_held_not_applied(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "fra", &[]).await;
    assert_eq!(placed.status, 303);
    let paid = double.pay("cs_test_1", now());
    let completed: serde_json::Value =
        serde_json::from_str(&paid[0].1).expect("the completed event");
    // The same payment, rendered in the account's old default version.
    let (id, old) = double.event_in_version(
        "checkout.session.completed",
        completed["data"]["object"].clone(),
        "2023-10-16",
        now(),
    );
    assert_eq!(
        deliver(&app, &old, now(), SECRET).await,
        (200, "Held".to_owned())
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(
        !app.get_as(&owner, "/en/servers")
            .await
            .body
            .contains("data-server="),
        "a held event changes nothing"
    );
    let metrics = app.get("/metrics").await.body;
    assert!(metrics.contains("gpu_stripe_events_held 1"), "{metrics}");
    let staff = app.staff("finance@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    assert!(
        finance.contains(&format!("data-held-event=\"{id}\"")),
        "{}",
        strip_tags(&finance)
    );
    let (ok, held) = app.ops(&["stripe", "held"]);
    assert!(
        ok && held.contains(&id) && held.contains("2023-10-16"),
        "{held}"
    );
    // The operator checked it and applies it after all.
    let (ok, out) = app.ops(&["stripe", "release", &id, "--apply"]);
    assert!(ok, "{out}");
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    let metrics = app.get("/metrics").await.body;
    assert!(metrics.contains("gpu_stripe_events_held 0"), "{metrics}");
    app.finish().await;
}

async fn a_cancellation_made_at_stripe_ends_the_server_here(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", start).await;
    app.wait_for_server(&owner, &server).await;
    let page = format!("/en/servers/{server}");

    // The customer sets it to end in Stripe's Billing Portal: our page
    // shows the end date, and the owner is told.
    let events = double.cancel_at_period_end_at_stripe("sub_test_1", clock.now());
    deliver_all(&app, &events, clock.now()).await;
    let end = double
        .object("sub_test_1")
        .and_then(|s| s["cancel_at"].as_i64())
        .expect("Stripe's end date");
    let body = eventually(&app, &owner, &page, "data-event=\"cancel.scheduled\"").await;
    assert!(strip_tags(&body).contains(&domain::time::format_date(end)));
    app.wait_for_mail("owner@a.example", "ends on").await;

    // Taken back in the portal: Stripe bills on, so the server stays.
    let undo = reqwest::Client::new()
        .post(format!("{}/v1/subscriptions/sub_test_1", double.url))
        .bearer_auth("sk_test_double")
        .form(&[("cancel_at_period_end", "false")])
        .send()
        .await
        .expect("un-cancelling at Stripe");
    assert_eq!(undo.status().as_u16(), 200);
    clock.advance(1);
    deliver_all(&app, &double.take_events(), clock.now()).await;
    eventually(&app, &owner, &page, "data-event=\"cancel.revoked\"").await;
    // Set to end again at Stripe.
    clock.advance(1);
    double.set_now(clock.now());
    deliver_all(
        &app,
        &double.cancel_at_period_end_at_stripe("sub_test_1", clock.now()),
        clock.now(),
    )
    .await;
    for _ in 0..100 {
        let body = app.get_as(&owner, &page).await.body;
        if body.matches("data-event=\"cancel.scheduled\"").count() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Stripe then ends it outright (Dashboard, or dunning gave up): the
    // server ends now, is wiped, and its host returns to stock.
    deliver_all(
        &app,
        &double.cancel_at_stripe("sub_test_1", clock.now()),
        clock.now(),
    )
    .await;
    eventually(&app, &owner, &page, "data-event=\"wiped\"").await;
    let mut free = 0;
    for _ in 0..100 {
        let hosts = app.ops_ok(&["hosts", "list", "--site", "ams", "--plan", "g-ada"]);
        free = hosts.lines().filter(|l| l.contains(" free")).count();
        if !hosts.contains(" wiping") && !hosts.contains(" allocated") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(free > 0, "the host is back in stock");
    app.wait_for_mail("owner@a.example", "has ended").await;
    app.finish().await;
}

async fn an_expired_checkout_gives_the_host_back_at_once(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "fra", &[]).await;
    assert_eq!(placed.status, 303);
    assert_eq!(app.host_names("fra", "g-ada", "held").len(), 1);
    deliver_all(&app, &double.expire("cs_test_1", now()), now()).await;
    let mut held = 1;
    for _ in 0..100 {
        held = app.host_names("fra", "g-ada", "held").len();
        if held == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(held, 0, "the hold ended with the session");
    let orders = app.get_as(&owner, "/en/orders").await.body;
    assert!(
        strip_tags(&orders).contains("Expired"),
        "{}",
        strip_tags(&orders)
    );
    app.finish().await;
}

async fn a_late_payment_for_a_sold_out_order_is_refunded_in_full(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "fra", &[]).await;
    assert_eq!(placed.status, 303);
    // The hold runs out and the site sells out before the payment lands.
    clock.advance(backend::orders::HOLD_SECS + 60);
    double.set_now(clock.now());
    for _ in 0..100 {
        if app.host_names("fra", "g-ada", "held").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for host in app.host_names("fra", "g-ada", "free") {
        app.ops_ok(&["hosts", "set", &host, "maintenance"]);
    }
    deliver_all(&app, &double.pay("cs_test_1", clock.now()), clock.now()).await;
    // The subscription ends at Stripe, the payment goes back in full and
    // the customer hears why. (The refund waits for the paid invoice to be
    // mirrored if its event comes later: time moves on meanwhile.)
    for _ in 0..150 {
        if double.created("refund") == 1 {
            break;
        }
        clock.advance(5);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(double.created("refund"), 1, "{}", stripe_jobs(&app).await);
    let mail = app
        .wait_for_mail("owner@a.example", "refunded in full")
        .await;
    assert!(mail.contains("could not deliver"), "{mail}");
    assert_eq!(double.created("refund"), 1);
    assert_eq!(double.created("subscription.cancel"), 1);
    let refund = double.calls("/v1/refunds");
    assert_eq!(refund[0]["payment_intent"], "pi_test_1");
    assert!(!refund[0].contains_key("amount"), "in full");
    let subscription = double.object("sub_test_1").expect("the subscription");
    assert_eq!(subscription["status"], "canceled");
    // (The hold outlasted the idle session.)
    sign_in_again(&app, &owner, "owner@a.example").await;
    let (order, _) = placed_order(&app, &owner).await;
    let page = app
        .get_as(&owner, &format!("/en/orders/{order}"))
        .await
        .body;
    assert!(!page.contains("href=\"/en/servers/"), "no server");
    assert!(
        strip_tags(&page).contains("refunded in full"),
        "{}",
        strip_tags(&page)
    );
    let zh = app
        .get_as(&owner, &format!("/zh/orders/{order}"))
        .await
        .body;
    assert!(zh.contains("全额退还"), "{}", strip_tags(&zh));
    // Running the job again (a retry) refunds nothing twice.
    assert_eq!(double.created("refund"), 1);
    app.finish().await;
}

async fn each_decision_is_a_new_intent_and_retries_reuse_it(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", now()).await;
    app.wait_for_server(&owner, &server).await;
    let base = format!("/en/servers/{server}");
    // Cancel, revoke, cancel the same date again: three decisions, three
    // requests Stripe carries out (one key would make Stripe ignore the
    // third while we wipe the server).
    app.cancel_at_term_end(&owner, &server, "box-1").await;
    let revoked = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/cancellation/revoke"),
            &[],
            &[],
        )
        .await;
    assert_eq!(
        revoked.location(),
        format!("{base}/cancellation?done=revoke")
    );
    // Stripe stumbles twice on the next call: it is retried with the same
    // key and goes through.
    double.fail_next(500, 2);
    app.cancel_at_term_end(&owner, &server, "box-1").await;
    assert_eq!(double.failed_requests(), 2);
    let updates = double.calls("/v1/subscriptions/");
    assert_eq!(updates.len(), 3, "{updates:?}");
    assert_eq!(updates[0]["cancel_at_period_end"], "true");
    assert_eq!(updates[1]["cancel_at_period_end"], "false");
    assert_eq!(updates[1]["cancel_at"], "");
    assert_eq!(updates[2]["cancel_at_period_end"], "true");
    let subscription = double.object("sub_test_1").expect("the subscription");
    assert_eq!(subscription["cancel_at_period_end"], true);

    // Stripe down for longer than the retries: the customer gets a clear
    // error and nothing changes here.
    let revoke_while_down = {
        double.fail_next(503, 20);
        app.post_as(
            &owner,
            &base,
            &format!("{base}/cancellation/revoke"),
            &[],
            &[],
        )
        .await
    };
    assert_eq!(revoke_while_down.status, 503);
    assert!(
        strip_tags(&revoke_while_down.body).contains("try again"),
        "{}",
        strip_tags(&revoke_while_down.body)
    );
    double.fail_next(503, 0);
    let page = app.get_as(&owner, &base).await.body;
    assert!(page.contains("data-event=\"cancel.scheduled\""));
    app.finish().await;
}

async fn asynchronous_payments_refunds_and_disputes_are_mirrored(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;

    // A bank debit: the checkout completes unpaid; nothing is provisioned
    // until the money arrives.
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    assert_eq!(placed.status, 303);
    let events = double.pay_async("cs_test_1", now(), true);
    let (pending, settled) = events.split_at(1);
    deliver_all(&app, &pending.to_vec(), now()).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(!app
        .get_as(&owner, "/en/servers")
        .await
        .body
        .contains("data-server="));
    assert_eq!(
        app.host_names("ams", "g-ada", "held").len(),
        1,
        "still held"
    );
    deliver_all(&app, &settled.to_vec(), now()).await;
    eventually(&app, &owner, "/en/servers", "data-server=").await;

    // A second order whose debit fails: the order fails, the host goes
    // back and the subscription is ended at Stripe.
    let placed = app
        .place_order(&owner, "g-ada", "fra", &[("name", "box-2")])
        .await;
    assert_eq!(placed.status, 303);
    deliver_all(&app, &double.pay_async("cs_test_2", now(), false), now()).await;
    let mut held = 1;
    for _ in 0..100 {
        held = app.host_names("fra", "g-ada", "held").len();
        if held == 0 && double.created("subscription.cancel") == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!((held, double.created("subscription.cancel")), (0, 1));
    let (order, _) = placed_order(&app, &owner).await;
    let page = app
        .get_as(&owner, &format!("/en/orders/{order}"))
        .await
        .body;
    assert!(
        strip_tags(&page).contains("did not go through"),
        "{}",
        strip_tags(&page)
    );

    // A refund made in Stripe's Dashboard becomes a credit note; a dispute
    // flags the invoice for finance.
    let invoice = double.invoice_for_subscription("sub_test_1")[0]["id"]
        .as_str()
        .expect("the first invoice")
        .to_owned();
    deliver_all(&app, &double.refund_at_stripe(&invoice, 5000, now()), now()).await;
    let billing = eventually(&app, &owner, "/en/billing", "CN-").await;
    assert!(
        // €50.00 refunded at 19 % VAT: €42.02 net.
        strip_tags(&billing).contains("€42.02"),
        "{}",
        strip_tags(&billing)
    );
    deliver_all(&app, &double.dispute(&invoice, now()), now()).await;
    let staff = app.staff("finance@host.example").await;
    let finance = eventually(&app, &staff, "/en/staff/finance", "data-disputed=").await;
    assert!(
        strip_tags(&finance).contains("Disputed"),
        "{}",
        strip_tags(&finance)
    );
    app.finish().await;
}

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
    assert!(
        app.ops_env(&["stripe", "sync", "--catalog-only"], &env(&double))
            .0
    );
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.place_order(&owner, "g-ada", "nyc", &[]).await;
    assert_eq!(
        page.location(),
        "https://checkout.stripe.test/pay/cs_test_1"
    );
    // Paid at Stripe, but no webhook ever arrives.
    double.pay_silently("cs_test_1", now());
    eventually(&app, &owner, "/en/billing", "data-status=\"paid\"").await;
    let servers = eventually(&app, &owner, "/en/servers", "data-server=").await;
    assert_eq!(servers.matches("data-server=").count(), 1);
    assert!(app.host_names("nyc", "g-ada", "held").is_empty());
    // One object Stripe no longer knows does not stop a pass.
    double.forget("sub_test_1");
    let (ok, out) = app.ops_env(&["stripe", "reconcile"], &env(&double));
    assert!(ok, "{out}");
    assert!(
        out.contains("missing at Stripe: subscription sub_test_1"),
        "{out}"
    );
    assert!(out.contains("applied: "), "{out}");
    app.finish().await;
}

/// A cancellation whose date has passed is being carried out (the server
/// wiped, billing stopped): revoking it then is refused here, and Stripe is
/// never told to bill again. The handler used to un-cancel at Stripe first
/// and only then find out locally.
async fn a_revoke_after_the_date_never_uncancels_at_stripe(db: TestDb) {
    let clock = backend::Clock::manual(now());
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let (owner, _, server) =
        paid_server(&app, &double, "owner@a.example", "ams", clock.now()).await;
    app.wait_for_server(&owner, &server).await;
    let base = format!("/en/servers/{server}");
    let date = app.cancel_at_term_end(&owner, &server, "box-1").await;

    // The date passes; the customer (signed in again) tries to take it back.
    clock.advance(date - clock.now() + 1);
    double.set_now(clock.now());
    sign_in_again(&app, &owner, "owner@a.example").await;
    let revoked = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/cancellation/revoke"),
            &[],
            &[],
        )
        .await;
    assert_eq!(revoked.status, 404, "too late to revoke");
    let updates = double.calls("/v1/subscriptions/");
    assert_eq!(
        updates.len(),
        1,
        "only the cancellation reached Stripe: {updates:?}"
    );
    app.finish().await;
}

/// 2026-11-10 00:00 UTC.
const NOVEMBER_10: i64 = 1_794_268_800;

/// A Stripe customer's G-L40S×2 in Singapore (one host there) is down ten
/// minutes in November: its host fails, another is racked and the server
/// rebuilt. `end_at_stripe` ends the subscription before the month closes.
/// Answers the owner once December has begun (signed in again).
/// How the server of an SLA credit goes on after its outage.
#[derive(PartialEq)]
enum Afterwards {
    /// It runs on: Stripe invoices it again.
    RunsOn,
    /// Ended at Stripe (the Dashboard) at once.
    EndedAtStripe,
    /// Its owner cancels it at the end of its term: no invoice follows.
    EndsWithItsTerm,
}

async fn ten_minutes_down_in_november(
    app: &TestApp,
    double: &StripeDouble,
    clock: &backend::Clock,
    afterwards: Afterwards,
) -> reqwest::Client {
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app
        .place_order(&owner, "g-l40s-x2", "sin", &[("name", "trainer")])
        .await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    deliver_all(app, &double.pay("cs_test_1", clock.now()), clock.now()).await;
    let (_, id) = app.newest_order_server(&owner).await;
    app.wait_for_server(&owner, &id).await;
    let staff = app.staff("ops@host.example").await;
    let set = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/set",
            &[
                ("name", "sin-g-l40s-x2-001"),
                ("state", "failed"),
                ("reason", "Xid 79"),
            ],
            &[],
        )
        .await;
    assert_eq!(set.location(), "/en/staff/hosts?done=1");
    let server = format!("/en/servers/{id}");
    app.wait_for(&owner, &server, "data-event=\"rebuild.waiting\"")
        .await;
    app.rack("sin", "g-l40s-x2", 1);
    clock.advance(600);
    double.set_now(clock.now());
    app.wait_for(&owner, &server, "data-event=\"rebuilt\"")
        .await;
    if afterwards == Afterwards::EndsWithItsTerm {
        app.cancel_at_term_end(&owner, &id, "trainer").await;
        app.wait_for(&owner, &server, "data-event=\"cancel.scheduled\"")
            .await;
    }
    if afterwards == Afterwards::EndedAtStripe {
        deliver_all(
            app,
            &double.cancel_at_stripe("sub_test_1", clock.now()),
            clock.now(),
        )
        .await;
        app.wait_for(&owner, &server, "data-event=\"cancelled\"")
            .await;
    }
    // November closes.
    clock.advance(21 * 86_400);
    double.set_now(clock.now());
    sign_in_again(app, &owner, "owner@a.example").await;
    owner
}

/// 10 % of the €1,420.00 fee, and the 19 % German VAT charged on it.
const CREDIT_WITH_VAT: i64 = 14_200 + 2_698;

async fn an_sla_credit_goes_onto_the_next_stripe_invoice(db: TestDb) {
    let clock = backend::Clock::manual(NOVEMBER_10);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let owner = ten_minutes_down_in_november(&app, &double, &clock, Afterwards::RunsOn).await;
    // The credit note is issued as for everyone, unasked…
    eventually(&app, &owner, "/en/billing", "CN-2026-000001").await;
    // …and, as no invoice of ours follows, passed to Stripe's balance with
    // its VAT: Stripe takes it off the next invoice.
    for _ in 0..150 {
        if double.created("customer_balance_transaction") == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let calls = double.calls("/v1/customers/cus_test_1/balance_transactions");
    assert_eq!(calls.len(), 1, "{}", stripe_jobs(&app).await);
    assert_eq!(calls[0]["amount"], (-CREDIT_WITH_VAT).to_string());
    assert!(calls[0]["description"].contains("CN-2026-000001"));
    let events = double.renew("sub_test_1", clock.now(), true);
    let invoice = double.invoice_for_subscription("sub_test_1")[0].clone();
    assert_eq!(invoice["starting_balance"], -CREDIT_WITH_VAT);
    assert_eq!(
        invoice["amount_due"].as_i64(),
        invoice["total"].as_i64().map(|t| t - CREDIT_WITH_VAT)
    );
    deliver_all(&app, &events, clock.now()).await;
    // The job ran once: a retry would not credit twice.
    assert_eq!(double.created("customer_balance_transaction"), 1);
    // Finance sees the credit Stripe took off the invoice.
    let number = invoice["number"].as_str().expect("a number").to_owned();
    let billing = eventually(&app, &owner, "/en/billing", &number).await;
    let row = billing
        .split("<tr")
        .find(|row| row.contains(&number))
        .expect("the renewal's row");
    let id = row
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("its page");
    let page = strip_tags(&app.get_as(&owner, &format!("/en/invoices/{id}")).await.body);
    assert!(page.contains("-€168.98"), "{page}");
    app.finish().await;
}

async fn an_sla_credit_for_an_ended_server_is_refunded(db: TestDb) {
    let clock = backend::Clock::manual(NOVEMBER_10);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let owner =
        ten_minutes_down_in_november(&app, &double, &clock, Afterwards::EndedAtStripe).await;
    eventually(&app, &owner, "/en/billing", "CN-2026-000001").await;
    // No invoice follows an ended server: the money goes back to the card.
    for _ in 0..150 {
        if double.created("refund") == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let refunds = double.calls("/v1/refunds");
    assert_eq!(refunds.len(), 1, "{}", stripe_jobs(&app).await);
    assert_eq!(refunds[0]["payment_intent"], "pi_test_1");
    assert_eq!(refunds[0]["amount"], CREDIT_WITH_VAT.to_string());
    assert_eq!(double.created("customer_balance_transaction"), 0);
    // The refund's own events (it names its credit note) book nothing a
    // second time.
    let events = double.take_events();
    assert!(events.iter().any(|(_, e)| e.contains("\"refund.created\"")));
    deliver_all(&app, &events, clock.now()).await;
    stripe_events_applied(&app).await;
    let billing = app.get_as(&owner, "/en/billing").await.body;
    assert!(
        !billing.contains("CN-2026-000002"),
        "{}",
        strip_tags(&billing)
    );
    app.finish().await;
}

/// A server that ends with its term gets no further invoice from Stripe:
/// its credit is refunded, never parked on a balance nobody will use,
/// and never more than is still refundable of the payment.
async fn an_sla_credit_for_a_server_ending_with_its_term_is_refunded(db: TestDb) {
    let clock = backend::Clock::manual(NOVEMBER_10);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let owner =
        ten_minutes_down_in_november(&app, &double, &clock, Afterwards::EndsWithItsTerm).await;
    eventually(&app, &owner, "/en/billing", "CN-2026-000001").await;
    for _ in 0..150 {
        if double.created("refund") == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let refunds = double.calls("/v1/refunds");
    assert_eq!(refunds.len(), 1, "{}", stripe_jobs(&app).await);
    assert_eq!(refunds[0]["amount"], CREDIT_WITH_VAT.to_string());
    assert_eq!(double.created("customer_balance_transaction"), 0);
    app.finish().await;
}

/// Waits (up to 15 s) until every delivered Stripe event is applied.
pub(crate) async fn stripe_events_applied(app: &TestApp) {
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    for _ in 0..150 {
        let waiting: i64 = sqlx::query_scalar(
            "select count(*) from stripe_events where processed_at is null and held_reason is null",
        )
        .fetch_one(&db.pool)
        .await
        .expect("counting events");
        if waiting == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("Stripe events still unapplied: {}", stripe_jobs(app).await);
}

/// The Tax Rates on a subscription's items, as the double holds them.
fn item_tax_rates(double: &StripeDouble, subscription: &str) -> Vec<String> {
    double
        .object(subscription)
        .and_then(|s| s["items"]["data"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .flat_map(|item| item["tax_rates"].as_array().cloned().unwrap_or_default())
        .filter_map(|rate| rate["id"].as_str().map(str::to_owned))
        .collect()
}

/// Waits (up to 15 s) until the subscription's items carry `wanted`.
async fn until_items_taxed(app: &TestApp, double: &StripeDouble, wanted: &[&str]) {
    let mut has = Vec::new();
    for _ in 0..150 {
        has = item_tax_rates(double, "sub_test_1");
        if has == wanted {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "items taxed {has:?}, not {wanted:?}: {}",
        stripe_jobs(app).await
    );
}

/// Reverse charge for a Stripe customer lasts as long as VIES confirms the
/// VAT ID: checked again each day, and the subscription's next invoice
/// carries the VAT that follows (and loses it again once confirmed).
async fn a_vat_id_that_lapses_is_taxed_from_the_next_stripe_invoice(db: TestDb) {
    use crate::common::vies_double::{Reply, ViesDouble};
    let vies = ViesDouble::start().await;
    vies.set("DE123456789", Reply::Valid(Some("BEISPIEL GMBH")));
    let clock = backend::Clock::manual(now());
    let double = StripeDouble::start().await;
    double.set_now(clock.now());
    let url = double.url.clone();
    let app = TestApp::spawn_configured(db, clock.clone(), |c| {
        c.stripe_secret_key = Some(server::config::Redacted("sk_test_double".into()));
        c.stripe_webhook_secret = Some(server::config::Redacted(SECRET.into()));
        c.stripe_api_base = url;
        c.stripe_reconcile_secs = 1;
        c.vies = Some(server::config::ViesChoice::Eu);
        c.vies_url = vies.url.clone();
    })
    .await;
    assert!(
        app.ops_env(&["stripe", "sync", "--catalog-only"], &env(&double))
            .0
    );
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let fields = [
        ("legal_name", "Beispiel GmbH"),
        ("address", "Hauptstraße 1"),
        ("postal_code", "10115"),
        ("city", "Berlin"),
        ("country", "DE"),
        ("vat_id", "DE123456789"),
        ("billing_email", "ap@beispiel.example"),
    ];
    app.post_as(&owner, "/en/billing", "/en/billing/profile", &fields, &[])
        .await;
    // Confirmed: reverse charged, so Checkout carries no Tax Rate.
    let placed = app.place_order(&owner, "g-ada", "fra", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    let session = &double.calls("/v1/checkout/sessions")[0];
    assert!(
        !session.contains_key("line_items[0][tax_rates][0]"),
        "{session:?}"
    );
    deliver_all(&app, &double.pay("cs_test_1", clock.now()), clock.now()).await;
    app.newest_order_server(&owner).await;

    // The business deregisters; a day on, the re-check finds it and the
    // subscription is taxed at the German rate before its next invoice.
    vies.set("DE123456789", Reply::Invalid);
    clock.advance(86_400 + 60);
    double.set_now(clock.now());
    for _ in 0..150 {
        if double.created("tax_rate") == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rate = double
        .calls("/v1/tax_rates")
        .first()
        .map(|r| (r["country"].clone(), r["percentage"].clone()));
    assert_eq!(
        rate,
        Some(("DE".to_owned(), "19.0".to_owned())),
        "{}",
        stripe_jobs(&app).await
    );
    let txr = double.calls("/v1/tax_rates").len();
    assert_eq!(txr, 1);
    until_items_taxed(&app, &double, &["txr_test_1"]).await;
    app.wait_for_mail("owner@a.example", "DE123456789").await;
    double.renew("sub_test_1", clock.now(), true);
    let invoice = double.invoice_for_subscription("sub_test_1")[0].clone();
    assert_eq!(
        invoice["total_taxes"][0]["amount"], 4_541,
        "19 % of €239.00"
    );

    // Registered again: the next day's check takes the VAT off again (a
    // change back is a new request, not a replay of the first).
    vies.set("DE123456789", Reply::Valid(Some("BEISPIEL GMBH")));
    clock.advance(86_400 + 60);
    double.set_now(clock.now());
    until_items_taxed(&app, &double, &[]).await;
    app.finish().await;
}
