//! Holes a security review found (issue 12), each proved closed through the
//! public surface: sessions that came back after logout, sessions that
//! expired while in use, language segments that skipped sign-in and the
//! two-factor rule, and redirects that left the site.

use crate::common::{self, strip_tags, TestApp, TestDb};
use backend::Clock;
use server::http::session_store::DbSessionStore;
use tower_sessions::session::{Id, Record};
use tower_sessions::SessionStore;

on_both_databases!(
    a_logged_out_session_stays_gone,
    idle_means_idle,
    unknown_languages_are_not_found,
    no_redirect_leaves_the_site,
    an_add_on_named_twice_is_charged_once,
    records_past_their_retention_are_purged_and_the_audit_log_stays,
    a_backup_taken_while_serving_restores_every_order_invoice_and_audit_row,
    development_mode_refuses_a_public_address,
    development_mode_refuses_requests_a_proxy_forwarded,
    production_serves_metrics_only_on_their_own_address,
    parallel_password_guesses_face_the_limit
);

/// A request in flight when logout deleted the session saves it at its end;
/// that save must not bring the session back.
async fn a_logged_out_session_stays_gone(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting");
    let store = DbSessionStore {
        db,
        clock: clock.clone(),
    };
    let mut record = Record {
        id: Id::default(),
        data: [("user_id".to_owned(), serde_json::json!("u-1"))].into(),
        expiry_date: tower_sessions::cookie::time::OffsetDateTime::now_utc(),
    };
    store.create(&mut record).await.expect("creating");
    assert!(store.load(&record.id).await.expect("loading").is_some());
    // Logout (or a password reset ending every session) deletes it…
    store.delete(&record.id).await.expect("deleting");
    // …while a slower request of the same browser saves it at its end.
    store.save(&record).await.expect("saving");
    assert!(
        store.load(&record.id).await.expect("loading").is_none(),
        "a deleted session came back"
    );
    app.finish().await;
}

/// An active user stays signed in past 30 minutes from login; 30 idle
/// minutes end the session.
async fn idle_means_idle(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let b = app.member("busy@example.com", "Busy", "").await;
    for minute in [10, 20, 30, 40, 50] {
        clock.advance(10 * 60);
        let page = app.get_as(&b, "/en/account").await;
        assert_eq!(page.status, 200, "still signed in at minute {minute}");
    }
    clock.advance(29 * 60);
    assert_eq!(app.get_as(&b, "/en/account").await.status, 200);
    clock.advance(30 * 60 + 1);
    assert_eq!(
        app.get_as(&b, "/en/account").await.location(),
        "/en/login?done=login",
        "30 idle minutes end the session"
    );
    app.finish().await;
}

/// Sign-in and the two-factor rule are decided for every portal route, not
/// only under `/zh` and `/en`: another first segment is a 404.
async fn unknown_languages_are_not_found(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for path in [
        "/xx/servers",
        "/xx/members",
        "/xx/billing/export",
        "/xx/orders",
    ] {
        let page = app.get(path).await;
        assert_eq!(page.status, 404, "anonymous {path}: {}", page.body);
    }
    // A member whose organization requires 2FA they have not set up.
    let owner = app.member("owner@lax.example", "Owner", "Lax Ltd").await;
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/two-factor",
            &[("role", "required")],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/members?done=tfa-required");
    assert_eq!(
        app.get_as(&owner, "/en/members").await.location(),
        "/en/account/2fa"
    );
    for path in [
        "/xx/members",
        "/xx/billing/export",
        "/de/audit",
        "/EN/members",
    ] {
        let page = app.get_as(&owner, path).await;
        assert_eq!(page.status, 404, "{path}: {}", page.body);
        assert!(!page.body.contains("owner@lax.example"), "{path} leaked");
    }
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/xx/members/two-factor",
            &[("role", "optional")],
            &[],
        )
        .await;
    assert_eq!(
        page.status, 404,
        "a post under another segment changes nothing"
    );
    app.finish().await;
}

/// Paths whose first segment is an encoded slash or backslash used to
/// redirect to `//evil.com/login` and `/\evil.com/login`.
async fn no_redirect_leaves_the_site(db: TestDb) {
    let app = TestApp::spawn(db).await;
    for path in [
        "/%2Fevil.com/login/code",
        "/%5Cevil.com/login/code",
        "/%2F%2Fevil.com/login/code",
        "/%2Fevil.com/servers",
    ] {
        let page = app.get(path).await;
        let location = page.location().to_owned();
        assert!(
            !location.starts_with("//")
                && !location.starts_with("/\\")
                && !location.contains("evil"),
            "{path} redirected to {location}"
        );
        assert_eq!(page.status, 404, "{path}");
    }
    app.finish().await;
}

