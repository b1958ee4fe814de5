//! The server page says what just happened where the customer is looking:
//! a cancellation scheduled or taken back is said at the top with the date
//! that now holds (and the owners are mailed, each in their language); a
//! restore lands on its progress; an overdue invoice shows the coming
//! suspension on the page and in the list, with the invoice only for
//! members who see money.

use crate::common::api::create_token;
use crate::common::{server_id, strip_tags, TestApp, TestDb, PASSWORD};

on_both_databases!(
    cancelling_and_revoking_are_said_at_the_top_and_mailed_to_the_owners,
    a_restore_lands_on_its_progress_and_a_snapshot_on_its_section,
    an_overdue_invoice_shows_the_suspension_date_on_the_page_and_the_list,
    the_host_key_fingerprints_are_on_the_page_and_in_the_api,
    a_refused_field_is_marked_and_explained_beside_it,
    the_server_page_is_in_tabs_each_at_its_own_address,
);

/// 2026-11-10 00:00 UTC.
const START: i64 = 1_794_268_800;
const DAY: i64 = 86_400;

/// Signs up in Chinese (the account's language for mail), confirms the
/// address, logs in and gives the billing profile orders need.
async fn chinese_member(app: &TestApp, email: &str, company: &str) -> reqwest::Client {
    let b = app.browser();
    let fields = [
        ("name", "李安"),
        ("email", email),
        ("password", PASSWORD),
        ("company", company),
        ("lang", "zh"),
    ];
    let page = app
        .post_as(&b, "/zh/signup", "/zh/signup", &fields, &[])
        .await;
    assert_eq!(page.location(), "/zh/signup?sent=1", "{}", page.body);
    let link = app.mailed_link(email);
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    app.post_as(&b, &link, "/zh/verify", &[("token", &token)], &[])
        .await;
    let login = [("email", email), ("password", PASSWORD)];
    let page = app.post_as(&b, "/zh/login", "/zh/login", &login, &[]).await;
    assert_eq!(page.location(), "/zh/servers", "{}", page.body);
    app.give_billing_profile(&b, company, "DE", email).await;
    b
}

/// Orders a G-L40S in Tokyo named `name` and waits until it runs.
async fn running(app: &TestApp, browser: &reqwest::Client, name: &str) -> String {
    app.rack("tyo", "g-l40s", 1);
    let page = app
        .place_order(browser, "g-l40s", "tyo", &[("name", name)])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(browser, &id).await;
    id
}

/// The term line of the facts: its label and date.
fn term_line(body: &str) -> String {
    let dd = body
        .split("data-testid=\"term-end\">")
        .nth(1)
        .unwrap_or_default();
    let dt = body
        .split("data-testid=\"term-end\"")
        .next()
        .and_then(|before| before.rsplit("<dt>").next())
        .and_then(|dt| dt.split("</dt>").next())
        .unwrap_or_default();
    strip_tags(&format!(
        "{dt} {}",
        dd.split("</dd>").next().unwrap_or_default()
    ))
}

/// Where `needle` first appears in `body` (panics if it does not).
fn at(body: &str, needle: &str) -> usize {
    body.find(needle)
        .unwrap_or_else(|| panic!("{needle:?} is not on the page: {}", strip_tags(body)))
}

