//! Snapshots through the portal: take (named, within a quota), list with
//! size and state, restore with confirmation (the server shows restoring
//! with progress, then runs again), delete; another organization can't
//! touch them; they go with the server when it is wiped at cancellation.

use crate::common::{self, server_id, strip_tags, TestApp, TestDb};
use std::time::Duration;

on_both_databases!(snapshots_are_taken_restored_deleted_and_wiped_with_the_server);

/// 2026-11-10 00:00 UTC.
const START: i64 = 1_794_268_800;

/// The snapshot row of `name` on the server page: its data-state.
fn snapshot_state(body: &str, name: &str) -> Option<String> {
    let row = body.split(&format!("data-snapshot=\"{name}\"")).nth(1)?;
    let state = row.split("data-state=\"").nth(1)?;
    state.split('"').next().map(str::to_owned)
}

fn snapshot_id(body: &str, name: &str) -> String {
    let row = body
        .split(&format!("data-snapshot=\"{name}\""))
        .nth(1)
        .unwrap_or_default();
    common::hidden(row, "snapshot")
}

async fn snapshots_are_taken_restored_deleted_and_wiped_with_the_server(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    app.rack("ams", "g-l40s", 1);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-l40s", "ams", &[("name", "lab-1")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let base = format!("/en/servers/{id}");
    let take = |name: &'static str| {
        let (app, owner, base) = (&app, &owner, base.clone());
        async move {
            app.post_as(
                owner,
                &base,
                &format!("{base}/snapshots"),
                &[("name", name)],
                &[],
            )
            .await
        }
    };
    let wait_for = |name: &'static str, state: &'static str| {
        let (app, owner, base) = (&app, &owner, base.clone());
        async move {
            for _ in 0..200 {
                let body = app.get_as(owner, &format!("{base}/snapshots")).await.body;
                if snapshot_state(&body, name).as_deref() == Some(state) {
                    return body;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("snapshot {name} never became {state}");
        }
    };

    // The advice and the quota show (on the snapshots tab) before there
    // is any snapshot.
    let body = app.get_as(&owner, &format!("{base}/snapshots")).await.body;
    assert!(body.contains("Snapshot before you touch drivers"));
    assert!(strip_tags(&body).contains("0 of 5 snapshots used"));

    let bad = take("no spaces please").await;
    assert_eq!(bad.status, 422);
    assert!(strip_tags(&bad.body).contains("Give the snapshot a name"));
    let done = take("before-driver-550").await;
    assert_eq!(done.location(), format!("{base}/snapshots?done=snapshot"));
    let body = wait_for("before-driver-550", "ready").await;
    // The states the tab's script follows, in the page's words.
    for (lang, label) in [("en", "Ready"), ("zh", "可用")] {
        let progress = app
            .get_as(&owner, &format!("/{lang}/servers/{id}/snapshots/progress"))
            .await;
        assert_eq!(progress.status, 200);
        let json: serde_json::Value = serde_json::from_str(&progress.body).expect("JSON");
        assert_eq!(json["snapshots"][0]["state"], "ready", "{json}");
        assert_eq!(json["snapshots"][0]["state_label"], label, "{json}");
        assert_eq!(json["snapshots"][0]["busy"], false, "{json}");
    }
    assert!(
        !body.contains("src=\"/snapshots.js\""),
        "nothing busy, nothing to follow"
    );
    let text = strip_tags(&body);
    assert!(text.contains("1 of 5 snapshots used"), "{text}");
    assert!(text.contains(" GB"), "the size is shown");
    assert_eq!(
        take("before-driver-550").await.status,
        422,
        "names are unique"
    );

    // Another organization sees nothing and can't restore or delete it.
    let snap = snapshot_id(&body, "before-driver-550");
    let stranger = app.member("owner@b.example", "Other", "Org B").await;
    let fields = [("snapshot", snap.as_str()), ("confirm", "yes")];
    for action in ["snapshots/restore", "snapshots/delete"] {
        let page = app
            .post_as(
                &stranger,
                "/en/servers",
                &format!("{base}/{action}"),
                &fields,
                &[],
            )
            .await;
        assert_eq!(page.status, 404, "{action} by another organization");
    }

    // Restore: confirmed; the server shows restoring with progress, then runs.
    let unconfirmed = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/snapshots/restore"),
            &[("snapshot", &snap)],
            &[],
        )
        .await;
    assert_eq!(unconfirmed.status, 422);
    let restoring = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/snapshots/restore"),
            &fields,
            &[],
        )
        .await;
    assert_eq!(
        restoring.location(),
        format!("{base}/snapshots?done=restore")
    );
    let progress = app.get_as(&owner, &format!("{base}/progress")).await.body;
    let progress: serde_json::Value = serde_json::from_str(&progress).expect("JSON");
    assert_eq!(progress["state"], "restoring", "{progress}");
    assert_eq!(progress["state_label"], "Restoring snapshot");
    let last = app.wait_for_server(&owner, &id).await;
    assert_eq!(last["state"], "running");
    let body = app.get_as(&owner, &base).await.body;
    assert!(body.contains("data-event=\"snapshot.restore.done\""));
    let body = app.get_as(&owner, &format!("{base}/snapshots")).await.body;
    assert_eq!(
        snapshot_state(&body, "before-driver-550").as_deref(),
        Some("ready")
    );

    // The quota: five, then refused.
    for name in ["s2", "s3", "s4", "s5"] {
        assert_eq!(take(name).await.status, 303, "{name}");
        wait_for(name, "ready").await;
    }
    let full = take("s6").await;
    assert_eq!(full.status, 409);
    assert!(strip_tags(&full.body).contains("as many snapshots as it may keep"));

    // Delete: gone once Fleet has removed it.
    let tab = format!("{base}/snapshots");
    let body = app.get_as(&owner, &tab).await.body;
    let s5 = snapshot_id(&body, "s5");
    let deleted = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/snapshots/delete"),
            &[("snapshot", &s5), ("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(
        deleted.location(),
        format!("{base}/snapshots?done=delete-snapshot")
    );
    let mut gone = false;
    for _ in 0..100 {
        if snapshot_state(&app.get_as(&owner, &tab).await.body, "s5").is_none() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the deleted snapshot left the list");

    // Cancelled and wiped: the snapshots go with the server.
    let renews = domain::time::add_months(START, 1);
    let cancel = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/cancellation"),
            &[
                ("at", &renews.to_string()),
                ("reason", "moving"),
                ("confirm_name", "lab-1"),
                ("confirm", "yes"),
            ],
            &[],
        )
        .await;
    assert_eq!(
        cancel.location(),
        format!("{base}/cancellation?done=cancel")
    );
    clock.advance(renews - START + 3600);
    let mut left = i64::MAX;
    for _ in 0..100 {
        left = count_snapshots(&app, &id).await;
        if left == 0 && !app.host_names("ams", "g-l40s", "free").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(left, 0, "snapshots wiped with the server");
    app.finish().await;
}

async fn count_snapshots(app: &TestApp, server: &str) -> i64 {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.database_url)
        .await
        .expect("connecting to the test database");
    let n: i64 = sqlx::query_scalar("select count(*) from snapshots where server_id = $1")
        .bind(server)
        .fetch_one(&pool)
        .await
        .expect("counting snapshots");
    pool.close().await;
    n
}
