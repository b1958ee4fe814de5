//! Per-token rate limits, counted in the database so replicas share them;
//! the error shape in both languages; a body that isn't JSON.

use crate::common::{self, TestApp, TestDb};
use serde_json::json;

on_both_databases!(a_token_is_limited_across_replicas_with_retry_after);
on_both_databases!(errors_are_json_in_the_callers_language);

async fn a_token_is_limited_across_replicas_with_retry_after(db: TestDb) {
    // On a minute's boundary (1.8e9 is one), so the window doesn't roll
    // over mid-test.
    let clock = backend::Clock::manual(1_800_000_000);
    let app = TestApp::spawn_configured(db, clock.clone(), |c| c.api_rate_limit = 5).await;
    let replica = app.replica(clock.clone(), |c| c.api_rate_limit = 5).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let token = common::api::create_token(&app, &owner, "busy", &["read"]).await;
    let other = common::api::create_token(&app, &owner, "calm", &["read"]).await;
    let client = reqwest::Client::new();
    let on = |base: &str| {
        client
            .get(format!("{base}/api/v1/servers"))
            .bearer_auth(&token)
            .send()
    };
    // Five requests, alternating between the replicas.
    for (i, base) in [&app.base, &replica, &app.base, &replica, &app.base]
        .iter()
        .enumerate()
    {
        let answer = on(base).await.expect("request");
        assert_eq!(answer.status(), 200);
        let remaining = answer.headers()["x-ratelimit-remaining"]
            .to_str()
            .unwrap_or("");
        assert_eq!(remaining, (4 - i).to_string());
        assert_eq!(answer.headers()["x-ratelimit-limit"], "5");
    }
    let limited = on(&replica).await.expect("request");
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "60");
    let body: serde_json::Value = limited.json().await.expect("JSON");
    assert_eq!(body["code"], "rate_limited");
    // Another token of the same member is counted apart.
    assert_eq!(app.api_get("/api/v1/servers", &other).await.status, 200);
    // Public endpoints are not counted.
    assert_eq!(
        app.api("GET", "/api/v1/stock", Some(&token), None, &[])
            .await
            .status,
        200
    );
    // The next window starts afresh.
    clock.advance(60);
    assert_eq!(on(&app.base).await.expect("request").status(), 200);
    app.finish().await;
}

async fn errors_are_json_in_the_callers_language(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let token = common::api::create_token(&app, &owner, "t", &["read", "servers:write"]).await;
    let zh = [("accept-language", "zh-CN,zh;q=0.9")];
    let missing = app
        .api("GET", "/api/v1/servers/nope", Some(&token), None, &zh)
        .await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.code(), "not_found");
    assert_eq!(missing.json()["title"], "没有找到该资源。");
    assert_eq!(missing.header("content-type"), "application/problem+json");
    let missing = app
        .api("GET", "/api/v1/servers/nope", Some(&token), None, &[])
        .await;
    assert_eq!(missing.json()["title"], "No such resource.");
    // Not a path of the API, not a method of the path.
    assert_eq!(
        app.api("GET", "/api/v1/nothing/here", None, None, &[])
            .await
            .code(),
        "not_found"
    );
    let wrong = app
        .api("PUT", "/api/v1/servers", Some(&token), None, &[])
        .await;
    assert_eq!(
        (wrong.status, wrong.code().as_str()),
        (405, "method_not_allowed")
    );
    // Bodies: not JSON, JSON of the wrong shape, no content type.
    let orders = "/api/v1/orders";
    let key = [("idempotency-key", "k-1")];
    let not_json = app
        .client
        .post(format!("{}{orders}", app.base))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .header("idempotency-key", "k-1")
        .body("{not json")
        .send()
        .await
        .expect("request");
    assert_eq!(not_json.status(), 400);
    let body: serde_json::Value = not_json.json().await.expect("a problem document");
    assert_eq!(body["code"], "malformed_body");
    let shapeless = app
        .api(
            "POST",
            orders,
            Some(&token),
            Some(&json!({"plan": 7})),
            &key,
        )
        .await;
    assert_eq!(
        (shapeless.status, shapeless.code().as_str()),
        (422, "invalid")
    );
    let plain = app
        .client
        .post(format!("{}{orders}", app.base))
        .bearer_auth(&token)
        .header("idempotency-key", "k-1")
        .body("plan=g-ada")
        .send()
        .await
        .expect("request");
    assert_eq!(plain.status(), 415);
    // A refusal from the backend (here the order's) is worded for the
    // caller too.
    let zh_key = [("idempotency-key", "k-2"), ("accept-language", "zh-CN")];
    let unknown = app
        .api(
            "POST",
            orders,
            Some(&token),
            Some(&json!({"plan": "g-h100", "site": "fra", "name": "x"})),
            &zh_key,
        )
        .await;
    assert_eq!(
        (unknown.status, unknown.code().as_str()),
        (422, "unknown_choice")
    );
    assert_eq!(unknown.header("content-language"), "zh");
    assert!(
        unknown.json()["title"]
            .as_str()
            .is_some_and(|m| !m.is_ascii()),
        "{}",
        unknown.json()
    );
    // The API sets no cookie, whatever it answers.
    let answer = app.api_get("/api/v1/servers", &token).await;
    assert!(answer.headers.get("set-cookie").is_none());
    app.finish().await;
}
