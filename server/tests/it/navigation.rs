//! Finding one's way in the portal (issue 17), in both languages: log out
//! and who is signed in in the header of portal pages only (never on a
//! cached storefront page), the portal menu on every portal page, each
//! save saying what it saved, the audit log in words, and "not allowed"
//! (403) instead of the not-found text.

use crate::common::{self, strip_tags, TestApp, TestDb};

on_both_databases!(
    the_header_names_the_user_and_logs_out_on_portal_pages_only,
    members_two_factor_and_audit_pages_have_the_menu,
    every_save_says_what_it_saved,
    the_audit_log_speaks_both_languages,
    a_forbidden_page_says_not_allowed,
    a_login_lands_on_the_users_home,
    no_two_landmarks_share_a_name
);

const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPDkijbeHwy3mV+5q/FLfrqSX8S7QEee6M83GSKNTRT7 demo@example";

/// The text of the page's `role="status"` notice.
fn notice(body: &str) -> String {
    let Some(at) = body.find("role=\"status\" data-testid=\"notice\"") else {
        return String::new();
    };
    let rest = &body[at..];
    let start = rest.find('>').map_or(0, |i| i + 1);
    let end = rest.find("</p>").unwrap_or(rest.len());
    rest[start..end].to_owned()
}

async fn the_header_names_the_user_and_logs_out_on_portal_pages_only(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@nav.example", "Ann", "Nav Labs").await;
    for (path, logout) in [
        ("/en/account", "Log out"),
        ("/zh/account", "退出登录"),
        ("/en/keys", "Log out"),
        ("/zh/members", "退出登录"),
        ("/en/audit", "Log out"),
    ] {
        let page = app.get_as(&owner, path).await;
        assert_eq!(page.status, 200, "{path}");
        let header = &page.body[page.body.find("<header").unwrap_or(0)
            ..page.body.find("</header>").unwrap_or(page.body.len())];
        let lang = &path[..3];
        assert!(
            header.contains(&format!("action=\"{lang}/logout\""))
                && header.contains(&format!(
                    "name=\"csrf\" value=\"{}\"",
                    common::csrf_token(&page.body)
                )),
            "{path}: a log-out form with the CSRF token in the header"
        );
        assert!(header.contains(logout), "{path}: {logout}");
        assert!(
            header.contains("data-testid=\"header-email\">ann@nav.example")
                && header
                    .contains("data-testid=\"header-organization\" class=\"account-org\">Nav Labs"),
            "{path}: who is signed in, and where: {header}"
        );
    }
    // A signed-in visit renders and caches the storefront pages; the
    // anonymous visitor after it gets the same cached pages: no account.
    for path in ["/en", "/zh", "/en/configure?plan=g-ada&site=fra"] {
        let signed_in = app.get_as(&owner, path).await;
        assert_eq!(signed_in.status, 200, "{path}");
        assert!(
            !signed_in.body.contains("header-logout"),
            "{path} signed in"
        );
        let anonymous = app.get(path).await;
        assert_eq!(anonymous.status, 200, "{path}");
        for private in ["header-logout", "/logout", "ann@nav.example", "Nav Labs"] {
            assert!(!anonymous.body.contains(private), "{path} shows {private}");
        }
    }
    // The header's form logs out.
    let page = app
        .post_as(&owner, "/zh/keys", "/zh/logout", &[], &[])
        .await;
    assert_eq!(page.location(), "/zh/login?done=logout");
    assert_eq!(
        app.get_as(&owner, "/en/account").await.location(),
        "/en/login?done=login"
    );
    app.finish().await;
}

