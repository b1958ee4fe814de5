//! The storefront over HTTP: catalog facts, every section in both languages,
//! language negotiation, SEO metadata and the 404 page.

use crate::common::{strip_tags, TestApp, TestDb};

on_both_databases!(
    plans_show_the_seed_facts,
    every_section_renders_in_both_languages,
    root_negotiates_the_language,
    language_switch_keeps_the_page,
    unknown_pages_get_the_designed_404,
    seo_metadata_and_structured_data,
    sitemap_and_robots,
);

async fn plans_show_the_seed_facts(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let en = app.get("/en").await;
    assert_eq!(en.status, 200);
    let plans = [
        (
            "g-ada",
            "G-ADA",
            "Inference and light training",
            "8",
            "64 GB",
            "1 TB",
            "1 × RTX 4000 Ada · 20 GB",
            "€239.00",
        ),
        (
            "g-l40s",
            "G-L40S",
            "48 GB of VRAM, undivided",
            "16",
            "128 GB",
            "2 TB",
            "1 × L40S · 48 GB",
            "€749.00",
        ),
        (
            "g-l40s-x2",
            "G-L40S×2",
            "Two cards, one NUMA node",
            "32",
            "256 GB",
            "4 TB",
            "2 × L40S · 96 GB",
            "€1,420.00",
        ),
    ];
    for (id, name, tagline, cores, memory, nvme, gpu, price) in plans {
        let at = en
            .body
            .find(&format!("data-plan=\"{id}\""))
            .expect("plan row");
        let row = strip_tags(&en.body[at..at + en.body[at..].find("</tr>").expect("row end")]);
        for fact in [
            name,
            tagline,
            cores,
            memory,
            nvme,
            gpu,
            "40 Gbit/s",
            price,
            "/month",
        ] {
            assert!(row.contains(fact), "{id}: {fact:?} missing from {row:?}");
        }
        assert!(
            en.body
                .contains(&format!("href=\"/en/configure?plan={id}\"")),
            "{id} has a Configure link"
        );
    }
    // Only G-L40S carries the badge.
    let popular = en.body.find("class=\"popular\"").expect("a popular row");
    assert!(en.body[popular - 40..popular].contains("g-l40s\""));
    assert!(en.body.contains("Most popular"));
    assert!(en.body.contains("Prices exclude VAT where applicable."));

    let zh = app.get("/zh").await;
    for fact in [
        "最受欢迎",
        "推理与轻量训练",
        "€1,420.00",
        "/月",
        "价格不含增值税（如适用）。",
        "配置",
    ] {
        assert!(zh.body.contains(fact), "zh: {fact:?} missing");
    }
    for city in [
        "阿姆斯特丹",
        "法兰克福",
        "伦敦",
        "纽约",
        "达拉斯",
        "洛杉矶",
        "新加坡",
        "东京",
    ] {
        assert!(zh.body.contains(city), "zh: {city}");
    }
    for city in [
        "Amsterdam",
        "Frankfurt",
        "London",
        "New York",
        "Dallas",
        "Los Angeles",
        "Singapore",
        "Tokyo",
    ] {
        assert!(en.body.contains(city), "en: {city}");
    }
    app.finish().await;
}

async fn every_section_renders_in_both_languages(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let sections = [
        "hero",
        "plans",
        "latency",
        "passthrough",
        "workloads",
        "not-for",
        "host",
        "sites",
        "long-jobs",
        "failure",
        "faq",
    ];
    for (lang, html_lang, must) in [
        (
            "zh",
            "zh-CN",
            [
                "您拥有的是整张卡，而非切片",
                "谁不该购买此产品",
                "99.99%",
                "关于本产品线的问题",
            ],
        ),
        (
            "en",
            "en",
            [
                "You get the whole card, not a slice",
                "Who shouldn’t buy this",
                "99.99%",
                "Questions about this line",
            ],
        ),
    ] {
        let page = app.get(&format!("/{lang}")).await;
        assert_eq!(page.status, 200);
        assert!(page.body.starts_with("<!DOCTYPE html>"));
        assert!(page.body.contains(&format!("<html lang=\"{html_lang}\"")));
        // In the seed's order.
        let mut last = 0;
        for id in sections {
            let at = page
                .body
                .find(&format!("id=\"{id}\""))
                .unwrap_or_else(|| panic!("{lang}: section {id} missing"));
            assert!(at > last, "{lang}: section {id} out of order");
            last = at;
        }
        for text in must {
            assert!(page.body.contains(text), "{lang}: {text:?} missing");
        }
        assert_eq!(
            page.body.matches("<details").count(),
            7,
            "{lang}: seven FAQ entries"
        );
        // Five items plus the section heading.
        assert_eq!(
            page.body.matches("id=\"not-for-").count(),
            6,
            "{lang}: five who-should-not-buy items"
        );
        // Placeholders are filled and hydration markers are gone.
        assert!(
            !page.body.contains("__STOCK_READ_AT"),
            "{lang}: read time placeholder left"
        );
        assert!(!page.body.contains("<!>"), "{lang}: hydration marker left");
        assert!(
            page.body.contains("<time datetime=\"20"),
            "{lang}: read time shown"
        );
        // No script runs on the storefront.
        assert!(!page.body.contains("<script>") && !page.body.contains("type=\"module\""));
    }
    app.finish().await;
}

