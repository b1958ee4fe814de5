//! Live stock: labels follow host states on the very next request, sold-out
//! combinations cannot be configured and point to sites with stock.

use crate::common::{stock_cell, stock_cell_text, TestApp, TestDb};

on_both_databases!(
    stock_labels_follow_host_state,
    sold_out_combination_offers_sites_with_stock,
    configure_rejects_unknown_choices,
    structured_data_follows_stock,
    a_change_shows_on_the_next_request_of_every_replica_under_load,
);

async fn stock_labels_follow_host_state(db: TestDb) {
    let app = TestApp::spawn(db).await;
    // Demo inventory: Frankfurt has four G-L40S×2, all free.
    let free = app.host_names("fra", "g-l40s-x2", "free");
    assert_eq!(free.len(), 4, "{free:?}");
    let page = app.get("/en").await;
    assert_eq!(stock_cell(&page.body, "fra", "g-l40s-x2"), "in-stock");
    assert_eq!(stock_cell_text(&page.body, "fra", "g-l40s-x2"), "In stock");

    // Each change shows on the next request, in both languages.
    let expected = [
        ("in-stock", "In stock", "有货"),
        ("few", "Only 2 left", "仅剩 2 台"),
        ("few", "Only 1 left", "仅剩 1 台"),
        ("sold-out", "Sold out", "已售罄"),
    ];
    for (host, (token, en, zh)) in free.iter().zip(expected) {
        app.ops_ok(&["hosts", "set", host, "maintenance", "--reason", "test"]);
        let page = app.get("/en").await;
        assert_eq!(stock_cell(&page.body, "fra", "g-l40s-x2"), token);
        assert_eq!(stock_cell_text(&page.body, "fra", "g-l40s-x2"), en);
        let page = app.get("/zh").await;
        assert_eq!(stock_cell_text(&page.body, "fra", "g-l40s-x2"), zh);
    }
    // Failed hosts are not stock either; freeing one brings it back.
    app.ops_ok(&["hosts", "set", &free[0], "failed"]);
    assert_eq!(
        stock_cell(&app.get("/en").await.body, "fra", "g-l40s-x2"),
        "sold-out"
    );
    app.ops_ok(&["hosts", "set", &free[0], "free"]);
    assert_eq!(
        stock_cell_text(&app.get("/en").await.body, "fra", "g-l40s-x2"),
        "Only 1 left"
    );
    // Racking new hosts adds stock.
    app.rack("fra", "g-l40s-x2", 5);
    assert_eq!(
        stock_cell(&app.get("/en").await.body, "fra", "g-l40s-x2"),
        "in-stock"
    );
    // A cached page and a fresh one agree, and the read time is filled in.
    let a = app.get("/en").await;
    let b = app.get("/en").await;
    assert_eq!(
        stock_cell(&a.body, "fra", "g-l40s-x2"),
        stock_cell(&b.body, "fra", "g-l40s-x2")
    );
    assert!(b.body.contains("Stock read at <time datetime=\"20"));
    app.finish().await;
}

async fn sold_out_combination_offers_sites_with_stock(db: TestDb) {
    let app = TestApp::spawn(db).await;
    // Demo inventory: the one L40S host in Los Angeles is in maintenance.
    let page = app.get("/en").await;
    assert_eq!(stock_cell(&page.body, "lax", "g-l40s"), "sold-out");
    assert!(
        !page
            .body
            .contains("href=\"/en/configure?plan=g-l40s&amp;site=lax\""),
        "sold out is not linked"
    );

    let page = app.get("/en/configure?plan=g-l40s&site=lax").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("role=\"alert\""));
    assert!(page.body.contains("G-L40S is sold out in Los Angeles"));
    assert!(page.body.contains("data-stock=\"sold-out\""));
    assert!(page.body.contains("These sites have it in stock:"));
    assert!(page
        .body
        .contains("href=\"/en/configure?plan=g-l40s&amp;site=fra\""));
    assert!(
        !page.body.contains("Next you sign in"),
        "a sold-out choice offers no next step"
    );

    let zh = app.get("/zh/configure?plan=g-l40s&site=lax").await;
    assert!(zh.body.contains("G-L40S 在洛杉矶已售罄"));

    // Back in service: configurable on the next request.
    let host = app.host_names("lax", "g-l40s", "maintenance").remove(0);
    app.ops_ok(&["hosts", "set", &host, "free"]);
    let page = app.get("/en/configure?plan=g-l40s&site=lax").await;
    assert!(!page.body.contains("role=\"alert\""));
    assert!(page.body.contains("Only 1 left"));
    assert!(page.body.contains("€749.00"));
    app.finish().await;
}

