//! The production Fleet: real hosts driven through their BMCs over
//! Redfish, the DMTF standard Dell iDRAC, HPE iLO, Supermicro and Lenovo
//! XCC speak (and OpenStack Ironic and Metal3 use).
//!
//! - [`client`]: HTTPS to one BMC, time-outs, Redfish error bodies.
//! - [`check`]: what a host is (model, serial, BIOS, GPUs) before it is sold.
//! - [`power`]: `ComputerSystem.Reset`, with the state read back.
//! - [`install`]: installs and wipes through virtual media ([`media`]),
//!   followed by what the booted image reports ([`boots`]).
//!
//! Every BMC error is written to the host's history as a host event, so
//! staff see "the BMC refused the user name or password (401)" beside the
//! host, not only in a log.

pub mod boots;
pub mod check;
mod client;
mod console;
mod install;
pub mod media;
mod network;
pub mod power;
mod sensors;

pub use client::{BmcAccess, BmcClients, BmcError};
pub use console::SERIAL_ACCEPT_WAIT;

use std::time::Duration;

use async_trait::async_trait;

use super::{
    Addresses, ConsoleKind, Fleet, FleetError, Offers, PowerAction, Progress, ProvisionSpec,
    ProvisionStep, Sample,
};
use crate::inventory::bmc::{self, HostBmc};
use crate::sealing::Sealer;
use crate::{Clock, Db};
use client::Bmc;
use power::{HostPower, PowerError};

/// How the Redfish Fleet works with hosts; see `server --help` (`FLEET_*`).
#[derive(Clone, Debug)]
pub struct RedfishSettings {
    /// Our URL as BMCs and booted images reach it (media, seed, reports).
    pub callback_base: String,
    pub images: media::ImageStore,
    /// Seconds an installer has from boot to its final report.
    pub install_limit: i64,
    /// Seconds a wipe image has.
    pub wipe_limit: i64,
    /// How long a power action may take to show in the power state.
    pub power_wait: Duration,
    /// How long a BMC task (a drive's secure erase) may run.
    pub task_wait: Duration,
    /// The programs serial consoles run: `ipmitool` for IPMI
    /// Serial-over-LAN, `ssh` for a BMC's SSH serial console.
    pub ipmitool: std::path::PathBuf,
    pub ssh: std::path::PathBuf,
    /// The BMCs' SSH host keys, trusted on first use and kept across
    /// restarts (its folder is made if missing).
    pub known_hosts: std::path::PathBuf,
    /// The operator's switch automation, run as `HOOK disable|enable
    /// HOST` to cut or restore a suspended server's public network.
    pub network_hook: Option<std::path::PathBuf>,
}

#[derive(Clone)]
pub struct RedfishFleet {
    db: Db,
    sealer: Sealer,
    clock: Clock,
    clients: BmcClients,
    settings: RedfishSettings,
}

/// A host the Fleet works on, with its BMC.
pub(crate) struct Target {
    pub bmc: HostBmc,
}

impl RedfishFleet {
    pub fn new(
        db: Db,
        sealer: Sealer,
        clock: Clock,
        clients: BmcClients,
        settings: RedfishSettings,
    ) -> RedfishFleet {
        RedfishFleet {
            db,
            sealer,
            clock,
            clients,
            settings,
        }
    }

    /// The image store boot media come from.
    pub fn images(&self) -> &media::ImageStore {
        &self.settings.images
    }

    /// Our URL as BMCs and booted images reach it, without a trailing `/`.
    pub fn callback_base(&self) -> &str {
        self.settings.callback_base.trim_end_matches('/')
    }

    async fn target(&self, host: &str) -> Result<Target, FleetError> {
        match bmc::of_host(&self.db, &self.sealer, host).await {
            Ok(Some(bmc)) => Ok(Target { bmc }),
            Ok(None) => Err(FleetError::HostFault(format!(
                "{host} has no BMC configured (server hosts bmc {host} …)"
            ))),
            Err(error) => Err(FleetError::Unavailable(format!("{host}: {error:#}"))),
        }
    }

    /// The host's ComputerSystem: as the last check found it, or asked.
    async fn system(&self, bmc: &Bmc<'_>, target: &Target) -> Result<String, FleetError> {
        match &target.bmc.system_path {
            Some(path) => Ok(path.clone()),
            None => {
                let found = check::system_path(bmc).await;
                self.bmc_result(target, found).await
            }
        }
    }

    /// A BMC call's result for the Fleet; an error is also noted in the
    /// host's history.
    async fn bmc_result<T>(
        &self,
        target: &Target,
        result: Result<T, BmcError>,
    ) -> Result<T, FleetError> {
        match result {
            Ok(value) => Ok(value),
            Err(error) => {
                self.note(target, &format!("BMC: {error}")).await;
                Err(error.into_fleet(&target.bmc.host_name))
            }
        }
    }

    async fn host_fault(&self, target: &Target, why: String) -> FleetError {
        self.note(target, &why).await;
        FleetError::HostFault(format!("{}: {why}", target.bmc.host_name))
    }

