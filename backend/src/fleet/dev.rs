//! A simulated control plane. Each provisioning step takes `step_delay`
//! (seconds in development, milliseconds in tests); hosts named in
//! `faulty_hosts` fail while erasing their disks, as a dying NVMe does,
//! so the retry-on-another-host path can be watched and tested. What each
//! install writes is kept as the host's simulated disks ([`super::disks`]),
//! so its consoles boot the image and hostname the customer chose.

use async_trait::async_trait;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::time::Duration;

use super::bmc::DevBmc;
use super::disks::{Disks, Installed};
use super::{
    Addresses, ConsoleKind, Fleet, FleetError, PowerAction, Progress, ProvisionSpec, ProvisionStep,
    Sample,
};

#[derive(Clone)]
pub struct DevFleet {
    pub step_delay: Duration,
    pub faulty_hosts: HashSet<String>,
    /// Hosts whose corrected ECC errors climb (six an hour on the first
    /// card), as a card does before it fails.
    pub degrading_hosts: HashSet<String>,
    /// The hosts' simulated BMCs, serving consoles on loopback ports.
    pub bmc: DevBmc,
}

impl DevFleet {
    pub fn new(step_delay: Duration, faulty_hosts: impl IntoIterator<Item = String>) -> DevFleet {
        DevFleet {
            step_delay,
            faulty_hosts: faulty_hosts.into_iter().collect(),
            degrading_hosts: HashSet::new(),
            bmc: DevBmc::new(),
        }
    }

    /// Keeps the simulated disks in the database, where every replica's
    /// consoles see what any replica's worker installed.
    pub fn keeping_disks_in(mut self, db: crate::Db) -> DevFleet {
        self.bmc = DevBmc::with_disks(Disks::Database(db));
        self
    }

    fn disks(&self) -> &Disks {
        self.bmc.disks()
    }

