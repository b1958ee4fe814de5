//! Power through `ComputerSystem.Reset`, with the state read back before
//! the action counts as done: a BMC accepts a reset at once and carries it
//! out seconds later, and a job that finished on the acceptance alone
//! would tell the customer "running" about a machine that is still off.

use std::time::Duration;

use serde_json::{json, Value};

use super::client::{action_target, Bmc, BmcError};
use super::RedfishFleet;

/// What an operator (or a job) asks a host's power to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostPower {
    On,
    /// Hard off.
    Off,
    /// ACPI shutdown: the operating system stops cleanly; forced off if it
    /// has not within the power wait.
    Shutdown,
    /// Warm reset (ACPI restart where the BMC offers it).
    Reset,
    /// Off, then on again.
    Cycle,
}

impl HostPower {
    pub fn parse(raw: &str) -> Option<HostPower> {
        Some(match raw {
            "on" => HostPower::On,
            "off" => HostPower::Off,
            "shutdown" => HostPower::Shutdown,
            "reset" => HostPower::Reset,
            "cycle" => HostPower::Cycle,
            _ => return None,
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PowerError {
    #[error(transparent)]
    Bmc(#[from] BmcError),
    #[error("the host did not reach power state {want} within {secs} s (it reports {seen})")]
    NotReached {
        want: &'static str,
        secs: u64,
        seen: String,
    },
}

impl RedfishFleet {
    /// Carries out `action` on the system at `system` and waits until the
    /// BMC reports the power state it leads to.
    pub(super) async fn apply_power(
        &self,
        bmc: &Bmc<'_>,
        system: &str,
        action: HostPower,
    ) -> Result<(), PowerError> {
        let resource = bmc.get(system).await?;
        let state = resource["PowerState"].as_str().unwrap_or("").to_owned();
        match action {
            HostPower::On if state == "On" => Ok(()),
            HostPower::Off | HostPower::Shutdown if state == "Off" => Ok(()),
            HostPower::On => self.reset_to(bmc, system, &resource, &["On"], "On").await,
            HostPower::Off => {
                self.reset_to(bmc, system, &resource, &["ForceOff"], "Off")
                    .await
            }
            HostPower::Shutdown => {
                let graceful = self
                    .reset_to(
                        bmc,
                        system,
                        &resource,
                        &["GracefulShutdown", "ForceOff"],
                        "Off",
                    )
                    .await;
                match graceful {
                    // An operating system may ignore ACPI (or hang on its
                    // way down): the machine is forced off, as asked.
                    Err(PowerError::NotReached { .. }) => {
                        self.reset_to(bmc, system, &resource, &["ForceOff"], "Off")
                            .await
                    }
                    other => other,
                }
            }
            HostPower::Reset if state != "On" => {
                self.reset_to(bmc, system, &resource, &["On"], "On").await
            }
            HostPower::Reset => {
                self.reset_to(
                    bmc,
                    system,
                    &resource,
                    &["GracefulRestart", "ForceRestart"],
                    "On",
                )
                .await
            }
            HostPower::Cycle => {
                if state != "Off" {
                    self.reset_to(bmc, system, &resource, &["ForceOff"], "Off")
                        .await?;
                }
                self.reset_to(bmc, system, &resource, &["On"], "On").await
            }
        }
    }

    /// Posts the first reset type of `preferred` the BMC allows (all of
    /// them when it does not say), then waits for `want`.
    async fn reset_to(
        &self,
        bmc: &Bmc<'_>,
        system: &str,
        resource: &Value,
        preferred: &[&str],
        want: &'static str,
    ) -> Result<(), PowerError> {
        let action = &resource["Actions"]["#ComputerSystem.Reset"];
        let allowed: Vec<&str> = action["ResetType@Redfish.AllowableValues"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let reset_type = preferred
            .iter()
            .find(|t| allowed.is_empty() || allowed.contains(t))
            .or(preferred.last())
            .copied()
            .unwrap_or("On");
        let target = action_target(resource, "#ComputerSystem.Reset")
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{system}/Actions/ComputerSystem.Reset"));
        bmc.post(&target, &json!({ "ResetType": reset_type }))
            .await?;
        self.wait_for_power(bmc, system, want).await
    }

    async fn wait_for_power(
        &self,
        bmc: &Bmc<'_>,
        system: &str,
        want: &'static str,
    ) -> Result<(), PowerError> {
        let started = tokio::time::Instant::now();
        loop {
            let seen = bmc.get(system).await?["PowerState"]
                .as_str()
                .unwrap_or("unknown")
                .to_owned();
            if seen == want {
                return Ok(());
            }
            if started.elapsed() >= self.settings.power_wait {
                return Err(PowerError::NotReached {
                    want,
                    secs: self.settings.power_wait.as_secs(),
                    seen,
                });
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}
