//! A host's own staff page, through HTTP as staff: linked from the hosts
//! list, it names the host's site, plan and state, its BMC (never its
//! password), and its history newest first in both languages: state
//! changes with their reason and who made them, and the Fleet's events
//! (a BMC that could not be read) that leave the state as it was. An
//! unknown host is the 404 page; customers are refused (403).

use crate::common::{strip_tags, TestApp, TestDb};

on_both_databases!(
    a_hosts_page_shows_its_history_newest_first_in_both_languages,
    a_hosts_page_shows_its_bmc_and_the_fleets_events,
    an_unknown_host_is_not_found_and_customers_are_refused,
    hosts_are_changed_from_their_row_searched_and_paged,
);

const STAFF: &str = "ops@host.example";

/// Racks one host where the demo inventory has none, so its name and its
/// history are this test's alone.
fn racked_host(app: &TestApp) -> String {
    app.rack("lax", "g-l40s-x2", 1);
    let mut names = app.host_names("lax", "g-l40s-x2", "free");
    assert_eq!(names.len(), 1, "{names:?}");
    names.remove(0)
}

/// Moves `host` to `state` with `reason` on the staff hosts page.
async fn set_state(app: &TestApp, staff: &reqwest::Client, host: &str, state: &str, reason: &str) {
    let done = app
        .post_as(
            staff,
            "/en/staff/hosts",
            "/en/staff/hosts/set",
            &[("name", host), ("state", state), ("reason", reason)],
            &[],
        )
        .await;
    assert_eq!(done.status, 303, "{}", strip_tags(&done.body));
}

/// The history table's rows, as text, newest first.
fn history_rows(body: &str) -> Vec<String> {
    body.split("class=\"host-history phone-cards\"")
        .nth(1)
        .and_then(|table| table.split("</table>").next())
        .unwrap_or_default()
        .split("<tr data-event-to=")
        .skip(1)
        .map(|row| strip_tags(&format!("<x {row}")))
        .collect()
}

async fn a_hosts_page_shows_its_history_newest_first_in_both_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let staff = app.staff(STAFF).await;
    let host = racked_host(&app);
    set_state(&app, &staff, &host, "maintenance", "fan 3 rattles").await;

    // The hosts list links the host's page.
    let hosts = app.get_as(&staff, "/en/staff/hosts").await.body;
    let link = format!("href=\"/en/staff/hosts/{host}\"");
    assert!(hosts.contains(&link), "the hosts list links {host}");

    let page = app.get_as(&staff, &format!("/en/staff/hosts/{host}")).await;
    assert_eq!(page.status, 200, "{}", strip_tags(&page.body));
    let text = strip_tags(&page.body);
    assert!(text.contains(&format!("Host {host}")), "{text}");
    assert!(
        page.body.contains("data-testid=\"host-site\">lax<"),
        "{text}"
    );
    assert!(
        page.body.contains("data-testid=\"host-plan\">g-l40s-x2<"),
        "{text}"
    );
    assert!(page.body.contains("data-state=\"maintenance\""), "{text}");
    assert!(page.body.contains("data-testid=\"no-bmc\""), "{text}");
    // In the staff menu, under Hosts; the switch leads to the same host.
    assert!(
        page.body
            .contains("href=\"/en/staff/hosts\" aria-current=\"page\""),
        "{text}"
    );
    assert!(page
        .body
        .contains(&format!("href=\"/zh/staff/hosts/{host}\"")));

    let rows = history_rows(&page.body);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[0].contains("Free → Maintenance"), "{rows:?}");
    assert!(rows[0].contains(&format!("staff:{STAFF}")), "{rows:?}");
    assert!(rows[0].contains("fan 3 rattles"), "{rows:?}");
    assert!(rows[0].contains(" UTC"), "{rows:?}");
    // Racking names the state it started in.
    assert!(rows[1].contains("Free"), "{rows:?}");
    assert!(rows[1].contains("racked"), "{rows:?}");
    assert!(!rows[1].contains('→'), "{rows:?}");

    let zh = app.get_as(&staff, &format!("/zh/staff/hosts/{host}")).await;
    assert_eq!(zh.status, 200);
    let zh_text = strip_tags(&zh.body);
    assert!(zh_text.contains(&format!("主机 {host}")), "{zh_text}");
    assert!(zh_text.contains("历史记录"), "{zh_text}");
    let rows = history_rows(&zh.body);
    assert!(rows[0].contains("空闲 → 维护中"), "{rows:?}");
    assert!(rows[0].contains("fan 3 rattles"), "{rows:?}");

    // Back in service: the newest change comes first.
    set_state(&app, &staff, &host, "free", "fan replaced").await;
    let page = app.get_as(&staff, &format!("/en/staff/hosts/{host}")).await;
    let rows = history_rows(&page.body);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows[0].contains("Maintenance → Free"), "{rows:?}");
    assert!(rows[0].contains("fan replaced"), "{rows:?}");
    assert!(rows[1].contains("fan 3 rattles"), "{rows:?}");
    app.finish().await;
}

