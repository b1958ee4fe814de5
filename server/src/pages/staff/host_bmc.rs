//! Hosts' BMCs on the staff hosts page: where each host's Redfish service
//! answers and as whom, whether its certificate is checked, how its serial
//! console is reached, what the last check read (model, serial, BIOS,
//! power, GPUs) or why it refused the host. Setting a host's BMC (its
//! password sealed, never shown again, never in the audit log) and checking
//! a host through it: the page then says whether the host matches its plan,
//! why it was refused, or what the BMC answered.

use crate::http::page::{
    client_ip, lang_of, redirect, refused, PageError, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Access, Route};
use crate::pages::staff::hosts::actor;
use crate::startup::AppState;
use app::i18n::{orders, staff};
use app::portal::forms::CsrfField;
use app::portal::refusals::BmcRefusal;
use app::portal::FormError;
use app::portal::{query, use_feedback};
use app::storefront::href;
use axum::extract::State;
use backend::audit;
use backend::fleet::redfish::check::CheckError;
use backend::inventory::bmc::{self, BmcSettings, BmcSettingsError};
use domain::host::SerialConsole;
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A host's BMC as staff see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BmcRow {
    pub host: String,
    pub url: String,
    pub username: String,
    pub tls_verify: bool,
    /// `ipmi` or `ssh`.
    pub serial_console: SerialConsole,
    pub model: Option<String>,
    pub serial_number: Option<String>,
    pub bios_version: Option<String>,
    pub power_state: Option<String>,
    /// "NVIDIA L40S, NVIDIA L40S"
    pub gpus: Option<String>,
    pub checked_at: Option<i64>,
    /// Why the last check refused the host, or could not read its BMC.
    pub check_error: Option<String>,
}

impl BmcRow {
    /// The short word for the hosts list: passed, not passed, not checked.
    fn status(&self, lang: Lang) -> &'static str {
        let s = staff(lang);
        match (&self.checked_at, &self.check_error) {
            (None, _) => s.bmc_unchecked,
            (Some(_), Some(_)) => s.bmc_refused,
            (Some(_), None) => s.bmc_passed,
        }
    }
}

/// The hosts list's BMC cell: the check's status, linked to the host's
/// BMC row, or that the simulated Fleet drives the host.
pub fn bmc_cell(lang: Lang, host: &str, bmcs: &[BmcRow]) -> AnyView {
    match bmcs.iter().find(|b| b.host == host) {
        Some(bmc) => view! { <a href=format!("#bmc-{host}")>{bmc.status(lang)}</a> }.into_any(),
        None => view! { <span class="empty">{staff(lang).bmc_simulated}</span> }.into_any(),
    }
}

/// What a check found, after its redirect (`?check=passed|refused|failed
/// &host=…`): the translated framing around the BMC's own words, which
/// the page reads from the host's row, never from the address.
#[component]
pub fn CheckNotice(lang: Lang, bmcs: Vec<BmcRow>) -> impl IntoView {
    check_notice(lang, &bmcs)
}

fn check_notice(lang: Lang, bmcs: &[BmcRow]) -> Option<AnyView> {
    let s = staff(lang);
    let (outcome, host) = (query("check")?, query("host")?);
    let bmc = bmcs.iter().find(|b| b.host == host)?;
    let said = bmc.check_error.clone().unwrap_or_default();
    let (class, role, text) = match outcome.as_str() {
        "passed" => ("notice notice-ok", "status", (s.check_passed)(&host)),
        "refused" => (
            "notice notice-error",
            "alert",
            (s.check_refused)(&host, &said),
        ),
        _ => (
            "notice notice-error",
            "alert",
            (s.check_failed)(&host, &said),
        ),
    };
    Some(
        view! { <p class=class role=role data-testid="check-outcome" data-outcome=outcome>{text}</p> }
            .into_any(),
    )
}

