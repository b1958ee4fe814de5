//! Ordering through the portal: the order form's price and VAT, placing an
//! order once however often it is submitted, provisioning to a running
//! server, sold out at the last moment, host faults, and who sees what.

use crate::common::{self, server_id, strip_tags, TestApp, TestDb};

on_both_databases!(
    an_order_is_priced_placed_once_and_provisioned_to_a_running_server,
    sold_out_at_the_last_moment_names_the_sites_that_still_have_it,
    a_faulty_host_moves_the_server_to_another_host_or_fails_the_order,
    roles_see_orders_servers_and_money_as_allowed,
    power_actions_need_confirmation_and_the_root_password_shows_once,
    bad_order_input_gets_a_clear_error_and_keeps_what_was_typed,
    logging_in_returns_to_the_order_form,
    an_organization_places_at_most_twenty_orders_a_day_in_either_language,
);

async fn an_organization_places_at_most_twenty_orders_a_day_in_either_language(db: TestDb) {
    let clock = backend::Clock::manual(1_796_000_000);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    app.rack("dal", "g-ada", 30);
    for n in 0..backend::orders::DAILY_ORDER_LIMIT {
        let page = app
            .place_order(&owner, "g-ada", "dal", &[("name", &format!("n{n}"))])
            .await;
        assert_eq!(page.status, 303, "order {n}: {}", page.body);
    }
    let refused = app.place_order(&owner, "g-ada", "dal", &[]).await;
    assert_eq!(refused.status, 429);
    assert!(refused
        .body
        .contains("placed 20 orders in the last 24 hours"));
    // The form and the refusal read in Chinese on /zh.
    let zh = app.get_as(&owner, "/zh/order?plan=g-ada&site=dal").await;
    assert!(zh.body.contains("订购 G-ADA") && zh.body.contains("购买方"));
    let key = common::hidden(&zh.body, "idempotency_key");
    let csrf = common::csrf_token(&zh.body);
    let answer = owner
        .post(format!("{}/zh/order", app.base))
        .form(&[
            ("plan", "g-ada"),
            ("site", "dal"),
            ("idempotency_key", &key),
            ("csrf", &csrf),
            ("intent", "place"),
            ("name", "zh-1"),
            ("image", "rocky-9"),
            ("country", "NL"),
        ])
        .send()
        .await
        .expect("posting");
    assert_eq!(answer.status().as_u16(), 429);
    assert!(answer
        .text()
        .await
        .unwrap_or_default()
        .contains("过去 24 小时内已下了 20 个订单"));
    // A day later (and logged in again: sessions last 12 hours) there is room.
    clock.advance(86_401);
    let fields = [("email", "owner@a.example"), ("password", common::PASSWORD)];
    let login = app
        .post_as(&owner, "/en/login", "/en/login", &fields, &[])
        .await;
    assert_eq!(
        login.location(),
        "/en/servers",
        "{}",
        strip_tags(&login.body)
    );
    let page = app
        .place_order(&owner, "g-ada", "dal", &[("name", "next-day")])
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    app.finish().await;
}

async fn logging_in_returns_to_the_order_form(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.member("owner@a.example", "Owner", "Org A").await;
    let visitor = app.browser();
    let page = app.get_as(&visitor, "/en/order?plan=g-ada&site=fra").await;
    assert_eq!(page.location(), "/en/login?done=login");
    let fields = [("email", "owner@a.example"), ("password", common::PASSWORD)];
    let page = app
        .post_as(&visitor, "/en/login", "/en/login", &fields, &[])
        .await;
    assert_eq!(page.location(), "/en/order?plan=g-ada&site=fra");
    // Only once: the next login goes to the owner's servers.
    app.post_as(&visitor, "/en/account", "/en/logout", &[], &[])
        .await;
    let page = app
        .post_as(&visitor, "/en/login", "/en/login", &fields, &[])
        .await;
    assert_eq!(page.location(), "/en/servers");
    app.finish().await;
}

