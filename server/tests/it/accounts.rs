//! Accounts over HTTP: sign-up, verification, login, logout, reset and
//! password change, with the security properties DESIGN §5 asks for.

use crate::common::{self, TestApp, TestDb};
use backend::Clock;

on_both_databases!(
    sign_up_verify_log_in_and_out,
    refused_sign_ups_explain_in_both_languages_and_keep_input,
    answers_do_not_reveal_registered_emails,
    password_reset_is_single_use_and_ends_sessions,
    reset_links_expire_after_30_minutes,
    logins_are_throttled_with_growing_delays,
    cross_site_posts_are_refused,
    password_change_needs_the_current_one_and_ends_other_sessions,
    logins_end_after_twelve_hours,
);

const PASSWORD: &str = "violet kettle harbour";

/// Signs up and confirms the email; returns the address.
async fn verified_user(app: &TestApp, email: &str) -> String {
    let b = app.browser();
    let page = app
        .post_as(
            &b,
            "/en/signup",
            "/en/signup",
            &[
                ("name", "Ann Lee"),
                ("email", email),
                ("password", PASSWORD),
                ("company", "Lee Labs"),
                ("lang", "en"),
            ],
            &[],
        )
        .await;
    assert_eq!(
        (page.status, page.location()),
        (303, "/en/signup?sent=1"),
        "{}",
        page.body
    );
    let link = app.mailed_link(email);
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    let page = app
        .post_as(&b, &link, "/en/verify", &[("token", &token)], &[])
        .await;
    assert_eq!(
        (page.status, page.location()),
        (303, "/en/login?done=verified")
    );
    email.to_owned()
}

async fn log_in(app: &TestApp, b: &reqwest::Client, email: &str, password: &str) -> common::Page {
    app.post_as(
        b,
        "/en/login",
        "/en/login",
        &[("email", email), ("password", password)],
        &[],
    )
    .await
}

fn session_cookie(page: &common::Page) -> String {
    page.headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("session="))
        .map(|c| c.split(';').next().unwrap_or_default().to_owned())
        .unwrap_or_default()
}

async fn sign_up_verify_log_in_and_out(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let b = app.browser();
    let page = app
        .post_as(
            &b,
            "/zh/signup",
            "/zh/signup",
            &[
                ("name", "李安"),
                ("email", "An@Example.com "),
                ("password", PASSWORD),
                ("lang", "zh"),
            ],
            &[],
        )
        .await;
    assert_eq!((page.status, page.location()), (303, "/zh/signup?sent=1"));
    let sent = app.get_as(&b, "/zh/signup?sent=1").await;
    assert!(sent.body.contains("请查收邮件"));
    // The mail is in the chosen language; logging in before confirming is refused.
    let mail = app.last_mail("an@example.com");
    assert!(
        mail.contains("请确认您的邮箱地址") && mail.contains("/zh/verify?token="),
        "{mail}"
    );
    let page = log_in(&app, &b, "an@example.com", PASSWORD).await;
    assert_eq!(page.status, 403);
    assert!(page.body.contains("Please confirm your email address"));

    // Following the link changes nothing; the button does.
    let link = app.mailed_link("an@example.com");
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    let page = app.get_as(&b, &link).await;
    assert!(page.status == 200 && page.body.contains("确认邮箱"));
    assert_eq!(
        log_in(&app, &b, "an@example.com", PASSWORD).await.status,
        403,
        "still unconfirmed"
    );
    let page = app
        .post_as(&b, &link, "/zh/verify", &[("token", &token)], &[])
        .await;
    assert_eq!(page.location(), "/zh/login?done=verified");
    // The link works once.
    let page = app
        .post_as(&b, &link, "/zh/verify", &[("token", &token)], &[])
        .await;
    assert!(page.status == 422 && page.body.contains("此链接无效"));

    // Log in: a new session id (no fixation), the account page shows who we are.
    let before = app.get_as(&b, "/en/login").await;
    let anonymous = session_cookie(&before);
    let page = log_in(&app, &b, "an@example.com", PASSWORD).await;
    assert_eq!(
        (page.status, page.location()),
        (303, "/en/servers"),
        "{}",
        page.body
    );
    let logged_in = session_cookie(&page);
    assert!(
        !logged_in.is_empty() && logged_in != anonymous,
        "session id rotates at login"
    );
    let account = app.get_as(&b, "/en/account").await;
    assert_eq!(account.status, 200);
    assert!(
        !account.body.contains("<!>") && account.body.ends_with("</html>"),
        "clean HTML"
    );
    assert_eq!(
        account.headers["cache-control"], "no-store",
        "personal pages are not cached"
    );
    for text in ["李安", "an@example.com", "Owner"] {
        assert!(account.body.contains(text), "{text}");
    }
    // Log out: the old cookie no longer opens anything.
    let page = app.post_as(&b, "/en/account", "/en/logout", &[], &[]).await;
    assert_eq!(page.location(), "/en/login?done=logout");
    let stolen = app.browser();
    let page = stolen
        .get(format!("{}/en/account", app.base))
        .header("cookie", &logged_in)
        .send()
        .await
        .expect("request");
    assert_eq!(page.status().as_u16(), 303);
    assert_eq!(
        app.get_as(&b, "/en/account").await.location(),
        "/en/login?done=login"
    );
    app.finish().await;
}

