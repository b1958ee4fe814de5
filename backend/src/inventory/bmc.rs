//! A host's baseboard management controller (BMC): where its Redfish
//! service answers, the account the Fleet uses (the password sealed under
//! `SECRET_KEY`), whether its certificate is checked, how its serial
//! console is reached, and what the last check read from it.

use anyhow::Context;
use domain::HostId;
use sqlx::Row;

use super::{HostState, InventoryError};
use crate::fleet::redfish::BmcAccess;
use crate::sealing::Sealer;
use crate::{Clock, Db};

pub use domain::host::SerialConsole;

/// What an operator enters for a host's BMC.
#[derive(Clone)]
pub struct BmcSettings {
    pub url: String,
    pub username: String,
    pub password: String,
    pub tls_verify: bool,
    pub serial_console: SerialConsole,
    /// For `Ssh`: the command that attaches the serial port.
    pub serial_command: String,
    /// The port the BMC's VNC (RFB) server listens on.
    pub vnc_port: u16,
}

#[derive(Debug, thiserror::Error)]
pub enum BmcSettingsError {
    #[error("no host is called {0:?}")]
    UnknownHost(String),
    #[error("the BMC address must be https://host or https://host:port (http:// only on loopback), without a path")]
    Url,
    #[error("the BMC user name must be 1 to 64 printable characters")]
    Username,
    #[error("the BMC password must be 1 to 256 characters")]
    Password,
    #[error("the serial console command must be at most 200 printable characters")]
    SerialCommand,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

impl BmcSettings {
    fn validate(&self) -> Result<(), BmcSettingsError> {
        if !valid_url(&self.url) {
            return Err(BmcSettingsError::Url);
        }
        let printable = |s: &str| s.chars().all(|c| !c.is_control());
        if self.username.is_empty()
            || self.username.chars().count() > 64
            || !printable(&self.username)
        {
            return Err(BmcSettingsError::Username);
        }
        if self.password.is_empty() || self.password.chars().count() > 256 {
            return Err(BmcSettingsError::Password);
        }
        if self.serial_command.chars().count() > 200 || !printable(&self.serial_command) {
            return Err(BmcSettingsError::SerialCommand);
        }
        Ok(())
    }
}

/// `https://host[:port]`, nothing else: a path, a query or credentials in
/// the URL would end up in logs. Plain `http://` only on loopback (a lab
/// BMC emulator); a BMC's password must not cross a network in clear.
fn valid_url(url: &str) -> bool {
    let rest = if let Some(rest) = url.strip_prefix("https://") {
        rest
    } else if let Some(rest) = url.strip_prefix("http://") {
        let host = rest.rsplit_once(':').map_or(rest, |(h, _)| h);
        if !matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
            return false;
        }
        rest
    } else {
        return false;
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    !rest.is_empty()
        && rest.len() <= 253
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
}

/// Gives a host its BMC (or replaces it). The previous check's findings
/// are forgotten: they describe a BMC we may no longer talk to; a free
/// host goes to maintenance until a check passes.
pub async fn set(
    db: &Db,
    sealer: &Sealer,
    clock: &Clock,
    host_name: &str,
    settings: &BmcSettings,
    actor: &str,
) -> Result<(), BmcSettingsError> {
    settings.validate()?;
    let host_id: HostId = sqlx::query_scalar("select id from hosts where name = $1")
        .bind(host_name)
        .fetch_optional(&db.pool)
        .await
        .context("reading the host")?
        .ok_or_else(|| BmcSettingsError::UnknownHost(host_name.to_owned()))?;
    let sealed = sealer.seal(&settings.password)?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    sqlx::query("delete from host_bmcs where host_id = $1")
        .bind(&host_id)
        .execute(&mut *tx)
        .await
        .context("replacing the BMC")?;
    sqlx::query(
        "insert into host_bmcs (host_id, url, username, sealed_password, tls_verify, \
         serial_console, serial_command, vnc_port, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
    )
    .bind(&host_id)
    .bind(settings.url.trim_end_matches('/'))
    .bind(&settings.username)
    .bind(sealed)
    .bind(i64::from(settings.tls_verify))
    .bind(settings.serial_console.as_str())
    .bind(&settings.serial_command)
    .bind(i64::from(settings.vnc_port))
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("storing the BMC")?;
    tx.commit().await.context("committing the BMC")?;
    // Not checked yet: a free host leaves stock until a check passes (a
    // rented one keeps running; it is checked before it is sold again).
    let state: String = sqlx::query_scalar("select state from hosts where id = $1")
        .bind(&host_id)
        .fetch_one(&db.pool)
        .await
        .context("reading the host state")?;
    if state == HostState::Free.as_str() {
        let reason = "BMC changed; waiting for its check";
        match super::set_state(db, clock, host_name, HostState::Maintenance, actor, reason).await {
            // Taken by an order meanwhile: it is checked before it is sold again.
            Ok(_) | Err(InventoryError::Transition { .. }) => {}
            Err(error) => return Err(anyhow::Error::from(error).into()),
        }
    }
    Ok(())
}

/// A host's BMC as the Fleet uses it.
#[derive(Clone, Debug)]
pub struct HostBmc {
    pub host_id: HostId,
    pub host_name: String,
    pub plan_id: String,
    pub access: BmcAccess,
    pub serial_console: SerialConsole,
    pub serial_command: String,
    pub vnc_port: u16,
    /// The ComputerSystem the last check found (`/redfish/v1/Systems/…`).
    pub system_path: Option<String>,
}

/// The BMC of the host called `host_name`, if it has one.
pub async fn of_host(db: &Db, sealer: &Sealer, host_name: &str) -> anyhow::Result<Option<HostBmc>> {
    let row = sqlx::query(
        "select b.host_id, h.name, h.plan_id, b.url, b.username, b.sealed_password, b.tls_verify, \
         b.serial_console, b.serial_command, b.vnc_port, b.system_path \
         from host_bmcs b join hosts h on h.id = b.host_id where h.name = $1",
    )
    .bind(host_name)
    .fetch_optional(&db.pool)
    .await
    .context("reading the host's BMC")?;
    let Some(row) = row else { return Ok(None) };
    let sealed: String = row.try_get("sealed_password")?;
    let serial: String = row.try_get("serial_console")?;
    let vnc_port: i64 = row.try_get("vnc_port")?;
    Ok(Some(HostBmc {
        host_id: row.try_get("host_id")?,
        host_name: row.try_get("name")?,
        plan_id: row.try_get("plan_id")?,
        access: BmcAccess {
            url: row.try_get("url")?,
            username: row.try_get("username")?,
            password: sealer
                .open(&sealed)
                .context("opening the BMC password (was SECRET_KEY changed?)")?,
            tls_verify: row.try_get::<i64, _>("tls_verify")? == 1,
        },
        serial_console: SerialConsole::parse(&serial).context("stored serial console kind")?,
        serial_command: row.try_get("serial_command")?,
        vnc_port: u16::try_from(vnc_port).context("stored VNC port")?,
        system_path: row.try_get("system_path")?,
    }))
}

/// What staff see of a host's BMC (never its password).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BmcSummary {
    pub host_name: String,
    pub url: String,
    pub username: String,
    pub tls_verify: bool,
    pub serial_console: SerialConsole,
    pub model: Option<String>,
    pub serial_number: Option<String>,
    pub bios_version: Option<String>,
    pub power_state: Option<String>,
    /// The GPUs found, as "NVIDIA L40S, NVIDIA L40S".
    pub gpus: Option<String>,
    pub checked_at: Option<i64>,
    /// Why the last check refused the host or could not read it.
    pub check_error: Option<String>,
}

