//! One typed configuration, from flags or environment variables. Doc
//! comments are the help text (`server --help`).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Parser, Debug)]
#[command(
    name = "server",
    version,
    about = "Storefront and portal for whole-card GPU servers"
)]
pub struct Cli {
    #[command(flatten)]
    pub config: Config,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Args, Debug, Clone)]
pub struct Config {
    /// Database: `sqlite:data/gpu.db` (embedded default) or `postgres://user@host/db`.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite:data/gpu.db?mode=rwc",
        hide_env_values = true
    )]
    pub database_url: Redacted,
    /// Maximum open database connections per process.
    #[arg(long, env = "DATABASE_MAX_CONNECTIONS", default_value_t = 16)]
    pub database_max_connections: u32,
    /// Address and port to listen on.
    #[arg(long, env = "LISTEN_ADDR", default_value = "127.0.0.1:3000")]
    pub listen_addr: SocketAddr,
    /// Public base URL, used for canonical links and the sitemap.
    #[arg(long, env = "PUBLIC_BASE_URL", default_value = "http://127.0.0.1:3000")]
    pub public_base_url: String,
    /// `development` seeds demo inventory and shows latency estimates;
    /// `production` does neither and turns on HSTS and JSON logs.
    #[arg(long, env = "APP_ENV", value_enum, default_value_t = Environment::Development)]
    pub environment: Environment,
    /// Let development mode serve a public URL that is not on loopback
    /// (a demo on a shared host). Development mode means insecure cookies,
    /// no HSTS, a public sealing key, demo hosts and the mail outbox page,
    /// so without this it refuses to start anywhere but 127.0.0.1/localhost.
    #[arg(long, env = "ALLOW_DEVELOPMENT_OFF_LOOPBACK", default_value_t = false, action = clap::ArgAction::Set)]
    pub allow_development_off_loopback: bool,
    /// Where Prometheus scrapes `/metrics` (`127.0.0.1:9464`, or the
    /// management network's address). Production never serves it on
    /// `LISTEN_ADDR`; development serves it there too (loopback only).
    #[arg(long, env = "METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,
    /// Folder with the built site (CSS, icons, wasm), as cargo-leptos writes it.
    #[arg(long, env = "LEPTOS_SITE_ROOT", default_value = "target/site")]
    pub site_root: PathBuf,
    /// SMTP server for outgoing mail: `smtp://user:pass@host:587?tls=required`
    /// or `smtps://user:pass@host:465`. Without it, mail stays in the outbox
    /// (staff read it at /en/staff/outbox).
    #[arg(long, env = "SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<Redacted>,
    /// The sender of every mail.
    #[arg(
        long,
        env = "MAIL_FROM",
        default_value = "GPU servers <noreply@localhost>"
    )]
    pub mail_from: String,
    /// 64 hex characters (32 bytes) sealing secrets at rest, such as TOTP
    /// keys; required in production (`openssl rand -hex 32`). Changing it
    /// makes existing two-factor enrolments unreadable.
    #[arg(long, env = "SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<Redacted>,
    /// Behind a load balancer: the header it sets with the client's address
    /// (`x-forwarded-for`); its right-most entry is used for per-address
    /// limits. Leave unset when clients connect directly.
    #[arg(long, env = "CLIENT_IP_HEADER")]
    pub client_ip_header: Option<String>,
    /// Run background jobs (provisioning, power actions, hold expiry,
    /// stock alerts) in this process. Every replica may run them; turn off
    /// only for web-only replicas.
    #[arg(long, env = "RUN_WORKERS", default_value_t = true, action = clap::ArgAction::Set)]
    pub run_workers: bool,
    /// Let webhook endpoints be plain http:// and on private, loopback or
    /// link-local addresses. Off in production (a customer's webhook must
    /// not reach inside the data centre); development mode allows them.
    #[arg(long, env = "WEBHOOKS_ALLOW_PRIVATE", default_value_t = false, action = clap::ArgAction::Set)]
    pub webhooks_allow_private: bool,
    /// Simulated fleet: how long each provisioning step takes, in
    /// milliseconds (six steps per server).
    #[arg(long, env = "FLEET_DEV_STEP_MS", default_value_t = 1500)]
    pub fleet_dev_step_ms: u64,
    /// API requests each token may make per minute, counted in the
    /// database so every replica shares the count.
    #[arg(long, env = "API_RATE_LIMIT", default_value_t = 300)]
    pub api_rate_limit: i64,
    /// Simulated fleet: host names whose disks fail while erasing, to watch
    /// a server move to another host (comma-separated).
    #[arg(long, env = "FLEET_DEV_FAULTY_HOSTS", value_delimiter = ',')]
    pub fleet_dev_faulty_hosts: Vec<String>,
    /// Simulated fleet: host names whose corrected ECC errors climb, so
    /// Fleet health marks them degraded (comma-separated).
    #[arg(long, env = "FLEET_DEV_DEGRADING_HOSTS", value_delimiter = ',')]
    pub fleet_dev_degrading_hosts: Vec<String>,
    /// How often Fleet health reads every rented host's last day of
    /// telemetry, in seconds.
    #[arg(long, env = "FLEET_HEALTH_SECS", default_value_t = 300)]
    pub fleet_health_secs: u64,
    /// How often the background worker looks for due jobs, in
    /// milliseconds; housekeeping runs every tenth look and webhooks are
    /// sent every fifth.
    #[arg(long, env = "WORKER_POLL_MS", default_value_t = 200)]
    pub worker_poll_ms: u64,
    /// Which Fleet drives hosts: `dev` simulates a data centre on this
    /// machine (the default); `redfish` drives real hosts through their
    /// BMCs (docs/OPERATIONS.md, "Racking a real host").
    #[arg(long, env = "FLEET", value_enum, default_value_t = FleetKind::Dev)]
    pub fleet: FleetKind,
    /// Redfish Fleet: the folder of boot images, `<os image>.iso` and
    /// `wipe.iso`, each with a seed area.
    #[arg(long, env = "FLEET_IMAGE_DIR", default_value = "data/images")]
    pub fleet_image_dir: PathBuf,
    /// Redfish Fleet: our URL as BMCs and booted images reach it, for boot
    /// media and installer reports (default: PUBLIC_BASE_URL).
    #[arg(long, env = "FLEET_CALLBACK_URL")]
    pub fleet_callback_url: Option<String>,
    /// Redfish Fleet: PEM certificates of the CA that signs the BMCs'
    /// certificates (default: the public web PKI). A host marked as having
    /// a self-signed BMC skips the check.
    #[arg(long, env = "FLEET_BMC_CA_BUNDLE")]
    pub fleet_bmc_ca_bundle: Option<PathBuf>,
    /// Redfish Fleet: seconds a BMC has to answer one request.
    #[arg(long, env = "FLEET_BMC_TIMEOUT_SECS", default_value_t = 30)]
    pub fleet_bmc_timeout_secs: u64,
    /// Redfish Fleet: minutes an installer has from boot to its last report.
    #[arg(long, env = "FLEET_INSTALL_MINUTES", default_value_t = 45)]
    pub fleet_install_minutes: i64,
    /// Redfish Fleet: minutes a wipe image has.
    #[arg(long, env = "FLEET_WIPE_MINUTES", default_value_t = 180)]
    pub fleet_wipe_minutes: i64,
    /// Redfish Fleet: seconds a power action may take to show.
    #[arg(long, env = "FLEET_POWER_WAIT_SECS", default_value_t = 120)]
    pub fleet_power_wait_secs: u64,
    /// Redfish Fleet: the ipmitool program (IPMI Serial-over-LAN consoles).
    #[arg(long, env = "FLEET_IPMITOOL", default_value = "ipmitool")]
    pub fleet_ipmitool: PathBuf,
    /// Redfish Fleet: the OpenSSH client (BMC SSH serial consoles).
    #[arg(long, env = "FLEET_SSH", default_value = "ssh")]
    pub fleet_ssh: PathBuf,
    /// Redfish Fleet: the file of the BMCs' SSH host keys, trusted on
    /// first use and kept across restarts (its folder is made if missing;
    /// no blanks, quotes, backslashes or `%` in the path: ssh reads those).
    #[arg(
        long,
        env = "FLEET_SSH_KNOWN_HOSTS",
        default_value = "data/bmc_known_hosts"
    )]
    pub fleet_ssh_known_hosts: PathBuf,
    /// Redfish Fleet: the site's switch automation, run as `HOOK
    /// disable|enable HOST` to cut or restore a suspended server's public
    /// network (exit status 0 for done).
    #[arg(long, env = "FLEET_NETWORK_HOOK")]
    pub fleet_network_hook: Option<PathBuf>,
    /// The company that issues invoices: legal name, as printed on them.
    #[arg(
        long,
        env = "SELLER_NAME",
        default_value = "Example GPU Hosting B.V. (development)"
    )]
    pub seller_name: String,
    /// Its registered address, one line.
    #[arg(
        long,
        env = "SELLER_ADDRESS",
        default_value = "Keizersgracht 1, 1015 CJ Amsterdam, Netherlands"
    )]
    pub seller_address: String,
    /// Its entry in the commercial register with the number, as the
    /// imprint shows it (`Amsterdam Chamber of Commerce (KvK) 12345678`).
    #[arg(
        long,
        env = "SELLER_REGISTER",
        default_value = "KvK 00000000 (development)"
    )]
    pub seller_register: String,
    /// The address customers write to for support (the support page, the
    /// imprint and the privacy page show it).
    #[arg(long, env = "SUPPORT_EMAIL", default_value = "support@example.com")]
    pub support_email: String,
    /// The EU country it is established in (sets domestic VAT and reverse charge).
    #[arg(long, env = "SELLER_COUNTRY", default_value = "NL")]
    pub seller_country: String,
    /// Its VAT ID, printed on invoices.
    #[arg(long, env = "SELLER_VAT_ID", default_value = "NL000000000B01")]
    pub seller_vat_id: String,
    /// The bank account customers pay offline invoices into.
    #[arg(long, env = "SELLER_IBAN", default_value = "NL00 TEST 0000 0000 00")]
    pub seller_iban: String,
    #[arg(long, env = "SELLER_BIC", default_value = "TESTNL2A")]
    pub seller_bic: String,
    /// Days from an offline invoice to its due date.
    #[arg(long, env = "PAYMENT_TERMS_DAYS", default_value_t = 14)]
    pub payment_terms_days: i64,
    /// Days a server stays past due before it is suspended.
    #[arg(long, env = "BILLING_GRACE_DAYS", default_value_t = 7)]
    pub billing_grace_days: i64,
    /// A TrueType font with Latin and CJK glyphs for invoice PDFs (Debian:
    /// fonts-wqy-microhei).
    #[arg(long, env = "INVOICE_FONT", default_value = backend::billing::pdf::DEFAULT_FONT)]
    pub invoice_font: PathBuf,
    /// Stripe secret key (`sk_live_…`). Set, orders are paid through Stripe
    /// Checkout; unset, by invoice and bank transfer.
    #[arg(long, env = "STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<Redacted>,
    /// The signing secret of the webhook endpoint (`whsec_…`) that Stripe
    /// calls at `/stripe/webhook`.
    #[arg(long, env = "STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<Redacted>,
    /// The endpoint's previous signing secret while it is rolled (Stripe
    /// signs with both until the old one expires; replicas deployed before
    /// and after the roll both verify). Unset once the roll is over.
    #[arg(long, env = "STRIPE_WEBHOOK_SECRET_PREVIOUS", hide_env_values = true)]
    pub stripe_webhook_secret_previous: Option<Redacted>,
    /// Seconds between reconciliations with Stripe (checkouts, subscriptions
    /// and invoices fetched to repair missed webhooks).
    #[arg(long, env = "STRIPE_RECONCILE_SECS", default_value_t = 600)]
    pub stripe_reconcile_secs: u64,
    /// Stripe's API address (a test double in tests).
    #[arg(
        long,
        env = "STRIPE_API_BASE",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_base: String,
    /// Where VAT IDs are confirmed before reverse charge: `eu` asks the
    /// EU's VIES service (`VIES_URL`); `development` answers offline from
    /// `backend/fixtures/vies.txt`. Default: `development` in development
    /// mode, `eu` in production (which refuses `development`).
    #[arg(long, env = "VIES", value_enum)]
    pub vies: Option<ViesChoice>,
    /// The VIES REST API's address (a test double in tests).
    #[arg(
        long,
        env = "VIES_URL",
        default_value = backend::billing::vies::EU_BASE_URL
    )]
    pub vies_url: String,
    /// Log filter, e.g. `info` or `server=debug,tower_http=info`.
    #[arg(long, env = "RUST_LOG", default_value = "info")]
    pub log_filter: String,
}

