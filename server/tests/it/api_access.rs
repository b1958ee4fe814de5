//! The API's authorization matrix: every API route × each kind of token
//! (scopes × the creator's role × organization) gets exactly the status in
//! its row. A route without a row fails the test. Tokens that stopped
//! working (revoked, expired, creator demoted or gone) and a signed-in
//! browser's session cookie get 401 on every token route.

use crate::common::{self, TestApp, TestDb};
use serde_json::{json, Value};
use std::collections::BTreeSet;

on_both_databases!(every_api_route_answers_each_token_as_its_row_says);
on_both_databases!(tokens_that_stopped_working_and_sessions_get_401_everywhere);

/// Columns: no token, owner (all scopes), owner (read only), technical
/// (read + servers:write), billing (billing:read), owner of organization B
/// (all scopes) on A's ids.
const CALLERS: [&str; 6] = [
    "none",
    "owner",
    "owner-read",
    "technical",
    "billing",
    "other",
];

/// (method, route, concrete path, JSON body, statuses per caller). Paths
/// may name `{server_a}`, `{order_a}` and `{invoice_a}`.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    [u16; 6],
);

const PUBLIC: [u16; 6] = [200; 6];

#[rustfmt::skip]
const ROWS: &[Row] = &[
    ("GET", "/api/v1/openapi.json", "/api/v1/openapi.json", None, PUBLIC),
    ("GET", "/api/v1/plans", "/api/v1/plans", None, PUBLIC),
    ("GET", "/api/v1/stock", "/api/v1/stock", None, PUBLIC),
    ("GET", "/api/v1/stock/feed.atom", "/api/v1/stock/feed.atom", None, PUBLIC),
    ("GET", "/api/v1/latency", "/api/v1/latency", None, PUBLIC),
    ("GET", "/api/v1/sites", "/api/v1/sites", None, PUBLIC),
    ("GET", "/api/v1/images", "/api/v1/images", None, PUBLIC),
    ("GET", "/api/v1/add-ons", "/api/v1/add-ons", None, PUBLIC),
    // A quote is read: every organization prices its own.
    ("POST", "/api/v1/quotes", "/api/v1/quotes", Some(r#"{"plan": "g-ada", "site": "fra"}"#), [401, 200, 200, 200, 403, 200]),
    // SSH keys are the token creator's: B's token and A's other members
    // find none of the owner's.
    ("GET", "/api/v1/ssh-keys", "/api/v1/ssh-keys", None, [401, 200, 200, 200, 403, 200]),
    ("GET", "/api/v1/ssh-keys/{id}", "/api/v1/ssh-keys/nope", None, [401, 404, 404, 404, 403, 404]),
    ("POST", "/api/v1/ssh-keys", "/api/v1/ssh-keys", Some(r#"{"public_key": "ssh-ed25519 nope"}"#), [401, 422, 403, 422, 403, 422]),
    ("DELETE", "/api/v1/ssh-keys/{id}", "/api/v1/ssh-keys/nope", None, [401, 404, 403, 404, 403, 404]),
    // Events: every organization reads its own feed.
    ("GET", "/api/v1/events", "/api/v1/events", None, [401, 200, 200, 200, 403, 200]),
    // Webhooks: reading needs read, changing servers:write; ids are the
    // organization's.
    ("GET", "/api/v1/webhooks", "/api/v1/webhooks", None, [401, 200, 200, 200, 403, 200]),
    ("POST", "/api/v1/webhooks", "/api/v1/webhooks", Some(r#"{"url": "ftp://x.example/", "events": ["*"]}"#), [401, 422, 403, 422, 403, 422]),
    ("GET", "/api/v1/webhooks/{id}", "/api/v1/webhooks/nope", None, [401, 404, 404, 404, 403, 404]),
    ("PATCH", "/api/v1/webhooks/{id}", "/api/v1/webhooks/nope", Some(r#"{"enabled": false}"#), [401, 404, 403, 404, 403, 404]),
    ("DELETE", "/api/v1/webhooks/{id}", "/api/v1/webhooks/nope", None, [401, 404, 403, 404, 403, 404]),
    ("POST", "/api/v1/webhooks/{id}/secret", "/api/v1/webhooks/nope/secret", None, [401, 404, 403, 404, 403, 404]),
    ("POST", "/api/v1/webhooks/{id}/ping", "/api/v1/webhooks/nope/ping", None, [401, 404, 403, 404, 403, 404]),
    ("GET", "/api/v1/webhooks/{id}/deliveries", "/api/v1/webhooks/nope/deliveries", None, [401, 404, 404, 404, 403, 404]),
    ("POST", "/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend", "/api/v1/webhooks/nope/deliveries/nope/resend", None, [401, 404, 403, 404, 403, 404]),
    // Reading servers: read scope; B lists its own (none of A's).
    ("GET", "/api/v1/servers", "/api/v1/servers", None, [401, 200, 200, 200, 403, 200]),
    ("GET", "/api/v1/servers/{id}", "/api/v1/servers/{server_a}", None, [401, 200, 200, 200, 403, 404]),
    // Writes with a refused value: the scope decides before the value does,
    // and B's token learns nothing about A's server.
    ("PATCH", "/api/v1/servers/{id}", "/api/v1/servers/{server_a}", Some(r#"{"name": "not a name!"}"#), [401, 422, 403, 422, 403, 404]),
    ("POST", "/api/v1/servers/{id}/power", "/api/v1/servers/{server_a}/power", Some(r#"{"action": "explode"}"#), [401, 422, 403, 422, 403, 404]),
    ("POST", "/api/v1/servers/{id}/reinstall", "/api/v1/servers/{server_a}/reinstall", Some(r#"{"image": "windows-95"}"#), [401, 422, 403, 422, 403, 404]),
    ("POST", "/api/v1/servers/{id}/root-password/take", "/api/v1/servers/{server_a}/root-password/take", None, [401, 200, 403, 409, 403, 404]),
    ("POST", "/api/v1/servers/{id}/root-password", "/api/v1/servers/{server_a}/root-password", None, [401, 202, 403, 409, 403, 404]),
    ("POST", "/api/v1/servers/{id}/cancellation", "/api/v1/servers/{server_a}/cancellation", Some(r#"{"at": "1999-01-31"}"#), [401, 409, 403, 409, 403, 404]),
    ("DELETE", "/api/v1/servers/{id}/cancellation", "/api/v1/servers/{server_a}/cancellation", None, [401, 409, 403, 409, 403, 404]),
    ("GET", "/api/v1/servers/{id}/snapshots", "/api/v1/servers/{server_a}/snapshots", None, [401, 200, 200, 200, 403, 404]),
    ("POST", "/api/v1/servers/{id}/snapshots", "/api/v1/servers/{server_a}/snapshots", Some(r#"{"name": "not a name!"}"#), [401, 422, 403, 422, 403, 404]),
    ("GET", "/api/v1/servers/{id}/snapshots/{snapshot_id}", "/api/v1/servers/{server_a}/snapshots/nope", None, [401, 404, 404, 404, 403, 404]),
    ("POST", "/api/v1/servers/{id}/snapshots/{snapshot_id}/restore", "/api/v1/servers/{server_a}/snapshots/nope/restore", None, [401, 404, 403, 404, 403, 404]),
    ("DELETE", "/api/v1/servers/{id}/snapshots/{snapshot_id}", "/api/v1/servers/{server_a}/snapshots/nope", None, [401, 404, 403, 404, 403, 404]),
    ("POST", "/api/v1/servers/{id}/console-tickets", "/api/v1/servers/{server_a}/console-tickets", Some(r#"{"kind": "teletype"}"#), [401, 422, 403, 422, 403, 404]),
    // Orders: technical members see the orders they placed (the owner
    // placed A's), as on the portal.
    ("GET", "/api/v1/orders", "/api/v1/orders", None, [401, 200, 200, 200, 403, 200]),
    ("GET", "/api/v1/orders/{id}", "/api/v1/orders/{order_a}", None, [401, 200, 200, 404, 403, 404]),
    // Without an Idempotency-Key nothing is placed.
    ("POST", "/api/v1/orders", "/api/v1/orders", Some(r#"{"plan": "g-ada", "site": "fra", "name": "x"}"#), [401, 400, 403, 400, 403, 400]),
    // Money: billing:read only.
    ("GET", "/api/v1/invoices", "/api/v1/invoices", None, [401, 200, 403, 403, 200, 200]),
    ("GET", "/api/v1/invoices/{id}", "/api/v1/invoices/{invoice_a}", None, [401, 200, 403, 403, 200, 404]),
    ("GET", "/api/v1/invoices/{id}/pdf", "/api/v1/invoices/{invoice_a}/pdf", None, [401, 200, 403, 403, 200, 404]),
    ("GET", "/api/v1/credit-notes", "/api/v1/credit-notes", None, [401, 200, 403, 403, 200, 200]),
    // Stock alerts: reading needs read, setting and removing servers:write.
    ("GET", "/api/v1/stock-alerts", "/api/v1/stock-alerts", None, [401, 200, 200, 200, 403, 200]),
    ("GET", "/api/v1/stock-alerts/{id}", "/api/v1/stock-alerts/nope", None, [401, 404, 404, 404, 403, 404]),
    ("POST", "/api/v1/stock-alerts", "/api/v1/stock-alerts", Some(r#"{"plan": "no-such-plan", "site": "fra"}"#), [401, 422, 403, 422, 403, 422]),
    ("DELETE", "/api/v1/stock-alerts/{id}", "/api/v1/stock-alerts/nope", None, [401, 404, 403, 404, 403, 404]),
];

/// Organization A (owner, technical, billing members) with a running
/// server, its order and first invoice; organization B's owner.
pub struct World {
    pub owner: reqwest::Client,
    pub technical: reqwest::Client,
    pub billing: reqwest::Client,
    pub other: reqwest::Client,
    pub server_a: String,
    pub order_a: String,
    pub invoice_a: String,
}

pub async fn world(app: &TestApp) -> World {
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    let technical = app.invite(&owner, "tech@a.example", "technical").await;
    let billing = app.invite(&owner, "bill@a.example", "billing").await;
    let placed = app
        .place_order(&owner, "g-ada", "ams", &[("name", "a-box")])
        .await;
    let server_a = common::server_id(placed.location());
    app.wait_for_server(&owner, &server_a).await;
    let (order_a, _) = app.newest_order_server(&owner).await;
    let billing_page = app
        .wait_for(&owner, "/en/billing", "href=\"/en/invoices/")
        .await;
    let invoice_a = billing_page
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned();
    assert!(!server_a.is_empty() && !order_a.is_empty() && !invoice_a.is_empty());
    World {
        owner,
        technical,
        billing,
        other,
        server_a,
        order_a,
        invoice_a,
    }
}

const ALL: &[&str] = &["read", "servers:write", "billing:read"];

async fn every_api_route_answers_each_token_as_its_row_says(db: TestDb) {
    let routes: BTreeSet<(String, String)> = server::http::api::inventory()
        .into_iter()
        .map(|(method, path, _)| (method, path))
        .collect();
    let rows: BTreeSet<(String, String)> = ROWS
        .iter()
        .map(|r| (r.0.to_owned(), r.1.to_owned()))
        .collect();
    let missing: Vec<_> = routes.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&routes).collect();
    assert!(missing.is_empty(), "API routes without a row: {missing:?}");
    assert!(
        stale.is_empty(),
        "rows for API routes that don't exist: {stale:?}"
    );

    let app = TestApp::spawn(db).await;
    let w = world(&app).await;
    let create = common::api::create_token;
    let tokens = [
        None,
        Some(create(&app, &w.owner, "all", ALL).await),
        Some(create(&app, &w.owner, "read-only", &["read"]).await),
        Some(create(&app, &w.technical, "tech", &["read", "servers:write"]).await),
        Some(create(&app, &w.billing, "money", &["billing:read"]).await),
        Some(create(&app, &w.other, "b", ALL).await),
    ];
    let mut failures = Vec::new();
    for (method, _, path, body, wants) in ROWS {
        let path = path
            .replace("{server_a}", &w.server_a)
            .replace("{order_a}", &w.order_a)
            .replace("{invoice_a}", &w.invoice_a);
        let body: Option<Value> = body.map(|b| serde_json::from_str(b).expect("row body"));
        for (i, token) in tokens.iter().enumerate() {
            let got = app
                .api(method, &path, token.as_deref(), body.as_ref(), &[])
                .await;
            if got.status != wants[i] {
                failures.push(format!(
                    "{method} {path} as {}: wanted {}, got {} {}",
                    CALLERS[i], wants[i], got.status, got.body
                ));
            }
            // Every refusal is the one error shape.
            if got.status >= 400 && got.code().is_empty() {
                failures.push(format!(
                    "{method} {path} as {}: no error code: {}",
                    CALLERS[i], got.body
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // What B's token reads is B's: A's server never appears.
    let listed = app
        .api_get("/api/v1/servers", tokens[5].as_deref().unwrap_or_default())
        .await;
    assert!(!listed.body.contains(&w.server_a), "{}", listed.body);
    let listed = app
        .api_get("/api/v1/orders", tokens[5].as_deref().unwrap_or_default())
        .await;
    assert!(!listed.body.contains(&w.order_a), "{}", listed.body);
    app.finish().await;
}

async fn tokens_that_stopped_working_and_sessions_get_401_everywhere(db: TestDb) {
    let start = 1_800_000_000;
    let clock = backend::Clock::manual(start);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let technical = app.invite(&owner, "tech@a.example", "technical").await;
    let leaver = app.invite(&owner, "leaver@a.example", "technical").await;
    let create = common::api::create_token;
    let revoked = create(&app, &owner, "to-revoke", ALL).await;
    common::api::revoke_token(&app, &owner, "to-revoke").await;
    let expiring = common::api::create_token_expiring(&app, &owner, "month", &["read"], "30").await;
    let demoted = create(&app, &technical, "tech", &["read", "servers:write"]).await;
    let gone = create(&app, &leaver, "leaver", &["read"]).await;
    // Each works before anything happens to it.
    for token in [&expiring, &demoted, &gone] {
        assert_eq!(app.api_get("/api/v1/servers", token).await.status, 200);
    }
    // The technical member becomes a billing member: servers:write is more
    // than that role allows. The leaver is removed.
    let members = app.get_as(&owner, "/en/members").await.body;
    for (email, action, role) in [
        ("tech@a.example", "role", "billing"),
        ("leaver@a.example", "remove", ""),
    ] {
        let user_id = common::user_id_of(&members, email);
        let page = app
            .post_as(
                &owner,
                "/en/members",
                &format!("/en/members/{action}"),
                &[("user_id", &user_id), ("role", role), ("confirm", "yes")],
                &[],
            )
            .await;
        assert_eq!(
            page.status,
            303,
            "{action} {email}: {}",
            common::strip_tags(&page.body)
        );
    }
    clock.advance(31 * 86_400);
    // A browser signed in now (sessions end after a month too), without a
    // token: its session cookie is not a credential here.
    let browser = app.member("fresh@c.example", "Fresh", "Org C").await;
    let session_only = app.get_as(&browser, "/en/servers").await;
    assert_eq!(session_only.status, 200, "the browser is signed in");
    let dead = [
        (Some(revoked.as_str()), "token_revoked"),
        (Some(expiring.as_str()), "token_expired"),
        (Some(demoted.as_str()), "token_creator_lost_role"),
        (Some(gone.as_str()), "token_creator_lost_role"),
        (None, "unauthorized"),
        (
            Some("gpu_0000000000000000000000000000000000000000000000000000000000000000"),
            "unauthorized",
        ),
        (Some("not-even-a-token"), "unauthorized"),
    ];
    let mut failures = Vec::new();
    for (method, path, scope) in server::http::api::inventory() {
        let path = path.replace("{id}", "x").replace("{snapshot_id}", "y");
        for (token, code) in &dead {
            let got = app
                .api_with(&browser, &method, &path, *token, Some(&json!({})), &[])
                .await;
            let (want_status, want_code) = match scope {
                Some(_) => (401, *code),
                None => (if method == "GET" { 200 } else { 405 }, ""),
            };
            if got.status != want_status || (want_status == 401 && got.code() != want_code) {
                failures.push(format!(
                    "{method} {path} with {code}: got {} {}",
                    got.status, got.body
                ));
            }
            if got.status == 401 && !got.header("www-authenticate").starts_with("Bearer") {
                failures.push(format!("{method} {path}: 401 without WWW-Authenticate"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    app.finish().await;
}
