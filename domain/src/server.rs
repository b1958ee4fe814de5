//! A server's state, the step within it and what the customer is shown,
//! shared by the backend (which stores them as text and decodes them where
//! rows are read) and the app (which renders them): code compares these
//! enums, never strings.

use serde::{Deserialize, Serialize};

/// One stage of installing a server, in order. The worker records the last
/// finished step, so a restarted worker carries on where it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProvisionStep {
    PowerOn,
    Erase,
    Image,
    Network,
    Keys,
    FirstBoot,
}

crate::text_column!(ProvisionStep, |v| v.as_str(), ProvisionStep::parse);

impl ProvisionStep {
    pub const ALL: [ProvisionStep; 6] = [
        ProvisionStep::PowerOn,
        ProvisionStep::Erase,
        ProvisionStep::Image,
        ProvisionStep::Network,
        ProvisionStep::Keys,
        ProvisionStep::FirstBoot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProvisionStep::PowerOn => "power_on",
            ProvisionStep::Erase => "erase",
            ProvisionStep::Image => "image",
            ProvisionStep::Network => "network",
            ProvisionStep::Keys => "keys",
            ProvisionStep::FirstBoot => "first_boot",
        }
    }

    pub fn parse(raw: &str) -> Option<ProvisionStep> {
        ProvisionStep::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Percent complete once this step is done (the image copy dominates).
    pub fn progress_after(self) -> i64 {
        match self {
            ProvisionStep::PowerOn => 10,
            ProvisionStep::Erase => 30,
            ProvisionStep::Image => 65,
            ProvisionStep::Network => 80,
            ProvisionStep::Keys => 90,
            ProvisionStep::FirstBoot => 100,
        }
    }

    pub fn next(self) -> Option<ProvisionStep> {
        let i = ProvisionStep::ALL.iter().position(|s| *s == self)?;
        ProvisionStep::ALL.get(i + 1).copied()
    }
}

/// `pending → provisioning → running`, or `failed`; power actions, snapshot
/// restores and maintenance pass through `rebooting`. A machine the
/// customer powered off stays `rebooting` with the step `off` (still
/// rented and billed) until they power it on: down by the customer's
/// action, and kept apart from `running` by everything that needs a
/// running machine (health checks, snapshots, the root password).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ServerState {
    Pending,
    Provisioning,
    Running,
    Rebooting,
    Failed,
}

crate::text_column!(ServerState, |v| v.as_str(), ServerState::parse);

impl ServerState {
    pub const ALL: [ServerState; 5] = [
        ServerState::Pending,
        ServerState::Provisioning,
        ServerState::Running,
        ServerState::Rebooting,
        ServerState::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ServerState::Pending => "pending",
            ServerState::Provisioning => "provisioning",
            ServerState::Running => "running",
            ServerState::Rebooting => "rebooting",
            ServerState::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<ServerState> {
        ServerState::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// Not yet handed over: the first install is under way.
    pub fn installing(self) -> bool {
        matches!(self, ServerState::Pending | ServerState::Provisioning)
    }
}

/// What a server is doing within its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Step {
    /// Nothing beyond the state itself (a plain reboot, a running server).
    None,
    /// The last provisioning step done.
    Provision(ProvisionStep),
    /// A snapshot is being written back (state `rebooting`).
    Restore,
    /// A maintenance window is under way (state `rebooting`).
    Maintenance,
    /// Shutting down for a power off (state `rebooting`).
    Stopping,
    /// Powered off by the customer (state `rebooting`).
    Off,
    /// Powering on from `off` (state `rebooting`).
    Starting,
}

crate::text_column!(Step, |v| v.as_str(), Step::parse);

impl Step {
    pub fn as_str(self) -> &'static str {
        match self {
            Step::None => "",
            Step::Provision(step) => step.as_str(),
            Step::Restore => "restore",
            Step::Maintenance => "maintenance",
            Step::Stopping => "stopping",
            Step::Off => "off",
            Step::Starting => "starting",
        }
    }

    pub fn parse(raw: &str) -> Option<Step> {
        match raw {
            "" => Some(Step::None),
            "restore" => Some(Step::Restore),
            "maintenance" => Some(Step::Maintenance),
            "stopping" => Some(Step::Stopping),
            "off" => Some(Step::Off),
            "starting" => Some(Step::Starting),
            other => ProvisionStep::parse(other).map(Step::Provision),
        }
    }
}

/// A snapshot's life: `creating → ready`, `ready → restoring → ready`,
/// `deleting` until the Fleet dropped it; `failed` if taking it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SnapshotState {
    Creating,
    Ready,
    Restoring,
    Deleting,
    Failed,
}

crate::text_column!(SnapshotState, |v| v.as_str(), SnapshotState::parse);