/// Every host's BMC with its last check and a button to check it again,
/// then the form that sets a host's BMC.
#[component]
pub fn HostBmcs(lang: Lang, bmcs: Vec<BmcRow>) -> impl IntoView {
    let s = staff(lang);
    let list = if bmcs.is_empty() {
        view! { <p class="empty">{s.bmc_none_yet}</p> }.into_any()
    } else {
        bmc_table(lang, bmcs).into_any()
    };
    view! {
        <h2 id="bmc">{s.bmc_title}</h2>
        <p class="hint">{s.bmc_intro}</p>
        {list}
        <BmcForm lang />
    }
}

fn bmc_table(lang: Lang, bmcs: Vec<BmcRow>) -> impl IntoView {
    let (s, o) = (staff(lang), orders(lang));
    let rows = bmcs.into_iter().map(|b| bmc_row(lang, b)).collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(s.bmc_title)>
            <table class="bmcs phone-cards">
                <thead>
                    <tr>
                        <th scope="col">{o.col_host}</th>
                        <th scope="col">{s.col_bmc}</th>
                        <th scope="col">{s.col_serial_console}</th>
                        <th scope="col">{s.col_model}</th>
                        <th scope="col">{s.col_serial_number}</th>
                        <th scope="col">{s.col_bios}</th>
                        <th scope="col">{s.col_power}</th>
                        <th scope="col">{s.col_gpus}</th>
                        <th scope="col">{s.col_checked}</th>
                        <th scope="col"><span class="sr-only">{s.check_submit}</span></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The pieces of a BMC both staff pages show: the self-signed badge, the
/// power state and GPUs in words, and the last check with its error.
pub(crate) struct BmcFacts {
    pub self_signed: Option<AnyView>,
    pub power: Option<String>,
    pub gpus: Option<String>,
    pub checked: AnyView,
}

impl BmcRow {
    pub(crate) fn facts(&self, lang: Lang) -> BmcFacts {
        let s = staff(lang);
        BmcFacts {
            self_signed: (!self.tls_verify).then(|| {
                view! { " "<span class="badge badge-warn" data-testid="self-signed">{s.bmc_self_signed}</span> }
                    .into_any()
            }),
            power: self.power_state.as_deref().map(|p| (s.power_state)(p)),
            gpus: self.gpus.clone().map(|g| match g.trim() {
                "" => s.gpus_none.to_owned(),
                _ => g,
            }),
            checked: match (self.checked_at, self.check_error.clone()) {
                (None, _) => view! { <span class="empty">{s.never_checked}</span> }.into_any(),
                (Some(at), error) => view! {
                    {domain::time::format_datetime(at)}
                    {error.map(|e| view! { <p class="notice notice-error" data-testid="bmc-check-error">{e}</p> })}
                }
                .into_any(),
            },
        }
    }
}

fn bmc_row(lang: Lang, b: BmcRow) -> impl IntoView {
    let s = staff(lang);
    let BmcFacts {
        self_signed,
        power,
        gpus,
        checked,
    } = b.facts(lang);
    let host = b.host.clone();
    view! {
        <tr id=format!("bmc-{}", b.host) data-bmc=b.host.clone()>
            <th scope="row"><code>{b.host.clone()}</code></th>
            <td data-label=s.col_bmc>
                <code>{b.url.clone()}</code>
                <br />
                {s.bmc_user}<code>{b.username.clone()}</code>
                {self_signed}
            </td>
            <td data-label=s.col_serial_console>{(s.serial_console)(b.serial_console)}</td>
            <td data-label=s.col_model>{b.model.clone()}</td>
            <td data-label=s.col_serial_number>{b.serial_number.clone()}</td>
            <td data-label=s.col_bios>{b.bios_version.clone()}</td>
            <td data-label=s.col_power>{power}</td>
            <td data-label=s.col_gpus>{gpus}</td>
            <td data-label=s.col_checked>{checked}</td>
            <td>
                <form method="post" action=href(lang, "/staff/hosts/check") class="inline">
                    <CsrfField />
                    <input type="hidden" name="host" value=host />
                    <button type="submit" class="button-muted">{s.check_submit}</button>
                </form>
            </td>
        </tr>
    }
}

/// Sets a host's BMC. A refused form comes back with what was typed,
/// except the password.
#[component]
fn BmcForm(lang: Lang) -> impl IntoView {
    let (s, o) = (staff(lang), orders(lang));
    let feedback = use_feedback();
    let serial = feedback.value("serial");
    let vnc_port = match feedback.value("vnc_port") {
        port if port.is_empty() => "5900".to_owned(),
        port => port,
    };
    view! {
        <form method="post" action=href(lang, "/staff/hosts/bmc") class="bmc-form" autocomplete="off">
            <h3>{s.bmc_set_title}</h3>
            <p class="hint">{s.bmc_set_hint}</p>
            <CsrfField />
            <div class="field">
                <label for="bmc-host">{o.hosts_name}</label>
                <input id="bmc-host" name="host" value=feedback.value("host") required />
            </div>
            <div class="field">
                <label for="bmc-url">{s.bmc_url}</label>
                <input id="bmc-url" name="url" type="url" value=feedback.value("url") required aria-describedby="bmc-url-hint" />
                <p class="hint" id="bmc-url-hint">{s.bmc_url_hint}</p>
            </div>
            <div class="field">
                <label for="bmc-user">{s.bmc_username}</label>
                <input id="bmc-user" name="user" value=feedback.value("user") required maxlength="64" autocomplete="off" />
            </div>
            <div class="field">
                <label for="bmc-password">{s.bmc_password}</label>
                <input id="bmc-password" name="password" type="password" required maxlength="256" autocomplete="off" aria-describedby="bmc-password-hint" />
                <p class="hint" id="bmc-password-hint">{s.bmc_password_hint}</p>
            </div>
            <label class="option" for="bmc-self-signed">
                <input type="checkbox" id="bmc-self-signed" name="self_signed" value="1" checked=feedback.value("self_signed") == "1" />
                " "{s.bmc_accept_self_signed}
            </label>
            <div class="field">
                <label for="bmc-serial">{s.col_serial_console}</label>
                <select id="bmc-serial" name="serial">
                    {SerialConsole::ALL.iter().map(|c| view! {
                        <option value=c.as_str() selected=serial == c.as_str() || (serial.is_empty() && *c == SerialConsole::Ipmi)>{(s.serial_console)(*c)}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="bmc-serial-command">{s.bmc_serial_command}</label>
                <input id="bmc-serial-command" name="serial_command" value=feedback.value("serial_command") maxlength="200" aria-describedby="bmc-serial-command-hint" />
                <p class="hint" id="bmc-serial-command-hint">{s.bmc_serial_command_hint}</p>
            </div>
            <div class="field">
                <label for="bmc-vnc-port">{s.bmc_vnc_port}</label>
                <input id="bmc-vnc-port" name="vnc_port" type="number" min="1" max="65535" value=vnc_port required />
            </div>
            <button type="submit">{s.bmc_set_submit}</button>
        </form>
    }
}

pub fn routes() -> Vec<Route> {
    use Access::Staff;
    vec![
        Route::post("/{lang}/staff/hosts/bmc", Staff, set_bmc),
        Route::post("/{lang}/staff/hosts/check", Staff, check),
    ]
}

/// Every host's BMC for the hosts page, without its password.
pub(crate) async fn bmc_rows(db: &backend::Db) -> anyhow::Result<Vec<BmcRow>> {
    Ok(bmc::summaries(db)
        .await?
        .into_iter()
        .map(BmcRow::from)
        .collect())
}

/// A host's BMC as the staff pages show it.
impl From<bmc::BmcSummary> for BmcRow {
    fn from(s: bmc::BmcSummary) -> BmcRow {
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
