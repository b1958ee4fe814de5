//! Selling the last hosts under contention: 100 orders at once for K free
//! hosts, over real HTTP. Exactly K win, the rest are told it is sold out,
//! no host is ever allocated twice and nothing is left held. The same with
//! two server processes on one PostgreSQL database.

use crate::common::{self, csrf_token, hidden, TestApp, TestDb};
use std::process::{Child, Command};
use std::time::Duration;

const ORDERS: usize = 100;

on_both_databases!(
    one_host_hundred_buyers,
    five_hosts_hundred_buyers,
    the_daily_limit_holds_under_concurrency
);

/// One organization sends 40 orders at once for 30 free hosts: exactly
/// the daily limit (20) is placed, the rest are refused with 429.
async fn the_daily_limit_holds_under_concurrency(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.rack("lax", "g-ada", 30);
    let buyer = app.member("one@example.com", "Buyer", "Solo").await;
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..40 {
        let page = app.get_as(&buyer, "/en/order?plan=g-ada&site=lax").await;
        let (csrf, key) = (
            csrf_token(&page.body),
            hidden(&page.body, "idempotency_key"),
        );
        let (browser, base) = (buyer.clone(), app.base.clone());
        tasks.spawn(async move {
            let name = format!("n{n}");
            let form = [
                ("plan", "g-ada"),
                ("site", "lax"),
                ("idempotency_key", key.as_str()),
                ("csrf", csrf.as_str()),
                ("intent", "place"),
                ("name", name.as_str()),
                ("image", "debian-13"),
                ("country", "FR"),
            ];
            let response = browser
                .post(format!("{base}/en/order"))
                .form(&form)
                .send()
                .await;
            response.expect("posting").status().as_u16()
        });
    }
    let mut answers = Vec::new();
    while let Some(status) = tasks.join_next().await {
        answers.push(status.expect("an order task"));
    }
    let placed = answers.iter().filter(|s| **s == 303).count();
    let limited = answers.iter().filter(|s| **s == 429).count();
    assert_eq!((placed, limited), (20, 20), "{answers:?}");
    app.finish().await;
}

async fn one_host_hundred_buyers(db: TestDb) {
    let app = TestApp::spawn(db).await;
    contend(&app, std::slice::from_ref(&app.base), 1).await;
    app.finish().await;
}

async fn five_hosts_hundred_buyers(db: TestDb) {
    let app = TestApp::spawn(db).await;
    contend(&app, std::slice::from_ref(&app.base), 5).await;
    app.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_on_one_postgres_sell_exactly_the_free_hosts() {
    let app = TestApp::spawn(TestDb::Postgres).await;
    let second = Replica::start(&app.database_url);
    second.wait_ready().await;
    for k in [1, 5] {
        contend(&app, &[app.base.clone(), second.base.clone()], k).await;
    }
    drop(second);
    app.finish().await;
}

/// Racks `k` G-L40S×2 hosts in Los Angeles (none there in the demo
/// inventory) and lets four customers send 100 orders for them at once,
/// spread over the given replicas.
async fn contend(app: &TestApp, replicas: &[String], k: usize) {
    let before = app.host_names("lax", "g-l40s-x2", "allocated").len();
    app.rack("lax", "g-l40s-x2", k);
    let mut buyers = Vec::new();
    for i in 0..4 {
        let email = format!("buyer{i}-k{k}@example.com");
        buyers.push(app.member(&email, "Buyer", &format!("Org {i}")).await);
    }
    // Every buyer opens the form first (a key per order), then all submit.
    let mut submissions = Vec::new();
    for n in 0..ORDERS {
        let browser = buyers[n % buyers.len()].clone();
        let page = app
            .get_as(&browser, "/en/order?plan=g-l40s-x2&site=lax")
            .await;
        let (csrf, key) = (
            csrf_token(&page.body),
            hidden(&page.body, "idempotency_key"),
        );
        submissions.push((browser, replicas[n % replicas.len()].clone(), csrf, key, n));
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (browser, base, csrf, key, n) in submissions {
        tasks.spawn(async move {
            let name = format!("race-{n}");
            let form = [
                ("plan", "g-l40s-x2"),
                ("site", "lax"),
                ("idempotency_key", key.as_str()),
                ("csrf", csrf.as_str()),
                ("intent", "place"),
                ("name", name.as_str()),
                ("image", "ubuntu-24.04"),
                ("country", "NL"),
            ];
            let response = browser
                .post(format!("{base}/en/order"))
                .form(&form)
                .send()
                .await
                .expect("posting an order");
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            let body = response.text().await.unwrap_or_default();
            (status, location, body)
        });
    }
    let (mut won, mut sold_out) = (0, 0);
    while let Some(result) = tasks.join_next().await {
        let (status, location, body) = result.expect("an order task");
        match status {
            303 if location.starts_with("/en/servers/") => won += 1,
            409 if body.contains("was just taken") => sold_out += 1,
            _ => panic!(
                "unexpected answer {status} {location}: {}",
                common::strip_tags(&body)
            ),
        }
    }
    assert_eq!(won, k, "exactly the free hosts are sold");
    assert_eq!(sold_out, ORDERS - k, "everyone else hears it is sold out");
    assert_eq!(
        app.host_names("lax", "g-l40s-x2", "allocated").len(),
        before + k
    );
    assert!(
        app.host_names("lax", "g-l40s-x2", "held").is_empty(),
        "nothing left held"
    );
    assert!(app.host_names("lax", "g-l40s-x2", "free").is_empty());
    assert_no_host_serves_two_servers(&app.database_url).await;
}

/// The invariant itself, read straight from the database.
async fn assert_no_host_serves_two_servers(url: &str) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await.expect("connecting");
    let doubled: i64 = sqlx::query_scalar(
        "select count(*) from (select host_id from servers where host_id is not null \
         group by host_id having count(*) > 1) as d",
    )
    .fetch_one(&pool)
    .await
    .expect("counting");
    assert_eq!(doubled, 0, "a host was allocated to two servers");
    let orphans: i64 = sqlx::query_scalar(
        "select count(*) from hosts h where h.state = 'allocated' and not exists \
         (select 1 from servers s where s.host_id = h.id)",
    )
    .fetch_one(&pool)
    .await
    .expect("counting");
    assert_eq!(orphans, 0, "an allocated host without its server");
    pool.close().await;
}

/// A second server process on the same database.
struct Replica {
    child: Child,
    base: String,
}

impl Replica {
    fn start(database_url: &str) -> Replica {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(env!("CARGO_BIN_EXE_server"))
            .env("DATABASE_URL", database_url)
            .env("LISTEN_ADDR", format!("127.0.0.1:{port}"))
            .env("PUBLIC_BASE_URL", format!("http://127.0.0.1:{port}"))
            .env("FLEET_DEV_STEP_MS", "10")
            .env("RUST_LOG", "warn")
            .spawn()
            .expect("starting a second server process");
        Replica {
            child,
            base: format!("http://127.0.0.1:{port}"),
        }
    }

    async fn wait_ready(&self) {
        for _ in 0..200 {
            if let Ok(r) = reqwest::get(format!("{}/readyz", self.base)).await {
                if r.status().is_success() {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the second server process never became ready");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
