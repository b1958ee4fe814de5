//! Provisioning survives restarts and dead workers; holds nobody pays for
//! return their host; back-in-stock alerts mail once; staff manage the
//! inventory from the portal.

use crate::common::{self, server_id, strip_tags, TestApp, TestDb};
use std::time::Duration;

on_both_databases!(
    a_queued_server_is_provisioned_by_whichever_replica_runs_workers,
    a_job_of_a_dead_worker_is_taken_up_when_its_lease_runs_out,
    an_unpaid_hold_expires_and_returns_the_host,
    stock_alerts_mail_once_in_their_language_and_can_be_cancelled,
    staff_rack_hosts_and_change_their_state_from_the_portal,
    a_new_server_shows_telemetry_only_since_its_delivery,
);

const START: i64 = 1_796_000_000;

async fn a_queued_server_is_provisioned_by_whichever_replica_runs_workers(db: TestDb) {
    // A web-only replica takes the order; nothing provisions it yet.
    let app =
        TestApp::spawn_configured(db, backend::Clock::system(), |c| c.run_workers = false).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.place_order(&owner, "g-ada", "ams", &[]).await;
    let id = server_id(page.location());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let progress = app
        .get_as(&owner, &format!("/en/servers/{id}/progress"))
        .await;
    assert!(
        progress.body.contains("\"state\":\"pending\""),
        "{}",
        progress.body
    );
    // A replica with workers starts (or the first one restarts) and the job,
    // kept in the database, is done.
    app.replica(backend::Clock::system(), |_| {}).await;
    let done = app.wait_for_server(&owner, &id).await;
    assert_eq!(done["state"], "running");
    app.finish().await;
}

async fn a_job_of_a_dead_worker_is_taken_up_when_its_lease_runs_out(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_configured(db, clock.clone(), |c| c.run_workers = false).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.place_order(&owner, "g-ada", "ams", &[]).await;
    let id = server_id(page.location());
    // A worker takes the job and dies without a word.
    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting");
    let job = backend::jobs::claim(&db, "worker-that-died", clock.now())
        .await
        .expect("claiming")
        .expect("a queued job");
    assert_eq!(job.subject_id, id);
    app.replica(clock.clone(), |_| {}).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let progress = app
        .get_as(&owner, &format!("/en/servers/{id}/progress"))
        .await;
    assert!(
        progress.body.contains("\"state\":\"pending\""),
        "leased: {}",
        progress.body
    );
    clock.advance(backend::jobs::LEASE_SECS + 1);
    let done = app.wait_for_server(&owner, &id).await;
    assert_eq!(done["state"], "running");
    app.finish().await;
}

