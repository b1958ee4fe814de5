//! Two-factor authentication over HTTP: enrolment with recovery codes, the
//! second login step, replay and recovery codes, turning it off with
//! re-authentication, and an owner requiring it of every member.

use crate::common::{self, TestApp, TestDb, PASSWORD};
use backend::Clock;
use totp_rs::{Algorithm, Secret, TOTP};

on_both_databases!(
    enrol_then_log_in_with_a_code,
    a_right_password_buys_no_free_code_guesses,
    turning_off_needs_password_and_code,
    staff_in_production_need_two_factor_and_no_outbox,
    owners_can_require_it
);

fn code(secret: &str, email: &str, at: i64) -> String {
    let bytes = Secret::Encoded(secret.to_owned())
        .to_bytes()
        .expect("base32 secret");
    TOTP::new(
        Algorithm::SHA1,
        6,
        1,
        30,
        bytes,
        Some("GPU servers".into()),
        email.into(),
    )
    .expect("TOTP")
    .generate(at as u64)
}

fn between<'a>(body: &'a str, start: &str, end: &str) -> &'a str {
    let at = body
        .find(start)
        .map(|i| i + start.len())
        .unwrap_or(body.len());
    let rest = &body[at..];
    &rest[..rest.find(end).unwrap_or(0)]
}