impl SnapshotState {
    pub const ALL: [SnapshotState; 5] = [
        SnapshotState::Creating,
        SnapshotState::Ready,
        SnapshotState::Restoring,
        SnapshotState::Deleting,
        SnapshotState::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotState::Creating => "creating",
            SnapshotState::Ready => "ready",
            SnapshotState::Restoring => "restoring",
            SnapshotState::Deleting => "deleting",
            SnapshotState::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<SnapshotState> {
        SnapshotState::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// A take or a restore under way: the server takes no other until it
    /// ends (the backend refuses it, the page offers no form).
    pub fn busy(self) -> bool {
        matches!(self, SnapshotState::Creating | SnapshotState::Restoring)
    }

    /// What a customer may delete: a snapshot at rest.
    pub fn deletable(self) -> bool {
        matches!(self, SnapshotState::Ready | SnapshotState::Failed)
    }
}

/// The state a customer sees: a snapshot restore and a maintenance window
/// run as a restart (the server is down and comes back) but are shown as
/// what they are. Serialized as its name (`"restoring"`), as the API and
/// the progress endpoint send it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShownState {
    #[default]
    Pending,
    Provisioning,
    Running,
    Rebooting,
    Restoring,
    Maintenance,
    Stopping,
    Off,
    Starting,
    Failed,
}

impl ShownState {
    pub const ALL: [ShownState; 10] = [
        ShownState::Pending,
        ShownState::Provisioning,
        ShownState::Running,
        ShownState::Rebooting,
        ShownState::Restoring,
        ShownState::Maintenance,
        ShownState::Stopping,
        ShownState::Off,
        ShownState::Starting,
        ShownState::Failed,
    ];

    pub fn of(state: ServerState, step: Step) -> ShownState {
        match (state, step) {
            (ServerState::Rebooting, Step::Restore) => ShownState::Restoring,
            (ServerState::Rebooting, Step::Maintenance) => ShownState::Maintenance,
            (ServerState::Rebooting, Step::Stopping) => ShownState::Stopping,
            (ServerState::Rebooting, Step::Starting) => ShownState::Starting,
            (ServerState::Rebooting, Step::Off) => ShownState::Off,
            (ServerState::Pending, _) => ShownState::Pending,
            (ServerState::Provisioning, _) => ShownState::Provisioning,
            (ServerState::Running, _) => ShownState::Running,
            (ServerState::Rebooting, _) => ShownState::Rebooting,
            (ServerState::Failed, _) => ShownState::Failed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ShownState::Pending => "pending",
            ShownState::Provisioning => "provisioning",
            ShownState::Running => "running",
            ShownState::Rebooting => "rebooting",
            ShownState::Restoring => "restoring",
            ShownState::Maintenance => "maintenance",
            ShownState::Stopping => "stopping",
            ShownState::Off => "off",
            ShownState::Starting => "starting",
            ShownState::Failed => "failed",
        }
    }

    /// Installing or restarting: the page follows the server by itself.
    pub fn in_progress(self) -> bool {
        !matches!(
            self,
            ShownState::Running | ShownState::Off | ShownState::Failed
        )
    }
}

impl std::fmt::Display for ShownState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::{ServerState, ShownState, Step};

    #[test]
    fn a_restore_and_a_maintenance_window_are_shown_as_what_they_are() {
        let shown = |state, step| ShownState::of(state, step).as_str();
        assert_eq!(shown(ServerState::Rebooting, Step::Restore), "restoring");
        assert_eq!(
            shown(ServerState::Rebooting, Step::Maintenance),
            "maintenance"
        );
        assert_eq!(shown(ServerState::Rebooting, Step::None), "rebooting");
        assert_eq!(shown(ServerState::Running, Step::Restore), "running");
        for state in ServerState::ALL {
            assert_eq!(ShownState::of(state, Step::None).as_str(), state.as_str());
        }
        assert!(ShownState::Restoring.in_progress() && !ShownState::Failed.in_progress());
        assert_eq!(shown(ServerState::Rebooting, Step::Stopping), "stopping");
        assert_eq!(shown(ServerState::Rebooting, Step::Starting), "starting");
        assert!(!ShownState::Off.in_progress() && ShownState::Starting.in_progress());
        assert_eq!(shown(ServerState::Rebooting, Step::Off), "off");
        for step in [Step::Stopping, Step::Off, Step::Starting, Step::Restore] {
            assert_eq!(Step::parse(step.as_str()), Some(step));
        }
    }
}

crate::named_enum! {
    /// A maintenance window's life: `proposed` (by either side), then
    /// `accepted → started → done`, or `declined` (the customer proposed
    /// another time) or `withdrawn` (a newer proposal replaced it).
    pub enum WindowState {
        Proposed = "proposed",
        Accepted = "accepted",
        Declined = "declined",
        Started = "started",
        Done = "done",
        Withdrawn = "withdrawn",
    }
}

crate::named_enum! {
    /// Who proposed a maintenance window: the other side answers it.
    pub enum ProposedBy {
        Staff = "staff",
        Customer = "customer",
    }
}

