//! What the API promises every script, beyond any one resource: bodies are
//! JSON objects with no unknown fields, a write retried with its
//! `Idempotency-Key` runs once, `limit` is 1–100, errors are RFC 9457
//! problem documents naming their request, 401/403 say why in
//! `WWW-Authenticate`, 405 says what is allowed. (Every answer here is also
//! checked against `/api/v1/openapi.json` by `common::contract`.)

use crate::common::{self, api::create_token, TestApp, TestDb};
use serde_json::{json, Value};

on_both_databases!(
    bodies_are_json_objects_without_unknown_fields,
    a_retried_write_runs_once,
    pages_methods_and_tokens_are_refused_as_documented,
);

const ALL: &[&str] = &["read", "servers:write", "billing:read"];

/// An owner's token and a running server of theirs.
async fn owner_with_server(app: &TestApp) -> (String, String) {
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app
        .place_order(&owner, "g-ada", "ams", &[("name", "box-1")])
        .await;
    let server = common::server_id(placed.location());
    app.wait_for_server(&owner, &server).await;
    let token = create_token(app, &owner, "script", ALL).await;
    (token, server)
}

async fn bodies_are_json_objects_without_unknown_fields(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (token, server) = owner_with_server(&app).await;
    let orders_before = app.api_get("/api/v1/orders", &token).await.json()["data"].clone();

    // An array read by position would place a billed order: refused.
    let key = [("idempotency-key", "array-1")];
    let array = json!(["g-l40s", "ams", "x"]);
    let refused = app
        .api("POST", "/api/v1/orders", Some(&token), Some(&array), &key)
        .await;
    assert_eq!(
        (refused.status, refused.code().as_str()),
        (400, "malformed_body"),
        "{}",
        refused.body
    );
    let cancel = format!("/api/v1/servers/{server}/cancellation");
    let nulls = json!([null, null]);
    let refused = app
        .api("POST", &cancel, Some(&token), Some(&nulls), &[])
        .await;
    assert_eq!(refused.code(), "malformed_body", "{}", refused.body);
    for scalar in [json!("g-ada"), json!(7), json!(null)] {
        let refused = app
            .api("POST", &cancel, Some(&token), Some(&scalar), &[])
            .await;
        assert_eq!(refused.status, 400, "{scalar}: {}", refused.body);
    }
    let orders_after = app.api_get("/api/v1/orders", &token).await.json()["data"].clone();
    assert_eq!(orders_before, orders_after, "no order was placed");
    let shown = app
        .api_get(&format!("/api/v1/servers/{server}"), &token)
        .await;
    assert_eq!(shown.status, 200);
    assert!(
        shown.json()["cancel_at"].is_null(),
        "no cancellation was scheduled: {}",
        shown.body
    );

    // Every body refuses a field it does not know, naming it.
    let with = |mut body: Value| {
        body["surprise"] = json!(1);
        body
    };
    let bodies = [
        (
            "PATCH",
            format!("/api/v1/servers/{server}"),
            with(json!({ "name": "box-2" })),
        ),
        (
            "POST",
            format!("/api/v1/servers/{server}/power"),
            with(json!({ "action": "reboot" })),
        ),
        ("POST", cancel.clone(), with(json!({}))),
        (
            "POST",
            format!("/api/v1/servers/{server}/snapshots"),
            with(json!({ "name": "s1" })),
        ),
        (
            "POST",
            format!("/api/v1/servers/{server}/console-tickets"),
            with(json!({ "kind": "serial" })),
        ),
        (
            "POST",
            "/api/v1/orders".to_owned(),
            with(json!({ "plan": "g-ada", "site": "ams", "name": "b" })),
        ),
        (
            "POST",
            "/api/v1/stock-alerts".to_owned(),
            with(json!({ "plan": "g-ada", "site": "ams" })),
        ),
    ];
    for (i, (method, path, body)) in bodies.iter().enumerate() {
        let key = format!("unknown-{i}");
        let answer = app
            .api(
                method,
                path,
                Some(&token),
                Some(body),
                &[("idempotency-key", &key)],
            )
            .await;
        assert_eq!(
            (answer.status, answer.code().as_str()),
            (422, "invalid"),
            "{method} {path}: {}",
            answer.body
        );
        assert!(
            answer.json()["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("surprise"),
            "{}",
            answer.body
        );
    }
    // Nothing of the above happened.
    let shown = app
        .api_get(&format!("/api/v1/servers/{server}"), &token)
        .await
        .json();
    assert_eq!(shown["name"], "box-1");
    let snapshots = app
        .api_get(&format!("/api/v1/servers/{server}/snapshots"), &token)
        .await
        .json();
    assert_eq!(snapshots["data"], json!([]), "{snapshots}");
    app.finish().await;
}

async fn a_retried_write_runs_once(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (token, server) = owner_with_server(&app).await;
    let snapshots = format!("/api/v1/servers/{server}/snapshots");
    let key = [("idempotency-key", "snap-1")];
    let body = json!({ "name": "before-upgrade" });
    let first = app
        .api("POST", &snapshots, Some(&token), Some(&body), &key)
        .await;
    assert_eq!(first.status, 202, "{}", first.body);
    assert_eq!(first.header("idempotent-replayed"), "");
    // The retry (a lost answer, say) gets the same answer, marked.
    let retry = app
        .api("POST", &snapshots, Some(&token), Some(&body), &key)
        .await;
    assert_eq!(retry.status, 202, "{}", retry.body);
    assert_eq!(retry.header("idempotent-replayed"), "true");
    assert_eq!(retry.json()["id"], first.json()["id"]);
    let listed = app.api_get(&snapshots, &token).await.json();
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1), "{listed}");
    // The key for another body, or another path, is a mistake.
    let other = json!({ "name": "after-upgrade" });
    let reused = app
        .api("POST", &snapshots, Some(&token), Some(&other), &key)
        .await;
    assert_eq!(
        (reused.status, reused.code().as_str()),
        (422, "idempotency_key_reused")
    );
    let power = format!("/api/v1/servers/{server}/power");
    let reused = app
        .api(
            "POST",
            &power,
            Some(&token),
            Some(&json!({ "action": "reboot" })),
            &key,
        )
        .await;
    assert_eq!(reused.status, 422, "{}", reused.body);
    // A refused request frees its key: fixed, it runs.
    let bad = json!({ "name": "not a name!" });
    let fix_key = [("idempotency-key", "snap-2")];
    let refused = app
        .api("POST", &snapshots, Some(&token), Some(&bad), &fix_key)
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    let fixed = json!({ "name": "nightly" });
    let fixed = app
        .api("POST", &snapshots, Some(&token), Some(&fixed), &fix_key)
        .await;
    assert_ne!(fixed.code(), "idempotency_key_reused", "{}", fixed.body);
    // A key of 101 characters, or of other than printable ASCII, is refused.
    let long = "k".repeat(101);
    let refused = app
        .api(
            "POST",
            &power,
            Some(&token),
            Some(&json!({ "action": "reboot" })),
            &[("idempotency-key", &long)],
        )
        .await;
    assert_eq!(
        (refused.status, refused.code().as_str()),
        (400, "idempotency_key_required")
    );
    app.finish().await;
}

