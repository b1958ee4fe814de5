//! A server's state and the step within it, decoded where rows are read.
//! The database keeps them as text (`servers.state` with a CHECK,
//! `servers.step`); code compares these enums, never strings.

use crate::fleet::ProvisionStep;

/// `pending → provisioning → running`, or `failed`; power actions, snapshot
/// restores and maintenance pass through `rebooting`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerState {
    Pending,
    Provisioning,
    Running,
    Rebooting,
    Failed,
}

impl ServerState {
    const ALL: [ServerState; 5] = [
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotState {
    Creating,
    Ready,
    Restoring,
    Deleting,
    Failed,
}

impl SnapshotState {
    const ALL: [SnapshotState; 5] = [
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
