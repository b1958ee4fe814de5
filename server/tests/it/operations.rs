//! What operators rely on: health, readiness, metrics, security headers,
//! the inventory and latency subcommands and their errors.

use crate::common::{TempDir, TestApp, TestDb};

on_both_databases!(
    health_readiness_and_metrics,
    metrics_for_the_operators_alerts,
    security_headers_on_every_response,
    inventory_subcommands_explain_mistakes,
    latency_estimates_until_measurements_are_imported,
    latency_import_rejects_bad_files_whole,
);

async fn health_readiness_and_metrics(db: TestDb) {
    let app = TestApp::spawn(db).await;
    assert_eq!(app.get("/healthz").await.body, "ok");
    let ready = app.get("/readyz").await;
    assert_eq!((ready.status, ready.body.as_str()), (200, "ready"));
    // The first render of a generation fills the page cache and a later
    // request of it is a hit. A render whose facts read was overtaken by a
    // newer one (a background read at start-up) is answered uncached, so
    // ask until the cache answers, a few times at most.
    let mut metrics = app.get("/metrics").await;
    for _ in 0..10 {
        app.get("/en").await;
        metrics = app.get("/metrics").await;
        if metrics
            .body
            .contains("gpu_storefront_page_cache_total{result=\"hit\"}")
        {
            break;
        }
    }
    assert_eq!(metrics.status, 200);
    assert!(
        metrics
            .body
            .contains("gpu_http_requests_total{route=\"/{lang}\",method=\"GET\",status=\"200\"}"),
        "{}",
        metrics.body
    );
    assert!(metrics
        .body
        .contains("gpu_storefront_page_cache_total{result=\"hit\"}"));
    assert!(metrics
        .body
        .contains("gpu_http_request_duration_seconds_bucket"));
    app.finish().await;
}

/// What deploy/prometheus/alerts.yml fires on, read from the database at
/// each scrape: readiness, stock per plan and site (a sold-out pair is a 0,
/// not a vanished series), the mail backlog and every job state.
async fn metrics_for_the_operators_alerts(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.rack("lax", "g-l40s-x2", 2);
    let hosts = app.host_names("lax", "g-l40s-x2", "free");
    let (ok, out) = app.ops(&["hosts", "set", &hosts[0], "maintenance"]);
    assert!(ok, "{out}");
    let (ok, out) = app.ops(&["hosts", "set", &hosts[1], "maintenance"]);
    assert!(ok, "{out}");
    app.signed_up("waiting@example.com", "Wai Ting", "").await;
    let body = app.get("/metrics").await.body;
    for line in [
        "gpu_ready 1",
        "gpu_stock_free_hosts{plan=\"g-l40s-x2\",site=\"lax\"} 0",
        "gpu_jobs{state=\"dead\"} 0",
        "gpu_jobs{state=\"done\"} ",
        "gpu_jobs{state=\"queued\"} ",
        "gpu_mail_oldest_pending_seconds ",
    ] {
        assert!(body.contains(line), "{line} in\n{body}");
    }
    // No SMTP in tests: the sign-up's and the verification's mail wait.
    let pending: i64 = body
        .lines()
        .find_map(|l| l.strip_prefix("gpu_mail_pending "))
        .and_then(|n| n.trim().parse().ok())
        .expect("gpu_mail_pending");
    assert!(pending >= 1, "{body}");
    let (ok, out) = app.ops(&["hosts", "set", &hosts[0], "free"]);
    assert!(ok, "{out}");
    let body = app.get("/metrics").await.body;
    assert!(
        body.contains("gpu_stock_free_hosts{plan=\"g-l40s-x2\",site=\"lax\"} 1"),
        "{body}"
    );
    app.finish().await;
}

async fn security_headers_on_every_response(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for path in [
        "/",
        "/en",
        "/zh/configure?plan=g-ada",
        "/healthz",
        "/sitemap.xml",
        "/en/missing",
        "/favicon.svg",
    ] {
        let page = app.get(path).await;
        let h = &page.headers;
        let csp = h["content-security-policy"].to_str().unwrap_or_default();
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'self'"),
            "{path}: {csp}"
        );
        assert!(!csp.contains("unsafe-inline"), "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(
            h["referrer-policy"], "strict-origin-when-cross-origin",
            "{path}"
        );
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        // Development serves plain HTTP: no HSTS there.
        assert!(!h.contains_key("strict-transport-security"), "{path}");
    }
    let icon = app.get("/favicon.svg").await;
    assert_eq!(icon.status, 200);
    assert_eq!(icon.headers["content-type"], "image/svg+xml");
    app.finish().await;
}

async fn inventory_subcommands_explain_mistakes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let out = app.ops_ok(&[
        "hosts",
        "add",
        "--site",
        "tyo",
        "--plan",
        "g-l40s-x2",
        "--count",
        "2",
    ]);
    assert!(
        out.contains("added tyo-g-l40s-x2-001") && out.contains("added tyo-g-l40s-x2-002"),
        "{out}"
    );
    let list = app.ops_ok(&["hosts", "list", "--site", "tyo", "--plan", "g-l40s-x2"]);
    assert!(list.contains("2 hosts"), "{list}");

    for (args, message) in [
        (
            vec!["hosts", "add", "--site", "xyz", "--plan", "g-ada"],
            "no site has the code \"xyz\"",
        ),
        (
            vec!["hosts", "add", "--site", "fra", "--plan", "g-h100"],
            "no plan has the id \"g-h100\"",
        ),
        (
            vec![
                "hosts", "add", "--site", "fra", "--plan", "g-ada", "--count", "0",
            ],
            "between 1 and 500",
        ),
        (
            vec!["hosts", "set", "fra-g-ada-999", "free"],
            "no host is called \"fra-g-ada-999\"",
        ),
        (
            vec!["hosts", "set", "tyo-g-l40s-x2-001", "free"],
            "a host that is free cannot be set free",
        ),
        (
            vec!["hosts", "set", "tyo-g-l40s-x2-001", "allocated"],
            "invalid value 'allocated'",
        ),
    ] {
        let (ok, out) = app.ops(&args);
        assert!(!ok, "{args:?} should fail");
        assert!(out.contains(message), "{args:?}: {out}");
    }
    app.finish().await;
}

