//! Events, pulled and pushed: `GET /events` tells an organization what
//! happened in order, once, from a cursor; webhooks POST the same events
//! to an endpoint signed with its secret (`t=…,v1=HMAC-SHA256("t.body")`),
//! retry a failed answer with backoff, send again on request, ping, and
//! sign with both secrets while a rolled one overlaps. The receiver here
//! is a real HTTP server on loopback.

use crate::common::api::create_token;
use crate::common::{TestApp, TestDb};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::sync::{Arc, Mutex};
use std::time::Duration;

on_both_databases!(
    the_feed_tells_each_organization_what_happened_in_order,
    webhooks_are_signed_retried_resent_and_rolled,
    webhooks_are_managed_in_the_portal_in_both_languages,
);

const START: i64 = 1_796_000_000;

fn types(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["type"].as_str().map(str::to_owned))
        .collect()
}

/// Reads the whole feed from the start (following `next_cursor`).
async fn feed(app: &TestApp, token: &str, query: &str) -> (Vec<Value>, String) {
    let mut events = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = app
            .api_get(
                &format!("/api/v1/events?limit=100&cursor={cursor}{query}"),
                token,
            )
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        let page = page.json();
        events.extend(page["data"].as_array().cloned().unwrap_or_default());
        cursor = page["next_cursor"].as_str().unwrap_or_default().to_owned();
        if page["has_more"] != true {
            return (events, cursor);
        }
    }
}