async fn refused_sign_ups_explain_in_both_languages_and_keep_input(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let b = app.browser();
    for (lang, fields, status, message) in [
        (
            "en",
            [
                ("name", "Ann"),
                ("email", "ann@example.com"),
                ("password", "short"),
            ],
            422,
            "at least 8 characters",
        ),
        (
            "zh",
            [
                ("name", "Ann"),
                ("email", "ann@example.com"),
                ("password", "short"),
            ],
            422,
            "密码至少需要 8 个字符",
        ),
        (
            "en",
            [
                ("name", "Ann"),
                ("email", "ann@example.com"),
                ("password", "password123"),
            ],
            422,
            "too common or too easy to guess",
        ),
        (
            "zh",
            [
                ("name", "Ann"),
                ("email", "ann@example.com"),
                ("password", "qwertyuiop"),
            ],
            422,
            "太常见或太容易猜到",
        ),
        (
            "en",
            [
                ("name", "Ann"),
                ("email", "not-an-email"),
                ("password", PASSWORD),
            ],
            422,
            "Enter a valid email address.",
        ),
        (
            "en",
            [
                ("name", " "),
                ("email", "ann@example.com"),
                ("password", PASSWORD),
            ],
            422,
            "Enter your name",
        ),
    ] {
        let path = format!("/{lang}/signup");
        let page = app.post_as(&b, &path, &path, &fields, &[]).await;
        assert_eq!(page.status, status, "{fields:?}");
        assert!(
            page.body.contains(message),
            "{lang} {fields:?}: {message:?} missing"
        );
        assert!(page.body.contains("role=\"alert\""));
        // What was typed is still there, except the password.
        assert!(page.body.contains(&format!("value=\"{}\"", fields[1].1)));
        assert!(!page.body.contains(&format!("value=\"{}\"", fields[2].1)));
    }
    assert!(
        app.last_mail("ann@example.com").trim().is_empty(),
        "nothing was sent"
    );
    app.finish().await;
}

