//! Support requests from the customer's side (issue 15): opening one in the
//! categories a role sees, the list, a thread's replies, closing and
//! reopening, the reply limit, hostile and long messages shown safely, both
//! languages, and the storefront's way in (sign-up first for visitors).

use crate::common::{self, Page, TestApp, TestDb, PASSWORD};
use backend::Clock;

on_both_databases!(
    members_open_requests_only_in_the_categories_they_see,
    a_thread_takes_replies_closes_and_reopens,
    reopening_ends_30_days_after_closing,
    replies_are_limited_per_hour,
    hostile_and_long_messages_display_safely,
    the_pages_speak_both_languages,
    the_storefront_leads_visitors_to_the_form_through_sign_up,
);

const NEW: &str = "/en/support/requests/new";

/// Posts the new-request form with these fields.
async fn open(app: &TestApp, who: &reqwest::Client, fields: &[(&str, &str)]) -> Page {
    app.post_as(who, NEW, "/en/support/requests", fields, &[])
        .await
}

/// Opens a request and answers its id (from the redirect to its thread).
async fn opened(app: &TestApp, who: &reqwest::Client, category: &str, subject: &str) -> String {
    let page = open(
        app,
        who,
        &[
            ("category", category),
            ("subject", subject),
            ("body", "Hello support"),
        ],
    )
    .await;
    request_id(&page)
}