/// Polls the feed until it has an event of `kind`.
async fn wait_for_event(app: &TestApp, token: &str, kind: &str) -> Vec<Value> {
    for _ in 0..200 {
        let (events, _) = feed(app, token, "").await;
        if events.iter().any(|e| e["type"] == kind) {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no {kind} event");
}

async fn the_feed_tells_each_organization_what_happened_in_order(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    let token = create_token(
        &app,
        &owner,
        "all",
        &["read", "servers:write", "billing:read"],
    )
    .await;
    let tech_token = create_token(&app, &tech, "tech", &["read"]).await;
    let other_token = create_token(&app, &other, "b", &["read"]).await;
    let server = app.running_server(&owner, &[("name", "evented")]).await;
    let events = wait_for_event(&app, &token, "invoice.open").await;
    let seen = |kind: &str| {
        events
            .iter()
            .position(|e| e["type"] == kind)
            .unwrap_or_else(|| panic!("no {kind} in {events:?}"))
    };
    // In the order it happened, each numbered once, higher each time.
    assert!(seen("order.held") < seen("order.confirmed"));
    assert!(seen("order.confirmed") < seen("server.running"));
    assert!(seen("server.provisioning.started") < seen("server.running"));
    let seqs: Vec<i64> = events.iter().filter_map(|e| e["seq"].as_i64()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let running = &events[seen("server.running")];
    assert_eq!(running["data"]["object"], "server");
    assert_eq!(running["data"]["id"], server.as_str());
    assert_eq!(running["data"]["name"], "evented");
    assert!(running["id"]
        .as_str()
        .unwrap_or_default()
        .starts_with("evt_"));
    let fulfilled = &events[seen("order.fulfilled")];
    assert_eq!(fulfilled["data"]["server_id"], server.as_str());

    // Nothing twice: from the last cursor, nothing new until something happens.
    let (_, cursor) = feed(&app, &token, "").await;
    let again = app
        .api_get(&format!("/api/v1/events?cursor={cursor}"), &token)
        .await
        .json();
    assert_eq!(again["data"], json!([]));
    assert_eq!(again["next_cursor"], cursor.as_str());
    assert_eq!(again["has_more"], false);
    let renamed = app
        .api(
            "PATCH",
            &format!("/api/v1/servers/{server}"),
            Some(&token),
            Some(&json!({ "name": "evented-2" })),
            &[],
        )
        .await;
    assert_eq!(renamed.status, 200);
    let mut news = Vec::new();
    for _ in 0..100 {
        let page = app
            .api_get(&format!("/api/v1/events?cursor={cursor}"), &token)
            .await
            .json();
        news = types(&page);
        if !news.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(news, ["server.renamed"]);

    // Filters; paging with `has_more`.
    let (orders, _) = feed(&app, &token, "&type=order").await;
    assert!(orders
        .iter()
        .all(|e| e["type"].as_str().unwrap_or_default().starts_with("order.")));
    assert!(orders.len() >= 3, "{orders:?}");
    let first = app.api_get("/api/v1/events?limit=1", &token).await;
    assert_eq!(first.json()["has_more"], true);
    assert!(
        first.header("link").contains("cursor="),
        "{}",
        first.header("link")
    );
    for bad in ["?cursor=-1", "?cursor=x", "?limit=0", "?type=Server"] {
        let refused = app.api_get(&format!("/api/v1/events{bad}"), &token).await;
        assert_eq!(refused.status, 400, "{bad}: {}", refused.body);
    }

    // Money only with billing:read; another organization sees none of it.
    let (tech_events, _) = feed(&app, &tech_token, "").await;
    assert!(tech_events.iter().any(|e| e["type"] == "server.running"));
    assert!(!tech_events.iter().any(|e| e["type"]
        .as_str()
        .unwrap_or_default()
        .starts_with("invoice.")));
    let (theirs, _) = feed(&app, &other_token, "").await;
    assert!(
        theirs.iter().all(|e| e["type"] == "stock.changed"),
        "{theirs:?}"
    );
    app.finish().await;
}

/// What the receiver got: the signature header, the delivery id, the body.
#[derive(Clone, Default)]
struct Received {
    calls: Arc<Mutex<Vec<(String, String, String)>>>,
    /// Statuses to answer, first to last; then 200.
    answers: Arc<Mutex<Vec<u16>>>,
}

async fn receive(
    State(r): State<Received>,
    headers: HeaderMap,
    body: String,
) -> (StatusCode, &'static str) {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    // Under one lock: the n-th call recorded gets the n-th answer.
    let mut calls = r.calls.lock().expect("calls");
    calls.push((header("gpu-signature"), header("gpu-delivery"), body));
    let next = {
        let mut answers = r.answers.lock().expect("answers");
        if answers.is_empty() {
            200
        } else {
            answers.remove(0)
        }
    };
    drop(calls);
    (
        StatusCode::from_u16(next).unwrap_or(StatusCode::OK),
        "thanks",
    )
}

async fn receiver(answers: Vec<u16>) -> (String, Received) {
    let received = Received {
        answers: Arc::new(Mutex::new(answers)),
        ..Received::default()
    };
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/hook", listener.local_addr().expect("an address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

/// The `v1` signatures of a `Gpu-Signature` header that `secret` makes.
fn signed_by(header: &str, secret: &str, body: &str) -> bool {
    let mut parts = header.split(',');
    let Some(t) = parts.next().and_then(|p| p.strip_prefix("t=")) else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("a key");
    mac.update(format!("{t}.{body}").as_bytes());
    let want: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    parts.any(|p| p.strip_prefix("v1=") == Some(want.as_str()))
}

async fn calls_until(received: &Received, count: usize) -> Vec<(String, String, String)> {
    for _ in 0..200 {
        let calls = received.calls.lock().expect("calls").clone();
        if calls.len() >= count {
            return calls;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the receiver got fewer than {count} calls");
}

async fn webhooks_are_signed_retried_resent_and_rolled(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let token = create_token(&app, &owner, "hooks", &["read", "servers:write"]).await;
    let reader = create_token(&app, &owner, "reader", &["read"]).await;
    // The first answer is a 500: the delivery is tried again later.
    let (url, received) = receiver(vec![500]).await;
    let new = json!({ "url": url, "description": "CI", "events": ["order.*"] });
    let read_only = app
        .api("POST", "/api/v1/webhooks", Some(&reader), Some(&new), &[])
        .await;
    assert_eq!(read_only.status, 403);
    for (bad, field) in [
        (json!({ "url": "ftp://x.example/", "events": ["*"] }), "url"),
        (
            json!({ "url": url, "events": ["server.exploded"] }),
            "events",
        ),
        (json!({ "url": url, "events": [] }), "events"),
    ] {
        let refused = app
            .api("POST", "/api/v1/webhooks", Some(&token), Some(&bad), &[])
            .await;
        assert_eq!(refused.status, 422, "{}", refused.body);
        assert_eq!(refused.json()["field"], field);
    }
    let created = app
        .api("POST", "/api/v1/webhooks", Some(&token), Some(&new), &[])
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let endpoint = created.json();
    let id = endpoint["id"].as_str().unwrap_or_default().to_owned();
    let secret = endpoint["secret"].as_str().unwrap_or_default().to_owned();
    assert!(secret.starts_with("whsec_"), "{endpoint}");
    assert_eq!(
        created.header("location"),
        format!("https://gpu.example.com/api/v1/webhooks/{id}")
    );
    let shown = app
        .api_get(&format!("/api/v1/webhooks/{id}"), &reader)
        .await
        .json();
    assert!(
        shown.get("secret").is_none(),
        "the secret is shown once: {shown}"
    );

    // An order: its first event fails with 500, and is tried again.
    app.place_order(&owner, "g-ada", "fra", &[("name", "hooked")])
        .await;
    let calls = calls_until(&received, 1).await;
    let (signature, delivery, body) = &calls[0];
    assert!(signed_by(signature, &secret, body), "{signature}");
    // Signed at the time of sending (the clock's).
    assert!(signature.starts_with(&format!("t={START}")), "{signature}");
    let event: Value = serde_json::from_str(body).expect("JSON");
    assert!(
        event["type"]
            .as_str()
            .unwrap_or_default()
            .starts_with("order."),
        "{event}"
    );
    assert!(
        event["id"].as_str().unwrap_or_default().starts_with("evt_"),
        "{event}"
    );
    let deliveries = format!("/api/v1/webhooks/{id}/deliveries");
    let mut first = Value::Null;
    for _ in 0..100 {
        let list = app.api_get(&deliveries, &reader).await.json();
        first = list["data"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|d| d["id"] == delivery.as_str())
            .cloned()
            .unwrap_or_default();
        if first["attempts"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(first["state"], "pending", "{first}");
    assert_eq!(first["last_status"], 500, "{first}");
    assert_eq!(first["last_response"], "thanks");
    // A minute later it goes again, and succeeds.
    clock.advance(61);
    let mut retried = Value::Null;
    for _ in 0..200 {
        let list = app.api_get(&deliveries, &reader).await.json();
        retried = list["data"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|d| d["id"] == delivery.as_str())
            .cloned()
            .unwrap_or_default();
        if retried["state"] == "succeeded" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(retried["state"], "succeeded", "{retried}");
    assert_eq!(retried["attempts"], 2);
    assert_eq!(retried["last_status"], 200);
    let again = received.calls.lock().expect("calls").clone();
    assert!(again.iter().filter(|c| &c.1 == delivery).count() >= 2);

    // Sent again on request: the same event, a new delivery.
    let resent = app
        .api(
            "POST",
            &format!("{deliveries}/{delivery}/resend"),
            Some(&token),
            None,
            &[],
        )
        .await;
    assert_eq!(resent.status, 202, "{}", resent.body);
    let resent_id = resent.json()["id"].as_str().unwrap_or_default().to_owned();
    assert_ne!(resent_id, *delivery);
    let before = received.calls.lock().expect("calls").len();
    let calls = calls_until(&received, before + 1).await;
    assert!(calls.iter().any(|c| c.1 == resent_id && c.2 == *body));

    let audit = app.get_as(&owner, "/en/audit").await;
    assert!(
        audit.body.contains("added a webhook endpoint"),
        "{}",
        audit.body
    );

    // Rolled: both secrets sign for a day, then only the new one.
    let rolled = app
        .api(
            "POST",
            &format!("/api/v1/webhooks/{id}/secret"),
            Some(&token),
            None,
            &[],
        )
        .await;
    assert_eq!(rolled.status, 200, "{}", rolled.body);
    let new_secret = rolled.json()["secret"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_ne!(new_secret, secret);
    assert!(rolled.json()["previous_secret_until"].is_string());
    let pinged = app
        .api(
            "POST",
            &format!("/api/v1/webhooks/{id}/ping"),
            Some(&token),
            None,
            &[],
        )
        .await;
    assert_eq!(pinged.status, 202, "{}", pinged.body);
    let ping_id = pinged.json()["id"].as_str().unwrap_or_default().to_owned();
    let before = received.calls.lock().expect("calls").len();
    let calls = calls_until(&received, before + 1).await;
    let ping = calls.iter().find(|c| c.1 == ping_id).expect("the ping");
    assert!(ping.2.contains("\"type\":\"ping\""), "{}", ping.2);
    assert!(signed_by(&ping.0, &new_secret, &ping.2));
    assert!(
        signed_by(&ping.0, &secret, &ping.2),
        "the old secret signs for a day"
    );
    clock.advance(86_401);
    let pinged = app
        .api(
            "POST",
            &format!("/api/v1/webhooks/{id}/ping"),
            Some(&token),
            None,
            &[],
        )
        .await;
    let ping_id = pinged.json()["id"].as_str().unwrap_or_default().to_owned();
    let before = received.calls.lock().expect("calls").len();
    let calls = calls_until(&received, before + 1).await;
    let ping = calls
        .iter()
        .find(|c| c.1 == ping_id)
        .expect("the second ping");
    assert!(signed_by(&ping.0, &new_secret, &ping.2));
    assert!(
        !signed_by(&ping.0, &secret, &ping.2),
        "the old secret stopped"
    );

    // Paused, then deleted: nothing more is sent.
    let paused = app
        .api(
            "PATCH",
            &format!("/api/v1/webhooks/{id}"),
            Some(&token),
            Some(&json!({ "enabled": false })),
            &[],
        )
        .await;
    assert_eq!(paused.status, 200, "{}", paused.body);
    assert_eq!(paused.json()["enabled"], false);
    let deleted = app
        .api(
            "DELETE",
            &format!("/api/v1/webhooks/{id}"),
            Some(&token),
            None,
            &[],
        )
        .await;
    assert_eq!(deleted.status, 204);
    let gone = app.api_get(&deliveries, &reader).await;
    assert_eq!(gone.status, 404);
    app.finish().await;
}

async fn webhooks_are_managed_in_the_portal_in_both_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let billing = app.invite(&owner, "bill@a.example", "billing").await;
    let (url, received) = receiver(vec![]).await;
    let empty = app.get_as(&owner, "/en/webhooks").await;
    assert_eq!(empty.status, 200);
    assert!(empty.body.contains("Add an endpoint"), "{}", empty.body);
    assert!(
        empty.body.contains("invoice.*"),
        "owners may choose invoices"
    );
    let zh = app.get_as(&owner, "/zh/webhooks").await;
    assert!(zh.body.contains("添加端点") && zh.body.contains("要发送的事件"));
    assert_eq!(app.get_as(&billing, "/en/webhooks").await.status, 403);
    let tech_page = app.get_as(&tech, "/en/webhooks").await;
    assert!(
        !tech_page.body.contains("invoice.*"),
        "technical members see no money"
    );

    // Refused: an address that is not one, invoices for a technical member.
    let bad = app
        .post_as(
            &owner,
            "/en/webhooks",
            "/en/webhooks",
            &[("url", "ftp://x.example/"), ("events", "server.*")],
            &[],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.body);
    assert!(
        bad.body.contains("Enter an https:// address"),
        "{}",
        bad.body
    );
    assert!(bad.body.contains("aria-invalid=\"true\""), "{}", bad.body);
    let money = app
        .post_as(
            &tech,
            "/en/webhooks",
            "/en/webhooks",
            &[("url", url.as_str()), ("events", "invoice.*")],
            &[],
        )
        .await;
    assert_eq!(money.status, 422, "{}", money.body);

    let added = app
        .post_as(
            &owner,
            "/en/webhooks",
            "/en/webhooks",
            &[
                ("url", url.as_str()),
                ("description", "ops"),
                ("events", "server.*"),
                ("events", "stock.*"),
            ],
            &[],
        )
        .await;
    assert_eq!(added.status, 303, "{}", added.body);
    assert_eq!(added.location(), "/en/webhooks#new-secret");
    let shown = app.get_as(&owner, "/en/webhooks").await;
    let secret = shown
        .body
        .split("id=\"webhook-secret\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .unwrap_or_default()
        .to_owned();
    assert!(secret.starts_with("whsec_"), "{}", shown.body);
    assert!(shown.body.contains("server.*, stock.*"));
    let again = app.get_as(&owner, "/en/webhooks").await;
    assert!(!again.body.contains(&secret), "the secret is shown once");
    let id = again
        .body
        .split("data-endpoint=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();

    // A test event arrives signed, and the page shows it delivered.
    let pinged = app
        .post_as(
            &owner,
            "/en/webhooks",
            "/en/webhooks/ping",
            &[("id", id.as_str())],
            &[],
        )
        .await;
    assert_eq!(pinged.location(), "/en/webhooks?done=pinged");
    let calls = calls_until(&received, 1).await;
    assert!(signed_by(&calls[0].0, &secret, &calls[0].2));
    let delivered = app
        .wait_for(&owner, "/en/webhooks", "data-state=\"succeeded\"")
        .await;
    assert!(delivered.contains("<code>ping</code>"), "{delivered}");
    let zh = app.get_as(&owner, "/zh/webhooks").await;
    assert!(zh.body.contains("已送达"), "{}", zh.body);

    // Paused; deleted only when confirmed.
    let paused = app
        .post_as(
            &owner,
            "/en/webhooks",
            "/en/webhooks/toggle",
            &[("id", id.as_str())],
            &[],
        )
        .await;
    assert_eq!(paused.location(), "/en/webhooks?done=changed");
    assert!(app
        .get_as(&owner, "/en/webhooks")
        .await
        .body
        .contains("Paused"));
    let unconfirmed = app
        .post_as(
            &owner,
            "/en/webhooks",
            "/en/webhooks/delete",
            &[("id", id.as_str())],
            &[],
        )
        .await;
    assert_eq!(unconfirmed.status, 422);
    let deleted = app
        .post_as(
            &owner,
            "/en/webhooks",
            "/en/webhooks/delete",
            &[("id", id.as_str()), ("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(deleted.location(), "/en/webhooks?done=deleted");
    let gone = app.get_as(&owner, "/en/webhooks").await;
    assert!(gone.body.contains("No endpoints yet."), "{}", gone.body);
    app.finish().await;
}
