//! Changing the email address and deleting an account.

use crate::common::{TestApp, TestDb, PASSWORD};

on_both_databases!(
    email_changes_after_the_new_address_confirms,
    deleting_an_account
);

async fn email_changes_after_the_new_address_confirms(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let b = app.member("old@example.com", "Ann", "").await;
    let page = app
        .post_as(
            &b,
            "/en/account",
            "/en/account/email",
            &[
                ("email", "new@example.com"),
                ("current", "wrong wrong wrong"),
            ],
            &[],
        )
        .await;
    assert_eq!(page.status, 401);
    let page = app
        .post_as(
            &b,
            "/en/account",
            "/en/account/email",
            &[("email", "New@Example.com"), ("current", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/account?done=email-sent");
    // Nothing changes until the new address confirms.
    assert!(app
        .get_as(&b, "/en/account")
        .await
        .body
        .contains("old@example.com"));
    let link = app.mailed_link("new@example.com");
    assert!(link.starts_with("/en/email?token="), "{link}");
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    let page = app
        .post_as(&b, &link, "/en/email", &[("token", &token)], &[])
        .await;
    assert_eq!(page.location(), "/en/login?done=email");
    assert!(app
        .get_as(&b, "/en/account")
        .await
        .body
        .contains("new@example.com"));
    assert!(
        app.last_mail("old@example.com")
            .contains("is now new@example.com"),
        "the old address is told"
    );
    let again = app
        .post_as(&b, &link, "/en/email", &[("token", &token)], &[])
        .await;
    assert_eq!(again.status, 422, "single use");
    // Log in with the new address only.
    let fresh = app.browser();
    let old = app
        .post_as(
            &fresh,
            "/en/login",
            "/en/login",
            &[("email", "old@example.com"), ("password", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(old.status, 401);
    let new = app
        .post_as(
            &fresh,
            "/en/login",
            "/en/login",
            &[("email", "new@example.com"), ("password", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(new.location(), "/en/servers");
    // Asking for an address another account has tells that account, not us.
    app.member("taken@example.com", "T", "").await;
    let page = app
        .post_as(
            &b,
            "/en/account",
            "/en/account/email",
            &[("email", "taken@example.com"), ("current", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/account?done=email-sent");
    assert!(app
        .last_mail("taken@example.com")
        .contains("Someone tried to sign up with your email"));
    app.finish().await;
}

async fn deleting_an_account(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("boss@del.example", "Boss", "Del Ltd").await;
    app.post_as(
        &owner,
        "/en/members",
        "/en/members/invite",
        &[("email", "tech@del.example"), ("role", "technical")],
        &[],
    )
    .await;
    let link = app.mailed_link("tech@del.example");
    let tech = app.member("tech@del.example", "Tech", "").await;
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    app.post_as(&tech, &link, "/en/invite", &[("token", &token)], &[])
        .await;

    let page = app
        .post_as(
            &owner,
            "/en/account",
            "/en/account/delete",
            &[("current", "wrong wrong wrong")],
            &[],
        )
        .await;
    assert_eq!(page.status, 401);
    // The only owner of an organization others use cannot go.
    let page = app
        .post_as(
            &owner,
            "/en/account",
            "/en/account/delete",
            &[("current", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.status, 409);
    assert!(page.body.contains("must keep at least one owner"));
    // A technical member can.
    let other_session = app.browser();
    app.post_as(
        &other_session,
        "/en/login",
        "/en/login",
        &[("email", "tech@del.example"), ("password", PASSWORD)],
        &[],
    )
    .await;
    let page = app
        .post_as(
            &tech,
            "/en/account",
            "/en/account/delete",
            &[("current", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/login?done=deleted");
    assert_eq!(
        app.get_as(&other_session, "/en/account").await.status,
        303,
        "every session ended"
    );
    let login = app
        .post_as(
            &app.browser(),
            "/en/login",
            "/en/login",
            &[("email", "tech@del.example"), ("password", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(login.status, 401);
    let members = app.get_as(&owner, "/en/members").await;
    assert!(!members.body.contains("tech@del.example"));
    // The audit trail keeps what happened.
    let audit = app.get_as(&owner, "/en/audit").await;
    assert!(
        audit.body.contains("tech@del.example")
            && audit.body.contains("data-action=\"member.joined\"")
    );
    app.finish().await;
}
