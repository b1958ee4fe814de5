//! A simulated control plane. Each provisioning step takes `step_delay`
//! (seconds in development, milliseconds in tests); hosts named in
//! `faulty_hosts` fail while erasing their disks, as a dying NVMe does,
//! so the retry-on-another-host path can be watched and tested.

use async_trait::async_trait;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::time::Duration;

use super::{Addresses, Fleet, FleetError, PowerAction, ProvisionSpec, ProvisionStep};

#[derive(Clone, Debug)]
pub struct DevFleet {
    pub step_delay: Duration,
    pub faulty_hosts: HashSet<String>,
}

impl DevFleet {
    pub fn new(step_delay: Duration, faulty_hosts: impl IntoIterator<Item = String>) -> DevFleet {
        DevFleet {
            step_delay,
            faulty_hosts: faulty_hosts.into_iter().collect(),
        }
    }
}

/// Stable addresses per host from reserved ranges that are never routed
/// (198.18.0.0/15 and 2001:db8::/32), so demo data cannot collide with
/// anyone's real address.
pub fn simulated_addresses(host: &str) -> Addresses {
    let digest = Sha256::digest(host.as_bytes());
    Addresses {
        ipv4: format!(
            "198.{}.{}.{}",
            18 + (digest[0] & 1),
            digest[1],
            1 + digest[2] % 254
        ),
        ipv6: format!(
            "2001:db8:{:x}{:02x}:{:x}{:02x}::2",
            digest[3], digest[4], digest[5], digest[6]
        ),
    }
}

#[async_trait]
impl Fleet for DevFleet {
    async fn provision_step(
        &self,
        host: &str,
        step: ProvisionStep,
        _spec: &ProvisionSpec,
    ) -> Result<Option<Addresses>, FleetError> {
        // Simulates the time the control plane takes; nothing waits on it
        // but this job.
        tokio::time::sleep(self.step_delay).await;
        if step == ProvisionStep::Erase && self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!(
                "{host}: NVMe secure erase reported media errors"
            )));
        }
        Ok((step == ProvisionStep::Network).then(|| simulated_addresses(host)))
    }

    async fn power(&self, host: &str, _action: PowerAction) -> Result<(), FleetError> {
        tokio::time::sleep(self.step_delay).await;
        if self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!("{host}: BMC did not answer")));
        }
        Ok(())
    }

    async fn set_network(&self, _host: &str, _enabled: bool) -> Result<(), FleetError> {
        tokio::time::sleep(self.step_delay).await;
        Ok(())
    }
}