async fn an_order_is_priced_placed_once_and_provisioned_to_a_running_server(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let before = app.host_names("fra", "g-ada", "free").len();

    // The summary states net, VAT for the country, and the total.
    let (csrf, key) = app.order_form(&owner, "g-ada", "fra").await;
    let form = [
        ("plan", "g-ada"),
        ("site", "fra"),
        ("idempotency_key", key.as_str()),
        ("csrf", csrf.as_str()),
        ("intent", "update"),
        ("name", "trainer-1"),
        ("image", "debian-13"),
        ("addons", "offsite-backup"),
        ("country", "DE"),
    ];
    let page = owner
        .post(format!("{}/en/order", app.base))
        .form(&form)
        .send()
        .await
        .expect("updating the summary");
    assert_eq!(page.status().as_u16(), 200);
    let body = page.text().await.expect("body");
    let text = strip_tags(&body);
    assert!(text.contains("Monthly price ex VAT€254.00"), "{text}");
    assert!(text.contains("VAT 19%€48.26"), "{text}");
    assert!(text.contains("Total per month€302.26"), "{text}");
    assert!(
        body.contains("data-not-for=\"wont-fit\""),
        "who should not buy"
    );

    // Placing it twice with the same form makes one order and one server.
    let fields = [
        ("name", "trainer-1"),
        ("image", "debian-13"),
        ("addons", "offsite-backup"),
        ("country", "DE"),
    ];
    let first = app
        .post_order(&owner, "g-ada", "fra", &key, &csrf, &fields)
        .await;
    assert_eq!(first.status, 303, "{}", first.body);
    assert!(
        first.location().starts_with("/en/servers/"),
        "{}",
        first.location()
    );
    let again = app
        .post_order(&owner, "g-ada", "fra", &key, &csrf, &fields)
        .await;
    assert_eq!(
        again.location(),
        first.location(),
        "a retried submit finds the same order"
    );
    let id = server_id(first.location());

    let progress = app.wait_for_server(&owner, &id).await;
    assert_eq!(progress["state"], "running", "{progress}");
    assert!(
        progress["ipv4"].as_str().unwrap_or("").starts_with("198.1"),
        "{progress}"
    );
    let page = app.get_as(&owner, &format!("/en/servers/{id}")).await;
    let text = strip_tags(&page.body);
    assert!(text.contains("Running"), "{text}");
    assert!(text.contains("Debian 13"), "{text}");
    assert!(text.contains("Off-site nightly backup"), "{text}");
    assert!(text.contains("Renews on"), "{text}");
    assert!(
        page.body.contains("data-event=\"running\""),
        "events are listed"
    );
    // Telemetry drawn on the server (its graphs tab): one temperature line
    // per card, readings every 15 minutes but only since the rental (a new
    // server has one), traffic against fair use.
    let page = app
        .get_as(&owner, &format!("/en/servers/{id}/graphs"))
        .await;
    let text = strip_tags(&page.body);
    assert!(page.body.contains("data-chart=\"gpu-temp\""));
    assert!(page.body.contains("data-chart=\"gpu-clock\""));
    // The clock is an RTX 4000 Ada's: at most its 2,175 MHz boost.
    let clock_now: i64 = text
        .split("Card 1: ")
        .filter_map(|rest| rest.split(" MHz, now ").nth(1))
        .filter_map(|rest| rest.split(' ').next()?.parse().ok())
        .next()
        .expect("the clock chart's summary");
    assert!((1_800..=2_175).contains(&clock_now), "{clock_now} MHz");
    let temp = page
        .body
        .split("data-chart=\"gpu-temp\"")
        .nth(1)
        .unwrap_or_default();
    let line = temp
        .split("points=\"")
        .nth(1)
        .and_then(|p| p.split('"').next())
        .unwrap_or_default();
    assert_eq!(line.split(' ').count(), 1, "{line}");
    assert!(
        text.contains("of the 250.0 TB fair-use allowance"),
        "{text}"
    );
    assert!(text.contains("Corrected memory errors (ECC)"), "{text}");
    // The invoice mail may be written in the same second: read the newest few.
    let mail = app.ops_ok(&["mail", "outbox", "--to", "owner@a.example", "--limit", "5"]);
    assert!(mail.contains("Your server trainer-1 is ready"), "{mail}");
    assert!(
        mail.contains(progress["ipv4"].as_str().unwrap_or("?")),
        "{mail}"
    );

    let orders = app.get_as(&owner, "/en/orders").await;
    assert_eq!(orders.body.matches("data-order=").count(), 1, "one order");
    assert!(strip_tags(&orders.body).contains("€302.26"));
    assert_eq!(app.host_names("fra", "g-ada", "free").len(), before - 1);
    assert_eq!(app.host_names("fra", "g-ada", "held").len(), 0);
    let metrics = app.get("/metrics").await.body;
    assert!(
        metrics.contains("gpu_jobs_run_total{kind=\"provision\",outcome=\"done\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("gpu_jobs{state=\"done\"} 1"), "{metrics}");
    app.finish().await;
}

async fn sold_out_at_the_last_moment_names_the_sites_that_still_have_it(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    // Configure lists the sites that have the plan first; sold-out ones
    // (London's only host is in maintenance; none in LA or Tokyo) last.
    let configure = app.get("/en/configure?plan=g-l40s-x2").await.body;
    let order: Vec<&str> = configure
        .split("<option value=\"")
        .skip(1)
        .filter_map(|o| o.split('"').next())
        .filter(|v| v.len() == 3)
        .collect();
    assert_eq!(
        order,
        ["ams", "fra", "nyc", "dal", "sin", "lon", "lax", "tyo"]
    );
    app.rack("lax", "g-l40s-x2", 1);
    // Two forms open on the last host; the second submit finds it gone.
    let (csrf, key_a) = app.order_form(&owner, "g-l40s-x2", "lax").await;
    let (_, key_b) = app.order_form(&owner, "g-l40s-x2", "lax").await;
    let won = app
        .post_order(&owner, "g-l40s-x2", "lax", &key_a, &csrf, &[])
        .await;
    assert_eq!(won.status, 303, "{}", won.body);
    let lost = app
        .post_order(&owner, "g-l40s-x2", "lax", &key_b, &csrf, &[])
        .await;
    assert_eq!(lost.status, 409, "{}", lost.body);
    assert!(lost
        .body
        .contains("the last server of this plan at this site was just taken"));
    assert!(lost.body.contains("data-testid=\"sold-out\""));
    assert!(
        lost.body.contains("data-site=\"fra\""),
        "fra still has G-L40S×2"
    );
    assert!(!lost.body.contains("data-site=\"lax\""));
    assert!(
        lost.body.contains("data-testid=\"alert-form\""),
        "an alert is offered"
    );
    // Nothing half-written: one order, and the form still says what was chosen.
    let orders = app.get_as(&owner, "/en/orders").await;
    assert_eq!(orders.body.matches("data-order=").count(), 1);
    let home = app.get("/en").await;
    assert_eq!(
        common::stock_cell(&home.body, "lax", "g-l40s-x2"),
        "sold-out"
    );
    app.finish().await;
}

async fn a_faulty_host_moves_the_server_to_another_host_or_fails_the_order(db: TestDb) {
    let app = TestApp::spawn_configured(db, backend::Clock::system(), |c| {
        c.fleet_dev_faulty_hosts = vec!["sin-g-l40s-x2-001".into(), "lax-g-l40s-x2-001".into()];
    })
    .await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    // sin has one G-L40S×2 host (faulty); a second one is racked.
    app.rack("sin", "g-l40s-x2", 1);
    let page = app.place_order(&owner, "g-l40s-x2", "sin", &[]).await;
    assert_eq!(page.status, 303, "{}", page.body);
    let id = server_id(page.location());
    let progress = app.wait_for_server(&owner, &id).await;
    assert_eq!(progress["state"], "running", "{progress}");
    let detail = app.get_as(&owner, &format!("/en/servers/{id}")).await;
    assert!(detail.body.contains("data-event=\"provisioning.moved\""));
    assert_eq!(
        app.host_names("sin", "g-l40s-x2", "failed"),
        vec!["sin-g-l40s-x2-001"]
    );
    assert_eq!(
        app.host_names("sin", "g-l40s-x2", "allocated"),
        vec!["sin-g-l40s-x2-002"]
    );

    // lax's only host is faulty and nothing else is free: the order fails,
    // nothing is charged, and the server is not listed.
    app.rack("lax", "g-l40s-x2", 1);
    let page = app
        .place_order(&owner, "g-l40s-x2", "lax", &[("name", "doomed")])
        .await;
    let id = server_id(page.location());
    let progress = app.wait_for_server(&owner, &id).await;
    assert_eq!(progress["state"], "failed", "{progress}");
    let orders = app.get_as(&owner, "/en/orders").await;
    assert!(strip_tags(&orders.body).contains("Failed, not charged"));
    let servers = app.get_as(&owner, "/en/servers").await;
    assert!(!servers.body.contains("data-server=\"doomed\""));
    assert_eq!(app.host_names("lax", "g-l40s-x2", "failed").len(), 1);
    assert_eq!(app.host_names("lax", "g-l40s-x2", "allocated").len(), 0);
    app.finish().await;
}

async fn roles_see_orders_servers_and_money_as_allowed(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = &app.invite(&owner, "tech@a.example", "technical").await;
    let billing = &app.invite(&owner, "bill@a.example", "billing").await;
    let by_owner = app
        .place_order(&owner, "g-ada", "ams", &[("name", "owners")])
        .await;
    let by_tech = app
        .place_order(tech, "g-ada", "ams", &[("name", "techs")])
        .await;
    assert_eq!(by_tech.status, 303, "technical members order servers");
    let refused = app.get_as(billing, "/en/order?plan=g-ada&site=ams").await;
    assert_eq!(refused.status, 403, "billing members don't order servers");

    // Technical: own orders, no money; every server of the organization.
    let list = app.get_as(tech, "/en/orders").await;
    assert_eq!(list.body.matches("data-order=").count(), 1);
    assert!(!list.body.contains('€'), "no amounts for technical members");
    assert_eq!(app.get_as(tech, "/en/servers").await.status, 200);
    // Billing: every order with amounts; no servers.
    let list = app.get_as(billing, "/en/orders").await;
    assert_eq!(list.body.matches("data-order=").count(), 2);
    assert!(list.body.contains('€'));
    assert_eq!(app.get_as(billing, "/en/servers").await.status, 403);
    let owner_server = server_id(by_owner.location());
    assert_eq!(
        app.get_as(billing, &format!("/en/servers/{owner_server}"))
            .await
            .status,
        403
    );

    // Another organization sees nothing of it, by list or by id.
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    assert_eq!(
        app.get_as(&other, &format!("/en/servers/{owner_server}"))
            .await
            .status,
        404
    );
    assert_eq!(
        app.get_as(&other, &format!("/en/servers/{owner_server}/progress"))
            .await
            .status,
        404
    );
    let list = app.get_as(&other, "/en/orders").await;
    assert_eq!(list.body.matches("data-order=").count(), 0);
    let renamed = app
        .post_as(
            &other,
            "/en/servers",
            &format!("/en/servers/{owner_server}/rename"),
            &[("name", "mine")],
            &[],
        )
        .await;
    assert_eq!(renamed.status, 404);
    app.finish().await;
}

async fn power_actions_need_confirmation_and_the_root_password_shows_once(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-ada", "nyc", &[("name", "keyless")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let base = format!("/en/servers/{id}");

    let unconfirmed = app
        .post_as(&owner, &base, &format!("{base}/power/reboot"), &[], &[])
        .await;
    assert_eq!(unconfirmed.status, 422);
    assert!(unconfirmed.body.contains("Tick the box to confirm."));
    let done = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/power/reboot"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(done.location(), format!("{base}/power?done=power"));
    let progress = app.wait_for_server(&owner, &id).await;
    assert_eq!(progress["state"], "running");
    let page = app.get_as(&owner, &base).await;
    assert!(
        page.body.contains("data-event=\"reboot.done\""),
        "{}",
        page.body
    );

    // No key was given: the root password is there once, then gone.
    assert!(page.body.contains("Show the root password"));
    let posted = app
        .post_as(&owner, &base, &format!("{base}/reveal"), &[], &[])
        .await;
    assert_eq!(posted.location(), format!("{base}#root-password-section"));
    let shown = app.follow(&owner, posted).await;
    let password = common::hidden(
        &shown
            .body
            .replace("data-testid=\"root-password\">", "name=\"pw\" value=\""),
        "pw",
    );
    assert_eq!(
        password.split('<').next().unwrap_or("").len(),
        24,
        "{}",
        shown.body
    );
    // Neither a reload of that page nor another reveal shows it again.
    assert!(!app
        .get_as(&owner, &base)
        .await
        .body
        .contains("data-testid=\"root-password\""));
    let again = app
        .post_as(&owner, &base, &format!("{base}/reveal"), &[], &[])
        .await;
    let again = app.follow(&owner, again).await;
    assert!(!again.body.contains("data-testid=\"root-password\""));
    assert!(!app
        .get_as(&owner, &base)
        .await
        .body
        .contains("Show the root password"));

    let renamed = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/rename"),
            &[("name", "Renamed-Box")],
            &[],
        )
        .await;
    assert_eq!(renamed.location(), format!("{base}?done=rename"));
    assert!(app
        .get_as(&owner, "/en/servers")
        .await
        .body
        .contains("data-server=\"renamed-box\""));
    let bad = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/rename"),
            &[("name", "not a hostname!")],
            &[],
        )
        .await;
    assert_eq!(bad.status, 422);
    assert!(
        bad.body.contains("value=\"not a hostname!\""),
        "what was typed stays"
    );
    app.finish().await;
}

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPDkijbeHwy3mV+5q/FLfrqSX8S7QEee6M83GSKNTRT7 demo@example";

