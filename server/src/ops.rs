//! Operators' subcommands of the server binary. Each applies migrations
//! first, so it works on a fresh database; stock changes made here show on
//! the storefront's next request (see `backend::stock_watch`).

use anyhow::Context;
use backend::fleet::redfish::power::HostPower;
use backend::inventory::{self, HostFilter, HostState};
use backend::{latency, Clock, Db};
use clap::{Subcommand, ValueEnum};
use domain::{PlanId, SiteCode};
use std::io::Write;
use std::path::PathBuf;

use crate::config::{Command, Config};

#[derive(Subcommand, Debug)]
pub enum HostsCommand {
    /// Rack new free hosts of a plan at a site.
    Add {
        /// Site code: ams, fra, lon, nyc, dal, lax, sin, tyo.
        #[arg(long)]
        site: String,
        /// Plan id: g-ada, g-l40s, g-l40s-x2.
        #[arg(long)]
        plan: String,
        /// How many hosts to add (1–500; one when a BMC is given).
        #[arg(long, default_value_t = 1)]
        count: u32,
        /// The host's BMC: it is added in maintenance, checked, and put in
        /// stock only if its GPUs are the plan's.
        #[command(flatten)]
        bmc: BmcArgs,
    },
    /// Give a host its BMC (or a new one); the host must pass a check
    /// before it is sold again.
    Bmc {
        name: String,
        #[command(flatten)]
        bmc: BmcArgs,
    },
    /// Read a host's BMC: model, serial, BIOS, power state and GPUs. A host
    /// whose GPUs are not its plan's is refused (taken out of stock).
    Check { name: String },
    /// A host's history: state changes and Fleet events, newest first.
    History {
        name: String,
        #[arg(long, default_value_t = 20)]
        limit: i64,
    },
    /// Power a host through its BMC, waiting until the state shows.
    Power {
        name: String,
        #[arg(value_enum)]
        action: PowerArg,
    },
    /// List hosts, optionally filtered.
    List {
        #[arg(long)]
        site: Option<String>,
        #[arg(long)]
        plan: Option<String>,
        #[arg(long, value_enum)]
        state: Option<StateArg>,
    },
    /// Put a host in service, take it out for maintenance, or mark it failed.
    Set {
        /// The host's name, as `hosts list` shows it.
        name: String,
        #[arg(value_enum)]
        state: SetStateArg,
        /// Why, for the host's history.
        #[arg(long, default_value = "set by operator")]
        reason: String,
    },
    /// Report a fault on a host that still runs (what Fleet health does):
    /// its customer is told, and staff propose a maintenance window.
    Degrade {
        name: String,
        #[arg(long)]
        reason: String,
    },
}

/// A host's BMC on the command line. The password is read from a file or
/// standard input, never taken as a flag (it would stay in shell history
/// and in the process list).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct BmcArgs {
    /// The BMC's address: `https://10.20.0.15` (its Redfish service).
    #[arg(long = "bmc-url")]
    pub url: Option<String>,
    #[arg(long = "bmc-user")]
    pub user: Option<String>,
    /// A file holding the BMC password (its first line), or `-` for stdin.
    #[arg(long = "bmc-password-file")]
    pub password_file: Option<PathBuf>,
    /// Accept the BMC's self-signed certificate (shown on the staff pages).
    #[arg(long = "bmc-insecure-tls", default_value_t = false)]
    pub insecure_tls: bool,
    /// How the serial console is reached: ipmi (Serial-over-LAN, the
    /// default) or ssh.
    #[arg(long = "bmc-serial")]
    pub serial: Option<String>,
    /// For `--bmc-serial ssh`: the BMC command that attaches the serial
    /// port (iDRAC `console com2`, iLO `vsp`).
    #[arg(long = "bmc-serial-command")]
    pub serial_command: Option<String>,
    /// The port of the BMC's VNC server (default 5900).
    #[arg(long = "bmc-vnc-port")]
    pub vnc_port: Option<u16>,
}

impl BmcArgs {
    fn given(&self) -> bool {
        self.url.is_some() || self.user.is_some() || self.password_file.is_some()
    }

