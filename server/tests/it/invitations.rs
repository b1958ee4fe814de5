//! Invitations from the invitee's side and the owner's (issue 17), in both
//! languages: the page names the organization, the inviter and the role; a
//! new user signs up from it in one step straight into the organization
//! (no organization of their own); an existing user signs in and accepts;
//! owners resend (fresh link, old one replaced, limited) and withdraw
//! (the link says so); all of it in the audit log.

use crate::common::{self, TestApp, TestDb};

on_both_databases!(
    the_invitation_page_names_organization_inviter_and_role,
    a_new_user_signs_up_from_the_invitation_into_the_organization,
    an_existing_user_signs_in_and_accepts,
    owners_resend_and_withdraw_pending_invitations
);

async fn invite(
    app: &TestApp,
    owner: &reqwest::Client,
    lang: &str,
    email: &str,
    role: &str,
) -> common::Page {
    app.post_as(
        owner,
        &format!("/{lang}/members"),
        &format!("/{lang}/members/invite"),
        &[("email", email), ("role", role)],
        &[],
    )
    .await
}

fn token_of(link: &str) -> String {
    link.split("token=").nth(1).unwrap_or_default().to_owned()
}

async fn the_invitation_page_names_organization_inviter_and_role(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@inv.example", "Ann Lee", "Lee Labs").await;
    invite(&app, &owner, "en", "bob@inv.example", "billing").await;
    let link = app.mailed_link("bob@inv.example");
    assert!(link.starts_with("/en/invite?token="), "{link}");
    let page = app.get_as(&app.browser(), &link).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains("<h1 id=\"invite-title\">Join Lee Labs</h1>"),
        "{}",
        page.body
    );
    assert!(page
        .body
        .contains("Ann Lee invited you to join Lee Labs as Billing."));
    assert!(page.body.contains("The invitation is for bob@inv.example."));
    // The sign-up form has the invited address, read-only.
    let input = &page.body[page.body.find("id=\"invite-email\"").unwrap_or(0)..];
    let input = &input[..input.find('>').unwrap_or(0)];
    assert!(
        input.contains("value=\"bob@inv.example\"") && input.contains("readonly"),
        "read-only address: {input}"
    );
    // Chinese: an owner inviting from the Chinese pages sends a Chinese link.
    invite(&app, &owner, "zh", "cai@inv.example", "technical").await;
    let link = app.mailed_link("cai@inv.example");
    assert!(link.starts_with("/zh/invite?token="), "{link}");
    let page = app.get_as(&app.browser(), &link).await;
    assert!(page.body.contains("加入 Lee Labs"));
    assert!(
        page.body
            .contains("Ann Lee 邀请您以“技术”身份加入 Lee Labs。"),
        "{}",
        page.body
    );
    assert!(page.body.contains("创建账户并加入"));
    // An unknown link says it is invalid.
    let page = app.get_as(&app.browser(), "/en/invite?token=nope").await;
    assert!(page.body.contains("This link is invalid"));
    app.finish().await;
}

