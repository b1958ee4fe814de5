//! The live quotes (issue 16): the configurator and the order page carry
//! their island and its loader; the server functions answer the same
//! summary the page shows (exact stock, VAT of the caller's billing
//! profile, both languages), only to same-origin callers (and the order
//! quote only to roles that may order); pages without an island still load
//! no script.

use crate::common::{server_id, TestApp, TestDb};

on_both_databases!(
    quote_matches_the_page_and_follows_stock,
    quote_refuses_cross_site_callers,
    only_the_configurator_loads_the_islands,
    order_quote_prices_for_the_callers_organization,
    a_busy_server_page_carries_the_progress_island,
);

const ORIGIN: &str = "https://gpu.example.com";

/// Calls the quote server function as the island does (a same-origin
/// `fetch` POST); answers (status, summary HTML, site options HTML).
async fn quote(app: &TestApp, lang: &str, plan: &str, site: &str) -> (u16, String, String) {
    let response = app
        .client
        .post(format!("{}/api/quote", app.base))
        .header("origin", ORIGIN)
        .header("sec-fetch-site", "same-origin")
        .form(&[("lang", lang), ("plan", plan), ("site", site)])
        .send()
        .await
        .expect("calling the quote");
    let status = response.status().as_u16();
    let text = response.text().await.expect("reading the quote");
    if status != 200 {
        return (status, text, String::new());
    }
    let json: serde_json::Value = serde_json::from_str(&text).expect("a JSON quote");
    (
        status,
        json["summary"].as_str().unwrap_or_default().to_owned(),
        json["site_options"].as_str().unwrap_or_default().to_owned(),
    )
}

/// The summary block's text, without Leptos' markers and tags.
fn words(html: &str) -> String {
    crate::common::strip_tags(&html.replace("<!>", ""))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The page's summary block: from `id="configure-summary"` to the stock
/// read-at line that follows the island.
fn page_summary(body: &str) -> String {
    let start = body
        .find("<div id=\"configure-summary\"")
        .expect("a summary");
    let end = body[start..]
        .find("</leptos-island>")
        .expect("the island's end");
    body[start..start + end].to_owned()
}

async fn quote_matches_the_page_and_follows_stock(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for (lang, code) in [("en", "En"), ("zh", "Zh")] {
        let page = app
            .get(&format!("/{lang}/configure?plan=g-l40s-x2&site=fra"))
            .await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("<leptos-island"), "{}", page.body);
        assert!(page
            .body
            .contains("<script type=\"module\" src=\"/islands.js\">"));
        let (status, summary, options) = quote(&app, code, "g-l40s-x2", "fra").await;
        assert_eq!(status, 200, "{summary}");
        assert_eq!(words(&summary), words(&page_summary(&page.body)));
        assert!(summary.contains("data-stock=\"in-stock\""), "{summary}");
        assert!(options.contains("value=\"fra\" selected"), "{options}");
    }
    // Another plan at another site, chosen without a reload: its own price.
    let (_, summary, _) = quote(&app, "En", "g-ada", "ams").await;
    let page = app.get("/en/configure?plan=g-ada&site=ams").await;
    assert_eq!(words(&summary), words(&page_summary(&page.body)));

    // Stock is exact: each change shows in the very next quote.
    let free = app.host_names("fra", "g-l40s-x2", "free");
    assert_eq!(free.len(), 4, "{free:?}");
    for (host, (token, en)) in free.iter().zip([
        ("in-stock", "In stock"),
        ("few", "Only 2 left"),
        ("few", "Only 1 left"),
        ("sold-out", "Sold out"),
    ]) {
        app.ops_ok(&["hosts", "set", host, "maintenance", "--reason", "test"]);
        let (_, summary, options) = quote(&app, "En", "g-l40s-x2", "fra").await;
        assert!(
            summary.contains(&format!("data-stock=\"{token}\"")),
            "{summary}"
        );
        assert!(options.contains(en), "{options}");
    }
    // Sold out there: the quote offers the sites that still have the plan,
    // as the page does; the order link is gone.
    let (_, summary, _) = quote(&app, "En", "g-l40s-x2", "fra").await;
    assert!(!summary.contains("data-testid=\"order-link\""));
    assert!(summary.contains("class=\"alternatives\""), "{summary}");
    let (_, zh, _) = quote(&app, "Zh", "g-l40s-x2", "fra").await;
    assert!(zh.contains("已售罄"), "{zh}");
    // An unknown plan is no quote at all, not an error page.
    let (status, summary, _) = quote(&app, "En", "nope", "").await;
    assert_eq!((status, summary.as_str()), (200, ""));
    app.finish().await;
}

async fn quote_refuses_cross_site_callers(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let call = |headers: &'static [(&'static str, &'static str)]| {
        let mut request = app.client.post(format!("{}/api/quote", app.base)).form(&[
            ("lang", "En"),
            ("plan", "g-ada"),
            ("site", "fra"),
        ]);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        async move { request.send().await.expect("calling").status().as_u16() }
    };
    assert_eq!(call(&[("sec-fetch-site", "cross-site")]).await, 403);
    assert_eq!(call(&[("origin", "https://evil.example")]).await, 403);
    assert_eq!(call(&[]).await, 403);
    assert_eq!(call(&[("origin", ORIGIN)]).await, 200);
    // Read-only: no GET, so a link or an image cannot call it either.
    let get = app.get("/api/quote?lang=En&plan=g-ada&site=fra").await;
    assert_ne!(get.status, 200);
    app.finish().await;
}

