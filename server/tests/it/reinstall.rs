//! Reinstalling a server on its own host, from the portal and the API: the
//! disks are erased and the chosen image installed by the provisioning
//! steps; the name, addresses, term and billing stay; a server without
//! keys gets a new root password, one with new keys gets none.

use crate::common::api::create_token;
use crate::common::{strip_tags, TestApp, TestDb};
use serde_json::json;

on_both_databases!(
    a_reinstall_installs_the_chosen_image_and_keeps_name_addresses_and_term,
    a_reinstall_that_cannot_start_is_refused_and_changes_nothing,
);

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPDkijbeHwy3mV+5q/FLfrqSX8S7QEee6M83GSKNTRT7 ci@example";

async fn a_reinstall_installs_the_chosen_image_and_keeps_name_addresses_and_term(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (owner, id) = app.owner_with_running_server(&[("name", "phoenix")]).await;
    let token = create_token(&app, &owner, "rebuild", &["read", "servers:write"]).await;
    let path = format!("/api/v1/servers/{id}");
    let before = app.api_get(&path, &token).await.json();
    assert_eq!(before["image"], "ubuntu-24.04");
    let taken = app
        .api_post(&format!("{path}/root-password/take"), &token, None)
        .await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let first_password = taken.json()["password"].clone();

    // From the power tab: the name typed wrong changes nothing.
    let base = format!("/en/servers/{id}");
    let tab = app.get_as(&owner, &format!("{base}/power")).await.body;
    assert!(
        tab.contains(&format!("action=\"{base}/reinstall\"")),
        "{tab}"
    );
    let wrong = app
        .post_as(
            &owner,
            &format!("{base}/power"),
            &format!("{base}/reinstall"),
            &[("image", "debian-13"), ("reinstall_name", "phoenyx")],
            &[],
        )
        .await;
    assert_eq!(wrong.status, 422, "{}", strip_tags(&wrong.body));
    assert!(strip_tags(&wrong.body)
        .contains("Type the server’s name exactly as shown to confirm the reinstall."));
    assert_eq!(app.api_get(&path, &token).await.json()["state"], "running");

    let started = app
        .post_as(
            &owner,
            &format!("{base}/power"),
            &format!("{base}/reinstall"),
            &[("image", "debian-13"), ("reinstall_name", "phoenix")],
            &[],
        )
        .await;
    assert_eq!(started.location(), format!("{base}/power?done=reinstall"));
    let page = app.get_as(&owner, started.location()).await.body;
    let text = strip_tags(&page);
    assert!(
        text.contains("Reinstall started") || text.contains("Running"),
        "{text}"
    );
    assert_eq!(app.wait_for_server(&owner, &id).await["state"], "running");
    let after = app.api_get(&path, &token).await.json();
    assert_eq!(after["image"], "debian-13");
    for kept in ["name", "ipv4", "ipv6", "renews_at", "created_at"] {
        assert_eq!(after[kept], before[kept], "{kept}");
    }
    assert_ne!(
        after["host_keys"], before["host_keys"],
        "a new install, new host keys"
    );
    // No key: a new root password, taken once.
    assert_eq!(after["root_password_waiting"], true, "{after}");
    let taken = app
        .api_post(&format!("{path}/root-password/take"), &token, None)
        .await;
    assert_ne!(taken.json()["password"], first_password);
    let history = app.get_as(&owner, &base).await.body;
    for event in ["reinstall.requested", "reinstalled"] {
        assert!(
            history.contains(&format!("data-event=\"{event}\"")),
            "{event}"
        );
    }
    assert!(!history.contains("data-event=\"rebuilt\""));

    // Through the API, with a saved key: installed, no password made.
    let key = app
        .api_post(
            "/api/v1/ssh-keys",
            &token,
            Some(&json!({ "public_key": KEY, "name": "laptop" })),
        )
        .await
        .json();
    let answer = app
        .api_post(
            &format!("{path}/reinstall"),
            &token,
            Some(&json!({ "image": "rocky-9", "ssh_key_ids": [key["id"]] })),
        )
        .await;
    assert_eq!(answer.status, 202, "{}", answer.body);
    assert_eq!(answer.json()["state"], "provisioning");
    let busy = app
        .api_post(
            &format!("{path}/reinstall"),
            &token,
            Some(&json!({ "image": "rocky-9" })),
        )
        .await;
    assert_eq!(busy.status, 409, "{}", busy.body);
    assert_eq!(busy.code(), "busy");
    assert_eq!(app.wait_for_server(&owner, &id).await["state"], "running");
    let last = app.api_get(&path, &token).await.json();
    assert_eq!(last["image"], "rocky-9");
    assert_eq!(last["root_password_waiting"], false, "{last}");
    let overview = strip_tags(&app.get_as(&owner, &base).await.body);
    assert!(overview.contains("Rocky"), "{overview}");
    app.finish().await;
}

/// Refused before anything changes: an unknown image, key or field.
async fn a_reinstall_that_cannot_start_is_refused_and_changes_nothing(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (owner, id) = app.owner_with_running_server(&[("name", "stay")]).await;
    let token = create_token(&app, &owner, "rebuild", &["read", "servers:write"]).await;
    let path = format!("/api/v1/servers/{id}");
    let reinstall = |body: serde_json::Value| {
        let (app, token, path) = (&app, token.clone(), format!("{path}/reinstall"));
        async move { app.api("POST", &path, Some(&token), Some(&body), &[]).await }
    };
    let unknown = reinstall(json!({ "image": "windows-95" })).await;
    assert_eq!(unknown.status, 422, "{}", unknown.body);
    assert_eq!(unknown.json()["field"], "image");
    let key = reinstall(json!({ "image": "debian-13", "ssh_key_ids": ["nope"] })).await;
    assert_eq!(key.status, 422, "{}", key.body);
    assert_eq!(key.json()["field"], "ssh_key_ids");
    let extra = reinstall(json!({ "image": "debian-13", "format": "yes" })).await;
    assert_eq!(extra.status, 422, "{}", extra.body);
    let server = app.api_get(&path, &token).await.json();
    assert_eq!(server["state"], "running");
    assert_eq!(server["image"], "ubuntu-24.04");

    app.finish().await;
}