async fn an_unpaid_hold_expires_and_returns_the_host(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    app.member("owner@a.example", "Owner", "Org A").await;
    app.rack("tyo", "g-l40s-x2", 1);
    // An order waiting for a payment (as a card checkout does) holds the host.
    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting");
    let (organization, user): (domain::OrganizationId, domain::UserId) = sqlx::query_as(
        "select m.organization_id, u.id from users u join memberships m on m.user_id = u.id where u.email = $1",
    )
    .bind("owner@a.example")
    .fetch_one(&db.pool)
    .await
    .expect("the owner");
    let catalog = backend::catalog::load(&db).await.expect("catalog");
    let new = backend::orders::NewOrder {
        organization_id: organization,
        user_id: user,
        actor: "owner@a.example".into(),
        idempotency_key: "checkout-1".into(),
        plan: "g-l40s-x2".into(),
        site: "tyo".into(),
        server_name: "held".into(),
        os_image: "ubuntu-24.04".into(),
        billing_method: "stripe".into(),
        seller_country: "NL".into(),
        ..Default::default()
    };
    backend::orders::place(&db, &clock, &catalog, &new)
        .await
        .expect("placing");
    assert_eq!(app.host_names("tyo", "g-l40s-x2", "held").len(), 1);
    let home = app.get("/en").await;
    assert_eq!(
        common::stock_cell(&home.body, "tyo", "g-l40s-x2"),
        "sold-out",
        "held is not for sale"
    );
    clock.advance(backend::orders::HOLD_SECS + 1);
    // The storefront counts it free at once; the worker returns it soon.
    let home = app.get("/en").await;
    assert_ne!(
        common::stock_cell(&home.body, "tyo", "g-l40s-x2"),
        "sold-out"
    );
    for _ in 0..100 {
        if app.host_names("tyo", "g-l40s-x2", "free").len() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(app.host_names("tyo", "g-l40s-x2", "free").len(), 1);
    let state: String =
        sqlx::query_scalar("select state from orders where idempotency_key = 'checkout-1'")
            .fetch_one(&db.pool)
            .await
            .expect("the order");
    assert_eq!(state, "expired");
    app.finish().await;
}

async fn stock_alerts_mail_once_in_their_language_and_can_be_cancelled(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let subscribe = |lang: &'static str, email: &'static str| {
        let client = app.browser();
        let url = format!("{}/{lang}/alerts", app.base);
        async move {
            client
                .post(url)
                .header("sec-fetch-site", "same-origin")
                .form(&[("email", email), ("plan", "g-l40s-x2"), ("site", "tyo")])
                .send()
                .await
                .expect("subscribing")
        }
    };
    let answer = subscribe("en", "visitor@example.com").await;
    assert_eq!(answer.status().as_u16(), 303);
    let to = answer.headers()["location"]
        .to_str()
        .unwrap_or("")
        .to_owned();
    assert_eq!(to, "/en/configure?plan=g-l40s-x2&site=tyo&alert=1");
    assert!(strip_tags(&app.get(&to).await.body).contains("We’ll email you once"));
    assert!(app
        .last_mail("visitor@example.com")
        .contains("Stock alert set: G-L40S×2 · Tokyo"));
    subscribe("zh", "fan@example.com").await;
    assert!(app.last_mail("fan@example.com").contains("到货提醒已设置"));
    subscribe("en", "leaver@example.com").await;
    let bad = subscribe("en", "not-an-email").await;
    assert_eq!(bad.status().as_u16(), 422);

    // The leaver cancels through the link: a page with a button, then done.
    let link = app.mailed_link("leaver@example.com");
    let page = app.get(&link).await;
    assert!(page.body.contains("Cancel the alert"));
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    let done = app
        .client
        .post(format!("{}/en/alerts/unsubscribe", app.base))
        .header("sec-fetch-site", "same-origin")
        .form(&[("token", token.as_str())])
        .send()
        .await
        .expect("unsubscribing");
    assert_eq!(done.headers()["location"], "/en/alerts/unsubscribe?done=1");

    app.rack("tyo", "g-l40s-x2", 1);
    let mut mail = String::new();
    for _ in 0..100 {
        mail = app.last_mail("visitor@example.com");
        if mail.contains("back in stock") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(mail.contains("G-L40S×2 · Tokyo is back in stock"), "{mail}");
    assert!(mail.contains("/en/configure?plan=g-l40s-x2&site=tyo"));
    for _ in 0..50 {
        if app.last_mail("fan@example.com").contains("有货了") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(app
        .last_mail("fan@example.com")
        .contains("G-L40S×2 · 东京 有货了"));
    // Once: more free hosts later send nothing more; the leaver got nothing.
    app.rack("tyo", "g-l40s-x2", 1);
    app.after_housekeeping().await;
    let all = app.ops_ok(&[
        "mail",
        "outbox",
        "--to",
        "visitor@example.com",
        "--limit",
        "10",
    ]);
    assert_eq!(all.matches("back in stock").count(), 1, "{all}");
    assert!(!app
        .last_mail("leaver@example.com")
        .contains("back in stock"));
    app.finish().await;
}

async fn staff_rack_hosts_and_change_their_state_from_the_portal(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let staff = app.staff("ops@host.example").await;
    let page = app.get_as(&staff, "/en/staff/hosts").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("data-count=\"fra/g-l40s\""));
    let added = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/add",
            &[("site", "lax"), ("plan", "g-ada"), ("count", "2")],
            &[],
        )
        .await;
    assert_eq!(added.location(), "/en/staff/hosts?done=1");
    assert_eq!(app.host_names("lax", "g-ada", "free").len(), 5);
    let set = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/set",
            &[
                ("name", "lax-g-ada-004"),
                ("state", "maintenance"),
                ("reason", "fan swap"),
            ],
            &[],
        )
        .await;
    assert_eq!(set.location(), "/en/staff/hosts?done=1");
    assert_eq!(
        app.host_names("lax", "g-ada", "maintenance"),
        vec!["lax-g-ada-004"]
    );
    let unknown = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/set",
            &[("name", "nope"), ("state", "free")],
            &[],
        )
        .await;
    assert_eq!(unknown.status, 404);
    assert!(unknown.body.contains("No host has that name."));
    let too_many = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/add",
            &[("site", "lax"), ("plan", "g-ada"), ("count", "9999")],
            &[],
        )
        .await;
    assert_eq!(too_many.status, 422);
    let filtered = app
        .get_as(&staff, "/en/staff/hosts?site=lax&state=maintenance")
        .await;
    // The demo's Los Angeles G-L40S is in maintenance too.
    assert_eq!(filtered.body.matches("data-host=").count(), 2);
    assert!(filtered.body.contains("data-host=\"lax-g-ada-004\""));

    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    app.place_order(&owner, "g-ada", "lax", &[("name", "staff-sees-me")])
        .await;
    let orders = app.get_as(&staff, "/en/staff/orders").await;
    assert!(strip_tags(&orders.body).contains("staff-sees-me"));
    assert!(strip_tags(&orders.body).contains("Org A"));
    // Searched by organization or server name, any case; counted.
    for query in ["org+a", "SEES-ME"] {
        let found = strip_tags(
            &app.get_as(&staff, &format!("/en/staff/orders?q={query}"))
                .await
                .body,
        );
        assert!(
            found.contains("staff-sees-me") && found.contains("1 order matches."),
            "{query}: {found}"
        );
    }
    let none = strip_tags(&app.get_as(&staff, "/zh/staff/orders?q=nobody").await.body);
    assert!(none.contains("共有 0 个订单符合条件。"), "{none}");
    app.finish().await;
}