/// Which VAT ID register answers (see `VIES`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ViesChoice {
    /// The fixture, offline.
    Development,
    /// The EU's VIES service.
    Eu,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FleetKind {
    Dev,
    Redfish,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Environment {
    Development,
    Production,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the web server (the default).
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Copy the SQLite database, consistently, while the server runs.
    Backup {
        /// The new file (never overwritten).
        #[arg(long)]
        to: PathBuf,
    },
    /// Stripe: sync the catalog to Products and monthly Prices.
    #[command(subcommand)]
    Stripe(crate::ops::StripeCommand),
    /// Development: move the application's clock (see docs/OPERATIONS.md).
    #[command(subcommand)]
    Clock(crate::ops::ClockCommand),
    /// Manage hosts: the inventory behind stock.
    #[command(subcommand)]
    Hosts(crate::ops::HostsCommand),
    /// Staff accounts of the hosting company.
    #[command(subcommand)]
    Staff(crate::ops::StaffCommand),
    /// Mail sent by the product (the development outbox).
    #[command(subcommand)]
    Mail(crate::ops::MailCommand),
    /// Probe latency measurements.
    #[command(subcommand)]
    Latency(crate::ops::LatencyCommand),
}

impl Config {
    /// What seals secrets at rest (TOTP keys, root passwords, BMC
    /// passwords): `SECRET_KEY`, or a public key in development.
    pub fn sealer(&self) -> anyhow::Result<backend::sealing::Sealer> {
        match (&self.secret_key, self.development()) {
            (Some(key), _) => backend::sealing::Sealer::from_hex(key.expose()),
            (None, true) => Ok(backend::sealing::Sealer::development()),
            (None, false) => anyhow::bail!(
                "SECRET_KEY is required in production (64 hex characters: openssl rand -hex 32)"
            ),
        }
    }

    /// The Redfish Fleet as configured (built whatever `FLEET` says: staff
    /// and operators check hosts' BMCs before the switch).
    pub fn redfish_fleet(
        &self,
        db: &backend::Db,
        sealer: &backend::sealing::Sealer,
        clock: &backend::Clock,
    ) -> anyhow::Result<backend::fleet::redfish::RedfishFleet> {
        use anyhow::Context;
        use backend::fleet::redfish::{
            media::ImageStore, BmcClients, RedfishFleet, RedfishSettings,
        };
        use std::time::Duration;
        let ca_bundle = match &self.fleet_bmc_ca_bundle {
            Some(path) => Some(
                std::fs::read(path)
                    .with_context(|| format!("reading FLEET_BMC_CA_BUNDLE {}", path.display()))?,
            ),
            None => None,
        };
        let clients = BmcClients::new(
            ca_bundle.as_deref(),
            Duration::from_secs(self.fleet_bmc_timeout_secs.max(1)),
        )?;
        let settings = RedfishSettings {
            callback_base: self
                .fleet_callback_url
                .clone()
                .unwrap_or_else(|| self.public_base_url.clone()),
            images: ImageStore::new(&self.fleet_image_dir),
            install_limit: self.fleet_install_minutes.max(1) * 60,
            wipe_limit: self.fleet_wipe_minutes.max(1) * 60,
            power_wait: Duration::from_secs(self.fleet_power_wait_secs.max(1)),
            task_wait: Duration::from_secs(600),
            ipmitool: self.fleet_ipmitool.clone(),
            ssh: self.fleet_ssh.clone(),
            known_hosts: self.fleet_ssh_known_hosts.clone(),
            network_hook: self.fleet_network_hook.clone(),
        };
        Ok(RedfishFleet::new(
            db.clone(),
            sealer.clone(),
            clock.clone(),
            clients,
            settings,
        ))
    }

    /// A configuration for tests and tools: the given database, port 0.
    pub fn for_database(url: &str) -> Config {
        Config {
            database_url: Redacted(url.to_owned()),
            database_max_connections: 8,
            listen_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            public_base_url: "http://127.0.0.1".to_owned(),
            environment: Environment::Development,
            allow_development_off_loopback: false,
            metrics_addr: None,
            site_root: PathBuf::from("target/site"),
            smtp_url: None,
            client_ip_header: None,
            secret_key: None,
            mail_from: "GPU servers <noreply@localhost>".to_owned(),
            log_filter: "warn".to_owned(),
            run_workers: true,
            webhooks_allow_private: false,
            fleet_dev_step_ms: 10,
            api_rate_limit: 300,
            fleet_dev_faulty_hosts: Vec::new(),
            fleet_dev_degrading_hosts: Vec::new(),
            fleet_health_secs: 300,
            // The development Fleet's steps take 10 ms here: a 200 ms poll
            // between them was most of every provisioning test's wait.
            worker_poll_ms: 20,
            fleet: FleetKind::Dev,
            fleet_image_dir: PathBuf::from("data/images"),
            fleet_callback_url: None,
            fleet_bmc_ca_bundle: None,
            fleet_bmc_timeout_secs: 30,
            fleet_install_minutes: 45,
            fleet_wipe_minutes: 180,
            fleet_power_wait_secs: 120,
            fleet_ipmitool: PathBuf::from("ipmitool"),
            fleet_ssh: PathBuf::from("ssh"),
            fleet_ssh_known_hosts: PathBuf::from("data/bmc_known_hosts"),
            fleet_network_hook: None,
            seller_name: "Example GPU Hosting B.V. (development)".to_owned(),
            seller_address: "Keizersgracht 1, 1015 CJ Amsterdam, Netherlands".to_owned(),
            seller_register: "KvK 00000000 (development)".to_owned(),
            support_email: "support@example.com".to_owned(),
            seller_country: "NL".to_owned(),
            seller_vat_id: "NL000000000B01".to_owned(),
            seller_iban: "NL00 TEST 0000 0000 00".to_owned(),
            seller_bic: "TESTNL2A".to_owned(),
            payment_terms_days: 14,
            billing_grace_days: 7,
            invoice_font: backend::billing::pdf::DEFAULT_FONT.into(),
            stripe_secret_key: None,
            stripe_webhook_secret: None,
            stripe_webhook_secret_previous: None,
            stripe_api_base: "https://api.stripe.com".to_owned(),
            stripe_reconcile_secs: 600,
            vies: None,
            vies_url: backend::billing::vies::EU_BASE_URL.to_owned(),
        }
    }

    /// `vat_ids` confirms customers' VAT IDs (see [`Config::vat_id_registry`]).
    pub fn seller(
        &self,
        vat_ids: Arc<dyn backend::billing::vies::VatIdRegistry>,
    ) -> backend::billing::Seller {
        backend::billing::Seller {
            name: self.seller_name.clone(),
            address: self.seller_address.clone(),
            country: self.seller_country.to_ascii_uppercase(),
            vat_id: self.seller_vat_id.clone(),
            iban: self.seller_iban.clone(),
            bic: self.seller_bic.clone(),
            payment_terms_days: self.payment_terms_days,
            grace_days: self.billing_grace_days,
            vat_ids,
        }
    }

    /// The VAT ID register `VIES` chooses. Production confirms with the EU:
    /// a fixture's answers must never decide real invoices.
    pub fn vat_id_registry(
        &self,
    ) -> anyhow::Result<Arc<dyn backend::billing::vies::VatIdRegistry>> {
        use backend::billing::vies::{DevelopmentRegistry, ViesRegistry};
        let choice = self.vies.unwrap_or(if self.development() {
            ViesChoice::Development
        } else {
            ViesChoice::Eu
        });
        Ok(match choice {
            ViesChoice::Eu => Arc::new(ViesRegistry::new(&self.vies_url)?),
            ViesChoice::Development if self.development() => Arc::new(DevelopmentRegistry::new()),
            ViesChoice::Development => anyhow::bail!(
                "VIES=development answers from a fixture: production confirms VAT IDs with the EU (VIES=eu)"
            ),
        })
    }

    /// Whether webhooks may go to http:// and private addresses.
    pub fn webhooks_private(&self) -> bool {
        self.webhooks_allow_private || self.development()
    }

    pub fn development(&self) -> bool {
        self.environment == Environment::Development
    }

    /// Development mode kept to this machine: it refuses proxied requests
    /// (a reverse proxy in front of it means it is public after all).
    pub fn development_on_loopback_only(&self) -> bool {
        self.development() && !self.allow_development_off_loopback
    }

    /// A forgotten `APP_ENV` must not put development mode on the internet.
    pub fn check_safe_to_serve(&self) -> anyhow::Result<()> {
        if self.development()
            && !self.allow_development_off_loopback
            && !self.listen_addr.ip().is_loopback()
        {
            anyhow::bail!(
                "refusing to listen on {} in development mode (insecure cookies, no HSTS, a public \
                 sealing key, demo hosts): set APP_ENV=production, or \
                 ALLOW_DEVELOPMENT_OFF_LOOPBACK=true for a demo",
                self.listen_addr
            );
        }
        if self.development()
            && !self.allow_development_off_loopback
            && !is_loopback_url(&self.public_base_url)
        {
            anyhow::bail!(
                "refusing to serve {} in development mode (insecure cookies, no HSTS, a public \
                 sealing key, demo hosts): set APP_ENV=production, or \
                 ALLOW_DEVELOPMENT_OFF_LOOPBACK=true for a demo",
                self.public_base_url
            );
        }
        Ok(())
    }
}

/// Whether a URL's host is this machine: 127.0.0.0/8, `[::1]` or localhost.
fn is_loopback_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::is_loopback_url;

    #[test]
    fn only_this_machine_is_loopback() {
        for url in [
            "http://127.0.0.1:3000",
            "http://localhost",
            "http://[::1]:8080/x",
            "http://127.8.0.1",
        ] {
            assert!(is_loopback_url(url), "{url}");
        }
        for url in [
            "https://gpu.example.com",
            "http://127.0.0.1.evil.com",
            "http://localhost@evil.com",
            "http://10.0.0.1:3000",
            "http://[::2]",
        ] {
            assert!(!is_loopback_url(url), "{url}");
        }
    }
}

/// A secret-bearing setting (a database URL may hold a password): prints as
/// `[redacted]` in logs and debug output.
#[derive(Clone)]
pub struct Redacted(pub String);

impl Redacted {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

impl std::str::FromStr for Redacted {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Redacted(s.to_owned()))
    }
}