async fn answers_do_not_reveal_registered_emails(db: TestDb) {
    let app = TestApp::spawn(db).await;
    verified_user(&app, "known@example.com").await;
    let b = app.browser();
    // Sign-up: the same answer; the owner of the address gets a notice.
    for email in ["known@example.com", "unknown@example.com"] {
        let page = app
            .post_as(
                &b,
                "/en/signup",
                "/en/signup",
                &[("name", "X"), ("email", email), ("password", PASSWORD)],
                &[],
            )
            .await;
        assert_eq!((page.status, page.location()), (303, "/en/signup?sent=1"));
    }
    assert!(app
        .last_mail("known@example.com")
        .contains("Someone tried to sign up with your email"));
    // Login: the same status and message for a wrong password and an unknown email.
    let known = log_in(&app, &b, "known@example.com", "wrong password here").await;
    let unknown = log_in(&app, &b, "nobody@example.com", "wrong password here").await;
    assert_eq!((known.status, unknown.status), (401, 401));
    let message = |p: &common::Page| {
        let at = p.body.find("data-testid=\"form-error\"")?;
        let rest = &p.body[at..];
        let text = &rest[rest.find('>')? + 1..];
        Some(text.split('<').next().unwrap_or("").to_owned())
    };
    assert_eq!(message(&known), message(&unknown));
    assert_eq!(message(&known).as_deref(), Some("Wrong email or password."));
    // Reset: the same redirect; only the real account gets a link.
    for email in ["known@example.com", "nobody@example.com"] {
        let page = app
            .post_as(&b, "/en/forgot", "/en/forgot", &[("email", email)], &[])
            .await;
        assert_eq!((page.status, page.location()), (303, "/en/forgot?sent=1"));
    }
    assert!(app
        .last_mail("known@example.com")
        .contains("/en/reset?token="));
    assert!(app.last_mail("nobody@example.com").trim().is_empty());
    app.finish().await;
}

