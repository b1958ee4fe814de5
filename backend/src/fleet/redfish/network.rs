//! A suspended server's public network is cut at the site's switch, not
//! through the BMC: Redfish manages the machine, not the switch port it
//! hangs on. Operators have their own switch automation, so the Fleet
//! runs their hook: `FLEET_NETWORK_HOOK disable|enable HOST`, exit status
//! 0 for done. Without a hook, ports are as racked (on): enabling needs
//! nothing, and a suspension waits, visibly, for an operator.

use std::time::Duration;

use super::RedfishFleet;
use crate::fleet::FleetError;

/// How long the operator's hook may take.
const HOOK_LIMIT: Duration = Duration::from_secs(60);

impl RedfishFleet {
    pub(super) async fn switch_port(&self, host: &str, enabled: bool) -> Result<(), FleetError> {
        let Some(hook) = &self.settings.network_hook else {
            return if enabled {
                Ok(())
            } else {
                Err(FleetError::Unavailable(format!(
                    "{host}: no FLEET_NETWORK_HOOK is set, so the public network cannot be cut; \
                     cut the switch port by hand"
                )))
            };
        };
        let verb = if enabled { "enable" } else { "disable" };
        // Like the console programs: the hook sees its arguments, not our
        // database URL or keys.
        let run = super::clean_command(hook)
            .arg(verb)
            .arg(host)
            .kill_on_drop(true)
            .output();
        let output = match tokio::time::timeout(HOOK_LIMIT, run).await {
            Ok(Ok(output)) => output,
            Ok(Err(error)) => {
                return Err(FleetError::Unavailable(format!(
                    "{host}: the network hook {} could not run: {error}",
                    hook.display()
                )))
            }
            Err(_) => {
                return Err(FleetError::Unavailable(format!(
                    "{host}: the network hook did not finish within {} s",
                    HOOK_LIMIT.as_secs()
                )))
            }
        };
        if output.status.success() {
            return Ok(());
        }
        let said = String::from_utf8_lossy(&output.stderr);
        let said = said.lines().next().unwrap_or("").trim();
        Err(FleetError::Unavailable(format!(
            "{host}: the network hook answered {} to `{verb}`: {said}",
            output.status
        )))
    }
}