async fn members_two_factor_and_audit_pages_have_the_menu(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@menu.example", "Ann", "Menu Labs").await;
    for lang in ["en", "zh"] {
        for rest in ["/members", "/account/2fa", "/audit", "/account", "/keys"] {
            let page = app.get_as(&owner, &format!("/{lang}{rest}")).await;
            assert_eq!(page.status, 200, "/{lang}{rest}");
            let nav = &page.body[page
                .body
                .find("class=\"portal-nav\"")
                .unwrap_or_else(|| panic!("/{lang}{rest} has no portal menu"))..];
            let nav = &nav[..nav.find("</nav>").unwrap_or(nav.len())];
            for link in ["/members", "/audit", "/account", "/servers"] {
                assert!(
                    nav.contains(&format!("href=\"/{lang}{link}\"")),
                    "/{lang}{rest}: {link} in the menu"
                );
            }
        }
    }
    // Members and the audit log are for owners: not in others' menus.
    let tech = app.invite(&owner, "tech@menu.example", "technical").await;
    let page = app.get_as(&tech, "/en/account").await;
    let nav = &page.body[page.body.find("class=\"portal-nav\"").unwrap_or(0)..];
    let nav = &nav[..nav.find("</nav>").unwrap_or(nav.len())];
    assert!(nav.contains("href=\"/en/account\"") && nav.contains("href=\"/en/servers\""));
    assert!(
        !nav.contains("/en/members") && !nav.contains("/en/audit"),
        "{nav}"
    );
    app.finish().await;
}