async fn a_hosts_page_shows_its_bmc_and_the_fleets_events(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let staff = app.staff(STAFF).await;
    let host = racked_host(&app);
    set_state(&app, &staff, &host, "maintenance", "new BMC").await;
    // A BMC on this machine where nothing listens: its check fails at once.
    let set = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/bmc",
            &[
                ("host", host.as_str()),
                ("url", "http://127.0.0.1:1"),
                ("user", "fleet-admin"),
                ("password", "sealed-secret-pw"),
                ("self_signed", "1"),
            ],
            &[],
        )
        .await;
    assert_eq!(set.status, 303, "{}", strip_tags(&set.body));
    let checked = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/check",
            &[("host", host.as_str())],
            &[],
        )
        .await;
    assert_eq!(checked.status, 303, "{}", strip_tags(&checked.body));

    let page = app.get_as(&staff, &format!("/en/staff/hosts/{host}")).await;
    assert_eq!(page.status, 200);
    let text = strip_tags(&page.body);
    let bmc = page
        .body
        .split("data-testid=\"host-bmc\"")
        .nth(1)
        .and_then(|facts| facts.split("</dl>").next())
        .map(|facts| strip_tags(&format!("<x {facts}")))
        .unwrap_or_default();
    assert!(bmc.contains("http://127.0.0.1:1"), "{bmc}");
    assert!(bmc.contains("fleet-admin"), "{bmc}");
    assert!(bmc.contains("certificate not verified"), "{bmc}");
    assert!(
        page.body.contains("data-testid=\"bmc-check-error\""),
        "{bmc}"
    );
    assert!(!page.body.contains("sealed-secret-pw"), "{text}");
    assert!(!page.body.contains("data-testid=\"no-bmc\""));

    // The failed check is an event of its own: the state as it was, by the
    // Fleet, with the BMC's words; it is the newest.
    let rows = history_rows(&page.body);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows[0].contains("BMC check failed"), "{rows:?}");
    assert!(rows[0].contains("fleet"), "{rows:?}");
    assert!(rows[0].contains("Maintenance"), "{rows:?}");
    assert!(!rows[0].contains('→'), "{rows:?}");
    assert!(rows[1].contains("Free → Maintenance"), "{rows:?}");
    app.finish().await;
}

