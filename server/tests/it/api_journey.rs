//! A script's whole life with one token, through the API alone: read the
//! catalog and stock, order a server (retried safely), wait for it to run,
//! snapshot it and restore it, cancel and take that back, and fetch the
//! first invoice's PDF. The portal only made the token.

use crate::common::api::create_token;
use crate::common::{self, TestApp, TestDb};
use serde_json::{json, Value};
use std::time::Duration;

on_both_databases!(a_script_orders_runs_snapshots_cancels_and_fetches_its_invoice);

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPDkijbeHwy3mV+5q/FLfrqSX8S7QEee6M83GSKNTRT7 ci@example";

/// Polls `path` until `done` holds for its JSON (20 s); answers it.
async fn poll(
    app: &TestApp,
    token: &str,
    path: &str,
    mut done: impl FnMut(&Value) -> bool,
) -> Value {
    for _ in 0..400 {
        let answer = app.api_get(path, token).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        let json = answer.json();
        if done(&json) {
            return json;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{path} never got there");
}

async fn a_script_orders_runs_snapshots_cancels_and_fetches_its_invoice(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ml@lab.example", "ML Lab", "Lab").await;
    let token = common::api::create_token(
        &app,
        &owner,
        "training pipeline",
        &["read", "servers:write", "billing:read"],
    )
    .await;

    // What there is to buy, and where.
    let plans = app
        .api("GET", "/api/v1/plans", None, None, &[])
        .await
        .json();
    assert!(plans["data"]
        .as_array()
        .is_some_and(|p| p.iter().any(|p| p["id"] == "g-ada")));
    let stock = app
        .api("GET", "/api/v1/stock?plan=g-ada&site=fra", None, None, &[])
        .await
        .json();
    assert_eq!(stock["data"][0]["level"], "in_stock", "{stock}");

    // Order, and retry the same request (a lost answer): one order.
    let order = json!({"plan": "g-ada", "site": "fra", "name": "train-01", "ssh_keys": [KEY]});
    let headers = [("idempotency-key", "pipeline-run-42")];
    let placed = app
        .api(
            "POST",
            "/api/v1/orders",
            Some(&token),
            Some(&order),
            &headers,
        )
        .await;
    assert_eq!(placed.status, 201, "{}", placed.body);
    let placed = placed.json();
    let again = app
        .api(
            "POST",
            "/api/v1/orders",
            Some(&token),
            Some(&order),
            &headers,
        )
        .await;
    // A retry with the same key gets the first answer back, not a second order.
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(again.json()["id"], placed["id"]);
    let server = placed["server_id"].as_str().expect("a server").to_owned();
    let path = format!("/api/v1/servers/{server}");

    // Provisioning: progress only goes up, and it ends running with addresses.
    let mut last = 0;
    let running = poll(&app, &token, &path, |s| {
        let progress = s["progress"].as_i64().unwrap_or(0);
        assert!(
            s["state"] == "running" || progress >= last,
            "progress went back: {s}"
        );
        last = last.max(progress);
        s["state"] == "running"
    })
    .await;
    assert!(running["ipv4"].is_string(), "{running}");
    assert!(running["health"]["degraded"].is_null(), "{running}");

    // A snapshot before a driver upgrade, then back to it.
    let snapshots = format!("{path}/snapshots");
    let taken = app
        .api(
            "POST",
            &snapshots,
            Some(&token),
            Some(&json!({"name": "before-driver-upgrade"})),
            &[],
        )
        .await;
    assert_eq!(taken.status, 202, "{}", taken.body);
    let snapshot = taken.json()["id"].as_str().expect("id").to_owned();
    // Its own address, polled for its state and progress.
    let one = format!("{snapshots}/{snapshot}");
    assert_eq!(
        taken.header("location"),
        format!("https://gpu.example.com{one}")
    );
    assert_eq!(taken.json()["url"], taken.header("location").as_str());
    assert_eq!(taken.json()["state"], "creating");
    assert_eq!(taken.json()["progress"], 0);
    let ready = poll(&app, &token, &one, |s| s["state"] == "ready").await;
    assert_eq!(ready["progress"], 100, "{ready}");
    poll(&app, &token, &snapshots, |list| {
        list["data"][0]["id"] == snapshot.as_str() && list["data"][0]["state"] == "ready"
    })
    .await;
    let restore = format!("{snapshots}/{snapshot}/restore");
    let restoring = app.api("POST", &restore, Some(&token), None, &[]).await;
    assert_eq!(restoring.status, 202, "{}", restoring.body);
    assert_eq!(restoring.json()["state"], "restoring");
    // While it is written back the snapshot says how far it got.
    let written = app.api_get(&one, &token).await.json();
    if written["state"] == "restoring" {
        let progress = written["progress"].as_i64().expect("progress");
        assert!((0..=100).contains(&progress), "{written}");
    }
    poll(&app, &token, &path, |s| s["state"] == "running").await;

    // Cancel at the end of the term, take it back, cancel again.
    let cancellation = format!("{path}/cancellation");
    let cancelled = app
        .api(
            "POST",
            &cancellation,
            Some(&token),
            Some(&json!({"reason": "moving"})),
            &[],
        )
        .await;
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    let cancelled = cancelled.json();
    assert_eq!(cancelled["cancel_at"], running["renews_at"], "{cancelled}");
    let revoked = app
        .api("DELETE", &cancellation, Some(&token), None, &[])
        .await;
    assert_eq!(revoked.status, 200, "{}", revoked.body);
    assert!(revoked.json()["cancel_at"].is_null());
    let again = app
        .api("POST", &cancellation, Some(&token), Some(&json!({})), &[])
        .await;
    assert_eq!(again.status, 200, "{}", again.body);

    // The first invoice, and its PDF.
    let invoices = poll(&app, &token, "/api/v1/invoices", |list| {
        list["data"].as_array().is_some_and(|d| !d.is_empty())
    })
    .await;
    let invoice = invoices["data"][0]["id"].as_str().expect("id").to_owned();
    let pdf = app
        .api_get(&format!("/api/v1/invoices/{invoice}/pdf"), &token)
        .await;
    assert_eq!(pdf.status, 200);
    assert_eq!(pdf.header("content-type"), "application/pdf");
    assert!(pdf.body.starts_with("%PDF"));

    // The owner sees what the token did, under their name.
    let audit = common::strip_tags(&app.get_as(&owner, "/en/audit").await.body);
    for done in [
        "ml@lab.example created an API token: training pipeline",
        "ml@lab.example placed an order: G-ADA fra train-01",
        "ml@lab.example took a snapshot: train-01: before-driver-upgrade.",
        "ml@lab.example scheduled a server’s cancellation: train-01",
    ] {
        assert!(audit.contains(done), "{done}: {audit}");
    }
    app.finish().await;
}

on_both_databases!(a_script_resets_and_takes_the_root_password_once);

/// The root password through the API: the one from the installation taken
/// once, a reset set by the Fleet, the new one taken once; never cached,
/// never replayed in the clear.
async fn a_script_resets_and_takes_the_root_password_once(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (owner, id) = app.owner_with_running_server(&[("name", "rooted")]).await;
    let token = create_token(&app, &owner, "root", &["read", "servers:write"]).await;
    let path = format!("/api/v1/servers/{id}");
    let take = format!("{path}/root-password/take");
    assert_eq!(
        app.api_get(&path, &token).await.json()["root_password_waiting"],
        true
    );
    let taken = app
        .api(
            "POST",
            &take,
            Some(&token),
            None,
            &[("idempotency-key", "take-1")],
        )
        .await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    assert_eq!(taken.header("cache-control"), "no-store");
    let first = taken.json()["password"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(first.len() >= 16, "{first}");
    // A retry with the key gets the same answer back; the table keeps it
    // sealed, not in the clear.
    let replayed = app
        .api(
            "POST",
            &take,
            Some(&token),
            None,
            &[("idempotency-key", "take-1")],
        )
        .await;
    assert_eq!(replayed.header("idempotent-replayed"), "true");
    assert_eq!(replayed.json()["password"], first.as_str());
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.database_url)
        .await
        .expect("connecting");
    let stored: Vec<String> = sqlx::query_scalar("select body from api_idempotency")
        .fetch_all(&pool)
        .await
        .expect("the kept answers");
    assert!(!stored.is_empty());
    assert!(stored.iter().all(|b| !b.contains(&first)), "{stored:?}");
    let again = app.api("POST", &take, Some(&token), None, &[]).await;
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(
        app.api_get(&path, &token).await.json()["root_password_waiting"],
        false
    );

    let reset = app
        .api(
            "POST",
            &format!("{path}/root-password"),
            Some(&token),
            None,
            &[],
        )
        .await;
    assert_eq!(reset.status, 202, "{}", reset.body);
    poll(&app, &token, &path, |s| s["root_password_waiting"] == true).await;
    let new = app.api("POST", &take, Some(&token), None, &[]).await.json();
    let second = new["password"].as_str().unwrap_or_default();
    assert!(!second.is_empty() && second != first, "{new}");
    app.finish().await;
}