async fn cancelling_and_revoking_are_said_at_the_top_and_mailed_to_the_owners(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let id = running(&app, &owner, "train-fra-01").await;
    let base = format!("/en/servers/{id}");
    let renews = domain::time::format_date(domain::time::add_months(START, 1));
    let body = app.get_as(&owner, &base).await.body;
    assert_eq!(term_line(&body), format!("Renews on {renews}"));

    // A technical member schedules it: the redirect lands on the
    // cancellation tab, where the outcome is said right after the state
    // line (above the tabs), which now says when the server stops; the
    // overview's "Renews on" is gone.
    let ends = app.cancel_at_term_end(&tech, &id, "train-fra-01").await;
    let date = domain::time::format_date(ends);
    let body = app
        .get_as(&tech, &format!("{base}/cancellation?done=cancel"))
        .await
        .body;
    let said = at(
        &body,
        &format!("Cancellation scheduled: the server stops on {date}."),
    );
    let state = at(&body, "data-testid=\"server-state\"");
    assert!(state < said, "the outcome follows the state line");
    assert!(
        said < at(&body, "class=\"server-tabs\""),
        "and sits above the tabs"
    );
    let stops = at(&body, "data-testid=\"server-ends\"");
    assert!(state < stops && stops < said, "the state line has the date");
    let text = strip_tags(&body);
    assert!(text.contains(&format!("Stops on {date} (cancellation scheduled)")));
    let overview = app.get_as(&tech, &base).await.body;
    assert_eq!(term_line(&overview), format!("Ends on {date}"));
    assert!(!strip_tags(&overview).contains("Renews on"));

    // The owner is mailed (the technical member who did it is not).
    // Invoice mail may arrive in between: read the newest few.
    let subject = format!("train-fra-01: cancellation scheduled for {date}");
    let mail = app.wait_for_mail("owner@a.example", &subject).await;
    assert!(mail.contains("tech@a.example scheduled the cancellation"));
    assert!(mail.contains(&format!("https://gpu.example.com/en/servers/{id}")));
    let tech_mail = app.ops_ok(&["mail", "outbox", "--to", "tech@a.example", "--limit", "5"]);
    assert!(!tech_mail.contains("cancellation scheduled"), "{tech_mail}");

    // Taken back: said at the top, renewing again; the owner is told.
    let revoked = app
        .post_as(
            &tech,
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
    let body = app.get_as(&tech, revoked.location()).await.body;
    let said = at(
        &body,
        &format!("Cancellation revoked: the server keeps running and renews on {renews}."),
    );
    assert!(at(&body, "data-testid=\"server-state\"") < said);
    assert!(!strip_tags(&body).contains("Stops on"));
    let overview = app.get_as(&tech, &base).await.body;
    assert_eq!(term_line(&overview), format!("Renews on {renews}"));
    let mail = app
        .wait_for_mail("owner@a.example", "train-fra-01: cancellation revoked")
        .await;
    assert!(mail.contains(&format!("renews on {renews}")), "{mail}");

    // A Chinese owner reads both in Chinese, on the page and by mail.
    let zh = chinese_member(&app, "an@b.example", "B 公司").await;
    let id = running(&app, &zh, "lab-2").await;
    let ends = app.cancel_at_term_end(&zh, &id, "lab-2").await;
    let date = domain::time::format_date(ends);
    let page = strip_tags(
        &app.get_as(&zh, &format!("/zh/servers/{id}/cancellation?done=cancel"))
            .await
            .body,
    );
    assert!(
        page.contains(&format!("已安排取消：服务器将于 {date} 停止。")),
        "{page}"
    );
    assert!(page.contains(&format!("将于 {date} 停止（已安排取消）")));
    let subject = format!("lab-2：已安排于 {date} 取消");
    let mail = app.wait_for_mail("an@b.example", &subject).await;
    assert!(mail.contains(&format!("https://gpu.example.com/zh/servers/{id}")));
    let base = format!("/zh/servers/{id}");
    let revoked = app
        .post_as(&zh, &base, &format!("{base}/cancellation/revoke"), &[], &[])
        .await;
    assert_eq!(
        revoked.location(),
        format!("{base}/cancellation?done=revoke")
    );
    let page = strip_tags(&app.get_as(&zh, revoked.location()).await.body);
    assert!(page.contains("已撤销取消：服务器继续运行，将于"), "{page}");
    app.wait_for_mail("an@b.example", "lab-2：已撤销取消").await;
    assert!(
        !app.ops_ok(&["mail", "outbox", "--to", "owner@a.example", "--limit", "5"])
            .contains("lab-2"),
        "another organization's owners hear nothing"
    );
    app.finish().await;
}

async fn a_restore_lands_on_its_progress_and_a_snapshot_on_its_section(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let id = running(&app, &owner, "lab-1").await;
    let base = format!("/en/servers/{id}");

    // Taking a snapshot lands on the snapshots tab, and says so above it.
    let take = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/snapshots"),
            &[("name", "before-driver")],
            &[],
        )
        .await;
    assert_eq!(take.location(), format!("{base}/snapshots?done=snapshot"));
    let body = app.get_as(&owner, take.location()).await.body;
    let said = at(&body, "The snapshot is being taken");
    assert!(said < at(&body, "id=\"snapshots\""), "said above the tab");
    assert!(at(&body, "data-testid=\"server-state\"") < said);
    let body = app
        .wait_for(
            &owner,
            &format!("{base}/snapshots"),
            "data-snapshot=\"before-driver\" data-state=\"ready\"",
        )
        .await;
    let row = body
        .split("data-snapshot=\"before-driver\"")
        .nth(1)
        .unwrap_or_default();
    let snapshot = crate::common::hidden(row, "snapshot");

    // A restore lands on the snapshots tab, under the progress above it.
    let fields = [("snapshot", snapshot.as_str()), ("confirm", "yes")];
    let restore = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/snapshots/restore"),
            &fields,
            &[],
        )
        .await;
    assert_eq!(restore.location(), format!("{base}/snapshots?done=restore"));
    let body = app.get_as(&owner, restore.location()).await.body;
    let progress = at(&body, "data-live=\"progress\"");
    let said = at(
        &body,
        "Restoring the snapshot: the progress is shown above.",
    );
    assert!(progress < said && said < at(&body, "id=\"snapshots\""));
    app.wait_for_server(&owner, &id).await;

    // A reboot's notice follows the state it points to.
    let reboot = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/power/reboot"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(reboot.location(), format!("{base}/power?done=power"));
    let body = app.get_as(&owner, reboot.location()).await.body;
    let said = at(&body, "Request sent: the state above changes as the server");
    assert!(at(&body, "data-testid=\"server-state\"") < said);
    app.wait_for_server(&owner, &id).await;
    app.finish().await;
}

