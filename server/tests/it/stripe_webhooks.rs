//! Webhook signatures as Stripe sends them while an endpoint's secret is
//! rolled: several `v1` values in one header, the previous secret still
//! good until it expires, and an event verified once, when it arrived;
//! and events of one second that arrive in the other order.

use crate::common::stripe_double::StripeDouble;
use crate::common::{TestApp, TestDb};
use crate::stripe::{
    deliver, deliver_all, env, eventually, now, paid_server, placed_session, post_webhook,
    stripe_app, stripe_app_with_clock, stripe_events_applied, stripe_jobs, SECRET,
};
use std::time::Duration;
use stripe_webhook::Webhook;

on_both_databases!(
    a_rolled_secret_is_accepted_and_stored_events_apply_after_it,
    subscription_events_of_one_second_follow_stripe_not_their_arrival,
    events_about_another_products_objects_are_set_aside_not_retried,
    a_paid_checkouts_events_in_reverse_order_end_as_in_order,
);

const NEW_SECRET: &str = "whsec_rolled_in";
const OLD_SECRET: &str = "whsec_rolled_out";

/// `t=…,v1=…` signed by each of `secrets`, in one header.
fn signed_by(body: &str, secrets: &[&str], at: i64) -> String {
    let mut header = format!("t={at}");
    for secret in secrets {
        let one = Webhook::generate_test_header(body, secret, Some(at));
        let v1 = one.split(",v1=").nth(1).unwrap_or_default().to_owned();
        header.push_str(&format!(",v1={v1}"));
    }
    header
}

/// The replica runs with the new secret and the previous one. An event
/// signed only with the previous secret is taken, one signed with both is
/// taken, one signed with neither is refused; and an event held for an
/// operator (another API version) applies when released, though the
/// secret that signed it is no longer the endpoint's.
async fn a_rolled_secret_is_accepted_and_stored_events_apply_after_it(db: TestDb) {
    let double = StripeDouble::start().await;
    let url = double.url.clone();
    let app = TestApp::spawn_configured(db, backend::Clock::system(), |c| {
        c.stripe_secret_key = Some(server::config::Redacted("sk_test_double".into()));
        c.stripe_webhook_secret = Some(server::config::Redacted(NEW_SECRET.into()));
        c.stripe_webhook_secret_previous = Some(server::config::Redacted(OLD_SECRET.into()));
        c.stripe_api_base = url;
    })
    .await;
    let (ok, out) = app.ops_env(&["stripe", "sync"], &env(&double));
    assert!(ok, "{out}");
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "fra", &[]).await;
    assert_eq!(placed.status, 303);
    let paid = double.pay("cs_test_1", now());
    let completed: serde_json::Value =
        serde_json::from_str(&paid[0].1).expect("the completed event");
    let (_, old_version) = double.event_in_version(
        "checkout.session.completed",
        completed["data"]["object"].clone(),
        "2023-10-16",
        now(),
    );
    let at = now();
    assert_eq!(
        post_webhook(
            &app,
            &old_version,
            &signed_by(&old_version, &["whsec_someone_else"], at)
        )
        .await,
        (400, "bad signature".to_owned())
    );
    assert_eq!(
        post_webhook(
            &app,
            &old_version,
            &signed_by(&old_version, &[OLD_SECRET], at)
        )
        .await,
        (200, "Held".to_owned())
    );
    for (id, body) in &paid[1..] {
        let answer = post_webhook(
            &app,
            body,
            &signed_by(body, &["whsec_someone_else", OLD_SECRET, NEW_SECRET], at),
        )
        .await;
        assert_eq!(answer, (200, "Queued".to_owned()), "{id}");
    }
    let (held_id, _) = {
        let (ok, held) = app.ops(&["stripe", "held"]);
        assert!(ok, "{held}");
        let id = held
            .split_whitespace()
            .find(|w| w.starts_with("evt_"))
            .expect("the held event")
            .to_owned();
        (id, held)
    };
    let (ok, out) = app.ops(&["stripe", "release", &held_id, "--apply"]);
    assert!(ok, "{out}");
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    app.finish().await;
}

