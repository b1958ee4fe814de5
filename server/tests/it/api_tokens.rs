//! API tokens on their portal page (issue 14): members create tokens
//! within what their role may give, the secret is shown once, the list
//! tells tokens apart by their prefix, revoking is for the creator and
//! owners, the audit log has it all (never the secret), and the form's
//! refusals are translated.

use crate::common::api::{
    create_token, create_token_expiring, post_new_token, revoke_token_id, token_id, token_secret,
};
use crate::common::{self, TestApp, TestDb};

on_both_databases!(
    members_create_tokens_within_their_role_and_see_the_secret_once,
    creators_and_owners_revoke_and_the_audit_log_says_so,
    the_form_refuses_bad_input_in_both_languages
);

const ALL: &[&str] = &["read", "servers:write", "billing:read"];

/// The scope checkboxes the create form offers.
fn offered(body: &str) -> Vec<String> {
    body.split("name=\"scope\" value=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

fn form_error(body: &str) -> String {
    let Some(at) = body.find("data-testid=\"form-error\"") else {
        return String::new();
    };
    let rest = &body[at..];
    let start = rest.find('>').map_or(0, |i| i + 1);
    let end = rest.find("</p>").unwrap_or(rest.len());
    rest[start..end].to_owned()
}

async fn members_create_tokens_within_their_role_and_see_the_secret_once(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let bill = app.invite(&owner, "bill@a.example", "billing").await;

    // Each role is offered what it may give, and the menu leads here.
    for (who, scopes) in [
        (&owner, ALL),
        (&tech, &["read", "servers:write"][..]),
        (&bill, &["billing:read"][..]),
    ] {
        let page = app.get_as(who, "/en/tokens").await;
        assert_eq!(page.status, 200);
        assert_eq!(offered(&page.body), scopes);
        assert!(page.body.contains("href=\"/en/tokens\""), "menu link");
        assert!(page.body.contains("href=\"/en/docs/api\""), "docs link");
        assert!(!page.body.contains("data-token-secret"));
    }

    // The owner's token: the form redirects (a reload cannot create a
    // second one); the secret is on the next page once, which nobody stores.
    let posted = post_new_token(
        &app,
        &owner,
        "release pipeline",
        &["read", "servers:write"],
        "90",
    )
    .await;
    assert_eq!(posted.location(), "/en/tokens#new-token");
    assert!(!posted.body.contains("gpu_"));
    let page = app.follow(&owner, posted).await;
    assert_eq!(page.status, 200, "{}", common::strip_tags(&page.body));
    assert_eq!(
        page.headers
            .get("cache-control")
            .and_then(|v| v.to_str().ok()),
        Some("no-store")
    );
    let secret = token_secret(&page.body).expect("the secret, gpu_ and 64 hex characters");
    assert!(page.body.contains("won’t be shown again"));
    let prefix = format!("gpu_{}…", &secret[4..12]);
    assert!(page.body.contains(&prefix), "the list shows {prefix}");
    // A reload lists the token by its prefix, never the secret.
    let again = app.get_as(&owner, "/en/tokens").await;
    assert!(!again.body.contains(&secret) && !again.body.contains("data-token-secret"));
    assert!(again.body.contains(&prefix) && again.body.contains("release pipeline"));
    assert!(again.body.contains("data-scopes=\"read servers:write\""));

    // The technical member's and the billing member's own tokens.
    let tech_secret = create_token(&app, &tech, "tech script", &["read"]).await;
    assert_ne!(tech_secret, secret);
    let bill_secret =
        create_token_expiring(&app, &bill, "money export", &["billing:read"], "365").await;
    assert!(bill_secret.starts_with("gpu_"));
    // More than the role allows is refused, whatever the form offered.
    for (who, scope) in [
        (&bill, "servers:write"),
        (&bill, "read"),
        (&tech, "billing:read"),
    ] {
        let page = post_new_token(&app, who, "too much", &[scope], "never").await;
        assert_eq!(page.status, 422, "{scope}");
        assert_eq!(
            form_error(&page.body),
            "Your role may not give a token this scope."
        );
        assert!(token_secret(&page.body).is_none());
    }

    // Owners see every member's tokens with their creator; others their own.
    let listed = app.get_as(&owner, "/en/tokens").await.body;
    for needle in [
        "release pipeline",
        "tech script",
        "money export",
        "tech@a.example",
        "bill@a.example",
    ] {
        assert!(listed.contains(needle), "the owner sees {needle}");
    }
    let listed = app.get_as(&tech, "/en/tokens").await.body;
    assert!(
        listed.contains("tech script")
            && !listed.contains("release pipeline")
            && !listed.contains("money export")
    );
    // Another organization sees none of them.
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    let listed = app.get_as(&other, "/en/tokens").await.body;
    assert!(!listed.contains("release pipeline") && listed.contains("data-testid=\"no-tokens\""));
    app.finish().await;
}

async fn creators_and_owners_revoke_and_the_audit_log_says_so(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    let owners_secret = create_token(&app, &owner, "owner token", ALL).await;
    create_token(&app, &tech, "tech token", &["read"]).await;
    let owners = token_id(&app, &owner, "owner token").await;
    let techs = token_id(&app, &owner, "tech token").await;

    // A technical member cannot revoke the owner's token, nor another
    // organization's owner A's: both look like a missing token.
    assert_eq!(revoke_token_id(&app, &tech, &owners).await.status, 404);
    assert_eq!(revoke_token_id(&app, &other, &owners).await.status, 404);
    // Unconfirmed, nothing happens.
    let page = app
        .post_as(
            &owner,
            "/en/tokens",
            "/en/tokens/revoke",
            &[("id", &techs)],
            &[],
        )
        .await;
    assert_eq!(page.status, 422);
    // The owner revokes the technical member's token; twice is harmless.
    for _ in 0..2 {
        let page = revoke_token_id(&app, &owner, &techs).await;
        assert_eq!(page.location(), "/en/tokens?done=token-revoked");
    }
    let listed = app
        .get_as(&owner, "/en/tokens?done=token-revoked")
        .await
        .body;
    assert!(listed.contains(&format!("data-token=\"{techs}\" data-state=\"revoked\"")));
    assert!(listed.contains(&format!("data-token=\"{owners}\" data-state=\"active\"")));
    assert!(listed.contains("Token revoked."));
    // The technical member sees it revoked, without a revoke button.
    let seen = app.get_as(&tech, "/en/tokens").await.body;
    assert!(seen.contains("data-state=\"revoked\"") && !seen.contains("/en/tokens/revoke"));
    // The creator revokes their own.
    let page = revoke_token_id(&app, &owner, &owners).await;
    assert_eq!(page.status, 303);

    let audit = app.get_as(&owner, "/en/audit").await.body;
    assert_eq!(
        audit.matches("data-action=\"api_token.created\"").count(),
        2
    );
    assert_eq!(
        audit.matches("data-action=\"api_token.revoked\"").count(),
        2
    );
    assert!(audit.contains("created an API token") && audit.contains("revoked an API token"));
    assert!(audit.contains("scopes=read servers:write billing:read"));
    assert!(!audit.contains(&owners_secret) && !audit.contains(&owners_secret[4..]));
    let zh = app.get_as(&owner, "/zh/audit").await.body;
    assert!(zh.contains("创建了 API 令牌") && zh.contains("撤销了 API 令牌"));
    app.finish().await;
}

async fn the_form_refuses_bad_input_in_both_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let long = "x".repeat(61);
    for (name, scopes, expires, error) in [
        (
            "",
            &["read"][..],
            "never",
            "Give the token a name of 1 to 60 characters, without line breaks.",
        ),
        (
            "   ",
            &["read"][..],
            "never",
            "Give the token a name of 1 to 60 characters, without line breaks.",
        ),
        (
            long.as_str(),
            &["read"][..],
            "never",
            "Give the token a name of 1 to 60 characters, without line breaks.",
        ),
        (
            "a\nb",
            &["read"][..],
            "never",
            "Give the token a name of 1 to 60 characters, without line breaks.",
        ),
        ("ok", &[][..], "never", "Choose at least one scope."),
        (
            "ok",
            &["admin"][..],
            "never",
            "Your role may not give a token this scope.",
        ),
        (
            "ok",
            &["read"][..],
            "7",
            "Choose an expiry: 30, 90 or 365 days, or never.",
        ),
        (
            "ok",
            &["read"][..],
            "",
            "Choose an expiry: 30, 90 or 365 days, or never.",
        ),
    ] {
        let page = post_new_token(&app, &owner, name, scopes, expires).await;
        assert_eq!(page.status, 422, "{name:?} {scopes:?} {expires:?}");
        assert_eq!(
            form_error(&page.body),
            error,
            "{name:?} {scopes:?} {expires:?}"
        );
        assert!(token_secret(&page.body).is_none());
    }
    // What was typed is kept.
    let page = post_new_token(&app, &owner, "nightly", &[], "365").await;
    assert!(page.body.contains("value=\"nightly\""));
    assert!(page.body.contains("<option value=\"365\" selected"));
    // Nothing was created.
    let listed = app.get_as(&owner, "/en/tokens").await.body;
    assert!(listed.contains("data-testid=\"no-tokens\""));

    // The page and its refusals in Chinese.
    let zh = app.get_as(&owner, "/zh/tokens").await;
    assert_eq!(zh.status, 200);
    assert!(zh.body.contains("API 令牌") && zh.body.contains("创建令牌"));
    assert!(zh.body.contains("href=\"/zh/docs/api\""));
    let page = app
        .post_as(
            &owner,
            "/zh/tokens",
            "/zh/tokens",
            &[("name", ""), ("scope", "read"), ("expires", "never")],
            &[],
        )
        .await;
    assert_eq!(page.status, 422);
    assert_eq!(
        form_error(&page.body),
        "请为令牌输入 1 到 60 个字符的名称，不能包含换行。"
    );
    let page = app
        .post_as(
            &owner,
            "/zh/tokens",
            "/zh/tokens",
            &[("name", "夜间任务"), ("scope", "read"), ("expires", "30")],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/zh/tokens#new-token");
    let page = app.follow(&owner, page).await;
    assert_eq!(page.status, 200);
    assert!(token_secret(&page.body).is_some() && page.body.contains("它不会再次显示"));
    // Staff act for no organization: no tokens.
    let staff = app.staff("ops@host.example").await;
    assert_eq!(app.get_as(&staff, "/en/tokens").await.status, 403);
    app.finish().await;
}