async fn every_save_says_what_it_saved(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@save.example", "Ann", "Save Labs").await;
    let tech = app.invite(&owner, "tech@save.example", "technical").await;
    let post = |page: &'static str, to: &'static str, fields: Vec<(&'static str, String)>| {
        let (app, owner) = (&app, &owner);
        async move {
            let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let done = app.post_as(owner, page, to, &fields, &[]).await;
            assert_eq!(done.status, 303, "{to}: {}", done.body);
            app.get_as(owner, done.location()).await.body
        }
    };
    // Keys, in both languages.
    let body = post(
        "/en/keys",
        "/en/keys/add",
        vec![("name", "laptop".into()), ("public_key", KEY.into())],
    )
    .await;
    assert_eq!(notice(&body), "SSH key added.");
    let id = common::hidden(&body, "id");
    let body = post("/zh/keys", "/zh/keys/delete", vec![("id", id)]).await;
    assert_eq!(notice(&body), "SSH 密钥已删除。");
    // Members.
    let body = post(
        "/en/members",
        "/en/members/invite",
        vec![
            ("email", "Bob@Save.example".into()),
            ("role", "billing".into()),
        ],
    )
    .await;
    assert_eq!(notice(&body), "Invitation sent to bob@save.example.");
    let body = post(
        "/zh/members",
        "/zh/members/invite",
        vec![
            ("email", "cat@save.example".into()),
            ("role", "technical".into()),
        ],
    )
    .await;
    assert_eq!(notice(&body), "邀请已发送至 cat@save.example。");
    let members = app.get_as(&owner, "/en/members").await.body;
    let tech_id = common::user_id_of(&members, "tech@save.example");
    let body = post(
        "/en/members",
        "/en/members/role",
        vec![("user_id", tech_id.clone()), ("role", "billing".into())],
    )
    .await;
    assert_eq!(notice(&body), "Role changed.");
    let body = post(
        "/en/members",
        "/en/members/two-factor",
        vec![("role", "optional".into())],
    )
    .await;
    assert_eq!(
        notice(&body),
        "Two-factor authentication is no longer required."
    );
    let body = post(
        "/en/members",
        "/en/members/remove",
        vec![("user_id", tech_id)],
    )
    .await;
    assert_eq!(notice(&body), "Member removed.");
    drop(tech);
    // The account page.
    let new = "silver harbour lantern";
    let body = post(
        "/zh/account",
        "/zh/account/password",
        vec![
            ("current", common::PASSWORD.into()),
            ("password", new.into()),
            ("repeat", new.into()),
        ],
    )
    .await;
    assert_eq!(notice(&body), "密码已修改，其他设备上的登录已全部退出。");
    // A forged address is not repeated.
    let page = app
        .get_as(&owner, "/en/members?done=invited&to=call%20us%20now")
        .await;
    assert_eq!(notice(&page.body), "");
    // Requiring 2FA sends this owner (without it) to enrol first; the
    // members page says what was saved once they are back.
    let page = app
        .post_as(
            &owner,
            "/zh/members",
            "/zh/members/two-factor",
            &[("role", "required")],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/zh/members?done=tfa-required");
    let other = app.member("own@save.example", "Own", "Own Ltd").await;
    let page = app.get_as(&other, "/zh/members?done=tfa-required").await;
    assert_eq!(notice(&page.body), "现在所有成员都必须启用两步验证。");
    app.finish().await;
}

async fn the_audit_log_speaks_both_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@audit.example", "Ann", "Audit Labs").await;
    app.post_as(
        &owner,
        "/en/members",
        "/en/members/invite",
        &[("email", "bob@audit.example"), ("role", "billing")],
        &[],
    )
    .await;
    let en = strip_tags(&app.get_as(&owner, "/en/audit").await.body);
    let zh = strip_tags(&app.get_as(&owner, "/zh/audit").await.body);
    // Each entry is a sentence in the reader's language.
    for (text, sentences) in [
        (
            &en,
            [
                "ann@audit.example created their account.",
                "ann@audit.example logged in.",
                "ann@audit.example invited a member",
            ],
        ),
        (
            &zh,
            [
                "ann@audit.example 创建了账户。",
                "ann@audit.example 登录成功。",
                "ann@audit.example 邀请了成员",
            ],
        ),
    ] {
        for sentence in sentences {
            assert!(text.contains(sentence), "{sentence}: {text}");
        }
        for code in ["login.succeeded", "member.invited", "account.created"] {
            assert!(!text.contains(code), "{code} shown as a code: {text}");
        }
    }

    // Filtered by what, by who and by when.
    let invited = app
        .get_as(&owner, "/en/audit?what=member.invited")
        .await
        .body;
    assert!(invited.contains("data-action=\"member.invited\""));
    assert!(!invited.contains("data-action=\"login.succeeded\""));
    assert!(
        invited.contains("<option value=\"member.invited\" selected"),
        "the filter stays chosen"
    );
    let nobody = app
        .get_as(&owner, "/en/audit?who=nobody%40audit.example")
        .await
        .body;
    assert!(nobody.contains("data-testid=\"audit-none\""));
    let later = app.get_as(&owner, "/zh/audit?from=2999-01-01").await.body;
    assert!(later.contains("没有符合条件的记录。"));
    let today = domain::time::format_date(backend::Clock::system().now());
    let dated = app
        .get_as(&owner, &format!("/en/audit?from={today}&to={today}"))
        .await
        .body;
    assert!(dated.contains("data-action=\"account.created\""), "{today}");

    // The export: the same filter, as CSV, sentences in the language asked.
    assert!(invited.contains("href=\"/en/audit/export?what=member.invited\""));
    let csv = app
        .get_as(&owner, "/zh/audit/export?what=member.invited")
        .await;
    assert_eq!(csv.status, 200);
    assert!(csv.header("content-type").starts_with("text/csv"));
    assert!(csv
        .header("content-disposition")
        .contains("audit-log-zh.csv"));
    let lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(lines[0], "time,actor,action,sentence,detail,address");
    assert_eq!(lines.len(), 2, "{}", csv.body);
    assert!(
        lines[1].contains(",member.invited,ann@audit.example 邀请了成员"),
        "{}",
        lines[1]
    );
    app.finish().await;
}

/// Nothing the CSP (script-src 'self') would refuse: every script is a
/// file of ours, or data (JSON-LD), never inline code (Leptos' resource
/// scripts are cleaned off every page).
fn no_inline_script(path: &str, body: &str) {
    for script in body.split("<script").skip(1) {
        let tag = script.split('>').next().unwrap_or_default();
        assert!(
            tag.contains("src=\"/") || tag.contains("application/ld+json"),
            "{path}: an inline script <script{}",
            &script[..script.len().min(200)]
        );
    }
}