/// Set to end in the Billing Portal and taken back in the same second:
/// two `customer.subscription.updated` events with one `created`, which
/// arrive newest first. Their order cannot be told from them, so the
/// subscription is read from Stripe: it bills on, and nothing is
/// scheduled here.
async fn subscription_events_of_one_second_follow_stripe_not_their_arrival(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", start).await;
    app.wait_for_server(&owner, &server).await;
    clock.advance(60);
    let at = clock.now();
    double.set_now(at);
    let scheduled = double.cancel_at_period_end_at_stripe("sub_test_1", at);
    let undo = reqwest::Client::new()
        .post(format!("{}/v1/subscriptions/sub_test_1", double.url))
        .bearer_auth("sk_test_double")
        .form(&[("cancel_at_period_end", "false")])
        .send()
        .await
        .expect("un-cancelling at Stripe");
    assert_eq!(undo.status().as_u16(), 200);
    let taken_back = double.take_events();
    assert_eq!(taken_back.len(), 1);
    assert_eq!(
        double.object("sub_test_1").expect("sub")["cancel_at_period_end"],
        false
    );
    let reads_before = double.requests("/v1/subscriptions/sub_test_1");
    deliver_all(&app, &taken_back, at).await;
    stripe_events_applied(&app).await;
    deliver_all(&app, &scheduled, at).await;
    stripe_events_applied(&app).await;
    // The refresh asked Stripe (one more read of the subscription) …
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    for _ in 0..150 {
        let waiting: i64 = sqlx::query_scalar(
            "select count(*) from jobs where kind = 'stripe_subscription' and state <> 'done'",
        )
        .fetch_one(&db.pool)
        .await
        .expect("counting refresh jobs");
        let asked = double.requests("/v1/subscriptions/sub_test_1") > reads_before;
        if waiting == 0 && asked {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let cancel_at: Option<i64> = sqlx::query_scalar("select cancel_at from servers where id = $1")
        .bind(&server)
        .fetch_one(&db.pool)
        .await
        .expect("the server");
    assert_eq!(cancel_at, None, "{}", stripe_jobs(&app).await);
    // … and the customer's page shows no end.
    let page = app
        .get_as(&owner, &format!("/en/servers/{server}"))
        .await
        .body;
    assert!(page.contains("data-event="), "signed in, events shown");
    assert!(!page.contains("data-event=\"cancel.scheduled\""), "{page}");
    app.finish().await;
}

/// The Stripe account also bills another product: its invoices (of a
/// customer we never made) and subscriptions (naming no order of ours)
/// reach our endpoint too. They are told apart from late events at once:
/// done with, the reason kept, nothing retried or dead-lettered; our own
/// late subscription event is still waited for.
async fn events_about_another_products_objects_are_set_aside_not_retried(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let at = now();
    let (owner, session) = placed_session(&app, "owner@a.example", "ams").await;
    let paid = double.pay(&session, at);
    // Copies of our own events, as the other product's would look.
    let mut foreign = Vec::new();
    for (_, body) in &paid {
        let mut event: serde_json::Value = serde_json::from_str(body).expect("event JSON");
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        let object = &mut event["data"]["object"];
        match kind.as_str() {
            "invoice.paid" => {
                object["id"] = "in_elsewhere".into();
                object["customer"] = "cus_elsewhere".into();
            }
            "customer.subscription.created" => {
                object["id"] = "sub_elsewhere".into();
                object["customer"] = "cus_elsewhere".into();
                object["metadata"] = serde_json::json!({ "order_id": "ord_elsewhere" });
            }
            _ => continue,
        }
        event["id"] = format!("evt_elsewhere_{}", foreign.len()).into();
        foreign.push(event.to_string());
    }
    assert_eq!(foreign.len(), 2, "an invoice and a subscription");
    for body in &foreign {
        assert_eq!(deliver(&app, body, at, SECRET).await.0, 200);
    }
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    let mut set_aside = Vec::new();
    for _ in 0..100 {
        set_aside = sqlx::query_scalar(
            "select ignored_reason from stripe_events where id like 'evt_elsewhere_%' \
             and processed_at is not null and ignored_reason is not null order by id",
        )
        .fetch_all(&db.pool)
        .await
        .expect("reading the events");
        if set_aside.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let set_aside: Vec<String> = set_aside;
    assert_eq!(set_aside.len(), 2, "{}", stripe_jobs(&app).await);
    assert!(
        set_aside
            .iter()
            .any(|r| r.contains("customer cus_elsewhere")),
        "{set_aside:?}"
    );
    assert!(
        set_aside
            .iter()
            .any(|r| r.contains("sub_elsewhere names no order of ours")),
        "{set_aside:?}"
    );
    // Our own subscription event, delivered before its checkout: late,
    // so it waits and applies once the checkout did.
    let (sub_events, rest): (Vec<_>, Vec<_>) = paid
        .into_iter()
        .partition(|(_, body)| body.contains("\"customer.subscription.created\""));
    deliver_all(&app, &sub_events, at).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ours: Option<String> =
        sqlx::query_scalar("select ignored_reason from stripe_events where id = $1")
            .bind(&sub_events[0].0)
            .fetch_one(&db.pool)
            .await
            .expect("our event");
    assert_eq!(ours, None, "ours is late, not foreign");
    deliver_all(&app, &rest, at).await;
    stripe_events_applied(&app).await;
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    app.finish().await;
}

/// Stripe promises no order: a paid Checkout's events arriving newest
/// first (the payment, the invoice, the subscription, then the session)
/// end as they would in order: the server provisioned, the invoice paid
/// with its payment known, nothing dead.
async fn a_paid_checkouts_events_in_reverse_order_end_as_in_order(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let at = now();
    let (owner, session) = placed_session(&app, "owner@a.example", "ams").await;
    let mut events = double.pay(&session, at);
    assert!(events.len() >= 4, "{events:?}");
    events.reverse();
    deliver_all(&app, &events, at).await;
    eventually(&app, &owner, "/en/servers", "data-server=").await;
    stripe_events_applied(&app).await;
    let db = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("db");
    let paid: Vec<(String, Option<String>)> = sqlx::query_as(
        "select status, stripe_payment_intent from invoices where stripe_invoice_id is not null",
    )
    .fetch_all(&db.pool)
    .await
    .expect("the invoices");
    assert_eq!(paid.len(), 1, "{paid:?}");
    assert_eq!(paid[0].0, "paid");
    assert!(paid[0].1.is_some(), "its payment is known: {paid:?}");
    let dead: i64 = sqlx::query_scalar("select count(*) from jobs where state = 'dead'")
        .fetch_one(&db.pool)
        .await
        .expect("counting dead jobs");
    assert_eq!(dead, 0, "{}", stripe_jobs(&app).await);
    app.finish().await;
}
