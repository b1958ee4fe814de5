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

    // A technical member schedules it: the redirect lands at the top,
    // where the outcome is said right after the state line, which now
    // says when the server stops; "Renews on" is gone.
    let ends = app.cancel_at_term_end(&tech, &id, "train-fra-01").await;
    let date = domain::time::format_date(ends);
    let body = app.get_as(&tech, &format!("{base}?done=cancel")).await.body;
    let said = at(
        &body,
        &format!("Cancellation scheduled: the server stops on {date}."),
    );
    let state = at(&body, "data-testid=\"server-state\"");
    assert!(state < said, "the outcome follows the state line");
    assert!(
        said < at(&body, "class=\"facts\""),
        "and sits above the facts"
    );
    let stops = at(&body, "data-testid=\"server-ends\"");
    assert!(state < stops && stops < said, "the state line has the date");
    let text = strip_tags(&body);
    assert!(text.contains(&format!("Stops on {date} (cancellation scheduled)")));
    assert_eq!(term_line(&body), format!("Ends on {date}"));
    assert!(!text.contains("Renews on"), "{text}");

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
        .post_as(&tech, &base, &format!("{base}/revoke"), &[], &[])
        .await;
    assert_eq!(revoked.location(), format!("{base}?done=revoke"));
    let body = app.get_as(&tech, revoked.location()).await.body;
    let said = at(
        &body,
        &format!("Cancellation revoked: the server keeps running and renews on {renews}."),
    );
    assert!(at(&body, "data-testid=\"server-state\"") < said);
    assert_eq!(term_line(&body), format!("Renews on {renews}"));
    assert!(!strip_tags(&body).contains("Stops on"));
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
        &app.get_as(&zh, &format!("/zh/servers/{id}?done=cancel"))
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
        .post_as(&zh, &base, &format!("{base}/revoke"), &[], &[])
        .await;
    assert_eq!(revoked.location(), format!("{base}?done=revoke"));
    let page = strip_tags(&app.get_as(&zh, revoked.location()).await.body);
    assert!(page.contains("已撤回取消：服务器继续运行，将于"), "{page}");
    app.wait_for_mail("an@b.example", "lab-2：已撤回取消").await;
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

    // Taking a snapshot lands on the snapshots, and says so there.
    let take = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/snapshot"),
            &[("name", "before-driver")],
            &[],
        )
        .await;
    assert_eq!(take.location(), format!("{base}?done=snapshot#snapshots"));
    let body = app.get_as(&owner, take.location()).await.body;
    let said = at(&body, "The snapshot is being taken");
    assert!(at(&body, "id=\"snapshots\"") < said, "said in its section");
    let body = app
        .wait_for(
            &owner,
            &base,
            "data-snapshot=\"before-driver\" data-state=\"ready\"",
        )
        .await;
    let row = body
        .split("data-snapshot=\"before-driver\"")
        .nth(1)
        .unwrap_or_default();
    let snapshot = crate::common::hidden(row, "snapshot");

    // A restore lands at the top, where its progress is, and says so
    // after it.
    let fields = [("snapshot", snapshot.as_str()), ("confirm", "yes")];
    let restore = app
        .post_as(&owner, &base, &format!("{base}/restore"), &fields, &[])
        .await;
    assert_eq!(restore.location(), format!("{base}?done=restore"));
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
            &format!("{base}/reboot"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(reboot.location(), format!("{base}?done=power"));
    let body = app.get_as(&owner, reboot.location()).await.body;
    let said = at(&body, "Requested: the state above follows the server");
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
                &format!("{base}/snapshot"),
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
    app.finish().await;
}
