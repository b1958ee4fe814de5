//! The frame of every page (issue 16): the header's way into the account,
//! the footer's support, terms, privacy and imprint pages with the company
//! from configuration, the sitemap, the login page for signed-in visitors,
//! and the latency table's country names.

use crate::common::{strip_tags, TestApp, TestDb};

on_both_databases!(
    storefront_header_is_the_same_for_everyone,
    portal_pages_keep_the_signed_in_header,
    every_page_links_the_footer_pages,
    footer_pages_show_the_configured_company_in_both_languages,
    sitemap_lists_the_footer_pages_with_alternates,
    login_sends_a_signed_in_visitor_to_the_account,
    latency_table_names_countries_and_regions,
);

/// The header, from its opening tag to its end.
fn header(body: &str) -> &str {
    let start = body.find("<header").expect("a header");
    let end = body[start..].find("</header>").expect("the header's end");
    &body[start..start + end]
}

fn footer(body: &str) -> &str {
    let start = body.find("<footer").expect("a footer");
    &body[start..]
}

fn assert_anonymous_header(body: &str, lang: &str, log_in: &str, sign_up: &str) {
    let header = header(body);
    let links = &header[header.find("account-links").expect("sign-in links")..];
    assert!(
        links.contains(&format!("href=\"/{lang}/login\"")),
        "{header}"
    );
    assert!(
        links.contains(&format!("href=\"/{lang}/signup\"")),
        "{header}"
    );
    let words = strip_tags(links);
    assert!(
        words.contains(log_in) && words.contains(sign_up),
        "{header}"
    );
    assert!(!header.contains("account-menu"), "{header}");
    assert!(!header.contains("header-email"), "{header}");
    // "控制台" also names the server console: the header no longer says it.
    assert!(
        !header.contains("控制台") && !header.contains(">Portal<"),
        "{header}"
    );
}

async fn storefront_header_is_the_same_for_everyone(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let member = app.member("ann@a.example", "Ann", "Org A").await;
    // A signed-in visitor gets the cached, anonymous page first...
    let theirs = app.get_as(&member, "/en").await;
    assert_eq!(theirs.status, 200);
    assert_anonymous_header(&theirs.body, "en", "Log in", "Sign up");
    assert!(!theirs.body.contains("ann@a.example"));
    // ...and the next visitor's copy shows nothing of them either.
    let anonymous = app.get("/en").await;
    assert_anonymous_header(&anonymous.body, "en", "Log in", "Sign up");
    assert!(!anonymous.body.contains("ann@a.example"));
    assert!(!anonymous.body.contains("Org A"));
    let zh = app.get("/zh").await;
    assert_anonymous_header(&zh.body, "zh", "登录", "注册");
    let configure = app.get_as(&member, "/zh/configure?plan=g-ada").await;
    assert_anonymous_header(&configure.body, "zh", "登录", "注册");

    // The language switch is named by its visible text (WCAG 2.5.3).
    let switch = header(&anonymous.body)
        .split("<a")
        .find(|a| a.contains("data-testid=\"lang-switch\""))
        .and_then(|a| a.split("</a>").next())
        .expect("the language switch");
    assert!(!switch.contains("aria-label"), "{switch}");
    assert!(switch.ends_with(">中文"), "{switch}");
    app.finish().await;
}

async fn portal_pages_keep_the_signed_in_header(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let member = app.member("ann@a.example", "Ann", "Org A").await;
    let account = app.get_as(&member, "/en/account").await;
    assert_eq!(account.status, 200);
    let h = header(&account.body);
    assert!(
        h.contains("data-testid=\"header-email\">ann@a.example"),
        "{h}"
    );
    assert!(!h.contains("account-links"), "{h}");
    // Signed out, a portal page such as the login page offers both links.
    let login = app.get("/zh/login").await;
    assert_anonymous_header(&login.body, "zh", "登录", "注册");
    app.finish().await;
}

async fn every_page_links_the_footer_pages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let member = app.member("ann@a.example", "Ann", "Org A").await;
    for (lang, path) in [
        ("en", "/en"),
        ("zh", "/zh"),
        ("en", "/en/configure?plan=g-ada"),
        ("zh", "/zh/terms"),
        ("en", "/en/signup"),
        ("en", "/en/account"),
        ("zh", "/zh/servers"),
        ("en", "/en/no-such-page"),
    ] {
        let page = app.get_as(&member, path).await;
        assert!(page.body.contains("<footer"), "{path}: {}", page.status);
        let footer = footer(&page.body);
        for rest in ["/support", "/terms", "/privacy", "/imprint"] {
            assert!(
                footer.contains(&format!("href=\"/{lang}{rest}\"")),
                "{path} has no footer link to {rest}: {footer}"
            );
        }
    }
    let footer_text = strip_tags(footer(&app.get("/zh").await.body));
    for word in ["支持", "服务条款", "隐私政策", "公司信息"] {
        assert!(footer_text.contains(word), "{footer_text}");
    }
    app.finish().await;
}

