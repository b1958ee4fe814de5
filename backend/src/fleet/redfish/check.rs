//! Checking a host before it is sold: read its BMC (model, serial, BIOS,
//! power state, the GPUs it sees) and refuse it unless its cards are the
//! plan's, in number and model. A refused host that was free leaves stock.

use anyhow::Context;
use domain::HostId;
use serde_json::Value;
use sqlx::Row;

use super::client::{link, members, Bmc, BmcError};
use super::RedfishFleet;
use crate::inventory::{self, HostState};

/// What a BMC says about its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    pub system_path: String,
    pub manufacturer: String,
    pub model: String,
    pub serial_number: String,
    pub bios_version: String,
    pub power_state: String,
    /// The model of each GPU the BMC lists (`Processors` of type GPU).
    pub gpus: Vec<String>,
}

/// The outcome of a check: the facts, and why the host is refused if it is.
#[derive(Clone, Debug)]
pub struct CheckReport {
    pub facts: Facts,
    pub refused: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("no host is called {0:?}")]
    UnknownHost(String),
    #[error("{0} has no BMC: give it one first (server hosts bmc)")]
    NoBmc(String),
    #[error("{host}: {error}")]
    Bmc { host: String, error: BmcError },
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// The host's one ComputerSystem (a GPU host has exactly one).
pub(super) async fn system_path(bmc: &Bmc<'_>) -> Result<String, BmcError> {
    let systems = bmc.get("/redfish/v1/Systems").await?;
    members(&systems)
        .into_iter()
        .next()
        .ok_or_else(|| BmcError::Malformed("the BMC lists no computer system".into()))
}

pub(super) async fn read_facts(bmc: &Bmc<'_>) -> Result<Facts, BmcError> {
    let system_path = system_path(bmc).await?;
    let system = bmc.get(&system_path).await?;
    let text = |key: &str| system[key].as_str().unwrap_or("").trim().to_owned();
    let mut gpus = Vec::new();
    if let Some(processors) = link(&system["Processors"]) {
        for path in members(&bmc.get(processors).await?) {
            let processor = bmc.get(&path).await?;
            if processor["ProcessorType"].as_str() == Some("GPU") {
                gpus.push(gpu_name(&processor));
            }
        }
    }
    Ok(Facts {
        manufacturer: text("Manufacturer"),
        model: text("Model"),
        serial_number: text("SerialNumber"),
        bios_version: text("BiosVersion"),
        power_state: text("PowerState"),
        system_path,
        gpus,
    })
}

/// "NVIDIA L40S": the model, with the maker in front when the model does
/// not already say it.
fn gpu_name(processor: &Value) -> String {
    let model = processor["Model"].as_str().unwrap_or("unknown GPU").trim();
    let maker = processor["Manufacturer"].as_str().unwrap_or("").trim();
    if maker.is_empty() || model.to_lowercase().contains(&maker.to_lowercase()) {
        model.to_owned()
    } else {
        format!("{maker} {model}")
    }
}

/// Letters and digits only, lower case: "RTX 4000 Ada" matches "NVIDIA
/// RTX 4000 Ada Generation", "L40S" matches "NVIDIA L40S" but not "L40".
fn squeezed(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_lowercase()
}

fn is_model(gpu: &str, plan_model: &str) -> bool {
    let (gpu, plan) = (squeezed(gpu), squeezed(plan_model));
    let Some(at) = gpu.find(&plan) else {
        return false;
    };
    // Nothing may follow but the generation's name: "L40S" must not
    // match an "L40S2".
    let after = &gpu[at + plan.len()..];
    after.is_empty() || after == "generation"
}

/// Why a host with these GPUs cannot be sold as a plan of `count` ×
/// `plan_model`, or `None` when it can.
pub fn refusal(gpus: &[String], plan_model: &str, count: u32) -> Option<String> {
    let matching = gpus.iter().filter(|g| is_model(g, plan_model)).count();
    if gpus.is_empty() {
        return Some(format!(
            "the BMC lists no GPU; the plan needs {count} × {plan_model}"
        ));
    }
    if matching != gpus.len() || matching != count as usize {
        return Some(format!(
            "the BMC lists {}; the plan needs {count} × {plan_model}",
            gpus.join(", ")
        ));
    }
    None
}

