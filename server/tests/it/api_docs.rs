//! The API's documentation page (issue 14): both languages, every section
//! and worked example, the contract's error codes and scopes, no script,
//! served from the storefront cache, linked from the footer and the
//! sitemap.

use crate::common::{strip_tags, TestApp, TestDb};

on_both_databases!(
    api_docs_explain_the_api_in_both_languages,
    chinese_api_docs_are_chinese,
    api_docs_are_a_cached_storefront_page,
    api_docs_are_linked_from_footer_support_and_sitemap,
);

/// The sections, each in the table of contents.
const SECTIONS: [&str; 11] = [
    "overview",
    "authentication",
    "scopes",
    "errors",
    "idempotency",
    "pagination",
    "rate-limits",
    "stock",
    "long-running",
    "examples",
    "endpoints",
];

const EXAMPLE_ANCHORS: [&str; 3] = ["order-and-wait", "snapshot-before-upgrade", "watch-stock"];

/// What each worked example must show: the calls and the values it uses.
const EXAMPLES: [&str; 12] = [
    // Order a G-L40S in Frankfurt and poll it until it runs.
    "-X POST \"$API/orders\"",
    "Idempotency-Key: $KEY",
    "\"plan\": \"g-l40s\", \"site\": \"fra\"",
    "api \"$API/servers/$SERVER\"",
    "running) break",
    // Snapshot before a driver upgrade, restore if it broke.
    "\"name\": \"before-driver-upgrade\"",
    "ready*) return",
    "/snapshots/$SNAP/restore",
    // Watch stock: ETag kept between runs, the feed, a stock alert.
    "If-None-Match: $ETAG",
    "https://gpu.example.com/api/v1/stock?plan=g-l40s&amp;site=fra",
    "https://gpu.example.com/api/v1/stock/feed.atom?plan=g-l40s&amp;site=fra",
    "-X POST \"$API/stock-alerts\"",
];

async fn api_docs_explain_the_api_in_both_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for (lang, words) in [
        (
            "en",
            [
                "Authentication",
                "shown once",
                "Accept-Language",
                "300 requests per 60-second window",
            ],
        ),
        (
            "zh",
            [
                "身份验证",
                "只在创建时显示一次",
                "Accept-Language",
                "最多可发送 300 个请求",
            ],
        ),
    ] {
        let path = format!("/{lang}/docs/api");
        let page = app.get(&path).await;
        assert_eq!(page.status, 200, "{path}");
        let body = &page.body;
        assert!(!body.contains("<script"), "{path} loads a script");
        assert!(!body.contains(".wasm"), "{path}");
        for anchor in SECTIONS {
            assert!(
                body.contains(&format!("id=\"{anchor}\"")),
                "{path} lacks #{anchor}"
            );
            assert!(
                body.contains(&format!("href=\"#{anchor}\"")),
                "{path}: #{anchor} not in the contents"
            );
        }
        for anchor in EXAMPLE_ANCHORS {
            assert!(
                body.contains(&format!("id=\"{anchor}\"")),
                "{path} lacks #{anchor}"
            );
        }
        // Every code the API answers has its row, the target of `type`.
        for problem in server::http::api::Problem::ALL {
            let (code, status) = (problem.code(), problem.status().as_u16());
            assert!(
                body.contains(&format!("<tr id=\"error-{code}\"><td>{status}</td>")),
                "{path} lacks the row of {code} ({status})"
            );
        }
        for status in [
            "400", "401", "403", "404", "405", "409", "413", "415", "422", "429", "500", "503",
        ] {
            assert!(
                body.contains(&format!("<td>{status}</td>")),
                "{path} lacks {status}"
            );
        }
        for scope in ["read", "servers:write", "billing:read"] {
            assert!(
                body.contains(&format!("<code>{scope}</code>")),
                "{path} lacks {scope}"
            );
        }
        for call in EXAMPLES {
            assert!(
                body.contains(&call.replace('"', "&quot;")) || body.contains(call),
                "{path} lacks {call}"
            );
        }
        // The base address is the configured one; the tokens page and the
        // OpenAPI document are linked.
        assert!(body.contains("https://gpu.example.com/api/v1"), "{path}");
        assert!(body.contains("href=\"/api/v1/openapi.json\""), "{path}");
        assert!(body.contains(&format!("href=\"/{lang}/tokens\"")), "{path}");
        assert!(body.contains(&format!("Accept-Language: {lang}")), "{path}");
        // Every endpoint of the contract has its row, and no row names
        // one that does not exist.
        let rows: Vec<(String, String)> = body
            .split("<tr><td><code>")
            .skip(1)
            .filter_map(|row| {
                let (method, rest) = row.split_once("</code>")?;
                let path = rest.split("<code>").nth(1)?.split("</code>").next()?;
                Some((method.to_owned(), format!("/api/v1{path}")))
            })
            .collect();
        for (method, route, _) in server::http::api::inventory() {
            assert!(
                rows.contains(&(method.clone(), route.clone())),
                "{path} has no row for {method} {route}"
            );
        }
        assert_eq!(
            rows.len(),
            server::http::api::inventory().len(),
            "{path}: {rows:?}"
        );
        let text = strip_tags(body);
        for word in words {
            assert!(text.contains(word), "{path} lacks {word}");
        }
    }
    app.finish().await;
}