async fn footer_pages_show_the_configured_company_in_both_languages(db: TestDb) {
    let app = TestApp::spawn_configured(db, backend::Clock::system(), |c| {
        c.seller_name = "Nordlicht Compute GmbH".to_owned();
        c.seller_address = "Torstraße 1, 10119 Berlin, Germany".to_owned();
        c.seller_register = "Amtsgericht Charlottenburg HRB 123456".to_owned();
        c.seller_vat_id = "DE123456789".to_owned();
        c.support_email = "help@nordlicht.example".to_owned();
    })
    .await;
    let company = [
        "Nordlicht Compute GmbH",
        "Torstraße 1, 10119 Berlin, Germany",
        "Amtsgericht Charlottenburg HRB 123456",
        "DE123456789",
        "help@nordlicht.example",
    ];
    let pages: [(&str, &[&str]); 8] = [
        ("/en/imprint", &["Imprint", "VAT ID", "Register"]),
        ("/zh/imprint", &["公司信息", "增值税号", "商业登记"]),
        (
            "/en/support",
            &[
                "What to include",
                "server’s id",
                "Your servers and their status",
            ],
        ),
        (
            "/zh/support",
            &["邮件中请写明", "服务器的 ID", "我的服务器及其状态"],
        ),
        (
            "/en/terms",
            &[
                "Nordlicht Compute GmbH",
                "one month",
                "250 TB",
                "erased",
                "99.99%",
                "25%",
            ],
        ),
        (
            "/zh/terms",
            &[
                "Nordlicht Compute GmbH",
                "一个月",
                "250 TB",
                "擦除",
                "合理使用",
                "25%",
            ],
        ),
        (
            "/en/privacy",
            &[
                "Nordlicht Compute GmbH",
                "Stripe",
                "audit log",
                "“lang”",
                "“session”",
                "help@nordlicht.example",
            ],
        ),
        (
            "/zh/privacy",
            &[
                "Nordlicht Compute GmbH",
                "Stripe",
                "审计日志",
                "遥测",
                "“lang”",
                "help@nordlicht.example",
            ],
        ),
    ];
    for (path, words) in pages {
        let page = app.get(path).await;
        assert_eq!(page.status, 200, "{path}");
        assert!(!page.body.contains("<script"), "{path} loads a script");
        let lang = &path[1..3];
        assert!(page.body.contains(&format!(
            "<html lang=\"{}",
            if lang == "zh" { "zh" } else { "en" }
        )));
        let text = strip_tags(&page.body);
        for word in words {
            assert!(text.contains(word), "{path} lacks {word}: {text}");
        }
        assert!(!text.to_lowercase().contains("lorem"), "{path}");
        if path.ends_with("/imprint") {
            for detail in company {
                assert!(text.contains(detail), "{path} lacks {detail}");
            }
            assert!(!text.contains("Example GPU Hosting"), "{path}");
        }
        if path.ends_with("/support") {
            assert!(page.body.contains("href=\"mailto:help@nordlicht.example\""));
            assert!(page.body.contains(&format!("href=\"/{lang}/servers\"")));
        }
    }
    app.finish().await;
}

async fn sitemap_lists_the_footer_pages_with_alternates(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let sitemap = app.get("/sitemap.xml").await.body;
    for rest in ["/support", "/terms", "/privacy", "/imprint"] {
        for lang in ["zh", "en"] {
            let entry = format!("<url><loc>https://gpu.example.com/{lang}{rest}</loc>");
            let at = sitemap
                .find(&entry)
                .unwrap_or_else(|| panic!("{entry} missing"));
            let url = &sitemap[at..at + sitemap[at..].find("</url>").expect("entry end")];
            for (hreflang, href) in [("zh-CN", "zh"), ("en", "en"), ("x-default", "zh")] {
                let link = format!(
                    "hreflang=\"{hreflang}\" href=\"https://gpu.example.com/{href}{rest}\""
                );
                assert!(url.contains(&link), "{url} lacks {link}");
            }
        }
    }
    app.finish().await;
}

async fn login_sends_a_signed_in_visitor_to_the_account(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let anonymous = app.get("/en/login").await;
    assert_eq!(anonymous.status, 200);
    assert!(anonymous.body.contains("action=\"/en/login\""));
    let member = app.member("ann@a.example", "Ann", "Org A").await;
    for lang in ["en", "zh"] {
        let page = app.get_as(&member, &format!("/{lang}/login")).await;
        assert_eq!(page.status, 303, "{lang}");
        assert_eq!(page.location(), format!("/{lang}/account"));
    }
    app.finish().await;
}

async fn latency_table_names_countries_and_regions(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for (path, names) in [
        (
            "/zh",
            [
                ("HK", "中国香港"),
                ("TW", "中国台湾"),
                ("CN", "中国内地"),
                ("DE", "德国"),
            ],
        ),
        (
            "/en",
            [
                ("HK", "Hong Kong"),
                ("TW", "Taiwan"),
                ("CN", "Mainland China"),
                ("DE", "Germany"),
            ],
        ),
    ] {
        let body = app.get(path).await.body;
        for (code, name) in names {
            let needle = format!("data-country=\"{code}\">");
            let at = body
                .find(&needle)
                .unwrap_or_else(|| panic!("{path}: no {code} row"))
                + needle.len();
            let cell = strip_tags(&body[at..at + body[at..].find("</td>").expect("cell end")]);
            assert_eq!(cell.trim(), name, "{path} {code}");
        }
    }
    app.finish().await;
}
