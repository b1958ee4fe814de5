//! The Fleet: the data-centre control plane that installs, powers and
//! watches physical hosts. [`redfish::RedfishFleet`] drives real hosts'
//! BMCs over Redfish (production, `FLEET=redfish`); [`dev::DevFleet`]
//! simulates a data centre on this machine, with realistic step times and
//! injectable host faults, so the product runs offline (the default).

pub mod bmc;
pub mod dev;
pub mod disks;
pub mod redfish;
pub mod telemetry;

pub use telemetry::{Sample, FAIR_USE_BYTES};

use async_trait::async_trait;
use domain::OsImage;

pub use domain::server::ProvisionStep;

/// What the server is installed with.
#[derive(Clone, Debug)]
pub struct ProvisionSpec {
    pub hostname: String,
    pub image: OsImage,
    /// OpenSSH public keys, one per entry.
    pub ssh_keys: Vec<String>,
    /// Set when no key was given: the root password to install.
    pub root_password: Option<String>,
    /// Names this install of this server on this host: a Fleet whose
    /// installer runs on its own tells its reports apart from an earlier
    /// install's on the same host by it.
    pub install_key: String,
}

/// The addresses a host answers on once its network step is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addresses {
    pub ipv4: String,
    pub ipv6: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerAction {
    /// ACPI reboot: the operating system shuts down cleanly.
    Reboot,
    /// Hard power off and on through the BMC.
    PowerCycle,
    /// ACPI shutdown, forced off if the operating system has not stopped
    /// within the Fleet's wait (an OS may ignore ACPI): the machine ends
    /// off either way, still rented to the customer.
    PowerOff,
    /// Power on a machine the customer powered off.
    PowerOn,
}

impl PowerAction {
    pub const ALL: [PowerAction; 4] = [
        PowerAction::Reboot,
        PowerAction::PowerCycle,
        PowerAction::PowerOff,
        PowerAction::PowerOn,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PowerAction::Reboot => "reboot",
            PowerAction::PowerCycle => "power_cycle",
            PowerAction::PowerOff => "power_off",
            PowerAction::PowerOn => "power_on",
        }
    }

    /// The server's history: (requested, done, failed).
    pub fn events(self) -> (EventKind, EventKind, EventKind) {
        match self {
            PowerAction::Reboot => (
                EventKind::RebootRequested,
                EventKind::RebootDone,
                EventKind::RebootFailed,
            ),
            PowerAction::PowerCycle => (
                EventKind::PowerCycleRequested,
                EventKind::PowerCycleDone,
                EventKind::PowerCycleFailed,
            ),
            PowerAction::PowerOff => (
                EventKind::PowerOffRequested,
                EventKind::PowerOffDone,
                EventKind::PowerOffFailed,
            ),
            PowerAction::PowerOn => (
                EventKind::PowerOnRequested,
                EventKind::PowerOnDone,
                EventKind::PowerOnFailed,
            ),
        }
    }

    /// The job that carries the action out.
    pub fn job(self) -> crate::jobs::JobKind {
        match self {
            PowerAction::Reboot => crate::jobs::JobKind::Reboot,
            PowerAction::PowerCycle => crate::jobs::JobKind::PowerCycle,
            PowerAction::PowerOff => crate::jobs::JobKind::PowerOff,
            PowerAction::PowerOn => crate::jobs::JobKind::PowerOn,
        }
    }

    /// The state and step a server must be in for the action: only a
    /// machine that is off can be powered on, and only a running one
    /// anything else.
    pub fn from(self) -> (ServerState, Step) {
        match self {
            PowerAction::PowerOn => (ServerState::Rebooting, Step::Off),
            _ => (ServerState::Running, Step::None),
        }
    }

    /// The state and step it is in once the action is done.
    pub fn to(self) -> (ServerState, Step) {
        match self {
            PowerAction::PowerOff => (ServerState::Rebooting, Step::Off),
            _ => (ServerState::Running, Step::None),
        }
    }

    /// What the server is shown doing meanwhile (state `rebooting`).
    pub fn step(self) -> Step {
        match self {
            PowerAction::Reboot | PowerAction::PowerCycle => Step::None,
            PowerAction::PowerOff => Step::Stopping,
            PowerAction::PowerOn => Step::Starting,
        }
    }

    pub fn parse(raw: &str) -> Option<PowerAction> {
        PowerAction::ALL.into_iter().find(|a| a.as_str() == raw)
    }
}