/// Every host's BMC, by host name.
pub async fn summaries(db: &Db) -> anyhow::Result<Vec<BmcSummary>> {
    summaries_of(db, "").await
}

/// The BMC of the host called `name`, if it has one.
pub async fn summary(db: &Db, name: &str) -> anyhow::Result<Option<BmcSummary>> {
    Ok(summaries_of(db, name).await?.pop())
}

/// The BMCs of every host (`name` empty) or of one.
async fn summaries_of(db: &Db, name: &str) -> anyhow::Result<Vec<BmcSummary>> {
    let rows = sqlx::query(
        "select h.name, b.url, b.username, b.tls_verify, b.serial_console, b.model, \
         b.serial_number, b.bios_version, b.power_state, b.gpus, b.checked_at, b.check_error \
         from host_bmcs b join hosts h on h.id = b.host_id \
         where ($1 = '' or h.name = $1) order by h.name",
    )
    .bind(name)
    .fetch_all(&db.pool)
    .await
    .context("listing BMCs")?;
    rows.iter()
        .map(|row| {
            Ok(BmcSummary {
                host_name: row.try_get("name")?,
                url: row.try_get("url")?,
                username: row.try_get("username")?,
                tls_verify: row.try_get::<i64, _>("tls_verify")? == 1,
                serial_console: row.try_get("serial_console")?,
                model: row.try_get("model")?,
                serial_number: row.try_get("serial_number")?,
                bios_version: row.try_get("bios_version")?,
                power_state: row.try_get("power_state")?,
                gpus: row.try_get("gpus")?,
                checked_at: row.try_get("checked_at")?,
                check_error: row.try_get("check_error")?,
            })
        })
        .collect()
}

/// Whether a host may go (back) into stock: a host with a BMC needs a
/// passed check; one without (the development Fleet's) always may.
pub async fn passed_check(db: &Db, host_id: &HostId) -> anyhow::Result<bool> {
    let row = sqlx::query("select checked_at, check_error from host_bmcs where host_id = $1")
        .bind(host_id)
        .fetch_optional(&db.pool)
        .await
        .context("reading the BMC check")?;
    let Some(row) = row else { return Ok(true) };
    let checked: Option<i64> = row.try_get("checked_at")?;
    let error: Option<String> = row.try_get("check_error")?;
    Ok(checked.is_some() && error.is_none())
}

/// Records a host event about its BMC (a refused login, a time-out, an
/// error the BMC answered), in the host's history without a state change.
pub async fn event(db: &Db, clock: &Clock, host_id: &HostId, reason: &str) -> anyhow::Result<()> {
    sqlx::query(
        "insert into host_events (id, host_id, from_state, to_state, actor, reason, at) \
         select $1, id, state, state, 'fleet', $2, $3 from hosts where id = $4",
    )
    .bind(crate::db::new_id())
    .bind(reason)
    .bind(clock.now())
    .bind(host_id)
    .execute(&db.pool)
    .await
    .context("recording a BMC event")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::valid_url;

    #[test]
    fn only_plain_bmc_addresses_are_taken() {
        assert!(valid_url("https://10.20.0.15"));
        assert!(valid_url("https://bmc-fra-017.dc.example:8443/"));
        assert!(valid_url("http://127.0.0.1:8000"));
        assert!(!valid_url("http://10.20.0.15"));
        assert!(!valid_url("https://admin:pw@10.20.0.15"));
        assert!(!valid_url("https://10.20.0.15/redfish/v1"));
        assert!(!valid_url("ftp://10.20.0.15"));
    }
}
