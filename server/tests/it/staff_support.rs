//! The staff side of support, through HTTP: the queue and its filters
//! (state, category, site, age), oldest waiting first with counts per
//! state; a reply that waits for the customer and mails them a link but
//! never an internal note's text; internal notes that never reach the
//! customer's page; assigning by name; first-response time; the
//! organization's servers and open invoices beside the thread; hostile
//! text shown escaped with its line breaks. Requests are opened by
//! customers through their own pages (`/en/support/requests`).

use crate::common::{self, strip_tags, Page, TestApp, TestDb, PASSWORD};

on_both_databases!(
    the_queue_filters_by_state_category_site_and_age,
    a_reply_mails_the_customer_a_link_and_notes_stay_with_staff,
    the_thread_shows_the_organizations_servers_and_open_invoices,
    hostile_and_long_text_is_shown_escaped_with_its_line_breaks,
);

const CUSTOMER: &str = "ada@lab.example";
const STAFF: &str = "ops@host.example";

/// Opens a request on the customer's form; answers its id.
async fn open(app: &TestApp, customer: &reqwest::Client, fields: &[(&str, &str)]) -> String {
    let page = app
        .post_as(
            customer,
            "/en/support/requests/new",
            "/en/support/requests",
            fields,
            &[],
        )
        .await;
    assert_eq!(page.status, 303, "{}", strip_tags(&page.body));
    let id = page
        .location()
        .trim_start_matches("/en/support/requests/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(!id.is_empty(), "{}", page.location());
    id
}

/// Posts one of the thread's staff forms.
async fn act(
    app: &TestApp,
    staff: &reqwest::Client,
    id: &str,
    verb: &str,
    fields: &[(&str, &str)],
) -> Page {
    let thread = format!("/en/staff/support/{id}");
    app.post_as(staff, &thread, &format!("{thread}/{verb}"), fields, &[])
        .await
}

/// The queue's rows' request ids, in order.
fn queue_ids(body: &str) -> Vec<String> {
    body.split("<tr data-request=\"")
        .skip(1)
        .filter_map(|row| row.split('"').next().map(str::to_owned))
        .collect()
}

/// The text of one queue row.
fn queue_row(body: &str, id: &str) -> String {
    let at = body
        .find(&format!("<tr data-request=\"{id}\""))
        .unwrap_or_else(|| panic!("no row for {id}: {}", strip_tags(body)));
    let row = &body[at..];
    strip_tags(&row[..row.find("</tr>").unwrap_or(row.len())])
}

/// The text inside the element of `data-testid="{testid}"`.
fn testid(body: &str, testid: &str) -> String {
    let at = body
        .find(&format!("data-testid=\"{testid}\""))
        .unwrap_or_else(|| panic!("no {testid}: {}", strip_tags(body)));
    let rest = &body[at..];
    let inner = rest.split_once('>').map_or("", |(_, r)| r);
    strip_tags(&inner[..inner.find("</").unwrap_or(inner.len())])
}

async fn log_in_again(app: &TestApp, browser: &reqwest::Client, email: &str) {
    let page = app
        .post_as(
            browser,
            "/en/login",
            "/en/login",
            &[("email", email), ("password", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/servers", "{email} logs in again");
}

async fn the_queue_filters_by_state_category_site_and_age(db: TestDb) {
    let start = 1_796_047_200; // 2026-11-30 14:00 UTC
    let clock = backend::Clock::manual(start);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let customer = app.member(CUSTOMER, "Ada", "Lab One").await;
    let placed = app
        .place_order(&customer, "g-ada", "ams", &[("name", "edge-1")])
        .await;
    let server = common::server_id(placed.location());
    let hardware = open(
        &app,
        &customer,
        &[
            ("category", "hardware"),
            ("server", &server),
            ("subject", "GPU 3 runs hot"),
            ("body", "Since Monday."),
        ],
    )
    .await;
    let scaling = open(
        &app,
        &customer,
        &[
            ("category", "scaling"),
            ("subject", "Eight cards"),
            ("body", "For training."),
            ("cards", "8"),
        ],
    )
    .await;
    // Five hours and ten minutes later (sessions idle out meanwhile).
    clock.advance(5 * 3600 + 600);
    log_in_again(&app, &customer, CUSTOMER).await;
    let billing = open(
        &app,
        &customer,
        &[
            ("category", "billing"),
            ("subject", "VAT on invoice"),
            ("body", "Please check."),
        ],
    )
    .await;
    let staff = app.staff(STAFF).await;
    let done = act(
        &app,
        &staff,
        &scaling,
        "reply",
        &[("body", "We have eight in fra.")],
    )
    .await;
    assert_eq!(
        done.location(),
        format!("/en/staff/support/{scaling}?done=reply")
    );

    // Our turn first, the longest waiting first; then the customer's turn.
    let queue = app.get_as(&staff, "/en/staff/support").await;
    assert_eq!(queue.status, 200, "{}", strip_tags(&queue.body));
    assert_eq!(
        queue_ids(&queue.body),
        [hardware.as_str(), billing.as_str(), scaling.as_str()]
    );
    assert!(
        queue
            .body
            .contains("data-count=\"open\"><span>New</span>: <strong>2</strong>"),
        "{}",
        strip_tags(&queue.body)
    );
    assert!(queue.body.contains(
        "data-count=\"waiting\"><span>Waiting for the customer</span>: <strong>1</strong>"
    ));
    let row = queue_row(&queue.body, &hardware);
    for part in [
        "Lab One",
        "GPU 3 runs hot",
        "Hardware or performance",
        "New",
        "edge-1 (ams)",
        "waiting 5 h",
        "not yet",
        "unassigned",
    ] {
        assert!(row.contains(part), "{part} in {row}");
    }
    let row = queue_row(&queue.body, &scaling);
    assert!(
        row.contains("Waiting for the customer") && row.contains("5 h 10 min"),
        "{row}"
    );
    assert!(row.contains("Scaling out / capacity"), "{row}");

    let filtered = |query: &'static str| {
        let app = &app;
        let staff = &staff;
        async move {
            let page = app
                .get_as(staff, &format!("/en/staff/support?{query}"))
                .await;
            assert_eq!(page.status, 200, "{query}: {}", strip_tags(&page.body));
            (queue_ids(&page.body), page.body)
        }
    };
    assert_eq!(filtered("state=waiting").await.0, [scaling.as_str()]);
    assert_eq!(
        filtered("state=open").await.0,
        [hardware.as_str(), billing.as_str()]
    );
    let (closed, body) = filtered("state=closed").await;
    assert!(closed.is_empty() && body.contains("data-testid=\"queue-empty\""));
    assert_eq!(filtered("category=scaling").await.0, [scaling.as_str()]);
    assert_eq!(filtered("category=billing").await.0, [billing.as_str()]);
    assert_eq!(filtered("site=ams").await.0, [hardware.as_str()]);
    assert!(filtered("site=fra").await.0.is_empty());
    assert_eq!(filtered("age=4").await.0, [hardware.as_str()]);
    assert!(filtered("age=24").await.0.is_empty());
    assert_eq!(
        filtered("category=hardware&site=ams&age=4&state=open")
            .await
            .0,
        [hardware.as_str()]
    );
    // Searched by part of a subject (any case), kept with the filters.
    assert_eq!(filtered("q=runs+HOT").await.0, [hardware.as_str()]);
    assert_eq!(filtered("q=vat&state=open").await.0, [billing.as_str()]);
    assert!(filtered("q=nothing-like-it").await.0.is_empty());
    // The form keeps what was asked; a filter it doesn't offer is none.
    let (_, body) = filtered("state=waiting&age=4").await;
    assert!(
        body.contains("<option value=\"waiting\" selected"),
        "{}",
        strip_tags(&body)
    );
    assert!(body.contains("<option value=\"4\" selected"));
    assert_eq!(
        filtered("state=bogus&category=nope&site=zz&age=x")
            .await
            .0
            .len(),
        3
    );

    // The thread says the first response took 5 h 10 min; Chinese too.
    let thread = app
        .get_as(&staff, &format!("/en/staff/support/{scaling}"))
        .await
        .body;
    assert_eq!(testid(&thread, "first-response"), "5 h 10 min");
    let zh = app
        .get_as(&staff, &format!("/zh/staff/support/{scaling}"))
        .await
        .body;
    assert_eq!(testid(&zh, "first-response"), "5 小时 10 分钟");
    assert!(
        strip_tags(&app.get_as(&staff, "/zh/staff/support").await.body).contains("等待客户回复")
    );
    app.finish().await;
}

async fn a_reply_mails_the_customer_a_link_and_notes_stay_with_staff(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let customer = app.member(CUSTOMER, "Ada", "Lab One").await;
    let id = open(
        &app,
        &customer,
        &[
            ("category", "scaling"),
            ("subject", "Scale out to eight cards"),
            ("body", "We train a 70B model."),
            ("cards", "8"),
            ("workload", "training"),
            ("model_size", "70B"),
            ("timeline", "next month"),
        ],
    )
    .await;
    let staff = app.staff(STAFF).await;
    app.ops_ok(&[
        "staff",
        "add",
        "--email",
        "lena@host.example",
        "--name",
        "Lena Park",
    ]);

    // The staff home and menu lead to the queue, which leads to the thread.
    let home = app.get_as(&staff, "/en/staff").await.body;
    assert!(
        home.contains("href=\"/en/staff/support\""),
        "{}",
        strip_tags(&home)
    );
    let queue = app.get_as(&staff, "/en/staff/support").await.body;
    assert!(queue.contains(&format!("href=\"/en/staff/support/{id}\"")));
    let thread = app.get_as(&staff, &format!("/en/staff/support/{id}")).await;
    assert_eq!(thread.status, 200, "{}", strip_tags(&thread.body));
    assert_eq!(testid(&thread.body, "first-response"), "not yet");
    assert_eq!(testid(&thread.body, "state"), "New");
    let plan = strip_tags(&thread.body);
    for part in [
        "Scaling-out plan",
        "8",
        "training",
        "70B",
        "next month",
        "We train a 70B model.",
    ] {
        assert!(plan.contains(part), "{part} in {plan}");
    }

    // An internal note: marked, the state as it was, nothing mailed.
    let mails_before = app.ops_ok(&["mail", "outbox", "--to", CUSTOMER, "--limit", "50"]);
    let note = "Internal: customer is behind on payments, ask finance first";
    let done = act(&app, &staff, &id, "note", &[("body", note)]).await;
    assert_eq!(done.location(), format!("/en/staff/support/{id}?done=note"));
    let thread = app
        .get_as(&staff, &format!("/en/staff/support/{id}"))
        .await
        .body;
    assert!(thread.contains(note));
    assert!(strip_tags(&thread).contains("Internal note — the customer never sees this"));
    assert_eq!(testid(&thread, "state"), "New");
    assert_eq!(
        app.ops_ok(&["mail", "outbox", "--to", CUSTOMER, "--limit", "50"]),
        mails_before
    );

    // An empty reply is refused with the page again; an unknown request is 404.
    let empty = act(&app, &staff, &id, "reply", &[("body", "   ")]).await;
    assert_eq!(empty.status, 422, "{}", strip_tags(&empty.body));
    assert!(strip_tags(&empty.body).contains("Write a message of 1 to 10,000 characters."));
    assert_eq!(
        app.get_as(&staff, "/en/staff/support/no-such-request")
            .await
            .status,
        404
    );
    assert_eq!(
        act(&app, &staff, "no-such-request", "reply", &[("body", "hi")])
            .await
            .status,
        404
    );

    // The reply: the customer's turn, the first response, and a mail.
    let answer = "We can add eight L40S cards in fra next week.";
    let done = act(&app, &staff, &id, "reply", &[("body", answer)]).await;
    assert_eq!(
        done.location(),
        format!("/en/staff/support/{id}?done=reply")
    );
    let thread = app
        .get_as(&staff, &format!("/en/staff/support/{id}?done=reply"))
        .await
        .body;
    assert_eq!(testid(&thread, "state"), "Waiting for the customer");
    assert_ne!(testid(&thread, "first-response"), "not yet");
    assert!(thread.contains("data-testid=\"notice\""));
    let mail = app.last_mail(CUSTOMER);
    assert!(
        mail.contains(&format!("https://gpu.example.com/en/support/requests/{id}")),
        "{mail}"
    );
    assert!(!mail.contains("behind on payments"), "{mail}");
    let row = queue_row(&app.get_as(&staff, "/en/staff/support").await.body, &id);
    assert!(!row.contains("not yet"), "{row}");

    // The customer sees the reply, never the note.
    let page = app
        .get_as(&customer, &format!("/en/support/requests/{id}"))
        .await;
    assert_eq!(page.status, 200, "{}", strip_tags(&page.body));
    assert!(page.body.contains(answer));
    assert!(!page.body.contains("behind on payments"));
    assert!(!page.body.contains("Internal note"));

    // Assigning names the staff member; unassigning says so.
    let done = act(&app, &staff, &id, "assign", &[("to", "lena@host.example")]).await;
    assert_eq!(
        done.location(),
        format!("/en/staff/support/{id}?done=assign")
    );
    let thread = app
        .get_as(&staff, &format!("/en/staff/support/{id}"))
        .await
        .body;
    assert_eq!(testid(&thread, "assignee"), "Lena Park");
    assert!(thread.contains("<option value=\"lena@host.example\" selected"));
    let row = queue_row(&app.get_as(&staff, "/en/staff/support").await.body, &id);
    assert!(row.contains("Lena Park"), "{row}");
    let refused = act(
        &app,
        &staff,
        &id,
        "assign",
        &[("to", "nobody@host.example")],
    )
    .await;
    assert_eq!(refused.status, 422, "{}", strip_tags(&refused.body));
    act(&app, &staff, &id, "assign", &[("to", "")]).await;
    let thread = app
        .get_as(&staff, &format!("/en/staff/support/{id}"))
        .await
        .body;
    assert_eq!(testid(&thread, "assignee"), "unassigned");

    // In Chinese, the note is marked as such.
    let zh = app
        .get_as(&staff, &format!("/zh/staff/support/{id}"))
        .await
        .body;
    assert!(strip_tags(&zh).contains("内部备注——客户永远看不到"));

    // Closing: the customer sees it closed; staff can still write notes.
    let done = act(&app, &staff, &id, "close", &[]).await;
    assert_eq!(
        done.location(),
        format!("/en/staff/support/{id}?done=close")
    );
    let thread = app
        .get_as(&staff, &format!("/en/staff/support/{id}"))
        .await
        .body;
    assert_eq!(testid(&thread, "state"), "Closed");
    assert!(thread.contains("data-testid=\"closed-note\""));
    assert!(queue_ids(&app.get_as(&staff, "/en/staff/support").await.body).is_empty());
    assert_eq!(
        queue_ids(
            &app.get_as(&staff, "/en/staff/support?state=closed")
                .await
                .body
        ),
        [id.as_str()]
    );
    app.finish().await;
}

async fn the_thread_shows_the_organizations_servers_and_open_invoices(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let customer = app.member(CUSTOMER, "Ada", "Lab One").await;
    let placed = app
        .place_order(&customer, "g-ada", "ams", &[("name", "edge-1")])
        .await;
    let server = common::server_id(placed.location());
    app.wait_for_server(&customer, &server).await;
    // Its first invoice, issued once the server runs.
    let billing = app
        .wait_for(&customer, "/en/billing", "href=\"/en/invoices/")
        .await;
    let invoice = billing
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let id = open(
        &app,
        &customer,
        &[
            ("category", "hardware"),
            ("server", &server),
            ("subject", "ECC errors"),
            ("body", "Many corrected errors."),
        ],
    )
    .await;
    let staff = app.staff(STAFF).await;
    let thread = app
        .get_as(&staff, &format!("/en/staff/support/{id}"))
        .await
        .body;
    let hosts = app.host_names("ams", "g-ada", "allocated");
    assert_eq!(hosts.len(), 1, "{hosts:?}");
    assert!(
        thread.contains("data-testid=\"org-servers\""),
        "{}",
        strip_tags(&thread)
    );
    let edge = thread
        .split("<tr data-server=\"edge-1\"")
        .nth(1)
        .and_then(|row| row.split("</tr>").next())
        .unwrap_or_default();
    assert!(
        edge.contains(&format!("href=\"/en/staff/hosts/{}\"", hosts[0])),
        "the server links its host: {}",
        strip_tags(&thread)
    );
    let side = strip_tags(
        thread
            .split("support-organization")
            .nth(1)
            .unwrap_or_default(),
    );
    assert!(
        side.contains("g-ada") && side.contains("ams") && side.contains("Running"),
        "{side}"
    );
    assert!(side.contains("g-ada × 1"), "{side}");
    assert!(
        thread.contains(&format!("<tr data-invoice=\"{invoice}\"")),
        "{side}"
    );
    assert!(thread.contains(&format!("href=\"/en/staff/finance/invoices/{invoice}\"")));
    assert!(side.contains('€'), "{side}");
    app.finish().await;
}

async fn hostile_and_long_text_is_shown_escaped_with_its_line_breaks(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let customer = app.member(CUSTOMER, "Ada", "Lab One").await;
    let mut body =
        String::from("<script>alert(1)</script>\n<img src=x onerror=alert(2)>\nمرحبا بالعالم\n");
    while body.chars().count() < 10_000 {
        body.push('x');
    }
    let body: String = body.chars().take(10_000).collect();
    let id = open(
        &app,
        &customer,
        &[
            ("category", "other"),
            ("subject", "</title><b>bold</b> & <i>co</i>"),
            ("body", &body),
        ],
    )
    .await;
    let staff = app.staff(STAFF).await;
    act(
        &app,
        &staff,
        &id,
        "note",
        &[("body", "<iframe src=//evil></iframe>\nline two")],
    )
    .await;
    let page = app.get_as(&staff, &format!("/en/staff/support/{id}")).await;
    assert_eq!(page.status, 200);
    let html = page.body;
    for raw in [
        "<script>alert(1)",
        "<img src=x",
        "<b>bold</b>",
        "</title><b>",
        "<iframe",
    ] {
        let at = html.find(raw).unwrap_or(0);
        assert!(
            !html.contains(raw),
            "{raw} unescaped: {}",
            &html[at.saturating_sub(200)..(at + 100).min(html.len())]
        );
    }
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;<br>&lt;img src=x onerror=alert(2)&gt;<br>مرحبا بالعالم<br>xxx"), "line breaks kept");
    assert!(html.contains("&lt;iframe src=//evil&gt;&lt;/iframe&gt;<br>line two"));
    assert!(html.contains("&lt;/title&gt;&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;co&lt;/i&gt;"));
    assert!(
        html.contains(&"x".repeat(9_000)),
        "the whole 10,000 characters"
    );
    let tag = html
        .split("<p ")
        .find(|tag| {
            tag.starts_with("class=\"support-body\"") || tag.contains(" class=\"support-body\"")
        })
        .and_then(|tag| tag.split('>').next())
        .unwrap_or_default();
    assert!(tag.contains("dir=\"auto\""), "{tag}");
    let queue = app.get_as(&staff, "/en/staff/support").await.body;
    assert!(!queue.contains("<b>bold</b>") && queue.contains("&lt;b&gt;bold&lt;/b&gt;"));
    app.finish().await;
}
