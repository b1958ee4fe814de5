//! Installing and wiping through the BMC: the image is attached as virtual
//! media with a per-boot URL, the host boots from it once, and the image
//! reports its phases back (see [`super::boots`]). Each provisioning step
//! waits for its phase; a boot that misses its deadline or reports a
//! failure is a host fault, so the server moves to another host.
//!
//! Every boot starts from a host forced off and seen `Off` (`ForceOff`; a
//! graceful request is one the running OS may ignore), and is the power-on
//! that follows with our media inserted. A wipe forces the host off first,
//! then uses the drives' `SecureErase` where the BMC offers it (seconds
//! on NVMe: the drive drops its key), and otherwise boots the store's
//! `wipe.iso` the same way. The host returns to stock only after success;
//! one that cannot be seen off is a host fault for staff.

use serde_json::{json, Value};

use super::boots::{self, Boot, Phase, Purpose, Seed};
use super::client::{action_target, link, members, Bmc, BmcError};
use super::power::HostPower;
use super::{RedfishFleet, Target};
use crate::fleet::{Addresses, FleetError, Progress, ProvisionSpec, ProvisionStep};

impl RedfishFleet {
    pub(super) async fn step(
        &self,
        host: &str,
        step: ProvisionStep,
        spec: &ProvisionSpec,
    ) -> Result<Progress<Option<Addresses>>, FleetError> {
        let target = self.target(host).await?;
        let bmc = self.clients.connect(&target.bmc.access);
        let installing = boots::of_install(&self.db, &target.bmc.host_id, &spec.install_key)
            .await
            .map_err(|e| FleetError::Unavailable(format!("{e:#}")))?;
        let done = |addresses| Ok(Progress::Done(addresses));
        match step {
            // Power and media are set when the installer boots; this reads
            // the BMC, so a host we cannot reach fails before anything else.
            ProvisionStep::PowerOn => {
                let system = self.system(&bmc, &target).await?;
                self.bmc_result(&target, bmc.get(&system).await)
                    .await
                    .and(done(None))
            }
            ProvisionStep::Erase => {
                let system = self.system(&bmc, &target).await?;
                // Nothing of anyone's may run while its drives are erased.
                self.power_target(&bmc, &target, &system, HostPower::Off)
                    .await?;
                let result = self.secure_erase(&bmc, &system).await;
                self.bmc_result(&target, result).await.and(done(None))
            }
            ProvisionStep::Image => match installing {
                Some(boot) => self
                    .follow(&target, &boot, Phase::Imaged)
                    .await
                    .map(|p| match p {
                        Progress::Done(_) => Progress::Done(None),
                        Progress::Running(what) => Progress::Running(what),
                    }),
                None => {
                    let seed = Seed {
                        purpose: Purpose::Install.as_str().to_owned(),
                        image: spec.image.as_str().to_owned(),
                        hostname: spec.hostname.clone(),
                        ssh_keys: spec.ssh_keys.clone(),
                        root_password: spec.root_password.clone(),
                        report_key: String::new(),
                    };
                    let key = Some(spec.install_key.as_str());
                    self.boot(&bmc, &target, key, seed, self.settings.install_limit)
                        .await?;
                    Ok(Progress::Running("the installer is booting".into()))
                }
            },
            ProvisionStep::Network | ProvisionStep::Keys | ProvisionStep::FirstBoot => {
                let Some(boot) = installing else {
                    return Err(FleetError::HostFault(format!("{host}: no installer ran")));
                };
                let want = match step {
                    ProvisionStep::Network => Phase::Network,
                    ProvisionStep::Keys => Phase::Keys,
                    _ => Phase::Done,
                };
                let Progress::Done(boot) = self.follow(&target, &boot, want).await? else {
                    return Ok(Progress::Running(format!(
                        "the installer is at {}",
                        boot.phase.as_str()
                    )));
                };
                match step {
                    ProvisionStep::Network => match (boot.ipv4, boot.ipv6) {
                        (Some(ipv4), Some(ipv6)) => done(Some(Addresses { ipv4, ipv6 })),
                        _ => Err(FleetError::HostFault(format!(
                            "{host}: the installer reported no addresses"
                        ))),
                    },
                    ProvisionStep::FirstBoot => {
                        self.eject(&bmc, &target).await?;
                        done(None)
                    }
                    _ => done(None),
                }
            }
        }
    }