/// A form that names the same add-on twice (a crafted post, or a browser
/// repeating a checkbox) pays for it once, in the summary and the order.
async fn an_add_on_named_twice_is_charged_once(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("twice@a.example", "Owner", "Twice Ltd").await;
    let (csrf, key) = app.order_form(&owner, "g-ada", "fra").await;
    let fields = [
        ("addons", "offsite-backup"),
        ("addons", "offsite-backup"),
        ("country", "DE"),
    ];
    let mut preview: Vec<(&str, &str)> = vec![
        ("plan", "g-ada"),
        ("site", "fra"),
        ("idempotency_key", &key),
        ("csrf", &csrf),
        ("intent", "update"),
        ("name", "box-1"),
        ("image", "debian-13"),
    ];
    preview.extend_from_slice(&fields);
    let page = owner
        .post(format!("{}/en/order", app.base))
        .form(&preview)
        .send()
        .await
        .expect("updating the summary");
    let text = strip_tags(&page.text().await.expect("body"));
    assert!(text.contains("Monthly price ex VAT€254.00"), "{text}");
    assert!(text.contains("Total per month€302.26"), "{text}");
    let placed = app
        .post_order(&owner, "g-ada", "fra", &key, &csrf, &fields)
        .await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    let orders = strip_tags(&app.get_as(&owner, "/en/orders").await.body);
    assert!(orders.contains("€302.26"), "{orders}");
    assert!(!orders.contains("€320.11"), "charged twice: {orders}");
    app.finish().await;
}

async fn count(db: &backend::Db, table: &str) -> i64 {
    sqlx::query_scalar(&format!("select count(*) from {table}"))
        .fetch_one(&db.pool)
        .await
        .expect("counting")
}