async fn a_new_user_signs_up_from_the_invitation_into_the_organization(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@new.example", "Ann", "New Labs").await;
    for (lang, email, role, role_words, welcome) in [
        (
            "en",
            "bob@new.example",
            "billing",
            "Billing",
            "Welcome to New Labs. You joined as Billing.",
        ),
        (
            "zh",
            "cai@new.example",
            "technical",
            "技术",
            "欢迎加入 New Labs！您的角色是“技术”。",
        ),
    ] {
        invite(&app, &owner, lang, email, role).await;
        let link = app.mailed_link(email);
        let visitor = app.browser();
        let token = token_of(&link);
        // A refused password keeps the link usable.
        let weak = app
            .post_as(
                &visitor,
                &link,
                &format!("/{lang}/invite/signup"),
                &[("token", &token), ("name", "B"), ("password", "short")],
                &[],
            )
            .await;
        assert_eq!(weak.status, 422, "{}", weak.body);
        let fields = [
            ("token", token.as_str()),
            ("name", "Newcomer"),
            ("password", common::PASSWORD),
        ];
        let page = app
            .post_as(
                &visitor,
                &link,
                &format!("/{lang}/invite/signup"),
                &fields,
                &[],
            )
            .await;
        assert_eq!(
            page.location(),
            format!("/{lang}/account?done=joined"),
            "{}",
            page.body
        );
        let account = app.get_as(&visitor, page.location()).await.body;
        assert!(account.contains(welcome), "{lang}: {welcome}");
        assert!(account.contains(&format!("data-testid=\"account-role\">{role_words}")));
        assert!(account.contains(&format!("data-testid=\"account-email\">{email}")));
        // Only the inviting organization: nothing to switch between.
        assert!(
            !account.contains("name=\"organization\""),
            "no organization of their own"
        );
        // The link is used up; the account logs in with its password.
        let again = app
            .post_as(
                &app.browser(),
                "/en/login",
                &format!("/{lang}/invite/signup"),
                &fields,
                &[],
            )
            .await;
        assert_eq!(again.status, 422);
        let fresh = app.browser();
        let login = app
            .post_as(
                &fresh,
                "/en/login",
                "/en/login",
                &[("email", email), ("password", common::PASSWORD)],
                &[],
            )
            .await;
        // Verified by the link; lands on what the role works on.
        let home = if role == "billing" {
            "/en/billing"
        } else {
            "/en/servers"
        };
        assert_eq!(login.location(), home, "{email}");
    }
    let members = app.get_as(&owner, "/en/members").await.body;
    assert!(
        members.contains("data-member=\"bob@new.example\"")
            && members.contains("data-member=\"cai@new.example\"")
    );
    let audit = app.get_as(&owner, "/en/audit").await.body;
    let audit = common::strip_tags(&audit);
    assert!(
        audit.contains("bob@new.example joined the organization")
            && audit.contains("bob@new.example created their account"),
        "{audit}"
    );
    // A signed-up address cannot sign up again from a new invitation.
    let other = app.member("own@new.example", "Own", "Own Ltd").await;
    invite(&app, &other, "en", "bob@new.example", "technical").await;
    let link = app.mailed_link("bob@new.example");
    let fields = [
        ("token", token_of(&link)),
        ("name", "B".into()),
        ("password", common::PASSWORD.into()),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let page = app
        .post_as(&app.browser(), &link, "/en/invite/signup", &fields, &[])
        .await;
    assert_eq!(page.status, 409);
    assert!(page
        .body
        .contains("An account with this address already exists"));
    app.finish().await;
}

async fn an_existing_user_signs_in_and_accepts(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@old.example", "Ann", "Old Labs").await;
    let dan = app.member("dan@old.example", "Dan", "Dan Ltd").await;
    drop(dan);
    invite(&app, &owner, "en", "dan@old.example", "technical").await;
    let link = app.mailed_link("dan@old.example");
    let browser = app.browser();
    let page = app.get_as(&browser, &link).await;
    assert!(page.body.contains("data-testid=\"invite-login\""));
    let login = app
        .post_as(
            &browser,
            &link,
            "/en/login",
            &[("email", "dan@old.example"), ("password", common::PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(
        login.location(),
        link,
        "back to the invitation after logging in"
    );
    let page = app
        .post_as(
            &browser,
            &link,
            "/en/invite",
            &[("token", &token_of(&link))],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/account?done=joined");
    let account = app.get_as(&browser, page.location()).await.body;
    assert!(account.contains("Welcome to Old Labs. You joined as Technical."));
    app.finish().await;
}

async fn owners_resend_and_withdraw_pending_invitations(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@rr.example", "Ann", "RR Labs").await;
    invite(&app, &owner, "en", "eve@rr.example", "technical").await;
    let first = app.mailed_link("eve@rr.example");
    let members = app.get_as(&owner, "/en/members").await.body;
    let id = common::hidden(&members, "invitation");
    assert!(!id.is_empty(), "resend and withdraw forms");
    let resend = |lang: &'static str, id: String| {
        let (app, owner) = (&app, &owner);
        async move {
            app.post_as(
                owner,
                &format!("/{lang}/members"),
                &format!("/{lang}/members/resend"),
                &[("invitation", &id)],
                &[],
            )
            .await
        }
    };
    let page = resend("en", id.clone()).await;
    assert_eq!(
        page.location(),
        "/en/members?done=invite-resent&to=eve@rr.example"
    );
    let body = app.get_as(&owner, page.location()).await.body;
    assert!(body.contains("Invitation sent again to eve@rr.example."));
    let second = app.mailed_link("eve@rr.example");
    assert_ne!(first, second, "a fresh link");
    let old = app.get_as(&app.browser(), &first).await.body;
    assert!(
        old.contains("A newer invitation was sent to this address"),
        "{old}"
    );
    // Resending is limited.
    let mut id = common::hidden(&app.get_as(&owner, "/en/members").await.body, "invitation");
    for _ in 0..2 {
        assert_eq!(resend("en", id.clone()).await.status, 303);
        id = common::hidden(&app.get_as(&owner, "/en/members").await.body, "invitation");
    }
    let limited = resend("zh", id.clone()).await;
    assert_eq!(limited.status, 429, "{}", limited.body);
    assert!(limited.body.contains("请求过于频繁"));
    // Withdrawing: the newest link now says so, and cannot be used.
    let newest = app.mailed_link("eve@rr.example");
    let page = app
        .post_as(
            &owner,
            "/zh/members",
            "/zh/members/revoke",
            &[("invitation", &id)],
            &[],
        )
        .await;
    assert_eq!(
        page.location(),
        "/zh/members?done=invite-revoked&to=eve@rr.example"
    );
    let body = app.get_as(&owner, page.location()).await.body;
    assert!(body.contains("已撤回发给 eve@rr.example 的邀请"));
    assert!(body.contains("没有待接受的邀请。"));
    let gone = app.get_as(&app.browser(), &newest).await.body;
    assert!(
        gone.contains("This invitation was withdrawn. Ask an owner of RR Labs"),
        "{gone}"
    );
    let zh = newest.replacen("/en/", "/zh/", 1);
    assert!(app
        .get_as(&app.browser(), &zh)
        .await
        .body
        .contains("此邀请已被撤回"));
    let fields = [
        ("token", token_of(&newest)),
        ("name", "Eve".into()),
        ("password", common::PASSWORD.into()),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let page = app
        .post_as(
            &app.browser(),
            "/en/login",
            "/en/invite/signup",
            &fields,
            &[],
        )
        .await;
    assert_eq!(page.status, 422);
    // Withdrawing twice is refused, not a 500.
    let again = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/revoke",
            &[("invitation", &id)],
            &[],
        )
        .await;
    assert_eq!(again.status, 409);
    assert!(again.body.contains("no longer pending"));
    let audit = app.get_as(&owner, "/en/audit").await.body;
    assert!(audit.contains("sent an invitation again") && audit.contains("withdrew an invitation"));
    let audit = app.get_as(&owner, "/zh/audit").await.body;
    assert!(
        audit.contains("重新发送了邀请：") && audit.contains("撤回了邀请："),
        "{audit}"
    );
    app.finish().await;
}