async fn chinese_api_docs_are_chinese(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let text = strip_tags(&app.get("/zh/docs/api").await.body);
    for heading in [
        "概览",
        "身份验证",
        "权限范围",
        "幂等性",
        "分页",
        "速率限制",
        "库存与缓存",
        "耗时较长的操作",
        "订购一台服务器并等待其就绪",
        "升级驱动前先做快照",
        "关注法兰克福 G-L40S 的库存",
        "接口列表",
        "任何请求失败即停止。",
    ] {
        assert!(text.contains(heading), "/zh/docs/api lacks {heading}");
    }
    // Prose and code comments from the English page must not leak.
    for english in [
        "On this page",
        "Every error has the same shape",
        "is shown once",
        "Stop at the first failed request",
        "Print the step and progress",
        "What it allows",
        "none (public)",
        "Owners, technical members",
    ] {
        assert!(
            !text.contains(english),
            "/zh/docs/api still says {english:?}"
        );
    }
    app.finish().await;
}

async fn api_docs_are_a_cached_storefront_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let hits = |metrics: &str| -> u64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("gpu_storefront_page_cache_total{result=\"hit\"} "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0)
    };
    let first = app.get("/en/docs/api").await;
    let before = hits(&app.get("/metrics").await.body);
    let second = app.get("/en/docs/api").await;
    let after = hits(&app.get("/metrics").await.body);
    assert_eq!(after, before + 1, "the second request was not a cache hit");
    assert_eq!(first.body, second.body);
    // Storefront answers are revalidated, never `no-store` like the portal's.
    assert_eq!(second.headers["cache-control"], "no-cache");
    app.finish().await;
}

async fn api_docs_are_linked_from_footer_support_and_sitemap(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for (lang, name) in [("en", "API"), ("zh", "API 文档")] {
        let home = app.get(&format!("/{lang}")).await.body;
        let footer = &home[home.find("<footer").expect("a footer")..];
        let link = format!("<a href=\"/{lang}/docs/api\">{name}</a>");
        assert!(footer.contains(&link), "{lang}: {footer}");
        let support = app.get(&format!("/{lang}/support")).await.body;
        let main = &support[..support.find("<footer").expect("a footer")];
        assert!(
            main.contains(&format!("href=\"/{lang}/docs/api\"")),
            "{lang} support page"
        );
    }
    let sitemap = app.get("/sitemap.xml").await.body;
    for lang in ["zh", "en"] {
        let entry = format!("<loc>https://gpu.example.com/{lang}/docs/api</loc>");
        assert!(sitemap.contains(&entry), "{entry} missing");
    }
    app.finish().await;
}
