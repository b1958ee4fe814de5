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
    Failed,
}

impl ShownState {
    pub fn of(state: ServerState, step: Step) -> ShownState {
        match (state, step) {
            (ServerState::Rebooting, Step::Restore) => ShownState::Restoring,
            (ServerState::Rebooting, Step::Maintenance) => ShownState::Maintenance,
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
            ShownState::Failed => "failed",
        }
    }

    /// Installing or restarting: the page follows the server by itself.
    pub fn in_progress(self) -> bool {
        !matches!(self, ShownState::Running | ShownState::Failed)
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
    }
}
