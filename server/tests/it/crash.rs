//! Crashes lose nothing (PostgreSQL): the server process is killed with
//! SIGKILL in the middle of an order storm while servers install, then
//! started again. Customers retry what got no answer, with the same
//! idempotency key, as a browser's resubmit does. Afterwards every host is
//! counted once, no order is both placed and lost, every provisioning job
//! finished exactly once and invoice numbers have no gap. The same again
//! in the middle of a burst of Stripe webhooks: every event answered 2xx
//! is kept and applied exactly once.

use crate::common::{self, csrf_token, hidden, TestApp, TestDb};
use std::process::{Child, Command};
use std::time::Duration;

const HOSTS: usize = 12;
const ORDERS: usize = 40;

/// The server binary on the test's database, on a port of its own.
struct Process {
    child: Child,
    base: String,
}

impl Process {
    async fn start(database_url: &str, port: u16) -> Process {
        Process::start_with(database_url, port, &[]).await
    }

    async fn start_with(database_url: &str, port: u16, env: &[(&str, &str)]) -> Process {
        let base = format!("http://127.0.0.1:{port}");
        // Owned by `Process` at once, whose drop kills and reaps it.
        let process = Process {
            child: Command::new(env!("CARGO_BIN_EXE_server"))
                .envs(env.iter().copied())
                .env("DATABASE_URL", database_url)
                .env("LISTEN_ADDR", format!("127.0.0.1:{port}"))
                .env("PUBLIC_BASE_URL", &base)
                .env("FLEET_DEV_STEP_MS", "150")
                .env("RUST_LOG", "warn")
                .spawn()
                .expect("starting the server process"),
            base: base.clone(),
        };
        for _ in 0..400 {
            if let Ok(r) = reqwest::get(format!("{base}/readyz")).await {
                if r.status().is_success() {
                    return process;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the server process never became ready");
    }

    /// SIGKILL: no graceful shutdown, transactions cut where they are.
    fn kill(mut self) {
        self.child.kill().expect("killing the server");
        self.child.wait().expect("reaping the server");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Attempt {
    browser: reqwest::Client,
    csrf: String,
    key: String,
}

/// Posts an order; answers the status and location, or `None` when the
/// connection died (the process was killed).
async fn submit(base: &str, a: &Attempt) -> Option<(u16, String)> {
    let form = [
        ("plan", "g-l40s-x2"),
        ("site", "lax"),
        ("idempotency_key", a.key.as_str()),
        ("csrf", a.csrf.as_str()),
        ("intent", "place"),
        ("name", "storm"),
        ("image", "ubuntu-24.04"),
        ("country", "DE"),
    ];
    let response = a
        .browser
        .post(format!("{base}/en/order"))
        .form(&form)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    Some((status, location))
}

async fn scalar(db: &backend::Db, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&db.pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_server_loses_no_order_host_job_or_invoice_on_postgres() {
    // The test's own application only signs customers up; the process
    // under test does all the work.
    let app = TestApp::spawn_configured(TestDb::Postgres, backend::Clock::system(), |c| {
        c.run_workers = false;
    })
    .await;
    app.rack("lax", "g-l40s-x2", HOSTS);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let process = Process::start(&app.database_url, port).await;
    let base = process.base.clone();
    let mut buyers = Vec::new();
    for i in 0..4 {
        buyers.push(
            app.member(
                &format!("storm{i}@example.com"),
                "Buyer",
                &format!("Storm {i}"),
            )
            .await,
        );
    }
    // Cookies are per host, not port: the sessions work on the process too.
    let mut attempts = Vec::new();
    for n in 0..ORDERS {
        let browser = buyers[n % buyers.len()].clone();
        let page = browser
            .get(format!("{base}/en/order?plan=g-l40s-x2&site=lax"))
            .send()
            .await
            .expect("the order form");
        let body = page.text().await.expect("body");
        attempts.push(Attempt {
            browser,
            csrf: csrf_token(&body),
            key: hidden(&body, "idempotency_key"),
        });
    }
    // The storm, and the kill in its middle: once a quarter of the orders
    // were answered (their servers installing), the rest in flight.
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let storm: Vec<_> = attempts
        .iter()
        .map(|a| {
            let base = base.clone();
            let answered = answered.clone();
            let a = Attempt {
                browser: a.browser.clone(),
                csrf: a.csrf.clone(),
                key: a.key.clone(),
            };
            tokio::spawn(async move {
                let answer = submit(&base, &a).await;
                answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                answer
            })
        })
        .collect();
    for _ in 0..400 {
        if answered.load(std::sync::atomic::Ordering::SeqCst) >= ORDERS / 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    process.kill();
    let mut first = Vec::new();
    for task in storm {
        first.push(task.await.expect("joined"));
    }
    let unanswered = first.iter().filter(|r| r.is_none()).count();

    // Started again; what got no answer is sent again, same key.
    let process = Process::start(&app.database_url, port).await;
    let mut servers = std::collections::BTreeSet::new();
    let mut sold_out = 0;
    for (a, answer) in attempts.iter().zip(&first) {
        let answer = match answer {
            Some(answer) => answer.clone(),
            None => submit(&process.base, a)
                .await
                .expect("answered after the restart"),
        };
        match answer {
            (303, location) if location.starts_with("/en/servers/") => {
                assert!(
                    servers.insert(common::server_id(&location)),
                    "one server per order"
                );
            }
            (409, _) => sold_out += 1,
            other => panic!("unexpected answer {other:?}"),
        }
    }
    assert_eq!(
        servers.len(),
        HOSTS,
        "exactly the hosts there were were sold"
    );
    assert_eq!(sold_out, ORDERS - HOSTS);

    // Every server installs to the end, on the restarted process.
    for id in &servers {
        let mut done = false;
        // A job the killed process held is taken over when its 60-second
        // lease runs out.
        for _ in 0..1200 {
            let mut running = false;
            for b in &buyers {
                let page = b
                    .get(format!("{}/en/servers/{id}/progress", process.base))
                    .send()
                    .await
                    .expect("progress");
                if page.status().as_u16() == 200 {
                    let p: serde_json::Value = page.json().await.unwrap_or_default();
                    running = p["state"] == "running" && p["done"] == true;
                    break;
                }
            }
            if running {
                done = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(done, "server {id} never finished installing");
    }

    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("db");
    // Every host counted once: allocated exactly when a live server has it.
    assert_eq!(
        scalar(
            &db,
            "select count(*) from hosts where site_code = 'lax' and plan_id = 'g-l40s-x2' and state = 'allocated'"
        )
        .await,
        HOSTS as i64
    );
    assert_eq!(
        scalar(
            &db,
            "select count(*) from hosts where site_code = 'lax' and plan_id = 'g-l40s-x2' and state <> 'allocated'"
        )
        .await,
        0,
        "none left held or free"
    );
    assert_eq!(
        scalar(
            &db,
            "select count(distinct host_id) from servers where host_id is not null"
        )
        .await,
        scalar(
            &db,
            "select count(*) from servers where host_id is not null"
        )
        .await,
        "no host serves two servers"
    );
    // No order both placed and lost: every placed order has its server.
    assert_eq!(
        scalar(&db, "select count(*) from orders o where not exists (select 1 from servers s where s.order_id = o.id) and o.state not in ('expired', 'failed')").await,
        0
    );
    assert_eq!(
        scalar(&db, "select count(*) from servers").await,
        HOSTS as i64
    );
    // Every provisioning job finished exactly once.
    assert_eq!(
        scalar(&db, "select count(*) from jobs where state <> 'done'").await,
        0,
        "no job left queued or dead"
    );
    assert_eq!(
        scalar(
            &db,
            "select count(*) from server_events where kind = 'running'"
        )
        .await,
        HOSTS as i64,
        "each server came up once"
    );
    // Every server's first term is invoiced (by housekeeping, every two
    // seconds), and invoice numbers have no gap.
    for _ in 0..100 {
        if scalar(
            &db,
            "select count(*) from invoices where number is not null",
        )
        .await
            >= HOSTS as i64
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let numbers: Vec<String> =
        sqlx::query_scalar("select number from invoices where number is not null order by number")
            .fetch_all(&db.pool)
            .await
            .expect("numbers");
    assert_eq!(numbers.len(), HOSTS, "{numbers:?}");
    for (i, number) in numbers.iter().enumerate() {
        assert!(
            number.ends_with(&format!("{:06}", i + 1)),
            "gap at {number}: {numbers:?}"
        );
    }
    println!("killed mid-storm: {unanswered} of {ORDERS} orders unanswered, all settled after the restart");
    drop(process);
    app.finish().await;
}

const WEBHOOK_SECRET: &str = "whsec_crash_test";
const EVENTS: usize = 200;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Delivers one signed event as Stripe does; `None` if the connection died.
async fn deliver(client: &reqwest::Client, base: &str, n: usize) -> Option<u16> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    // An event of a kind we record and otherwise ignore, in our version.
    let body = format!(
        r#"{{"id":"evt_crash_{n:04}","object":"event","api_version":"{}","type":"crash_test.happened","created":{now},"livemode":false,"pending_webhooks":1,"data":{{"object":{{"id":"thing_{n}","object":"thing"}}}}}}"#,
        backend::billing::stripe::client::api_version()
    );
    let signature = stripe_webhook::Webhook::generate_test_header(&body, WEBHOOK_SECRET, Some(now));
    let response = client
        .post(format!("{base}/stripe/webhook"))
        .header("stripe-signature", signature)
        .header("content-type", "application/json")
        .body(body)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .ok()?;
    Some(response.status().as_u16())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_server_keeps_every_accepted_webhook_on_postgres() {
    let app = TestApp::spawn_configured(TestDb::Postgres, backend::Clock::system(), |c| {
        c.run_workers = false;
    })
    .await;
    let port = free_port();
    // Stripe's API itself is not called in this test (nothing to reconcile
    // within its minutes); the address is a closed port.
    let stripe = [
        ("STRIPE_SECRET_KEY", "sk_test_crash"),
        ("STRIPE_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("STRIPE_API_BASE", "http://127.0.0.1:9"),
    ];
    let process = Process::start_with(&app.database_url, port, &stripe).await;
    let base = process.base.clone();
    let client = reqwest::Client::new();
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let burst: Vec<_> = (0..EVENTS)
        .map(|n| {
            let (client, base, answered) = (client.clone(), base.clone(), answered.clone());
            tokio::spawn(async move {
                let status = deliver(&client, &base, n).await;
                answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                status
            })
        })
        .collect();
    for _ in 0..1000 {
        if answered.load(std::sync::atomic::Ordering::SeqCst) >= EVENTS / 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    process.kill();
    let mut accepted = Vec::new();
    let mut unanswered = Vec::new();
    for (n, task) in burst.into_iter().enumerate() {
        match task.await.expect("joined") {
            Some(200) => accepted.push(n),
            _ => unanswered.push(n),
        }
    }
    let db = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("db");
    // Nothing answered 2xx was lost with the process.
    let kept: Vec<String> = sqlx::query_scalar("select id from stripe_events order by id")
        .fetch_all(&db.pool)
        .await
        .expect("events");
    for n in &accepted {
        assert!(
            kept.contains(&format!("evt_crash_{n:04}")),
            "accepted event {n} was lost"
        );
    }

    // Stripe redelivers what got no 2xx; restarted, the process applies all.
    let process = Process::start_with(&app.database_url, port, &stripe).await;
    for n in &unanswered {
        assert_eq!(
            deliver(&client, &process.base, *n).await,
            Some(200),
            "event {n}"
        );
    }
    // And a duplicate of an accepted one changes nothing.
    if let Some(n) = accepted.first() {
        assert_eq!(deliver(&client, &process.base, *n).await, Some(200));
    }
    let mut pending = i64::MAX;
    for _ in 0..1200 {
        pending = scalar(
            &db,
            "select count(*) from stripe_events where processed_at is null",
        )
        .await;
        if pending == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(pending, 0, "every event applied");
    assert_eq!(
        scalar(&db, "select count(*) from stripe_events").await,
        EVENTS as i64
    );
    assert_eq!(
        scalar(&db, "select count(*) from jobs where kind = 'stripe_event'").await,
        EVENTS as i64,
        "one apply job per event"
    );
    assert_eq!(
        scalar(
            &db,
            "select count(*) from jobs where kind = 'stripe_event' and state <> 'done'"
        )
        .await,
        0
    );
    println!(
        "killed mid-burst: {} of {EVENTS} webhooks accepted before the kill, {} redelivered",
        accepted.len(),
        unanswered.len()
    );
    drop(process);
    app.finish().await;
}