async fn password_reset_is_single_use_and_ends_sessions(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let email = verified_user(&app, "reset@example.com").await;
    let other_device = app.browser();
    assert_eq!(
        log_in(&app, &other_device, &email, PASSWORD).await.status,
        303
    );

    let b = app.browser();
    app.post_as(&b, "/en/forgot", "/en/forgot", &[("email", &email)], &[])
        .await;
    let link = app.mailed_link(&email);
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    // A refused password does not use up the link.
    let page = app
        .post_as(
            &b,
            &link,
            "/en/reset",
            &[("token", &token), ("password", "12345678")],
            &[],
        )
        .await;
    assert!(page.status == 422 && page.body.contains("too common"));
    let page = app
        .post_as(
            &b,
            &link,
            "/en/reset",
            &[("token", &token), ("password", "amber lantern meadow")],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/login?done=reset");
    let again = app
        .post_as(
            &b,
            &link,
            "/en/reset",
            &[("token", &token), ("password", "another fine phrase")],
            &[],
        )
        .await;
    assert!(again.status == 422 && again.body.contains("already used"));

    assert_eq!(
        app.get_as(&other_device, "/en/account").await.status,
        303,
        "sessions end at reset"
    );
    assert_eq!(log_in(&app, &b, &email, PASSWORD).await.status, 401);
    assert_eq!(
        log_in(&app, &b, &email, "amber lantern meadow")
            .await
            .status,
        303
    );
    app.finish().await;
}

async fn reset_links_expire_after_30_minutes(db: TestDb) {
    let clock = Clock::manual(1_796_000_000);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let email = verified_user(&app, "late@example.com").await;
    let b = app.browser();
    app.post_as(&b, "/en/forgot", "/en/forgot", &[("email", &email)], &[])
        .await;
    let link = app.mailed_link(&email);
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    clock.advance(31 * 60);
    let page = app
        .post_as(
            &b,
            &link,
            "/en/reset",
            &[("token", &token), ("password", "amber lantern meadow")],
            &[],
        )
        .await;
    assert!(
        page.status == 422 && page.body.contains("has expired"),
        "{}",
        page.status
    );
    app.finish().await;
}

async fn logins_are_throttled_with_growing_delays(db: TestDb) {
    let clock = Clock::manual(1_796_000_000);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let email = verified_user(&app, "target@example.com").await;
    let b = app.browser();
    for i in 0..5 {
        let page = log_in(&app, &b, &email, "guess guess guess").await;
        assert_eq!(
            page.status,
            401,
            "attempt {i}: {}",
            page.body
                .split("form-error")
                .nth(1)
                .unwrap_or_default()
                .chars()
                .take(200)
                .collect::<String>()
        );
    }
    // Now even the right password waits, and the page says how long.
    let page = log_in(&app, &b, &email, PASSWORD).await;
    assert_eq!(page.status, 429);
    assert!(page
        .body
        .contains("Too many failed attempts. Try again in 2 seconds."));
    clock.advance(3);
    let page = log_in(&app, &b, &email, "guess guess guess").await;
    assert_eq!(
        page.status,
        401,
        "{}",
        page.body
            .split("form-error")
            .nth(1)
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect::<String>()
    );
    let page = log_in(&app, &b, &email, PASSWORD).await;
    assert!(
        page.body.contains("Try again in 4 seconds."),
        "the delay grows"
    );
    // The delay is bounded: a victim is never locked out for long.
    clock.advance(5);
    assert_eq!(log_in(&app, &b, &email, PASSWORD).await.status, 303);
    app.finish().await;
}

async fn cross_site_posts_are_refused(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let email = verified_user(&app, "victim@example.com").await;
    let b = app.browser();
    for headers in [
        vec![("origin", "https://evil.example")],
        vec![("sec-fetch-site", "cross-site")],
        vec![("sec-fetch-site", "same-site")],
    ] {
        let page = app
            .post_as(
                &b,
                "/en/login",
                "/en/login",
                &[("email", email.as_str()), ("password", PASSWORD)],
                &headers,
            )
            .await;
        assert_eq!(page.status, 403, "{headers:?}");
        assert!(page.body.contains("came from another site"));
    }
    // Without Origin or Sec-Fetch-Site, a missing or wrong token is refused.
    let page = b
        .post(format!("{}/en/login", app.base))
        .form(&[
            ("email", email.as_str()),
            ("password", PASSWORD),
            ("csrf", "forged"),
        ])
        .send()
        .await
        .expect("post");
    assert_eq!(page.status().as_u16(), 403);
    // Our own origin passes.
    let page = app
        .post_as(
            &b,
            "/en/login",
            "/en/login",
            &[("email", email.as_str()), ("password", PASSWORD)],
            &[("origin", "https://gpu.example.com")],
        )
        .await;
    assert_eq!(page.status, 303);
    app.finish().await;
}

async fn password_change_needs_the_current_one_and_ends_other_sessions(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let email = verified_user(&app, "change@example.com").await;
    let (b, other) = (app.browser(), app.browser());
    log_in(&app, &b, &email, PASSWORD).await;
    log_in(&app, &other, &email, PASSWORD).await;
    let change = |current: &'static str, new: &'static str, repeat: &'static str| {
        let b = b.clone();
        let app = &app;
        async move {
            app.post_as(
                &b,
                "/en/account",
                "/en/account/password",
                &[("current", current), ("password", new), ("repeat", repeat)],
                &[],
            )
            .await
        }
    };
    let page = change(
        "wrong wrong wrong",
        "amber lantern meadow",
        "amber lantern meadow",
    )
    .await;
    assert!(page.status == 401 && page.body.contains("The current password is wrong."));
    let page = change(PASSWORD, "amber lantern meadow", "amber lantern meadoww").await;
    assert!(page.status == 422 && page.body.contains("don’t match"));
    let page = change(PASSWORD, "amber lantern meadow", "amber lantern meadow").await;
    assert_eq!(page.location(), "/en/account?done=password");
    assert!(app
        .get_as(&b, "/en/account?done=password")
        .await
        .body
        .contains("Every other session was logged out."));
    assert_eq!(
        app.get_as(&other, "/en/account").await.status,
        303,
        "the other session ended"
    );
    assert!(app.last_mail(&email).contains("Your password was changed"));
    app.finish().await;
}

