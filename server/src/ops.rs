//! Operators' subcommands of the server binary. Each applies migrations
//! first, so it works on a fresh database; stock changes made here show on
//! the storefront's next request (see `backend::stock_watch`).

use anyhow::Context;
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
        /// How many hosts to add (1–500).
        #[arg(long, default_value_t = 1)]
        count: u32,
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
        HostsCommand::Add { site, plan, count } => {
            let added = inventory::add_hosts(&db, &clock, &site, &plan, count, &operator()).await?;
            for host in &added {
                writeln!(
                    out,
                    "added {} ({} at {}, free)",
                    host.name, host.plan, host.site
                )?;
            }
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