/// Turns 2FA on for the logged-in browser; returns (secret, recovery codes).
async fn enrol(app: &TestApp, b: &reqwest::Client, email: &str, now: i64) -> (String, Vec<String>) {
    let page = app.get_as(b, "/en/account/2fa").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<svg") && page.body.contains("Two-factor authentication is off."));
    let secret = between(&page.body, "data-testid=\"tfa-secret\">", "<").to_owned();
    assert_eq!(secret.len(), 32, "160-bit base32 secret: {secret}");
    let wrong = app
        .post_as(
            b,
            "/en/account/2fa",
            "/en/account/2fa",
            &[("code", "123456")],
            &[],
        )
        .await;
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("That code is wrong"));
    let page = app
        .post_as(
            b,
            "/en/account/2fa",
            "/en/account/2fa",
            &[("code", &code(&secret, email, now))],
            &[],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let codes: Vec<String> = between(&page.body, "data-testid=\"recovery-codes\"", "</ol>")
        .split("<code>")
        .skip(1)
        .map(|c| c.split('<').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(codes.len(), 10, "ten recovery codes");
    (secret, codes)
}

async fn password_step(app: &TestApp, b: &reqwest::Client, email: &str) -> common::Page {
    app.post_as(
        b,
        "/en/login",
        "/en/login",
        &[("email", email), ("password", PASSWORD)],
        &[],
    )
    .await
}

async fn enrol_then_log_in_with_a_code(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let email = "two@example.com";
    let b = app.member(email, "Two", "2FA Ltd").await;
    let (secret, codes) = enrol(&app, &b, email, clock.now()).await;
    assert!(app
        .get_as(&b, "/en/account/2fa")
        .await
        .body
        .contains("Two-factor authentication is on"));

    let fresh = app.browser();
    let page = password_step(&app, &fresh, email).await;
    assert_eq!(
        page.location(),
        "/en/login/code",
        "the password alone is not enough"
    );
    assert_eq!(
        app.get_as(&fresh, "/en/account").await.location(),
        "/en/login?done=login"
    );
    let page = app
        .post_as(
            &fresh,
            "/en/login/code",
            "/en/login/code",
            &[("code", "000000")],
            &[],
        )
        .await;
    assert_eq!(page.status, 401);
    // The code used at enrolment cannot be replayed; the next one works.
    let used = code(&secret, email, clock.now());
    let page = app
        .post_as(
            &fresh,
            "/en/login/code",
            "/en/login/code",
            &[("code", &used)],
            &[],
        )
        .await;
    assert_eq!(page.status, 401, "replayed code");
    clock.advance(30);
    let next = code(&secret, email, clock.now());
    let page = app
        .post_as(
            &fresh,
            "/en/login/code",
            "/en/login/code",
            &[("code", &next)],
            &[],
        )
        .await;
    // Back to the page asked for before the login.
    assert_eq!(page.location(), "/en/account");
    assert_eq!(app.get_as(&fresh, "/en/account").await.status, 200);

    // A recovery code works once.
    let other = app.browser();
    password_step(&app, &other, email).await;
    let page = app
        .post_as(
            &other,
            "/en/login/code",
            "/en/login/code",
            &[("code", &codes[3])],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/servers");
    let again = app.browser();
    password_step(&app, &again, email).await;
    let page = app
        .post_as(
            &again,
            "/en/login/code",
            "/en/login/code",
            &[("code", &codes[3])],
            &[],
        )
        .await;
    assert_eq!(page.status, 401, "spent recovery code");
    // The code step expires with the password step.
    clock.advance(301);
    let page = app
        .post_as(
            &again,
            "/en/login",
            "/en/login/code",
            &[("code", &codes[4])],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/login");
    app.finish().await;
}

/// Whoever knows the password must not get five fresh code guesses per
/// login: wrong codes are counted across logins and lock the code step, even
/// for the right code, until the lock runs out.
async fn a_right_password_buys_no_free_code_guesses(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let email = "guess@example.com";
    let b = app.member(email, "Guess", "").await;
    let (secret, _) = enrol(&app, &b, email, clock.now()).await;
    for round in 0..5 {
        let attacker = app.browser();
        let page = password_step(&app, &attacker, email).await;
        assert_eq!(page.location(), "/en/login/code", "round {round}");
        let page = app
            .post_as(
                &attacker,
                "/en/login/code",
                "/en/login/code",
                &[("code", "000000")],
                &[],
            )
            .await;
        assert_eq!(page.status, 401, "round {round}: {}", page.body);
        clock.advance(60);
    }
    let attacker = app.browser();
    assert_eq!(
        password_step(&app, &attacker, email).await.location(),
        "/en/login/code"
    );
    let right = code(&secret, email, clock.now());
    let page = app
        .post_as(
            &attacker,
            "/en/login/code",
            "/en/login/code",
            &[("code", &right)],
            &[],
        )
        .await;
    assert_eq!(
        page.status, 429,
        "the code step is locked, even for the right code"
    );
    assert!(
        page.body.contains("Too many failed attempts"),
        "{}",
        page.body
    );

    // After the lock, the owner gets in, and a full login forgives the count.
    clock.advance(15 * 60);
    let owner = app.browser();
    assert_eq!(
        password_step(&app, &owner, email).await.location(),
        "/en/login/code"
    );
    let right = code(&secret, email, clock.now());
    let page = app
        .post_as(
            &owner,
            "/en/login/code",
            "/en/login/code",
            &[("code", &right)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/servers", "{}", page.body);
    clock.advance(30);
    let next = app.browser();
    password_step(&app, &next, email).await;
    let page = app
        .post_as(
            &next,
            "/en/login/code",
            "/en/login/code",
            &[("code", "111111")],
            &[],
        )
        .await;
    assert_eq!(page.status, 401, "counting starts again after a full login");
    app.finish().await;
}

async fn turning_off_needs_password_and_code(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let email = "off@example.com";
    let b = app.member(email, "Off", "").await;
    let (secret, _) = enrol(&app, &b, email, clock.now()).await;
    clock.advance(30);
    let current = code(&secret, email, clock.now());
    let page = app
        .post_as(
            &b,
            "/en/account/2fa",
            "/en/account/2fa/disable",
            &[("password", "wrong wrong wrong"), ("code", &current)],
            &[],
        )
        .await;
    assert_eq!(page.status, 401);
    assert!(page.body.contains("The current password is wrong."));
    let page = app
        .post_as(
            &b,
            "/en/account/2fa",
            "/en/account/2fa/disable",
            &[("password", PASSWORD), ("code", "000000")],
            &[],
        )
        .await;
    assert_eq!(page.status, 401);
    let page = app
        .post_as(
            &b,
            "/en/account/2fa",
            "/en/account/2fa/disable",
            &[("password", PASSWORD), ("code", &current)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/account/2fa?done=off");
    assert_eq!(
        password_step(&app, &app.browser(), email).await.location(),
        "/en/servers"
    );
    app.finish().await;
}

async fn owners_can_require_it(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("boss@req.example", "Boss", "Req Ltd").await;
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/two-factor",
            &[("role", "required")],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/members?done=tfa-required");
    // The owner has no 2FA yet either: everything but enrolment sends there.
    assert_eq!(
        app.get_as(&owner, "/en/members").await.location(),
        "/en/account/2fa"
    );
    let page = app.get_as(&owner, "/en/account/2fa").await;
    assert!(page
        .body
        .contains("Your organization requires two-factor authentication"));
    enrol(&app, &owner, "boss@req.example", clock.now()).await;
    let members = app.get_as(&owner, "/en/members").await;
    assert!(members
        .body
        .contains("This organization requires two-factor authentication for every member."));
    let audit = app.get_as(&owner, "/en/audit").await;
    assert!(
        audit.body.contains("data-action=\"2fa.required\"")
            && audit.body.contains("data-action=\"2fa.enabled\"")
    );
    app.finish().await;
}

/// In production, staff pages (which reach every customer) need 2FA, and
/// the mail outbox, whose bodies hold working reset and invitation links,
/// does not exist.
async fn staff_in_production_need_two_factor_and_no_outbox(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_configured(db, clock.clone(), |config| {
        config.environment = server::config::Environment::Production;
        config.secret_key = Some(server::config::Redacted("ab".repeat(32)));
        config.seller_iban = "NL91 ABNA 0417 1643 00".to_owned();
        config.seller_register = "Amsterdam Chamber of Commerce (KvK) 12345678".to_owned();
        config.support_email = "support@gpu.host.example.net".to_owned();
    })
    .await;
    let email = "ops@gpu.example.com";
    let staff = app.staff(email).await;
    for path in [
        "/en/staff",
        "/en/staff/hosts",
        "/en/staff/finance",
        "/zh/staff/outbox",
    ] {
        let page = app.get_as(&staff, path).await;
        assert!(
            page.location().ends_with("/account/2fa"),
            "{path}: {}",
            page.status
        );
    }
    enrol(&app, &staff, email, clock.now()).await;
    let page = app.get_as(&staff, "/en/staff").await;
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("/en/staff/outbox"), "no outbox link");
    assert_eq!(app.get_as(&staff, "/en/staff/outbox").await.status, 404);
    app.finish().await;
}
