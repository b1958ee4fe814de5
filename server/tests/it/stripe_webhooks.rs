//! Webhook signatures as Stripe sends them while an endpoint's secret is
//! rolled: several `v1` values in one header, the previous secret still
//! good until it expires, and an event verified once, when it arrived.

use crate::common::stripe_double::StripeDouble;
use crate::common::{TestApp, TestDb};
use crate::stripe::{env, eventually, now, post_webhook};
use stripe_webhook::Webhook;

on_both_databases!(a_rolled_secret_is_accepted_and_stored_events_apply_after_it);

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