crate::named_enum! {
    /// The two out-of-band consoles a host's BMC offers.
    pub enum ConsoleKind {
        /// Serial over LAN: a text console (bytes both ways).
        Serial = "serial",
        /// The graphical screen, as VNC (RFB protocol).
        Graphical = "vnc",
    }
}

crate::named_enum! {
    /// Why a server's console cannot open now, or why the portal closed an
    /// open one: the refusal the console page shows and the WebSocket close
    /// reason its script translates.
    pub enum ConsoleClosed {
        SignedOut = "signed-out",
        /// Removed from the organization, or made a billing member.
        AccessWithdrawn = "access-withdrawn",
        ServerGone = "server-gone",
        /// The server now runs on another host (rebuilt after a failure).
        Moved = "moved",
        /// The host's BMC did not answer.
        Unreachable = "unreachable",
        Cancelled = "cancelled",
        /// Suspended for an unpaid invoice.
        Suspended = "suspended",
        Pending = "pending",
        Provisioning = "provisioning",
        Restoring = "restoring",
        Maintenance = "maintenance",
        /// Powered off by the customer: power it on first.
        PoweredOff = "powered-off",
        Failed = "failed",
        /// Running on paper but without a host (a failure not yet rebuilt).
        NoHost = "no-host",
    }
}

impl ConsoleClosed {
    /// What keeps the console of a server shown as `state` closed; `None`
    /// where it may open (running, or restarting on its host).
    pub fn by_state(state: ShownState) -> Option<ConsoleClosed> {
        match state {
            // Watching a machine shut down or boot is what a console is for.
            ShownState::Running
            | ShownState::Rebooting
            | ShownState::Stopping
            | ShownState::Starting => None,
            ShownState::Off => Some(ConsoleClosed::PoweredOff),
            ShownState::Pending => Some(ConsoleClosed::Pending),
            ShownState::Provisioning => Some(ConsoleClosed::Provisioning),
            ShownState::Restoring => Some(ConsoleClosed::Restoring),
            ShownState::Maintenance => Some(ConsoleClosed::Maintenance),
            ShownState::Failed => Some(ConsoleClosed::Failed),
        }
    }
}

crate::named_enum! {
    /// What happened to a server, as its history records it. The page lists
    /// them; housekeeping mails some to the team (`servers::notices`).
    pub enum EventKind {
        Ordered = "ordered",
        ProvisioningStarted = "provisioning.started",
        ProvisioningMoved = "provisioning.moved",
        HostFault = "host.fault",
        Running = "running",
        Failed = "failed",
        Renamed = "renamed",
        RebootRequested = "reboot.requested",
        RebootDone = "reboot.done",
        RebootFailed = "reboot.failed",
        PowerCycleRequested = "power_cycle.requested",
        PowerCycleDone = "power_cycle.done",
        PowerCycleFailed = "power_cycle.failed",
        PowerOffRequested = "power_off.requested",
        PowerOffDone = "power_off.done",
        PowerOffFailed = "power_off.failed",
        PowerOnRequested = "power_on.requested",
        PowerOnDone = "power_on.done",
        PowerOnFailed = "power_on.failed",
        ReinstallRequested = "reinstall.requested",
        Reinstalled = "reinstalled",
        RootPasswordShown = "root_password.shown",
        RootPasswordResetRequested = "root_password.reset_requested",
        RootPasswordReset = "root_password.reset",
        RootPasswordResetFailed = "root_password.reset_failed",
        HostFailed = "host.failed",
        RebuildWaiting = "rebuild.waiting",
        RebuildStarted = "rebuild.started",
        Rebuilt = "rebuilt",
        BillingPastDue = "billing.past_due",
        BillingSuspended = "billing.suspended",
        NetworkCut = "network.cut",
        NetworkRestored = "network.restored",
        BillingRestored = "billing.restored",
        BillingSubscriptionEnded = "billing.subscription_ended",
        CancelScheduled = "cancel.scheduled",
        CancelRevoked = "cancel.revoked",
        Cancelled = "cancelled",
        Wiped = "wiped",
        SnapshotRequested = "snapshot.requested",
        SnapshotReady = "snapshot.ready",
        SnapshotFailed = "snapshot.failed",
        SnapshotRestoreStarted = "snapshot.restore.started",
        SnapshotRestoreDone = "snapshot.restore.done",
        SnapshotRestoreFailed = "snapshot.restore.failed",
        SnapshotDeleted = "snapshot.deleted",
        HostDegraded = "host.degraded",
        MaintenanceProposed = "maintenance.proposed",
        MaintenanceCounter = "maintenance.counter",
        MaintenanceAccepted = "maintenance.accepted",
        MaintenanceStarted = "maintenance.started",
        MaintenanceDone = "maintenance.done",
    }
}

crate::named_enum! {
    /// Where a server's payments stand: an unpaid invoice past its due date
    /// makes it `past_due`; after the grace period it is `suspended` (public
    /// network cut, console closed) until the invoice is paid.
    pub enum BillingState {
        Active = "active",
        PastDue = "past_due",
        Suspended = "suspended",
    }
}
