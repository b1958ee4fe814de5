//! Support requests by themselves: a request waiting for the customer is
//! reminded after 6 days and closed at 7 (mails in the request's language,
//! internal notes never in them), reopened within 30 days only; a degraded
//! host opens one hardware thread for its server, which staff find in the
//! queue by site and which billing members never see.
//!
//! The portal and staff pages for support are being built beside this
//! (their HTTP tests live with them); until then this file opens, answers
//! and reads requests through `backend::support` directly, on the test
//! app's own database. Time moves by the app's manual clock; the mails are
//! read from the outbox through the operator subcommand.

use crate::common::{self, TestApp, TestDb};
use backend::servers::Actor;
use backend::support::{self, Category, NewRequest, QueueFilter, StaffActor, State, SupportError};
use domain::{Lang, OrganizationId, Role, UserId};

on_both_databases!(
    a_request_nobody_answers_is_reminded_then_closed,
    a_degraded_host_opens_one_hardware_thread,
);

/// 2026-11-10 00:00 UTC.
const START: i64 = 1_794_268_800;
const DAY: i64 = 86_400;

/// The member's user and organization ids (from the members page and
/// their membership).
async fn ids(
    app: &TestApp,
    db: &backend::Db,
    browser: &reqwest::Client,
    email: &str,
) -> (UserId, OrganizationId) {
    let members = app.get_as(browser, "/en/members").await.body;
    let user = UserId::from(common::user_id_of(&members, email));
    let membership = backend::organizations::primary_membership(db, &user)
        .await
        .expect("reading the membership")
        .expect("a membership");
    (user, membership.organization_id)
}

async fn a_request_nobody_answers_is_reminded_then_closed(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting");
    let (user, org) = ids(&app, &db, &owner, "owner@a.example").await;
    let new = |subject: &'static str| NewRequest {
        organization_id: &org,
        user_id: &user,
        email: "owner@a.example",
        role: Role::Owner,
        lang: Lang::En,
        ip: None,
        category: Category::Other,
        subject,
        body: "Line one\r\n<b>two</b>\nthree\nfour",
        server_id: None,
        scaling: None,
    };
    let id = support::open(&db, &clock, &new("Where is my invoice address?"))
        .await
        .expect("opening");
    let mails = app
        .wait_for_mail("owner@a.example", "We received your request")
        .await;
    let thread = support::thread_for_member(&db, &org, Role::Owner, &id)
        .await
        .expect("reading")
        .expect("visible to its owner");
    let reference = thread.request.reference.clone();
    assert!(
        reference.starts_with("SR-") && reference.len() == 9,
        "{reference}"
    );
    assert!(
        mails.contains(&reference),
        "the confirmation names the reference"
    );
    assert_eq!(
        thread.messages[0].body, "Line one\n<b>two</b>\nthree\nfour",
        "stored as typed"
    );
    // Another organization's id, or a category the role can't see, is not found.
    assert!(
        support::thread_for_member(&db, &OrganizationId::from("other-org"), Role::Owner, &id)
            .await
            .expect("reading")
            .is_none()
    );

    // Staff note and answer: the note stays internal, the answer mails
    // its first three lines and the link, and starts the customer's turn.
    let (staff_user, _) = backend::staff::create(&db, &clock, "ops@host.example", "Mei Ops")
        .await
        .expect("creating staff");
    let staff = StaffActor {
        user_id: &staff_user.id,
        email: "ops@host.example",
        name: "Mei Ops",
    };
    support::note(
        &db,
        &clock,
        &staff,
        &id,
        "INTERNAL: customer is on the old plan",
    )
    .await
    .expect("note");
    support::reply_as_staff(
        &db,
        &clock,
        &staff,
        &id,
        "First\n\nSecond\nThird\nFourth line",
        "https://gpu.example.com",
    )
    .await
    .expect("answer");
    // Signed as the thread shows staff replies (the support team, not who
    // wrote it), its paragraphs apart as written.
    let mails = app.wait_for_mail("owner@a.example", "new answer").await;
    assert!(
        mails.contains("The support team answered") && mails.contains("First\n\nSecond\nThird…"),
        "{mails}"
    );
    assert!(!mails.contains("Mei Ops"), "{mails}");
    assert!(
        !mails.contains("Fourth line") && !mails.contains("INTERNAL"),
        "{mails}"
    );
    assert!(mails.contains(&format!("https://gpu.example.com/en/support/requests/{id}")));
    let thread = support::thread_for_member(&db, &org, Role::Owner, &id)
        .await
        .expect("reading")
        .expect("visible");
    assert_eq!(thread.request.state, State::Waiting);
    assert_eq!(thread.request.first_response_at, Some(START));
    assert!(thread
        .messages
        .iter()
        .all(|m| !m.internal && !m.body.contains("INTERNAL")));
    let staff_view = support::thread_for_staff(&db, &id)
        .await
        .expect("reading")
        .expect("found");
    assert!(staff_view
        .messages
        .iter()
        .any(|m| m.internal && m.body.contains("INTERNAL")));

    // Six days on: a reminder; the request still waits.
    clock.advance(6 * DAY + 60);
    app.after_housekeeping().await;
    app.wait_for_mail("owner@a.example", "closes in 24 hours")
        .await;
    let summary = |state: State| {
        let (db, org, id) = (&db, &org, &id);
        async move {
            let t = support::thread_for_member(db, org, Role::Owner, id)
                .await
                .expect("reading")
                .expect("visible");
            assert_eq!(t.request.state, state);
            t.request
        }
    };
    summary(State::Waiting).await;

    // The seventh day: closed automatically, with a short mail.
    clock.advance(DAY);
    app.after_housekeeping().await;
    app.wait_for_mail("owner@a.example", ": closed").await;
    let closed = summary(State::Closed).await;
    assert_eq!(closed.closed_by.as_deref(), Some("auto"));

    // A closed request takes no reply; reopened within 30 days it is
    // staff's turn again; after 30 days it stays closed.
    let who = Actor {
        organization_id: &org,
        user_id: &user,
        email: "owner@a.example",
        ip: None,
    };
    let refused = support::reply_as_member(&db, &clock, &who, Role::Owner, &id, "hello?").await;
    assert!(matches!(refused, Err(SupportError::Closed)), "{refused:?}");
    support::reopen_as_member(&db, &clock, &who, Role::Owner, &id)
        .await
        .expect("reopening");
    summary(State::Open).await;
    support::close_as_member(&db, &clock, &who, Role::Owner, &id)
        .await
        .expect("closing");
    clock.advance(31 * DAY);
    let late = support::reopen_as_member(&db, &clock, &who, Role::Owner, &id).await;
    assert!(matches!(late, Err(SupportError::ReopenExpired)), "{late:?}");

    // Ten requests an hour per member, then a wait.
    for n in 0..10 {
        support::open(&db, &clock, &new("Another question"))
            .await
            .unwrap_or_else(|e| panic!("open {n}: {e}"));
    }
    let limited = support::open(&db, &clock, &new("One too many")).await;
    assert!(
        matches!(limited, Err(SupportError::TooMany(wait)) if wait > 0),
        "{limited:?}"
    );
    app.finish().await;
}

