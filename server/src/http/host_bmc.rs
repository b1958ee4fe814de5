//! Staff: hosts' BMCs on the hosts page. Setting a host's BMC (its
//! password sealed, never shown again, never in the audit log) and
//! checking a host through it: the page then says whether the host
//! matches its plan, why it was refused, or what the BMC answered.

use app::portal::host_bmc::{BmcRefusal, BmcRow};
use app::portal::FormError;
use axum::extract::State;
use backend::audit;
use backend::fleet::redfish::check::CheckError;
use backend::inventory::bmc::{self, BmcSettings, BmcSettingsError, SerialConsole};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::hosts::actor;
use super::page::{
    client_ip, lang_of, redirect, refused, PageError, PageResult, SameOrigin, Signed,
};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    use Access::Staff;
    vec![
        Route::post("/{lang}/staff/hosts/bmc", Staff, set_bmc),
        Route::post("/{lang}/staff/hosts/check", Staff, check),
    ]
}

/// Every host's BMC for the hosts page, without its password.
pub(super) async fn bmc_rows(db: &backend::Db) -> anyhow::Result<Vec<BmcRow>> {
    Ok(bmc::summaries(db).await?.into_iter().map(bmc_row).collect())
}

/// A host's BMC as the staff pages show it.
pub(super) fn bmc_row(s: bmc::BmcSummary) -> BmcRow {
    BmcRow {
        host: s.host_name,
        url: s.url,
        username: s.username,
        tls_verify: s.tls_verify,
        serial_console: s.serial_console,
        model: s.model,
        serial_number: s.serial_number,
        bios_version: s.bios_version,
        power_state: s.power_state,
        gpus: s.gpus,
        checked_at: s.checked_at,
        check_error: s.check_error,
    }
}

#[derive(Deserialize)]
struct BmcForm {
    #[serde(default)]
    host: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    user: String,
    #[serde(default)]
    password: String,
    /// "1" when the operator accepts the BMC's self-signed certificate.
    #[serde(default)]
    self_signed: String,
    #[serde(default)]
    serial: String,
    #[serde(default)]
    serial_command: String,
    #[serde(default)]
    vnc_port: String,
}

impl BmcForm {
    /// What a refused form shows again: everything typed but the password.
    fn kept(&self) -> Vec<(&'static str, &str)> {
        vec![
            ("host", self.host.as_str()),
            ("url", self.url.as_str()),
            ("user", self.user.as_str()),
            ("self_signed", self.self_signed.as_str()),
            ("serial", self.serial.as_str()),
            ("serial_command", self.serial_command.as_str()),
            ("vnc_port", self.vnc_port.as_str()),
        ]
    }

    /// The settings as typed; the form's own defaults (IPMI, port 5900)
    /// stand for fields a script left out, as on the command line.
    fn settings(&self) -> Result<BmcSettings, FormError> {
        let serial_console = match self.serial.trim() {
            "" => SerialConsole::Ipmi,
            kind => SerialConsole::parse(kind).ok_or(FormError::Choice)?,
        };
        let vnc_port = match self.vnc_port.trim() {
            "" => 5900,
            port => port
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or(FormError::Bmc(BmcRefusal::VncPort))?,
        };
        Ok(BmcSettings {
            url: self.url.trim().to_owned(),
            username: self.user.trim().to_owned(),
            // As typed: spaces may be part of a password.
            password: self.password.clone(),
            tls_verify: self.self_signed != "1",
            serial_console,
            serial_command: self.serial_command.trim().to_owned(),
            vnc_port,
        })
    }
}

fn settings_refusal(error: BmcSettingsError) -> Result<FormError, PageError> {
    Ok(match error {
        BmcSettingsError::UnknownHost(_) => FormError::UnknownHost,
        BmcSettingsError::Url => FormError::Bmc(BmcRefusal::Url),
        BmcSettingsError::Username => FormError::Bmc(BmcRefusal::Username),
        BmcSettingsError::Password => FormError::Bmc(BmcRefusal::Password),
        BmcSettingsError::SerialCommand => FormError::Bmc(BmcRefusal::SerialCommand),
        BmcSettingsError::Db(error) => return Err(PageError::Unavailable(error)),
    })
}

/// Gives a host its BMC (or a new one), audited without the password.
async fn set_bmc(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<BmcForm>,
) -> PageResult {
    let kept = form.kept();
    let settings = form.settings().map_err(|e| refused(e, &kept))?;
    let host = form.host.trim();
    if let Err(error) = bmc::set(
        &state.db,
        &state.sealer,
        &state.clock,
        host,
        &settings,
        &actor(&staff),
    )
    .await
    {
        return Err(refused(settings_refusal(error)?, &kept));
    }
    let certificate = if settings.tls_verify {
        "certificate verified"
    } else {
        "self-signed certificate accepted"
    };
    let detail = format!(
        "{host}: {} as {}, {certificate}, serial console {}",
        settings.url,
        settings.username,
        settings.serial_console.as_str()
    );
    let ip = client_ip(&parts);
    let entry = audit::Entry {
        organization_id: None,
        user_id: Some(&staff.0.user.id),
        actor: &actor(&staff),
        action: "host.bmc_set",
        detail: &detail,
        ip: ip.as_deref(),
        at: state.clock.now(),
    };
    audit::record(&state.db.pool, &entry).await?;
    Ok(redirect(lang_of(&parts), "/staff/hosts?done=bmc#bmc"))
}

#[derive(Deserialize)]
struct CheckForm {
    #[serde(default)]
    host: String,
}

/// Reads a host's BMC now. Whatever it found (the host matches its plan,
/// is refused, or its BMC could not be read) is stored with the host, and
/// the page says it; only a host without a BMC is the form's error.
async fn check(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<CheckForm>,
) -> PageResult {
    let host = form.host.trim();
    let outcome = match state.redfish.check_host(host, &actor(&staff)).await {
        Ok(report) if report.refused.is_none() => "passed",
        Ok(_) => "refused",
        Err(CheckError::Bmc { .. }) => "failed",
        Err(CheckError::UnknownHost(_)) => {
            return Err(refused(FormError::UnknownHost, &[("host", host)]))
        }
        Err(CheckError::NoBmc(_)) => {
            return Err(refused(
                FormError::Bmc(BmcRefusal::NoBmc),
                &[("host", host)],
            ))
        }
        Err(CheckError::Db(error)) => return Err(PageError::Unavailable(error)),
    };
    let name: String = form_urlencoded::byte_serialize(host.as_bytes()).collect();
    Ok(redirect(
        lang_of(&parts),
        &format!("/staff/hosts?check={outcome}&host={name}#bmc-{name}"),
    ))
}
