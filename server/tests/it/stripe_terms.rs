//! A server's terms are its Stripe subscription's periods: the dates a
//! cancellation offers are Stripe's period ends (a date a few minutes off
//! makes Stripe bill a prorated stub), each once.

use crate::common::stripe_double::calendar;
use crate::common::TestDb;
use crate::stripe::{now, paid_server, stripe_app, stripe_events_applied};

on_both_databases!(the_cancellation_dates_are_stripes_period_ends);

/// The server first runs some seconds after Stripe's period began: the
/// dates offered (portal and API) still are Stripe's period ends, three
/// different days, and cancelling at a later one asks Stripe for exactly
/// that end, without prorating.
async fn the_cancellation_dates_are_stripes_period_ends(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", now() - 5).await;
    app.wait_for_server(&owner, &server).await;
    stripe_events_applied(&app).await;
    let subscription = double.object("sub_test_1").expect("the subscription");
    let anchor = subscription["billing_cycle_anchor"]
        .as_i64()
        .expect("an anchor");
    let first = subscription["items"]["data"][0]["current_period_end"]
        .as_i64()
        .expect("the period's end");
    let second = calendar::period_end(anchor, first);
    let third = calendar::period_end(anchor, second);
    let page = app
        .get_as(&owner, &format!("/en/servers/{server}/cancellation"))
        .await
        .body;
    let offered: Vec<i64> = page
        .split("id=\"cancel-at\"")
        .nth(1)
        .and_then(|select| select.split("</select>").next())
        .unwrap_or_default()
        .split("<option value=\"")
        .skip(1)
        .filter_map(|option| option.split('"').next())
        .filter_map(|value| value.parse().ok())
        .collect();
    assert_eq!(offered, [first, second, third], "{page}");
    let days: std::collections::BTreeSet<String> = offered
        .iter()
        .map(|&t| domain::time::format_date(t))
        .collect();
    assert_eq!(days.len(), 3, "each date once: {days:?}");
    // The API offers the same dates, by the same rule.
    let token = crate::common::api::create_token(&app, &owner, "terms", &["read"]).await;
    let api_dates = |answer: crate::common::api_client::Answer| -> Vec<i64> {
        assert_eq!(answer.status, 200, "{}", answer.body);
        let json: serde_json::Value = serde_json::from_str(&answer.body).expect("JSON");
        json["cancellable_at"]
            .as_array()
            .expect("cancellable_at")
            .iter()
            .filter_map(|d| d.as_str().and_then(domain::time::parse_utc))
            .collect()
    };
    let path = format!("/api/v1/servers/{server}");
    assert_eq!(api_dates(app.api_get(&path, &token).await), offered);

    let fields = [
        ("at", second.to_string()),
        ("reason", "moving".to_owned()),
        ("confirm_name", "box-1".to_owned()),
        ("confirm", "yes".to_owned()),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let base = format!("/en/servers/{server}");
    let cancelled = app
        .post_as(&owner, &base, &format!("{base}/cancellation"), &fields, &[])
        .await;
    assert!(
        cancelled.location().starts_with(&base),
        "{}",
        cancelled.body
    );
    let updates = double.calls("/v1/subscriptions/");
    let update = updates.last().expect("Stripe was told");
    assert_eq!(update["cancel_at"], second.to_string(), "{update:?}");
    assert_eq!(update["proration_behavior"], "none", "{update:?}");
    // Scheduled, the end can still be moved: page and API agree.
    assert_eq!(api_dates(app.api_get(&path, &token).await), offered);
    // Stripe renews twice up to that end: full periods, no stub (the
    // double bills one for a `cancel_at` inside a period), then it ends.
    double.renew("sub_test_1", first, true);
    double.renew("sub_test_1", second, true);
    let invoices = double.invoice_for_subscription("sub_test_1");
    assert_eq!(invoices.len(), 2, "the first and one renewal");
    for invoice in &invoices {
        let line = &invoice["lines"]["data"][0];
        assert_eq!(
            line["parent"]["subscription_item_details"]["proration"], false,
            "{invoice}"
        );
        assert_eq!(invoice["total"], invoices[1]["total"], "{invoice}");
    }
    let ended = double.object("sub_test_1").expect("the subscription");
    assert_eq!(ended["status"], "canceled");
    assert_eq!(ended["ended_at"], second);
    app.finish().await;
}