impl RedfishFleet {
    /// Reads the host's BMC, records what it found, and refuses the host
    /// (out of stock, into maintenance) if its GPUs are not the plan's.
    pub async fn check_host(
        &self,
        host_name: &str,
        actor: &str,
    ) -> Result<CheckReport, CheckError> {
        let bmc = inventory::bmc::of_host(&self.db, &self.sealer, host_name)
            .await?
            .ok_or_else(|| CheckError::NoBmc(host_name.to_owned()))?;
        let facts = match read_facts(&self.clients.connect(&bmc.access)).await {
            Ok(facts) => facts,
            Err(error) => {
                let reason = format!("BMC check failed: {error}");
                self.record_check(&bmc.host_id, None, Some(&reason)).await?;
                inventory::bmc::event(&self.db, &self.clock, &bmc.host_id, &reason).await?;
                return Err(CheckError::Bmc {
                    host: host_name.to_owned(),
                    error,
                });
            }
        };
        let row = sqlx::query("select gpu_model, gpu_count from plans where id = $1")
            .bind(&bmc.plan_id)
            .fetch_one(&self.db.pool)
            .await
            .context("reading the host's plan")?;
        let plan_model: String = row.try_get("gpu_model").context("plan GPU model")?;
        let count: i64 = row.try_get("gpu_count").context("plan card count")?;
        let count = u32::try_from(count).context("card count")?;
        let refused = refusal(&facts.gpus, &plan_model, count);
        self.record_check(&bmc.host_id, Some(&facts), refused.as_deref())
            .await?;
        if let Some(why) = &refused {
            let reason = format!("BMC check refused the host: {why}");
            match inventory::set_state(
                &self.db,
                &self.clock,
                host_name,
                HostState::Maintenance,
                actor,
                &reason,
            )
            .await
            {
                // Only a free (or already parked) host is moved; a rented
                // one keeps running and the event tells staff.
                Ok(_) => {}
                Err(inventory::InventoryError::Transition { .. }) => {
                    inventory::bmc::event(&self.db, &self.clock, &bmc.host_id, &reason).await?;
                }
                Err(inventory::InventoryError::Db(error)) => return Err(CheckError::Db(error)),
                Err(other) => return Err(CheckError::Db(other.into())),
            }
        }
        Ok(CheckReport { facts, refused })
    }

    async fn record_check(
        &self,
        host_id: &HostId,
        facts: Option<&Facts>,
        error: Option<&str>,
    ) -> anyhow::Result<()> {
        let now = self.clock.now();
        // A failed read keeps the last facts read, with the error beside.
        if let Some(f) = facts {
            sqlx::query(
                "update host_bmcs set system_path = $1, model = $2, serial_number = $3, \
                 bios_version = $4, power_state = $5, gpus = $6 where host_id = $7",
            )
            .bind(&f.system_path)
            .bind(format!("{} {}", f.manufacturer, f.model).trim().to_owned())
            .bind(&f.serial_number)
            .bind(&f.bios_version)
            .bind(&f.power_state)
            .bind(f.gpus.join(", "))
            .bind(host_id)
            .execute(&self.db.pool)
            .await
            .context("recording the BMC's facts")?;
        }
        sqlx::query(
            "update host_bmcs set checked_at = $1, check_error = $2, updated_at = $1 \
             where host_id = $3",
        )
        .bind(now)
        .bind(error)
        .bind(host_id)
        .execute(&self.db.pool)
        .await
        .context("recording the BMC check")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::refusal;

    fn gpus(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn only_the_plans_cards_in_number_and_model_pass() {
        assert_eq!(
            refusal(&gpus(&["NVIDIA L40S", "NVIDIA L40S"]), "L40S", 2),
            None
        );
        assert_eq!(
            refusal(
                &gpus(&["NVIDIA RTX 4000 Ada Generation"]),
                "RTX 4000 Ada",
                1
            ),
            None
        );
        assert!(refusal(&gpus(&["NVIDIA L40S"]), "L40S", 2).is_some());
        assert!(refusal(&gpus(&["NVIDIA L40"]), "L40S", 1).is_some());
        assert!(refusal(&gpus(&["NVIDIA L40S", "NVIDIA L4"]), "L40S", 1).is_some());
        assert!(refusal(&[], "L40S", 1).is_some());
    }
}
