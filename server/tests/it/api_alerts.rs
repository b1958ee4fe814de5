//! Stock alerts through the API: opened for the token's creator, in the
//! request's language, listed and closed by that member only; a read-only
//! token reads them but sets none.

use crate::common::api::create_token;
use crate::common::{TestApp, TestDb};
use serde_json::json;

on_both_databases!(a_token_watches_a_sold_out_plan_for_its_creator);

async fn a_token_watches_a_sold_out_plan_for_its_creator(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let token = create_token(&app, &owner, "watch", &["read", "servers:write"]).await;
    let tech_token = create_token(&app, &tech, "tech", &["read", "servers:write"]).await;
    let reader = create_token(&app, &owner, "reader", &["read"]).await;
    let zh = [("accept-language", "zh")];
    let lax = json!({ "plan": "g-l40s-x2", "site": "lax" });
    let read_only = app
        .api(
            "POST",
            "/api/v1/stock-alerts",
            Some(&reader),
            Some(&lax),
            &[],
        )
        .await;
    assert_eq!(read_only.status, 403, "{}", read_only.body);
    assert_eq!(read_only.json()["scope"], "servers:write");
    let opened = app
        .api(
            "POST",
            "/api/v1/stock-alerts",
            Some(&token),
            Some(&lax),
            &zh,
        )
        .await;
    assert_eq!(opened.status, 201, "{}", opened.body);
    let alert = opened.json();
    let id = alert["id"].as_str().expect("an id").to_owned();
    assert_eq!(alert["email"], "owner@a.example");
    assert_eq!(alert["lang"], "zh");
    app.wait_for_mail("owner@a.example", "到货提醒已设置").await;
    let again = app
        .api(
            "POST",
            "/api/v1/stock-alerts",
            Some(&token),
            Some(&lax),
            &[],
        )
        .await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.json()["id"], id.as_str());
    let unknown = json!({ "plan": "g-nope", "site": "lax" });
    let refused = app
        .api(
            "POST",
            "/api/v1/stock-alerts",
            Some(&token),
            Some(&unknown),
            &[],
        )
        .await;
    assert_eq!(refused.code(), "unknown_choice", "{}", refused.body);

    let list = app.api_get("/api/v1/stock-alerts", &token).await.json();
    assert_eq!(list["data"][0]["id"], id.as_str());
    assert_eq!(list["data"][0]["plan"], "g-l40s-x2");
    let path = format!("/api/v1/stock-alerts/{id}");
    let one = app.api_get(&path, &reader).await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert_eq!(one.json()["id"], id.as_str());
    // Another member neither sees nor closes it.
    let theirs = app
        .api_get("/api/v1/stock-alerts", &tech_token)
        .await
        .json();
    assert_eq!(theirs["data"], json!([]));
    assert_eq!(app.api_get(&path, &tech_token).await.status, 404);
    let denied = app.api("DELETE", &path, Some(&tech_token), None, &[]).await;
    assert_eq!(denied.status, 404, "{}", denied.body);
    let closed = app.api("DELETE", &path, Some(&token), None, &[]).await;
    assert_eq!(closed.status, 204, "{}", closed.body);
    let list = app.api_get("/api/v1/stock-alerts", &token).await.json();
    assert_eq!(list["data"], json!([]));
    let twice = app.api("DELETE", &path, Some(&token), None, &[]).await;
    assert_eq!(twice.status, 404, "{}", twice.body);
    app.finish().await;
}