async fn an_overdue_invoice_shows_the_suspension_date_on_the_page_and_the_list(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let id = running(&app, &owner, "billed-1").await;
    app.wait_for(&owner, "/en/billing", "INV-2026-000001").await;
    let base = format!("/en/servers/{id}");
    assert!(!app
        .get_as(&owner, &base)
        .await
        .body
        .contains("data-testid=\"overdue\""));

    // Due in 14 days; a day after that it is overdue, and grace runs 7
    // days from when dunning noticed (the clock stands still meanwhile).
    clock.advance(15 * DAY);
    for (browser, email) in [(&owner, "owner@a.example"), (&tech, "tech@a.example")] {
        let login = [("email", email), ("password", PASSWORD)];
        app.post_as(browser, "/en/login", "/en/login", &login, &[])
            .await;
    }
    app.wait_for(&owner, &base, "data-event=\"billing.past_due\"")
        .await;
    let suspends = domain::time::format_date(START + 22 * DAY);
    let body = app.get_as(&owner, &base).await.body;
    let text = strip_tags(&body);
    assert!(text.contains("Invoice INV-2026-000001 (€"), "{text}");
    assert!(
        text.contains(&format!(
            "is overdue: this server will be suspended on {suspends} unless it is paid."
        )),
        "{text}"
    );
    let warned = at(&body, "data-testid=\"overdue\"");
    assert!(warned < at(&body, "class=\"facts\""), "near the top");
    assert!(
        body.contains("href=\"/en/invoices/"),
        "owners get the invoice"
    );
    let list = app.get_as(&owner, "/en/servers").await.body;
    let text = strip_tags(&list);
    assert!(
        text.contains(&format!("Suspended on {suspends} unless paid")),
        "{text}"
    );
    assert!(text.contains("Invoice INV-2026-000001"), "{text}");
    assert!(list.contains("href=\"/en/invoices/"));

    // A technical member sees the date, not the invoice or its amount.
    for path in [base.as_str(), "/en/servers"] {
        let body = app.get_as(&tech, path).await.body;
        let text = strip_tags(&body);
        assert!(text.contains(&suspends), "{path}: {text}");
        assert!(!body.contains("INV-"), "{path}: {text}");
        assert!(!body.contains('€'), "{path}: {text}");
        assert!(!body.contains("/invoices/"), "{path}");
    }
    let text = strip_tags(&app.get_as(&tech, &base).await.body);
    assert!(
        text.contains(&format!(
            "An invoice is overdue: this server will be suspended on {suspends} unless it is paid."
        )),
        "{text}"
    );
    // In Chinese too.
    let zh = strip_tags(&app.get_as(&owner, &format!("/zh/servers/{id}")).await.body);
    assert!(
        zh.contains(&format!(
            "已逾期：如未付款，此服务器将于 {suspends} 被暂停。"
        )),
        "{zh}"
    );

    // Past the grace period it says the server is suspended.
    clock.advance(8 * DAY);
    let login = [("email", "owner@a.example"), ("password", PASSWORD)];
    app.post_as(&owner, "/en/login", "/en/login", &login, &[])
        .await;
    let body = app
        .wait_for(&owner, &base, "data-event=\"billing.suspended\"")
        .await;
    assert!(strip_tags(&body).contains("is overdue: this server is suspended"));
    let list = strip_tags(&app.get_as(&owner, "/en/servers").await.body);
    assert!(list.contains("Suspended: invoice overdue"), "{list}");
    app.finish().await;
}

