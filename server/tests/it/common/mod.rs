//! A real application per test, on a fresh database: a SQLite file in a
//! temporary folder, or a PostgreSQL schema of its own. Tests talk to it
//! over HTTP and through the operator subcommands, never through tables.

pub mod api;
pub mod api_client;
pub mod billing_profile;
pub mod console;
pub mod contract;
pub mod redfish_bmc;
pub mod stripe_double;
pub mod vies_double;

use server::config::Config;
use server::startup::Application;
use std::process::Command;

#[derive(Clone, Copy, Debug)]
pub enum TestDb {
    Sqlite,
    Postgres,
}

pub struct TestApp {
    pub base: String,
    pub database_url: String,
    pub client: reqwest::Client,
    cleanup: Option<(String, String)>,
    _dir: Option<TempDir>,
}

pub struct Page {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

/// The PostgreSQL server tests use; the test script provides one.
pub fn postgres_url() -> String {
    std::env::var("TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

impl TestApp {
    pub async fn spawn(db: TestDb) -> TestApp {
        TestApp::spawn_with_clock(db, backend::Clock::system()).await
    }

    pub async fn spawn_with_clock(db: TestDb, clock: backend::Clock) -> TestApp {
        TestApp::spawn_configured(db, clock, |_| {}).await
    }

    pub async fn spawn_configured(
        db: TestDb,
        clock: backend::Clock,
        adjust: impl FnOnce(&mut Config),
    ) -> TestApp {
        let (database_url, cleanup, dir) = match db {
            TestDb::Sqlite => {
                let dir = TempDir::new();
                (
                    format!("sqlite:{}/gpu.db?mode=rwc", dir.path),
                    None,
                    Some(dir),
                )
            }
            TestDb::Postgres => {
                let base = postgres_url();
                let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
                let mut admin = connect_postgres(&base).await;
                sqlx::query(&format!("create schema {schema}"))
                    .execute(&mut admin)
                    .await
                    .expect("creating a test schema");
                let sep = if base.contains('?') { '&' } else { '?' };
                (
                    format!("{base}{sep}options=-c%20search_path%3D{schema}"),
                    Some((base, schema)),
                    None,
                )
            }
        };
        let mut config = Config::for_database(&database_url);
        config.public_base_url = "https://gpu.example.com".to_owned();
        // The static assets as committed (cargo-leptos copies them to the site).
        config.site_root = concat!(env!("CARGO_MANIFEST_DIR"), "/../public").into();
        adjust(&mut config);
        let app = Application::build_with_clock(config, clock)
            .await
            .expect("starting the application");
        let base = format!("http://127.0.0.1:{}", app.port());
        tokio::spawn(app.run_until_stopped());
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("building the HTTP client");
        TestApp {
            base,
            database_url,
            client,
            cleanup,
            _dir: dir,
        }
    }

    pub async fn get(&self, path: &str) -> Page {
        self.get_with(path, &[]).await
    }

    pub async fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Page {
        let mut request = self.client.get(format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("sending the request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.text().await.expect("reading the body");
        contract::check("GET", path, status, &headers, &body);
        Page {
            status,
            headers,
            body,
        }
    }

    /// A browser of its own: a cookie jar, no automatic redirects.
    pub fn browser(&self) -> reqwest::Client {
        reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("building a browser")
    }

    pub async fn get_as(&self, browser: &reqwest::Client, path: &str) -> Page {
        let response = browser
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("sending the request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        Page {
            status,
            headers,
            body: response.text().await.expect("reading the body"),
        }
    }

    /// Posts a form the way a page of ours does: with the page's CSRF token
    /// (read from `token_page`) and no Origin header, like an old browser.
    pub async fn post_as(
        &self,
        browser: &reqwest::Client,
        token_page: &str,
        path: &str,
        fields: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Page {
        let mut page = self.get_as(browser, token_page).await;
        // The login page sends a signed-in browser to its account (and on
        // to two-factor enrolment): the session's token is on that page.
        for _ in 0..2 {
            if page.status != 303 || !token_page.ends_with("/login") {
                break;
            }
            let next = page.location().to_owned();
            page = self.get_as(browser, &next).await;
        }
        let csrf = csrf_token(&page.body);
        let mut form: Vec<(&str, &str)> = fields.to_vec();
        form.push(("csrf", &csrf));
        let mut request = browser.post(format!("{}{path}", self.base)).form(&form);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("posting the form");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        Page {
            status,
            headers,
            body: response.text().await.expect("reading the body"),
        }
    }

    /// Where a form's redirect leads, as the browser would load it next
    /// (post/redirect/get); any other answer as it is.
    pub async fn follow(&self, browser: &reqwest::Client, page: Page) -> Page {
        if page.status != 303 {
            return page;
        }
        let to = page
            .location()
            .split('#')
            .next()
            .unwrap_or_default()
            .to_owned();
        self.get_as(browser, &to).await
    }

    /// The newest mail to an address, from the outbox subcommand.
    pub fn last_mail(&self, to: &str) -> String {
        self.ops_ok(&["mail", "outbox", "--to", to, "--limit", "1"])
    }

    /// The path of the first link to this site in the newest mail to `to`.
    pub fn mailed_link(&self, to: &str) -> String {
        let mail = self.last_mail(to);
        let at = mail
            .find("https://gpu.example.com")
            .unwrap_or_else(|| panic!("no link in {mail}"));
        let link = mail[at..].split_whitespace().next().unwrap_or_default();
        link.trim_start_matches("https://gpu.example.com")
            .to_owned()
    }

    /// Signs up (English, the given name and company), confirms the email,
    /// gives the new organization its billing profile (so it can order) and
    /// returns a browser logged in as that user.
    pub async fn member(&self, email: &str, name: &str, company: &str) -> reqwest::Client {
        let b = self.signed_up(email, name, company).await;
        // An invoice needs a customer: the organization gives its billing
        // details before its first order (its name from sign-up).
        let legal_name = if company.is_empty() { name } else { company };
        self.give_billing_profile(&b, legal_name, "DE", email).await;
        b
    }

    /// Signs up and confirms like `member`, without a billing profile yet.
    pub async fn signed_up(&self, email: &str, name: &str, company: &str) -> reqwest::Client {
        let b = self.browser();
        let fields = [
            ("name", name),
            ("email", email),
            ("password", PASSWORD),
            ("company", company),
            ("lang", "en"),
        ];
        let page = self
            .post_as(&b, "/en/signup", "/en/signup", &fields, &[])
            .await;
        assert_eq!(page.location(), "/en/signup?sent=1", "{}", page.body);
        let link = self.mailed_link(email);
        let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
        self.post_as(&b, &link, "/en/verify", &[("token", &token)], &[])
            .await;
        let page = self
            .post_as(
                &b,
                "/en/login",
                "/en/login",
                &[("email", email), ("password", PASSWORD)],
                &[],
            )
            .await;
        // A new owner's home is their servers.
        assert_eq!(page.location(), "/en/servers", "{}", page.body);
        b
    }

    /// Runs an operator subcommand of the real binary against this database.
    pub fn ops(&self, args: &[&str]) -> (bool, String) {
        self.ops_env(args, &[])
    }

    /// An operator subcommand with settings that would come from the
    /// environment (`STRIPE_API_BASE` is given as `--stripe-api-base`):
    /// (succeeded, what it wrote, or the error as `main` prints it). It
    /// runs in this process, parsed and dispatched as the binary's `main`
    /// does, against this test's database; only `serve` runs the binary.
    pub fn ops_env(&self, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
        use clap::Parser;
        use server::config::{Cli, Command as Subcommand, Redacted};
        if args.first() == Some(&"serve") {
            return self.binary(args, env);
        }
        let flags = env.iter().flat_map(|(name, value)| {
            [
                format!("--{}", name.to_lowercase().replace('_', "-")),
                (*value).to_owned(),
            ]
        });
        let argv: Vec<String> = std::iter::once("server".to_owned())
            .chain(flags)
            .chain(args.iter().map(|a| (*a).to_owned()))
            .collect();
        let cli = match Cli::try_parse_from(&argv) {
            Ok(cli) => cli,
            Err(error) => return (false, error.to_string()),
        };
        let mut config = cli.config;
        config.database_url = Redacted(self.database_url.clone());
        let command = cli.command.unwrap_or(Subcommand::Serve);
        // Its own runtime on its own thread: the caller is synchronous and
        // may sit inside the test's runtime.
        std::thread::scope(|scope| {
            scope
                .spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("a runtime for the subcommand");
                    let mut out = Vec::new();
                    let result = runtime.block_on(server::ops::run(&config, command, &mut out));
                    let mut text = String::from_utf8_lossy(&out).into_owned();
                    if let Err(error) = &result {
                        text.push_str(&format!("error: {error:#}\n"));
                    }
                    (result.is_ok(), text)
                })
                .join()
                .expect("the subcommand's thread")
        })
    }

    /// The server binary itself, for what only a process shows (`serve`
    /// refusing to start).
    fn binary(&self, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_server"))
            .args(args)
            .env("DATABASE_URL", &self.database_url)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .output()
            .expect("running the server binary");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.success(), text)
    }

    pub fn ops_ok(&self, args: &[&str]) -> String {
        let (ok, text) = self.ops(args);
        assert!(ok, "`server {}` failed: {text}", args.join(" "));
        text
    }

    /// Racks `count` free hosts of `plan` at `site`, as an operator does
    /// (`server hosts add`).
    pub fn rack(&self, site: &str, plan: &str, count: usize) {
        let count = count.to_string();
        self.ops_ok(&[
            "hosts", "add", "--site", site, "--plan", plan, "--count", &count,
        ]);
    }

    /// Host names of a plan at a site in a state, from `hosts list`.
    pub fn host_names(&self, site: &str, plan: &str, state: &str) -> Vec<String> {
        self.ops_ok(&[
            "hosts", "list", "--site", site, "--plan", plan, "--state", state,
        ])
        .lines()
        .skip(1)
        .filter(|l| l.contains(site) && !l.ends_with("hosts"))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
    }

    /// Another replica of the application on this test's database; answers
    /// its base URL. The process keeps serving until the test ends.
    pub async fn replica(&self, clock: backend::Clock, adjust: impl FnOnce(&mut Config)) -> String {
        let mut config = Config::for_database(&self.database_url);
        config.public_base_url = "https://gpu.example.com".to_owned();
        config.site_root = concat!(env!("CARGO_MANIFEST_DIR"), "/../public").into();
        adjust(&mut config);
        let app = Application::build_with_clock(config, clock)
            .await
            .expect("starting a replica");
        let base = format!("http://127.0.0.1:{}", app.port());
        tokio::spawn(app.run_until_stopped());
        base
    }

    /// `owner` invites `email` with `role`; the invitee signs up and
    /// accepts. Answers the invitee's logged-in browser.
    pub async fn invite(
        &self,
        owner: &reqwest::Client,
        email: &str,
        role: &str,
    ) -> reqwest::Client {
        self.post_as(
            owner,
            "/en/members",
            "/en/members/invite",
            &[("email", email), ("role", role)],
            &[],
        )
        .await;
        let link = self.mailed_link(email);
        let browser = self.member(email, role, "").await;
        let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
        let page = self
            .post_as(&browser, &link, "/en/invite", &[("token", &token)], &[])
            .await;
        assert_eq!(page.location(), "/en/account?done=joined", "{email} joins");
        browser
    }

    /// Creates a staff account with the operator command and logs it in.
    pub async fn staff(&self, email: &str) -> reqwest::Client {
        let created = self.ops_ok(&["staff", "add", "--email", email, "--name", "Ops"]);
        let password = created
            .split("store it now): ")
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .unwrap_or_default()
            .trim()
            .to_owned();
        let browser = self.browser();
        let page = self
            .post_as(
                &browser,
                "/en/login",
                "/en/login",
                &[("email", email), ("password", &password)],
                &[],
            )
            .await;
        assert_eq!(page.location(), "/en/staff", "staff log in");
        browser
    }

    /// The order form's hidden values for a plan at a site: (csrf, key).
    pub async fn order_form(
        &self,
        browser: &reqwest::Client,
        plan: &str,
        site: &str,
    ) -> (String, String) {
        let page = self
            .get_as(browser, &format!("/en/order?plan={plan}&site={site}"))
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        (
            csrf_token(&page.body),
            hidden(&page.body, "idempotency_key"),
        )
    }

    /// Places an order with the given extra fields (name, image, country,
    /// addons, keys, new_key…) and answers the raw response.
    pub async fn place_order(
        &self,
        browser: &reqwest::Client,
        plan: &str,
        site: &str,
        fields: &[(&str, &str)],
    ) -> Page {
        let (csrf, key) = self.order_form(browser, plan, site).await;
        self.post_order(browser, plan, site, &key, &csrf, fields)
            .await
    }

    pub async fn post_order(
        &self,
        browser: &reqwest::Client,
        plan: &str,
        site: &str,
        key: &str,
        csrf: &str,
        fields: &[(&str, &str)],
    ) -> Page {
        let mut form: Vec<(&str, &str)> = vec![
            ("plan", plan),
            ("site", site),
            ("idempotency_key", key),
            ("csrf", csrf),
            ("intent", "place"),
        ];
        let has = |n: &str| fields.iter().any(|(f, _)| *f == n);
        if !has("name") {
            form.push(("name", "box-1"));
        }
        if !has("image") {
            form.push(("image", "ubuntu-24.04"));
        }
        form.extend_from_slice(fields);
        let response = browser
            .post(format!("{}/en/order", self.base))
            .form(&form)
            .send()
            .await
            .expect("posting the order");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        Page {
            status,
            headers,
            body: response.text().await.expect("reading the body"),
        }
    }

    /// Schedules a server's cancellation for the end of its current term
    /// (the first date its cancellation tab offers), typing `name` to
    /// confirm; answers the date and asserts the page took it.
    pub async fn cancel_at_term_end(
        &self,
        browser: &reqwest::Client,
        server: &str,
        name: &str,
    ) -> i64 {
        let base = format!("/en/servers/{server}");
        let body = self
            .get_as(browser, &format!("{base}/cancellation"))
            .await
            .body;
        let at = body
            .split("id=\"cancel-at\"")
            .nth(1)
            .and_then(|r| r.split("<option value=\"").nth(1))
            .and_then(|r| r.split('"').next())
            .unwrap_or_default()
            .to_owned();
        let fields = [
            ("at", at.as_str()),
            ("reason", "moving"),
            ("confirm_name", name),
            ("confirm", "yes"),
        ];
        let page = self
            .post_as(
                browser,
                &base,
                &format!("{base}/cancellation"),
                &fields,
                &[],
            )
            .await;
        assert_eq!(
            page.location(),
            format!("{base}/cancellation?done=cancel"),
            "{}",
            strip_tags(&page.body)
        );
        at.parse().expect("a term end")
    }

    /// The newest order on the orders page, and the id of its server once
    /// it has one (a paid Stripe order gets it from the webhook).
    pub async fn newest_order_server(&self, browser: &reqwest::Client) -> (String, String) {
        let orders = self.get_as(browser, "/en/orders").await.body;
        let order = between(&orders, "data-order=\"");
        let detail = self
            .wait_for(
                browser,
                &format!("/en/orders/{order}"),
                "href=\"/en/servers/",
            )
            .await;
        let server = between(&detail, "href=\"/en/servers/");
        (order, server)
    }

    /// Orders a G-ADA in Frankfurt for `who` with the order form's
    /// `fields` (name, image, …) and waits until it runs; answers its id.
    pub async fn running_server(&self, who: &reqwest::Client, fields: &[(&str, &str)]) -> String {
        let page = self.place_order(who, "g-ada", "fra", fields).await;
        let id = server_id(page.location());
        self.wait_for_server(who, &id).await;
        id
    }

    /// A G-ADA racked in Frankfurt and owner@a.example (Org A) running a
    /// server on it, ordered with `fields`: (owner, server id).
    pub async fn owner_with_running_server(
        &self,
        fields: &[(&str, &str)],
    ) -> (reqwest::Client, String) {
        self.rack("fra", "g-ada", 1);
        let owner = self.member("owner@a.example", "Owner", "Org A").await;
        let id = self.running_server(&owner, fields).await;
        (owner, id)
    }

    /// Polls a server's progress until it is no longer installing or
    /// restarting; answers its last progress document.
    pub async fn wait_for_server(
        &self,
        browser: &reqwest::Client,
        server_id: &str,
    ) -> serde_json::Value {
        self.wait_for_server_within(browser, server_id, 15).await
    }

    /// `wait_for_server` for steps that take longer than 15 s (a BMC's
    /// power transitions: sushy's emulator takes 1–11 s for each).
    pub async fn wait_for_server_within(
        &self,
        browser: &reqwest::Client,
        server_id: &str,
        secs: u64,
    ) -> serde_json::Value {
        for _ in 0..secs * 20 {
            let page = self
                .get_as(browser, &format!("/en/servers/{server_id}/progress"))
                .await;
            assert_eq!(page.status, 200, "{}", page.body);
            let progress: serde_json::Value =
                serde_json::from_str(&page.body).expect("progress is JSON");
            if progress["done"] == serde_json::Value::Bool(true) {
                return progress;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("server {server_id} never finished");
    }

    /// Reloads `path` until it contains `needle` (10 s); answers the page.
    pub async fn wait_for(&self, browser: &reqwest::Client, path: &str, needle: &str) -> String {
        for _ in 0..100 {
            let body = self.get_as(browser, path).await.body;
            if body.contains(needle) {
                return body;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("{path} never showed {needle:?}");
    }

    /// Reads the newest mails to `to` until one contains `needle` (15 s);
    /// answers them. Housekeeping mails some notices a few seconds late.
    pub async fn wait_for_mail(&self, to: &str, needle: &str) -> String {
        for _ in 0..75 {
            let mails = self.ops_ok(&["mail", "outbox", "--to", to, "--limit", "10"]);
            if mails.contains(needle) {
                return mails;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        panic!("no mail to {to} with {needle:?}");
    }

    /// Waits until the worker has run a whole housekeeping pass that began
    /// after this call (holds, invoices, cancellations, notices, alerts), as
    /// its `gpu_housekeeping_passes` metric tells: what it would have done
    /// by now, it has done. Instead of sleeping for "long enough".
    pub async fn after_housekeeping(&self) {
        let passes = || async {
            let metrics = self.get("/metrics").await.body;
            metrics
                .lines()
                .find(|l| l.starts_with("gpu_housekeeping_passes_total"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
        };
        // The pass under way may have started before; the one after it
        // surely did not.
        let wanted = passes().await + 2;
        for _ in 0..600 {
            if passes().await >= wanted {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the worker ran no housekeeping pass in 30 s");
    }

    /// Drops the PostgreSQL schema; SQLite folders go with the TempDir.
    pub async fn finish(self) {
        if let Some((base, schema)) = &self.cleanup {
            let mut admin = connect_postgres(base).await;
            let _ = sqlx::query(&format!("drop schema {schema} cascade"))
                .execute(&mut admin)
                .await;
        }
    }
}

async fn connect_postgres(url: &str) -> sqlx::PgConnection {
    use sqlx::Connection;
    sqlx::PgConnection::connect(url).await.unwrap_or_else(|e| {
        panic!("PostgreSQL is required for the PostgreSQL leg at {url} (set TEST_POSTGRES_URL or run scripts/test.sh): {e}")
    })
}

pub const PASSWORD: &str = "violet kettle harbour";

/// The text after the first `start`, up to the next quote.
fn between(body: &str, start: &str) -> String {
    body.split(start)
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned()
}

pub fn csrf_token(body: &str) -> String {
    let needle = "name=\"csrf\" value=\"";
    body.find(needle)
        .map(|at| {
            body[at + needle.len()..]
                .split('"')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .unwrap_or_default()
}

/// The value of a hidden input.
pub fn hidden(body: &str, name: &str) -> String {
    let needle = format!("name=\"{name}\" value=\"");
    body.find(&needle)
        .map(|at| {
            body[at + needle.len()..]
                .split('"')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .unwrap_or_default()
}

/// The server id of a `/en/servers/{id}?…` redirect.
pub fn server_id(location: &str) -> String {
    location
        .trim_start_matches("/en/servers/")
        .split(['?', '/'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

impl Page {
    pub fn location(&self) -> &str {
        self.header("location")
    }

    /// A response header's value, or "" without one.
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

/// The value of `data-stock` for a site and plan in the stock table.
pub fn stock_cell(body: &str, site: &str, plan: &str) -> String {
    let needle = format!("data-site=\"{site}\" data-plan=\"{plan}\" data-stock=\"");
    let at = body
        .find(&needle)
        .unwrap_or_else(|| panic!("no stock cell for {site}/{plan}"))
        + needle.len();
    body[at..].split('"').next().unwrap_or_default().to_owned()
}

/// The visible text of the stock cell for a site and plan.
pub fn stock_cell_text(body: &str, site: &str, plan: &str) -> String {
    let needle = format!("data-site=\"{site}\" data-plan=\"{plan}\"");
    let at = body
        .find(&needle)
        .unwrap_or_else(|| panic!("no stock cell for {site}/{plan}"));
    let cell = &body[at..at + body[at..].find("</td>").unwrap_or(0)];
    strip_tags(cell.split_once('>').map_or("", |(_, rest)| rest))
}

/// A member's user id, from the hidden field of their row on the members page.
pub fn user_id_of(members_page: &str, email: &str) -> String {
    let at = members_page
        .find(&format!("data-member=\"{email}\""))
        .expect("member row");
    let rest = &members_page[at..];
    let needle = "name=\"user_id\" value=\"";
    let v = &rest[rest.find(needle).expect("user id") + needle.len()..];
    v.split('"').next().unwrap_or_default().to_owned()
}

pub fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("● ", "")
        .replace("◐ ", "")
        .replace("○ ", "")
}

/// A folder removed when dropped.
pub struct TempDir {
    pub path: String,
}

impl TempDir {
    pub fn new() -> TempDir {
        let path = std::env::temp_dir().join(format!("gpu-test-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&path).expect("creating a temporary folder");
        TempDir {
            path: path.to_string_lossy().into_owned(),
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Generates one test per backend from an `async fn(TestDb)`.
#[macro_export]
macro_rules! on_both_databases {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name($crate::common::TestDb::Sqlite).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name($crate::common::TestDb::Postgres).await
                }
            }
        )*
    };
}