    /// Where `boot` is relative to `want`: reached, still on its way, or
    /// failed (reported, or silent past its deadline).
    async fn follow(
        &self,
        target: &Target,
        boot: &Boot,
        want: Phase,
    ) -> Result<Progress<Boot>, FleetError> {
        let host = &target.bmc.host_name;
        if boot.phase == Phase::Failed {
            let why = boot.message.as_deref().unwrap_or("no reason given");
            return Err(self
                .host_fault(target, format!("the {} image failed: {why}", boot.purpose))
                .await);
        }
        if boot.phase >= want {
            return Ok(Progress::Done(boot.clone()));
        }
        let now = self.clock.now();
        if now >= boot.deadline {
            let why = format!(
                "the {} image did not report {} in time (it was at {})",
                boot.purpose,
                want.as_str(),
                boot.phase.as_str()
            );
            boots::give_up(&self.db, &boot.id, &why, now)
                .await
                .map_err(|e| FleetError::Unavailable(format!("{host}: {e:#}")))?;
            return Err(self.host_fault(target, why).await);
        }
        Ok(Progress::Running(format!(
            "the {} image is at {}",
            boot.purpose,
            boot.phase.as_str()
        )))
    }

    /// Boots the store's image for `seed` on the host: a new boot record
    /// and its secrets, the host forced off, the media attached, boot once
    /// from it, power on; seeing it `On` proves the boot (the seed is
    /// handed out only then).
    async fn boot(
        &self,
        bmc: &Bmc<'_>,
        target: &Target,
        install_key: Option<&str>,
        seed: Seed,
        limit: i64,
    ) -> Result<(), FleetError> {
        let host = &target.bmc.host_name;
        // The store is ours to get right, not the host's: a missing image
        // waits for an operator instead of burning through hosts.
        if let Err(error) = self.settings.images.media(&seed.image).await {
            let why = format!("boot media: {error}");
            self.note(target, &why).await;
            return Err(FleetError::Unavailable(format!("{host}: {why}")));
        }
        let now = self.clock.now();
        let started = boots::start(
            &self.db,
            &self.sealer,
            &target.bmc.host_id,
            install_key,
            seed,
            now,
            now + limit,
        )
        .await
        .map_err(|e| FleetError::Unavailable(format!("{host}: {e:#}")))?;
        let url = format!(
            "{}/fleet/media/{}/boot.iso",
            self.settings.callback_base.trim_end_matches('/'),
            started.media_token
        );
        let system = self.system(bmc, target).await?;
        // Off first, forced and seen: a graceful restart is a request the
        // running OS (the previous tenant's) may ignore, and a host already
        // On would count as rebooted without ever booting our media.
        self.power_target(bmc, target, &system, HostPower::Off)
            .await?;
        let slot = self.media_slot(bmc, target, &system).await?;
        let inserted = async {
            // Some BMCs refuse to insert over an image.
            let resource = eject_from(bmc, &slot).await?;
            let insert = action_target(&resource, "#VirtualMedia.InsertMedia")
                .map(str::to_owned)
                .unwrap_or_else(|| format!("{slot}/Actions/VirtualMedia.InsertMedia"));
            bmc.post(
                &insert,
                &json!({ "Image": url, "Inserted": true, "WriteProtected": true }),
            )
            .await?;
            bmc.patch(
                &system,
                &json!({ "Boot": { "BootSourceOverrideTarget": "Cd", "BootSourceOverrideEnabled": "Once" } }),
            )
            .await?;
            Ok::<(), BmcError>(())
        }
        .await;
        self.bmc_result(target, inserted).await?;
        // From Off to On: this power-on is the boot, from the media, and
        // seeing it through is what proves it.
        self.power_target(bmc, target, &system, HostPower::On)
            .await?;
        boots::prove(&self.db, &started.id, self.clock.now())
            .await
            .map_err(|e| FleetError::Unavailable(format!("{host}: {e:#}")))
    }

    /// The virtual CD/DVD drive: on the system (newer BMCs) or on the
    /// manager that manages it.
    async fn media_slot(
        &self,
        bmc: &Bmc<'_>,
        target: &Target,
        system: &str,
    ) -> Result<String, FleetError> {
        let found = async {
            let resource = bmc.get(system).await?;
            let collection = match link(&resource["VirtualMedia"]) {
                Some(path) => path.to_owned(),
                None => {
                    let manager = resource["Links"]["ManagedBy"]
                        .as_array()
                        .and_then(|m| m.first())
                        .and_then(link)
                        .ok_or_else(|| {
                            BmcError::Malformed("no virtual media and no manager".into())
                        })?
                        .to_owned();
                    let manager = bmc.get(&manager).await?;
                    link(&manager["VirtualMedia"])
                        .ok_or_else(|| {
                            BmcError::Malformed("the BMC offers no virtual media".into())
                        })?
                        .to_owned()
                }
            };
            for path in members(&bmc.get(&collection).await?) {
                let slot = bmc.get(&path).await?;
                let types = slot["MediaTypes"].as_array().cloned().unwrap_or_default();
                if types
                    .iter()
                    .any(|t| matches!(t.as_str(), Some("CD" | "DVD")))
                {
                    return Ok(path);
                }
            }
            Err(BmcError::Malformed(
                "the BMC has no virtual CD drive".into(),
            ))
        }
        .await;
        self.bmc_result(target, found).await
    }

