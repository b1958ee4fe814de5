//! The public API's catalog: plans, latency, stock (the storefront's own,
//! to the request, with ETags a poller revalidates cheaply), the Atom feed
//! of stock changes, and the error shape of unknown paths and methods.

use crate::common::{stock_cell, Page, TestApp, TestDb};
use serde_json::Value;

on_both_databases!(
    plans_and_latency_are_the_storefronts,
    stock_is_the_storefronts_on_every_request,
    stock_etags_revalidate_and_follow_changes,
    the_feed_lists_stock_changes,
    unknown_paths_and_methods_answer_json,
);

fn json(page: &Page) -> Value {
    serde_json::from_str(&page.body).unwrap_or_else(|e| panic!("{e}: {}", page.body))
}

fn header<'a>(page: &'a Page, name: &str) -> &'a str {
    page.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// `€1,420.00`, as the storefront prints prices.
fn euros(cents: i64) -> String {
    let units = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in units.chars().enumerate() {
        if i > 0 && (units.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("€{grouped}.{:02}", cents % 100)
}

/// `(plan, site) → (level, band)` of a stock answer.
fn rows(page: &Page) -> Vec<(String, String, String, String)> {
    json(page)["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
            (s("plan"), s("site"), s("level"), s("band"))
        })
        .collect()
}

async fn plans_and_latency_are_the_storefronts(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.get("/api/v1/plans").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(header(&page, "content-type").starts_with("application/json"));
    assert_eq!(header(&page, "cache-control"), "public, max-age=60");
    let etag = header(&page, "etag").to_owned();
    assert!(etag.starts_with("W/\""), "{etag}");
    let plans = json(&page)["data"].as_array().expect("data").clone();
    let ids: Vec<&str> = plans.iter().filter_map(|p| p["id"].as_str()).collect();
    assert_eq!(ids, ["g-ada", "g-l40s", "g-l40s-x2"]);
    let l40s = &plans[1];
    assert_eq!(l40s["price_cents"], 74900);
    assert_eq!(l40s["currency"], "EUR");
    assert_eq!(l40s["gpu"], "L40S");
    assert_eq!(plans[2]["vram_gb"], 96);
    // Every plan the storefront sells, at the price it shows.
    let storefront = app.get("/en").await.body;
    for plan in &plans {
        let name = plan["name"].as_str().unwrap_or_default();
        let price = euros(plan["price_cents"].as_i64().unwrap_or_default());
        assert!(storefront.contains(name), "{name}");
        assert!(storefront.contains(&price), "{name} at {price}");
    }
    let again = app
        .get_with("/api/v1/plans", &[("if-none-match", &etag)])
        .await;
    assert_eq!(again.status, 304);

    let page = app.get("/api/v1/latency").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(header(&page, "cache-control"), "public, max-age=60");
    assert!(header(&page, "etag").starts_with("W/\""));
    for row in json(&page)["data"].as_array().expect("data") {
        assert!(row["site"].as_str().is_some_and(|s| s.len() == 3), "{row}");
        assert!(row["median_ms"].as_f64().is_some(), "{row}");
        assert!(row["city"]["en"].is_string() && row["city"]["zh"].is_string());
    }
    app.finish().await;
}

async fn stock_is_the_storefronts_on_every_request(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.get("/api/v1/stock").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let all = rows(&page);
    // Every plan × site of the catalog, sold-out ones included.
    assert_eq!(all.len(), 3 * 8, "{all:?}");
    let storefront = app.get("/en").await.body;
    for (plan, site, level, _) in &all {
        assert_eq!(
            stock_cell(&storefront, site, plan),
            level.replace('_', "-"),
            "{plan} at {site}"
        );
    }
    // Demo inventory: four free G-L40S×2 in Frankfurt. Each change shows
    // on the next request, in the API and on the storefront alike.
    let path = "/api/v1/stock?plan=g-l40s-x2&site=fra";
    let one = |page: &Page| rows(page).remove(0);
    let first = one(&app.get(path).await);
    assert_eq!((first.2.as_str(), first.3.as_str()), ("in_stock", "3-9"));
    let expected = [
        ("few", "2", "few"),
        ("few", "1", "few"),
        ("sold_out", "0", "sold-out"),
    ];
    let free = app.host_names("fra", "g-l40s-x2", "free");
    app.ops_ok(&["hosts", "set", &free[0], "maintenance", "--reason", "test"]);
    for (host, (level, band, cell)) in free[1..].iter().zip(expected) {
        app.ops_ok(&["hosts", "set", host, "maintenance", "--reason", "test"]);
        let row = one(&app.get(path).await);
        assert_eq!((row.2.as_str(), row.3.as_str()), (level, band));
        let storefront = app.get("/en").await.body;
        assert_eq!(stock_cell(&storefront, "fra", "g-l40s-x2"), cell);
    }
    // Racking ten hosts: a band, never the count.
    app.rack("fra", "g-l40s-x2", 10);
    let row = one(&app.get(path).await);
    assert_eq!((row.2.as_str(), row.3.as_str()), ("in_stock", "10+"));
    app.finish().await;
}

async fn stock_etags_revalidate_and_follow_changes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.get("/api/v1/stock").await;
    assert_eq!(header(&page, "cache-control"), "public, max-age=10");
    assert!(header(&page, "vary").contains("accept-encoding"));
    let etag = header(&page, "etag").to_owned();
    assert!(etag.starts_with("W/\""), "{etag}");
    let as_of = json(&page)["as_of"].as_str().unwrap_or_default().to_owned();
    assert!(domain::time::parse_utc(&as_of).is_some(), "{as_of}");

    // The same stock: 304, no body, the validator again.
    for sent in [etag.clone(), format!("\"nope\", {etag}"), "*".to_owned()] {
        let page = app
            .get_with("/api/v1/stock", &[("if-none-match", &sent)])
            .await;
        assert_eq!(page.status, 304, "{sent}");
        assert_eq!(page.body, "");
        assert_eq!(header(&page, "etag"), etag);
    }
    // Filters have their own ETags; unknown values are 404s.
    let fra = app.get("/api/v1/stock?site=fra").await;
    assert_eq!(rows(&fra).len(), 3);
    assert_ne!(header(&fra, "etag"), etag);
    let one = app.get("/api/v1/stock?site=fra&plan=g-ada").await;
    assert_eq!(rows(&one).len(), 1);
    for path in [
        "/api/v1/stock?plan=nope",
        "/api/v1/stock?plan=g-ada&site=zzz",
    ] {
        let page = app.get(path).await;
        assert_eq!(page.status, 404, "{path}");
        assert_eq!(json(&page)["code"], "not_found");
    }

    // Another replica on the same database: the same ETag.
    let replica = app.replica(backend::Clock::system(), |_| {}).await;
    let other = app
        .client
        .get(format!("{replica}/api/v1/stock"))
        .send()
        .await
        .expect("the replica answers");
    assert_eq!(
        other.headers().get("etag").and_then(|v| v.to_str().ok()),
        Some(etag.as_str())
    );

    // Four free become three: the same band, the same ETag. Two: changed,
    // the old ETag no longer matches.
    let hosts = app.host_names("fra", "g-l40s-x2", "free");
    app.ops_ok(&["hosts", "set", &hosts[0], "maintenance", "--reason", "test"]);
    let page = app
        .get_with("/api/v1/stock", &[("if-none-match", &etag)])
        .await;
    assert_eq!(page.status, 304);
    app.ops_ok(&["hosts", "set", &hosts[1], "maintenance", "--reason", "test"]);
    let page = app
        .get_with("/api/v1/stock", &[("if-none-match", &etag)])
        .await;
    assert_eq!(page.status, 200);
    let changed = header(&page, "etag").to_owned();
    assert_ne!(changed, etag);
    // Frankfurt's G-ADA did not change: its ETag stays.
    let page = app
        .get_with(
            "/api/v1/stock?site=fra&plan=g-ada",
            &[("if-none-match", header(&one, "etag"))],
        )
        .await;
    assert_eq!(page.status, 304);
    app.finish().await;
}