async fn pages_methods_and_tokens_are_refused_as_documented(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let token = create_token(&app, &owner, "script", ALL).await;
    let reader = create_token(&app, &owner, "reader", &["read"]).await;

    for limit in ["0", "101", "-1", "2147483648", "ten"] {
        let path = format!("/api/v1/servers?limit={limit}");
        let answer = app.api_get(&path, &token).await;
        assert_eq!(
            (answer.status, answer.code().as_str()),
            (400, "bad_request"),
            "limit={limit}: {}",
            answer.body
        );
    }
    for limit in ["1", "100"] {
        let path = format!("/api/v1/orders?limit={limit}");
        assert_eq!(
            app.api_get(&path, &token).await.status,
            200,
            "limit={limit}"
        );
    }

    // A problem document names its type, status and request.
    let missing = app.api_get("/api/v1/servers/nope", &token).await;
    let problem = missing.json();
    assert_eq!(missing.header("content-type"), "application/problem+json");
    assert_eq!(problem["status"], 404);
    assert!(
        problem["type"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/en/docs/api#error-not_found"),
        "{problem}"
    );
    let id = missing.header("x-request-id");
    assert!(id.starts_with("req_"), "{id}");
    assert_eq!(problem["request_id"], id.as_str());
    // A proxy's own request id is kept; a strange one is replaced.
    let kept = app
        .api(
            "GET",
            "/api/v1/plans",
            None,
            None,
            &[("x-request-id", "lb-0123456789")],
        )
        .await;
    assert_eq!(kept.header("x-request-id"), "lb-0123456789");
    let replaced = app
        .api(
            "GET",
            "/api/v1/plans",
            None,
            None,
            &[("x-request-id", "<script>")],
        )
        .await;
    assert!(replaced.header("x-request-id").starts_with("req_"));

    // 405 says which methods the path has.
    let wrong = app
        .api("PUT", "/api/v1/servers", Some(&token), None, &[])
        .await;
    assert_eq!(wrong.status, 405);
    assert!(wrong.header("allow").contains("GET"), "{:?}", wrong.headers);

    // 401 and 403 say why, as RFC 6750 asks.
    let anonymous = app.api("GET", "/api/v1/servers", None, None, &[]).await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.header("www-authenticate"), "Bearer realm=\"api\"");
    let forged = app
        .api("GET", "/api/v1/servers", Some("gpu_not-a-token"), None, &[])
        .await;
    assert_eq!(forged.status, 401);
    assert!(forged
        .header("www-authenticate")
        .contains("error=\"invalid_token\""));
    let scoped = app
        .api(
            "POST",
            "/api/v1/stock-alerts",
            Some(&reader),
            Some(&json!({ "plan": "g-ada", "site": "ams" })),
            &[],
        )
        .await;
    assert_eq!(scoped.status, 403);
    assert_eq!(scoped.json()["scope"], "servers:write");
    let challenge = scoped.header("www-authenticate");
    assert!(
        challenge.contains("error=\"insufficient_scope\"")
            && challenge.contains("scope=\"servers:write\""),
        "{challenge}"
    );
    app.finish().await;
}