/// The first `ssh` asks the customer to trust the server's key: the
/// fingerprints the installed system reported are on its page (both
/// languages) and in the API, to check it against.
async fn the_host_key_fingerprints_are_on_the_page_and_in_the_api(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-ada", "fra", &[("name", "keyed")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let token = create_token(&app, &owner, "ci", &["read"]).await;
    let api = app.api_get(&format!("/api/v1/servers/{id}"), &token).await;
    assert_eq!(api.status, 200, "{}", api.body);
    let keys = api.json()["host_keys"].clone();
    assert_eq!(keys[0]["type"], "ED25519", "{keys}");
    let fingerprint = keys[0]["fingerprint"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        fingerprint.starts_with("SHA256:") && fingerprint.len() == 50,
        "as ssh-keygen -l prints it: {fingerprint}"
    );
    let en = strip_tags(&app.get_as(&owner, &format!("/en/servers/{id}")).await.body);
    assert!(en.contains("SSH host key fingerprints"), "{en}");
    assert!(en.contains(&format!("ED25519 {fingerprint}")), "{en}");
    let zh = strip_tags(&app.get_as(&owner, &format!("/zh/servers/{id}")).await.body);
    assert!(
        zh.contains("SSH 主机密钥指纹") && zh.contains(&fingerprint),
        "{zh}"
    );
    app.finish().await;
}

/// The `<input>` of `id` in `body`, as rendered.
fn input_of<'a>(body: &'a str, id: &str) -> &'a str {
    let at = body.find(&format!("<input id=\"{id}\"")).unwrap_or(0);
    let rest = &body[at..];
    &rest[..rest.find('>').map_or(rest.len(), |end| end + 1)]
}