async fn bad_order_input_gets_a_clear_error_and_keeps_what_was_typed(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let cases: [(&[(&str, &str)], &str); 4] = [
        (&[("name", "-bad-")], "Server names are 1 to 63"),
        (
            &[("new_key", "ssh-ed25519 nonsense")],
            "That isn’t an OpenSSH public key",
        ),
        (&[("addons", "no-such-addon")], "That choice isn’t on offer"),
        (&[("image", "windows")], "That choice isn’t on offer"),
    ];
    for (fields, message) in cases {
        let page = app.place_order(&owner, "g-l40s", "ams", fields).await;
        assert_eq!(page.status, 422, "{fields:?}");
        assert!(
            page.body.contains(message),
            "{fields:?}: {}",
            strip_tags(&page.body)
        );
    }
    let orders = app.get_as(&owner, "/en/orders").await;
    assert_eq!(
        orders.body.matches("data-order=").count(),
        0,
        "nothing half-written"
    );

    // A pasted key is saved and installed; the server lists its fingerprint.
    let page = app
        .place_order(&owner, "g-l40s", "ams", &[("new_key", KEY)])
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let fingerprint = "SHA256:u6j3L2F6tqtPjTku0QyiBGmX8ecdUHrPtZ8MhawD+sM";
    assert!(app
        .get_as(&owner, &format!("/en/servers/{id}"))
        .await
        .body
        .contains(fingerprint));
    let keys = app.get_as(&owner, "/en/keys").await;
    assert!(keys.body.contains(fingerprint));
    let bad = app
        .post_as(
            &owner,
            "/en/keys",
            "/en/keys/add",
            &[("public_key", "hello")],
            &[],
        )
        .await;
    assert_eq!(bad.status, 422);
    // Unknown plan or site in the address: the 404 page, not a 500.
    assert_eq!(
        app.get_as(&owner, "/en/order?plan=g-h100&site=ams")
            .await
            .status,
        404
    );
    app.finish().await;
}
