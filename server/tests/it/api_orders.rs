//! Orders through the API: placed once per Idempotency-Key with the portal's
//! rules, errors in the API's shape and language, sold out with the sites
//! that still have the plan, and who sees which orders and amounts.

use crate::common::api::create_token;
use crate::common::{TestApp, TestDb};
use serde_json::json;

on_both_databases!(
    a_token_places_an_order_once_per_idempotency_key,
    refused_orders_say_why_in_the_callers_language,
    sold_out_names_the_sites_that_still_have_the_plan,
    technical_tokens_see_their_own_orders_and_no_money,
);

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPDkijbeHwy3mV+5q/FLfrqSX8S7QEee6M83GSKNTRT7 ci@example";
const SECOND_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g second@example";

async fn post_order(
    app: &TestApp,
    token: &str,
    key: Option<&str>,
    body: &serde_json::Value,
    lang: &str,
) -> crate::common::api_client::Answer {
    let mut headers = vec![("accept-language", lang)];
    if let Some(key) = key {
        headers.push(("idempotency-key", key));
    }
    app.api("POST", "/api/v1/orders", Some(token), Some(body), &headers)
        .await
}

async fn a_token_places_an_order_once_per_idempotency_key(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let token = create_token(
        &app,
        &owner,
        "ci",
        &["read", "servers:write", "billing:read"],
    )
    .await;
    let order = json!({
        "plan": "g-ada", "site": "ams", "name": "API-1",
        "ssh_keys": [KEY, SECOND_KEY],
    });
    let placed = post_order(&app, &token, Some("run-1"), &order, "en").await;
    assert_eq!(placed.status, 201, "{}", placed.body);
    let placed = placed.json();
    let id = placed["id"].as_str().expect("an id").to_owned();
    assert!(
        ["confirmed", "fulfilled"].contains(&placed["state"].as_str().unwrap_or_default()),
        "invoice billing confirms at once: {placed}"
    );
    assert!(placed["server_id"].is_string(), "{placed}");
    assert_eq!(placed["name"], "api-1");
    assert_eq!(placed["image"], "ubuntu-24.04", "the default image");
    assert_eq!(placed["payment_url"], serde_json::Value::Null);
    assert_eq!(
        placed["currency"], "EUR",
        "owners with billing:read see money"
    );
    assert!(placed["total_cents"].as_i64().unwrap_or_default() > 0);
    assert!(placed["created_at"]
        .as_str()
        .unwrap_or_default()
        .ends_with('Z'));
    // Both pasted keys are the owner's saved keys now.
    let keys = app.get_as(&owner, "/en/keys").await.body;
    assert!(keys.contains("ci@example") && keys.contains("second@example"));

    // A retry gets the first answer back; the same key for another order is refused.
    let again = post_order(&app, &token, Some("run-1"), &order, "en").await;
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(again.json()["id"], id.as_str());
    let other = json!({ "plan": "g-l40s-x2", "site": "fra", "name": "api-1" });
    let reused = post_order(&app, &token, Some("run-1"), &other, "en").await;
    assert_eq!(reused.status, 422, "{}", reused.body);
    assert_eq!(reused.code(), "idempotency_key_reused");
    // The owner's token without billing:read reads the order without money.
    let no_money = create_token(&app, &owner, "no-money", &["read"]).await;
    let seen = app
        .api_get(&format!("/api/v1/orders/{id}"), &no_money)
        .await
        .json();
    assert_eq!(seen["id"], id.as_str());
    assert!(
        seen.get("total_cents").is_none() && seen.get("currency").is_none(),
        "{seen}"
    );

    // Listed and read back; another organization's token finds nothing.
    let list = app.api_get("/api/v1/orders", &token).await;
    assert_eq!(list.status, 200, "{}", list.body);
    let list = list.json();
    assert_eq!(list["data"][0]["id"], id.as_str());
    assert_eq!(list["next_cursor"], serde_json::Value::Null);
    let one = app.api_get(&format!("/api/v1/orders/{id}"), &token).await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert_eq!(one.json()["plan"], "g-ada");
    let stranger = app.member("owner@b.example", "Owner B", "Org B").await;
    let theirs = create_token(&app, &stranger, "b", &["read", "servers:write"]).await;
    let hidden = app.api_get(&format!("/api/v1/orders/{id}"), &theirs).await;
    assert_eq!(hidden.status, 404, "{}", hidden.body);
    assert_eq!(hidden.code(), "not_found");
    let empty = app.api_get("/api/v1/orders", &theirs).await.json();
    assert_eq!(empty["data"], json!([]));
    // The same key in another organization is another order.
    let b_order = json!({ "plan": "g-ada", "site": "ams", "name": "b-1" });
    let b_placed = post_order(&app, &theirs, Some("run-1"), &b_order, "en").await;
    assert_eq!(b_placed.status, 201, "{}", b_placed.body);
    app.finish().await;
}

