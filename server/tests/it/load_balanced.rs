//! The product as operators deploy it: Debian's nginx running the site file
//! from `deploy/nginx/` (a throwaway certificate, ports moved to free ones)
//! in front of two server processes in production mode on one PostgreSQL
//! database, under a steady load of storefront, API and signed-in portal
//! requests. A rolling restart loses nothing and signs nobody out; a
//! replica killed outright costs at most the requests it had in flight; a
//! newer version's migration is applied once while the old version serves,
//! and the old version still starts on the migrated database (a rollback).
//! Each test prints its figures (docs/RELIABILITY.md).

use crate::common::{csrf_token, TempDir, TestApp, TestDb, PASSWORD};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Concurrent clients of the load: each sends its next request as soon as
/// the last one is answered, after a short pause (bounded: at most a few
/// hundred requests a second, on loopback only).
const CLIENTS: usize = 6;
const PAUSE: Duration = Duration::from_millis(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rolling_restart_behind_nginx_loses_no_request_and_signs_nobody_out() {
    let mut cluster = Cluster::start().await;
    let load = Load::start(&cluster).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let restart = Instant::now();
    for i in 0..2 {
        cluster.replicas[i].terminate().await;
        cluster.replicas[i].restart();
        cluster.replicas[i].wait_ready().await;
        // As the runbook says: nginx takes a replica it saw fail back only
        // after its fail_timeout (2 s), so the next waits a little longer.
        tokio::time::sleep(Duration::from_secs(4)).await;
    }
    let restarted = Instant::now();
    let samples = load.stop().await;
    let report = Report::of(&samples);
    let during = Report::of(&window(&samples, restart, restarted));
    eprintln!("rolling restart: whole run {report}; during the restarts {during}");
    assert!(report.sent > 200, "the load ran: {report}");
    assert_eq!(
        report.failed,
        0,
        "{report}: {:?}\n{}",
        failures(&samples),
        cluster.nginx.errors()
    );
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_replica_costs_at_most_its_requests_in_flight() {
    let mut cluster = Cluster::start().await;
    let load = Load::start(&cluster).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let killed = Instant::now();
    cluster.replicas[0].kill();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let samples = load.stop().await;
    let report = Report::of(&samples);
    let first_seconds = Report::of(&window(&samples, killed, killed + Duration::from_secs(2)));
    let after = Report::of(&window(
        &samples,
        killed + Duration::from_secs(2),
        Instant::now(),
    ));
    eprintln!(
        "kill -9: whole run {report}; first 2 s after the kill {first_seconds}; after that {after}"
    );
    // In flight on the killed replica: at most one request per client.
    assert!(
        report.failed <= CLIENTS,
        "{report}: {:?}",
        failures(&samples)
    );
    // Within two seconds nginx sends everything to the survivor.
    assert!(after.sent > 100, "{after}");
    assert_eq!(after.failed, 0, "{after}: {:?}", failures(&samples));
    cluster.finish().await;
}

/// An engineer's serial console is a WebSocket held by one replica. When
/// that replica dies, the page's script asks for a new ticket and opens the
/// console again: through nginx, on the replica still running.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_console_on_a_dead_replica_reconnects_through_the_other_with_a_new_ticket() {
    let mut cluster = Cluster::start().await;
    let (_, id) = cluster
        .app
        .owner_with_running_server(&[("name", "lb-console")])
        .await;
    let engineer = cluster.nginx.signed_in("owner@a.example").await;
    let mut console = engineer.serial_console(&id).await;
    console.read_until("login: ").await;
    // Which replica holds it is nginx's choice: kill one, and if the console
    // stays open it was the other's, which is killed in turn once the first
    // is back and nginx uses it again.
    cluster.replicas[0].kill();
    if !console.closes_within(Duration::from_secs(3)).await {
        cluster.replicas[0].restart();
        cluster.replicas[0].wait_ready().await;
        tokio::time::sleep(Duration::from_secs(4)).await;
        cluster.replicas[1].kill();
        assert!(
            console.closes_within(Duration::from_secs(3)).await,
            "a console outlived both replicas"
        );
    }
    let started = Instant::now();
    let mut again = engineer.serial_console(&id).await;
    again.read_until("login: ").await;
    eprintln!(
        "console: reconnected through the surviving replica in {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    cluster.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_versions_migration_applies_once_while_the_old_version_serves() {
    let mut cluster = Cluster::start().await;
    let load = Load::start(&cluster).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    // The new version: this build's migrations and one more, additive (a
    // nullable column and an index: what may ship between two versions that
    // run side by side, docs/OPERATIONS.md). Two of its replicas start at
    // once and both apply what is pending, as `server serve` does.
    let newer = TempDir::new();
    let migrations = concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations");
    for entry in std::fs::read_dir(migrations).expect("reading migrations") {
        let path = entry.expect("a migration").path();
        let name = path.file_name().expect("a file name").to_owned();
        std::fs::copy(&path, std::path::Path::new(&newer.path).join(name)).expect("copying");
    }
    std::fs::write(
        format!("{}/29991231000000_side_by_side.sql", newer.path),
        "alter table servers add column side_by_side_note text;\n\
         create index servers_side_by_side on servers (side_by_side_note);\n",
    )
    .expect("writing the newer version's migration");
    let mut starting = tokio::task::JoinSet::new();
    for _ in 0..2 {
        let (dir, url) = (newer.path.clone(), cluster.app.database_url.clone());
        starting.spawn(async move {
            let migrator = sqlx::migrate::Migrator::new(std::path::Path::new(&dir))
                .await
                .expect("reading the newer migrations");
            let pool = sqlx::PgPool::connect(&url).await.expect("connecting");
            migrator.run(&pool).await.expect("migrating");
            pool.close().await;
        });
    }
    while let Some(done) = starting.join_next().await {
        done.expect("a new replica's migration");
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    // The old version keeps serving; one of its replicas restarts (a crash,
    // or a rollback) and comes back on the migrated database.
    cluster.replicas[0].terminate().await;
    cluster.replicas[0].restart();
    cluster.replicas[0].wait_ready().await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let samples = load.stop().await;
    let report = Report::of(&samples);
    eprintln!("a newer version's migration while the old one serves: {report}");
    assert_eq!(report.failed, 0, "{report}: {:?}", failures(&samples));
    let pool = sqlx::PgPool::connect(&cluster.app.database_url)
        .await
        .expect("connecting");
    let applied: i64 =
        sqlx::query_scalar("select count(*) from _sqlx_migrations where version = 29991231000000")
            .fetch_one(&pool)
            .await
            .expect("reading the migrations table");
    assert_eq!(applied, 1, "applied once");
    pool.close().await;
    cluster.finish().await;
}

/// nginx in front of two replicas, a signed-in customer, and the test app
/// (in-process, on the same database) for setting things up.
struct Cluster {
    app: TestApp,
    replicas: Vec<Replica>,
    nginx: Nginx,
    /// A browser signed in through nginx.
    customer: reqwest::Client,
}

impl Cluster {
    async fn start() -> Cluster {
        let app = TestApp::spawn(TestDb::Postgres).await;
        app.member("lb@example.com", "Lou Balancer", "Balanced Loads")
            .await;
        let nginx_ports = (free_port(), free_port());
        let public = format!("https://127.0.0.1:{}", nginx_ports.1);
        let replicas: Vec<Replica> = (0..2)
            .map(|_| Replica::start(&app.database_url, free_port(), &public))
            .collect();
        for replica in &replicas {
            replica.wait_ready().await;
        }
        let nginx = Nginx::start(nginx_ports, [replicas[0].port, replicas[1].port]);
        nginx.wait_ready().await;
        let customer = nginx.signed_in("lb@example.com").await.browser;
        Cluster {
            app,
            replicas,
            nginx,
            customer,
        }
    }

    async fn finish(self) {
        drop(self.nginx);
        drop(self.replicas);
        self.app.finish().await;
    }
}

async fn get(client: &reqwest::Client, url: &str) -> String {
    client
        .get(url)
        .send()
        .await
        .expect("a request through nginx")
        .text()
        .await
        .expect("a body")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A server process in production mode, as `deploy/env.example` sets one
/// up behind nginx.
struct Replica {
    child: Option<Child>,
    port: u16,
    database_url: String,
    public: String,
}

impl Replica {
    fn start(database_url: &str, port: u16, public: &str) -> Replica {
        let mut replica = Replica {
            child: None,
            port,
            database_url: database_url.to_owned(),
            public: public.to_owned(),
        };
        replica.restart();
        replica
    }

    fn restart(&mut self) {
        let child = Command::new(env!("CARGO_BIN_EXE_server"))
            .env("APP_ENV", "production")
            .env("SECRET_KEY", "5e".repeat(32))
            .env("DATABASE_URL", &self.database_url)
            .env("LISTEN_ADDR", format!("127.0.0.1:{}", self.port))
            .env("PUBLIC_BASE_URL", &self.public)
            .env("CLIENT_IP_HEADER", "x-forwarded-for")
            .env(
                "LEPTOS_SITE_ROOT",
                concat!(env!("CARGO_MANIFEST_DIR"), "/../public"),
            )
            .env("SELLER_IBAN", "NL91 ABNA 0417 1643 00")
            .env("SELLER_REGISTER", "KvK 12345678")
            .env("SUPPORT_EMAIL", "support@gpu.test")
            .env("FLEET_DEV_STEP_MS", "10")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .expect("starting a server process");
        self.child = Some(child);
    }

    async fn wait_ready(&self) {
        let url = format!("http://127.0.0.1:{}/readyz", self.port);
        for _ in 0..300 {
            if let Ok(r) = reqwest::get(&url).await {
                if r.status().is_success() {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the replica on port {} never became ready", self.port);
    }

    /// SIGTERM, as systemd stops a unit, and waits for the drain.
    async fn terminate(&mut self) {
        let mut child = self.child.take().expect("a running replica");
        signal(&child, "-TERM");
        let status = tokio::task::spawn_blocking(move || child.wait())
            .await
            .expect("waiting")
            .expect("the replica's exit");
        assert!(
            status.success(),
            "a drained replica exits cleanly: {status}"
        );
    }

    /// SIGKILL: a crash, nothing finished.
    fn kill(&mut self) {
        let mut child = self.child.take().expect("a running replica");
        signal(&child, "-KILL");
        let _ = child.wait();
    }
}

fn signal(child: &Child, which: &str) {
    let sent = Command::new("kill")
        .args([which, &child.id().to_string()])
        .status()
        .expect("running kill");
    assert!(sent.success(), "kill {which}");
}

impl Drop for Replica {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// nginx running `deploy/nginx/gpu-storefront.conf` from a temporary
/// prefix: the same file, with the replicas' ports, free ports for 80 and
/// 443, a throwaway certificate for 127.0.0.1 and its logs in the prefix.
struct Nginx {
    child: Child,
    https_port: u16,
    certificate: Vec<u8>,
    certificate_der: Vec<u8>,
    dir: TempDir,
}

impl Nginx {
    fn start((http_port, https_port): (u16, u16), replicas: [u16; 2]) -> Nginx {
        let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .expect(
                "nginx is not installed: scripts/test.sh installs Debian's (apt-get install nginx)",
            );
        let dir = TempDir::new();
        let made = Command::new("openssl")
            .args([
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
            ])
            .args(["-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"])
            .args(["-addext", "subjectAltName=IP:127.0.0.1"])
            // A server certificate, not a CA's (rustls refuses those).
            .args(["-addext", "basicConstraints=critical,CA:FALSE"])
            .args(["-addext", "extendedKeyUsage=serverAuth"])
            .args(["-keyout", &format!("{}/key.pem", dir.path)])
            .args(["-out", &format!("{}/cert.pem", dir.path)])
            .stderr(Stdio::null())
            .status()
            .expect("running openssl");
        assert!(made.success(), "making a throwaway certificate");
        let site = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../deploy/nginx/gpu-storefront.conf"
        ))
        .expect("reading deploy/nginx/gpu-storefront.conf");
        let replaced = [
            (
                "server 127.0.0.1:3001 ",
                format!("server 127.0.0.1:{} ", replicas[0]),
            ),
            (
                "server 127.0.0.1:3002 ",
                format!("server 127.0.0.1:{} ", replicas[1]),
            ),
            ("listen 80;", format!("listen 127.0.0.1:{http_port};")),
            ("listen [::]:80;", String::new()),
            (
                "listen 443 ssl",
                format!("listen 127.0.0.1:{https_port} ssl"),
            ),
            ("listen [::]:443 ssl http2;", String::new()),
            (
                "/etc/ssl/certs/gpu-storefront.pem",
                format!("{}/cert.pem", dir.path),
            ),
            (
                "/etc/ssl/private/gpu-storefront.key",
                format!("{}/key.pem", dir.path),
            ),
            ("/var/log/nginx/", format!("{}/", dir.path)),
        ];
        let mut site = site;
        for (from, to) in replaced {
            assert!(
                site.contains(from),
                "the site file has changed: no {from:?}"
            );
            site = site.replace(from, &to);
        }
        std::fs::write(format!("{}/site.conf", dir.path), site).expect("writing the site");
        let d = &dir.path;
        std::fs::write(
            format!("{d}/nginx.conf"),
            format!(
                "daemon off;\nworker_processes 2;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
                 events {{ worker_connections 1024; }}\n\
                 http {{\n  access_log {d}/access.log;\n  client_body_temp_path {d}/body;\n\
                 proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n\
                 uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  include {d}/site.conf;\n}}\n"
            ),
        )
        .expect("writing nginx.conf");
        let child = Command::new(binary)
            .args([
                "-p",
                d,
                "-c",
                &format!("{d}/nginx.conf"),
                "-e",
                &format!("{d}/error.log"),
            ])
            .stdout(Stdio::null())
            .spawn()
            .expect("starting nginx");
        let certificate = std::fs::read(format!("{d}/cert.pem")).expect("reading the certificate");
        let der = Command::new("openssl")
            .args(["x509", "-in", &format!("{d}/cert.pem"), "-outform", "DER"])
            .output()
            .expect("running openssl");
        assert!(der.status.success(), "the certificate as DER");
        Nginx {
            child,
            https_port,
            certificate,
            certificate_der: der.stdout,
            dir,
        }
    }

    /// The end of nginx's error log, for a failure's message.
    fn errors(&self) -> String {
        let log = std::fs::read_to_string(format!("{}/gpu-storefront.error.log", self.dir.path))
            .unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines
            .iter()
            .filter(|l| !l.contains("no live upstreams"))
            .take(15)
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.https_port)
    }

    /// A browser that trusts the throwaway certificate and keeps its
    /// cookies in `jar`.
    fn browser(&self, jar: Arc<reqwest::cookie::Jar>) -> reqwest::Client {
        reqwest::Client::builder()
            .add_root_certificate(
                reqwest::Certificate::from_pem(&self.certificate).expect("the certificate"),
            )
            .cookie_provider(jar)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(20))
            .build()
            .expect("building a browser")
    }

    /// A browser signed in through nginx as `email` (password: PASSWORD),
    /// with its cookies at hand for a WebSocket handshake.
    async fn signed_in(&self, email: &str) -> Engineer {
        let jar = Arc::new(reqwest::cookie::Jar::default());
        let browser = self.browser(jar.clone());
        let login = get(&browser, &self.url("/en/login")).await;
        let response = browser
            .post(self.url("/en/login"))
            .form(&[
                ("csrf", csrf_token(&login).as_str()),
                ("email", email),
                ("password", PASSWORD),
            ])
            .send()
            .await
            .expect("signing in through nginx");
        assert_eq!(response.status().as_u16(), 303, "signing in as {email}");
        Engineer {
            browser,
            jar,
            origin: self.url(""),
            certificate_der: self.certificate_der.clone(),
        }
    }

    async fn wait_ready(&self) {
        let client = self.browser(Arc::default());
        let mut last = String::new();
        for _ in 0..200 {
            match client.get(self.url("/readyz")).send().await {
                Ok(r) if r.status().is_success() => return,
                Ok(r) => last = format!("{}", r.status()),
                Err(error) => last = format!("{error:?}"),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let log = std::fs::read_to_string(format!("{}/error.log", self.dir.path));
        panic!("nginx never answered: {last}; {log:?}");
    }
}

impl Drop for Nginx {
    /// SIGTERM, so the master stops its workers (after SIGKILL they would
    /// live on, holding the ports).
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// One request of the load.
#[derive(Clone, Debug)]
struct Sample {
    at: Instant,
    took: Duration,
    path: &'static str,
    /// The status, or 0 when no answer came.
    status: u16,
}

impl Sample {
    fn ok(&self) -> bool {
        self.status == 200
    }
}

/// Steady traffic through nginx: the storefront in both languages, the
/// public API's stock, and the signed-in customer's servers page (a 303 to
/// the sign-in page there would mean a lost session).
struct Load {
    stop: Arc<AtomicBool>,
    clients: tokio::task::JoinSet<Vec<Sample>>,
}

impl Load {
    async fn start(cluster: &Cluster) -> Load {
        const PATHS: [&str; 4] = ["/en", "/zh", "/api/v1/stock", "/en/servers"];
        let stop = Arc::new(AtomicBool::new(false));
        let mut clients = tokio::task::JoinSet::new();
        for n in 0..CLIENTS {
            let (stop, client) = (stop.clone(), cluster.customer.clone());
            let base = cluster.nginx.url("");
            clients.spawn(async move {
                let mut samples = Vec::new();
                let mut i = n;
                while !stop.load(Ordering::Relaxed) {
                    let path = PATHS[i % PATHS.len()];
                    i += 1;
                    let at = Instant::now();
                    let status = match client.get(format!("{base}{path}")).send().await {
                        Ok(response) => {
                            let status = response.status().as_u16();
                            // The whole body: a response cut off is a failure.
                            match response.bytes().await {
                                Ok(_) => status,
                                Err(_) => 0,
                            }
                        }
                        Err(_) => 0,
                    };
                    samples.push(Sample {
                        at,
                        took: at.elapsed(),
                        path,
                        status,
                    });
                    tokio::time::sleep(PAUSE).await;
                }
                samples
            });
        }
        Load { stop, clients }
    }

    async fn stop(mut self) -> Vec<Sample> {
        self.stop.store(true, Ordering::Relaxed);
        let mut all = Vec::new();
        while let Some(samples) = self.clients.join_next().await {
            all.extend(samples.expect("a load client"));
        }
        all.sort_by_key(|s| s.at);
        all
    }
}

fn window(samples: &[Sample], from: Instant, to: Instant) -> Vec<Sample> {
    samples
        .iter()
        .filter(|s| s.at >= from && s.at < to)
        .cloned()
        .collect()
}

fn failures(samples: &[Sample]) -> Vec<(&'static str, u16)> {
    samples
        .iter()
        .filter(|s| !s.ok())
        .map(|s| (s.path, s.status))
        .take(20)
        .collect()
}

struct Report {
    sent: usize,
    failed: usize,
    p50: Duration,
    p99: Duration,
    max: Duration,
}

impl Report {
    fn of(samples: &[Sample]) -> Report {
        let mut took: Vec<Duration> = samples.iter().map(|s| s.took).collect();
        took.sort();
        let at = |q: f64| {
            took.get(((took.len() as f64 * q) as usize).min(took.len().saturating_sub(1)))
                .copied()
                .unwrap_or_default()
        };
        Report {
            sent: samples.len(),
            failed: samples.iter().filter(|s| !s.ok()).count(),
            p50: at(0.5),
            p99: at(0.99),
            max: took.last().copied().unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} sent, {} failed, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            self.sent,
            self.failed,
            self.p50.as_secs_f64() * 1e3,
            self.p99.as_secs_f64() * 1e3,
            self.max.as_secs_f64() * 1e3
        )
    }
}

/// A signed-in browser that opens consoles as the page's script does: a
/// ticket from the portal, then a WebSocket (wss, through nginx) with it.
struct Engineer {
    browser: reqwest::Client,
    jar: Arc<reqwest::cookie::Jar>,
    origin: String,
    certificate_der: Vec<u8>,
}

impl Engineer {
    async fn serial_console(&self, server: &str) -> Console {
        use reqwest::cookie::CookieStore;
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let response = self
            .browser
            .post(format!(
                "{}/en/servers/{server}/console/serial",
                self.origin
            ))
            .header("origin", &self.origin)
            .header("sec-fetch-site", "same-origin")
            .form(&[("x", "")])
            .send()
            .await
            .expect("asking for a ticket");
        assert_eq!(response.status().as_u16(), 200, "a console ticket");
        let ticket: serde_json::Value = response.json().await.expect("the ticket");
        let path = ticket["url"].as_str().expect("the ticket's URL");
        let url = format!("{}{path}", self.origin.replace("https://", "wss://"));
        let cookies = self
            .jar
            .cookies(&self.origin.parse().expect("the origin"))
            .expect("the session cookie");
        let mut request = url.into_client_request().expect("a WebSocket request");
        request.headers_mut().insert("cookie", cookies);
        request
            .headers_mut()
            .insert("origin", self.origin.parse().expect("the origin header"));
        // TLS by hand, then the WebSocket over it: TLS features on
        // tokio-tungstenite would change the axum the tests build, and the
        // run command would no longer share the tests' build.
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(self.certificate_der.clone().into())
            .expect("trusting the certificate");
        let tls = rustls::ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let host = self.origin.trim_start_matches("https://");
        let tcp = tokio::net::TcpStream::connect(host)
            .await
            .expect("connecting to nginx");
        let name = rustls::pki_types::ServerName::try_from("127.0.0.1").expect("a server name");
        let stream = tokio_rustls::TlsConnector::from(Arc::new(tls))
            .connect(name, tcp)
            .await
            .expect("TLS with nginx");
        let (socket, _) = tokio_tungstenite::client_async(request, stream)
            .await
            .expect("the console opens through nginx");
        Console {
            socket,
            seen: String::new(),
        }
    }
}

struct Console {
    socket:
        tokio_tungstenite::WebSocketStream<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>,
    seen: String,
}

impl Console {
    async fn read_until(&mut self, text: &str) {
        use futures_util::StreamExt;
        use tokio_tungstenite::tungstenite::Message;
        while !self.seen.contains(text) {
            let next = tokio::time::timeout(Duration::from_secs(10), self.socket.next())
                .await
                .unwrap_or_else(|_| panic!("no {text:?} within 10 s; saw {:?}", self.seen));
            match next {
                Some(Ok(Message::Binary(bytes))) => {
                    self.seen.push_str(&String::from_utf8_lossy(&bytes))
                }
                Some(Ok(Message::Text(text))) => self.seen.push_str(&text),
                Some(Ok(_)) => {}
                other => panic!("the console closed before {text:?}: {other:?}"),
            }
        }
    }

    /// Whether the console ends (closed, reset, or cut) within `limit`.
    async fn closes_within(&mut self, limit: Duration) -> bool {
        use futures_util::StreamExt;
        use tokio_tungstenite::tungstenite::Message;
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            match tokio::time::timeout_at(deadline, self.socket.next()).await {
                Err(_) => return false,
                Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_)))) => return true,
                Ok(Some(Ok(_))) => {}
            }
        }
    }
}