async fn logins_end_after_twelve_hours(db: TestDb) {
    let clock = Clock::manual(1_796_000_000);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let email = verified_user(&app, "long@example.com").await;
    let b = app.browser();
    log_in(&app, &b, &email, PASSWORD).await;
    // Active all day (a request every 20 minutes keeps it from idling)…
    for step in 1..=36 {
        clock.advance(20 * 60);
        let page = app.get_as(&b, "/en/account").await;
        assert_eq!(page.status, 200, "after {} minutes", step * 20);
    }
    // …but never past twelve hours.
    clock.advance(60);
    assert_eq!(
        app.get_as(&b, "/en/account").await.location(),
        "/en/login?done=login"
    );
    app.finish().await;
}

mod mail_limits {
    use crate::common::{TestApp, TestDb};

    /// Nobody's inbox can be flooded through our forms.
    async fn mail_sending_forms_are_rate_limited(db: TestDb) {
        let app = TestApp::spawn(db).await;
        let b = app.browser();
        for _ in 0..5 {
            let page = app
                .post_as(
                    &b,
                    "/en/forgot",
                    "/en/forgot",
                    &[("email", "target@example.com")],
                    &[],
                )
                .await;
            assert_eq!(page.location(), "/en/forgot?sent=1");
        }
        let page = app
            .post_as(
                &b,
                "/en/forgot",
                "/en/forgot",
                &[("email", "Target@Example.com")],
                &[],
            )
            .await;
        assert_eq!(page.status, 429);
        assert!(
            page.body
                .contains("Too many requests. Try again in 60 minutes."),
            "{}",
            page.status
        );
        let zh = app
            .post_as(
                &b,
                "/zh/signup",
                "/zh/signup",
                &[
                    ("name", "X"),
                    ("email", "target@example.com"),
                    ("password", "violet kettle harbour"),
                ],
                &[],
            )
            .await;
        assert!(zh.status == 429 && zh.body.contains("请求过于频繁"));
        // Other recipients are unaffected.
        let page = app
            .post_as(
                &b,
                "/en/forgot",
                "/en/forgot",
                &[("email", "someone@example.com")],
                &[],
            )
            .await;
        assert_eq!(page.location(), "/en/forgot?sent=1");
        app.finish().await;
    }

    crate::on_both_databases!(mail_sending_forms_are_rate_limited);
}

mod behind_a_proxy {
    use crate::common::{TestApp, TestDb};
    use backend::Clock;

    /// Behind a load balancer every client arrives from its address; the
    /// limits must follow the forwarded client address instead.
    async fn address_limits_follow_the_forwarded_client(db: TestDb) {
        let app = TestApp::spawn_configured(db, Clock::system(), |config| {
            config.client_ip_header = Some("x-forwarded-for".to_owned());
            // Behind a balancer, as production is: development mode is
            // allowed off loopback for this test.
            config.allow_development_off_loopback = true;
        })
        .await;
        let b = app.browser();
        for i in 0..20 {
            let to = format!("victim{i}@example.com");
            let headers = [("x-forwarded-for", "203.0.113.7, 198.51.100.1")];
            let page = app
                .post_as(&b, "/en/forgot", "/en/forgot", &[("email", &to)], &headers)
                .await;
            assert_eq!(page.location(), "/en/forgot?sent=1");
        }
        // That client is now limited…
        let headers = [("x-forwarded-for", "203.0.113.7, 198.51.100.1")];
        let page = app
            .post_as(
                &b,
                "/en/forgot",
                "/en/forgot",
                &[("email", "x@example.com")],
                &headers,
            )
            .await;
        assert_eq!(page.status, 429);
        // …another behind the same balancer is not (a forged first entry changes nothing).
        let headers = [("x-forwarded-for", "203.0.113.7, 198.51.100.2")];
        let page = app
            .post_as(
                &b,
                "/en/forgot",
                "/en/forgot",
                &[("email", "y@example.com")],
                &headers,
            )
            .await;
        assert_eq!(page.location(), "/en/forgot?sent=1");
        app.finish().await;
    }

    crate::on_both_databases!(address_limits_follow_the_forwarded_client);
}