async fn only_the_configurator_loads_the_islands(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for path in ["/en", "/zh"] {
        let page = app.get(path).await;
        assert_eq!(page.status, 200);
        for needle in [
            "<script src",
            "<script type=\"module\"",
            "modulepreload",
            "leptos-island",
        ] {
            assert!(!page.body.contains(needle), "{path} has {needle}");
        }
    }
    // The progress island replaced the portal's own script.
    assert_eq!(app.get("/portal.js").await.status, 404);
    let script = app.get("/islands.js").await;
    assert_eq!(script.status, 200);
    assert!(script.body.contains("/pkg/gpu-storefront.wasm"));
    app.finish().await;
}

/// Calls the order quote as the island does, as `browser`; answers the
/// status and the summary's words (or the body on failure).
async fn order_quote(
    app: &TestApp,
    browser: &reqwest::Client,
    lang: &str,
    addons: &[&str],
) -> (u16, String) {
    let mut body = format!("lang={lang}&plan=g-ada&site=fra");
    for (i, addon) in addons.iter().enumerate() {
        body.push_str(&format!("&addons%5B{i}%5D={addon}"));
    }
    let response = browser
        .post(format!("{}/api/order-quote", app.base))
        .header("origin", ORIGIN)
        .header("sec-fetch-site", "same-origin")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .expect("calling the order quote");
    let status = response.status().as_u16();
    let text = response.text().await.expect("reading the order quote");
    if status != 200 {
        return (status, text);
    }
    let json: serde_json::Value = serde_json::from_str(&text).expect("a JSON quote");
    assert!(
        json["stock"]
            .as_str()
            .unwrap_or_default()
            .contains("stock-"),
        "{json}"
    );
    (status, words(json["summary"].as_str().unwrap_or_default()))
}

async fn order_quote_prices_for_the_callers_organization(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.get_as(&owner, "/en/order?plan=g-ada&site=fra").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("data-component=\"OrderLiveQuote"),
        "{}",
        page.body
    );
    assert!(page
        .body
        .contains("<script type=\"module\" src=\"/islands.js\">"));

    // The German profile's VAT, the add-on priced in: as "Update summary"
    // shows it without JavaScript.
    let (status, live) = order_quote(&app, &owner, "En", &["offsite-backup"]).await;
    assert_eq!(status, 200, "{live}");
    assert!(live.contains("Monthly price ex VAT€254.00"), "{live}");
    assert!(live.contains("VAT 19%€48.26"), "{live}");
    assert!(live.contains("Total per month€302.26"), "{live}");
    let (csrf, key) = app.order_form(&owner, "g-ada", "fra").await;
    let updated = app
        .post_order(
            &owner,
            "g-ada",
            "fra",
            &key,
            &csrf,
            &[
                ("intent", "update"),
                ("name", "trainer-1"),
                ("image", "debian-13"),
                ("addons", "offsite-backup"),
            ],
        )
        .await;
    let id = updated
        .body
        .find("id=\"order-summary\"")
        .expect("a summary");
    let start = updated.body[..id].rfind("<div").expect("its element");
    let end = start + updated.body[start..].find("</div>").expect("its end") + 6;
    assert_eq!(live, words(&updated.body[start..end]));
    // Without the add-on, the plan alone; in Chinese for the Chinese page.
    let (_, plain) = order_quote(&app, &owner, "En", &[]).await;
    assert!(plain.contains("Total per month€284.41"), "{plain}");
    let (_, zh) = order_quote(&app, &owner, "Zh", &["offsite-backup"]).await;
    assert!(zh.contains("€302.26") && zh.contains("增值税"), "{zh}");

    // Only for those who may order: not a billing member, not a visitor,
    // and never from another site.
    let billing = app.invite(&owner, "billing@a.example", "billing").await;
    // A refusal is a 403 with a typed error, never a 500.
    let (status, body) = order_quote(&app, &billing, "En", &[]).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("NotAllowed"), "{body}");
    assert_eq!(order_quote(&app, &app.browser(), "En", &[]).await.0, 403);
    let cross = owner
        .post(format!("{}/api/order-quote", app.base))
        .header("origin", "https://evil.example")
        .form(&[("lang", "En"), ("plan", "g-ada"), ("site", "fra")])
        .send()
        .await
        .expect("calling");
    assert_eq!(cross.status().as_u16(), 403);
    app.finish().await;
}

async fn a_busy_server_page_carries_the_progress_island(db: TestDb) {
    // No workers: the ordered server stays queued, so the page is "busy"
    // for as long as the test looks.
    let app =
        TestApp::spawn_configured(db, backend::Clock::system(), |c| c.run_workers = false).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    let id = server_id(placed.location());
    let page = app.get_as(&owner, &format!("/en/servers/{id}")).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("data-component=\"ServerProgress"),
        "{}",
        page.body
    );
    assert!(page
        .body
        .contains(&format!("data-progress-url=\"/en/servers/{id}/progress\"")));
    assert!(page
        .body
        .contains("<script type=\"module\" src=\"/islands.js\">"));
    assert!(!page.body.contains("portal.js"));
    // The block the island updates, rendered by the server in both languages.
    assert!(page.body.contains("data-live=\"state\""), "{}", page.body);
    assert!(page.body.contains("data-live=\"progress\""));
    let zh = app.get_as(&owner, &format!("/zh/servers/{id}")).await;
    assert!(zh.body.contains("data-component=\"ServerProgress"));
    // A list page has no island and loads no script.
    let list = app.get_as(&owner, "/en/servers").await;
    assert!(!list.body.contains("islands.js") && !list.body.contains("leptos-island"));
    app.finish().await;
}