    pub fn degrading(mut self, hosts: impl IntoIterator<Item = String>) -> DevFleet {
        self.degrading_hosts = hosts.into_iter().collect();
        self
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
        spec: &ProvisionSpec,
    ) -> Result<Progress<Option<Addresses>>, FleetError> {
        // Simulates the time the control plane takes; nothing waits on it
        // but this job.
        tokio::time::sleep(self.step_delay).await;
        if step == ProvisionStep::Erase && self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!(
                "{host}: NVMe secure erase reported media errors"
            )));
        }
        match step {
            ProvisionStep::Erase => self.disks().erase(host).await.map_err(unavailable)?,
            // The image step writes the system, its hostname and the root
            // password (the keys step only adds SSH keys, which the
            // simulated console has no use for).
            ProvisionStep::Image => {
                let installed =
                    Installed::new(spec.image, &spec.hostname, spec.root_password.as_deref());
                self.disks()
                    .install(host, installed, unix_now())
                    .await
                    .map_err(unavailable)?;
            }
            _ => {}
        }
        Ok(Progress::Done(
            (step == ProvisionStep::Network).then(|| simulated_addresses(host)),
        ))
    }

    /// A simulated install has an ed25519 host key of its own: its public
    /// half derived from the host and the install, so every install (and
    /// every rebuild elsewhere) shows a new fingerprint, as a real one does.
    async fn host_keys(&self, host: &str, install_key: &str) -> Result<Vec<String>, FleetError> {
        use base64::Engine;
        use sha2::Digest;
        let public = sha2::Sha256::digest(format!("dev host key {host} {install_key}"));
        let mut blob = Vec::with_capacity(51);
        blob.extend_from_slice(&11u32.to_be_bytes());
        blob.extend_from_slice(b"ssh-ed25519");
        blob.extend_from_slice(&32u32.to_be_bytes());
        blob.extend_from_slice(&public);
        let encoded = base64::engine::general_purpose::STANDARD.encode(blob);
        Ok(vec![format!("ssh-ed25519 {encoded} root@{host}")])
    }

    async fn power(&self, host: &str, action: PowerAction) -> Result<(), FleetError> {
        // A clean shutdown takes the operating system a while longer than
        // a reset does.
        let steps = if action == PowerAction::PowerOff {
            2
        } else {
            1
        };
        tokio::time::sleep(self.step_delay * steps).await;
        if self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!("{host}: BMC did not answer")));
        }
        Ok(())
    }

    async fn set_network(&self, _host: &str, _enabled: bool) -> Result<(), FleetError> {
        tokio::time::sleep(self.step_delay).await;
        Ok(())
    }

    async fn wipe(&self, host: &str) -> Result<Progress<()>, FleetError> {
        // A secure erase of NVMe is quick; the simulated one takes two steps.
        tokio::time::sleep(self.step_delay * 2).await;
        self.disks().erase(host).await.map_err(unavailable)?;
        Ok(Progress::Done(()))
    }

    async fn set_root_password(&self, host: &str, password: &str) -> Result<(), FleetError> {
        // Through the host agent: about as long as two install steps.
        tokio::time::sleep(self.step_delay * 2).await;
        if self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!(
                "{host}: host agent did not answer"
            )));
        }
        let changed = self
            .disks()
            .set_root_password(host, password)
            .await
            .map_err(unavailable)?;
        if !changed {
            // Installed before the simulation kept disks: nothing to
            // change here, and a real host would have taken it.
            tracing::debug!(host, "no simulated disk to set the root password on");
        }
        Ok(())
    }

    async fn take_snapshot(&self, host: &str, snapshot_id: &str) -> Result<u64, FleetError> {
        tokio::time::sleep(self.step_delay * 2).await;
        if self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!(
                "{host}: disk read error while copying"
            )));
        }
        // What an OS, drivers, a framework and some checkpoints take:
        // 40 to 167 GB, stable per snapshot.
        let digest = Sha256::digest(snapshot_id.as_bytes());
        Ok(40_000_000_000 + u64::from(digest[0]) * 500_000_000)
    }

    async fn restore_snapshot_part(
        &self,
        host: &str,
        _snapshot_id: &str,
        _part: u32,
    ) -> Result<(), FleetError> {
        // A tenth of the disks per part: as long as an install step, so a
        // restore is seen in progress (4 s with the end-to-end tests' 400 ms).
        tokio::time::sleep(self.step_delay).await;
        if self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!("{host}: write error")));
        }
        Ok(())
    }

    async fn delete_snapshot(&self, _snapshot_id: &str) -> Result<(), FleetError> {
        tokio::time::sleep(self.step_delay / 4).await;
        Ok(())
    }

    async fn console_endpoint(
        &self,
        host: &str,
        kind: ConsoleKind,
    ) -> Result<super::ConsoleEndpoint, FleetError> {
        if self.faulty_hosts.contains(host) {
            return Err(FleetError::HostFault(format!("{host}: BMC did not answer")));
        }
        // The simulated BMC stands for one on the management network,
        // which serves its consoles without a bridge key.
        self.bmc
            .endpoint(host, kind)
            .await
            .map(|addr| super::ConsoleEndpoint { addr, key: None })
            .map_err(|e| FleetError::Unavailable(format!("{host}: BMC console: {e}")))
    }

    async fn telemetry(
        &self,
        host: &str,
        cards: u32,
        from: i64,
        to: i64,
        step: i64,
    ) -> Result<Vec<Sample>, FleetError> {
        super::telemetry::check_range(from, to, step)?;
        let degrading = self.degrading_hosts.contains(host);
        Ok((0..=(to - from) / step)
            .map(|i| {
                let t = from + i * step;
                let mut sample = simulated_sample(host, cards, t);
                if degrading {
                    if let Some(first) = sample.ecc_corrected.first_mut() {
                        *first += (t - DEGRADING_SINCE).max(0) / 600;
                    }
                }
                sample
            })
            .collect())
    }
}

/// The simulated disks are in our own database: failing to reach it is the
/// control plane being unavailable, to be retried.
fn unavailable(error: anyhow::Error) -> FleetError {
    FleetError::Unavailable(format!("simulated disks: {error:#}"))
}

/// The time an install is recorded at (for people reading the table).
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// When the simulated degrading cards started to climb (2026-01-01).
const DEGRADING_SINCE: i64 = 1_767_225_600;

/// A small deterministic pseudo-random number for (host, card, t).
fn noise(host: &str, card: u32, t: i64) -> i64 {
    let digest = Sha256::digest(format!("{host}/{card}/{t}").as_bytes());
    i64::from(digest[0] % 7) - 3
}