async fn configure_rejects_unknown_choices(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for path in [
        "/en/configure?plan=g-h100",
        "/en/configure?plan=g-ada&site=zzz",
    ] {
        let page = app.get(path).await;
        assert_eq!(page.status, 400, "{path}");
        assert!(
            page.body.contains("That plan or site doesn’t exist"),
            "{path}"
        );
        assert!(
            page.body.contains("<select id=\"plan\" name=\"plan\">"),
            "{path}: the form is still there"
        );
    }
    // No plan at all is not a mistake: the first plan is chosen.
    for lang in ["en", "zh"] {
        let page = app.get(&format!("/{lang}/configure")).await;
        assert_eq!(page.status, 200, "{lang}");
        assert!(
            page.body.contains("<option value=\"g-ada\" selected"),
            "{lang}: the first plan is chosen"
        );
    }
    let page = app.get("/zh/configure?plan=nope").await;
    assert!(page.body.contains("您选择的方案或站点不存在"));
    // A plan without a site lists where it is in stock.
    let page = app.get("/en/configure?plan=g-ada").await;
    assert_eq!(page.status, 200);
    assert!(page
        .body
        .contains("href=\"/en/configure?plan=g-ada&amp;site=dal\""));
    app.finish().await;
}

async fn structured_data_follows_stock(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for site in ["ams", "fra", "lon", "nyc", "dal", "sin"] {
        for host in app.host_names(site, "g-l40s-x2", "free") {
            app.ops_ok(&["hosts", "set", &host, "maintenance"]);
        }
    }
    let page = app.get("/en").await;
    assert!(page.body.contains("Sold out at every site"));
    let ld = page
        .body
        .split("<script type=\"application/ld+json\">")
        .nth(1)
        .unwrap_or_default();
    let ld: serde_json::Value =
        serde_json::from_str(ld.split("</script>").next().unwrap_or_default()).expect("JSON-LD");
    assert_eq!(
        ld[2]["offers"]["availability"],
        "https://schema.org/SoldOut"
    );
    assert_eq!(
        ld[0]["offers"]["availability"],
        "https://schema.org/InStock"
    );
    let page = app.get("/en/configure?plan=g-l40s-x2&site=fra").await;
    assert!(page
        .body
        .contains("This plan is sold out at every site right now."));
    app.finish().await;
}

/// Version reads are shared between concurrent requests (see
/// `backend::stock_watch`): while 50 clients keep two replicas busy, each
/// change made by another process shows on the very next request to either.
async fn a_change_shows_on_the_next_request_of_every_replica_under_load(db: TestDb) {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    let app = TestApp::spawn(db).await;
    let replica = app.replica(backend::Clock::system(), |_| {}).await;
    let free = app.host_names("fra", "g-l40s-x2", "free");
    assert_eq!(free.len(), 4, "{free:?}");

    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let mut load = tokio::task::JoinSet::new();
    for n in 0..50 {
        let base = if n % 2 == 0 { &app.base } else { &replica };
        let url = format!("{base}/en");
        let (client, stop, served) = (app.client.clone(), stop.clone(), served.clone());
        load.spawn(async move {
            // At least one request each, then until told to stop.
            loop {
                let response = client.get(&url).send().await.expect("a load request");
                assert_eq!(response.status().as_u16(), 200);
                response.text().await.expect("a load body");
                served.fetch_add(1, Ordering::Relaxed);
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
        });
    }
    let next = |base: String| {
        let client = app.client.clone();
        async move {
            let body = client
                .get(format!("{base}/en"))
                .send()
                .await
                .expect("the next request")
                .text()
                .await
                .expect("its body");
            crate::common::stock_cell(&body, "fra", "g-l40s-x2")
        }
    };
    for (host, expected) in free.iter().zip(["in-stock", "few", "few", "sold-out"]) {
        // Runs while the load goes on; returns once the change committed.
        app.ops_ok(&["hosts", "set", host, "maintenance", "--reason", "test"]);
        assert_eq!(next(app.base.clone()).await, expected, "this replica");
        assert_eq!(next(replica.clone()).await, expected, "the other replica");
    }
    app.ops_ok(&["hosts", "set", &free[0], "free"]);
    assert_eq!(next(replica.clone()).await, "few");
    assert_eq!(next(app.base.clone()).await, "few");

    stop.store(true, Ordering::Relaxed);
    while let Some(done) = load.join_next().await {
        done.expect("a load client");
    }
    assert!(served.load(Ordering::Relaxed) >= 50);
    app.finish().await;
}