/// Sessions, failed logins and rate-limit events are deleted on the
/// workers' schedule once past their retention; the audit log is not.
async fn records_past_their_retention_are_purged_and_the_audit_log_stays(db: TestDb) {
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let email = "keep@example.com";
    let b = app.member(email, "Keep", "").await;
    let wrong = app.browser();
    app.post_as(
        &wrong,
        "/en/login",
        "/en/login",
        &[("email", email), ("password", "not it at all")],
        &[],
    )
    .await;
    app.post_as(&wrong, "/en/forgot", "/en/forgot", &[("email", email)], &[])
        .await;
    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting");
    for table in ["sessions", "login_failures", "rate_events"] {
        assert!(count(&db, table).await > 0, "{table} has rows to purge");
    }
    let audit = count(&db, "audit_log").await;
    assert!(audit > 0);

    clock.advance(100 * 86_400);
    let mut left = Vec::new();
    for _ in 0..100 {
        left.clear();
        for table in ["sessions", "login_failures", "rate_events"] {
            let n = count(&db, table).await;
            if n > 0 {
                left.push((table, n));
            }
        }
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(left.is_empty(), "not purged: {left:?}");
    assert_eq!(
        count(&db, "audit_log").await,
        audit,
        "the audit log is kept"
    );
    assert_eq!(
        app.get_as(&b, "/en/account").await.location(),
        "/en/login?done=login",
        "the purged session is over"
    );
    app.finish().await;
}

async fn ids(db: &backend::Db, table: &str) -> Vec<String> {
    sqlx::query_scalar(&format!("select id from {table} order by id"))
        .fetch_all(&db.pool)
        .await
        .expect("reading ids")
}

/// `server backup` copies a serving SQLite database consistently; the copy
/// starts as a working product with every order, invoice and audit row.
/// PostgreSQL is backed up with its own tools, and the command says so.
async fn a_backup_taken_while_serving_restores_every_order_invoice_and_audit_row(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("saved@a.example", "Owner", "Saved Ltd").await;
    let placed = app
        .place_order(&owner, "g-ada", "fra", &[("name", "kept-1")])
        .await;
    let id = common::server_id(placed.location());
    app.wait_for_server(&owner, &id).await;
    app.wait_for(&owner, "/en/billing", "INV-").await;
    let dir = common::TempDir::new();
    let file = format!("{}/backup.db", dir.path);
    let (ok, out) = app.ops(&["backup", "--to", &file]);
    if matches!(db, TestDb::Postgres) {
        assert!(!ok && out.contains("pg_dump"), "{out}");
        postgres_restore_drill(&app).await;
        app.finish().await;
        return;
    }
    assert!(ok, "{out}");
    let (again, out) = app.ops(&["backup", "--to", &file]);
    assert!(!again && out.contains("never overwrite"), "{out}");
    let live = backend::Db::connect(&app.database_url, 1)
        .await
        .expect("live");
    let copy = backend::Db::connect(&format!("sqlite:{file}"), 1)
        .await
        .expect("copy");
    for table in ["orders", "servers", "invoices", "audit_log", "users"] {
        let kept = ids(&live, table).await;
        assert!(!kept.is_empty(), "{table}");
        assert_eq!(ids(&copy, table).await, kept, "{table}");
    }
    copy.pool.close().await;
    let (restored, b) = signed_in_on_the_copy(format!("sqlite:{file}")).await;
    let servers = restored.get_as(&b, "/en/servers").await;
    assert!(servers.body.contains("kept-1"), "{}", servers.body);
    let billing = strip_tags(&restored.get_as(&b, "/en/billing").await.body);
    assert!(
        billing.contains("INV-2026-000001") || billing.contains("INV-"),
        "{billing}"
    );
    restored.finish().await;
    app.finish().await;
}

/// The product started on a restored copy at `url` (no workers: a copy
/// must not send mail or touch hosts), and the customer signed in on it.
async fn signed_in_on_the_copy(url: String) -> (TestApp, reqwest::Client) {
    let restored = TestApp::spawn_configured(TestDb::Sqlite, Clock::system(), |config| {
        config.database_url = server::config::Redacted(url);
        config.run_workers = false;
    })
    .await;
    let b = restored.browser();
    let page = restored
        .post_as(
            &b,
            "/en/login",
            "/en/login",
            &[("email", "saved@a.example"), ("password", common::PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(
        page.location(),
        "/en/servers",
        "{} {}",
        page.status,
        strip_tags(&page.body)
    );
    (restored, b)
}

/// The restore drill docs/OPERATIONS.md asks for every quarter, on
/// PostgreSQL's own tools: `pg_dump --format=custom` of the serving
/// database, `pg_restore` into a new database, the product started on it,
/// the customer signs in and opens their invoice.
async fn postgres_restore_drill(app: &TestApp) {
    use sqlx::Connection;
    let schema = app
        .database_url
        .split("search_path%3D")
        .nth(1)
        .expect("the test's schema")
        .to_owned();
    let base = common::postgres_url();
    let dir = common::TempDir::new();
    let dump = format!("{}/gpu.dump", dir.path);
    let dumped = std::process::Command::new("pg_dump")
        .args([
            "--format=custom",
            "--no-owner",
            "--schema",
            &schema,
            "--file",
            &dump,
            &base,
        ])
        .output()
        .expect("pg_dump is installed (scripts/test.sh installs postgresql-client)");
    assert!(
        dumped.status.success(),
        "{}",
        String::from_utf8_lossy(&dumped.stderr)
    );
    let database = format!("restore_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&base)
        .await
        .expect("connecting");
    sqlx::query(&format!("create database {database}"))
        .execute(&mut admin)
        .await
        .expect("creating the database to restore into");
    let (server, query) = base.split_once('?').unwrap_or((&base, ""));
    let at = server.rfind('/').expect("a database in the URL");
    let target = format!("{}/{database}", &server[..at]);
    let restored_db = std::process::Command::new("pg_restore")
        .args(["--no-owner", "--exit-on-error", "--dbname", &target, &dump])
        .output()
        .expect("running pg_restore");
    assert!(
        restored_db.status.success(),
        "{}",
        String::from_utf8_lossy(&restored_db.stderr)
    );
    let options = format!("options=-c%20search_path%3D{schema}");
    let url = if query.is_empty() {
        format!("{target}?{options}")
    } else {
        format!("{target}?{query}&{options}")
    };
    let (restored, b) = signed_in_on_the_copy(url).await;
    let billing = restored.get_as(&b, "/en/billing").await.body;
    let invoice = billing
        .split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .find(|href| href.starts_with("/en/invoices/"))
        .unwrap_or_else(|| panic!("no invoice link in {}", strip_tags(&billing)))
        .to_owned();
    let opened = restored.get_as(&b, &invoice).await;
    assert_eq!(opened.status, 200, "{invoice}");
    assert!(strip_tags(&opened.body).contains("INV-"), "{invoice}");
    restored.finish().await;
    sqlx::query(&format!("drop database {database} with (force)"))
        .execute(&mut admin)
        .await
        .expect("dropping the restored database");
}

/// A forgotten `APP_ENV` must not put development mode (insecure cookies,
/// a public sealing key, demo hosts, the mail outbox) on the internet.
async fn development_mode_refuses_a_public_address(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (ok, out) = app.ops_env(
        &["serve"],
        &[
            ("PUBLIC_BASE_URL", "https://gpu.example.com"),
            ("LISTEN_ADDR", "127.0.0.1:0"),
        ],
    );
    assert!(!ok, "{out}");
    assert!(
        out.contains("refusing to serve https://gpu.example.com in development mode"),
        "{out}"
    );
    assert!(out.contains("APP_ENV=production"), "{out}");
    // A loopback URL does not make listening on every interface safe.
    let (ok, out) = app.ops_env(
        &["serve"],
        &[
            ("PUBLIC_BASE_URL", "http://127.0.0.1:3000"),
            ("LISTEN_ADDR", "0.0.0.0:0"),
        ],
    );
    assert!(!ok, "{out}");
    assert!(
        out.contains("refusing to listen on 0.0.0.0:0 in development mode"),
        "{out}"
    );
    app.finish().await;
}

/// A reverse proxy in front of development mode makes it public after
/// all: what a proxy forwarded is refused, saying why in both languages.
async fn development_mode_refuses_requests_a_proxy_forwarded(db: TestDb) {
    let app = TestApp::spawn(db).await;
    assert_eq!(app.get("/en").await.status, 200);
    for header in ["x-forwarded-for", "forwarded", "x-real-ip"] {
        let refused = app
            .client
            .get(format!("{}/en", app.base))
            .header(header, "for=203.0.113.9")
            .send()
            .await
            .expect("a request");
        assert_eq!(refused.status().as_u16(), 403, "{header}");
        let text = refused.text().await.unwrap_or_default();
        assert!(
            text.contains("APP_ENV=production") && text.contains("开发模式"),
            "{text}"
        );
    }
    app.finish().await;
}

/// Production's metrics (job counts, held Stripe events, stock) are for
/// Prometheus on the management network: `METRICS_ADDR`, never the public
/// listener.
async fn production_serves_metrics_only_on_their_own_address(db: TestDb) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let app = TestApp::spawn_configured(db, Clock::system(), |config| {
        config.environment = server::config::Environment::Production;
        config.secret_key = Some(server::config::Redacted("ab".repeat(32)));
        config.seller_iban = "NL91 ABNA 0417 1643 00".to_owned();
        config.seller_register = "Amsterdam Chamber of Commerce (KvK) 12345678".to_owned();
        config.support_email = "support@gpu.host.example.net".to_owned();
        config.metrics_addr = Some(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    })
    .await;
    assert_eq!(app.get("/metrics").await.status, 404);
    let scraped = app
        .client
        .get(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .expect("scraping");
    assert_eq!(scraped.status().as_u16(), 200);
    let text = scraped.text().await.unwrap_or_default();
    assert!(text.contains("gpu_stripe_events_held"), "{text}");
    app.finish().await;
}

/// Thirty wrong passwords sent at once used to all pass the throttle's
/// check before any was recorded (thirty guesses judged); each attempt is
/// now counted before it is judged, so at most the five free ones are.
async fn parallel_password_guesses_face_the_limit(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.member("target@example.com", "Target", "").await;
    let guesses: Vec<_> = (0..30)
        .map(|i| {
            let client = app.client.clone();
            let url = format!("{}/en/login", app.base);
            tokio::spawn(async move {
                client
                    .post(url)
                    .header("sec-fetch-site", "same-origin")
                    .form(&[
                        ("email", "target@example.com"),
                        ("password", &format!("wrong guess {i}")),
                    ])
                    .send()
                    .await
                    .map(|r| r.status().as_u16())
                    .unwrap_or(0)
            })
        })
        .collect();
    let mut judged = 0;
    for guess in guesses {
        match guess.await.expect("joined") {
            401 => judged += 1,
            429 => {}
            other => panic!("unexpected status {other}"),
        }
    }
    // Guesses racing each other count each other: at most the five free
    // ones are judged (possibly none).
    assert!(judged <= 5, "{judged} guesses were judged");
    // Refused guesses are not failures: unless the five free ones were all
    // judged (a loaded machine serialises the requests), the owner is not
    // locked out; with five judged failures, the sixth attempt waits, as
    // five sequential wrong guesses would make it.
    let owner = app.browser();
    let page = app
        .post_as(
            &owner,
            "/en/login",
            "/en/login",
            &[
                ("email", "target@example.com"),
                ("password", common::PASSWORD),
            ],
            &[],
        )
        .await;
    if judged < 5 {
        assert_eq!(page.location(), "/en/servers", "{}", page.status);
    } else {
        assert_eq!(
            page.status, 429,
            "five judged failures make the next attempt wait"
        );
    }
    app.finish().await;
}