async fn the_feed_lists_stock_changes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    // The worker records the initial state, then each change.
    app.after_housekeeping().await;
    let hosts = app.host_names("fra", "g-l40s-x2", "free");
    app.ops_ok(&["hosts", "set", &hosts[0], "maintenance", "--reason", "test"]);
    app.ops_ok(&["hosts", "set", &hosts[1], "maintenance", "--reason", "test"]);
    app.after_housekeeping().await;

    let path = "/api/v1/stock/feed.atom?plan=g-l40s-x2&site=fra";
    let page = app.get(path).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(header(&page, "content-type").starts_with("application/atom+xml"));
    assert_eq!(header(&page, "cache-control"), "public, max-age=60");
    let feed = &page.body;
    assert!(feed.starts_with("<?xml"), "{feed}");
    assert!(feed.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\""));
    // Newest first: now two left, before that in stock.
    let titles: Vec<&str> = feed
        .split("<title>")
        .skip(2)
        .filter_map(|t| t.split("</title>").next())
        .collect();
    assert_eq!(
        titles,
        [
            "G-L40S×2 · Frankfurt: few (2 left)",
            "G-L40S×2 · Frankfurt: in stock (3–9)"
        ],
        "{feed}"
    );
    assert!(feed.contains("<id>urn:uuid:"));
    // Links are escaped: `&` in an attribute is `&amp;`.
    assert!(
        feed.contains("href=\"https://gpu.example.com/en/configure?plan=g-l40s-x2&amp;site=fra\"")
    );
    assert!(!feed.contains("&site="));
    let updated = feed
        .split("<updated>")
        .nth(1)
        .and_then(|u| u.split("</updated>").next())
        .unwrap_or_default();
    let newest_entry = feed
        .split("<entry>")
        .nth(1)
        .and_then(|e| e.split("<updated>").nth(1))
        .and_then(|u| u.split("</updated>").next())
        .unwrap_or_default();
    assert_eq!(updated, newest_entry);

    let zh = app
        .get_with(path, &[("accept-language", "zh-CN,zh;q=0.9")])
        .await;
    assert!(
        zh.body.contains("G-L40S×2 · 法兰克福：仅剩 2 台"),
        "{}",
        zh.body
    );
    assert!(zh
        .body
        .contains("/zh/configure?plan=g-l40s-x2&amp;site=fra"));
    let by_query = app.get(&format!("{path}&lang=zh")).await;
    assert_eq!(by_query.body, zh.body);
    assert_ne!(header(&zh, "etag"), header(&page, "etag"));

    let again = app
        .get_with(path, &[("if-none-match", header(&page, "etag"))])
        .await;
    assert_eq!(again.status, 304);
    assert_eq!(again.body, "");
    // The unfiltered feed has every combination's first state too.
    let all = app.get("/api/v1/stock/feed.atom").await.body;
    assert_eq!(all.matches("<entry>").count(), 3 * 8 + 1, "{all}");
    let unknown = app.get("/api/v1/stock/feed.atom?site=zzz").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(json(&unknown)["code"], "not_found");
    app.finish().await;
}

async fn unknown_paths_and_methods_answer_json(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.get("/api/v1/nope").await;
    assert_eq!(page.status, 404);
    assert_eq!(json(&page)["code"], "not_found");
    assert_eq!(json(&page)["title"], "No such resource.");

    let deleted = app
        .client
        .delete(format!("{}/api/v1/stock", app.base))
        .send()
        .await
        .expect("sending the request");
    assert_eq!(deleted.status().as_u16(), 405);
    let body: Value = deleted.json().await.expect("a JSON error");
    assert_eq!(body["code"], "method_not_allowed");

    let page = app
        .get_with("/api/v1/nope", &[("accept-language", "zh-CN,zh;q=0.9")])
        .await;
    assert_eq!(json(&page)["title"], "没有找到该资源。");
    app.finish().await;
}
