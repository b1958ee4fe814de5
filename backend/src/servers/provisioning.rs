//! Running server jobs: provisioning step by step, and power actions.
//!
//! Each finished step is recorded before the next starts, so a worker that
//! dies mid-way leaves a job whose lease runs out and a server that says
//! how far it got; whichever replica takes the job next carries on from
//! there. A host fault moves the server to another free host at the same
//! site (at most [`MAX_HOSTS`] tries); with none left, or when the control
//! plane stays unreachable, the server ends `failed`, its order is failed
//! (so nothing is charged) and a healthy host goes back to stock.

use anyhow::Context;
use domain::order::OrderFailure;
use domain::server::{BillingState, EventKind};
use domain::{HostId, ServerId};
use sqlx::Row;

use super::{get_any, record_event, Server, ServerState, Step};
use crate::fleet::{FleetError, PowerAction, Progress, ProvisionSpec, ProvisionStep};
use crate::inventory::notify_stock_changed;
use crate::jobs::{self, Job, Outcome};
use crate::orders::holds::{host_event, take_host};
use crate::worker::Runner;

/// Hosts tried for one server before giving up.
pub const MAX_HOSTS: i64 = 3;
/// Runs of a job while the control plane is unreachable.
pub const MAX_ATTEMPTS: i64 = 5;
/// How often a job looks at work running on a host by itself.
const WAIT_SECS: i64 = 5;