async fn an_unknown_host_is_not_found_and_customers_are_refused(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let staff = app.staff(STAFF).await;
    let owner = app.member("owner@acme.example", "Owner", "Acme").await;
    let host = racked_host(&app);

    for (path, heading) in [
        ("/en/staff/hosts/no-such-host", "We can’t find that page"),
        ("/zh/staff/hosts/no-such-host", "找不到这个页面"),
        // No host name holds a NUL byte (PostgreSQL would refuse it).
        ("/en/staff/hosts/a%00b", "We can’t find that page"),
    ] {
        let page = app.get_as(&staff, path).await;
        assert_eq!(page.status, 404, "{path}");
        assert!(strip_tags(&page.body).contains(heading), "{path}");
    }

    let path = format!("/en/staff/hosts/{host}");
    let refused = app.get_as(&owner, &path).await;
    assert_eq!(refused.status, 403);
    assert!(!refused.body.contains("racked"));
    let visitor = app.get_as(&app.browser(), &path).await;
    assert!(visitor.location().starts_with("/en/login"), "{path}");
    app.finish().await;
}

/// Issue 33, item 12: a host's state is changed from its row (no name to
/// type), an allocated host names its customer, and the list is searched
/// and paged with its filters kept.
async fn hosts_are_changed_from_their_row_searched_and_paged(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let staff = app.staff(STAFF).await;
    app.owner_with_running_server(&[("name", "rented-1")]).await;
    let allocated = app.host_names("fra", "g-ada", "allocated");
    assert_eq!(allocated.len(), 1, "{allocated:?}");
    let host = racked_host(&app);

    // The free host's row offers what it may become, the allocated one
    // only "failed", and names its customer.
    let page = app.get_as(&staff, "/en/staff/hosts").await.body;
    let row_of = |body: &str, name: &str| -> String {
        body.split(&format!("<tr data-host=\"{name}\""))
            .nth(1)
            .and_then(|row| row.split("</tr>").next())
            .unwrap_or_default()
            .to_owned()
    };
    let free = row_of(&page, &host);
    assert!(
        free.contains(&format!("name=\"name\" value=\"{host}\"")),
        "{free}"
    );
    assert!(free.contains("<option value=\"maintenance\">"), "{free}");
    assert!(!free.contains("<option value=\"free\">"), "{free}");
    let rented = row_of(&page, &allocated[0]);
    assert!(strip_tags(&rented).contains("Org A · rented-1"), "{rented}");
    assert!(rented.contains("<option value=\"failed\">"), "{rented}");
    assert!(
        !rented.contains("<option value=\"maintenance\">"),
        "{rented}"
    );
    // The row's form does it.
    set_state(&app, &staff, &host, "maintenance", "from its row").await;
    assert_eq!(
        app.host_names("lax", "g-l40s-x2", "maintenance"),
        vec![host.clone()]
    );

    // Searched by part of its name, in both languages.
    // (All but its last character, in capitals: only this host is at
    // that site with that plan.)
    let part = host[..host.len() - 1].to_uppercase();
    let found = app
        .get_as(&staff, &format!("/en/staff/hosts?q={part}"))
        .await
        .body;
    assert!(found.contains(&format!("<tr data-host=\"{host}\"")));
    assert!(!found.contains(&format!("<tr data-host=\"{}\"", allocated[0])));
    assert!(strip_tags(&found).contains("1 host matches."));
    let zh = app
        .get_as(&staff, &format!("/zh/staff/hosts?q={part}"))
        .await
        .body;
    assert!(strip_tags(&zh).contains("共有 1 台主机符合条件。"));

    // A hundred and more: pages, which keep the filters.
    app.rack("sin", "g-ada", 120);
    let first = app.get_as(&staff, "/en/staff/hosts?site=sin").await.body;
    assert_eq!(first.matches("<tr data-host=").count(), 100);
    assert!(strip_tags(&first).contains("Page 1 of 2"));
    assert!(
        first.contains("href=\"/en/staff/hosts?site=sin&amp;page=2\""),
        "{first}"
    );
    let second = app
        .get_as(&staff, "/en/staff/hosts?site=sin&page=2")
        .await
        .body;
    assert!(strip_tags(&second).contains("Page 2 of 2"));
    assert!(second.matches("<tr data-host=").count() >= 20);
    app.finish().await;
}