    async fn eject(&self, bmc: &Bmc<'_>, target: &Target) -> Result<(), FleetError> {
        let system = self.system(bmc, target).await?;
        let slot = self.media_slot(bmc, target, &system).await?;
        let ejected = eject_from(bmc, &slot).await.map(|_| ());
        self.bmc_result(target, ejected).await
    }

    /// Erases every drive that offers `SecureErase`; true when there was
    /// at least one (a BMC without it leaves erasing to a wipe image).
    async fn secure_erase(&self, bmc: &Bmc<'_>, system: &str) -> Result<bool, BmcError> {
        let resource = bmc.get(system).await?;
        let Some(storage) = link(&resource["Storage"]) else {
            return Ok(false);
        };
        let mut erased = false;
        for controller in members(&bmc.get(storage).await?) {
            let controller = bmc.get(&controller).await?;
            let drives: Vec<String> = controller["Drives"]
                .as_array()
                .map(|d| d.iter().filter_map(link).map(str::to_owned).collect())
                .unwrap_or_default();
            for drive in drives {
                let drive = bmc.get(&drive).await?;
                if let Some(target) = action_target(&drive, "#Drive.SecureErase") {
                    let answer = bmc.post(target, &json!({})).await?;
                    self.wait_for_task(bmc, &answer).await?;
                    erased = true;
                }
            }
        }
        Ok(erased)
    }

    /// Follows a Redfish task an action answered with, if it did.
    async fn wait_for_task(&self, bmc: &Bmc<'_>, answer: &Value) -> Result<(), BmcError> {
        let is_task = answer["@odata.type"]
            .as_str()
            .is_some_and(|t| t.contains("Task."));
        let Some(task) = link(answer).filter(|_| is_task) else {
            return Ok(());
        };
        let started = tokio::time::Instant::now();
        loop {
            let state = bmc.get(task).await?;
            match state["TaskState"].as_str().unwrap_or("") {
                "Completed" => return Ok(()),
                "Exception" | "Killed" | "Cancelled" => {
                    return Err(BmcError::Redfish {
                        status: 200,
                        message: format!("task {task} ended {}", state["TaskState"]),
                    })
                }
                _ if started.elapsed() > self.settings.task_wait => {
                    return Err(BmcError::Timeout(self.settings.task_wait.as_secs()))
                }
                _ => tokio::time::sleep(std::time::Duration::from_secs(2)).await,
            }
        }
    }

    pub(super) async fn wipe_host(&self, host: &str) -> Result<Progress<()>, FleetError> {
        let target = self.target(host).await?;
        let bmc = self.clients.connect(&target.bmc.access);
        let latest = boots::latest(&self.db, &target.bmc.host_id)
            .await
            .map_err(|e| FleetError::Unavailable(format!("{e:#}")))?;
        if let Some(boot) = latest.filter(|b| b.purpose == Purpose::Wipe.as_str()) {
            if !boot.finished || boot.phase == Phase::Done {
                return match self.follow(&target, &boot, Phase::Done).await? {
                    Progress::Done(_) => {
                        self.eject(&bmc, &target).await?;
                        Ok(Progress::Done(()))
                    }
                    Progress::Running(what) => Ok(Progress::Running(what)),
                };
            }
        }
        let system = self.system(&bmc, &target).await?;
        // The rental has ended: the tenant's system stops now, forced and
        // seen off, whatever it does with ACPI; a host that cannot be seen
        // off is a fault for staff, never back in stock.
        self.power_target(&bmc, &target, &system, HostPower::Off)
            .await?;
        let erased = self.secure_erase(&bmc, &system).await;
        if self.bmc_result(&target, erased).await? {
            self.note(&target, "wiped: the drives' SecureErase completed")
                .await;
            return Ok(Progress::Done(()));
        }
        let seed = Seed {
            purpose: Purpose::Wipe.as_str().to_owned(),
            image: "wipe".to_owned(),
            hostname: host.to_owned(),
            ssh_keys: Vec::new(),
            root_password: None,
            report_key: String::new(),
        };
        self.boot(&bmc, &target, None, seed, self.settings.wipe_limit)
            .await?;
        Ok(Progress::Running("the wipe image is booting".into()))
    }
}

/// Ejects what the virtual drive at `slot` holds, if anything; answers the
/// drive's resource (with its action targets).
async fn eject_from(bmc: &Bmc<'_>, slot: &str) -> Result<Value, BmcError> {
    let resource = bmc.get(slot).await?;
    if resource["Inserted"].as_bool() == Some(true) {
        let eject = action_target(&resource, "#VirtualMedia.EjectMedia")
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{slot}/Actions/VirtualMedia.EjectMedia"));
        bmc.post(&eject, &json!({})).await?;
    }
    Ok(resource)
}