async fn root_negotiates_the_language(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let cases: [(&[(&str, &str)], &str); 6] = [
        (&[], "/zh"),
        (&[("accept-language", "en-GB,en;q=0.9")], "/en"),
        (&[("accept-language", "de-DE,zh-CN;q=0.8,en;q=0.5")], "/zh"),
        (&[("accept-language", "fr-FR")], "/zh"),
        (&[("cookie", "lang=en")], "/en"),
        (&[("cookie", "lang=zh"), ("accept-language", "en")], "/zh"),
    ];
    for (headers, expected) in cases {
        let page = app.get_with("/", headers).await;
        assert_eq!(page.status, 303, "{headers:?}");
        assert_eq!(page.headers["location"], expected, "{headers:?}");
        assert!(page.headers["vary"]
            .to_str()
            .unwrap_or("")
            .contains("Accept-Language"));
    }
    // Viewing a page remembers its language.
    let page = app.get("/en").await;
    let cookie = page.headers["set-cookie"].to_str().unwrap_or_default();
    assert!(
        cookie.starts_with("lang=en;") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    assert!(!app
        .get_with("/en", &[("cookie", "lang=en")])
        .await
        .headers
        .contains_key("set-cookie"));
    // The trailing-slash form is the same page.
    let page = app.get("/en/").await;
    assert_eq!(
        (
            page.status,
            page.headers["location"].to_str().unwrap_or_default()
        ),
        (308, "/en")
    );
    app.finish().await;
}

async fn language_switch_keeps_the_page(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.get("/en/configure?plan=g-ada&site=fra").await;
    assert!(page
        .body
        .contains("href=\"/zh/configure?plan=g-ada&amp;site=fra\" hreflang=\"zh-CN\""));
    let page = app.get("/zh").await;
    assert!(page
        .body
        .contains("href=\"/en\" hreflang=\"en\" lang=\"en\""));
    // The latency city chosen on the home page survives the switch.
    let page = app.get("/en?city=Tokyo").await;
    assert!(page
        .body
        .contains("href=\"/zh?city=Tokyo\" hreflang=\"zh-CN\""));
    app.finish().await;
}

async fn unknown_pages_get_the_designed_404(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for (path, heading) in [
        ("/en/no-such-page", "We can’t find that page"),
        ("/zh/no-such-page", "找不到这个页面"),
        ("/xx", "找不到这个页面"),
        ("/nothing/here", "找不到这个页面"),
    ] {
        let page = app.get(path).await;
        assert_eq!(page.status, 404, "{path}");
        assert!(page.body.contains(heading), "{path}: {heading:?} missing");
        assert!(page.body.contains("noindex"), "{path}");
    }
    let page = app
        .get_with("/nothing/here", &[("accept-language", "en")])
        .await;
    assert!(page.body.contains("We can’t find that page"));
    app.finish().await;
}

async fn seo_metadata_and_structured_data(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let en = app.get("/en").await;
    for tag in [
        "<link href=\"https://gpu.example.com/en\" rel=\"canonical\">",
        "<link href=\"https://gpu.example.com/zh\" hreflang=\"zh-CN\" rel=\"alternate\">",
        "<link href=\"https://gpu.example.com/en\" hreflang=\"en\" rel=\"alternate\">",
        "<link href=\"https://gpu.example.com/\" hreflang=\"x-default\" rel=\"alternate\">",
        "<title>Dedicated GPU servers",
        "<meta name=\"description\" content=\"A whole RTX 4000 Ada",
    ] {
        assert!(en.body.contains(tag), "{tag}");
    }
    let zh = app.get("/zh").await;
    assert!(zh.body.contains("<title>整卡 GPU 独立服务器"));
    let ld = en
        .body
        .split("<script type=\"application/ld+json\">")
        .nth(1)
        .expect("JSON-LD");
    let ld: serde_json::Value =
        serde_json::from_str(ld.split("</script>").next().unwrap_or_default())
            .expect("valid JSON-LD");
    let products = ld.as_array().expect("a list of products");
    assert_eq!(products.len(), 3);
    assert_eq!(products[1]["name"], "G-L40S");
    assert_eq!(products[1]["offers"]["price"], "749.00");
    assert_eq!(products[1]["offers"]["priceCurrency"], "EUR");
    assert_eq!(
        products[1]["offers"]["availability"],
        "https://schema.org/InStock"
    );
    app.finish().await;
}

async fn sitemap_and_robots(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let sitemap = app.get("/sitemap.xml").await;
    assert_eq!(sitemap.status, 200);
    assert!(sitemap.headers["content-type"]
        .to_str()
        .unwrap_or_default()
        .starts_with("application/xml"));
    for loc in [
        "<loc>https://gpu.example.com/zh</loc>",
        "<loc>https://gpu.example.com/en</loc>",
        "<loc>https://gpu.example.com/en/configure?plan=g-l40s-x2</loc>",
        "hreflang=\"x-default\" href=\"https://gpu.example.com/\"",
    ] {
        assert!(sitemap.body.contains(loc), "{loc}");
    }
    let robots = app.get("/robots.txt").await;
    assert!(robots
        .body
        .contains("Sitemap: https://gpu.example.com/sitemap.xml"));
    app.finish().await;
}