/// How busy a card is at `t`, 0..=100: a daily cycle plus jobs that start
/// at host-specific hours, as training and batch inference do.
fn load(host: &str, card: u32, t: i64) -> i64 {
    let hour = (t.rem_euclid(86_400)) / 3600;
    let offset = i64::from(Sha256::digest(format!("{host}/{card}").as_bytes())[0] % 24);
    let busy = (hour + offset).rem_euclid(24) < 14;
    if busy {
        85
    } else {
        15
    }
}

/// The SM clock a card of `host` boosts to, and where it settles when hot
/// (above 80 °C), in MHz, as the data sheets give them: the RTX 4000 Ada
/// boosts to 2,175, the L40S to 2,520. The inventory names every host
/// `{site}-{plan}-{nnn}`, so the simulated card follows the plan the host
/// was racked as.
fn sm_clocks_mhz(host: &str) -> (i64, i64) {
    if host.contains("-g-ada-") {
        (2_175, 1_905)
    } else {
        (2_520, 2_100)
    }
}

/// One reading as a healthy card would give it: hotter under load, the
/// clock stepping down above 80 °C, and now and then a corrected ECC error.
pub fn simulated_sample(host: &str, cards: u32, t: i64) -> Sample {
    let mut sample = Sample {
        at: t,
        gpu_temp_c: Vec::new(),
        sm_clock_mhz: Vec::new(),
        ecc_corrected: Vec::new(),
        traffic_month_bytes: 0,
    };
    for card in 0..cards.max(1) {
        let temp = 34 + load(host, card, t) * 52 / 100 + noise(host, card, t);
        let (boost, hot) = sm_clocks_mhz(host);
        let clock = if temp > 80 { hot } else { boost } - noise(host, card, t + 1).abs() * 15;
        sample.gpu_temp_c.push(temp);
        sample.sm_clock_mhz.push(clock);
        // About one corrected error a month since the card went into
        // service (spring 2026, a card-specific day).
        let digest = Sha256::digest(format!("{host}/{card}/ecc").as_bytes());
        let installed = 1_775_000_000 + i64::from(digest[1]) * 20_000;
        sample
            .ecc_corrected
            .push((t - installed).max(0).div_euclid(2_592_000));
    }
    // Sending ~0.45 Gbit/s while busy, a tenth of it otherwise, since the 1st:
    // ~90 TB in a 30-day month, well inside fair use.
    let days = t.div_euclid(86_400);
    let (y, m, _) = domain::time::civil_from_days(days);
    let month_start = domain::time::days_from_civil(y, m, 1) * 86_400;
    let hours = (t - month_start) / 3600;
    let busy_bytes_per_hour: i64 = 200_000_000_000;
    let idle_bytes_per_hour: i64 = 20_000_000_000;
    sample.traffic_month_bytes = hours * (busy_bytes_per_hour * 14 + idle_bytes_per_hour * 10) / 24;
    sample
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulated_readings_are_plausible_and_repeatable() {
        // 2026-11-15, mid-month.
        let t = 1_794_704_000;
        let a = simulated_sample("fra-g-l40s-x2-001", 2, t);
        assert_eq!(
            a,
            simulated_sample("fra-g-l40s-x2-001", 2, t),
            "deterministic"
        );
        assert_eq!(a.gpu_temp_c.len(), 2);
        for i in 0..2 {
            assert!((30..=85).contains(&a.gpu_temp_c[i]), "{a:?}");
            assert!((2_000..=2_520).contains(&a.sm_clock_mhz[i]), "{a:?}");
        }
        // An RTX 4000 Ada never reads above its 2,175 MHz boost.
        for hour in 0..24 {
            let ada = simulated_sample("ams-g-ada-003", 1, t + hour * 3600);
            assert!((1_800..=2_175).contains(&ada.sm_clock_mhz[0]), "{ada:?}");
        }
        // Traffic grows through the month and stays under fair use.
        let later = simulated_sample("fra-g-l40s-x2-001", 2, t + 86_400);
        assert!(later.traffic_month_bytes > a.traffic_month_bytes);
        assert!(later.traffic_month_bytes < crate::fleet::FAIR_USE_BYTES);
        // A new month starts from zero.
        let december = simulated_sample("fra-g-l40s-x2-001", 2, 1_796_170_000);
        assert!(december.traffic_month_bytes < a.traffic_month_bytes);
        // ECC counts never go down.
        assert!(later.ecc_corrected[0] >= a.ecc_corrected[0]);
    }
}
