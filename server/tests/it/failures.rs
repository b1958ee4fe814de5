//! A customer's host fails: the server is down from that moment, is rebuilt
//! on another free host at the same site with the same addresses (waiting
//! for one if none is free), and the downtime comes back as an SLA credit
//! on the next invoice when the month closes, to the cent, unasked.

use crate::common::{self, server_id, strip_tags, TestApp, TestDb};
use std::time::Duration;

on_both_databases!(a_failed_host_is_rebuilt_elsewhere_and_its_downtime_credited);

/// 2026-11-10 00:00 UTC.
const START: i64 = 1_794_268_800;

async fn a_failed_host_is_rebuilt_elsewhere_and_its_downtime_credited(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    // Singapore has one G-L40S×2 host.
    let page = app
        .place_order(&owner, "g-l40s-x2", "sin", &[("name", "trainer")])
        .await;
    let id = server_id(page.location());
    let first = app.wait_for_server(&owner, &id).await;
    let ipv4 = first["ipv4"].as_str().unwrap_or_default().to_owned();
    let server = format!("/en/servers/{id}");

    // Its host fails with nothing free at the site: down, and waiting.
    // (Through the staff page, so it happens on the application's clock.)
    let staff = app.staff("ops@host.example").await;
    let set = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/set",
            &[
                ("name", "sin-g-l40s-x2-001"),
                ("state", "failed"),
                ("reason", "Xid 79: GPU fell off the bus"),
            ],
            &[],
        )
        .await;
    assert_eq!(set.location(), "/en/staff/hosts?done=1");
    app.wait_for(&owner, &server, "data-event=\"rebuild.waiting\"")
        .await;
    let progress = app.get_as(&owner, &format!("{server}/progress")).await.body;
    assert!(
        progress.contains("\"state\":\"provisioning\""),
        "{progress}"
    );

    // Ten minutes later a host is racked; the rebuild takes it. (Racked
    // before the clock moves: the waiting job retries a minute after each
    // try, and a try between the two would push it past the frozen clock.)
    app.rack("sin", "g-l40s-x2", 1);
    clock.advance(600);
    let back = app.wait_for_server(&owner, &id).await;
    assert_eq!(back["state"], "running", "{back}");
    assert_eq!(
        back["ipv4"].as_str().unwrap_or_default(),
        ipv4,
        "same address"
    );
    app.wait_for(&owner, &server, "data-event=\"rebuilt\"")
        .await;
    // The month's availability, on the graphs tab.
    let body = app.get_as(&owner, &format!("{server}/graphs")).await.body;
    assert!(
        strip_tags(&body).contains("(10 min down)"),
        "{}",
        strip_tags(&body)
    );
    assert_eq!(
        app.host_names("sin", "g-l40s-x2", "allocated"),
        vec!["sin-g-l40s-x2-002"]
    );
    assert_eq!(
        app.host_names("sin", "g-l40s-x2", "failed"),
        vec!["sin-g-l40s-x2-001"]
    );

    // November closes: 10 minutes of 30 days is 99.9768%, so 10% of the
    // €1,420.00 fee is credited, without a claim.
    clock.advance(21 * 86_400);
    let fields = [("email", "owner@a.example"), ("password", common::PASSWORD)];
    app.post_as(&owner, "/en/login", "/en/login", &fields, &[])
        .await;
    let billing = app.wait_for(&owner, "/en/billing", "CN-2026-000001").await;
    let text = strip_tags(&billing);
    assert!(
        text.contains("SLA 2026-11 · trainer · 99.9768% · 10 min · 10%€142.00"),
        "{text}"
    );
    // It cites the invoice that billed November, on the page and by mail.
    let credit = billing
        .split("data-credit=\"CN-2026-000001\"")
        .nth(1)
        .unwrap_or_default();
    let credit = strip_tags(&credit[..credit.find("</tr>").unwrap_or(0)]);
    assert!(credit.contains("INV-2026-000001"), "{credit}");
    let mail = app
        .wait_for_mail("owner@a.example", "Credit note CN-2026-000001")
        .await;
    assert!(
        mail.contains("It corrects invoice INV-2026-000001."),
        "{mail}"
    );
    let body = app.get_as(&owner, &format!("{server}/graphs")).await.body;
    let row = body
        .split("data-sla=\"2026-11\"")
        .nth(1)
        .unwrap_or_default();
    let row = strip_tags(&row[..row.find("</tr>").unwrap_or(0)]);
    assert!(
        row.contains("99.9768%") && row.contains("€142.00") && row.contains("CN-2026-000001"),
        "{row}"
    );
    // Once: the next runs issue nothing more.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let again = strip_tags(&app.get_as(&owner, "/en/billing").await.body);
    assert_eq!(again.matches("SLA 2026-11").count(), 1, "{again}");
    app.finish().await;
}