fn request_id(page: &Page) -> String {
    let location = page.location();
    assert!(
        location.starts_with("/en/support/requests/") && location.ends_with("?done=opened"),
        "{} {location} {}",
        page.status,
        page.body
    );
    location
        .trim_start_matches("/en/support/requests/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn offers(form: &str, category: &str) -> bool {
    form.contains(&format!("name=\"category\" value=\"{category}\""))
}

async fn members_open_requests_only_in_the_categories_they_see(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let bill = app.invite(&owner, "bill@a.example", "billing").await;

    let empty = app.get_as(&owner, "/en/support/requests").await;
    assert_eq!(empty.status, 200);
    assert!(empty.body.contains("data-testid=\"support-empty\""));
    assert!(empty.body.contains("href=\"/en/support/requests/new\""));

    // Each role is offered what it sees, and the form states the limits.
    let form = app.get_as(&owner, NEW).await.body;
    for c in ["scaling", "hardware", "billing", "account", "other"] {
        assert!(offers(&form, c), "owner offered {c}");
    }
    assert!(form.contains("maxlength=\"10000\"") && form.contains("10,000 characters"));
    assert!(form.contains("name=\"server\"") && form.contains("Only for scaling out"));
    let form = app.get_as(&tech, NEW).await.body;
    assert!(offers(&form, "scaling") && offers(&form, "hardware") && !offers(&form, "billing"));
    let form = app.get_as(&bill, NEW).await.body;
    assert!(offers(&form, "billing") && offers(&form, "account"));
    assert!(!offers(&form, "scaling") && !offers(&form, "hardware"));
    assert!(!form.contains("name=\"server\""));

    // Scaling out, with the plan; the link's category is chosen.
    let form = app
        .get_as(&owner, "/en/support/requests/new?category=scaling")
        .await
        .body;
    assert!(form.contains("value=\"scaling\" checked"), "{form}");
    let scaling = open(
        &app,
        &owner,
        &[
            ("category", "scaling"),
            ("subject", "Eight cards for inference"),
            ("body", "We plan to serve a bigger model."),
            ("cards", "8"),
            ("workload", "Fine-tuning with adapters"),
            ("model_size", "70B, FP16"),
            ("timeline", "Within 3 months"),
        ],
    )
    .await;
    let thread = app.get_as(&owner, scaling.location()).await;
    let scaling = request_id(&scaling);
    assert_eq!(thread.status, 200);
    assert!(thread.body.contains("data-testid=\"scaling-plan\""));
    assert!(thread.body.contains("70B, FP16") && thread.body.contains("Within 3 months"));
    assert!(thread.body.contains("Request sent."));

    // A hardware concern needs one of the organization's servers.
    let refused = open(
        &app,
        &owner,
        &[
            ("category", "hardware"),
            ("subject", "Slow card"),
            ("body", "It throttles"),
        ],
    )
    .await;
    assert_eq!(refused.status, 422);
    assert!(refused
        .body
        .contains("Choose the server this concern is about."));
    assert!(
        refused.body.contains("value=\"Slow card\""),
        "typed values kept"
    );
    assert!(refused.body.contains("It throttles</textarea>"));
    let placed = app
        .place_order(&owner, "g-ada", "ams", &[("name", "a-box")])
        .await;
    let server = common::server_id(placed.location());
    let form = app
        .get_as(&owner, &format!("{NEW}?category=hardware&server={server}"))
        .await
        .body;
    assert!(
        form.contains(&format!("value=\"{server}\" selected")),
        "{form}"
    );
    let hardware = open(
        &app,
        &owner,
        &[
            ("category", "hardware"),
            ("subject", "Slow card"),
            ("body", "It throttles"),
            ("server", &server),
        ],
    )
    .await;
    let hardware = request_id(&hardware);
    let thread = app
        .get_as(&owner, &format!("/en/support/requests/{hardware}"))
        .await
        .body;
    assert!(thread.contains(&format!("href=\"/en/servers/{server}\"")) && thread.contains("a-box"));

    let billing = opened(&app, &owner, "billing", "Invoice address").await;
    opened(&app, &owner, "account", "Two-factor reset").await;
    opened(&app, &owner, "other", "A question").await;

    // Nobody opens a category they can't see.
    let refused = open(
        &app,
        &tech,
        &[
            ("category", "billing"),
            ("subject", "Sneaky"),
            ("body", "Let me see"),
        ],
    )
    .await;
    assert_eq!(refused.status, 422);
    assert!(refused
        .body
        .contains("Choose one of the categories offered."));
    let refused = open(
        &app,
        &bill,
        &[
            ("category", "scaling"),
            ("subject", "Sneaky"),
            ("body", "Let me see"),
        ],
    )
    .await;
    assert_eq!(refused.status, 422);
    opened(&app, &tech, "account", "Tech account question").await;
    let bills = opened(&app, &bill, "billing", "Billing member question").await;

    // The list shows each member what they see.
    let list = app.get_as(&owner, "/en/support/requests").await.body;
    for s in [
        "Eight cards for inference",
        "Slow card",
        "Invoice address",
        "Two-factor reset",
        "Tech account question",
        "Billing member question",
    ] {
        assert!(list.contains(s), "owner sees {s}");
    }
    assert!(list.contains("Scaling out / capacity planning") && list.contains("a-box"));
    let list = app.get_as(&tech, "/en/support/requests").await.body;
    assert!(list.contains("Slow card") && list.contains("Two-factor reset"));
    assert!(!list.contains("Invoice address") && !list.contains("Billing member question"));
    let list = app.get_as(&bill, "/en/support/requests").await.body;
    assert!(
        list.contains("Invoice address")
            && !list.contains("Slow card")
            && !list.contains("Eight cards")
    );

    // A request the role doesn't see is not found, like another's.
    for (who, id) in [
        (&tech, &billing),
        (&tech, &bills),
        (&bill, &scaling),
        (&bill, &hardware),
    ] {
        let page = app.get_as(who, &format!("/en/support/requests/{id}")).await;
        assert_eq!(page.status, 404);
    }
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    let page = app
        .get_as(&other, &format!("/en/support/requests/{scaling}"))
        .await;
    assert_eq!(page.status, 404);
    app.finish().await;
}

async fn a_thread_takes_replies_closes_and_reopens(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let id = opened(&app, &owner, "account", "Members question").await;
    let here = format!("/en/support/requests/{id}");
    let reply = |body: &'static str| {
        let (app, owner, here) = (&app, &owner, here.clone());
        async move {
            app.post_as(
                owner,
                &here,
                &format!("{here}/reply"),
                &[("body", body)],
                &[],
            )
            .await
        }
    };
    let page = reply("A second thought").await;
    assert_eq!(page.location(), format!("{here}?done=replied"));
    let thread = app.get_as(&owner, &here).await.body;
    let first = thread.find("Hello support").expect("first message");
    let second = thread.find("A second thought").expect("the reply");
    assert!(first < second, "oldest first");
    assert!(thread.contains("Owner A") && thread.contains("dir=\"auto\""));

    // Closing asks for the confirmation.
    let page = app
        .post_as(&owner, &here, &format!("{here}/close"), &[], &[])
        .await;
    assert_eq!(page.status, 422);
    let page = app
        .post_as(
            &owner,
            &here,
            &format!("{here}/close"),
            &[("confirm", "yes")],
            &[],
        )
        .await;
    assert_eq!(page.location(), format!("{here}?done=closed"));
    let thread = app.get_as(&owner, &here).await.body;
    assert!(thread.contains("data-testid=\"support-closed\"") && thread.contains("Reopen request"));
    assert!(!thread.contains("Send reply"));
    let page = reply("Still there?").await;
    assert_eq!(page.status, 409);
    assert!(page
        .body
        .contains("This request is closed. Reopen it to reply."));
    let list = app.get_as(&owner, "/en/support/requests").await.body;
    assert!(list.contains("data-state=\"closed\""));

    let page = app
        .post_as(&owner, &here, &format!("{here}/reopen"), &[], &[])
        .await;
    assert_eq!(page.location(), format!("{here}?done=reopened"));
    let thread = app.get_as(&owner, &here).await.body;
    assert!(thread.contains("data-state=\"open\"") && thread.contains("Send reply"));
    let page = reply("Thanks, one more thing").await;
    assert_eq!(page.status, 303);
    app.finish().await;
}