    /// Writes a host event; failing to write one must not hide the error
    /// being reported, so it is logged instead.
    async fn note(&self, target: &Target, reason: &str) {
        if let Err(error) = bmc::event(&self.db, &self.clock, &target.bmc.host_id, reason).await {
            tracing::error!(host = %target.bmc.host_name, error = %format!("{error:#}"), "recording a host event failed");
        }
    }

    async fn power_target(
        &self,
        bmc: &Bmc<'_>,
        target: &Target,
        system: &str,
        action: HostPower,
    ) -> Result<(), FleetError> {
        match self.apply_power(bmc, system, action).await {
            Ok(()) => Ok(()),
            Err(PowerError::Bmc(error)) => self.bmc_result(target, Err(error)).await,
            Err(error @ PowerError::NotReached { .. }) => {
                Err(self.host_fault(target, format!("BMC: {error}")).await)
            }
        }
    }

    /// An operator's power action on a host (`server hosts power`),
    /// answered with the power state read back.
    pub async fn host_power(&self, host: &str, action: HostPower) -> Result<String, FleetError> {
        let target = self.target(host).await?;
        let bmc = self.clients.connect(&target.bmc.access);
        let system = self.system(&bmc, &target).await?;
        self.power_target(&bmc, &target, &system, action).await?;
        let state = bmc.get(&system).await;
        let state = self.bmc_result(&target, state).await?;
        Ok(state["PowerState"].as_str().unwrap_or("unknown").to_owned())
    }

    fn unsupported(&self, host: &str, what: &str) -> FleetError {
        FleetError::Unavailable(format!(
            "{host}: {what} on Redfish hosts needs the site's host agent; see docs/OPERATIONS.md"
        ))
    }
}

/// A program of the operator's (console clients, the network hook) with a
/// clean environment: ours holds the database URL, `SECRET_KEY` and
/// payment keys, none of them the program's business. No `DISPLAY`
/// either: ssh would then look for a graphical askpass.
pub(super) fn clean_command(path: &std::path::Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(path);
    command.env_clear();
    for name in ["PATH", "HOME", "LANG", "TZ"] {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    command
}

#[async_trait]
impl Fleet for RedfishFleet {
    /// Both need software on the customer's machine (the host agent in the
    /// operator's images), which a BMC cannot stand in for: see
    /// docs/decisions/fleet-redfish.md, "Snapshots and root passwords on
    /// real hosts".
    fn offers(&self) -> Offers {
        Offers {
            snapshots: false,
            root_password_reset: false,
        }
    }

    async fn provision_step(
        &self,
        host: &str,
        step: ProvisionStep,
        spec: &ProvisionSpec,
    ) -> Result<Progress<Option<Addresses>>, FleetError> {
        self.step(host, step, spec).await
    }

    async fn host_keys(&self, host: &str, install_key: &str) -> Result<Vec<String>, FleetError> {
        let target = self.target(host).await?;
        boots::host_keys_of_install(&self.db, &target.bmc.host_id, install_key)
            .await
            .map_err(|e| FleetError::Unavailable(format!("{host}: {e:#}")))
    }

    async fn power(&self, host: &str, action: PowerAction) -> Result<(), FleetError> {
        let action = match action {
            PowerAction::Reboot => HostPower::Reset,
            PowerAction::PowerCycle => HostPower::Cycle,
            PowerAction::PowerOff => HostPower::Shutdown,
            PowerAction::PowerOn => HostPower::On,
        };
        self.host_power(host, action).await.map(|_| ())
    }

    async fn set_network(&self, host: &str, enabled: bool) -> Result<(), FleetError> {
        self.switch_port(host, enabled).await
    }

    async fn wipe(&self, host: &str) -> Result<Progress<()>, FleetError> {
        self.wipe_host(host).await
    }

    async fn set_root_password(&self, host: &str, _password: &str) -> Result<(), FleetError> {
        Err(self.unsupported(host, "resetting the root password"))
    }

    async fn take_snapshot(&self, host: &str, _snapshot_id: &str) -> Result<u64, FleetError> {
        Err(self.unsupported(host, "taking a snapshot"))
    }

    async fn restore_snapshot_part(
        &self,
        host: &str,
        _snapshot_id: &str,
        _part: u32,
    ) -> Result<(), FleetError> {
        Err(self.unsupported(host, "restoring a snapshot"))
    }

    async fn delete_snapshot(&self, _snapshot_id: &str) -> Result<(), FleetError> {
        // Nothing was stored by this Fleet, so there is nothing to delete.
        Ok(())
    }

    async fn console_endpoint(
        &self,
        host: &str,
        kind: ConsoleKind,
    ) -> Result<crate::fleet::ConsoleEndpoint, FleetError> {
        self.console(host, kind).await
    }

    async fn telemetry(
        &self,
        host: &str,
        cards: u32,
        from: i64,
        to: i64,
        step: i64,
    ) -> Result<Vec<Sample>, FleetError> {
        self.readings(host, cards, from, to, step).await
    }
}