/// Issue 33: a refused name is marked on its own field (`aria-invalid`,
/// the focus, the message beside it and linked by `aria-describedby`), and
/// not on the page's other field called `name`; both name fields check
/// their pattern in the browser first.
async fn a_refused_field_is_marked_and_explained_beside_it(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-ada", "fra", &[("name", "fielded")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    for (lang, rename_words, snapshot_words) in [
        ("en", "Server names are 1 to 63", "snapshot"),
        ("zh", "服务器名称为 1 到 63", "快照"),
    ] {
        let base = format!("/{lang}/servers/{id}");
        let page = app.get_as(&owner, &base).await.body;
        assert!(input_of(&page, "name").contains("pattern="), "{page}");
        assert!(!input_of(&page, "name").contains("aria-invalid"));
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
        let name = input_of(&bad.body, "name");
        assert!(
            name.contains("aria-invalid=\"true\"") && name.contains("autofocus"),
            "{name}"
        );
        assert!(
            name.contains("aria-describedby=\"name-hint name-error\""),
            "{name}"
        );
        let beside = bad
            .body
            .split("id=\"name-error\"")
            .nth(1)
            .unwrap_or_default();
        assert!(
            strip_tags(beside).contains(rename_words),
            "{lang}: {beside}"
        );
        assert!(!input_of(&bad.body, "snapshot-name").contains("aria-invalid"));

        let bad = app
            .post_as(
                &owner,
                &base,
                &format!("{base}/snapshots"),
                &[("name", "no spaces please")],
                &[],
            )
            .await;
        assert_eq!(bad.status, 422, "{}", bad.body);
        let snapshot = input_of(&bad.body, "snapshot-name");
        assert!(snapshot.contains("aria-invalid=\"true\""), "{snapshot}");
        assert!(snapshot.contains("snapshot-name-error"), "{snapshot}");
        let beside = bad
            .body
            .split("id=\"snapshot-name-error\"")
            .nth(1)
            .unwrap_or_default();
        assert!(
            strip_tags(beside).to_lowercase().contains(snapshot_words),
            "{lang}: {beside}"
        );
        assert!(!input_of(&bad.body, "name").contains("aria-invalid"));
    }

    // Every other form's refused field likewise: (page, form address,
    // fields, the refused field's id).
    let cancel_tab = format!("/en/servers/{id}/cancellation");
    type Refusal<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str);
    let refusals: [Refusal; 5] = [
        (
            "/en/tokens",
            "/en/tokens",
            vec![("name", " "), ("scope", "read"), ("expires", "never")],
            "token-name",
        ),
        (
            "/en/support/requests/new",
            "/en/support/requests",
            vec![
                ("category", "other"),
                ("subject", "x"),
                ("body", "Hello support"),
            ],
            "subject",
        ),
        (
            "/en/support/requests/new",
            "/en/support/requests",
            vec![
                ("category", "other"),
                ("subject", "A fine subject"),
                ("body", " "),
            ],
            "body",
        ),
        (
            "/en/billing/profile",
            "/en/billing/profile",
            vec![
                ("legal_name", "Org A"),
                ("address", "Street 1"),
                ("postal_code", "10115"),
                ("city", "Berlin"),
                ("country", "DE"),
                ("vat_id", "DE12345"),
                ("billing_email", "owner@a.example"),
            ],
            "vat",
        ),
        (
            &cancel_tab,
            &cancel_tab,
            vec![
                ("at", "0"),
                ("reason", "not_needed"),
                ("confirm", "yes"),
                ("confirm_name", "not-its-name"),
            ],
            "confirm-name",
        ),
    ];
    for (page, action, fields, field) in refusals {
        let bad = app.post_as(&owner, page, action, &fields, &[]).await;
        assert!((400..500).contains(&bad.status), "{action}: {}", bad.status);
        let error_id = format!("{field}-error");
        assert!(
            bad.body.contains(&format!("id=\"{error_id}\"")),
            "{action}: the message beside {field}: {}",
            strip_tags(&bad.body)
        );
        let marked = bad.body.split("aria-invalid=\"true\"").count() - 1;
        assert_eq!(marked, 1, "{action}: one field marked");
        assert!(
            bad.body.contains(&error_id) && bad.body.contains("autofocus"),
            "{action}"
        );
    }
    app.finish().await;
}