async fn latency_estimates_until_measurements_are_imported(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let page = app.get("/en").await;
    assert!(page
        .body
        .contains("These are estimates from great-circle distance"));
    assert!(page.body.contains("<option value=\"Tokyo\">Tokyo</option>"));
    assert_eq!(
        page.body.matches("<option value=").count() - 1,
        34,
        "34 probe cities"
    );
    let tokyo = app.get("/en?city=Tokyo").await;
    assert!(tokyo.body.contains("From Tokyo to each site"));
    assert!(tokyo.body.contains("estimate"));

    let dir = TempDir::new();
    let file = format!("{}/latency.csv", dir.path);
    std::fs::write(
        &file,
        "city,country,site,median_ms,measured_at\nTokyo,JP,tyo,1.8,2026-11-02\nTokyo,JP,sin,69.4,2026-11-02\nBerlin,DE,fra,6.1,2026-11-03\n",
    )
    .expect("writing the CSV");
    let out = app.ops_ok(&["latency", "import", &file]);
    assert!(out.contains("imported 3 measurements"), "{out}");

    let page = app.get("/en?city=Tokyo").await;
    assert!(
        !page.body.contains("These are estimates"),
        "measurements replace estimates"
    );
    assert!(page.body.contains("1.8 ms") && page.body.contains("69.4 ms"));
    assert!(page.body.contains("2026-11-02"));
    let zh = app.get("/zh?city=Tokyo").await;
    assert!(zh.body.contains("从东京到各站点") && zh.body.contains("1.8 毫秒"));
    let all = app.get("/en").await;
    assert!(
        all.body.contains("Berlin")
            && all.body.contains("6.1 ms")
            && all.body.contains("2026-11-03")
    );
    app.finish().await;
}

async fn latency_import_rejects_bad_files_whole(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let dir = TempDir::new();
    for (text, message) in [
        (
            "Tokyo,JP,tyo,1.8,2026-11-02\nOsaka,JP,osa,3.0,2026-11-02\n",
            "line 2: \"osa\" is not one of our sites",
        ),
        (
            "Tokyo,JP,tyo,fast,2026-11-02\n",
            "line 1: \"fast\" is not a round trip",
        ),
        (
            "Tokyo,Japan,tyo,1.8,2026-11-02\n",
            "\"Japan\" is not a two-letter country code",
        ),
        (
            "Tokyo,JP,tyo,1.8,02/11/2026\n",
            "is not a date like 2026-11-30",
        ),
        ("Tokyo,JP,tyo,1.8\n", "expected 5 fields, found 4"),
        (
            "city,country,site,median_ms,measured_at\n",
            "the file has no measurements",
        ),
    ] {
        let file = format!("{}/bad.csv", dir.path);
        std::fs::write(&file, text).expect("writing the CSV");
        let (ok, out) = app.ops(&["latency", "import", &file]);
        assert!(!ok && out.contains(message), "{text:?}: {out}");
    }
    // Nothing was imported: the page still shows estimates.
    assert!(app.get("/en").await.body.contains("These are estimates"));
    app.finish().await;
}

/// Production refuses to start without a key for secrets at rest.
#[tokio::test]
async fn production_needs_a_secret_key_and_the_sellers_bank_account() {
    let dir = TempDir::new();
    let mut config =
        server::config::Config::for_database(&format!("sqlite:{}/gpu.db?mode=rwc", dir.path));
    config.environment = server::config::Environment::Production;
    let error = server::startup::Application::build(config.clone())
        .await
        .err()
        .map(|e| format!("{e:#}"));
    assert!(error
        .unwrap_or_default()
        .contains("SECRET_KEY is required in production"));
    config.secret_key = Some(server::config::Redacted("zz".to_owned()));
    let error = server::startup::Application::build(config.clone())
        .await
        .err()
        .map(|e| format!("{e:#}"));
    assert!(error.unwrap_or_default().contains("64 hex characters"));
    config.secret_key = Some(server::config::Redacted("ab".repeat(32)));
    // Invoices print where to pay: the development account won't do.
    let error = server::startup::Application::build(config.clone())
        .await
        .err()
        .map(|e| format!("{e:#}"));
    assert!(error.unwrap_or_default().contains("SELLER_IBAN"));
    config.seller_iban = "NL91 ABNA 0417 1643 00".to_owned();
    // The imprint and the support page print who we are and where to write.
    let error = server::startup::Application::build(config.clone())
        .await
        .err()
        .map(|e| format!("{e:#}"));
    assert!(error.unwrap_or_default().contains("SUPPORT_EMAIL"));
    config.seller_register = "Amsterdam Chamber of Commerce (KvK) 12345678".to_owned();
    config.support_email = "support@gpu.host.example.net".to_owned();
    assert!(server::startup::Application::build(config).await.is_ok());
}