async fn reopening_ends_30_days_after_closing(db: TestDb) {
    let clock = Clock::manual(1_796_000_000);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let id = opened(&app, &owner, "other", "Old question").await;
    let here = format!("/en/support/requests/{id}");
    app.post_as(
        &owner,
        &here,
        &format!("{here}/close"),
        &[("confirm", "yes")],
        &[],
    )
    .await;
    clock.advance(31 * 86_400);
    // The session ended long ago: log in again.
    app.post_as(
        &owner,
        "/en/login",
        "/en/login",
        &[("email", "owner@a.example"), ("password", PASSWORD)],
        &[],
    )
    .await;
    let thread = app.get_as(&owner, &here).await;
    assert_eq!(thread.status, 200);
    assert!(thread.body.contains("can’t be reopened") && !thread.body.contains("Reopen request"));
    assert!(thread.body.contains("href=\"/en/support/requests/new\""));
    let page = app
        .post_as(&owner, &here, &format!("{here}/reopen"), &[], &[])
        .await;
    assert_eq!(page.status, 409);
    assert!(page.body.contains("Please open a new one."));
    app.finish().await;
}

async fn replies_are_limited_per_hour(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let id = opened(&app, &owner, "other", "Chatty").await;
    let here = format!("/en/support/requests/{id}");
    for n in 1..=30 {
        let body = format!("reply {n}");
        let page = app
            .post_as(
                &owner,
                &here,
                &format!("{here}/reply"),
                &[("body", &body)],
                &[],
            )
            .await;
        assert_eq!(page.status, 303, "reply {n}");
    }
    let page = app
        .post_as(
            &owner,
            &here,
            &format!("{here}/reply"),
            &[("body", "reply 31")],
            &[],
        )
        .await;
    assert_eq!(page.status, 429);
    assert!(page
        .body
        .contains("You have sent many replies in a short time."));
    assert!(
        page.body.contains("reply 31</textarea>"),
        "the reply is kept"
    );
    app.finish().await;
}

