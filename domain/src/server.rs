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
/// restores and maintenance pass through `rebooting`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ServerState {
    Pending,
    Provisioning,
    Running,
    Rebooting,
    Failed,
}

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
}

impl Step {
    pub fn as_str(self) -> &'static str {
        match self {
            Step::None => "",
            Step::Provision(step) => step.as_str(),
            Step::Restore => "restore",
            Step::Maintenance => "maintenance",
        }
    }

    pub fn parse(raw: &str) -> Option<Step> {
        match raw {
            "" => Some(Step::None),
            "restore" => Some(Step::Restore),
            "maintenance" => Some(Step::Maintenance),
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
}