async fn a_degraded_host_opens_one_hardware_thread(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    // Singapore has one G-L40S×2 host.
    let page = app
        .place_order(&owner, "g-l40s-x2", "sin", &[("name", "trainer")])
        .await;
    let server = common::server_id(page.location());
    app.wait_for_server(&owner, &server).await;
    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting");
    let (_, org) = ids(&app, &db, &owner, "owner@a.example").await;
    let host = "sin-g-l40s-x2-001";

    for _ in 0..2 {
        app.ops_ok(&[
            "hosts",
            "degrade",
            host,
            "--reason",
            "corrected ECC errors rising on GPU 1",
        ]);
    }
    let listed = support::list_for_member(&db, &org, Role::Owner)
        .await
        .expect("listing");
    assert_eq!(
        listed.len(),
        1,
        "one thread however often the host is reported"
    );
    let request = &listed[0];
    assert_eq!(request.category, Category::Hardware);
    assert_eq!(request.state, State::Open);
    assert_eq!(
        request.server_id.as_ref().map(|s| s.as_str()),
        Some(server.as_str())
    );
    assert_eq!(request.opened_by_email, "system");
    assert_eq!(request.lang, Lang::En, "in the owner's language");
    let thread = support::thread_for_member(&db, &org, Role::Technical, &request.id)
        .await
        .expect("reading")
        .expect("technical members see hardware");
    assert!(
        thread.messages[0].body.contains("early signs of failure"),
        "{:?}",
        thread.messages
    );
    assert!(thread.messages[0]
        .body
        .contains("corrected ECC errors rising on GPU 1"));
    assert!(support::list_for_member(&db, &org, Role::Billing)
        .await
        .expect("listing")
        .is_empty());
    assert!(
        support::thread_for_member(&db, &org, Role::Billing, &request.id)
            .await
            .expect("reading")
            .is_none()
    );

    // Staff find it in the queue at its site, not at another.
    let clock = backend::Clock::system();
    let at = |site: &str| QueueFilter {
        site: Some(site.to_owned()),
        ..QueueFilter::default()
    };
    let queue = support::queue(&db, &clock, &at("sin"))
        .await
        .expect("queue");
    assert_eq!(
        queue.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        [request.id.as_str()]
    );
    assert_eq!(queue[0].site_code.as_deref(), Some("sin"));
    assert!(support::queue(&db, &clock, &at("fra"))
        .await
        .expect("queue")
        .is_empty());
    app.finish().await;
}