/// Where a console is served, as the tunnel connects to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleEndpoint {
    pub addr: std::net::SocketAddr,
    /// The one-time key of a bridge on this machine's loopback, which any
    /// local process can reach: the tunnel writes it, then `\n`, before
    /// anything else, and a connection without it gets nothing. `None`
    /// for a console the BMC serves itself.
    pub key: Option<String>,
}

/// A snapshot restore is written back in this many parts.
pub const RESTORE_PARTS: u32 = 10;

pub use domain::server::ConsoleKind;
use domain::server::{EventKind, ServerState, Step};

/// Work the Fleet started on a host and that runs there on its own (an
/// installer or a wipe image booted from virtual media): done, or still
/// running, in which case the job asks again later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress<T> {
    Done(T),
    /// Still running; what the host last reported.
    Running(String),
}

#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// The host itself is broken: take it out of service, use another.
    #[error("host fault: {0}")]
    HostFault(String),
    /// The control plane could not be reached or timed out: try again later.
    #[error("fleet unavailable: {0}")]
    Unavailable(String),
}

/// What a Fleet can do beyond installing, powering and wiping hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offers {
    /// Taking, restoring and deleting snapshots.
    pub snapshots: bool,
    /// Setting a new root password on a running server.
    pub root_password_reset: bool,
}

#[async_trait]
pub trait Fleet: Send + Sync {
    /// What this Fleet offers; the pages show and take only that.
    fn offers(&self) -> Offers {
        Offers {
            snapshots: true,
            root_password_reset: true,
        }
    }

    /// Runs one provisioning step on a host. The network step reports the
    /// addresses; steps may be repeated after a restart and must not mind.
    /// A step that waits for the host (the installer's report) answers
    /// `Running` and is asked again.
    async fn provision_step(
        &self,
        host: &str,
        step: ProvisionStep,
        spec: &ProvisionSpec,
    ) -> Result<Progress<Option<Addresses>>, FleetError>;

    async fn power(&self, host: &str, action: PowerAction) -> Result<(), FleetError>;

    /// The SSH host keys (OpenSSH public key lines) the system installed
    /// by `install_key` reported, so the customer can check the server's
    /// fingerprint on their first login; none if the Fleet cannot know.
    async fn host_keys(&self, host: &str, install_key: &str) -> Result<Vec<String>, FleetError> {
        let _ = (host, install_key);
        Ok(Vec::new())
    }

    /// Cuts (or restores) a host's public network and console access, for
    /// a suspension; the machine and its disks keep running.
    async fn set_network(&self, host: &str, enabled: bool) -> Result<(), FleetError>;

    /// Erases a host's disks for the next customer; `Running` while a wipe
    /// image works on the host (asked again until it reports).
    async fn wipe(&self, host: &str) -> Result<Progress<()>, FleetError>;

    /// Sets the root password of the system installed on the host (the
    /// customer lost theirs). The machine keeps running: the control plane
    /// changes it through the host agent, or through a rescue boot where
    /// there is none. Repeating it with the same password does no harm.
    async fn set_root_password(&self, host: &str, password: &str) -> Result<(), FleetError>;

    /// Copies the host's disks into a snapshot kept at the site (the
    /// machine keeps running; the copy is crash-consistent). Returns its
    /// size in bytes.
    async fn take_snapshot(&self, host: &str, snapshot_id: &str) -> Result<u64, FleetError>;

    /// Writes part `part` (0..[`RESTORE_PARTS`]) of a snapshot back onto
    /// the host's disks, which are offline meanwhile; the worker records
    /// progress after each part, so a restore can be followed and resumed.
    async fn restore_snapshot_part(
        &self,
        host: &str,
        snapshot_id: &str,
        part: u32,
    ) -> Result<(), FleetError>;

    /// Deletes a snapshot from the site's storage; deleting one that is
    /// gone already succeeds.
    async fn delete_snapshot(&self, snapshot_id: &str) -> Result<(), FleetError>;

    /// Where the host's BMC serves a console: a TCP address the tunnel
    /// connects to (serial bytes, or RFB for the graphical one).
    async fn console_endpoint(
        &self,
        host: &str,
        kind: ConsoleKind,
    ) -> Result<ConsoleEndpoint, FleetError>;

    /// Readings of a host with `cards` GPUs from `from` to `to`, one every
    /// `step` seconds.
    async fn telemetry(
        &self,
        host: &str,
        cards: u32,
        from: i64,
        to: i64,
        step: i64,
    ) -> Result<Vec<Sample>, FleetError>;
}