async fn a_forbidden_page_says_not_allowed(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("ann@deny.example", "Ann", "Deny Labs").await;
    let bill = app.invite(&owner, "bill@deny.example", "billing").await;
    let tech = app.invite(&owner, "tech@deny.example", "technical").await;
    let cases = [
        (&bill, "/en/servers", "Not allowed"),
        (&bill, "/zh/servers", "无权访问"),
        (&bill, "/en/keys", "Not allowed"),
        (&bill, "/en/order", "Not allowed"),
        (&tech, "/en/billing", "Not allowed"),
        (&tech, "/zh/billing", "无权访问"),
        (&tech, "/en/members", "Not allowed"),
        (&tech, "/zh/audit", "无权访问"),
        (&owner, "/en/staff/hosts", "Not allowed"),
        (&owner, "/en/staff/audit", "Not allowed"),
        (&owner, "/zh/staff/finance", "无权访问"),
        (&owner, "/en/staff/outbox", "Not allowed"),
    ];
    for (who, path, words) in cases {
        let page = app.get_as(who, path).await;
        assert_eq!(page.status, 403, "{path}");
        assert!(page.body.contains(words), "{path}: {words}");
        for not_found in [
            "Page not found",
            "We can’t find that page",
            "找不到这个页面",
        ] {
            assert!(!page.body.contains(not_found), "{path} says {not_found}");
        }
        no_inline_script(path, &page.body);
    }
    // Not found, as a member and at an unknown language: the same.
    for path in [
        "/en/no-such-page",
        "/en/servers/not-a-server",
        "/xx/servers",
    ] {
        let page = app.get_as(&owner, path).await;
        assert_eq!(page.status, 404, "{path}");
        no_inline_script(path, &page.body);
    }
    // A refused form shows "not allowed" too, also at an address with no
    // page of its own.
    let page = app
        .post_as(
            &bill,
            "/en/account",
            "/en/keys/add",
            &[("name", "x"), ("public_key", KEY)],
            &[],
        )
        .await;
    assert_eq!(page.status, 403);
    assert!(page.body.contains("Not allowed") && !page.body.contains("Page not found"));
    app.finish().await;
}

/// Every audit action the backend records has words in both languages.
#[test]
fn every_audit_action_has_words() {
    for lang in [domain::Lang::En, domain::Lang::Zh] {
        for code in backend::audit::ACTIONS {
            assert!(
                server::pages::team::audit::action_words(lang, code).is_some(),
                "{code} has no words in {lang:?}"
            );
        }
    }
}

/// Logging in opens what the user works on (issue 33): an owner or a
/// technical member their servers, a billing member billing, staff the
/// staff home; a page asked for before logging in wins over all of them.
async fn a_login_lands_on_the_users_home(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("own@home.example", "Own", "Home Co").await;
    app.invite(&owner, "tech@home.example", "technical").await;
    app.invite(&owner, "money@home.example", "billing").await;
    // Staff: `common::staff` logs in and checks it lands on /en/staff.
    app.staff("ops@home.example").await;
    let log_in = |email: &'static str, lang: &'static str| {
        let app = &app;
        async move {
            let login = format!("/{lang}/login");
            let fields = [("email", email), ("password", common::PASSWORD)];
            let page = app
                .post_as(&app.browser(), &login, &login, &fields, &[])
                .await;
            page.location().to_owned()
        }
    };
    assert_eq!(log_in("own@home.example", "en").await, "/en/servers");
    assert_eq!(log_in("tech@home.example", "zh").await, "/zh/servers");
    assert_eq!(log_in("money@home.example", "en").await, "/en/billing");
    // Asked for a page first: that page, after the login. The login page
    // asks, in the attention style, not the success one.
    let b = app.browser();
    assert_eq!(
        app.get_as(&b, "/en/orders").await.location(),
        "/en/login?done=login"
    );
    for (lang, words) in [("en", "Please log in first."), ("zh", "请先登录。")] {
        let login = app.get(&format!("/{lang}/login?done=login")).await.body;
        assert!(
            login.contains(&format!(
                "data-testid=\"notice\" class=\"notice\">{words}</p>"
            )),
            "{login}"
        );
    }
    let page = app
        .post_as(
            &b,
            "/en/login",
            "/en/login",
            &[
                ("email", "money@home.example"),
                ("password", common::PASSWORD),
            ],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/orders");
    app.finish().await;
}

/// The names of a page's landmarks: labelled navigations and regions
/// (`aria-label`), and sections named by a heading (`aria-labelledby`).
fn landmark_names(body: &str) -> Vec<String> {
    let attr = |tag: &str, name: &str| {
        tag.split(&format!("{name}=\""))
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map(str::to_owned)
    };
    let mut names = Vec::new();
    for tag in body
        .split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or_default())
    {
        let landmark = tag.starts_with("nav ") || tag.contains("role=\"region\"");
        if landmark {
            names.extend(attr(tag, "aria-label"));
        }
        if tag.starts_with("section ") || tag.starts_with("aside ") {
            if let Some(id) = attr(tag, "aria-labelledby") {
                let heading = body
                    .split(&format!("id=\"{id}\""))
                    .nth(1)
                    .unwrap_or_default();
                let text = heading.split_once('>').map_or("", |(_, r)| r);
                names.push(common::strip_tags(
                    &text[..text.find("</").unwrap_or(text.len())],
                ));
            }
        }
    }
    names
}

