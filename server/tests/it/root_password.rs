//! A lost root password: the server's team asks for a new one (confirmed),
//! the Fleet sets it on the running machine, the page shows it once with a
//! copy button, the serial console accepts it, the audit log and the
//! owners' mail record the reset without the secret. Billing members and
//! other organizations can't; a server that is not running refuses.

use crate::common::console::{connect, session_cookie, ticket};
use crate::common::{server_id, strip_tags, TestApp, TestDb};

on_both_databases!(
    a_lost_root_password_is_reset_through_the_fleet_and_shown_once,
    only_the_servers_team_may_reset_it,
    a_reset_is_refused_while_the_server_is_not_running,
);

/// 2026-11-10 00:00 UTC.
const START: i64 = 1_794_268_800;

/// The password a reveal answered with, if any.
fn shown_password(body: &str) -> Option<String> {
    let at = body.find("data-testid=\"root-password\">")?;
    let rest = &body[at + "data-testid=\"root-password\">".len()..];
    Some(rest.split('<').next()?.to_owned())
}

async fn a_lost_root_password_is_reset_through_the_fleet_and_shown_once(db: TestDb) {
    let app = TestApp::spawn_with_clock(db, backend::Clock::manual(START)).await;
    let (owner, id) = app
        .owner_with_running_server(&[("name", "train-fra-01"), ("image", "debian-13")])
        .await;
    let base = format!("/en/servers/{id}");

    // The first password, shown once, with a copy button the script turns on.
    let page = app
        .post_as(&owner, &base, &format!("{base}/reveal"), &[], &[])
        .await;
    let page = app.follow(&owner, page).await;
    let first = shown_password(&page.body).expect("the first password");
    assert_eq!(
        page.headers
            .get("cache-control")
            .and_then(|v| v.to_str().ok()),
        Some("no-store")
    );
    // The reveal's address opened as a page leads to the server's page.
    assert_eq!(
        app.get_as(&owner, &format!("{base}/reveal"))
            .await
            .location(),
        format!("{base}#root-password-section")
    );
    assert!(page.body.contains("data-copy=\"root-password\""));
    assert!(page.body.contains("src=\"/copy.js\""));
    assert_eq!(app.get("/copy.js").await.status, 200);

    // Unconfirmed: the page again with the error, nothing asked.
    let page = app
        .post_as(&owner, &base, &format!("{base}/root-password"), &[], &[])
        .await;
    assert_eq!(page.status, 422);
    assert!(page.body.contains("Tick the box to confirm."));

    let page = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/root-password"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(
        page.location(),
        format!("{base}?done=root-password#root-password-section")
    );
    // The Fleet sets it; then the page offers to show it, once.
    app.wait_for(&owner, &base, &format!("{base}/reveal\""))
        .await;
    let page = app
        .post_as(&owner, &base, &format!("{base}/reveal"), &[], &[])
        .await;
    let page = app.follow(&owner, page).await;
    let second = shown_password(&page.body).expect("the new password");
    assert_ne!(first, second);
    assert_eq!(second.len(), 24);
    let again = app
        .post_as(&owner, &base, &format!("{base}/reveal"), &[], &[])
        .await;
    let again = app.follow(&owner, again).await;
    assert_eq!(shown_password(&again.body), None, "shown once");
    let history = strip_tags(&app.get_as(&owner, &base).await.body);
    assert!(
        history.contains("Root password reset requested"),
        "{history}"
    );
    assert!(history.contains("New root password set"));

    // Audited, and the owners told, without the secret.
    let audit = app.get_as(&owner, "/en/audit").await.body;
    assert!(
        audit.contains("server.root_password_reset")
            || audit.contains("Root password reset requested"),
        "the audit log lists the reset"
    );
    assert!(!audit.contains(&second));
    let mail = app
        .wait_for_mail(
            "owner@a.example",
            "The root password of train-fra-01 was reset",
        )
        .await;
    assert!(mail.contains("owner@a.example reset the root password"));
    assert!(!mail.contains(&second) && !mail.contains(&first));

    // The machine takes the new password on its serial console, not the old.
    let cookie = session_cookie(&app, "owner@a.example").await;
    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    let mut serial = connect(&app.base, &cookie, &path).await;
    serial.read_until("train-fra-01 login: ").await;
    serial.send(b"root\r").await;
    serial.read_until("Password: ").await;
    serial.send(format!("{first}\r").as_bytes()).await;
    serial
        .read_until("Login incorrect\r\ntrain-fra-01 login: ")
        .await;
    serial.send(b"root\r").await;
    serial.read_until("Password: ").await;
    serial.send(format!("{second}\r").as_bytes()).await;
    serial.read_until("root@train-fra-01:~# ").await;
    app.finish().await;
}

async fn only_the_servers_team_may_reset_it(db: TestDb) {
    let app = TestApp::spawn_with_clock(db, backend::Clock::manual(START)).await;
    let (owner, id) = app
        .owner_with_running_server(&[("name", "train-fra-01"), ("image", "debian-13")])
        .await;
    let path = format!("/en/servers/{id}/root-password");
    let confirm = [("confirm", "yes")];

    let billing = app.invite(&owner, "money@a.example", "billing").await;
    let page = app
        .post_as(&billing, "/en/account", &path, &confirm, &[])
        .await;
    assert_eq!(page.status, 403);

    let stranger = app.member("owner@b.example", "Other", "Org B").await;
    let page = app
        .post_as(&stranger, "/en/account", &path, &confirm, &[])
        .await;
    assert_eq!(page.status, 404);

    // Nothing was asked: the history has no reset.
    let body = app.get_as(&owner, &format!("/en/servers/{id}")).await.body;
    assert!(!body.contains("data-event=\"root_password.reset_requested\""));

    // A technical member may, in Chinese too.
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let zh = format!("/zh/servers/{id}");
    let page = app
        .post_as(&tech, &zh, &format!("{zh}/root-password"), &confirm, &[])
        .await;
    assert_eq!(page.status, 303);
    let body = app.wait_for(&tech, &zh, "显示 root 密码").await;
    assert!(body.contains("重置 root 密码"));
    app.finish().await;
}

async fn a_reset_is_refused_while_the_server_is_not_running(db: TestDb) {
    // A control plane this slow keeps the new server installing.
    let app = TestApp::spawn_configured(db, backend::Clock::manual(START), |c| {
        c.fleet_dev_step_ms = 3_600_000;
    })
    .await;
    app.rack("fra", "g-ada", 1);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.place_order(&owner, "g-ada", "fra", &[]).await;
    let id = server_id(page.location());
    let base = format!("/en/servers/{id}");
    let page = app.get_as(&owner, &base).await;
    assert!(!page.body.contains("/root-password\""), "no form yet");
    let page = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/root-password"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(page.status, 409);
    assert!(page
        .body
        .contains("The server can’t do that in its current state."));
    let zh = format!("/zh/servers/{id}");
    let page = app
        .post_as(
            &owner,
            &zh,
            &format!("{zh}/root-password"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(page.status, 409);
    assert!(page.body.contains("服务器当前状态下无法执行该操作"));
    app.finish().await;
}
