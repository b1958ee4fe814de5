//! Decisions that must hold when two requests or two replicas make them at
//! the same moment (issue 12, "Races on PostgreSQL"): a credit note is
//! spent once, an organization keeps an owner, a server keeps at most five
//! snapshots, and a mail rate limit lets exactly its allowance through.

use crate::common::{csrf_token, server_id, strip_tags, user_id_of, TestApp, TestDb};

on_both_databases!(
    two_replicas_spend_a_credit_note_once,
    two_owners_demoting_each_other_leave_an_owner,
    parallel_snapshots_stay_within_the_quota,
    parallel_mail_requests_stay_within_the_limit
);

/// 2026-11-30 00:53:20 UTC.
const START: i64 = 1_796_000_000;
const DAY: i64 = 86_400;

/// Posts a form with a token read beforehand, so that several posts can
/// leave at the same moment; answers the status.
async fn post_now(
    browser: &reqwest::Client,
    url: String,
    fields: Vec<(&'static str, String)>,
) -> u16 {
    browser
        .post(url)
        .form(&fields)
        .send()
        .await
        .expect("posting the form")
        .status()
        .as_u16()
}

async fn token(app: &TestApp, browser: &reqwest::Client, page: &str) -> String {
    csrf_token(&app.get_as(browser, page).await.body)
}

/// Two servers renew for one customer with a €50 credit note open; two
/// replicas run the monthly invoicing at the same moment. The note is set
/// against one invoice, once, and neither run fails.
async fn two_replicas_spend_a_credit_note_once(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    app.rack("fra", "g-ada", 2);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    for name in ["billed-1", "billed-2"] {
        let page = app
            .place_order(&owner, "g-ada", "fra", &[("name", name)])
            .await;
        app.wait_for_server(&owner, &server_id(page.location()))
            .await;
    }
    app.wait_for(&owner, "/en/billing", "INV-2026-000002").await;

    let staff = app.staff("finance@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await;
    let org_a = finance
        .body
        .split("<option value=\"")
        .skip(1)
        .find(|o| o.contains(">Org A<"))
        .and_then(|o| o.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let credited = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/credit",
            &[
                ("organization", &org_a),
                ("amount", "50"),
                ("reason", "goodwill"),
            ],
            &[],
        )
        .await;
    assert_eq!(credited.location(), "/en/staff/finance?done=credit");

    // The replicas' clock is a month on; the application's own worker
    // stays before the renewal, so only these two runs invoice it.
    let later = backend::Clock::manual(START + 31 * DAY);
    let seller = backend::billing::Seller::development();
    let replica = || async {
        let db = backend::Db::connect(&app.database_url, 4)
            .await
            .expect("connecting");
        let catalog = backend::catalog::load(&db).await.expect("the catalog");
        (db, catalog)
    };
    let (one, two) = (replica().await, replica().await);
    let (a, b) = tokio::join!(
        backend::billing::renewal::invoice_due(&one.0, &later, &one.1, &seller),
        backend::billing::renewal::invoice_due(&two.0, &later, &two.1, &seller),
    );
    let issued = a.expect("the first replica's run") + b.expect("the second replica's run");
    assert_eq!(issued, 2, "each server's term is invoiced once");

    // The month's invoices: the two renewals, the €50.00 credit (ex VAT)
    // and its 19 % VAT, €59.50, between them: spent once.
    let csv = app.get_as(&owner, "/en/billing/export?month=2026-12").await;
    let rows: Vec<Vec<&str>> = csv
        .body
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{}", csv.body);
    let credit: f64 = rows
        .iter()
        .map(|r| r[14].parse::<f64>().expect("a credit amount"))
        .sum();
    assert!((credit - 59.5).abs() < 0.001, "{}", csv.body);
    let billing = strip_tags(&app.get_as(&owner, "/en/billing").await.body);
    assert!(billing.contains("CN-2026-000001"), "{billing}");
    app.finish().await;
}

/// Two owners each demote the other at the same moment: one wins, the
/// other is refused because the organization would have no owner left.
/// Several rounds, so a lucky ordering can't hide the race.
async fn two_owners_demoting_each_other_leave_an_owner(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let ann = app.member("ann@lee.example", "Ann", "Lee Labs").await;
    let bob = app.invite(&ann, "bob@lee.example", "owner").await;
    let members = app.get_as(&ann, "/en/members").await.body;
    let ann_id = user_id_of(&members, "ann@lee.example");
    let bob_id = user_id_of(&members, "bob@lee.example");
    let role_url = format!("{}/en/members/role", app.base);
    for round in 0..5 {
        let (ann_csrf, bob_csrf) = (
            token(&app, &ann, "/en/members").await,
            token(&app, &bob, "/en/members").await,
        );
        let demote = |who: &str, csrf: String| {
            vec![
                ("user_id", who.to_owned()),
                ("role", "technical".to_owned()),
                ("csrf", csrf),
            ]
        };
        let (by_ann, by_bob) = tokio::join!(
            post_now(&ann, role_url.clone(), demote(&bob_id, ann_csrf)),
            post_now(&bob, role_url.clone(), demote(&ann_id, bob_csrf)),
        );
        let mut answers = [by_ann, by_bob];
        answers.sort_unstable();
        // The loser is refused as the last owner's demoter (409), or, if
        // its request only arrived once it was demoted, as no owner (403).
        assert!(
            answers[0] == 303 && (answers[1] == 409 || answers[1] == 403),
            "round {round}: {answers:?}"
        );
        let mut owners = Vec::new();
        for (browser, id) in [(&ann, &ann_id), (&bob, &bob_id)] {
            let account = app.get_as(browser, "/en/account").await.body;
            if account.contains("data-testid=\"account-role\">Owner") {
                owners.push((browser, id));
            }
        }
        assert_eq!(owners.len(), 1, "round {round}: one owner left");
        // The one left makes the other an owner again for the next round.
        let (winner, _) = owners[0];
        let loser = if owners[0].1 == &ann_id {
            &bob_id
        } else {
            &ann_id
        };
        let page = app
            .post_as(
                winner,
                "/en/members",
                "/en/members/role",
                &[("user_id", loser), ("role", "owner")],
                &[],
            )
            .await;
        assert_eq!(page.location(), "/en/members?done=role");
    }
    app.finish().await;
}

/// A server with four snapshots gets six "take snapshot" requests at once:
/// one is taken, the rest are refused, and five snapshots remain.
async fn parallel_snapshots_stay_within_the_quota(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.rack("ams", "g-l40s", 1);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-l40s", "ams", &[("name", "lab-1")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let base = format!("/en/servers/{id}");
    for name in ["s1", "s2", "s3", "s4"] {
        let page = app
            .post_as(
                &owner,
                &base,
                &format!("{base}/snapshots"),
                &[("name", name)],
                &[],
            )
            .await;
        assert_eq!(page.status, 303, "{name}");
        app.wait_for(
            &owner,
            &format!("{base}/snapshots"),
            &format!("data-snapshot=\"{name}\" data-state=\"ready\""),
        )
        .await;
    }

    let csrf = token(&app, &owner, &base).await;
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..6 {
        let fields = vec![("name", format!("p{n}")), ("csrf", csrf.clone())];
        let (browser, url) = (owner.clone(), format!("{}{base}/snapshots", app.base));
        tasks.spawn(async move { post_now(&browser, url, fields).await });
    }
    let mut answers = Vec::new();
    while let Some(status) = tasks.join_next().await {
        answers.push(status.expect("a snapshot request"));
    }
    let taken = answers.iter().filter(|s| **s == 303).count();
    assert_eq!(taken, 1, "{answers:?}");
    let body = app.get_as(&owner, &format!("{base}/snapshots")).await.body;
    assert_eq!(body.matches("data-snapshot=\"").count(), 5, "{answers:?}");
    app.finish().await;
}

/// Twelve "forgot password" requests for one address at once: exactly the
/// five the recipient limit allows are sent, the rest are told to wait.
async fn parallel_mail_requests_stay_within_the_limit(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let browser = app.browser();
    let csrf = token(&app, &browser, "/en/forgot").await;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..12 {
        let fields = vec![
            ("email", "target@example.com".to_owned()),
            ("csrf", csrf.clone()),
        ];
        let (browser, url) = (browser.clone(), format!("{}/en/forgot", app.base));
        tasks.spawn(async move { post_now(&browser, url, fields).await });
    }
    let mut answers = Vec::new();
    while let Some(status) = tasks.join_next().await {
        answers.push(status.expect("a forgot request"));
    }
    let sent = answers.iter().filter(|s| **s == 303).count();
    let refused = answers.iter().filter(|s| **s == 429).count();
    assert_eq!((sent, refused), (5, 7), "{answers:?}");
    // Refused requests were not counted: the client address (20 an hour)
    // has fifteen left for other recipients.
    for n in 0..16 {
        let to = format!("other{n}@example.com");
        let page = app
            .post_as(&browser, "/en/forgot", "/en/forgot", &[("email", &to)], &[])
            .await;
        let expected = if n < 15 { 303 } else { 429 };
        assert_eq!(page.status, expected, "request {n} from the same address");
    }
    app.finish().await;
}

/// A replica whose clock says a cancellation is due finds the server, and
/// in that moment the customer's revoke (on a replica whose clock says it
/// is not due yet) commits. The replica's claim must see the revoke and
/// leave the server alone; it used to check only "not cancelled yet" and
/// wiped a server whose cancellation had been taken back. PostgreSQL only:
/// the test holds the server's row lock so both writes queue behind it in
/// a known order (SQLite's writers are serial).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_revoke_that_lands_while_a_replica_ends_the_server_wins_on_postgres() {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(TestDb::Postgres, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-ada", "fra", &[("name", "kept")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let base = format!("/en/servers/{id}");
    let due = app.cancel_at_term_end(&owner, &id, "kept").await;

    let db = backend::Db::connect(&app.database_url, 4)
        .await
        .expect("db");
    let mut blocker = db.begin().await.expect("a transaction");
    sqlx::query("select id from servers where id = $1 for update")
        .bind(&id)
        .execute(&mut *blocker)
        .await
        .expect("locking the server row");
    // The customer's revoke queues first…
    let csrf = token(&app, &owner, &base).await;
    let (browser, url) = (
        owner.clone(),
        format!("{}{base}/cancellation/revoke", app.base),
    );
    let revoke = tokio::spawn(async move { post_now(&browser, url, vec![("csrf", csrf)]).await });
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    // …then a replica whose clock is past the date finds the server due.
    let late = backend::Clock::manual(due + 1);
    let (replica_db, replica_clock) = (db.clone(), late.clone());
    let ending = tokio::spawn(async move {
        backend::servers::cancellation::end_due(&replica_db, &replica_clock).await
    });
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    blocker.rollback().await.expect("releasing the lock");
    assert_eq!(
        revoke.await.expect("joined"),
        303,
        "the revoke went through"
    );
    let ended = ending.await.expect("joined").expect("end_due ran");
    assert_eq!(ended, 0, "the replica must not end a revoked server");
    let page = app.get_as(&owner, &base).await.body;
    assert!(
        !page.contains("data-testid=\"cancelled\""),
        "the server was ended"
    );
    assert!(page.contains("data-event=\"cancel.revoked\""));
    app.finish().await;
}
