//! The database goes away and comes back (PostgreSQL, reached through a TCP
//! proxy the test can cut): portal pages answer the translated 503 (never a
//! sign-in redirect), `/readyz` fails, the storefront keeps serving its last
//! page with the stock stated "as of" the last moment the database confirmed
//! it, and everything recovers by itself when the database returns.

use crate::common::{self, TestApp, TestDb};
use backend::Clock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;

/// A loopback TCP proxy to PostgreSQL that can drop every connection and
/// refuse new ones, as a database host that went away does.
struct Proxy {
    port: u16,
    up: Arc<AtomicBool>,
    cut: broadcast::Sender<()>,
}

impl Proxy {
    async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binding");
        let port = listener.local_addr().expect("port").port();
        let up = Arc::new(AtomicBool::new(true));
        let (cut, _) = broadcast::channel(4);
        let (accept_up, accept_cut) = (up.clone(), cut.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !accept_up.load(Ordering::SeqCst) {
                    continue; // dropped: the connection is reset
                }
                let upstream = upstream.clone();
                let mut cut = accept_cut.subscribe();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(&upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.recv() => {}
                    }
                });
            }
        });
        Proxy { port, up, cut }
    }

    fn down(&self) {
        self.up.store(false, Ordering::SeqCst);
        let _ = self.cut.send(());
    }

    fn up(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// `host:port` of a `postgres://user@host:port/db?…` URL.
fn authority(url: &str) -> String {
    let rest = url.split("://").nth(1).unwrap_or_default();
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    rest.split(['/', '?']).next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_goes_away_and_comes_back_on_postgres() {
    let direct = authority(&common::postgres_url());
    let proxy = Proxy::start(direct.clone()).await;
    let through = format!("127.0.0.1:{}", proxy.port);
    let clock = Clock::manual(1_796_000_010);
    let app = TestApp::spawn_configured(TestDb::Postgres, clock.clone(), |config| {
        let url = config.database_url.expose().replacen(&direct, &through, 1);
        config.database_url = server::config::Redacted(url);
    })
    .await;
    let owner = app.member("calm@a.example", "Calm", "Calm Ltd").await;
    let confirmed = domain::time::format_datetime(clock.now());
    let home = app.get("/en").await;
    assert_eq!(home.status, 200);
    assert!(home.body.contains(&confirmed), "stock read at {confirmed}");

    clock.advance(60);
    proxy.down();
    let home = app.get("/en").await;
    assert_eq!(home.status, 200, "the last page is served");
    assert!(
        home.body.contains(&confirmed),
        "its stock is as of the last confirmation, not now"
    );
    assert!(!home
        .body
        .contains(&domain::time::format_datetime(clock.now())));
    let servers = app.get_as(&owner, "/en/servers").await;
    assert_eq!(servers.status, 503, "{}", servers.body);
    assert!(servers.location().is_empty(), "not a sign-in redirect");
    assert!(
        common::strip_tags(&servers.body).contains("We can’t show this page right now"),
        "{}",
        common::strip_tags(&servers.body)
    );
    let zh = app.get_as(&owner, "/zh/servers").await;
    assert_eq!(zh.status, 503);
    assert!(zh.body.contains("lang=\"zh"), "translated");
    assert_eq!(app.get("/readyz").await.status, 503);
    // The API answers its own shape, worded for the caller, with no cause.
    let zh = [("accept-language", "zh-CN,zh;q=0.9")];
    let feed = app
        .api("GET", "/api/v1/stock/feed.atom", None, None, &zh)
        .await;
    assert_eq!((feed.status, feed.code().as_str()), (503, "unavailable"));
    assert_eq!(feed.header("content-language"), "zh");
    let english = app
        .api("GET", "/api/v1/stock/feed.atom?lang=en", None, None, &zh)
        .await;
    assert_eq!(english.header("content-language"), "en", "?lang= wins");

    proxy.up();
    let mut ready = false;
    for _ in 0..60 {
        if app.get("/readyz").await.status == 200 {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    assert!(ready, "readiness comes back by itself");
    let home = app.get("/en").await;
    assert!(home
        .body
        .contains(&domain::time::format_datetime(clock.now())));
    assert_eq!(
        app.get_as(&owner, "/en/servers").await.status,
        200,
        "still signed in"
    );
    app.finish().await;
}