/// The server page is six tabs, each a page of its own (a link, a reload
/// and the language switch stay on it), in both languages; a refused form
/// is shown again on its own tab; the overview has copy buttons for the
/// addresses, the hostname and the host keys, and a rename leaves the
/// hostname the installed system has.
async fn the_server_page_is_in_tabs_each_at_its_own_address(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let id = running(&app, &owner, "tabbed-1").await;
    let base = format!("/en/servers/{id}");
    let tabs = [
        ("", "Overview", "概览"),
        ("/graphs", "Graphs", "图表"),
        ("/snapshots", "Snapshots", "快照"),
        ("/console", "Console", "控制台"),
        ("/power", "Power", "电源"),
        ("/cancellation", "Cancellation", "取消"),
    ];
    for (path, en, zh) in tabs {
        for (lang, label) in [("en", en), ("zh", zh)] {
            let page = app
                .get_as(&owner, &format!("/{lang}/servers/{id}{path}"))
                .await;
            assert_eq!(page.status, 200, "{path}");
            let current = page
                .body
                .split("class=\"server-tabs\"")
                .nth(1)
                .and_then(|nav| nav.split("</nav>").next())
                .unwrap_or_default()
                .matches("aria-current=\"page\"")
                .count();
            assert_eq!(current, 1, "one open tab on {path}");
            let open = page
                .body
                .split("class=\"server-tabs\"")
                .nth(1)
                .and_then(|nav| nav.split("aria-current=\"page\"").nth(1))
                .and_then(|rest| rest.split('>').nth(1))
                .and_then(|rest| rest.split('<').next())
                .unwrap_or_default();
            assert_eq!(open, label, "{lang}{path}");
            // The language switch keeps the tab.
            let other = if lang == "en" { "zh" } else { "en" };
            assert!(
                page.body
                    .contains(&format!("href=\"/{other}/servers/{id}{path}\"")),
                "{lang}{path}: the other language's link stays on the tab"
            );
        }
    }
    // Each tab has what belongs to it, and not the others' forms.
    let power = app.get_as(&owner, &format!("{base}/power")).await.body;
    assert!(power.contains(&format!("action=\"{base}/power/reboot\"")));
    assert!(!power.contains("id=\"cancel-at\""));
    let overview = app.get_as(&owner, &base).await.body;
    assert!(
        !overview.contains("/power/reboot"),
        "no power form on the overview"
    );
    assert!(
        !overview.contains("data-chart="),
        "no charts on the overview"
    );
    let graphs = app.get_as(&owner, &format!("{base}/graphs")).await.body;
    assert!(graphs.contains("data-chart=\"gpu-temp\""));

    // Copy buttons on the overview, named for screen readers; the script
    // that turns them on once.
    for (target, name) in [
        ("ipv4", "Copy IPv4"),
        ("ipv6", "Copy IPv6"),
        ("hostname", "Copy hostname"),
        ("host-key-0", "Copy SSH host key fingerprints: "),
    ] {
        let button = overview
            .split(&format!("data-copy=\"{target}\""))
            .nth(1)
            .and_then(|rest| rest.split('>').next())
            .unwrap_or_else(|| panic!("no copy button for {target}"));
        assert!(button.contains(name), "{target}: {button}");
    }
    assert_eq!(overview.matches("src=\"/copy.js\"").count(), 1);
    let zh = app.get_as(&owner, &format!("/zh/servers/{id}")).await.body;
    assert!(
        zh.contains("aria-label=\"复制主机名\""),
        "{}",
        strip_tags(&zh)
    );

    // A rename changes the name, not the hostname the system was installed
    // with, and the page says which is which.
    let renamed = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/rename"),
            &[("name", "tabbed-2")],
            &[],
        )
        .await;
    assert_eq!(renamed.location(), format!("{base}?done=rename"));
    let overview = app.get_as(&owner, &base).await.body;
    assert!(overview.contains("<h1 id=\"server-title\">tabbed-2</h1>"));
    assert!(overview.contains("data-testid=\"hostname\">tabbed-1</code>"));
    assert!(strip_tags(&overview).contains("Renaming the server here does not change it."));
    // The audit log says who renamed it, naming servers rather than ids.
    let audit = strip_tags(&app.get_as(&owner, "/en/audit").await.body);
    assert!(
        audit.contains("owner@a.example renamed a server: tabbed-1 → tabbed-2."),
        "{audit}"
    );
    assert!(!audit.contains(&id), "no server id in the log: {audit}");

    // A refused snapshot is shown again on the snapshots tab, beside its
    // field.
    let refused = app
        .post_as(
            &owner,
            &format!("{base}/snapshots"),
            &format!("{base}/snapshots"),
            &[("name", "no spaces")],
            &[],
        )
        .await;
    assert_eq!(refused.status, 422);
    assert!(
        refused.body.contains("id=\"snapshot-name\""),
        "the form is there"
    );
    assert!(refused.body.contains("aria-invalid=\"true\""));
    app.finish().await;
}
