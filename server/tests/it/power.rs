//! Powering a server off and on again, from the portal and the API: the
//! machine stops (shown `stopping`, then `off`), stays rented and billed,
//! its console stays closed and nothing but powering on is offered; then
//! it starts again (`starting`, then `running`).

use crate::common::api::create_token;
use crate::common::{strip_tags, TestApp, TestDb};
use serde_json::json;

on_both_databases!(
    a_server_powered_off_stays_rented_and_starts_again,
    power_actions_that_do_not_fit_the_state_are_refused_and_change_nothing,
);

/// Waits (through the portal's progress, which has no token limit) until
/// the server is at rest, then reads it through the API: it is `state`.
async fn until_state(
    app: &TestApp,
    owner: &reqwest::Client,
    token: &str,
    id: &str,
    state: &str,
) -> serde_json::Value {
    app.wait_for_server(owner, id).await;
    let server = app
        .api_get(&format!("/api/v1/servers/{id}"), token)
        .await
        .json();
    assert_eq!(server["state"], state, "{server}");
    server
}

async fn a_server_powered_off_stays_rented_and_starts_again(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (owner, id) = app.owner_with_running_server(&[("name", "sleeper")]).await;
    let token = create_token(&app, &owner, "power", &["read", "servers:write"]).await;
    let base = format!("/en/servers/{id}");

    // Off from the portal's power tab, confirmed.
    let tab = app.get_as(&owner, &format!("{base}/power")).await.body;
    assert!(tab.contains(&format!("action=\"{base}/power/power_off\"")));
    assert!(
        !tab.contains("/power/power_on\""),
        "not offered while it runs"
    );
    let off = app
        .post_as(
            &owner,
            &format!("{base}/power"),
            &format!("{base}/power/power_off"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(off.location(), format!("{base}/power?done=power"));
    let server = app
        .api_get(&format!("/api/v1/servers/{id}"), &token)
        .await
        .json();
    assert!(
        ["stopping", "off"].contains(&server["state"].as_str().unwrap_or_default()),
        "{server}"
    );
    let server = until_state(&app, &owner, &token, &id, "off").await;
    // Still rented: it renews, and a cancellation can still be scheduled.
    assert!(server["renews_at"].is_string(), "{server}");
    assert_eq!(server["billing_state"], "active", "{server}");

    // The page says so in both languages and offers powering on only.
    let tab = app.get_as(&owner, &format!("{base}/power")).await.body;
    let text = strip_tags(&tab);
    assert!(text.contains("This server is powered off."), "{text}");
    assert!(tab.contains(&format!("action=\"{base}/power/power_on\"")));
    assert!(!tab.contains("/power/reboot\"") && !tab.contains("/power/power_off\""));
    let zh = app
        .get_as(&owner, &format!("/zh/servers/{id}/power"))
        .await
        .body;
    assert!(
        strip_tags(&zh).contains("此服务器已关机"),
        "{}",
        strip_tags(&zh)
    );
    let cancellation = app
        .get_as(&owner, &format!("{base}/cancellation"))
        .await
        .body;
    assert!(
        cancellation.contains("id=\"cancel-at\""),
        "still cancellable"
    );
    let history = app.get_as(&owner, &base).await.body;
    assert!(
        history.contains("data-event=\"power_off.done\""),
        "{history}"
    );

    // No console while it is off.
    let ticket = app
        .api_post(
            &format!("/api/v1/servers/{id}/console-tickets"),
            &token,
            Some(&json!({ "kind": "serial" })),
        )
        .await;
    assert_eq!(ticket.status, 409, "{}", ticket.body);
    assert_eq!(ticket.code(), "console_unavailable");
    let console = app.get_as(&owner, &format!("{base}/console/serial")).await;
    assert!(
        strip_tags(&console.body).contains("The server is powered off; power it on"),
        "{}",
        strip_tags(&console.body)
    );

    // On again through the API.
    let on = app
        .api_post(
            &format!("/api/v1/servers/{id}/power"),
            &token,
            Some(&json!({ "action": "power_on" })),
        )
        .await;
    assert_eq!(on.status, 202, "{}", on.body);
    assert!(
        ["starting", "running"].contains(&on.json()["state"].as_str().unwrap_or_default()),
        "{}",
        on.body
    );
    until_state(&app, &owner, &token, &id, "running").await;
    let ticket = app
        .api_post(
            &format!("/api/v1/servers/{id}/console-tickets"),
            &token,
            Some(&json!({ "kind": "serial" })),
        )
        .await;
    assert_eq!(ticket.status, 200, "{}", ticket.body);
    let history = app.get_as(&owner, &base).await.body;
    for event in [
        "power_off.requested",
        "power_off.done",
        "power_on.requested",
        "power_on.done",
    ] {
        assert!(
            history.contains(&format!("data-event=\"{event}\"")),
            "{event}"
        );
    }
    // Scripts hear of it as events (published once committed, so asked
    // again until it is there: a quarter of a second apart, well inside
    // the token's rate limit).
    let mut events = serde_json::Value::Null;
    for _ in 0..40 {
        events = app
            .api_get("/api/v1/events?type=server.power_off.done", &token)
            .await
            .json();
        if events["data"].as_array().is_some_and(|d| !d.is_empty()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert_eq!(events["data"].as_array().map(Vec::len), Some(1), "{events}");
    app.finish().await;
}

/// Powering on a running server, or off one that is off, is `busy` and
/// leaves it as it was; a stopped server takes no reboot.
async fn power_actions_that_do_not_fit_the_state_are_refused_and_change_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (owner, id) = app.owner_with_running_server(&[("name", "awake")]).await;
    let token = create_token(&app, &owner, "power", &["read", "servers:write"]).await;
    let power = |action: &'static str| {
        let app = &app;
        let token = token.clone();
        let path = format!("/api/v1/servers/{id}/power");
        async move {
            app.api_post(&path, &token, Some(&json!({ "action": action })))
                .await
        }
    };
    let refused = power("power_on").await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert_eq!(refused.code(), "busy");
    until_state(&app, &owner, &token, &id, "running").await;

    assert_eq!(power("power_off").await.status, 202);
    until_state(&app, &owner, &token, &id, "off").await;
    for action in ["power_off", "reboot", "power_cycle"] {
        let refused = power(action).await;
        assert_eq!(refused.status, 409, "{action}: {}", refused.body);
    }
    let unknown = power("hibernate").await;
    assert_eq!(unknown.status, 422, "{}", unknown.body);
    until_state(&app, &owner, &token, &id, "off").await;
    app.finish().await;
}
