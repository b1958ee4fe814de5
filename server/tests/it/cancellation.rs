//! Cancelling a server: the date is a term end, the name must be typed and
//! the loss acknowledged; it can be revoked until the date; at the date
//! billing stops, the host is wiped and returns to stock (the storefront
//! shows it and back-in-stock alerts fire), and the server leaves the list
//! while its invoices and audit trail remain.

use crate::common::{self, server_id, strip_tags, TestApp, TestDb};
use std::time::Duration;

on_both_databases!(a_cancelled_server_is_wiped_at_its_date_and_its_card_returns);

/// 2026-11-10 00:00 UTC.
const START: i64 = 1_794_268_800;

async fn a_cancelled_server_is_wiped_at_its_date_and_its_card_returns(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    app.rack("tyo", "g-l40s-x2", 1);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-l40s-x2", "tyo", &[("name", "tokyo-1")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let base = format!("/en/servers/{id}");
    // Someone waits for a G-L40S×2 in Tokyo.
    let alert = app
        .browser()
        .post(format!("{}/en/alerts", app.base))
        .header("sec-fetch-site", "same-origin")
        .form(&[
            ("email", "waiting@example.com"),
            ("plan", "g-l40s-x2"),
            ("site", "tyo"),
        ])
        .send()
        .await
        .expect("subscribing");
    assert_eq!(alert.status().as_u16(), 303);

    // The form (on its tab) offers the current term's end first, then
    // later ones.
    let tab = format!("{base}/cancellation");
    let body = app.get_as(&owner, &tab).await.body;
    let dates: Vec<String> = body
        .split("id=\"cancel-at\"")
        .nth(1)
        .unwrap_or_default()
        .split("</select>")
        .next()
        .unwrap_or_default()
        .split("<option value=\"")
        .skip(1)
        .filter_map(|o| o.split('"').next().map(str::to_owned))
        .collect();
    assert_eq!(dates.len(), 3, "{dates:?}");
    let term_end = domain::time::add_months(START, 1);
    assert_eq!(dates[0], term_end.to_string());
    let cancel = |name: &'static str, at: String, confirm: &'static str| {
        let (app, owner, base) = (&app, &owner, base.clone());
        async move {
            app.post_as(
                owner,
                &base,
                &format!("{base}/cancellation"),
                &[
                    ("at", &at),
                    ("reason", "moving"),
                    ("confirm_name", name),
                    ("confirm", confirm),
                ],
                &[],
            )
            .await
        }
    };
    let wrong = cancel("tokyo-2", dates[0].clone(), "yes").await;
    assert_eq!(wrong.status, 422);
    assert!(wrong.body.contains("Type the server’s name exactly"));
    assert_eq!(
        cancel("tokyo-1", dates[0].clone(), "").await.status,
        422,
        "acknowledged"
    );
    assert_eq!(
        cancel("tokyo-1", (term_end + 1).to_string(), "yes")
            .await
            .status,
        422,
        "a term end"
    );
    let done = cancel("tokyo-1", dates[0].clone(), "yes").await;
    assert_eq!(done.location(), format!("{base}/cancellation?done=cancel"));
    assert!(app
        .get_as(&owner, &tab)
        .await
        .body
        .contains("data-testid=\"cancel-scheduled\""));
    // The list says so too, with the date.
    let list = strip_tags(&app.get_as(&owner, "/en/servers").await.body);
    let when = domain::time::format_date(term_end);
    assert!(list.contains(&format!("Cancels on {when}")), "{list}");

    // Revocable before the date; then cancelled again.
    let revoked = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/cancellation/revoke"),
            &[],
            &[],
        )
        .await;
    assert_eq!(
        revoked.location(),
        format!("{base}/cancellation?done=revoke")
    );
    assert!(app
        .get_as(&owner, &tab)
        .await
        .body
        .contains("id=\"cancel-at\""));
    let again = cancel("tokyo-1", dates[0].clone(), "yes").await;
    assert_eq!(
        again.location(),
        format!("{base}/cancellation?done=cancel"),
        "{}",
        strip_tags(&again.body)
    );
    let home = app.get("/en").await;
    assert_eq!(
        common::stock_cell(&home.body, "tyo", "g-l40s-x2"),
        "sold-out"
    );

    // The date comes: wiped, back in stock, gone from the list.
    clock.advance(term_end - START + 3600);
    let fields = [("email", "owner@a.example"), ("password", common::PASSWORD)];
    app.post_as(&owner, "/en/login", "/en/login", &fields, &[])
        .await;
    let mut freed = Vec::new();
    for _ in 0..100 {
        freed = app.host_names("tyo", "g-l40s-x2", "free");
        if !freed.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    assert_eq!(freed.len(), 1, "the card returned to the pool");
    let home = app.get("/en").await;
    assert_ne!(
        common::stock_cell(&home.body, "tyo", "g-l40s-x2"),
        "sold-out"
    );
    let servers = app.get_as(&owner, "/en/servers").await.body;
    assert!(
        !servers.contains("data-server=\"tokyo-1\""),
        "left the list"
    );
    let page = app.get_as(&owner, &base).await.body;
    assert!(page.contains("data-testid=\"cancelled\""));
    assert!(page.contains("data-event=\"wiped\""));
    let mut mail = String::new();
    for _ in 0..50 {
        mail = app.last_mail("waiting@example.com");
        if mail.contains("back in stock") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(mail.contains("G-L40S×2 · Tokyo is back in stock"), "{mail}");
    // Billing stopped: the first term's invoice stays, no second one.
    app.after_housekeeping().await;
    let billing = strip_tags(&app.get_as(&owner, "/en/billing").await.body);
    assert!(
        billing.contains("INV-2026-000001") && !billing.contains("INV-2026-000002"),
        "{billing}"
    );
    let audit = app.get_as(&owner, "/en/audit").await.body;
    assert!(audit.contains("data-action=\"server.cancel_scheduled\""));
    app.finish().await;
}