async fn refused_orders_say_why_in_the_callers_language(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let write = create_token(&app, &owner, "ci", &["read", "servers:write"]).await;
    let read = create_token(&app, &owner, "dash", &["read"]).await;
    let order = json!({ "plan": "g-ada", "site": "ams", "name": "box-1" });

    let forbidden = post_order(&app, &read, Some("k"), &order, "en").await;
    assert_eq!(forbidden.status, 403, "{}", forbidden.body);
    assert_eq!(forbidden.code(), "insufficient_scope");

    let no_key = post_order(&app, &write, None, &order, "en").await;
    assert_eq!(no_key.status, 400, "{}", no_key.body);
    assert_eq!(no_key.code(), "idempotency_key_required");
    let zh = post_order(&app, &write, None, &order, "zh").await;
    assert_eq!(zh.code(), "idempotency_key_required");
    assert!(
        zh.json()["title"]
            .as_str()
            .unwrap_or_default()
            .contains("Idempotency-Key 请求头"),
        "{}",
        zh.body
    );
    let too_long = "k".repeat(101);
    let long = post_order(&app, &write, Some(&too_long), &order, "en").await;
    assert_eq!(long.code(), "idempotency_key_required");

    let cases = [
        (
            json!({ "plan": "g-nope", "site": "ams", "name": "x" }),
            "unknown_choice",
        ),
        (
            json!({ "plan": "g-ada", "site": "ams", "name": "x", "image": "windows" }),
            "unknown_choice",
        ),
        (
            json!({ "plan": "g-ada", "site": "ams", "name": "x", "ssh_key_ids": ["nope"] }),
            "unknown_choice",
        ),
        (
            json!({ "plan": "g-ada", "site": "ams", "name": "not a name!" }),
            "invalid_name",
        ),
        (
            json!({ "plan": "g-ada", "site": "ams", "name": "x", "ssh_keys": ["ssh-ed25519 nope"] }),
            "bad_ssh_key",
        ),
        (json!({ "plan": "g-ada", "site": "ams" }), "invalid"),
        (
            json!({ "plan": "g-ada", "site": "ams", "name": "x", "color": "red" }),
            "invalid",
        ),
    ];
    for (n, (body, code)) in cases.iter().enumerate() {
        let refused = post_order(&app, &write, Some(&format!("case-{n}")), body, "en").await;
        assert_eq!(refused.status, 422, "{body}: {}", refused.body);
        assert_eq!(refused.code(), *code, "{body}: {}", refused.body);
    }
    let bad_json = app
        .client
        .post(format!("{}/api/v1/orders", app.base))
        .bearer_auth(&write)
        .header("content-type", "application/json")
        .header("idempotency-key", "bad-json")
        .body("{\"plan\": ")
        .send()
        .await
        .expect("posting");
    assert_eq!(bad_json.status().as_u16(), 400, "malformed_body");
    let form = app
        .client
        .post(format!("{}/api/v1/orders", app.base))
        .bearer_auth(&write)
        .header("idempotency-key", "form")
        .form(&[("plan", "g-ada"), ("site", "ams"), ("name", "x")])
        .send()
        .await
        .expect("posting");
    assert_eq!(form.status().as_u16(), 415);
    let answer = form.text().await.unwrap_or_default();
    assert!(answer.contains("unsupported_media_type"), "{answer}");

    // Without a billing profile the owner is told to give one first.
    let new = app.signed_up("new@c.example", "New", "Org C").await;
    let new_token = create_token(&app, &new, "ci", &["read", "servers:write"]).await;
    let first = post_order(&app, &new_token, Some("first"), &order, "en").await;
    assert_eq!(first.status, 422, "{}", first.body);
    assert_eq!(first.code(), "no_billing_profile");
    // Nothing was placed by any refusal.
    let list = app.api_get("/api/v1/orders", &write).await.json();
    assert_eq!(list["data"], json!([]));
    app.finish().await;
}