/// The x coordinates of the first card's GPU temperature line.
fn temperature_xs(body: &str) -> Vec<i64> {
    let chart = body
        .split("data-chart=\"gpu-temp\"")
        .nth(1)
        .unwrap_or_default();
    let points = chart.split("points=\"").nth(1).unwrap_or_default();
    let points = points.split('"').next().unwrap_or_default();
    points
        .split_whitespace()
        .filter_map(|p| p.split(',').next()?.parse().ok())
        .collect()
}

/// The width of the temperature chart's drawing.
fn chart_width(body: &str) -> i64 {
    let chart = body
        .split("data-chart=\"gpu-temp\"")
        .next()
        .unwrap_or_default();
    let view_box = chart.rsplit("viewBox=\"").next().unwrap_or_default();
    view_box
        .split_whitespace()
        .nth(2)
        .and_then(|w| w.parse().ok())
        .unwrap_or(0)
}

/// Telemetry and counters start at the rental: a fresh server shows no
/// readings from before it was delivered and no corrected ECC errors,
/// though its host's cards have been in service for months.
async fn a_new_server_shows_telemetry_only_since_its_delivery(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    app.rack("fra", "g-ada", 1);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.place_order(&owner, "g-ada", "fra", &[]).await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let path = format!("/en/servers/{id}/graphs");

    let body = app.get_as(&owner, &path).await.body;
    let text = strip_tags(&body);
    assert!(
        text.contains("Card 1: 0 in total, 0 in the last 24 hours"),
        "{text}"
    );
    // One reading, at delivery.
    assert_eq!(temperature_xs(&body).len(), 1, "{body}");

    // An hour later: a reading every 15 minutes since delivery, none
    // before: they cover the last hour, a 24th of the chart's width.
    // (Quarter by quarter: a session idle for 30 minutes ends.)
    let mut body = String::new();
    for _ in 0..4 {
        clock.advance(900);
        body = app.get_as(&owner, &path).await.body;
    }
    let xs = temperature_xs(&body);
    assert_eq!(xs.len(), 5, "{}", strip_tags(&body));
    let width = chart_width(&body);
    let spread = xs.iter().max().unwrap_or(&0) - xs.iter().min().unwrap_or(&0);
    assert!(spread * 24 <= width + 24, "{xs:?} in {width}");
    assert!(strip_tags(&body).contains("Card 1: 0 in total"));
    app.finish().await;
}