    fn settings(&self) -> anyhow::Result<backend::inventory::bmc::BmcSettings> {
        use std::io::Read;
        let (Some(url), Some(user), Some(file)) = (&self.url, &self.user, &self.password_file)
        else {
            anyhow::bail!("a BMC needs --bmc-url, --bmc-user and --bmc-password-file");
        };
        let mut password = String::new();
        if file.as_os_str() == "-" {
            std::io::stdin()
                .read_to_string(&mut password)
                .context("reading the BMC password from stdin")?;
        } else {
            password = std::fs::read_to_string(file)
                .with_context(|| format!("reading the BMC password from {}", file.display()))?;
        }
        let password = password.lines().next().unwrap_or("").to_owned();
        Ok(backend::inventory::bmc::BmcSettings {
            url: url.clone(),
            username: user.clone(),
            password,
            tls_verify: !self.insecure_tls,
            serial_console: backend::inventory::bmc::SerialConsole::parse(
                self.serial.as_deref().unwrap_or("ipmi"),
            )
            .context("--bmc-serial is ipmi or ssh")?,
            serial_command: self.serial_command.clone().unwrap_or_default(),
            vnc_port: self.vnc_port.unwrap_or(5900),
        })
    }
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum PowerArg {
    On,
    Off,
    Shutdown,
    Reset,
    Cycle,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum StateArg {
    Free,
    Held,
    Allocated,
    Wiping,
    Maintenance,
    Failed,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum SetStateArg {
    Free,
    Maintenance,
    Failed,
}

#[derive(Subcommand, Debug)]
pub enum StaffCommand {
    /// Create a staff account; its password is printed once.
    Add {
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum MailCommand {
    /// Show the newest messages in the development outbox.
    Outbox {
        /// Only messages to this address.
        #[arg(long)]
        to: Option<String>,
        #[arg(long, default_value_t = 10)]
        limit: i64,
    },
}

#[derive(Subcommand, Debug)]
pub enum LatencyCommand {
    /// Import probe medians from CSV: city,country,site,median_ms,measured_at.
    Import {
        /// The CSV file; a header line is allowed.
        file: PathBuf,
    },
}

/// Runs an operator subcommand, writing what it reports to `out` (the
/// binary passes standard output; tests pass a buffer and run it in their
/// own process). `Serve` is not one: `startup::serve` runs the server.
pub async fn run(config: &Config, command: Command, out: &mut dyn Write) -> anyhow::Result<()> {
    match command {
        Command::Serve => anyhow::bail!("`serve` is not an operator subcommand"),
        Command::Migrate => migrate(config, out).await,
        Command::Backup { to } => backup(config, &to, out).await,
        Command::Hosts(cmd) => hosts(config, cmd, out).await,
        Command::Latency(cmd) => latency(config, cmd, out).await,
        Command::Mail(cmd) => mail(config, cmd, out).await,
        Command::Staff(cmd) => staff(config, cmd, out).await,
        Command::Stripe(cmd) => stripe(config, cmd, out).await,
        Command::Clock(cmd) => clock(config, cmd, out).await,
    }
}

async fn open(config: &Config) -> anyhow::Result<Db> {
    let db = Db::connect(config.database_url.expose(), 2).await?;
    db.migrate().await?;
    Ok(db)
}

fn operator() -> String {
    std::env::var("USER").map_or_else(|_| "operator".to_owned(), |u| format!("operator:{u}"))
}

pub async fn backup(
    config: &Config,
    to: &std::path::Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = Db::connect(config.database_url.expose(), 1).await?;
    db.backup_sqlite(to).await?;
    writeln!(out, "backed up to {}", to.display())?;
    Ok(())
}

pub async fn migrate(config: &Config, out: &mut dyn Write) -> anyhow::Result<()> {
    open(config).await?;
    writeln!(out, "migrations applied")?;
    Ok(())
}

pub async fn hosts(
    config: &Config,
    command: HostsCommand,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = open(config).await?;
    let clock = Clock::system();
    match command {
        HostsCommand::Add {
            site,
            plan,
            count,
            bmc,
        } if !bmc.given() => {
            let added = inventory::add_hosts(&db, &clock, &site, &plan, count, &operator()).await?;
            for host in &added {
                writeln!(
                    out,
                    "added {} ({} at {}, free)",
                    host.name, host.plan, host.site
                )?;
            }
        }
        HostsCommand::Add {
            site,
            plan,
            count,
            bmc,
        } => {
            anyhow::ensure!(count == 1, "a host with a BMC is added one at a time");
            // Read before anything is written: a wrong file adds nothing.
            let settings = bmc.settings()?;
            // Out of stock until its check passed: never sellable before.
            let maintenance = HostState::Maintenance;
            let added =
                inventory::rack_hosts(&db, &clock, &site, &plan, 1, maintenance, &operator())
                    .await?;
            let name = added.first().context("one host added")?.name.clone();
            inventory::bmc::set(
                &db,
                &config.sealer()?,
                &clock,
                &name,
                &settings,
                &operator(),
            )
            .await?;
            writeln!(out, "added {name} ({plan} at {site}), checking its BMC")?;
            check_host(config, &db, &clock, &name, true, out).await?;
        }
        HostsCommand::Bmc { name, bmc } => {
            let settings = bmc.settings()?;
            inventory::bmc::set(
                &db,
                &config.sealer()?,
                &clock,
                &name,
                &settings,
                &operator(),
            )
            .await?;
            writeln!(
                out,
                "{name}: BMC set; `server hosts check {name}`, then `server hosts set {name} free` if it was in stock"
            )?;
        }
        HostsCommand::History { name, limit } => {
            let events = inventory::history::of_host(&db, &name, limit.clamp(1, 1000))
                .await?
                .with_context(|| format!("no host is called {name:?}"))?;
            for e in &events {
                let change = match &e.from_state {
                    Some(from) if *from != e.to_state => format!("{from} → {}", e.to_state),
                    _ => e.to_state.to_string(),
                };
                writeln!(
                    out,
                    "{}  {:<24} {:<20} {}",
                    domain::time::format_datetime(e.at),
                    change,
                    e.actor,
                    e.reason
                )?;
            }
        }
        HostsCommand::Check { name } => {
            check_host(config, &db, &clock, &name, false, out).await?;
        }
        HostsCommand::Power { name, action } => {
            let fleet = config.redfish_fleet(&db, &config.sealer()?, &clock)?;
            let action = match action {
                PowerArg::On => HostPower::On,
                PowerArg::Off => HostPower::Off,
                PowerArg::Shutdown => HostPower::Shutdown,
                PowerArg::Reset => HostPower::Reset,
                PowerArg::Cycle => HostPower::Cycle,
            };
            let state = fleet.host_power(&name, action).await?;
            writeln!(out, "{name}: power {state}")?;
        }
        HostsCommand::List { site, plan, state } => {
            let filter = HostFilter {
                site: site
                    .as_deref()
                    .map(|s| SiteCode::parse(s).context("a site code is three lowercase letters"))
                    .transpose()?,
                plan: plan
                    .as_deref()
                    .map(|p| PlanId::parse(p).context("not a plan id"))
                    .transpose()?,
                state: state.map(StateArg::state),
            };
            let hosts = inventory::list_hosts(&db, &filter).await?;
            writeln!(
                out,
                "{:<24} {:<4} {:<10} {:<12} SINCE",
                "NAME", "SITE", "PLAN", "STATE"
            )?;
            for h in &hosts {
                writeln!(
                    out,
                    "{:<24} {:<4} {:<10} {:<12} {}",
                    h.name,
                    h.site,
                    h.plan,
                    h.state,
                    domain::time::format_datetime(h.updated_at)
                )?;
            }
            writeln!(out, "{} hosts", hosts.len())?;
        }
        HostsCommand::Set {
            name,
            state,
            reason,
        } => {
            let host =
                inventory::set_state(&db, &clock, &name, state.state(), &operator(), &reason)
                    .await?;
            writeln!(out, "{} is now {}", host.name, host.state)?;
        }
        HostsCommand::Degrade { name, reason } => {
            backend::servers::maintenance::mark_degraded(&db, &clock, &name, &reason, &operator())
                .await?;
            writeln!(
                out,
                "{name} is degraded: {reason}; propose a window on the staff hosts page"
            )?;
        }
    }
    Ok(())
}

/// Checks a host's BMC and prints what it found; a fresh host that
/// passes goes into stock (`put_in_stock`).
async fn check_host(
    config: &Config,
    db: &Db,
    clock: &Clock,
    name: &str,
    put_in_stock: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let fleet = config.redfish_fleet(db, &config.sealer()?, clock)?;
    let report = fleet.check_host(name, &operator()).await?;
    let f = &report.facts;
    writeln!(out, "{name}: {} {}", f.manufacturer, f.model)?;
    writeln!(out, "  serial   {}", f.serial_number)?;
    writeln!(out, "  BIOS     {}", f.bios_version)?;
    writeln!(out, "  power    {}", f.power_state)?;
    writeln!(
        out,
        "  GPUs     {}",
        if f.gpus.is_empty() {
            "none listed".to_owned()
        } else {
            f.gpus.join(", ")
        }
    )?;
    match &report.refused {
        Some(why) => anyhow::bail!("{name} is refused: {why}; it stays out of stock"),
        None if put_in_stock => {
            inventory::set_state(
                db,
                clock,
                name,
                HostState::Free,
                &operator(),
                "BMC check passed",
            )
            .await?;
            writeln!(out, "{name} matches its plan and is in stock (free)")?;
        }
        None => writeln!(out, "{name} matches its plan")?,
    }
    Ok(())
}

impl StateArg {
    fn state(self) -> HostState {
        match self {
            StateArg::Free => HostState::Free,
            StateArg::Held => HostState::Held,
            StateArg::Allocated => HostState::Allocated,
            StateArg::Wiping => HostState::Wiping,
            StateArg::Maintenance => HostState::Maintenance,
            StateArg::Failed => HostState::Failed,
        }
    }
}

impl SetStateArg {
    fn state(self) -> HostState {
        match self {
            SetStateArg::Free => HostState::Free,
            SetStateArg::Maintenance => HostState::Maintenance,
            SetStateArg::Failed => HostState::Failed,
        }
    }
}

pub async fn latency(
    config: &Config,
    command: LatencyCommand,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = open(config).await?;
    let clock = Clock::system();
    match command {
        LatencyCommand::Import { file } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let catalog = backend::catalog::load(&db).await?;
            let rows = latency::parse_csv(&text, &catalog, clock.now())?;
            let n = latency::import(&db, &clock, &rows).await?;
            writeln!(out, "imported {n} measurements")?;
        }
    }
    Ok(())
}

pub async fn mail(
    config: &Config,
    command: MailCommand,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = open(config).await?;
    match command {
        MailCommand::Outbox { to, limit } => {
            let to = to.map(|t| t.trim().to_lowercase());
            for m in backend::mail::outbox(&db, to.as_deref(), limit).await? {
                writeln!(
                    out,
                    "--- {} to {}\nSubject: {}\n\n{}\n",
                    domain::time::format_datetime(m.created_at),
                    m.to,
                    m.subject,
                    m.body
                )?;
            }
        }
    }
    Ok(())
}

pub async fn staff(
    config: &Config,
    command: StaffCommand,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = open(config).await?;
    match command {
        StaffCommand::Add { email, name } => {
            let (user, password) =
                backend::staff::create(&db, &Clock::system(), &email, &name).await?;
            writeln!(out, "staff account {} created", user.email)?;
            writeln!(out, "password (shown once, store it now): {password}")?;
        }
    }
    Ok(())
}

#[derive(clap::Subcommand, Debug)]
pub enum StripeCommand {
    /// Create or update a Stripe Product and monthly Price for every plan
    /// and add-on, and our webhook endpoint (`PUBLIC_BASE_URL/stripe/webhook`,
    /// the client's API version, the events we handle). Idempotent: run it
    /// after every price change and every upgrade.
    #[command(alias = "sync-catalog")]
    Sync {
        /// Prices only; leave the webhook endpoint alone (a test account
        /// whose endpoint is managed elsewhere).
        #[arg(long)]
        catalog_only: bool,
    },
    /// One reconciliation pass now; prints what it applied and skipped.
    Reconcile,
    /// Webhook events stored but not applied (another API version).
    Held,
    /// Apply a held event after all (`--apply`) or drop it (`--drop`).
    Release {
        event: String,
        #[arg(long, conflicts_with = "drop", required_unless_present = "drop")]
        apply: bool,
        #[arg(long)]
        drop: bool,
    },
}

pub async fn stripe(
    config: &Config,
    command: StripeCommand,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    use backend::billing::stripe;
    let db = open(config).await?;
    let clock = Clock::system();
    if let StripeCommand::Held = command {
        for (id, kind, why) in stripe::events::held(&db).await? {
            writeln!(out, "{id}\t{kind}\t{why}")?;
        }
        return Ok(());
    }
    if let StripeCommand::Release { event, apply, .. } = &command {
        if !stripe::events::release(&db, &clock, event, *apply).await? {
            anyhow::bail!("no held event {event}");
        }
        writeln!(
            out,
            "{event}: {}",
            if *apply {
                "queued for applying"
            } else {
                "dropped"
            }
        )?;
        return Ok(());
    }
    let key = config
        .stripe_secret_key
        .as_ref()
        .context("STRIPE_SECRET_KEY is not set")?;
    let client = stripe::StripeClient::new(&config.stripe_api_base, key.expose())?;
    match command {
        StripeCommand::Sync { catalog_only } => {
            let catalog = backend::catalog::load(&db).await?;
            for line in stripe::sync_catalog(&db, &clock, &client, &catalog).await? {
                writeln!(out, "{line}")?;
            }
            if !catalog_only {
                let url = format!(
                    "{}/stripe/webhook",
                    config.public_base_url.trim_end_matches('/')
                );
                for line in stripe::sync_webhook_endpoint(&client, &url).await? {
                    writeln!(out, "{line}")?;
                }
            }
        }
        StripeCommand::Reconcile => {
            let seller = config.seller(config.vat_id_registry()?);
            let pass = stripe::reconcile(&db, &clock, &client, &seller).await?;
            writeln!(out, "applied: {}", pass.applied)?;
            for missing in &pass.missing {
                writeln!(out, "missing at Stripe: {missing}")?;
            }
            for skipped in &pass.skipped {
                writeln!(out, "skipped: {skipped}")?;
            }
        }
        StripeCommand::Held | StripeCommand::Release { .. } => {}
    }
    Ok(())
}

#[derive(clap::Subcommand, Debug)]
pub enum ClockCommand {
    /// Development only: run the application's clock ahead, e.g. to reach a
    /// term end (`--days 31`). Running servers pick it up within a second.
    Advance {
        #[arg(long, default_value_t = 0)]
        days: i64,
        #[arg(long, default_value_t = 0)]
        seconds: i64,
    },
    /// Development only: back to the system clock.
    Reset,
    /// Print the application's time and the offset.
    Show,
}

pub async fn clock(
    config: &Config,
    command: ClockCommand,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let db = open(config).await?;
    let current = backend::clock::stored_offset(&db).await?;
    let offset = match command {
        ClockCommand::Show => current,
        _ if !config.development() => {
            anyhow::bail!("the clock can only be moved in development (ENVIRONMENT=development)")
        }
        ClockCommand::Reset => 0,
        ClockCommand::Advance { days, seconds } => {
            let step = days * 86_400 + seconds;
            anyhow::ensure!(step > 0, "give --days or --seconds (forward only)");
            current + step
        }
    };
    if offset != current {
        backend::clock::store_offset(&db, offset).await?;
    }
    let now = Clock::system().now() + offset;
    writeln!(
        out,
        "application time {} (offset {} s)",
        domain::time::format_datetime(now),
        offset
    )?;
    Ok(())
}