async fn sold_out_names_the_sites_that_still_have_the_plan(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let token = create_token(&app, &owner, "ci", &["read", "servers:write"]).await;
    // Los Angeles has no G-L40S×2; Frankfurt has.
    let order = json!({ "plan": "g-l40s-x2", "site": "lax", "name": "la-1" });
    let sold_out = post_order(&app, &token, Some("la"), &order, "en").await;
    assert_eq!(sold_out.status, 422, "{}", sold_out.body);
    assert_eq!(sold_out.code(), "sold_out");
    let sites = sold_out.json()["sites_with_stock"].clone();
    let sites: Vec<&str> = sites
        .as_array()
        .expect("sites_with_stock")
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    assert!(
        sites.contains(&"fra") && !sites.contains(&"lax"),
        "{sites:?}"
    );
    let zh = post_order(&app, &token, Some("la-zh"), &order, "zh").await;
    assert_eq!(zh.code(), "sold_out");
    assert!(zh.body.contains("已售罄"), "{}", zh.body);
    // Once a host is added the same key places the order.
    app.rack("lax", "g-l40s-x2", 1);
    let placed = post_order(&app, &token, Some("la"), &order, "en").await;
    assert_eq!(placed.status, 201, "{}", placed.body);
    app.finish().await;
}

async fn technical_tokens_see_their_own_orders_and_no_money(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let owner_token = create_token(
        &app,
        &owner,
        "owner",
        &["read", "servers:write", "billing:read"],
    )
    .await;
    let tech_token = create_token(&app, &tech, "tech", &["read", "servers:write"]).await;
    let by_owner = post_order(
        &app,
        &owner_token,
        Some("o-1"),
        &json!({ "plan": "g-ada", "site": "ams", "name": "owner-1" }),
        "en",
    )
    .await;
    assert_eq!(by_owner.status, 201, "{}", by_owner.body);
    let owner_order = by_owner.json()["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let by_tech = post_order(
        &app,
        &tech_token,
        Some("t-1"),
        &json!({ "plan": "g-ada", "site": "ams", "name": "tech-1" }),
        "en",
    )
    .await;
    assert_eq!(by_tech.status, 201, "{}", by_tech.body);
    let tech_placed = by_tech.json();
    assert!(tech_placed.get("total_cents").is_none(), "{tech_placed}");
    assert!(tech_placed.get("currency").is_none(), "{tech_placed}");
    // The technical member's own key naming the owner's order is not theirs.
    let reused = post_order(
        &app,
        &tech_token,
        Some("o-1"),
        &json!({ "plan": "g-ada", "site": "ams", "name": "owner-1" }),
        "en",
    )
    .await;
    assert_eq!(reused.status, 422, "{}", reused.body);
    assert_eq!(reused.code(), "idempotency_key_reused");

    let theirs = app.api_get("/api/v1/orders", &tech_token).await.json();
    let names: Vec<&str> = theirs["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(names, ["tech-1"]);
    assert!(theirs["data"][0].get("total_cents").is_none());
    let hidden = app
        .api_get(&format!("/api/v1/orders/{owner_order}"), &tech_token)
        .await;
    assert_eq!(hidden.status, 404, "{}", hidden.body);
    // The owner sees both, newest first, with money, a page at a time.
    let page = app
        .api_get("/api/v1/orders?limit=1", &owner_token)
        .await
        .json();
    assert_eq!(page["data"][0]["name"], "tech-1");
    assert!(page["data"][0]["total_cents"].as_i64().is_some());
    let cursor = page["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let next = app
        .api_get(
            &format!("/api/v1/orders?limit=1&cursor={cursor}"),
            &owner_token,
        )
        .await
        .json();
    assert_eq!(next["data"][0]["name"], "owner-1");
    assert_eq!(next["next_cursor"], serde_json::Value::Null);
    app.finish().await;
}