async fn hostile_and_long_messages_display_safely(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let hostile = "<script>alert(1)</script>\n<img src=x onerror=alert(2)>\n\u{202E}evil override\nمرحبا بالعالم\nlast line";
    let page = open(
        &app,
        &owner,
        &[
            ("category", "other"),
            ("subject", "<b>bold</b> subject</title><script>x()</script>"),
            ("body", hostile),
        ],
    )
    .await;
    let id = request_id(&page);
    let here = format!("/en/support/requests/{id}");
    let long = "x".repeat(10_000);
    let page = app
        .post_as(
            &owner,
            &here,
            &format!("{here}/reply"),
            &[("body", &long)],
            &[],
        )
        .await;
    assert_eq!(page.status, 303, "10,000 characters are fine");
    let wide = "界".repeat(10_000);
    let page = app
        .post_as(
            &owner,
            &here,
            &format!("{here}/reply"),
            &[("body", &wide)],
            &[],
        )
        .await;
    assert_eq!(page.status, 303, "characters, not bytes");

    let thread = app.get_as(&owner, &here).await.body;
    assert!(thread.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!thread.contains("<script>alert") && !thread.contains("<img src=x"));
    assert!(thread.contains("&lt;img src=x onerror=alert(2)&gt;"));
    assert!(
        thread.contains("&lt;b&gt;bold&lt;/b&gt; subject&lt;/title&gt;")
            && !thread.contains("<b>bold")
            && !thread.contains("<script>x()")
    );
    assert!(
        thread.contains("&lt;/script&gt;<br/>&lt;img")
            || thread.contains("&lt;/script&gt;<br>&lt;img"),
        "lines become <br>"
    );
    assert!(thread.contains("\u{202E}evil override") && thread.contains("مرحبا بالعالم"));
    assert!(thread.contains("dir=\"auto\""));
    assert!(thread.contains(&long) && thread.contains(&wide));
    let list = app.get_as(&owner, "/en/support/requests").await.body;
    assert!(list.contains("&lt;b&gt;bold") && !list.contains("<b>bold"));

    let too_long = "x".repeat(10_001);
    let page = app
        .post_as(
            &owner,
            &here,
            &format!("{here}/reply"),
            &[("body", &too_long)],
            &[],
        )
        .await;
    assert_eq!(page.status, 422);
    assert!(page
        .body
        .contains("Write a message of at most 10,000 characters."));
    let page = open(
        &app,
        &owner,
        &[
            ("category", "other"),
            ("subject", "Too long"),
            ("body", &too_long),
        ],
    )
    .await;
    assert_eq!(page.status, 422);
    assert!(page
        .body
        .contains("Write a message of at most 10,000 characters."));
    assert!(
        page.body.contains("value=\"Too long\""),
        "the form again, typed values kept"
    );
    app.finish().await;
}

async fn the_pages_speak_both_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let id = opened(&app, &owner, "other", "Bilingual").await;
    let page = app.get_as(&owner, "/zh/support/requests").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("id=\"support-title\">工单</h1>")
            && page.body.contains("Bilingual")
            && page.body.contains("待处理")
    );
    let page = app.get_as(&owner, "/zh/support/requests/new").await;
    assert!(page.status == 200 && page.body.contains("仅用于扩容") && page.body.contains("10,000"));
    let page = app
        .get_as(&owner, &format!("/zh/support/requests/{id}"))
        .await;
    assert!(page.status == 200 && page.body.contains("关闭工单") && page.body.contains("发送回复"));
    let page = app.get_as(&owner, "/en/support/requests").await;
    assert!(page.body.contains("Support requests") && page.body.contains("aria-current=\"page\""));
    let refused = app
        .post_as(
            &owner,
            "/zh/support/requests/new",
            "/zh/support/requests",
            &[("category", "other"), ("subject", "ab"), ("body", "x")],
            &[],
        )
        .await;
    assert_eq!(refused.status, 422);
    assert!(refused.body.contains("请填写 3 到 150 个字符的主题。"));
    app.finish().await;
}

async fn the_storefront_leads_visitors_to_the_form_through_sign_up(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let link = "href=\"/en/support/requests/new?category=scaling\"";
    let home = app.get("/en").await.body;
    assert!(home.contains(link) && home.contains("Ask before you scale out"));
    let home = app.get("/zh").await.body;
    assert!(home.contains("href=\"/zh/support/requests/new?category=scaling\""));
    let support = app.get("/en/support").await.body;
    assert!(support.contains("href=\"/en/support/requests/new\"") && support.contains(link));

    // A visitor follows the link, signs up, confirms and logs in: the form.
    let b = app.browser();
    let page = app
        .get_as(&b, "/en/support/requests/new?category=scaling")
        .await;
    assert!(
        page.location().starts_with("/en/login"),
        "{}",
        page.location()
    );
    let fields = [
        ("name", "New Visitor"),
        ("email", "visitor@c.example"),
        ("password", PASSWORD),
        ("company", "Org C"),
        ("lang", "en"),
    ];
    let page = app
        .post_as(&b, "/en/signup", "/en/signup", &fields, &[])
        .await;
    assert_eq!(page.location(), "/en/signup?sent=1");
    let confirm = app.mailed_link("visitor@c.example");
    let token = confirm
        .split("token=")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    app.post_as(&b, &confirm, "/en/verify", &[("token", &token)], &[])
        .await;
    let page = app
        .post_as(
            &b,
            "/en/login",
            "/en/login",
            &[("email", "visitor@c.example"), ("password", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/support/requests/new?category=scaling");
    let form = app.get_as(&b, page.location()).await.body;
    assert!(form.contains("value=\"scaling\" checked"));
    app.finish().await;
}
