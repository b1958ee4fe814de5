//! Organizations over HTTP: invitations with roles, what each role sees,
//! changing roles, removing and leaving, and the last owner rule.

use crate::common::{self, TestApp, TestDb};

on_both_databases!(
    invite_accept_and_roles,
    the_last_owner_stays,
    invitations_belong_to_their_address
);

async fn invite(app: &TestApp, owner: &reqwest::Client, email: &str, role: &str) -> common::Page {
    app.post_as(
        owner,
        "/en/members",
        "/en/members/invite",
        &[("email", email), ("role", role)],
        &[],
    )
    .await
}

async fn accept(app: &TestApp, browser: &reqwest::Client, link: &str) -> common::Page {
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    app.post_as(browser, link, "/en/invite", &[("token", &token)], &[])
        .await
}

async fn invite_accept_and_roles(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@lee.example", "Ann Lee", "Lee Labs").await;
    let page = invite(&app, &owner, "Bill@Lee.example", "billing").await;
    assert_eq!(
        page.location(),
        "/en/members?done=invited&to=bill@lee.example",
        "{}",
        page.body
    );
    let mail = app.last_mail("bill@lee.example");
    assert!(
        mail.contains("Ann Lee invited you to Lee Labs") && mail.contains("as billing"),
        "{mail}"
    );
    let members = app.get_as(&owner, "/en/members").await;
    assert!(
        members.body.contains("bill@lee.example"),
        "pending invitation listed"
    );

    let invitation = app.mailed_link("bill@lee.example");
    let bill = app.member("bill@lee.example", "Bill", "").await;
    let page = accept(&app, &bill, &invitation).await;
    assert_eq!(page.location(), "/en/account?done=joined", "{}", page.body);
    let account = app.get_as(&bill, "/en/account").await;
    assert!(
        account.body.contains("Lee Labs") && account.body.contains("Billing"),
        "works in the joined organization"
    );
    assert!(
        account.body.contains("Switch organization"),
        "two organizations to choose from"
    );
    // Signing in again (a second later, so "first joined" would be his own
    // empty organization) lands where he last chose to work.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let again = app.browser();
    let fields = [
        ("email", "bill@lee.example"),
        ("password", common::PASSWORD),
    ];
    app.post_as(&again, "/en/login", "/en/login", &fields, &[])
        .await;
    let account = app.get_as(&again, "/en/account").await;
    assert!(
        account
            .body
            .contains("data-testid=\"account-role\">Billing"),
        "back in Lee Labs after signing in"
    );
    // Billing sees neither members nor the audit log.
    for path in ["/en/members", "/en/audit"] {
        let page = app.get_as(&bill, path).await;
        assert_eq!(page.status, 403, "{path}");
        assert!(page.body.contains("Not allowed"));
    }
    let page = invite(&app, &bill, "eve@example.com", "owner").await;
    assert_eq!(page.status, 403, "a billing user cannot invite");

    // The owner makes Bill technical.
    let members = app.get_as(&owner, "/en/members").await;
    let bill_id = common::user_id_of(&members.body, "bill@lee.example");
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/role",
            &[("user_id", &bill_id), ("role", "technical")],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/members?done=role");
    assert!(app
        .get_as(&bill, "/en/account")
        .await
        .body
        .contains("Technical"));

    let audit = app.get_as(&owner, "/en/audit").await;
    for action in [
        "account.created",
        "login.succeeded",
        "member.invited",
        "member.joined",
        "member.role_changed",
    ] {
        assert!(
            audit.body.contains(&format!("data-action=\"{action}\"")),
            "{action}"
        );
    }
    // Switching back to his own organization makes Bill its owner again.
    let own = account
        .body
        .split("<option value=\"")
        .skip(1)
        .find(|o| !o.contains("\" selected"))
        .and_then(|o| o.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let page = app
        .post_as(
            &bill,
            "/en/account",
            "/en/account/organization",
            &[("organization", &own)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/account?done=organization");
    let account = app.get_as(&bill, "/en/account").await;
    let fresh = app.browser();
    app.post_as(&fresh, "/en/login", "/en/login", &fields, &[])
        .await;
    assert!(
        app.get_as(&fresh, "/en/account")
            .await
            .body
            .contains("data-testid=\"account-role\">Owner"),
        "the choice is remembered for the next sign-in"
    );
    assert!(
        account.body.contains("data-testid=\"account-role\">Owner"),
        "own organization: {own} {}",
        &account.body[account.body.find("account-facts").unwrap_or(0)..][..600]
    );
    // An organization one does not belong to cannot be chosen.
    let page = app
        .post_as(
            &owner,
            "/en/account",
            "/en/account/organization",
            &[("organization", &own)],
            &[],
        )
        .await;
    assert_eq!(page.status, 403);
    app.finish().await;
}

async fn the_last_owner_stays(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("solo@lee.example", "Ann", "Solo Ltd").await;
    let members = app.get_as(&owner, "/en/members").await;
    let me = common::user_id_of(&members.body, "solo@lee.example");
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/role",
            &[("user_id", &me), ("role", "billing")],
            &[],
        )
        .await;
    assert_eq!(page.status, 409);
    assert!(page.body.contains("must keep at least one owner"));
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/remove",
            &[("user_id", &me)],
            &[],
        )
        .await;
    assert_eq!(page.status, 409);

    // With a second owner, the first may go, but not from their only
    // organization; the second owner, who has another, may leave.
    invite(&app, &owner, "two@lee.example", "owner").await;
    let invitation = app.mailed_link("two@lee.example");
    let two = app.member("two@lee.example", "Two", "").await;
    accept(&app, &two, &invitation).await;
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/remove",
            &[("user_id", &me)],
            &[],
        )
        .await;
    assert_eq!(page.status, 409);
    assert!(page.body.contains("only organization"), "{}", page.status);
    let members = app.get_as(&two, "/en/members").await;
    let two_id = common::user_id_of(&members.body, "two@lee.example");
    let page = app
        .post_as(
            &two,
            "/en/members",
            "/en/members/remove",
            &[("user_id", &two_id)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/account");
    let members = app.get_as(&owner, "/en/members").await;
    assert!(!members.body.contains("data-member=\"two@lee.example\""));
    app.finish().await;
}

async fn invitations_belong_to_their_address(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("boss@lee.example", "Boss", "Lee Labs").await;
    invite(&app, &owner, "carol@lee.example", "technical").await;
    let link = app.mailed_link("carol@lee.example");
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    // Someone else who got hold of the link cannot use it.
    let mallory = app.member("mallory@example.com", "M", "").await;
    let page = app
        .post_as(&mallory, &link, "/en/invite", &[("token", &token)], &[])
        .await;
    assert_eq!(page.status, 403);
    assert!(page.body.contains("sent to another email address"));
    // Anonymous visitors may log in, or sign up with the invited address.
    let page = app.get_as(&app.browser(), &link).await;
    assert!(page.body.contains("Create account and join"));
    let carol = app.member("carol@lee.example", "Carol", "").await;
    assert_eq!(
        app.post_as(&carol, &link, "/en/invite", &[("token", &token)], &[])
            .await
            .location(),
        "/en/account?done=joined"
    );
    let again = app
        .post_as(&carol, &link, "/en/invite", &[("token", &token)], &[])
        .await;
    assert!(again.status == 422 && again.body.contains("already used"));
    // Inviting an existing member is refused with a reason.
    let page = invite(&app, &owner, "carol@lee.example", "billing").await;
    assert_eq!(page.status, 409);
    assert!(page.body.contains("already a member"));
    app.finish().await;
}