impl Runner {
    pub(crate) async fn provision(&self, job: &Job) -> anyhow::Result<Outcome> {
        let Some(mut server) = get_any(&self.db, &ServerId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Dead("no such server".into()));
        };
        if !server.state.installing() {
            return Ok(Outcome::Done);
        }
        if server.state == ServerState::Pending {
            self.start(&server).await?;
        }
        let mut spec = self.spec(&server).await?;
        let mut step = match server.step {
            Step::Provision(done) => done.next(),
            _ => Some(ProvisionStep::PowerOn),
        };
        while let Some(current) = step {
            if !jobs::renew(&self.db, job, &self.owner, self.clock.now()).await? {
                // Another worker has the job now; it carries on.
                return Ok(Outcome::Done);
            }
            let Some(host) = server.host_name.clone() else {
                self.fail(&server, OrderFailure::NoHost).await?;
                return Ok(Outcome::Done);
            };
            match self.fleet.provision_step(&host, current, &spec).await {
                Ok(Progress::Done(addresses)) => {
                    self.step_done(&server, current, addresses).await?;
                    step = current.next();
                }
                // The installer works on the host and reports back (which
                // wakes this job); look again soon in any case.
                Ok(Progress::Running(what)) => {
                    return Ok(Outcome::Wait(self.clock.now() + WAIT_SECS, what));
                }
                Err(FleetError::HostFault(reason)) => {
                    match self.move_host(&server, &reason).await? {
                        Some(moved) => {
                            server = moved;
                            spec = self.spec(&server).await?;
                            step = Some(ProvisionStep::PowerOn);
                        }
                        None => return Ok(Outcome::Done),
                    }
                }
                Err(FleetError::Unavailable(reason)) => {
                    if job.attempts >= MAX_ATTEMPTS {
                        self.fail(&server, OrderFailure::FleetUnavailable).await?;
                        return Ok(Outcome::Done);
                    }
                    return Ok(Outcome::RetryAt(
                        self.clock.now() + 15 * job.attempts,
                        reason,
                    ));
                }
            }
        }
        // An install (or a rebuild after a host failure) brings the network
        // up; a server suspended for non-payment meanwhile must not get it.
        if let Some(host) = server.host_name.as_deref() {
            if let Err(error) = self.apply_network(&server.id, host).await {
                return Ok(Outcome::RetryAt(
                    self.clock.now() + 15 * job.attempts,
                    format!("{error:#}"),
                ));
            }
        }
        // What the customer's first `ssh` will be asked to trust.
        if let Some(host) = server.host_name.as_deref() {
            match self.fleet.host_keys(host, &spec.install_key).await {
                Ok(keys) => {
                    sqlx::query("update servers set host_keys = $1 where id = $2")
                        .bind(keys.join("\n"))
                        .bind(&server.id)
                        .execute(&self.db.pool)
                        .await
                        .context("recording the host keys")?;
                }
                Err(error) => tracing::warn!(server = %server.id, %error, "no host keys"),
            }
        }
        // What the installed system calls itself: the page shows it beside
        // the name, which a rename changes and this does not.
        sqlx::query("update servers set hostname = $1 where id = $2")
            .bind(&spec.hostname)
            .bind(&server.id)
            .execute(&self.db.pool)
            .await
            .context("recording the hostname")?;
        self.finish(&server).await?;
        Ok(Outcome::Done)
    }

    async fn start(&self, server: &Server) -> anyhow::Result<()> {
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        sqlx::query(
            "update servers set state = 'provisioning', progress = 0, step = '', updated_at = $1 \
             where id = $2 and state = 'pending'",
        )
        .bind(now)
        .bind(&server.id)
        .execute(&mut *tx)
        .await
        .context("starting provisioning")?;
        record_event(&mut tx, &server.id, EventKind::ProvisioningStarted, "", now).await?;
        tx.commit().await.context("committing")?;
        Ok(())
    }

    /// What to install. Without SSH keys a root password is made once and
    /// kept sealed, so a repeated run installs the same one.
    async fn spec(&self, server: &Server) -> anyhow::Result<ProvisionSpec> {
        let image = domain::OsImage::parse(&server.os_image).context("stored image")?;
        let mut root_password = None;
        // A rebuild keeps the server's volumes, and so its root password;
        // a reinstall the customer asked for starts afresh.
        let fresh = server.term_start.is_none() || server.reinstall_requested_at.is_some();
        if server.ssh_keys.is_empty() && fresh {
            let sealed: Option<String> =
                sqlx::query_scalar("select root_secret from servers where id = $1")
                    .bind(&server.id)
                    .fetch_one(&self.db.pool)
                    .await
                    .context("reading the root secret")?;
            let password = match sealed {
                Some(sealed) => self.sealer.open(&sealed)?,
                None => {
                    let password = crate::accounts::tokens::random_token()?[..24].to_owned();
                    sqlx::query("update servers set root_secret = $1 where id = $2")
                        .bind(self.sealer.seal(&password)?)
                        .bind(&server.id)
                        .execute(&self.db.pool)
                        .await
                        .context("storing the root secret")?;
                    password
                }
            };
            root_password = Some(password);
        }
        Ok(ProvisionSpec {
            hostname: server.name.clone(),
            image,
            ssh_keys: server.ssh_keys.clone(),
            root_password,
            // A reinstall is another install on the same host: its own
            // key, so its host keys are its own.
            install_key: match server.reinstall_requested_at {
                Some(at) => format!(
                    "{}@{}#{at}",
                    server.id,
                    server.host_name.as_deref().unwrap_or("")
                ),
                None => format!(
                    "{}@{}",
                    server.id,
                    server.host_name.as_deref().unwrap_or("")
                ),
            },
        })
    }

    async fn step_done(
        &self,
        server: &Server,
        step: ProvisionStep,
        addresses: Option<crate::fleet::Addresses>,
    ) -> anyhow::Result<()> {
        let (ipv4, ipv6) = addresses.map_or((None, None), |a| (Some(a.ipv4), Some(a.ipv6)));
        sqlx::query(
            "update servers set step = $1, progress = $2, ipv4 = coalesce(ipv4, $3), \
             ipv6 = coalesce(ipv6, $4), updated_at = $5 where id = $6 and state = 'provisioning'",
        )
        .bind(step.as_str())
        .bind(step.progress_after())
        .bind(ipv4)
        .bind(ipv6)
        .bind(self.clock.now())
        .bind(&server.id)
        .execute(&self.db.pool)
        .await
        .context("recording a provisioning step")?;
        Ok(())
    }

    async fn finish(&self, server: &Server) -> anyhow::Result<()> {
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        sqlx::query(
            "update servers set state = 'running', progress = 100, term_start = coalesce(term_start, $1), \
             renews_at = coalesce(renews_at, $2), reinstall_requested_at = null, updated_at = $1 \
             where id = $3 and state = 'provisioning'",
        )
        .bind(now)
        .bind(domain::time::add_months(now, 1))
        .bind(&server.id)
        .execute(&mut *tx)
        .await
        .context("marking the server running")?;
        // Once: a rebuild runs the server again, its order stays fulfilled.
        let fulfilled = sqlx::query(
            "update orders set state = 'fulfilled', updated_at = $1 where id = $2 \
             and state <> 'fulfilled'",
        )
        .bind(now)
        .bind(&server.order_id)
        .execute(&mut *tx)
        .await
        .context("fulfilling the order")?;
        if fulfilled.rows_affected() == 1 {
            crate::events::order(&mut tx, server.order_id.as_str(), "fulfilled", now).await?;
        }
        if server.reinstall_requested_at.is_some() {
            record_event(
                &mut tx,
                &server.id,
                EventKind::Reinstalled,
                &server.os_image,
                now,
            )
            .await?;
            tx.commit().await.context("committing")?;
            return Ok(());
        }
        if server.term_start.is_some() {
            // A rebuild after a host failure: the server is back.
            super::failures::end_downtime(&mut tx, &server.id, now).await?;
            record_event(&mut tx, &server.id, EventKind::Rebuilt, "", now).await?;
            tx.commit().await.context("committing")?;
            return Ok(());
        }
        record_event(&mut tx, &server.id, EventKind::Running, "", now).await?;
        let orderer = sqlx::query(
            "select u.email, u.lang, s.ipv4, s.ipv6 from orders o join users u on u.id = o.user_id \
             join servers s on s.order_id = o.id where o.id = $1",
        )
        .bind(&server.order_id)
        .fetch_one(&mut *tx)
        .await
        .context("reading who ordered the server")?;
        let lang =
            domain::Lang::from_code(&orderer.try_get::<String, _>("lang")?).unwrap_or_default();
        let link = format!(
            "{}/{}/servers/{}",
            self.base_url.trim_end_matches('/'),
            lang.code(),
            server.id
        );
        let message = super::mail_texts::ready(
            lang,
            &super::Ready {
                to: &orderer.try_get::<String, _>("email")?,
                name: &server.name,
                ipv4: &orderer
                    .try_get::<Option<String>, _>("ipv4")?
                    .unwrap_or_default(),
                ipv6: &orderer
                    .try_get::<Option<String>, _>("ipv6")?
                    .unwrap_or_default(),
                link: &link,
            },
        );
        crate::mail::queue(&mut tx, &message, now).await?;
        tx.commit().await.context("committing")?;
        Ok(())
    }

    /// Takes the faulty host out of service and moves the server to another
    /// free host at the same site; `None` when the server had to fail.
    async fn move_host(&self, server: &Server, reason: &str) -> anyhow::Result<Option<Server>> {
        let now = self.clock.now();
        let attempts: i64 = sqlx::query_scalar("select attempts from servers where id = $1")
            .bind(&server.id)
            .fetch_one(&self.db.pool)
            .await
            .context("reading attempts")?;
        let mut tx = self.db.begin().await?;
        self.release_host(&mut tx, &server.id, "failed", reason, now)
            .await?;
        record_event(&mut tx, &server.id, EventKind::HostFault, reason, now).await?;
        let next = if attempts + 1 < MAX_HOSTS {
            take_host(
                &self.db,
                &mut tx,
                server.plan_id.as_str(),
                server.site_code.as_str(),
                &server.order_id,
                None,
                now,
            )
            .await?
        } else {
            None
        };
        let Some((host_id, host_name)) = next else {
            sqlx::query("update servers set host_id = null where id = $1")
                .bind(&server.id)
                .execute(&mut *tx)
                .await
                .context("detaching the server")?;
            tx.commit().await.context("committing")?;
            self.fail(server, OrderFailure::NoHealthyHost).await?;
            return Ok(None);
        };
        sqlx::query(
            "update servers set host_id = $1, step = '', progress = 0, ipv4 = null, ipv6 = null, \
             attempts = attempts + 1, updated_at = $2 where id = $3",
        )
        .bind(&host_id)
        .bind(now)
        .bind(&server.id)
        .execute(&mut *tx)
        .await
        .context("moving the server")?;
        record_event(
            &mut tx,
            &server.id,
            EventKind::ProvisioningMoved,
            &host_name,
            now,
        )
        .await?;
        tx.commit().await.context("committing")?;
        get_any(&self.db, &server.id).await
    }

    /// Takes the server's host back from it: `failed` when the host is at
    /// fault, `free` (back in stock) otherwise.
    async fn release_host(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        server_id: &ServerId,
        to: &str,
        reason: &str,
        now: i64,
    ) -> anyhow::Result<()> {
        let released: Option<HostId> = sqlx::query_scalar(
            "update hosts set state = $1, order_id = null, updated_at = $2 \
             where id = (select host_id from servers where id = $3) and state = 'allocated' returning id",
        )
        .bind(to)
        .bind(now)
        .bind(server_id)
        .fetch_optional(&mut **tx)
        .await
        .context("releasing the host")?;
        if let Some(id) = &released {
            host_event(tx, id, to, reason, now).await?;
            notify_stock_changed(&self.db, tx).await?;
        }
        Ok(())
    }

    /// Ends provisioning for good: the order fails (so nothing is charged)
    /// and the host, if still attached and healthy, returns to stock.
    async fn fail(&self, server: &Server, failure: OrderFailure) -> anyhow::Result<()> {
        let reason = failure.as_str();
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        self.release_host(&mut tx, &server.id, "free", reason, now)
            .await?;
        sqlx::query(
            "update servers set state = 'failed', host_id = null, updated_at = $1 where id = $2",
        )
        .bind(now)
        .bind(&server.id)
        .execute(&mut *tx)
        .await
        .context("failing the server")?;
        sqlx::query(
            "update orders set state = 'failed', failure = $1, updated_at = $2 where id = $3",
        )
        .bind(reason)
        .bind(now)
        .bind(&server.order_id)
        .execute(&mut *tx)
        .await
        .context("failing the order")?;
        crate::events::order(&mut tx, server.order_id.as_str(), "failed", now).await?;
        record_event(&mut tx, &server.id, EventKind::Failed, reason, now).await?;
        tx.commit().await.context("committing")?;
        Ok(())
    }

    pub(crate) async fn power(&self, job: &Job, action: PowerAction) -> anyhow::Result<Outcome> {
        let Some(server) = get_any(&self.db, &ServerId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Dead("no such server".into()));
        };
        if server.state != ServerState::Rebooting {
            return Ok(Outcome::Done);
        }
        let result = match &server.host_name {
            Some(host) => self.fleet.power(host, action).await,
            None => Err(FleetError::HostFault("no host".into())),
        };
        // Failed, the server is shown as it was before (a machine that
        // would not power off still runs; one that would not start is
        // still off).
        let (event, (state, step)) = match result {
            Ok(()) => (action.events().1, action.to()),
            Err(FleetError::Unavailable(reason)) if job.attempts < MAX_ATTEMPTS => {
                return Ok(Outcome::RetryAt(
                    self.clock.now() + 10 * job.attempts,
                    reason,
                ));
            }
            Err(_) => (action.events().2, action.from()),
        };
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        sqlx::query(
            "update servers set state = $1, step = $2, updated_at = $3 where id = $4 and state = 'rebooting'",
        )
        .bind(state)
        .bind(step)
        .bind(now)
        .bind(&server.id)
        .execute(&mut *tx)
        .await
        .context("finishing the power action")?;
        record_event(&mut tx, &server.id, event, "", now).await?;
        tx.commit().await.context("committing")?;
        Ok(Outcome::Done)
    }

    /// Suspension and its end: the network follows the billing state as it
    /// is when the job runs, not the job's kind, so a suspend and a resume
    /// that run late or out of order still leave the network as billing
    /// wants it.
    pub(crate) async fn network(&self, job: &Job) -> anyhow::Result<Outcome> {
        let Some(server) = get_any(&self.db, &ServerId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Dead("no such server".into()));
        };
        let Some(host) = server.host_name.as_deref() else {
            return Ok(Outcome::Done);
        };
        match self.apply_network(&server.id, host).await {
            Ok(()) => Ok(Outcome::Done),
            Err(error) if job.attempts < MAX_ATTEMPTS => Ok(Outcome::RetryAt(
                self.clock.now() + 30 * job.attempts,
                error.to_string(),
            )),
            Err(error) => Ok(Outcome::Dead(error.to_string())),
        }
    }

    /// Sets the host's public network to what the server's billing state
    /// asks for now (cut while suspended) and records it on the server.
    async fn apply_network(&self, server_id: &ServerId, host: &str) -> anyhow::Result<()> {
        let row = sqlx::query("select billing_state from servers where id = $1")
            .bind(server_id)
            .fetch_one(&self.db.pool)
            .await
            .context("reading the billing state")?;
        let billing: BillingState = row.try_get("billing_state")?;
        let enabled = billing != BillingState::Suspended;
        self.fleet.set_network(host, enabled).await?;
        let kind = if enabled {
            EventKind::NetworkRestored
        } else {
            EventKind::NetworkCut
        };
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        // Recorded when it changes (on this host: a rebuild moves the
        // server to a host whose network starts up), not on every repeat.
        let last = sqlx::query(
            "select kind, detail from server_events where server_id = $1 \
             and kind in ('network.cut', 'network.restored') order by at desc, id desc limit 1",
        )
        .bind(server_id)
        .fetch_optional(&mut *tx)
        .await
        .context("reading the network's last change")?
        .map(|r| {
            Ok::<_, sqlx::Error>((
                r.try_get::<String, _>("kind")?,
                r.try_get::<String, _>("detail")?,
            ))
        })
        .transpose()?;
        let changed = match &last {
            Some((k, h)) => k != kind.as_str() || h != host,
            None => !enabled,
        };
        if changed {
            record_event(&mut tx, server_id, kind, host, now).await?;
        }
        tx.commit().await.context("committing")?;
        Ok(())
    }

    /// After a host failure: take another free host at the same site (or
    /// wait for one: that is downtime), then install as for a new server.
    pub(crate) async fn rebuild(&self, job: &Job) -> anyhow::Result<Outcome> {
        let Some(server) = get_any(&self.db, &ServerId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Dead("no such server".into()));
        };
        if server.state != ServerState::Provisioning {
            return Ok(Outcome::Done);
        }
        let healthy: Option<String> = sqlx::query_scalar(
            "select h.state from hosts h join servers s on s.host_id = h.id where s.id = $1",
        )
        .bind(&server.id)
        .fetch_optional(&self.db.pool)
        .await
        .context("reading the server's host")?;
        if healthy.as_deref() != Some("allocated") {
            let now = self.clock.now();
            let mut tx = self.db.begin().await?;
            let next = take_host(
                &self.db,
                &mut tx,
                server.plan_id.as_str(),
                server.site_code.as_str(),
                &server.order_id,
                None,
                now,
            )
            .await?;
            let Some((host_id, host_name)) = next else {
                if job.attempts == 1 {
                    record_event(&mut tx, &server.id, EventKind::RebuildWaiting, "", now).await?;
                    tx.commit().await.context("committing")?;
                }
                // Checked again every minute; operators rack or repair hosts.
                return Ok(Outcome::RetryAt(
                    now + 60,
                    "no free host at the site".into(),
                ));
            };
            sqlx::query("update servers set host_id = $1, step = '', progress = 0, updated_at = $2 where id = $3")
                .bind(&host_id)
                .bind(now)
                .bind(&server.id)
                .execute(&mut *tx)
                .await
                .context("moving the server")?;
            record_event(
                &mut tx,
                &server.id,
                EventKind::RebuildStarted,
                &host_name,
                now,
            )
            .await?;
            tx.commit().await.context("committing")?;
        }
        self.provision(job).await
    }

    /// A cancelled server's host is erased, then goes back to stock.
    pub(crate) async fn wipe(&self, job: &Job) -> anyhow::Result<Outcome> {
        let Some(server) = get_any(&self.db, &ServerId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Dead("no such server".into()));
        };
        if let Err(error) = self.delete_all_snapshots(&server.id).await {
            return Ok(Outcome::RetryAt(
                self.clock.now() + 30 * job.attempts,
                error.to_string(),
            ));
        }
        if let Some(host) = &server.host_name {
            match self.fleet.wipe(host).await {
                Ok(Progress::Done(())) => {}
                Ok(Progress::Running(what)) => {
                    return Ok(Outcome::Wait(self.clock.now() + WAIT_SECS, what));
                }
                Err(error) => {
                    return Ok(Outcome::RetryAt(
                        self.clock.now() + 30 * job.attempts,
                        error.to_string(),
                    ))
                }
            }
        }
        super::cancellation::wiped(&self.db, &self.clock, &server.id).await?;
        Ok(Outcome::Done)
    }
}