/// Issue 33 (axe `landmark-unique`): a table's scroll box is named apart
/// from the section around it, on every portal page with a table, in
/// both languages; and staff pages have one menu bar, not two.
async fn no_two_landmarks_share_a_name(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("own@marks.example", "Own", "Marks Co").await;
    common::api::create_token(&app, &owner, "ci", &["read"]).await;
    let staff = app.staff("ops@marks.example").await;
    // (who, page, whether it shows a table here)
    let pages = [
        (&owner, "tokens", true),
        (&owner, "members", true),
        (&owner, "audit", true),
        (&owner, "billing", false),
        (&staff, "staff", true),
        (&staff, "staff/support", false),
    ];
    // Staff pages have one menu, the staff area's.
    for rest in [
        "staff",
        "staff/hosts",
        "staff/orders",
        "staff/finance",
        "staff/audit",
        "staff/support",
    ] {
        let body = app.get_as(&staff, &format!("/en/{rest}")).await.body;
        assert_eq!(
            body.matches("portal-nav").count(),
            1,
            "{rest}: {:?}",
            landmark_names(&body)
        );
        assert!(body.contains("staff-nav"), "{rest}");
    }
    // Inviting: each role is explained beside its choice.
    for (lang, words) in [
        (
            "en",
            "Billing: Invoices, payments, the billing profile and exports",
        ),
        ("zh", "账务：发票、付款、账单资料和导出"),
    ] {
        let members = app.get_as(&owner, &format!("/{lang}/members")).await.body;
        assert!(members.contains("aria-describedby=\"invite-role-hint\""));
        let help = members
            .split("data-testid=\"role-help\"")
            .nth(1)
            .unwrap_or_default();
        let help = common::strip_tags(&help[..help.find("</ul>").unwrap_or(0)]);
        assert!(help.contains(words), "{lang}: {help}");
    }
    // The owner's audit log keeps the portal's.
    let audit = app.get_as(&owner, "/en/audit").await.body;
    assert_eq!(audit.matches("portal-nav").count(), 1);
    assert!(!audit.contains("staff-nav"));
    for (who, rest, table) in pages {
        for lang in ["en", "zh"] {
            let body = app.get_as(who, &format!("/{lang}/{rest}")).await.body;
            let names = landmark_names(&body);
            let named_table = names
                .iter()
                .any(|n| n.starts_with("Table: ") || n.starts_with("表格："));
            assert_eq!(named_table, table, "{lang}/{rest}: {names:?}");
            let mut seen = std::collections::BTreeSet::new();
            for name in &names {
                assert!(
                    seen.insert(name),
                    "{lang}/{rest}: two landmarks named {name:?}: {names:?}"
                );
            }
        }
    }
    app.finish().await;
}
